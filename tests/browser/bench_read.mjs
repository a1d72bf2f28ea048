// What reading a dropped file costs in this Chromium, with no parsing: the
// floor under the page's indexing speed. For each way a worker can read a
// `File` start to end, prints one JSON line: MB/s and the CPU seconds of
// every Chromium process (the browser reads the file and pipes it to the
// worker, so the worker's own CPU time is not the whole cost).
// Not a test (no .test. in the name): run it by hand after `trunk build`.
//
//   node tests/browser/bench_read.mjs TRACE

import { launchBrowser, serveDist } from './harness.mjs';
import { chromiumThreads, cpuByThreadName } from './proc_cpu.mjs';

const trace = process.argv[2];
if (!trace) {
  console.error('usage: node tests/browser/bench_read.mjs TRACE');
  process.exit(2);
}

// The worker: reads the whole file one way and says how long it took.
const WORKER = `
// One buffer of \`slice\` bytes, filled by the browser again and again.
async function readByob(stream, slice) {
  const reader = stream.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(slice);
  let total = 0;
  for (let filled = 0; ; ) {
    const { done, value } = await reader.read(new Uint8Array(buffer, filled));
    if (done) return total;
    total += value.byteLength;
    buffer = value.buffer;
    filled += value.byteLength;
    if (filled === slice) filled = 0;
  }
}

// The stream's own chunks, each a fresh buffer.
async function readChunks(stream) {
  const reader = stream.getReader();
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return total;
    total += value.byteLength;
  }
}

onmessage = async (e) => {
  const { file, how, slice } = e.data;
  const blob = file.slice(0, file.size);
  const t0 = performance.now();
  let total = 0;
  if (how === 'arrayBuffer') {
    for (let o = 0; o < file.size; o += slice) {
      total += (await blob.slice(o, Math.min(file.size, o + slice)).arrayBuffer()).byteLength;
    }
  } else if (how === 'FileReaderSync') {
    const r = new FileReaderSync();
    for (let o = 0; o < file.size; o += slice) {
      total += r.readAsArrayBuffer(blob.slice(o, Math.min(file.size, o + slice))).byteLength;
    }
  } else if (how === 'byob') {
    total = await readByob(blob.stream(), slice);
  } else if (how === 'fetch' || how === 'fetch-byob') {
    // A blob: URL read through the network stack's loader, whose data pipe
    // is not the blob reader's.
    const url = URL.createObjectURL(blob);
    const res = await fetch(url);
    total = how === 'fetch' ? await readChunks(res.body) : await readByob(res.body, slice);
    URL.revokeObjectURL(url);
  } else if (how === 'fetch-ranges') {
    // Byte ranges of a blob: URL, each its own request.
    const url = URL.createObjectURL(blob);
    for (let o = 0; o < file.size; o += slice) {
      const end = Math.min(file.size, o + slice) - 1;
      const res = await fetch(url, { headers: { Range: \`bytes=\${o}-\${end}\` } });
      total += (await res.arrayBuffer()).byteLength;
    }
    URL.revokeObjectURL(url);
  } else if (how === 'stream') {
    total = await readChunks(blob.stream());
  }
  postMessage({ ms: performance.now() - t0, total });
};`;

const server = await serveDist();
const browser = await launchBrowser();
const page = await browser.context.newPage();
// The app's page only for its origin (blob: workers are allowed by its CSP).
await page.goto(server.url);
await page.evaluate(() => {
  const input = document.createElement('input');
  input.type = 'file';
  input.id = 'bench-read-input';
  document.body.append(input);
});
await page.setInputFiles('#bench-read-input', trace);
// The slice size matters: each slice costs the browser CPU time of its own
// (see CHUNK in src/web/reading/read_ahead.rs).
const ways = [
  ['arrayBuffer', 2 << 20],
  ['arrayBuffer', 8 << 20],
  ['arrayBuffer', 16 << 20],
  ['arrayBuffer', 32 << 20],
  ['arrayBuffer', 64 << 20],
  ['FileReaderSync', 8 << 20],
  ['FileReaderSync', 32 << 20],
  ['stream', 0],
  ['byob', 32 << 20],
  ['byob', 8 << 20],
  ['byob', 1 << 20],
  ['fetch', 0],
  ['fetch-byob', 32 << 20],
  ['fetch-ranges', 32 << 20],
];
const only = process.env.TL_READ_WAYS?.split(',');
for (const [how, slice] of [...ways, ...ways].filter(([how]) => !only || only.includes(how))) {
  const before = chromiumThreads();
  const r = await page.evaluate(
    ([src, how, slice]) =>
      new Promise((resolve, reject) => {
        const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
        const w = new Worker(url);
        w.onmessage = (e) => {
          // Ended once its threads' CPU time is read (an ended thread's
          // is no longer listed).
          window.benchReadWorker = w;
          URL.revokeObjectURL(url);
          resolve(e.data);
        };
        w.onerror = (e) => reject(new Error(e.message));
        w.postMessage({ file: document.getElementById('bench-read-input').files[0], how, slice });
      }),
    [WORKER, how, slice],
  );
  const byThread = cpuByThreadName(before, chromiumThreads());
  const cpu = Object.values(byThread).reduce((a, b) => a + b, 0);
  await page.evaluate(() => window.benchReadWorker.terminate());
  console.log(
    JSON.stringify({
      how,
      slice_bytes: slice || null,
      bytes: r.total,
      mb_per_s: Math.round(r.total / 1e3 / r.ms),
      chromium_cpu_s: Math.round(cpu * 100) / 100,
      chromium_cpu_s_per_gb: Math.round((cpu / (r.total / 1e9)) * 100) / 100,
      chromium_cpu_by_thread: byThread,
    }),
  );
}
await browser.close();
await server.close();
