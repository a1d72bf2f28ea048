// Writes tests/data/ep/sploop-loop.ept.txt: a TI C64x+ EP trace in the text
// form `ep_trace_util -2txt` writes (see the spec's sample), of a made-up
// program: a main loop calling two routines (execute packets of 2 to 32
// bytes, some stalls), a SPLOOP run partly from memory and mostly from the
// loop buffer with an epilogue discontinuity, and now and then an
// interrupt (a discontinuity of size 0). Deterministic: the same bytes
// every run.
//
//   node scripts/make_ep_sample.mjs [OUT]

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? path.join(ROOT, 'tests/data/ep/sploop-loop.ept.txt');

let seed = 0x1234567;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return (seed >>> 8) % n;
};
const hex = (n) => `0x${n.toString(16).padStart(8, '0')}`;

const lines = [
  '###############################################################################################',
  '#### Absolute CPU Cycle: PC : Record Type : EP cycles : Address : EP Size : CPU Stall Cycle####',
  '###############################################################################################',
  '####Version:3',
];
let cycle = 531;
const rec = (pc, type, cycles, addr, size, stall) => {
  lines.push(`${cycle}:${hex(pc)}:${type}:${cycles}:${hex(addr)}:${size}:${stall}`);
  cycle += cycles + stall;
};
const SIZES = [4, 8, 8, 12, 16, 32, 2, 6];
// A routine: `n` packets from `start`, sizes fixed per address (a
// packet's size is the code's), then a branch to `back`.
const packetSize = (pc) => SIZES[(pc >>> 2) % SIZES.length];
function straight(start, n, back) {
  let pc = start;
  for (let i = 0; i < n; i++) {
    const size = packetSize(pc);
    const last = i === n - 1;
    const stall = rand(10) === 0 ? 1 + rand(4) : 0;
    const cycles = 1 + (size > 16 ? 1 : 0) + (last ? 5 : 0);
    rec(pc, last ? 1 : 2, cycles, last ? back : (pc & ~0x1f) >>> 0, size, stall);
    pc += size;
  }
}
const MAIN = 0xe0001440;
const FILTER = 0xe0002000;
const COPY = 0xe0002400;
const SPLOOP = 0xe0003000;
const ISR = 0xe0000400;

rec(MAIN, 0, 0, MAIN, 110, 0);
for (let iter = 0; iter < 300; iter++) {
  straight(MAIN, 6, iter % 3 === 0 ? COPY : FILTER);
  if (iter % 3 === 0) straight(COPY, 4 + (iter % 5), FILTER);
  straight(FILTER, 9, SPLOOP);
  // The SPLOOP: prologue fetched from memory, the kernel from the loop
  // buffer, the epilogue's branch back to the main loop.
  for (let i = 0; i < 3; i++) rec(SPLOOP + 8 * i, 3, 1, SPLOOP, 8, 0);
  rec(SPLOOP, 4, 16 + 4 * (iter % 7), SPLOOP, 0, 0);
  rec(SPLOOP + 0x18, 5, 2, MAIN, 8, 0);
  if (iter % 37 === 36) {
    // An interrupt: size 0, then the handler returns to the loop.
    rec(MAIN, 1, 1, ISR, 0, 0);
    straight(ISR, 5, MAIN);
  }
}
rec(MAIN, 0, 0, MAIN, 110, 0);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, lines.join('\n') + '\n');
console.log(`${out}: ${lines.length} lines`);
