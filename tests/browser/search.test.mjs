// Text search in the browser (`/`, `?`, `n`, `N`): the count and the lines
// the page lists are those of `tarmac-lens search` on the same trace; the
// view moves to the results and marks the match. A generated large trace
// measures the time from Enter to the first result shown.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { CLI, ROOT, launchBrowser, openTracePage, serveDist } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;

let server;
let browser;
before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** `tarmac-lens search` lines (numbers) for `args`. */
function cliLines(trace, ...args) {
  const out = execFileSync(CLI, ['search', trace, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(l.slice(0, l.indexOf(':'))));
}

const openPage = (t) => openTracePage({ browser, server }, t);

/** Types a search into the bar (opened with `key`) and runs it. */
async function search(page, key, pattern, { mode = 'plain', ignoreCase = false, kind = 'all', from = '', to = '' } = {}) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press(key);
  await page.waitForSelector('[data-testid=search-input]');
  await page.selectOption('[data-testid=search-mode]', mode);
  await page.setChecked('[data-testid=search-ignore-case]', ignoreCase);
  await page.selectOption('[data-testid=search-kind]', kind);
  await page.fill('[data-testid=search-from]', from);
  await page.fill('[data-testid=search-to]', to);
  await page.fill('[data-testid=search-input]', pattern);
  await page.press('[data-testid=search-input]', 'Enter');
}

async function finished(page) {
  await page.waitForSelector('[data-testid=search-status]:is([data-state=done],[data-state=error])', {
    timeout: 60_000,
  });
  return page.evaluate(() => {
    const s = document.querySelector('[data-testid=search-status]');
    return { state: s.dataset.state, matches: Number(s.dataset.matches), text: s.textContent };
  });
}

/** The result lines the list shows now. */
async function shownResults(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid=search-result]')]
      .map((r) => ({ line: Number(r.dataset.line), top: parseFloat(r.style.top) }))
      .sort((a, b) => a.top - b.top)
      .map((r) => r.line),
  );
}

/** The results shown are consecutive results of the CLI's (the list
 * scrolls to the current result, which follows the view's position). */
function assertWindow(shown, want, what) {
  assert.ok(shown.length > 0, `${what}: results shown`);
  const at = want.indexOf(shown[0]);
  assert.ok(at >= 0, `${what}: line ${shown[0]} is not a result of the CLI`);
  assert.deepEqual(shown, want.slice(at, at + shown.length), what);
}

/** Waits until the view marks the match on `line` (the current result). */
async function expectMatchAt(page, line, what) {
  try {
    await page.waitForFunction(
      (line) => document.querySelector('[data-testid=search-match]')?.closest('.trace-row')?.dataset.rowLine === String(line),
      line,
      { timeout: 30_000 },
    );
  } catch {
    // What a person would see, to tell a lost move from a lost mark.
    const seen = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('.trace-row')].map((r) => Number(r.dataset.rowLine));
      return {
        marked: document.querySelector('[data-testid=search-match]')?.closest('.trace-row')?.dataset.rowLine ?? null,
        cursor: document.querySelector('.trace-row.current')?.dataset.line ?? null,
        rows: rows.length ? `${Math.min(...rows)}..${Math.max(...rows)}` : 'none',
        selected: document.querySelector('[data-testid=search-result][aria-selected=true]')?.dataset.line ?? null,
        status: document.querySelector('[data-testid=status-line]')?.textContent ?? null,
        focus: document.activeElement?.outerHTML.slice(0, 120) ?? null,
      };
    });
    assert.fail(
      `${what}: the match is marked on line ${seen.marked}, expected ${line}; ` +
        `cursor at ${seen.cursor}, rows ${seen.rows} shown, result ${seen.selected} selected, ` +
        `status "${seen.status}", focus on ${seen.focus}`,
    );
  }
}

describe('search', () => {
  test('a CRLF trace: a regular expression ending in $ finds line ends; Esc in the trace view closes the bar', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-crlf-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const crlf = path.join(dir, 'quicksort-crlf.tarmac');
    fs.writeFileSync(crlf, fs.readFileSync(TRACE, 'utf8').split('\n').slice(0, 20_000).join('\r\n'));
    // The LF trace's lines that end in `x19`: the CLI on the CRLF file
    // must find the same.
    const want = cliLines(TRACE, '-E', '--lines', '1..20000', 'x19$');
    assert.ok(want.length > 5, `${want.length} lines end in x19`);
    assert.deepEqual(cliLines(crlf, '-E', 'x19$'), want);
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', crlf);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await search(page, '/', 'x19$', { mode: 'regex' });
    const r = await finished(page);
    assert.equal(r.matches, want.length, r.text);
    assert.deepEqual(await shownResults(page), want.slice(0, (await shownResults(page)).length));
    // The × says Esc: Escape in the trace view (not only in the bar) closes it.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=search-input]', { state: 'detached', timeout: 30_000 });
  });

  test('plain, regex and kind searches list what the CLI finds; n, N and clicks move to results', async (t) => {
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', TRACE);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });

    // Plain text, from the start of the trace.
    const want = cliLines(TRACE, 'x19');
    assert.ok(want.length > 20);
    await search(page, '/', 'x19');
    let r = await finished(page);
    assert.equal(r.state, 'done', r.text);
    assert.equal(r.matches, want.length);
    assert.match(r.text, new RegExp(`${want.length.toLocaleString('en-US')} matches`));
    const shown = await shownResults(page);
    assert.ok(shown.length >= 5, `${shown.length} results shown`);
    assert.deepEqual(shown, want.slice(0, shown.length));
    // The end of the list, scrolled to.
    await page.$eval('[data-testid=search-results]', (el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForFunction(
      (last) => [...document.querySelectorAll('[data-testid=search-result]')].some((r) => r.dataset.line === String(last)),
      want.at(-1),
    );
    const end = await shownResults(page);
    assert.deepEqual(end, want.slice(want.length - end.length));

    // The view went to the first result; n and N step through them.
    await expectMatchAt(page, want[0], 'after Enter');
    const text = await page.$eval('[data-testid=search-match]', (m) => m.textContent);
    assert.equal(text, 'x19');
    await page.keyboard.press('n');
    await expectMatchAt(page, want[1], 'n');
    await page.keyboard.press('n');
    await expectMatchAt(page, want[2], 'n again');
    await page.keyboard.press('N');
    await expectMatchAt(page, want[1], 'N');
    assert.equal(
      await page.$eval('[data-testid=search-result][aria-selected=true]', (r) => Number(r.dataset.line)),
      want[1],
    );
    // Past either end, round to the other.
    await page.keyboard.press('N');
    await expectMatchAt(page, want[0], 'N to the first');
    await page.keyboard.press('N');
    await expectMatchAt(page, want.at(-1), 'N past the first');
    assert.match(await page.textContent('[data-testid=status-line]'), /wrapped to the end/);
    await page.keyboard.press('n');
    await expectMatchAt(page, want[0], 'n past the last');
    assert.match(await page.textContent('[data-testid=status-line]'), /wrapped to the start/);

    // A click on a result.
    await page.$eval('[data-testid=search-results]', (el) => {
      el.scrollTop = 0;
    });
    await page.locator(`[data-testid=search-result][data-line="${want[4]}"]`).click();
    await expectMatchAt(page, want[4], 'click');
    await page.waitForFunction(
      (line) => {
        const cur = document.querySelector('.trace-row.current');
        return cur && Number(cur.dataset.line) <= line;
      },
      want[4],
    );

    // A regular expression.
    const wantRe = cliLines(TRACE, '-E', '\\bBL\\b');
    await search(page, '/', '\\bBL\\b', { mode: 'regex' });
    r = await finished(page);
    assert.equal(r.matches, wantRe.length);
    const shownRe = await shownResults(page);
    assertWindow(shownRe, wantRe, 'regex');
    if (SCREENSHOTS) {
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'search.png') });
    }

    // Case ignored, plain and regex: what `tarmac-lens search -i` finds
    // (the trace writes `X19` in register lines and `x19` in instructions).
    const wantCase = cliLines(TRACE, '-i', 'X19');
    assert.ok(wantCase.length > want.length, `${wantCase.length} lines with X19 in any case, ${want.length} with x19`);
    await search(page, '/', 'X19', { ignoreCase: true });
    r = await finished(page);
    assert.equal(r.matches, wantCase.length);
    assertWindow(await shownResults(page), wantCase, 'ignore case');
    const wantCaseRe = cliLines(TRACE, '-i', '-E', '^\\d+ clk r x19 ');
    assert.ok(wantCaseRe.length > 5);
    await search(page, '/', '^\\d+ clk r x19 ', { mode: 'regex', ignoreCase: true });
    r = await finished(page);
    assert.equal(r.matches, wantCaseRe.length);
    assertWindow(await shownResults(page), wantCaseRe, 'ignore case, regex');
    // The next search keeps the box as it was left.
    await page.keyboard.press('/');
    await page.waitForSelector('[data-testid=search-input]');
    assert.equal(await page.isChecked('[data-testid=search-ignore-case]'), true);
    await page.press('[data-testid=search-input]', 'Escape');

    // Register lines only, in a line range.
    const wantKind = cliLines(TRACE, '--kind', 'registers', '--lines', '2000..60000', 'X19');
    assert.ok(wantKind.length > 5);
    await search(page, '/', 'X19', { kind: 'registers', from: '2000', to: '60000' });
    r = await finished(page);
    assert.equal(r.matches, wantKind.length);
    const shownKind = await shownResults(page);
    assertWindow(shownKind, wantKind, 'kind and range');

    // Backwards (`?`) from a position: the last result before it.
    const mid = want[Math.floor(want.length / 2)];
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('l');
    await page.fill('[data-testid=prompt-input]', String(mid + 1));
    await page.press('[data-testid=prompt-input]', 'Enter');
    await page.waitForFunction((line) => {
      const at = Number(document.querySelector('.trace-row.current')?.dataset.line);
      return at <= line && at > line - 40;
    }, mid + 1);
    const at = await page.$eval('.trace-row.current', (r) => Number(r.dataset.line));
    await search(page, '?', 'x19');
    await finished(page);
    const before = want.filter((l) => l < at).at(-1);
    await expectMatchAt(page, before, '? from the middle');
    // n keeps going backwards, N forwards.
    await page.keyboard.press('n');
    await expectMatchAt(page, want.filter((l) => l < before).at(-1), 'n after ?');

    // A bad regular expression is said so.
    await search(page, '/', '(x19', { mode: 'regex' });
    r = await finished(page);
    assert.equal(r.state, 'error');
    assert.match(r.text, /regular expression/);

    // Escape closes the bar.
    await page.press('[data-testid=search-input]', 'Escape');
    await page.waitForSelector('[data-testid=search-bar]', { state: 'detached' });
    // The toolbar opens it too, with the last search's fields.
    await page.click('[data-testid=open-search]');
    await page.waitForSelector('[data-testid=search-input]');
    assert.equal(await page.inputValue('[data-testid=search-input]'), '(x19');
    assert.equal(await page.inputValue('[data-testid=search-mode]'), 'regex');
  });

  test('on a large trace the first result shows while the search goes on', { timeout: 900_000 }, async (t) => {
    const mb = Number(process.env.TARMAC_LENS_SEARCH_MB ?? 1024);
    const file = repeatedTrace(mb);
    const page = await openPage(t);
    await page.evaluate(() => {
      window.__search = { enterAt: null, firstAt: null, stateAtFirst: null, pattern: 'BL ' };
      document.addEventListener(
        'keydown',
        (e) => {
          if (e.key === 'Enter' && e.target?.dataset?.testid === 'search-input') window.__search.enterAt = performance.now();
        },
        true,
      );
      new MutationObserver(() => {
        const s = window.__search;
        const mark = document.querySelector('[data-testid=search-result] mark');
        if (s.enterAt !== null && s.firstAt === null && mark?.textContent === s.pattern) {
          s.firstAt = performance.now();
          s.stateAtFirst = document.querySelector('[data-testid=search-status]')?.dataset.state ?? null;
        }
      }).observe(document, { subtree: true, childList: true });
    });
    await page.setInputFiles('[data-testid=file-input]', file);
    await page.waitForSelector('.trace-row', { timeout: 60_000 });
    // While the trace is still being indexed, as a person would.
    const pattern = 'BL ';
    const first = cliLines(file, '-m', '1', pattern)[0];
    const t0 = performance.now();
    await search(page, '/', pattern);
    await page.waitForFunction(() => window.__search.firstAt !== null, null, { timeout: 30_000 }).catch(async (e) => {
      const state = await page.evaluate(() => ({
        search: window.__search,
        status: document.querySelector('[data-testid=search-status]')?.textContent ?? null,
        bar: !!document.querySelector('[data-testid=search-bar]'),
      }));
      throw new Error(`no result shown: ${JSON.stringify(state)}: ${e.message}`);
    });
    const { enterAt, firstAt, stateAtFirst } = await page.evaluate(() => window.__search);
    const firstMs = firstAt - enterAt;
    const shown = await shownResults(page);
    assert.equal(shown[0], first);
    const r = await finished(page).catch(() => null);
    const searchSeconds = (performance.now() - t0) / 1000;
    // Again, with the search's code compiled and the bar on the page.
    await page.evaluate(() => {
      window.__search = { enterAt: null, firstAt: null, pattern: 'STR ' };
    });
    await page.fill('[data-testid=search-from]', '');
    await search(page, '/', 'STR ');
    await page.waitForFunction(() => window.__search.firstAt !== null, null, { timeout: 30_000 });
    const again = await page.evaluate(() => window.__search.firstAt - window.__search.enterAt);
    // The whole search once the trace is indexed (nothing else to share
    // the worker with).
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
    const t1 = performance.now();
    await search(page, '/', 'BL ');
    const indexed = await finished(page).catch(() => null);
    const indexedSeconds = (performance.now() - t1) / 1000;
    if (indexed) assert.equal(indexed.matches, r?.matches ?? indexed.matches);
    const count = Number(execFileSync(CLI, ['search', file, '-c', pattern], { encoding: 'utf8' }).trim());
    console.log(
      `search of ${mb} MB: first result ${firstMs.toFixed(1)} ms after Enter (a second search: ${again.toFixed(1)} ms); ` +
        `whole search ${r ? `${searchSeconds.toFixed(1)} s, ${r.matches} matches (CLI ${count})` : 'not finished in 60 s'} while indexing, ` +
        `${indexed ? `${indexedSeconds.toFixed(1)} s` : 'not finished in 60 s'} once indexed`,
    );
    t.diagnostic(`first result ${firstMs.toFixed(1)} ms after Enter`);
    if (r) assert.equal(r.matches, count);
    // The results stream: the first is shown before the whole trace is
    // searched. How soon (goal 100 ms) is the benchmark's figure, printed
    // above; a shared machine's load is no defect of the page's.
    assert.equal(stateAtFirst, 'running', `search ${stateAtFirst} when the first result was shown`);
  });
});
