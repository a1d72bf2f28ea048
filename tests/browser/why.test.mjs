// The "why?" pane: `y` on a register pane's selection shows the tree of
// writes that made its value, step for step the CLI's `why --json`
// (TARMAC_LENS_CLI, with the same ELF image; tests/why.rs checks that
// against the trace text); a step not expanded yet opens into the tree
// the CLI gives from its writer's line; a click on a step, or Return,
// goes to the line that wrote it.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, ROOT, currentLine, expectLine, gotoLine, openTracePage, pageFixture } from './harness.mjs';
import { previousWrite, readTrace } from './trace_text.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
const ELF = path.join(ROOT, 'tests/data/elf/quicksort-aarch64-O2-fastmodel-2M.elf');

const fx = pageFixture();

const openPage = (t) => openTracePage(fx, t, [TRACE, ELF], { symbols: true });

/** The CLI's tree, depth first: [path, what, value, writer line, source]. */
function cliWhy(line, what, depth) {
  const out = execFileSync(
    CLI,
    ['why', '--no-index', TRACE, '--image', ELF, '--line', String(line), what, '--depth', String(depth), '--json'],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const rows = [];
  const walk = (n, p) => {
    rows.push([p, n.what, n.value, n.writer ? String(n.writer.line) : null, n.source.kind]);
    n.inputs.forEach((c, i) => walk(c, p === '' ? String(i) : `${p}.${i}`));
  };
  walk(JSON.parse(out), '');
  return rows;
}

/** The pane's steps shown, depth first, as cliWhy gives them. */
async function shown(page) {
  return page.$$eval('[data-testid=why-step]', (rows) =>
    rows.map((r) => [r.dataset.path, r.dataset.what, r.dataset.value, r.dataset.line ?? null, r.dataset.source]),
  );
}

describe('why pane', () => {
  test('y shows the CLI tree, a step opens into the tree from its writer, a click goes there', async (t) => {
    const page = await openPage(t);
    // Line 2004 runs `ADD w0,w0,w19`: a click on x0 selects it (and goes
    // to its previous write, the position the tree is asked at).
    await gotoLine(page, 2004);
    await expectLine(page, 2004, 'the jump');
    await page.click('[data-reg=x0]');
    // The click's move, waited for as a state: the trace text says where.
    const at = previousWrite(readTrace(TRACE), 'x0', 2004);
    await expectLine(page, at, 'the previous write of x0');
    await page.keyboard.press('y');
    await page.waitForSelector('[data-testid=why-pane][data-target=x0]');
    await page.waitForSelector('[data-testid=why-tree]', { timeout: 30_000 });
    assert.equal(await page.getAttribute('[data-testid=why-pane]', 'data-line'), String(at));
    const want = cliWhy(at, 'x0', 4);
    assert.ok(want.length >= 5, `a tree of ${want.length} steps`);
    assert.deepEqual(await shown(page), want);
    // The root's row names the writer's instruction and function.
    const root = await page.textContent('[data-testid=why-step][data-path=""]');
    assert.match(root, /line/);
    assert.match(root, /\+ 0x/, 'a function from the ELF');

    // A register step the depth left for later opens into the CLI's tree
    // from its writer's line.
    const later = want.find((r) => r[4] === 'depth_limit' && !r[1].startsWith('['));
    assert.ok(later, 'a step left for later');
    const [p, what, , line] = later;
    await page.click(`[data-testid=why-step][data-path="${p}"] [data-testid=why-toggle]`);
    await page.waitForSelector(`[data-testid=why-step][data-path="${p}.0"]`, { timeout: 30_000 });
    const sub = (await shown(page)).filter((r) => r[0] === p || r[0].startsWith(`${p}.`));
    const deeper = cliWhy(Number(line), what, 3).map(([q, ...rest]) => [q === '' ? p : `${p}.${q}`, ...rest]);
    assert.deepEqual(sub, deeper);

    // A click on one of its inputs goes to the line that wrote it.
    const child = sub.find((r) => r[0] !== p && r[3] !== null);
    assert.ok(child, 'an input with a writer');
    await page.click(`[data-testid=why-step][data-path="${child[0]}"] [data-testid=why-what-value]`);
    await expectLine(page, Number(child[3]), 'the input clicked');
    // The keyboard: the tree has the focus, Up and Return go to the step above.
    const rows = await shown(page);
    const i = rows.findIndex((r) => r[0] === child[0]);
    await page.focus('[data-testid=why-tree]');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    if (rows[i - 1][3] !== null) await expectLine(page, Number(rows[i - 1][3]), 'the step above, by Return');
    await page.click('[data-testid=why-close]');
    assert.equal(await page.$('[data-testid=why-pane]'), null);
  });

  test("a register's context menu asks why; in the trace view y asks for an expression", async (t) => {
    const page = await openPage(t);
    await gotoLine(page, 2004);
    await expectLine(page, 2004, 'the jump');
    const at = await currentLine(page);
    await page.click('[data-reg=x19]', { button: 'right' });
    await page.waitForSelector('[data-testid=context-menu]');
    await page.click('[data-testid=context-menu] li:has-text("Why this value?")');
    await page.waitForSelector('[data-testid=why-pane][data-target=x19] [data-testid=why-tree]', { timeout: 30_000 });
    assert.deepEqual(await shown(page), cliWhy(at, 'x19', 4));
    // Typed memory, read at the position: the CLI's tree of the same bytes.
    await page.click('.trace-row.current');
    await page.keyboard.press('y');
    await page.waitForSelector('[data-testid=prompt-input]');
    await page.fill('[data-testid=prompt-input]', '[sp:8]');
    await page.press('[data-testid=prompt-input]', 'Enter');
    await page.waitForSelector('[data-testid=why-pane][data-target^="[0x"] [data-testid=why-tree]', { timeout: 30_000 });
    const rows = await shown(page);
    assert.deepEqual(rows, cliWhy(at, 'sp:8', 4));
  });
});
