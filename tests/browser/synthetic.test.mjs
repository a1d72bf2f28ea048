// The synthetic trace that stands in for 100 GB (`synthetic_trace.mjs`):
// its bytes are those of the trace written to disk the same way, and the
// page reads it by ranges as it reads any served trace. The benchmark
// (`bench_page.mjs` with TL_BENCH_SYNTHETIC_GB) gives it sizes no disk here holds.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';

import { cliStatsLater, launchBrowser, serveDist } from './harness.mjs';
import { SyntheticTrace, syntheticHandler } from './synthetic_trace.mjs';
import { repeatedTrace } from './tracegen.mjs';

const MB = 64;
const file = repeatedTrace(MB);
const synthetic = SyntheticTrace.likeRepeatedTrace(MB);
const served = syntheticHandler(synthetic);
const fx = {};

before(async () => {
  fx.server = await serveDist(served.handler);
  fx.browser = await launchBrowser();
});
after(async () => {
  await fx.browser?.close();
  await fx.server?.close();
});

test('the synthetic trace is the repeated trace on disk, byte for byte, read whole or in any range', () => {
  const disk = fs.readFileSync(file);
  assert.equal(synthetic.length, disk.length);
  assert.ok(synthetic.read(0, synthetic.length).equals(disk), 'the whole differs');
  // Ranges across copies, at the ends, and past the end.
  let seed = 7;
  const random = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let i = 0; i < 40; i++) {
    const start = random(disk.length);
    const end = start + random(3 * synthetic.pieceLength);
    assert.ok(synthetic.read(start, end).equals(disk.subarray(start, end)), `bytes ${start}-${end}`);
  }
  assert.ok(synthetic.read(disk.length - 5, disk.length + 100).equals(disk.subarray(disk.length - 5)));
});

test('the page reads it by ranges and indexes it as the CLI reads the file', async (t) => {
  const page = await fx.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  t.after(() => page.close());
  const want = cliStatsLater(file);
  await page.goto(`${fx.server.url}?url=synthetic.tarmac`);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 120_000 });
  assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'ranges');
  const stats = await want;
  assert.equal(Number(await page.getAttribute('[data-testid=status]', 'data-lines')), stats.lines);
  // Read once to index, with a little read again for the first screen.
  assert.ok(served.stats.bytes < synthetic.length * 1.25, `${served.stats.bytes} bytes sent`);
  assert.deepEqual(errors, []);
});

/** The digest of the index the page builds of the synthetic trace with
 * `workers` workers, and how many ranges other workers indexed (joined/all). */
async function digest(t, workers) {
  const page = await fx.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  t.after(() => page.close());
  await page.goto(`${fx.server.url}?url=synthetic.tarmac&workers=${workers}&digest=1`);
  await page.waitForSelector('body[data-index-digest]', { timeout: 120_000 });
  assert.deepEqual(errors, []);
  return page.evaluate(() => ({ digest: document.body.dataset.indexDigest, ranges: document.body.dataset.indexRanges }));
}

test('two workers index a trace read by ranges, each asking for its own, into the index one builds', async (t) => {
  const one = await digest(t, 1);
  const requests = served.stats.requests;
  const two = await digest(t, 2);
  assert.match(one.digest, /^[0-9a-f]{16}-\d+$/);
  assert.equal(two.digest, one.digest, 'the index two workers built differs');
  assert.equal(one.ranges, '0/0');
  assert.equal(two.ranges, '1/1', 'the other worker\'s range was not adopted');
  assert.ok(served.stats.requests > requests);
});
