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
 * draws the last step's frame). */
export async function timeSteps(page, steps, { gap = 50 } = {}) {
  const firstScreen = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return { first_row_ms: window.__serve.firstRowAt, load_event_ms: nav?.loadEventEnd ?? null };
  });
  await page.click('.trace-row.current');
  const ms = [];
  for (let k = 0; k < steps; k++) {
    const before = await page.evaluate(() => window.__serve.keys.length);
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction((n) => window.__serve.keys.length > n, before);
    const step = await page
      .waitForFunction(() => {
        const b = window.__serve;
        const t0 = b.keys[b.keys.length - 1];
        const moved = b.rowMoves.find((t) => t >= t0);
        return moved === undefined ? false : moved - t0;
      }, null, { timeout: 5_000 })
      .then((h) => h.jsonValue())
      .catch(() => null);
    // A step that never moved the row ends the timing: the caller sees
    // fewer steps than it asked for, at once rather than after a wait per
    // step.
    if (step === null) break;
    ms.push(step);
    if (gap) await page.waitForTimeout(gap);
  }
  return { ...firstScreen, steps: ms };
}
