// The browser worker (a module worker made by browser.js): reads stay
// synchronous here, where blocking is allowed.
import init, { TraceCore } from './gen/tarmac_lens_js.js';
import { bytesReader, messageOf, serve } from './lib/serve.js';

function urlReader(url) {
  const get = (range) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', url, false);
    xhr.responseType = 'arraybuffer';
    xhr.setRequestHeader('Range', range);
    xhr.send();
    if (xhr.status !== 200 && xhr.status !== 206 && xhr.status !== 416) {
      throw new Error(`${url}: HTTP ${xhr.status} ${xhr.statusText}`.trim());
    }
    return xhr;
  };
  const first = get('bytes=0-0');
  // A server that ignores Range sends the whole file: keep it on this side.
  if (first.status === 200) return bytesReader(new Uint8Array(first.response));
  // 206 says `bytes 0-0/N`; 416 (an empty file) says `bytes */0`.
  const total = Number(/\/(\d+)\s*$/.exec(first.getResponseHeader('Content-Range') ?? '')?.[1]);
  if (!Number.isSafeInteger(total)) {
    throw new Error(`${url}: the server gave no length (Content-Range) for a ranged request`);
  }
  return {
    length: total,
    read(offset, length) {
      const xhr = get(`bytes=${offset}-${offset + length - 1}`);
      const body = new Uint8Array(xhr.response);
      if (xhr.status === 206) return body;
      // It ignored the Range this time: only the whole file is usable.
      if (xhr.status === 200 && body.length === total) return body.subarray(offset, offset + length);
      throw new Error(`${url}: the server answered bytes ${offset}-${offset + length - 1} with HTTP ${xhr.status}`);
    },
  };
}

function makeReader(input) {
  switch (input.kind) {
    case 'blob': {
      const reader = new FileReaderSync();
      const { blob } = input;
      return {
        length: blob.size,
        read: (offset, length) => new Uint8Array(reader.readAsArrayBuffer(blob.slice(offset, offset + length))),
      };
    }
    case 'bytes':
      return bytesReader(input.bytes);
    case 'url':
      return urlReader(input.url);
    default:
      throw new Error(`cannot read ${input.kind} input in a browser`);
  }
}

const post = (message) => self.postMessage(message);
const loaded = init().catch((e) => {
  post({ type: 'failed', message: `the wasm module did not load: ${messageOf(e)}` });
  throw e;
});
const handle = serve(TraceCore, makeReader, post);
self.onmessage = (event) => loaded.then(() => handle(event.data));
