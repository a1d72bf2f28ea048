// Big traces for browser tests and benchmarks, kept in the temporary
// directory: for tests, copies of a checked-in generated trace end to end
// (`repeatedTrace`: nothing outside the repository is needed); for the
// benchmarks, one long run of a program made with tracegen
// (`generatedTrace`: needs the shared tracegen and its Python packages).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TRACEGEN = process.env.TL_TRACEGEN ?? '/work/shared/tools/tracegen/tracegen.py';
// The project's venv holds tracegen's packages (scripts/install-deps.sh).
const VENV_PYTHON = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../.venv/bin/python3');
const PYTHON = fs.existsSync(VENV_PYTHON) ? VENV_PYTHON : 'python3';

/** A generated trace of about `mb` megabytes (binary), reused when present. */
export function generatedTrace(mb) {
  const file = path.join(os.tmpdir(), `tarmac-lens-bench-quicksort-${mb}M.tarmac`);
  if (fs.existsSync(file) && fs.statSync(file).size >= mb * 1024 * 1024 * 0.9) return file;
  console.error(`generating ${file} with ${TRACEGEN}`);
  execFileSync(
    PYTHON,
    [TRACEGEN, '-p', 'quicksort', '-a', 'aarch64', '-s', 'fastmodel', '-t', `${mb}M`, '-o', file],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return file;
}

const PIECE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac',
);

/** About `mb` megabytes (binary) of the checked-in 2 MB quicksort trace
 * repeated, made once and reused. Each copy's times (and instruction
 * ticks) carry on from the last copy's: a trace whose time went backwards
 * at the joins would be indexed correctly, but a range worker's index
 * could not be stitched there, and the tests of stitching would test
 * nothing. */
export function repeatedTrace(mb) {
  const file = path.join(os.tmpdir(), `tarmac-lens-test-quicksort-repeated-v2-${mb}M.tarmac`);
  const piece = fs.readFileSync(PIECE, 'latin1');
  const copies = Math.ceil((mb * 1024 * 1024) / piece.length);
  const last = piece.trimEnd().split('\n').at(-1);
  const period = Number(last.slice(0, last.indexOf(' '))) + 1;
  const done = `${file}.done`;
  if (fs.existsSync(file) && fs.existsSync(done) && fs.readFileSync(done, 'utf8') === String(copies)) return file;
  const out = fs.openSync(file, 'w');
  for (let k = 0; k < copies; k++) {
    const shift = (t) => String(Number(t) + k * period);
    const copy = k === 0 ? piece : piece.replace(/^(\d+)( clk IT \()?(\d+)?/gm, (_, t, it, n) => shift(t) + (it ? it + shift(n) : ''));
    fs.writeSync(out, copy, null, 'latin1');
  }
  fs.closeSync(out);
  // Written last, so an interrupted run is made again.
  fs.writeFileSync(done, String(copies));
  return file;
}
