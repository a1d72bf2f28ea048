// The navigation views: the call stack pane, the events pane and the
// timeline strip. The call stacks expected come from the CLI's call tree
// (TARMAC_LENS_CLI), the events from the trace text.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, ROOT, pageFixture } from './harness.mjs';
import { instructionOf, readTrace } from './trace_text.mjs';

const GENERATED = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M';
const SCREENSHOTS = path.join(ROOT, 'docs/screenshots');

const fx = pageFixture();

async function openPage(t) {
  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  t.after(async () => {
    await page.close();
    assert.deepEqual(problems, [], 'the page logged errors');
  });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  return page;
}

async function openTrace(page, ...files) {
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForSelector('.trace-row', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
}

async function currentLine(page) {
  return page.evaluate(() => Number(document.querySelector('.trace-row.current')?.dataset.line));
}

async function expectLine(page, line, what) {
  try {
    await page.waitForFunction(
      (line) => document.querySelector('.trace-row.current')?.dataset.line === String(line),
      line,
      { timeout: 5_000 },
    );
  } catch {
    assert.fail(`${what}: current line is ${await currentLine(page)}, expected ${line}`);
  }
}

async function gotoLine(page, line) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('l');
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', String(line));
  await page.press('[data-testid=prompt-input]', 'Enter');
}

async function shoot(page, selector, name) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator(selector).first().screenshot({ path: path.join(SCREENSHOTS, name) });
}

/**
 * The CLI's call tree as calls: { name, callLine, entryLine, resumeLine }.
 * A call is a `-` line (call instruction line and the line it returned to)
 * followed by its `o` line (the callee's first line and name).
 */
function cliCalls(trace, elf) {
  const out = execFileSync(CLI, ['calltree', '--no-index', '--image', elf, trace], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const calls = [];
  let site = null;
  for (const line of out.split('\n')) {
    const m = /^\s*([-o]) t:\d+ l:(\d+) pc:\S+ - t:\d+ l:(\d+) pc:\S+(?: : (.*))?$/.exec(line);
    if (!m) continue;
    if (m[1] === '-') {
      site = { callLine: Number(m[2]), resumeLine: Number(m[3]) };
    } else if (site) {
      calls.push({ ...site, entryLine: Number(m[2]), name: m[4] ?? '' });
      site = null;
    }
  }
  return calls;
}

/** The calls active at `line`, innermost first. */
function stackAt(calls, line) {
  return calls.filter((c) => c.entryLine <= line && line < c.resumeLine).reverse();
}

async function shownStack(page) {
  return page.locator('[data-testid=stack-pane] [data-testid=stack-frame]').evaluateAll((b) => b.map((e) => e.dataset.name));
}

async function expectStack(page, names, what) {
  try {
    await page.waitForFunction(
      (want) =>
        JSON.stringify([...document.querySelectorAll('[data-testid=stack-pane] [data-testid=stack-frame]')].map((e) => e.dataset.name)) ===
        JSON.stringify(want),
      names,
      { timeout: 5_000 },
    );
  } catch {
    assert.fail(`${what}: the stack pane shows ${JSON.stringify(await shownStack(page))}, the CLI says ${JSON.stringify(names)}`);
  }
}

describe('call stack pane', () => {
  const tracePath = path.join(ROOT, `${GENERATED}.tarmac`);
  const elfPath = path.join(ROOT, `${GENERATED}.elf`);
  const trace = readTrace(tracePath);
  const calls = cliCalls(tracePath, elfPath);

  test('shows the calls active at the position, innermost first, as the CLI call tree does; a click goes to the call', async (t) => {
    assert.ok(calls.length > 100, `${calls.length} calls from the CLI`);
    const page = await openPage(t);
    await openTrace(page, tracePath, elfPath);
    await page.waitForSelector('[data-testid=elf-symbols]');
    await page.waitForSelector('[data-testid=stack-pane]');
    // Positions at several depths, on instruction lines well inside calls.
    const deep = calls.filter((c) => c.resumeLine - c.entryLine > 6);
    const picks = [deep[0], deep[3], deep[Math.floor(deep.length / 2)], deep.at(-2)].map((c) => c.entryLine + 3);
    for (const want of picks) {
      const ins = instructionOf(trace, want);
      await gotoLine(page, ins.line);
      await expectLine(page, ins.line, `l ${ins.line}`);
      const expected = stackAt(calls, ins.line);
      assert.ok(expected.length > 0);
      await expectStack(page, expected.map((c) => c.name), `line ${ins.line}`);
      assert.equal(await page.textContent('[data-testid=stack-pane-title]'), 'Call stack');
    }
    // A click on a frame goes to its call instruction.
    const line = picks[1];
    const ins = instructionOf(trace, line);
    await gotoLine(page, ins.line);
    const expected = stackAt(calls, ins.line);
    await expectStack(page, expected.map((c) => c.name), `line ${ins.line}`);
    const outer = expected.length - 1;
    await page.locator('[data-testid=stack-frame]').nth(outer).click();
    await expectLine(page, expected[outer].callLine, `click on ${expected[outer].name}`);
    await gotoLine(page, ins.line);
    await expectStack(page, expected.map((c) => c.name), `back at line ${ins.line}`);
    await shoot(page, '[data-testid=stack-pane]', 'call-stack.png');
    // C hides and shows it.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('C');
    await page.waitForFunction(() => !document.querySelector('[data-testid=stack-pane]'));
    await page.keyboard.press('C');
    await page.waitForSelector('[data-testid=stack-pane]');
  });

  test('at the end of a cut-short run it lists the calls that never returned', async (t) => {
    // Cut the trace after an instruction deep in the program: the calls the
    // full trace's call tree shows active there never return in the cut one.
    const ins = trace.instructions.find((i) => i.line > 20_000 && stackAt(calls, i.line).every((c) => c.entryLine < i.line - 40 && c.resumeLine > i.line + 40));
    const expected = stackAt(calls, ins.line);
    assert.ok(expected.length >= 3, JSON.stringify(expected));
    const next = trace.instructions.find((i) => i.line > ins.line);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-cut-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const cut = path.join(dir, 'cut.tarmac');
    fs.writeFileSync(cut, trace.lines.slice(0, next.line - 1).join('\n') + '\n');
    const page = await openPage(t);
    await openTrace(page, cut, elfPath);
    await page.waitForSelector('[data-testid=elf-symbols]');
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('End');
    await expectLine(page, ins.line, 'End');
    await page.waitForSelector('[data-testid=stack-pane][data-at-end=true]');
    assert.equal(await page.textContent('[data-testid=stack-pane-title]'), 'Calls that never returned');
    await expectStack(page, expected.map((c) => c.name), 'end of the cut trace');
  });
});
