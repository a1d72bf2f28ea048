// The nested worker of src/web/reading/read_ahead.rs: keeps the Blob it is given
// and answers {id, start, end} with that slice's bytes, transferred (no
// copy), in the order asked, saying whether their buffer was a fresh one.
//
// One stream of the Blob, read with a BYOB reader into the buffers the
// indexing worker hands back ({spare}): Chromium then spends 1.34-1.40 CPU
// s/GB against 1.89-2.38 for a fresh slice each time (bench_read.mjs); a
// jump starts a new stream. {prefault: size} makes and touches the buffers
// before any file, so the kernel's page zeroing is not paid while indexing.
// A slice goes into the smallest spare that holds it.
let blob = null;
// Whether this browser's Blob streams take a BYOB reader; where they do
// not (or the worker is told not to), each slice is read as it was before
// the stream, into a fresh buffer.
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
  if (m.blob) {
    blob = m.blob;
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
  if (byob && (reader === null || pos !== start)) {
    if (reader !== null) reader.cancel().catch(() => {});
    reader = null;
    try {
      reader = blob.slice(start).stream().getReader({ mode: 'byob' });
      pos = start;
    } catch {
      byob = false;
    }
  }
  if (!byob) {
    return { b: await blob.slice(start, end).arrayBuffer(), fresh: true };
  }
  const len = end - start;
  let i = -1;
  for (let k = 0; k < spares.length; k++) {
    const n = spares[k].byteLength;
    if (n >= len && (i < 0 || n < spares[i].byteLength)) i = k;
  }
  const fresh = i < 0;
  let buffer = fresh ? new ArrayBuffer(len) : spares.splice(i, 1)[0];
  let filled = 0;
  try {
    while (filled < len) {
      const { done, value } = await reader.read(new Uint8Array(buffer, filled, len - filled));
      if (done) throw new Error(`the file ended at ${pos}, before ${end}`);
      buffer = value.buffer;
      filled += value.byteLength;
      pos += value.byteLength;
    }
  } catch (x) {
    // The file changed or could not be read: the next slice starts afresh.
    reader = null;
    throw x;
  }
  return { b: buffer, fresh };
}
