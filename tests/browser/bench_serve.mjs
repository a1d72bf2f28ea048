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
// the current row moving, measured inside the page: `step_ms` with each
// key 50 ms after the last step (as bench_page.mjs times a dropped
// trace's), `back_to_back_step_ms` with each key at once. A first line gives the
// time `serve` took to print its URL (indexing, or reading the index file
// kept from an earlier run). With $TL_BENCH_LINE the steps start at that
// line instead of the first, jumped to with `l` (`jump_ms`: Enter to the
// row there). With $TL_BENCH_FRESH each load is a fresh browser's (a new
// profile: nothing compiled or cached yet, as the first visit to each
// `serve` run's new URL); $TL_BENCH_WAIT seconds pass between the URL and
// the first load (0 by default: `serve` still counts the statistics).

import fs from 'node:fs';
import path from 'node:path';

import { ROOT, gotoLine, launchBrowser } from './harness.mjs';
import { percentile, recordSteps, serve, timeSteps } from './served.mjs';
import { repeatedTrace } from './tracegen.mjs';

const CLI = process.env.TL_BENCH_CLI ?? path.join(ROOT, 'target/release/tarmac-lens');
const STEPS = Number(process.env.TL_BENCH_STEPS ?? 200);
const REPEAT = Number(process.env.TL_BENCH_REPEAT ?? 3);
const FRESH = Boolean(process.env.TL_BENCH_FRESH);
const LINE = process.env.TL_BENCH_LINE ? Number(process.env.TL_BENCH_LINE) : null;
const trace = process.argv[2] ?? repeatedTrace(Number(process.env.TL_BENCH_SIZE ?? 1024));

const started = performance.now();
const server = serve(CLI, trace);
const url = await server.url;
console.log(JSON.stringify({ trace, bytes: fs.statSync(trace).size, url_after_s: (performance.now() - started) / 1000 }));

await new Promise((r) => setTimeout(r, Number(process.env.TL_BENCH_WAIT ?? 0) * 1000));
let browser = await launchBrowser();
try {
  for (let run = 0; run < REPEAT; run++) {
    if (FRESH && run > 0) {
      await browser.close();
      browser = await launchBrowser();
    }
    const page = await browser.context.newPage();
    await recordSteps(page);
    await page.goto(url);
    await page.waitForSelector('.trace-row.current', { timeout: 60_000 });
    // The load event may come after the first row (the wasm starts early).
    await page.waitForFunction(() => performance.getEntriesByType('navigation')[0]?.loadEventEnd > 0);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
    let jump = null;
    if (LINE !== null) {
      await page.evaluate(() =>
        document.addEventListener('keydown', (e) => e.key === 'Enter' && (window.__enterAt ??= performance.now()), { capture: true }),
      );
      await gotoLine(page, LINE);
      const moved = await page.waitForFunction(
        () => window.__enterAt !== undefined && window.__serve.rowMoves.find((m) => m >= window.__enterAt),
        null,
        { timeout: 60_000 },
      );
      jump = (await moved.jsonValue()) - (await page.evaluate(() => window.__enterAt));
      const at = Number(await page.getAttribute('.trace-row.current', 'data-line'));
      if (Math.abs(at - LINE) > 20) throw new Error(`jumped to line ${at}, not ${LINE}`);
    }
    const { steps, ...first } = await timeSteps(page, STEPS);
    const { steps: backToBack } = await timeSteps(page, STEPS, { gap: 0 });
    await page.close();
    const figures = (s) => ({ n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: percentile(s, 100) });
    console.log(
      JSON.stringify({
        run,
        fresh: FRESH || run === 0,
        ...first,
        first_screen_after_load_ms: Math.max(0, first.first_row_ms - first.load_event_ms),
        ...(LINE !== null && { line: LINE, jump_ms: jump }),
        step_ms: figures(steps),
        back_to_back_step_ms: figures(backToBack),
      }),
    );
  }
} finally {
  await browser.close();
  server.close();
}
