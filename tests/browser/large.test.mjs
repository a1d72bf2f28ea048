// A 1 GiB trace (TARMAC_LENS_LARGE_MB to change it) dropped on the page:
// rows to browse long before indexing ends, no frozen UI thread while the
// whole trace is indexed, and it gets to `ready`.
//
// How fast (first screen within 100 ms, no UI task over 50 ms, MB/s) is the
// benchmark's business (`scripts/bench-browser.sh` prints it): on a shared
// machine those figures vary with whatever else runs, so a test asserting
// them fails for reasons that are not the page's. This test prints them and
// fails on what no load explains: rows that only come near the end, or a
// UI thread that stops for half a second.

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

/** A UI thread stopped this long is frozen, however busy the machine. */
const FROZEN_MS = 500;

test('a 1 GiB trace can be browsed while it is indexed and the UI thread never freezes', { timeout: 900_000 }, async () => {
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
  // Browse while indexing: the rows come long before indexing ends.
  assert.ok(m.first_row_ms < (m.ready_seconds * 1000) / 10, `first row at ${m.first_row_ms} ms of ${m.ready_seconds} s`);
  assert.ok(m.longest_task_ms < FROZEN_MS, `longest UI task ${m.longest_task_ms} ms`);
});
