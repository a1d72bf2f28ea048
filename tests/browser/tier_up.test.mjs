// V8 optimises a wasm function only once it has run enough; the spare
// worker's warm-up runs the indexing loops that long before a drop
// (src/web/worker/warmup.rs, `tier_up`), or a 100 MB drop's first ~300 ms
// of indexing run unoptimised (docs/performance.md). Checked in a Chrome
// trace: during a drop, no optimising compile costs half as much thread
// time as the largest one before it. One worker: a range worker's one-off
// encoding of its part is optimised during the drop, and is large.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launchBrowser, serveDist, within } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

let server;
before(async () => {
  server = await serveDist();
});
after(async () => {
  await server?.close();
});

/** Waits until one of the page's workers has measured its tier-up pass
 * (the spare session worker, src/web/worker/session/). */
async function waitForTierUp(page, ms = 20_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    for (const w of page.workers()) {
      if (w.url().startsWith('blob:')) continue;
      const done = await within(
        w.evaluate(() => performance.getEntriesByName('tier-up').length > 0).catch(() => false),
        1000,
        false,
      );
      if (done) return true;
    }
    await page.waitForTimeout(100);
  }
  return false;
}

/** Records the page's trace events while `during` runs; resolves with them. */
async function traced(cdp, during) {
  const events = [];
  const onData = (e) => events.push(...e.value);
  cdp.on('Tracing.dataCollected', onData);
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['v8.wasm', 'blink.user_timing'] },
    transferMode: 'ReportEvents',
  });
  try {
    await during();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    cdp.off('Tracing.dataCollected', onData);
  }
  return events;
}

const isOptimisingCompile = (e) => e.name === 'wasm.TopTierCompilation' && e.ph === 'X';

test('the indexing loops are optimised before a drop, not while it indexes', { timeout: 240_000 }, async (t) => {
  const trace = repeatedTrace(100);
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    // One recording from the page's load to the drop's end: a compile is
    // recorded when it ends, and one that spans a gap between recordings is
    // lost (on a busy machine the largest, which takes seconds, always was).
    // A compile belongs to the drop if it started after the drop's mark.
    const events = await traced(cdp, async () => {
      await page.goto(`${server.url}?workers=1`);
      await page.waitForSelector('[data-testid=status][data-state=idle][data-warm=yes]');
      assert.ok(await waitForTierUp(page), 'the spare worker ran its tier-up pass');
      await page.evaluate(() => performance.mark('tier-up-test-drop'));
      await page.setInputFiles('[data-testid=file-input]', trace);
      await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 180_000 });
    });
    const drop = events.find((e) => e.name === 'tier-up-test-drop');
    assert.ok(drop, 'the drop is marked in the trace');
    const ms = (e) => (e.tdur ?? e.dur) / 1000;
    const compiles = events.filter(isOptimisingCompile);
    const beforeDrop = compiles.filter((e) => e.ts < drop.ts).map(ms);
    const duringDrop = compiles.filter((e) => e.ts >= drop.ts).map(ms);
    assert.ok(beforeDrop.length > 0, 'V8 optimised code before the drop');
    const largestBefore = Math.max(...beforeDrop);
    const largestDuring = Math.max(0, ...duringDrop);
    t.diagnostic(
      `optimising compiles, thread ms: largest before the drop ${largestBefore.toFixed(1)}, ` +
        `during it ${duringDrop.map((x) => x.toFixed(1)).join(', ') || 'none'}`,
    );
    assert.ok(
      largestDuring < largestBefore / 2,
      `an optimising compile of ${largestDuring.toFixed(1)} ms ran during the drop, against ` +
        `${largestBefore.toFixed(1)} ms for the largest before it (during: ${duringDrop
          .map((t) => t.toFixed(1))
          .join(', ')})`,
    );
  } finally {
    await browser.close();
  }
});
