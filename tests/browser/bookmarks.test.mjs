// Bookmarks (issue 34): set with `b` or a click in a row's gutter, with a
// note; listed by the bookmarks pane (`B`) with line, time, function and
// note; kept per trace across reloads; carried by the URL (`#bm=`) into a
// fresh profile; exported as JSON and imported into another. Expected
// lines and times come from the trace text, notes from what was typed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, expectLine, gotoLine, launchBrowser, serveDist } from './harness.mjs';
import { readTrace } from './trace_text.mjs';

const GENERATED = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M');
const QUICKSORT = path.join(ROOT, 'tests/data/ttu/quicksort.tarmac');
const trace = readTrace(`${GENERATED}.tarmac`);
const NOTE = 'first & #1, = ~ é 関数';

/** Serves the trace and its ELF image at /traces/ next to the page. */
function serveTraces(req, res) {
  const files = { 'q.tarmac': `${GENERATED}.tarmac`, 'q.elf': `${GENERATED}.elf` };
  const name = new URL(req.url, 'http://x').pathname.replace(/^\/traces\//, '');
  if (!files[name]) return false;
  const body = fs.readFileSync(files[name]);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  return true;
}

async function open(browser, url) {
  const page = await browser.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url);
  await ready(page);
  return { page, problems };
}

/** Waits until the trace is indexed and the view has its position. The
 * header, not the current row, is waited for: a page opened at `#line=`
 * sometimes leaves the view unscrolled from its position (seen on main
 * before bookmarks, with `?url=&elf=#line=`), which is not what is tested
 * here. */
async function ready(page) {
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.waitForFunction(() => /^line \d/.test(document.querySelector('[data-testid=view-position]')?.textContent ?? ''), null, {
    timeout: 30_000,
  });
}

/** Presses a key in the browser (not in a field). */
async function key(page, k) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press(k);
}

/** Answers the note prompt a bookmark asks for. */
async function answerNote(page, note) {
  await page.waitForFunction(() => document.querySelector('[data-testid=prompt]')?.textContent.includes('Bookmark note'));
  await page.fill('[data-testid=prompt-input]', note);
  await page.press('[data-testid=prompt-input]', 'Enter');
  await page.waitForSelector('[data-testid=prompt-input]', { state: 'detached' });
}

/** What the bookmarks pane shows, opening it if it is not, once it lists
 * `count` with their times (and functions, if `named`). */
async function listed(page, count, named = true) {
  if (!(await page.$('[data-testid=bookmarks-pane]'))) await key(page, 'B');
  await page.waitForSelector('[data-testid=bookmarks-pane]');
  await page
    .waitForFunction(
      ([count, named]) =>
        document.querySelectorAll('[data-testid=bookmark]').length === count &&
        [...document.querySelectorAll('.bookmark-time')].every((c) => c.textContent !== '…') &&
        (!named || [...document.querySelectorAll('.bookmark-function')].every((c) => c.textContent !== '')),
      [count, named],
      { timeout: 30_000 },
    )
    .catch(() => {});
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid=bookmark]')].map((row) => ({
      line: Number(row.dataset.line),
      time: row.querySelector('.bookmark-time').textContent,
      function: row.querySelector('.bookmark-function').textContent,
      note: row.querySelector('[data-testid=bookmark-note]').value,
    })),
  );
}

async function statusSays(page, text) {
  await page
    .waitForFunction((text) => document.querySelector('[data-testid=status-message]')?.textContent.includes(text), text, {
      timeout: 30_000,
    })
    .catch(async () => assert.fail(`status: ${await page.textContent('[data-testid=status-line]')}, expected ${text}`));
}

describe('bookmarks', () => {
  const fx = {};
  before(async () => {
    fx.server = await serveDist(serveTraces);
    fx.browser = await launchBrowser();
  });
  after(async () => {
    await fx.browser?.close();
    await fx.server?.close();
  });

  test('set three, reload, they are there; the copied URL shows them in a fresh profile; export and import', async () => {
    const [a, b, c] = [trace.instructions[20], trace.instructions[200], trace.instructions[205]];
    const url = `${fx.server.url}?url=traces/q.tarmac&elf=traces/q.elf`;
    const { page, problems } = await open(fx.browser, url);
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    // Two by key (one with a note), the third by a click in its row's gutter.
    await gotoLine(page, a.line);
    await expectLine(page, a.line, 'l');
    await key(page, 'b');
    await answerNote(page, NOTE);
    await gotoLine(page, b.line);
    await expectLine(page, b.line, 'l');
    await key(page, 'b');
    await answerNote(page, '');
    await page.click(`.trace-row[data-row-line="${c.line}"] [data-testid=bookmark-gutter]`);
    await answerNote(page, 'third');
    await expectLine(page, b.line, 'the gutter click did not move the position');
    // The function each was in, as the function column names it.
    await key(page, 'H');
    const functionAt = (line) =>
      page.textContent(`.trace-row[data-row-line="${line}"] [data-testid=row-function]`);
    const [fb, fc] = [await functionAt(b.line), await functionAt(c.line)];
    assert.ok(fb && fc, 'the function column names the bookmarked instructions');
    await gotoLine(page, a.line);
    await expectLine(page, a.line, 'l');
    const fa = await functionAt(a.line);
    const want = [
      { line: a.line, time: String(a.time), function: fa, note: NOTE },
      { line: b.line, time: String(b.time), function: fb, note: '' },
      { line: c.line, time: String(c.time), function: fc, note: 'third' },
    ];
    assert.deepEqual(await listed(page, 3), want);
    // Bookmarked rows show the mark.
    assert.equal(await page.getAttribute(`.trace-row[data-row-line="${a.line}"]`, 'data-bookmarked'), 'true');
    assert.equal(await page.getAttribute(`.trace-row[data-row-line="${a.line + 1}"]`, 'data-bookmarked'), null);
    // The URL carries them next to the position.
    const inUrl = `#line=${a.line}&bm=${a.line}~[^,&#]+,${b.line},${c.line}~third$`;
    await page
      .waitForFunction((re) => new RegExp(re).test(location.hash), inUrl, { timeout: 30_000 })
      .catch(() => {});
    const href = page.url();
    assert.match(href, new RegExp(inUrl));

    // Reload: they are there.
    await page.reload();
    await ready(page);
    assert.deepEqual(await listed(page, 3), want);
    // Kept by the browser, not only by the URL: the page without a fragment.
    await page.goto(url);
    await ready(page);
    assert.deepEqual(await listed(page, 3), want);
    // Clicking one goes there.
    await page.click(`[data-testid=bookmark][data-line="${c.line}"] .bookmark-line`);
    await expectLine(page, c.line, 'a click in the bookmarks pane');

    // Export as JSON.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=bookmarks-export]')]);
    assert.equal(download.suggestedFilename(), 'q.tarmac.bookmarks.json');
    const exported = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-bm-')), 'q.bookmarks.json');
    await download.saveAs(exported);
    const doc = JSON.parse(fs.readFileSync(exported, 'utf8'));
    assert.equal(doc.format, 'tarmac-lens-bookmarks');
    assert.deepEqual(
      doc.bookmarks.map((x) => [x.line, x.time, x.note ?? '']),
      want.map((x) => [x.line, Number(x.time), x.note]),
    );
    assert.deepEqual(problems, []);
    await page.close();

    // The copied URL in a fresh profile (no storage): they are there.
    const fresh = await launchBrowser();
    try {
      const { page: other } = await open(fresh, href);
      assert.deepEqual(await listed(other, 3), want);
      assert.match(await other.textContent('[data-testid=view-position]'), new RegExp(`^line ${a.line} · `), 'the link\'s position');
      await other.close();
    } finally {
      await fresh.close();
    }

    // The export imported into another fresh profile; a file that is not
    // an export, and a bad #bm=, are said so and drop nothing.
    const third = await launchBrowser();
    try {
      const { page: other } = await open(third, url);
      assert.deepEqual(await listed(other, 0), []);
      assert.match(await other.textContent('[data-testid=bookmarks-empty]'), /No bookmarks/);
      const [chooser] = await Promise.all([
        other.waitForEvent('filechooser'),
        other.click('[data-testid=bookmarks-import-button]'),
      ]);
      await chooser.setFiles(exported);
      await statusSays(other, 'Imported 3 bookmarks (3 new).');
      assert.deepEqual(await listed(other, 3), want);
      const notExport = path.join(path.dirname(exported), 'other.json');
      fs.writeFileSync(notExport, JSON.stringify({ hello: 'world' }));
      await other.setInputFiles('[data-testid=bookmarks-import]', notExport);
      await statusSays(other, 'Cannot import the bookmarks: it is not a bookmarks export (no "format": "tarmac-lens-bookmarks")');
      await other.evaluate(() => {
        location.hash = '#bm=abc';
      });
      await statusSays(other, '"abc" is not a line number');
      assert.deepEqual(await listed(other, 3), want);
      await other.close();
    } finally {
      await third.close();
    }
  });

  test('a dropped file finds its bookmarks when dropped again; another file does not', async () => {
    const quicksort = readTrace(QUICKSORT);
    const at = quicksort.instructions[30];
    const page = await fx.browser.context.newPage();
    await page.goto(fx.server.url);
    await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
    await ready(page);
    await gotoLine(page, at.line);
    await expectLine(page, at.line, 'l');
    await key(page, 'b');
    await answerNote(page, 'dropped');
    const want = [{ line: at.line, time: String(at.time), function: '', note: 'dropped' }];
    assert.deepEqual(await listed(page, 1, false), want);
    // A reload loses the file, not the bookmarks: dropped again, they are there.
    await page.goto(fx.server.url);
    await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
    await ready(page);
    assert.deepEqual(await listed(page, 1, false), want);
    // Another trace has its own (none).
    await page.goto(fx.server.url);
    await page.setInputFiles('[data-testid=file-input]', `${GENERATED}.tarmac`);
    await ready(page);
    assert.deepEqual(await listed(page, 0), []);
    await page.close();
  });
});
