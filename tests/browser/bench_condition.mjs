// Benchmark of the page's condition prompt (prints figures; not part of the
// test suite):
//
//   TARMAC_LENS_DIST=DIR node tests/browser/bench_condition.mjs [MB]
//
// Drops the 2 MB quicksort trace repeated to MB megabytes (default 1024) on
// the built page in headless Chromium, waits until it is indexed, then asks
// `c` for conditions that never hold (so each search covers the whole trace
// after the first line) and prints one JSON line per condition: the time
// from Enter to the page saying it does not become true, best and worst of
// $TL_BENCH_REPEAT runs (default 3). `x0` is written in every interval;
// `x26` in few; `[sp+8:8]` is memory; `... && pc != 1` replays every
// interval in full (the fallback).

import { launchBrowser, serveDist } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

const mb = Number(process.argv[2] ?? 1024);
const repeat = Number(process.env.TL_BENCH_REPEAT ?? 3);
// Each run's constant differs (N), so that its message differs from the last.
const CONDITIONS = ['x0 == 0x12345678N', 'x26 == 0x12345678N', '[sp+8:8] == 0x12345678N', 'x0 == 0x12345678N && pc != 1'];

const trace = repeatedTrace(mb);
const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  const dropped = Date.now();
  await page.setInputFiles('[data-testid=file-input]', trace);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
  const indexed = Date.now() - dropped;
  for (const condition of CONDITIONS) {
    const times = [];
    for (let i = 0; i < repeat; i++) {
      const text = condition.replace('N', String(i));
      await page.focus('[data-testid=browser]');
      await page.keyboard.press('c');
      await page.waitForSelector('[data-testid=prompt-input]');
      await page.fill('[data-testid=prompt-input]', text);
      const began = Date.now();
      await page.press('[data-testid=prompt-input]', 'Enter');
      await page.waitForFunction(
        (want) => document.querySelector('[data-testid=status-message]')?.textContent.includes(want),
        `${text} does not become true after`,
        { timeout: 600_000, polling: 5 },
      );
      times.push(Date.now() - began);
    }
    console.log(JSON.stringify({ mb, indexed_ms: indexed, condition, best_ms: Math.min(...times), worst_ms: Math.max(...times) }));
  }
} finally {
  await browser.close();
  await server.close();
}
