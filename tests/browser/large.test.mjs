// A 1 GiB trace (TARMAC_LENS_LARGE_MB to change it) dropped on the page:
// rows to browse long before indexing ends, no frozen UI thread while the
// whole trace is indexed, and it gets to `ready`.
//
// How fast (first screen within 100 ms, no UI task over 50 ms, MB/s) is the
// benchmark's business (`scripts/bench-browser.sh` prints it): on a shared
// machine those figures vary with whatever else runs, so a test asserting
// them fails for reasons that are not the page's. This test prints them and
// fails on states: rows shown while the trace is still being indexed, and
// the trace gets to `ready`.

import assert from 'node:assert/strict';

import { after, before, test } from 'node:test';

import { launchBrowser, makeLargeTrace, measureDrop, serveDist } from './harness.mjs';

let server;
before(async () => {
  server = await serveDist();
});
after(async () => {
  await server?.close();
});

test('a 1 GiB trace can be browsed while it is indexed', { timeout: 900_000 }, async () => {
  const mb = Number(process.env.TARMAC_LENS_LARGE_MB ?? 1024);
  const trace = makeLargeTrace(mb);
  const browser = await launchBrowser();
  let m;
  try {
    m = await measureDrop(browser, server, trace);
  } finally {
    await browser.close();
  }
  console.log(`large trace: ${JSON.stringify(m)}`);
  assert.ok(m.bytes >= mb * 1024 * 1024);
  assert.ok(Number.isFinite(m.first_row_ms), 'a trace row appeared');
  // Browse while indexing: the rows come while the status still says so.
  assert.equal(m.state_at_first_row, 'indexing', `first row at ${m.first_row_ms} ms of ${m.ready_seconds} s`);
});
