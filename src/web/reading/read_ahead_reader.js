// The nested worker of src/web/reading/read_ahead.rs: keeps the Blob (or
// the URL of a server that serves byte ranges) it is given and answers
// {id, start, end} with that slice's bytes, transferred (no copy), in the
// order asked, saying whether their buffer was a fresh one.
//
// One stream of the Blob, read with a BYOB reader into the buffers the
// indexing worker hands back ({spare}): Chromium then spends 1.34-1.40 CPU
// s/GB against 1.89-2.38 for a fresh slice each time (bench_read.mjs); a
// jump starts a new stream. A URL's slices are each one range request,
// read the same way into the buffers handed back: a synchronous request
// per read kept each response's Blob in the browser until collected (2 GB
// of the browser's memory reading 10 GB). {prefault: size} makes and
// touches the buffers before any file, so the kernel's page zeroing is not
// paid while indexing. A slice goes into the smallest spare that holds it.
let blob = null;
let url = null;
// Whether slices are read into the buffers handed back (a Blob's from one
// stream); where the browser's Blob streams take no BYOB reader (or the
// worker is told not to), each slice is read on its own, into a fresh
// buffer.
let byob = true;
let reader = null;
let pos = 0;
const spares = [];
// Two slices ahead plus the one being copied out: more would only be
// memory nobody uses.
const MAX_SPARES = 3;
let queue = Promise.resolve();

onmessage = (e) => {
  const m = e.data;
  if (m.blob || m.url) {
    blob = m.blob ?? null;
    url = m.url ?? null;
    if (m.byob === false) byob = false;
    return;
  }
  if (m.spare) {
    if (spares.length < MAX_SPARES) spares.push(m.spare);
    return;
  }
  if (m.prefault) {
    prefault(m.prefault);
    return;
  }
  queue = queue.then(() => fill(m.start, m.end)).then(
    ({ b, fresh }) => postMessage({ id: m.id, b, fresh }, [b]),
    (x) => postMessage({ id: m.id, error: String(x) }),
  );
};

// As many buffers as it keeps, one per task, so a slice asked for
// meanwhile is not held up.
function prefault(size, left = MAX_SPARES) {
  if (left <= 0 || spares.length >= MAX_SPARES) return;
  const buffer = new ArrayBuffer(size);
  const bytes = new Uint8Array(buffer);
  for (let i = 0; i < size; i += 4096) bytes[i] = 0;
  spares.push(buffer);
  setTimeout(() => prefault(size, left - 1), 0);
}

async function fill(start, end) {
  // What the slice is read from: a URL's own request for it, or the
  // Blob's stream (started again at a jump).
  let from = null;
  if (byob && url !== null) {
    from = readerOf((await ranged(start, end)).body);
  } else if (byob) {
    if (reader === null || pos !== start) {
      if (reader !== null) reader.cancel().catch(() => {});
      reader = null;
      try {
        reader = blob.slice(start).stream().getReader({ mode: 'byob' });
        pos = start;
      } catch {
        byob = false;
      }
    }
    from = reader;
  }
  if (from === null) {
    return { b: await slice(start, end), fresh: true };
  }
  const len = end - start;
  let i = -1;
  for (let k = 0; k < spares.length; k++) {
    const n = spares[k].byteLength;
    if (n >= len && (i < 0 || n < spares[i].byteLength)) i = k;
  }
  const fresh = i < 0;
  // None holds the slice (a URL's slices are larger than a dropped file's,
  // which the buffers made ahead are for): the smallest makes room for
  // this one when it is handed back.
  if (fresh && spares.length >= MAX_SPARES) {
    spares.sort((a, b) => a.byteLength - b.byteLength).shift();
  }
  let buffer = fresh ? new ArrayBuffer(len) : spares.splice(i, 1)[0];
  let filled = 0;
  try {
    while (filled < len) {
      const { done, value } = await from.read(new Uint8Array(buffer, filled, len - filled));
      if (done) throw new Error(`the file ended at ${start + filled}, before ${end}`);
      buffer = value.buffer;
      filled += value.byteLength;
      if (from === reader) pos += value.byteLength;
    }
  } catch (x) {
    // The file changed or could not be read: the next slice starts afresh.
    if (from === reader) reader = null;
    throw x;
  }
  return { b: buffer, fresh };
}

// A reader of `body` whose read(view) fills `view`.
function readerOf(body) {
  try {
    return body.getReader({ mode: 'byob' });
  } catch {
    return copying(body.getReader());
  }
}

// Bytes [start, end) on their own, in a fresh buffer.
async function slice(start, end) {
  if (blob !== null) return blob.slice(start, end).arrayBuffer();
  return (await ranged(start, end)).arrayBuffer();
}

// The server's answer for bytes [start, end); anything but those bytes
// fails (the read is then made again, synchronously, which says why).
async function ranged(start, end) {
  const range = `bytes=${start}-${end - 1}`;
  // Not kept in the HTTP cache: the file is read once, however large.
  const response = await fetch(url, { headers: { Range: range }, cache: 'no-store' });
  // Content-Range may be hidden from a page on another site; 206 says a
  // range came.
  const from = /^bytes (\d+)-/.exec(response.headers.get('Content-Range') ?? '');
  if (response.status !== 206 || (from !== null && Number(from[1]) !== start)) {
    response.body?.cancel().catch(() => {});
    throw new Error(`${url}: HTTP ${response.status} for ${range}`);
  }
  return response;
}

// A default reader made to fill the views it is given, as a BYOB reader
// does (for a browser whose fetch bodies take none), copying.
function copying(inner) {
  let rest = new Uint8Array(0);
  return {
    async read(view) {
      if (rest.byteLength === 0) {
        const { done, value } = await inner.read();
        if (done) return { done: true };
        rest = value;
      }
      const n = Math.min(rest.byteLength, view.byteLength);
      view.set(rest.subarray(0, n));
      rest = rest.subarray(n);
      return { done: false, value: new Uint8Array(view.buffer, view.byteOffset, n) };
    },
    cancel: () => inner.cancel(),
  };
}
