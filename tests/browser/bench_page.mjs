// Page benchmark (prints figures; not part of the test suite):
//
//   node tests/browser/bench_page.mjs [TRACE]
//
// Drops TRACE (default: a trace of $TL_BENCH_MB megabytes, 1024 by default,
// made by concatenating the traces in tests/data) on the built page and
// measures, inside the page, the time from the file input's change event to
// the first trace row, the longest task on the UI thread while indexing
// (PerformanceObserver 'longtask'), the time to `ready`, and the MB/s. Needs
// `trunk build --release` (dist/) like the tests.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ROOT, launchBrowser, serveDist } from './harness.mjs';

function makeTrace(mb) {
  const file = path.join(os.tmpdir(), `tarmac-lens-page-bench-${mb}M.tarmac`);
  const want = mb * 1024 * 1024;
  if (fs.existsSync(file) && fs.statSync(file).size >= want) return file;
  const parts = [];
  for (const dir of ['tests/data/ttu/samples', 'tests/data/tracegen']) {
    for (const f of fs.readdirSync(path.join(ROOT, dir)).sort()) {
      if (f.endsWith('.tarmac')) parts.push(fs.readFileSync(path.join(ROOT, dir, f)));
    }
  }
  const fd = fs.openSync(file, 'w');
  let written = 0;
  while (written < want) {
    for (const p of parts) {
      fs.writeSync(fd, p);
      written += p.length;
      if (written >= want) break;
    }
  }
  fs.closeSync(fd);
  return file;
}

const trace = process.argv[2] ?? makeTrace(Number(process.env.TL_BENCH_MB ?? 1024));
const bytes = fs.statSync(trace).size;
const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.addInitScript(() => {
    window.__bench = { longTasks: [], changeAt: null, firstRowAt: null };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__bench.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ entryTypes: ['longtask'] });
    document.addEventListener(
      'change',
      (e) => {
        if (e.target?.dataset?.testid === 'file-input') window.__bench.changeAt = performance.now();
      },
      true,
    );
    new MutationObserver(() => {
      if (window.__bench.changeAt !== null && window.__bench.firstRowAt === null && document.querySelector('[data-row-line]')) {
        window.__bench.firstRowAt = performance.now();
      }
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  // Let the spare worker start, as it would while a person picks a file.
  await page.waitForTimeout(500);
  await page.setInputFiles('[data-testid=file-input]', trace);
  await page.waitForSelector('[data-testid=status][data-state=ready], [data-testid=status][data-state=error]', {
    timeout: 600_000,
  });
  const r = await page.evaluate(() => ({ ...window.__bench, readyAt: performance.now() }));
  const during = r.longTasks.filter((t) => t.start >= r.changeAt);
  const longest = during.reduce((m, t) => Math.max(m, t.duration), 0);
  const seconds = (r.readyAt - r.changeAt) / 1000;
  console.log(
    JSON.stringify({
      trace,
      bytes,
      first_row_ms: r.firstRowAt - r.changeAt,
      ready_seconds: seconds,
      mb_per_s: bytes / 1e6 / seconds,
      long_tasks: during.length,
      longest_task_ms: longest,
      // When each long task started, relative to the drop.
      long_task_starts_ms: during.map((t) => Math.round(t.start - r.changeAt)),
    }),
  );
} finally {
  await browser.close();
  await server.close();
}
