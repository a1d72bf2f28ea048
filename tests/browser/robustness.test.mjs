// Crashes and exhaustion, for real: URL test hooks make the page or its
// worker panic, make the worker's allocations fail, or lower the index's
// memory budget (src/web/page/url_options.rs). The page must show what happened
// with a report to copy, and never freeze; a trace over the budget stays
// browsable up to where indexing stopped.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, pageFixture } from './harness.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');

const fx = pageFixture();

async function openPage(t, query) {
  const page = await fx.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  t.after(() => page.close());
  await page.goto(fx.server.url + query);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  return { page, errors };
}

/** The crash overlay's report, once shown. */
async function crashReport(page) {
  await page.waitForSelector('[data-testid=panic]', { timeout: 60_000 });
  return page.textContent('[data-testid=panic-report]');
}

/** The page still reacts: a click dismisses the overlay (a page whose
 * wasm stopped never would; a loaded machine only takes longer). */
async function assertResponsive(page) {
  await page.click('[data-testid=panic-dismiss]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=panic]', { state: 'detached', timeout: 30_000 });
  assert.equal(await page.isEnabled('[data-testid=file-input]'), true, 'another file can be dropped');
}

test('a panic in the page shows a report to copy', async (t) => {
  const { page } = await openPage(t, '?crash=page');
  await page.setInputFiles('[data-testid=file-input]', TRACE);
  const report = await crashReport(page);
  assert.match(report, /^Tarmac Lens \d+\.\d+\.\d+ crashed/);
  assert.match(report, /crash test: a panic in the page/);
  assert.match(report, /Browser: .*Chrom/);
  assert.equal(await page.isVisible('[data-testid=panic-copy]'), true);
  assert.equal(await page.isVisible('[data-testid=panic-reload]'), true);
  await assertResponsive(page);
});

test('a panic in the worker is reported and the page stays usable', async (t) => {
  const { page } = await openPage(t, '?crash=worker');
  await page.setInputFiles('[data-testid=file-input]', TRACE);
  const report = await crashReport(page);
  assert.match(report, /in the worker: panicked at .*\ncrash test: a panic in the worker/);
  await page.waitForSelector('[data-testid=status][data-state=error]');
  assert.match(await page.textContent('[data-testid=error]'), /the worker crashed/);
  // The report shows the panic, not the trap that follows it.
  assert.doesNotMatch(report, /unreachable/);
  await assertResponsive(page);
});

test('a worker whose allocations fail is reported as out of memory', async (t) => {
  const { page } = await openPage(t, '?crash=worker-oom');
  await page.setInputFiles('[data-testid=file-input]', TRACE);
  const report = await crashReport(page);
  assert.match(report, /in the worker: the worker stopped \(.+\): it most likely ran out of memory/);
  await page.waitForSelector('[data-testid=status][data-state=error]');
  await assertResponsive(page);
});

test('indexing stops at the memory budget and what is indexed stays browsable', async (t) => {
  const { page, errors } = await openPage(t, '?index-budget=30000');
  await page.setInputFiles('[data-testid=file-input]', TRACE);
  await page.waitForSelector('[data-testid=status][data-state=stopped]', { timeout: 60_000 });
  const reason = await page.textContent('[data-testid=stopped]');
  assert.match(reason, /^indexing stopped at line (\d+): the index reached its memory budget .*the part indexed can be browsed$/);
  const stoppedAt = Number(reason.match(/line (\d+)/)[1]);
  assert.ok(stoppedAt > 1000 && stoppedAt < 60_000, reason);
  // Browsable: rows shown, End goes to the last indexed instruction.
  await page.waitForSelector('[data-testid=trace-pane] .trace-row.current');
  await page.click('[data-testid=trace-pane]');
  await page.keyboard.press('End');
  await page.waitForFunction(
    () => Number(document.querySelector('.trace-row.current')?.dataset.line) > 1000,
    null,
    { timeout: 30_000 },
  );
  const line = await page.evaluate(() => Number(document.querySelector('.trace-row.current').dataset.line));
  assert.ok(line <= stoppedAt, `End went to line ${line}, past ${stoppedAt}`);
  assert.equal(await page.$('[data-testid=panic]'), null);
  assert.deepEqual(errors, []);
});

test('a bad ELF image is refused with its reason and the trace stays open', async (t) => {
  const { page, errors } = await openPage(t, '');
  await page.setInputFiles('[data-testid=file-input]', TRACE);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  const elf = fs.readFileSync(TRACE.replace(/\.tarmac$/, '.elf'));
  for (const [name, buffer, reason] of [
    ['cut.elf', elf.subarray(0, 100), /^cut\.elf: malformed ELF section headers \(truncated file\?\)/],
    ['notes.txt', Buffer.from('not an image\n'), /^notes\.txt: not an ELF file \(no ELF magic number at its start\)$/],
  ]) {
    await page.setInputFiles('[data-testid=elf-input]', { name, mimeType: 'application/octet-stream', buffer });
    // The previous image's message stays until this one is read: wait for this file's own.
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=elf-error]')?.textContent.startsWith(`${n}:`),
      name,
    );
    assert.match(await page.textContent('[data-testid=elf-error]'), reason);
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-state'), 'ready');
    assert.ok(await page.isVisible('[data-testid=trace-pane] .trace-row.current'));
  }
  // A good image afterwards loads and clears the message.
  await page.setInputFiles('[data-testid=elf-input]', TRACE.replace(/\.tarmac$/, '.elf'));
  await page.waitForSelector('[data-testid=elf-symbols]');
  assert.equal(await page.$('[data-testid=elf-error]'), null);
  assert.deepEqual(errors, []);
});
