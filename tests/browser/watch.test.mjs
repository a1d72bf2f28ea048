// The watch pane: `W` and a range typed at the bottom, or a register's
// context menu, list every access; the list is the CLI's `watch`
// (TARMAC_LENS_CLI), which tests/cli.rs checks against the trace text;
// a click goes to an access, `(` and `)` step between them.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, ROOT, expectLine, gotoLine, openTracePage, pageFixture, watchHits } from './harness.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
// The array quicksort sorts (`qs_array`, from the ELF's symbols).
const ARRAY = '0x10780:64';

const fx = pageFixture();

const openPage = (t) => openTracePage(fx, t, [TRACE]);

/** The CLI's hits: [line, kind] for each. */
function cliWatch(...args) {
  let out = '';
  try {
    out = execFileSync(CLI, ['watch', '--no-index', TRACE, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (e) {
    if (e.status !== 1) throw e;
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => [Number(l.split(' ')[1]), l.split(': ')[1].split(' ')[0]]);
}

const listed = watchHits;

/** `W` in the trace view asks for a range (in a register or memory pane
 * it watches the pane's selection): the current row's click focuses it. */
async function watchTyped(page, text) {
  await page.click('.trace-row.current');
  await page.keyboard.press('W');
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', text);
  await page.press('[data-testid=prompt-input]', 'Enter');
}

describe('watch pane', () => {
  test('W lists every access of a memory range, as the CLI does; clicks and ( ) go to them', async (t) => {
    const page = await openPage(t);
    const want = cliWatch('--mem', ARRAY);
    assert.ok(want.length > 40, `the CLI found ${want.length}`);
    await watchTyped(page, `[${ARRAY}]`);
    assert.deepEqual(await listed(page), want);
    assert.equal(await page.getAttribute('[data-testid=watch-pane]', 'data-target'), `[${ARRAY}]`);
    assert.match(await page.textContent('[data-testid=watch-title]'), new RegExp(`${want.length} accesses`));
    // A click goes to the access; ) and ( to the ones around the position.
    const [a, b, c] = [want[10][0], want[11][0], want[12][0]];
    await page.click(`[data-testid=watch-hit][data-line="${b}"]`);
    await expectLine(page, b, 'the access clicked');
    await page.focus('[data-testid=browser]');
    await page.keyboard.press(')');
    await expectLine(page, c, 'the next access');
    // Each step goes from where the last one arrived.
    await page.keyboard.press('(');
    await expectLine(page, b, 'the access before');
    await page.keyboard.press('(');
    await expectLine(page, a, 'two accesses back');
    assert.ok(await page.$(`[data-testid=watch-hit].current[data-line="${a}"]`), 'the position is marked in the list');
    // The list draws the rows in sight; the position's access, far down
    // it, is brought into sight and marked.
    const last = want.length - 1;
    assert.equal(await page.$(`[data-testid=watch-hit][data-index="${last}"]`), null, 'the last access is not drawn while the list shows its top');
    await gotoLine(page, want[last][0]);
    const lastRow = `[data-testid=watch-hit].current[data-index="${last}"]`;
    await page.waitForSelector(lastRow);
    assert.ok(
      await page.$eval(lastRow, (row) => {
        const r = row.getBoundingClientRect();
        const list = row.closest('.watch-hits').getBoundingClientRect();
        return r.top >= list.top && r.bottom <= list.bottom;
      }),
      'the current access is in the list\'s sight',
    );
    // Reads only, then writes only.
    await page.click('[data-testid=watch-kind][data-kind=read]');
    await page.waitForFunction(() => document.querySelector('[data-testid=watch-kind][data-kind=read]')?.getAttribute('aria-checked') === 'true');
    assert.deepEqual(await listed(page), cliWatch('--mem', ARRAY, '--reads'));
    await page.click('[data-testid=watch-kind][data-kind=write]');
    await page.waitForFunction(() => document.querySelector('[data-testid=watch-kind][data-kind=write]')?.getAttribute('aria-checked') === 'true');
    assert.deepEqual(await listed(page), cliWatch('--mem', ARRAY, '--writes'));
    // The values accessed are shown.
    const detail = await page.textContent('[data-testid=watch-hit] [data-testid=watch-detail]');
    assert.match(detail, /^W \[0x107[89a-f][0-9a-f]:\d\]=0x[0-9a-f?]+/);
    await page.click('[data-testid=watch-close]');
    assert.equal(await page.$('[data-testid=watch-pane]'), null);
  });

  test("a register's context menu watches it; an expression is read at the position", async (t) => {
    const page = await openPage(t);
    await gotoLine(page, 2000);
    await page.click('[data-reg=x19]', { button: 'right' });
    await page.waitForSelector('[data-testid=context-menu]');
    await page.click('[data-testid=context-menu] li:has-text("Watch x19")');
    assert.deepEqual(await listed(page), cliWatch('--reg', 'x19'));
    // W in the register pane watches its selection: x20 picked by a click
    // (which also goes to its previous write).
    await page.click('[data-reg=x20]');
    await page.keyboard.press('W');
    await page.waitForSelector('[data-testid=watch-pane][data-target=x20]');
    assert.deepEqual(await listed(page), cliWatch('--reg', 'x20'));
    // sp's value at line 2000 gives the address.
    await watchTyped(page, 'sp:16');
    const want = cliWatch('--mem', 'sp:16', '--at', '2000');
    assert.ok(want.length > 0);
    assert.deepEqual(await listed(page), want);
    // A register with no such name: said so, nothing watched.
    await watchTyped(page, '[nosuchsymbol:4]');
    await page.waitForFunction(() => /nosuchsymbol/.test(document.querySelector('[data-testid=status-message]')?.textContent ?? document.body.textContent));
  });
});
