// A gzip trace dropped on the page is read in place (never as text): the
// trace view shows the plain trace's lines, a jump to a late line lands
// on that line's text, and a second drop after a reload is restored from
// the index cache with its decompressor table. A format the page cannot
// read (xz) is named.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';

import { ROOT, cliStats, expectLine, gotoLine, pageFixture, readResults } from './harness.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
const fx = pageFixture();

/** A compressed copy made now, in a directory of its own. */
function copy(name, bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-compressed-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const squash = (s) => s.replace(/\s+/g, ' ').trim();

/** The text of the rows on screen, by line number. */
async function rowsShown(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('.trace-row[data-row-line]')].map((r) => [
        Number(r.dataset.rowLine),
        r.textContent,
      ]),
    ),
  );
}

async function drop(page, file) {
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', file);
  return readResults(page, path.basename(file));
}

describe('compressed traces', () => {
  test('a dropped .gz is browsed in place as the plain trace, and restored from the cache', async () => {
    const lines = fs.readFileSync(TRACE, 'utf8').split('\n');
    // Several members (as pigz writes): the access points are many.
    const text = fs.readFileSync(TRACE);
    const parts = [];
    for (let at = 0; at < text.length; at += 300 << 10) {
      parts.push(zlib.gzipSync(text.subarray(at, at + (300 << 10))));
    }
    const gz = copy('quicksort.tarmac.gz', Buffer.concat(parts));
    const expected = cliStats(TRACE);
    const page = await fx.browser.context.newPage();
    await page.goto(fx.server.url);
    await page.click('[data-testid=index-cache-clear]').catch(() => {});

    for (const reading of ['file', 'cached-index']) {
      const shown = await drop(page, gz);
      assert.equal(shown.panic, null);
      assert.equal(shown.error, null);
      assert.equal(shown.state, 'ready');
      assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), reading);
      assert.equal(Number(shown.statusLines), expected.lines, 'the lines of the decompressed trace');
      assert.equal(await page.$('[data-testid=file-notice]'), null, 'no "not a trace" notice');

      // The first screen: the plain trace's first lines.
      await page.waitForSelector('.trace-row.current');
      const first = await rowsShown(page);
      const numbers = Object.keys(first).map(Number);
      assert.ok(numbers.length >= 10, `${numbers.length} rows shown`);
      for (const n of numbers.slice(0, 10)) {
        assert.ok(squash(first[n]).includes(squash(lines[n - 1])), `line ${n}: ${first[n]}`);
      }

      // A jump near the end: that line's text.
      const late = expected.lines - 40;
      const lateLine = lines.slice(0, late).reduce((last, l, i) => (/\sI[TS]\s/.test(l) ? i + 1 : last), 1);
      await gotoLine(page, lateLine);
      await expectLine(page, lateLine, 'after the jump');
      const rows = await rowsShown(page);
      assert.ok(squash(rows[lateLine]).includes(squash(lines[lateLine - 1])), `line ${lateLine}: ${rows[lateLine]}`);

      if (reading === 'file') {
        await page.waitForSelector('[data-testid=status][data-index-cache=saved]', { timeout: 30_000 });
        await page.goto(fx.server.url);
      }
    }
    await page.close();
  });

  test('the Reports panel of a dropped .gz is the plain trace\'s', async () => {
    const gz = copy('quicksort.tarmac.gz', zlib.gzipSync(fs.readFileSync(TRACE)));
    const summaries = [];
    for (const file of [TRACE, gz]) {
      const page = await fx.browser.context.newPage();
      await page.goto(fx.server.url);
      const shown = await drop(page, file);
      assert.equal(shown.state, 'ready');
      await page.focus('[data-testid=browser]');
      await page.keyboard.press('R');
      await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
      summaries.push(squash(await page.textContent('[data-testid=reports-summary]')));
      await page.close();
    }
    assert.match(summaries[0], /\d/);
    assert.equal(summaries[1], summaries[0]);
  });

  test('an xz trace is named, not read as text', async () => {
    const xz = copy('trace.tarmac.xz', Buffer.concat([Buffer.from('fd377a585a000004e6d6b446', 'hex'), Buffer.alloc(2000, 0x5a)]));
    const page = await fx.browser.context.newPage();
    await page.goto(fx.server.url);
    await drop(page, xz);
    await page.waitForSelector('[data-testid=file-notice][data-kind=compressed]');
    assert.match(await page.textContent('[data-testid=file-notice]'), /trace\.tarmac\.xz is a xz-compressed file/);
    await page.close();
  });
});
