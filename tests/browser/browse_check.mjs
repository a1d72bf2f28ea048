// Browsing checks shared by the tests of the ways the app is delivered
// (static hosting, offline, single file, demo): whatever the delivery, the
// page must show what the trace text says.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

import { CLI } from './harness.mjs';
import { blockEnd, readTrace, registersAt } from './trace_text.mjs';

/** Records uncaught errors and console errors; `check()` asserts there were none. */
export function watchErrors(page) {
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  return { problems, check: () => assert.deepEqual(problems, [], 'the page logged errors') };
}

/** Waits for the open trace to be indexed, with its rows on screen. */
export async function waitReady(page) {
  await page.waitForSelector('.trace-row', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
}

/**
 * Goes to a few instructions of `traceFile` (open in the page) with the `l`
 * prompt and compares the core registers shown with the trace text.
 * Returns how many register values were compared.
 */
export async function checkRegisters(page, traceFile, picks = [30, 200]) {
  const trace = readTrace(traceFile);
  let compared = 0;
  for (const k of picks) {
    const ins = trace.instructions[k];
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('l');
    await page.waitForSelector('[data-testid=prompt-input]');
    await page.fill('[data-testid=prompt-input]', String(ins.line));
    await page.press('[data-testid=prompt-input]', 'Enter');
    await page.waitForFunction(
      (line) => document.querySelector('.trace-row.current')?.dataset.line === String(line),
      ins.line,
      { timeout: 30_000 },
    );
    const expected = registersAt(trace, blockEnd(trace, ins.line));
    await page.waitForFunction(
      (want) => document.querySelector('[data-reg=x0]')?.textContent === want,
      expected.x0.padStart(16, '0'),
      { timeout: 30_000 },
    );
    const shown = await page.evaluate(() =>
      Object.fromEntries([...document.querySelectorAll('[data-reg]')].map((e) => [e.dataset.reg, e.textContent])),
    );
    for (let n = 0; n <= 28; n++) {
      const name = `x${n}`;
      if (expected[name] === undefined) continue;
      assert.equal(shown[name], expected[name].padStart(16, '0'), `${name} after line ${ins.line}`);
      compared++;
    }
  }
  assert.ok(compared > 20, `only ${compared} register values compared`);
  return compared;
}

/**
 * The first call made inside the outermost function, from the native CLI's
 * call tree with the ELF's symbols: { callLine, entryLine, name }.
 */
export function firstCall(traceFile, elfFile) {
  const tree = execFileSync(CLI, ['calltree', `--image=${elfFile}`, traceFile], { encoding: 'utf8' }).split('\n');
  for (let i = 0; i + 1 < tree.length; i++) {
    const call = /^\s+- t:\d+ l:(\d+) /.exec(tree[i]);
    const entry = /^\s+o t:\d+ l:(\d+) .* : (\S+)$/.exec(tree[i + 1]);
    if (call && entry) return { callLine: Number(call[1]), entryLine: Number(entry[1]), name: entry[2] };
  }
  throw new Error(`no call in the call tree of ${traceFile}`);
}

/** Folds the call `call` (see firstCall) from its entry: one row, named after the callee. */
export async function checkFoldNamed(page, call) {
  await page.waitForSelector('[data-testid=elf-symbols]');
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('l');
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', String(call.entryLine));
  await page.press('[data-testid=prompt-input]', 'Enter');
  const atLine = (line) =>
    page.waitForFunction((line) => document.querySelector('.trace-row.current')?.dataset.line === String(line), line, {
      timeout: 30_000,
    });
  await atLine(call.entryLine);
  await page.keyboard.press('-');
  // The position was inside the call, so it moves to the call instruction.
  await atLine(call.callLine);
  await page.waitForSelector('[data-testid=fold-row]');
  const folds = await page.locator('[data-testid=fold-row]').evaluateAll((rows) => rows.map((r) => r.dataset.function));
  assert.deepEqual(folds, [call.name]);
}
