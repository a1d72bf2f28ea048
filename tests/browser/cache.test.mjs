// The index cache: a trace dropped again after a reload is restored from
// the origin-private file system instead of indexed again; the drop page
// lists the cached indexes and clears them.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { ROOT, cliStats, pageFixture, readResults } from './harness.mjs';

const TRACE = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac';
const fx = pageFixture();

/** Notes every progress percentage the page shows. */
function watchProgress() {
  window.__percents = [];
  new MutationObserver(() => {
    const p = document.querySelector('[data-testid=progress]');
    if (p) window.__percents.push(Number(p.dataset.percent));
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

async function drop(page) {
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, TRACE));
  return readResults(page, path.basename(TRACE));
}

async function cachedCount(page) {
  await page.waitForSelector('[data-testid=index-cache-count]', { timeout: 30_000 });
  return Number(await page.getAttribute('[data-testid=index-cache-count]', 'data-count'));
}

describe('index cache', () => {
  test('a reopened trace is restored, not indexed again; clearing the cache indexes it again', async () => {
    const expected = cliStats(path.join(ROOT, TRACE));
    const page = await fx.browser.context.newPage();
    await page.addInitScript(watchProgress);
    await page.goto(fx.server.url);
    assert.equal(await cachedCount(page), 0);

    const first = await drop(page);
    assert.equal(first.state, 'ready');
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'file');
    await page.waitForSelector('[data-testid=status][data-index-cache=saved]', { timeout: 30_000 });

    await page.goto(fx.server.url);
    assert.equal(await cachedCount(page), 1);
    const again = await drop(page);
    assert.equal(again.state, 'ready');
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'cached-index');
    assert.match(await page.textContent('[data-testid=index-restored]'), /Index restored from the cache/);
    const partial = (await page.evaluate(() => window.__percents)).filter((p) => p > 0 && p < 100);
    assert.deepEqual(partial, [], 'no indexing progress is shown for a restored index');
    // What is shown is the trace's, as the CLI counts it.
    assert.equal(Number(again.statusLines), expected.lines);
    assert.deepEqual(again.records, first.records);
    await page.waitForSelector('.trace-row');
    await page.waitForFunction(() => document.querySelector('[data-reg=x0]')?.textContent.length > 0);

    await page.goto(fx.server.url);
    assert.equal(await cachedCount(page), 1);
    await page.click('[data-testid=index-cache-clear]');
    await page.waitForSelector('[data-testid=index-cache-count][data-count="0"]', { timeout: 30_000 });
    const third = await drop(page);
    assert.equal(third.state, 'ready');
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'file');
    await page.close();
  });

  test('the index is saved only once the page stops asking, so saving it does not slow the first steps', async () => {
    const page = await fx.browser.context.newPage();
    // In the page's own clock: each key, and when the index was saved.
    await page.addInitScript(() => {
      const seen = (window.__save = { keys: [], savedAt: null });
      document.addEventListener('keydown', () => seen.keys.push(performance.now()), true);
      new MutationObserver(() => {
        if (seen.savedAt === null && document.querySelector('[data-testid=status][data-index-cache=saved]')) seen.savedAt = performance.now();
      }).observe(document, { subtree: true, attributes: true, childList: true });
    });
    await page.goto(fx.server.url);
    await page.click('[data-testid=index-cache-clear]').catch(() => {});
    await page.waitForSelector('[data-testid=index-cache-count][data-count="0"]', { timeout: 30_000 });
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, TRACE));
    await page.waitForSelector('.trace-row.current');
    await page.click('.trace-row.current');
    // A person stepping through the trace from the first screen on: every
    // key asks the worker, a key every 100 ms or so, for 2.5 s.
    const steppingUntil = Date.now() + 2_500;
    while (Date.now() < steppingUntil) {
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(100);
    }
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=status][data-index-cache=saved]', { timeout: 60_000 });
    // The worker waits 400 ms of quiet after the last question before each
    // piece it writes: the save ends at least that long after the last
    // key before it (less a little for timer coarseness). What is checked
    // is that cause, not a time: on a loaded machine whose keys came more
    // than 400 ms apart the save may rightly come between two of them.
    const { keys, savedAt } = await page.evaluate(() => window.__save);
    const lastKey = Math.max(...keys.filter((k) => k <= savedAt));
    assert.ok(keys.length > 5, `${keys.length} keys`);
    assert.ok(savedAt - lastKey >= 380, `saved ${(savedAt - lastKey).toFixed(0)} ms after a key`);
    await page.close();
  });
});
