// A 1 GiB trace (TARMAC_LENS_LARGE_MB to change it) dropped on the page: the
// first screenful within 100 ms of the drop, no UI-thread task over 50 ms
// while the whole trace is indexed, and it gets to `ready`.
//
// Timings on a shared machine vary with whatever else runs, so the drop is
// measured up to three times and passes when one drop meets both targets
// (every drop is printed). A page that cannot meet them fails all three;
// one that freezes or never shows rows fails at once.

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

const FIRST_SCREEN_MS = 100;
const LONGEST_TASK_MS = 50;
const ATTEMPTS = 3;

test('a 1 GiB trace shows its first screen within 100 ms and no UI task exceeds 50 ms', { timeout: 900_000 }, async () => {
  const mb = Number(process.env.TARMAC_LENS_LARGE_MB ?? 1024);
  const trace = makeLargeTrace(mb);
  const drops = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    // A fresh profile each time: a second drop of the same file in the same
    // profile would be restored from the index cache, not indexed.
    const browser = await launchBrowser();
    let m;
    try {
      m = await measureDrop(browser, server, trace);
    } finally {
      await browser.close();
    }
    console.log(`large trace, drop ${attempt}: ${JSON.stringify(m)}`);
    drops.push(m);
    assert.ok(m.bytes >= mb * 1024 * 1024);
    assert.ok(Number.isFinite(m.first_row_ms), 'a trace row appeared');
    // Browse while indexing: the rows come long before indexing ends.
    assert.ok(m.first_row_ms < (m.ready_seconds * 1000) / 10, `first row at ${m.first_row_ms} ms of ${m.ready_seconds} s`);
    // A freeze is no noise.
    assert.ok(m.longest_task_ms < 500, `longest UI task ${m.longest_task_ms} ms`);
    if (m.first_row_ms <= FIRST_SCREEN_MS && m.longest_task_ms <= LONGEST_TASK_MS) return;
  }
  assert.fail(
    `no drop met first screen <= ${FIRST_SCREEN_MS} ms with no task over ${LONGEST_TASK_MS} ms: ` +
      drops.map((m) => `${Math.round(m.first_row_ms)} ms / ${m.longest_task_ms} ms`).join(', '),
  );
});
