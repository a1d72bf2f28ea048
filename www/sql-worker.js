// The Query pane's engine (crates/sql built by scripts/build-sql-wasm.sh
// into sql/): a module worker of its own, started the first time the pane
// runs a query, so the page's first load never carries it. It reads the
// trace by slices (`FileReaderSync` over the dropped file, or synchronous
// range requests for a trace opened from a URL): the text stays out of
// wasm memory. Messages: see src/web/page/sql_client.rs.
import init, { SqlEngine } from './sql/tarmac_lens_sql.js';

let engine = null;

/** Bytes read at once when the engine reads on from where it stopped. */
const BLOCK = 4 << 20;

/** A scan reads 256 KiB at a time, in order, and each call to the browser
 * costs more than its bytes (1 GB by `FileReaderSync`: 256 KiB slices
 * 6.6 s, 4 MiB 3.4 s): a read that goes on from the last one is served
 * from a block read at once; a jump reads only what it asks. */
function readAhead({ len, read }) {
  let start = 0;
  let block = new Uint8Array(0);
  let next = -1;
  return {
    len,
    read: (at, n) => {
      const end = Math.min(at + n, len);
      if (at >= start && end <= start + block.length) {
        next = end;
        return block.subarray(at - start, end - start);
      }
      if (at !== next || n >= BLOCK) {
        next = end;
        return read(at, n);
      }
      start = at;
      block = read(at, Math.max(n, BLOCK));
      next = Math.min(end, start + block.length);
      return block.subarray(0, next - start);
    },
  };
}

/** `read(offset, length)` over a Blob or a URL. */
function reader(trace) {
  if (trace.blob) {
    const sync = new FileReaderSync();
    const blob = trace.blob;
    return { len: blob.size, read: (at, n) => new Uint8Array(sync.readAsArrayBuffer(blob.slice(at, at + n))) };
  }
  const head = new XMLHttpRequest();
  head.open('HEAD', trace.url, false);
  head.send();
  const len = Number(head.getResponseHeader('Content-Length'));
  if (!(head.status >= 200 && head.status < 300) || !Number.isFinite(len)) {
    throw new Error(`cannot read ${trace.url}: HTTP ${head.status}`);
  }
  return {
    len,
    read: (at, n) => {
      const end = Math.min(at + n, len) - 1;
      if (end < at) return new Uint8Array(0);
      const xhr = new XMLHttpRequest();
      xhr.open('GET', trace.url, false);
      // Synchronous requests take no `responseType`: the bytes come as
      // a binary string.
      xhr.overrideMimeType('text/plain; charset=x-user-defined');
      xhr.setRequestHeader('Range', `bytes=${at}-${end}`);
      xhr.send();
      if (xhr.status !== 206 && !(xhr.status === 200 && at === 0)) {
        throw new Error(`cannot read ${trace.url} at ${at}: HTTP ${xhr.status}`);
      }
      const text = xhr.responseText;
      const out = new Uint8Array(Math.min(text.length, end - at + 1));
      for (let i = 0; i < out.length; i++) out[i] = text.charCodeAt(i) & 0xff;
      return out;
    },
  };
}

function elfBytes(elf) {
  if (!elf) return undefined;
  if (elf.blob) return new Uint8Array(new FileReaderSync().readAsArrayBuffer(elf.blob));
  const xhr = new XMLHttpRequest();
  xhr.open('GET', elf.url, false);
  xhr.overrideMimeType('text/plain; charset=x-user-defined');
  xhr.send();
  const text = xhr.responseText;
  const out = new Uint8Array(text.length);
  for (let i = 0; i < out.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

const message = (e) => (e instanceof Error ? e.message : String(e));

self.onmessage = async ({ data }) => {
  if (data.open) {
    try {
      await init({ module_or_path: new URL('./sql/tarmac_lens_sql_bg.wasm', import.meta.url) });
      const { name, trace, index, elf } = data.open;
      const source = readAhead(reader(trace));
      engine = new SqlEngine(name, source.len, source.read, index, elfBytes(elf));
      if (engine.indexedLength() !== source.len) {
        engine = null;
        throw new Error('the Query pane reads the trace as it is stored, and this one is compressed: decompress it, or use `tarmac-lens sql`');
      }
      postMessage({ ready: SqlEngine.tables() });
    } catch (e) {
      postMessage({ failed: message(e) });
    }
  } else if (data.query) {
    const { id, sql } = data.query;
    const started = performance.now();
    try {
      const rows = await engine.query(sql);
      postMessage({ done: { id, rows, kept: engine.kept(), columns: engine.columns(), ms: performance.now() - started } });
    } catch (e) {
      postMessage({ error: { id, message: message(e) } });
    }
  } else if (data.rows) {
    const { id, offset, count } = data.rows;
    try {
      postMessage({ rows: { id, offset, json: engine.rows(offset, count) } });
    } catch (e) {
      postMessage({ error: { id, message: message(e) } });
    }
  }
};
