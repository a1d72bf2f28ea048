// Writes the synthetic trace of tests/browser/synthetic_trace.mjs (the 2 MB
// quicksort trace repeated, times shifted per copy) to standard output, for
// benchmarks of traces bigger than the disk, compressed as it is written:
//
//   node scripts/synthetic-trace.mjs 100 | pzstd -1 -p 2 -c >s100g.tarmac.zst
//
// The argument is the size in GB (10^9 bytes; whole copies, so a little more).

import { SyntheticTrace } from '../tests/browser/synthetic_trace.mjs';

const gb = Number(process.argv[2]);
if (!(gb > 0)) {
  console.error('usage: node scripts/synthetic-trace.mjs SIZE_GB');
  process.exit(2);
}
// A reader that has seen enough (`| head`) ends the writing, quietly.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(0);
});
const trace = new SyntheticTrace({ bytes: gb * 1e9 });
const STEP = 16 << 20;
let at = 0;
function pump() {
  while (at < trace.length) {
    const end = Math.min(trace.length, at + STEP);
    const chunk = trace.read(at, end);
    at = end;
    if (!process.stdout.write(chunk)) {
      process.stdout.once('drain', pump);
      return;
    }
  }
}
pump();
