// `tarmac-lens serve` benchmark (prints figures; not part of the test suite):
//
//   node tests/browser/bench_serve.mjs [TRACE]
//
// Serves TRACE (default: the checked-in quicksort trace repeated to
// $TL_BENCH_SIZE megabytes, 1024 by default, made once in the temporary
// directory) with $TL_BENCH_CLI (default target/release/tarmac-lens) and
// the page in $TARMAC_LENS_DIST (default dist/), then opens the printed URL
// in headless Chromium $TL_BENCH_REPEAT times (3 by default) and prints one
// JSON line per load: the time from the navigation's start to the first
// trace row and to the load event, the first screen after the load event,
// and p50/p99/max of $TL_BENCH_STEPS (200) Down keys, each from the key to
// the current row moving, measured inside the page. A first line gives the
// time `serve` took to print its URL (indexing, or reading the index file
// kept from an earlier run).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { DIST, ROOT, launchBrowser } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

const CLI = process.env.TL_BENCH_CLI ?? path.join(ROOT, 'target/release/tarmac-lens');
const STEPS = Number(process.env.TL_BENCH_STEPS ?? 200);
const REPEAT = Number(process.env.TL_BENCH_REPEAT ?? 3);
const trace = process.argv[2] ?? repeatedTrace(Number(process.env.TL_BENCH_SIZE ?? 1024));

function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : null;
}

const started = performance.now();
const child = spawn(CLI, ['serve', trace, '--page', DIST, '-q'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    const nl = out.indexOf('\n');
    if (nl >= 0) resolve(out.slice(0, nl).trim());
  });
  child.on('exit', (code) => reject(new Error(`serve ended (${code}) before printing its URL`)));
});
console.log(JSON.stringify({ trace, bytes: fs.statSync(trace).size, url_after_s: (performance.now() - started) / 1000 }));

const browser = await launchBrowser();
try {
  for (let run = 0; run < REPEAT; run++) {
    const page = await browser.context.newPage();
    await page.addInitScript(() => {
      const b = (window.__serve = { firstRowAt: null, keys: [], rowMoves: [] });
      document.addEventListener('keydown', (e) => e.key === 'ArrowDown' && b.keys.push(performance.now()), true);
      let line = null;
      new MutationObserver(() => {
        const t = performance.now();
        if (b.firstRowAt === null && document.querySelector('[data-row-line]')) b.firstRowAt = t;
        const current = document.querySelector('.trace-row.current')?.dataset.line ?? null;
        if (current !== line) {
          line = current;
          b.rowMoves.push(t);
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(url);
    await page.waitForSelector('.trace-row.current', { timeout: 60_000 });
    // The load event may come after the first row (the wasm starts early).
    await page.waitForFunction(() => performance.getEntriesByType('navigation')[0]?.loadEventEnd > 0);
    const first = await page.evaluate(() => ({
      first_row_ms: window.__serve.firstRowAt,
      load_event_ms: performance.getEntriesByType('navigation')[0].loadEventEnd,
    }));
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
    await page.click('.trace-row.current');
    const steps = [];
    for (let k = 0; k < STEPS; k++) {
      const before = await page.evaluate(() => window.__serve.keys.length);
      await page.keyboard.press('ArrowDown');
      await page.waitForFunction((n) => window.__serve.keys.length > n, before);
      const ms = await page
        .waitForFunction(() => {
          const b = window.__serve;
          const t0 = b.keys[b.keys.length - 1];
          const moved = b.rowMoves.find((t) => t >= t0);
          return moved === undefined ? false : moved - t0;
        }, null, { timeout: 5_000 })
        .then((h) => h.jsonValue())
        .catch(() => null);
      if (ms !== null) steps.push(ms);
    }
    await page.close();
    console.log(
      JSON.stringify({
        run,
        ...first,
        first_screen_after_load_ms: Math.max(0, first.first_row_ms - first.load_event_ms),
        step_ms: { n: steps.length, p50: percentile(steps, 50), p99: percentile(steps, 99), max: percentile(steps, 100) },
      }),
    );
  }
} finally {
  await browser.close();
  child.kill();
}
