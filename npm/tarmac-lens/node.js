// The Node entry point: the core runs in a worker_threads Worker, which
// reads a file through a descriptor (a slice at a time), or bytes.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Trace, TraceProgressEvent, bytesOf, nameOf } from './lib/trace.js';

export { Trace, TraceProgressEvent };

/** What the worker reads for `input`; descriptors opened go in `fds`. */
async function describe(input, what, fds) {
  const bytes = bytesOf(input);
  if (bytes) return { kind: 'bytes', bytes, name: what };
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    // Node has no FileReaderSync: a Blob is read whole, on this side.
    return { kind: 'bytes', bytes: new Uint8Array(await input.arrayBuffer()), name: nameOf(input, what) };
  }
  let path = input;
  if (input instanceof URL || (typeof input === 'string' && /^[a-z][a-z0-9+.-]+:\/\//i.test(input))) {
    const url = new URL(input);
    if (url.protocol !== 'file:') {
      throw new Error(`${url.href}: Node reads files, not ${url.protocol} URLs (fetch it and pass the bytes)`);
    }
    path = fileURLToPath(url);
  }
  if (typeof path !== 'string') {
    throw new TypeError(`${what} must be a path, a file: URL, a Blob, an ArrayBuffer or a Uint8Array`);
  }
  let fd;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    throw new Error(`${path}: ${e.message}`);
  }
  fds.push(fd);
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) throw new Error(`${path}: not a regular file`);
  // Descriptors are the process's: one opened here reads in the worker.
  return { kind: 'fd', fd, length: stat.size, name: nameOf(path) };
}

/** Opens a trace and starts indexing it; the Trace's `ready` resolves when done. */
export function startTrace(input, options = {}) {
  const fds = [];
  const open = (async () => ({
    type: 'open',
    input: await describe(input, 'the trace', fds),
    elf: options.elf ? await describe(options.elf, 'the ELF image', fds) : null,
  }))();
  const worker = new Worker(new URL('./worker-node.js', import.meta.url));
  return new Trace(
    {
      post: (message) => worker.postMessage(message),
      listen(onMessage, onError) {
        worker.on('message', onMessage);
        worker.on('error', onError);
        // Killed or out of memory: fail what waits (after close() too, harmlessly).
        worker.on('exit', (code) => onError(new Error(`it exited (code ${code})`)));
      },
      terminate: () => worker.terminate(),
      // An idle trace does not keep Node running; one at work does.
      busy: (yes) => (yes ? worker.ref() : worker.unref()),
    },
    open,
    options,
    () => fds.splice(0).forEach((fd) => fs.closeSync(fd)),
  );
}

/** Opens a trace; resolves once it is indexed. */
export function openTrace(input, options = {}) {
  return startTrace(input, options).ready;
}
