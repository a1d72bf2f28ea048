// The condition prompt: `c` and a value condition typed at the bottom go
// where it next becomes true, `>` and `<` to its next and previous times;
// the hits are the CLI's `find` (TARMAC_LENS_CLI), which tests/find.rs
// checks against a brute-force replay. A text that is not a condition is
// shown with the CLI's column marked; a long search shows its progress and
// stops on Escape.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, ROOT, currentLine, expectLine, openTracePage, pageFixture } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
// x19 pointing into the array quicksort sorts (`qs_array` at 0x10780).
const CONDITION = 'x19 > 0x10780 && x19 < 0x10790';

const fx = pageFixture();

const openPage = (t, trace) => openTracePage(fx, t, [trace], { timeout: 120_000 });

/** The CLI's `find`: its exit status, the hits' lines, its message. */
function cliFind(trace, condition) {
  const r = spawnSync(CLI, ['find', '--no-index', trace, condition, '--all'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const lines = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(l.split(' ')[1]));
  return { status: r.status, lines, stderr: r.stderr };
}

/** `c` in the trace view, `text` typed, Return. */
async function askCondition(page, text) {
  await page.click('.trace-row.current');
  await page.keyboard.press('c');
  await page.waitForSelector('[data-testid=prompt-input]');
  // The field is named by what it asks.
  assert.equal(await page.getByRole('textbox', { name: /^Next point where/ }).count(), 1);
  await page.fill('[data-testid=prompt-input]', text);
  await page.press('[data-testid=prompt-input]', 'Enter');
}

describe('condition prompt', () => {
  test('c goes where the condition becomes true, as the CLI finds; > and < step; a bad one is marked', async (t) => {
    const page = await openPage(t, TRACE);
    const want = cliFind(TRACE, CONDITION).lines;
    assert.ok(want.length >= 4, `the CLI found ${want.length}`);
    const start = await currentLine(page);
    assert.ok(start < want[0], `the page starts at ${start}`);
    await askCondition(page, CONDITION);
    await expectLine(page, want[0], 'the first hit');
    assert.match(await page.textContent('[data-testid=status-message]'), new RegExp(`becomes true at line ${want[0]}`));
    await page.keyboard.press('>');
    await expectLine(page, want[1], 'the next hit');
    await page.keyboard.press('>');
    await expectLine(page, want[2], 'the one after');
    await page.keyboard.press('<');
    await expectLine(page, want[1], 'back one');
    // The palette lists the command, with its key.
    await page.keyboard.press('Control+k');
    await page.waitForSelector('[data-testid=palette]');
    await page.keyboard.type('value condition');
    const entry = await page.textContent('[data-testid=palette-entry] >> nth=0');
    assert.match(entry, /value condition becomes true/);
    await page.keyboard.press('Escape');
    // Not a condition: the CLI's column is marked.
    const bad = 'x19 > 0x10780 && [sp';
    const cli = cliFind(TRACE, bad);
    assert.equal(cli.status, 2);
    const [, column, message] = cli.stderr.match(/at column (\d+): (.*)/);
    await askCondition(page, bad);
    await page.waitForSelector('[data-testid=condition-error]');
    assert.equal(await page.getAttribute('[data-testid=condition-error]', 'data-column'), column);
    assert.match(await page.textContent('[data-testid=condition-error]'), new RegExp(`column ${column}: ${message.replace(/[[\]]/g, '\\$&')}`));
    const marked = await page.textContent('[data-testid=condition-error-at]');
    assert.equal(marked, bad[Number(column) - 1] ?? '\u00a0');
    await expectLine(page, want[1], 'a bad condition does not move');
    // Up and Down in the prompt go through what it was given.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('c');
    const input = '[data-testid=prompt-input]';
    await page.waitForSelector(input);
    const recalled = [];
    for (const key of ['ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown']) {
      await page.press(input, key);
      recalled.push(await page.inputValue(input));
    }
    assert.deepEqual(recalled, [bad, CONDITION, CONDITION, bad, '']);
    await page.press(input, 'Escape');
  });

  test('a long search shows how far it got, and Escape stops it', async (t) => {
    const trace = repeatedTrace(64);
    const page = await openPage(t, trace);
    const start = await currentLine(page);
    // x0 changes all through, so every stretch of the trace is looked at;
    // a condition on pc replays every one in full (slower: time to stop it).
    const never = 'x0 == 0x123456789abc';
    await askCondition(page, `${never} && pc != 1`);
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid=condition-progress]')?.dataset.percent) >= 1,
      null,
      { timeout: 30_000, polling: 10 },
    );
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=status-message]:has-text("stopped")');
    assert.equal(await page.$('[data-testid=condition-progress]'), null);
    assert.equal(await currentLine(page), start, 'a stopped search does not move');
    // The whole way: nothing, in the time it takes.
    const began = Date.now();
    await askCondition(page, never);
    await page.waitForSelector('[data-testid=status-message]:has-text("does not become true after")', { timeout: 120_000 });
    const ms = Date.now() - began;
    console.log(`condition over ${(64).toFixed(0)} MB in the page: ${ms} ms`);
    assert.equal(await currentLine(page), start);
  });
});
