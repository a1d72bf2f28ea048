// The browser entry point (also `default`): the core runs in a module
// Worker, which reads a Blob, a URL or bytes a slice at a time.
import { Trace, TraceProgressEvent, bytesOf, nameOf } from './lib/trace.js';

export { Trace, TraceProgressEvent };

function describe(input, what) {
  const bytes = bytesOf(input);
  if (bytes) return { kind: 'bytes', bytes, name: what };
  if (typeof Blob !== 'undefined' && input instanceof Blob) return { kind: 'blob', blob: input, name: nameOf(input, what) };
  if (input instanceof URL || typeof input === 'string') {
    // Relative to the page, not to the worker's script.
    const url = new URL(input, globalThis.document?.baseURI ?? globalThis.location?.href);
    return { kind: 'url', url: url.href, name: nameOf(url, what) };
  }
  throw new TypeError(`${what} must be a Blob, an ArrayBuffer, a Uint8Array, a URL or a string`);
}

/** Opens a trace and starts indexing it; the Trace's `ready` resolves when done. */
export function startTrace(input, options = {}) {
  // A bad input rejects `ready`, as every other failure does.
  const open = new Promise((resolve) =>
    resolve({
      type: 'open',
      input: describe(input, 'the trace'),
      elf: options.elf ? describe(options.elf, 'the ELF image') : null,
    }),
  );
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return new Trace(
    {
      post: (message) => worker.postMessage(message),
      listen(onMessage, onError) {
        worker.onmessage = (event) => onMessage(event.data);
        worker.onerror = (event) => {
          event.preventDefault();
          onError(event.message || 'worker error');
        };
      },
      terminate: () => worker.terminate(),
      busy() {},
    },
    open,
    options,
  );
}

/** Opens a trace; resolves once it is indexed. */
export function openTrace(input, options = {}) {
  return startTrace(input, options).ready;
}
