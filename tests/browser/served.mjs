// What the tests and the benchmark of `tarmac-lens serve` share: starting
// it, and timing a served page's first screen and steps from inside it.

import { spawn } from 'node:child_process';

import { DIST } from './harness.mjs';

/** Starts `cli serve TRACE --page DIST -q ARGS…`: `url` resolves with the
 * URL it prints; `close` stops it. */
export function serve(cli, trace, ...args) {
  const child = spawn(cli, ['serve', trace, '--page', DIST, '-q', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl).trim());
    });
    child.on('exit', (code) => reject(new Error(`serve ended (${code}) before printing its URL`)));
  });
  return { url, close: () => child.kill() };
}

/** Makes `page` record, from its start, when the first row showed, when
 * each Down key went and when the current row moved (`window.__serve`). */
export async function recordSteps(page) {
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
}

/** Nearest-rank percentile, as bench_page.mjs. */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : null;
}

/** A page's (made with `recordSteps`) first row and load event, then
 * `steps` Down keys' latencies (key to the current row moving), each key
 * `gap` ms after the last one's row moved (50, as bench_page.mjs times a
 * dropped trace's steps; 0 presses again at once, while the page still
 * draws the last step's frame).
 *
 * Each step waits for a state, never for a time: the current row at
 * `lines[k]` when the caller knows where each step goes, else on a later
 * line than before the key. `wait` only bounds a step that never gets
 * there (a key lost, a row that did not move): the timing stops at it and
 * says where (`stuck`), however long the machine took for the others. */
export async function timeSteps(page, steps, { gap = 50, lines = null, wait = 60_000 } = {}) {
  const firstScreen = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return { first_row_ms: window.__serve.firstRowAt, load_event_ms: nav?.loadEventEnd ?? null };
  });
  await page.click('.trace-row.current');
  const current = () => page.evaluate(() => Number(document.querySelector('.trace-row.current')?.dataset.line));
  const ms = [];
  let stuck = null;
  for (let k = 0; k < steps; k++) {
    const [before, from] = await page.evaluate(() => [window.__serve.keys.length, Number(document.querySelector('.trace-row.current')?.dataset.line)]);
    const want = lines?.[k] ?? null;
    await page.keyboard.press('ArrowDown');
    const there = await page
      .waitForFunction(
        ([n, from, want]) => {
          const line = Number(document.querySelector('.trace-row.current')?.dataset.line);
          return window.__serve.keys.length > n && (want === null ? line > from : line === want);
        },
        [before, from, want],
        { timeout: wait },
      )
      .then(() => true)
      .catch(() => false);
    if (!there) {
      stuck = { step: k + 1, from, want, at: await current() };
      break;
    }
    // The latency, measured in the page: the key to the first move after it.
    ms.push(
      await page.evaluate(() => {
        const b = window.__serve;
        const t0 = b.keys[b.keys.length - 1];
        return b.rowMoves.find((t) => t >= t0) - t0;
      }),
    );
    if (gap) await page.waitForTimeout(gap);
  }
  return { ...firstScreen, steps: ms, stuck };
}
