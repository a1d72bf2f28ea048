// Generated quicksort traces for browser tests and benchmarks, made once with
// tracegen and kept in the temporary directory.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TRACEGEN = process.env.TL_TRACEGEN ?? '/work/shared/tools/tracegen/tracegen.py';

/** A generated trace of about `mb` megabytes (binary), reused when present. */
export function generatedTrace(mb) {
  const file = path.join(os.tmpdir(), `tarmac-lens-bench-quicksort-${mb}M.tarmac`);
  if (fs.existsSync(file) && fs.statSync(file).size >= mb * 1024 * 1024 * 0.9) return file;
  console.error(`generating ${file} with ${TRACEGEN}`);
  execFileSync(
    'python3',
    [TRACEGEN, '-p', 'quicksort', '-a', 'aarch64', '-s', 'fastmodel', '-t', `${mb}M`, '-o', file],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return file;
}
