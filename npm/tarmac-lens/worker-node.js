// The Node worker (a worker_threads module worker made by node.js). The
// wasm is wasm-bindgen's own nodejs build (CommonJS, hence .cjs).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { bytesReader, serve } from './lib/serve.js';

const { TraceCore } = createRequire(import.meta.url)('./gen/tarmac_lens_js.cjs');

function makeReader(input) {
  switch (input.kind) {
    case 'fd':
      // The main thread opened the file (and closes it): descriptors are
      // the process's, so one opened there reads here.
      return {
        length: input.length,
        read(offset, length) {
          const buf = Buffer.allocUnsafe(length);
          let done = 0;
          while (done < length) {
            const n = fs.readSync(input.fd, buf, done, length - done, offset + done);
            if (n === 0) break;
            done += n;
          }
          return buf.subarray(0, done);
        },
      };
    case 'bytes':
      return bytesReader(input.bytes);
    default:
      throw new Error(`cannot read ${input.kind} input in Node`);
  }
}

const handle = serve(TraceCore, makeReader, (message) => parentPort.postMessage(message));
parentPort.on('message', handle);
