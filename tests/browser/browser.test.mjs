// The trace browser as a person uses it: drop a trace, step, fold, jump to
// previous writes, open memory, navigate by URL. Every expectation comes
// from the trace text (tests/browser/trace_text.mjs), not from the page.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, ROOT, currentLine, expectLine as expectLineIn, openTracePage, pageFixture } from './harness.mjs';
import {
  blockEnd,
  instructionOf,
  memoryAccesses,
  memoryAt,
  readTrace,
  registerWrites,
  registersAt,
} from './trace_text.mjs';

const QUICKSORT = 'tests/data/ttu/quicksort.tarmac';
const GENERATED = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M';
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;

const fx = pageFixture();

const openPage = (t, hash = '') => openTracePage(fx, t, [], { query: hash });

/** Opens files with the picker and waits until indexing is complete. */
async function openTrace(page, ...files) {
  const t0 = Date.now();
  await page.setInputFiles('[data-testid=file-input]', files.map((f) => path.join(ROOT, f)));
  await page.waitForSelector('.trace-row', { timeout: 30_000 });
  const firstScreenMs = Date.now() - t0;
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  return firstScreenMs;
}

async function current(page) {
  return page.evaluate(() => {
    const row = document.querySelector('[data-testid=trace-pane] .trace-row.current');
    return row && { line: Number(row.dataset.line), time: Number(row.dataset.time), text: row.textContent };
  });
}

/** Waits until the current row is at `line`, saying where it is if not. */
const expectLine = (page, line, what) => expectLineIn(page, line, what, { seen: current });

async function prompt(page, key, text) {
  await page.keyboard.press(key);
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', text);
  await page.press('[data-testid=prompt-input]', 'Enter');
}

async function gotoLine(page, line) {
  await page.focus('[data-testid=browser]');
  await prompt(page, 'l', String(line));
}

async function registers(page) {
  return page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll('[data-reg]')].map((e) => [e.dataset.reg, e.textContent])),
  );
}

async function shoot(page, selector, name) {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator(selector).first().screenshot({ path: path.join(SCREENSHOTS, name) });
}

describe('trace browser', () => {
  const trace = readTrace(path.join(ROOT, QUICKSORT));

  test('Down and Up step one instruction at a time, as the trace lists them', async (t) => {
    const page = await openPage(t);
    const firstScreenMs = await openTrace(page, QUICKSORT);
    t.diagnostic(`first screenful ${firstScreenMs} ms after choosing the file`);
    const start = trace.instructions[20];
    const historyBefore = await page.evaluate(() => history.length);
    await gotoLine(page, start.line);
    await expectLine(page, start.line, `l ${start.line}`);
    assert.equal((await current(page)).time, start.time);
    for (let k = 1; k <= 6; k++) {
      await page.keyboard.press('ArrowDown');
      await expectLine(page, trace.instructions[20 + k].line, `Down ×${k}`);
      assert.equal((await current(page)).time, trace.instructions[20 + k].time);
    }
    for (let k = 5; k >= 3; k--) {
      await page.keyboard.press('ArrowUp');
      await expectLine(page, trace.instructions[20 + k].line, `Up to ${k}`);
    }
    // The position is in the URL (a moment after the last move), without a
    // history entry per step.
    await page.waitForFunction((h) => location.hash === h, `#line=${trace.instructions[23].line}`);
    assert.equal(await page.evaluate(() => history.length), historyBefore);
    // Only the visible rows exist.
    const rows = await page.locator('.trace-row').count();
    assert.ok(rows > 5 && rows < 200, `${rows} rows in the DOM`);
    await shoot(page, '[data-testid=view]', 'trace-pane.png');
  });

  test('a step asks its follow-up questions in one message and draws its row and registers together', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    // A step onto an instruction that writes a core register, so the
    // register pane has something to change.
    const xChanged = (i) => {
      const before = registersAt(trace, blockEnd(trace, trace.instructions[i - 1].line));
      const after = registersAt(trace, blockEnd(trace, trace.instructions[i].line));
      return Object.keys(after).find((r) => /^x\d+$/.test(r) && after[r] !== before[r]);
    };
    let k = 40;
    while (!xChanged(k)) k++;
    const [from, to] = [trace.instructions[k - 1], trace.instructions[k]];
    await gotoLine(page, from.line);
    await expectLine(page, from.line, `l ${from.line}`);
    const before = registersAt(trace, blockEnd(trace, from.line));
    const after = registersAt(trace, blockEnd(trace, to.line));
    const changed = Object.keys(after).find((r) => /^x\d+$/.test(r) && after[r] !== before[r]);
    assert.ok(changed, `instruction at line ${to.line} changes a core register`);
    await page.waitForFunction(
      ([r, v]) => document.querySelector(`[data-reg=${r}]`)?.textContent === v,
      [changed, (before[changed] ?? '0').padStart(16, '0')],
    );
    await page.waitForTimeout(200);
    await page.evaluate((reg) => {
      const seen = (window.__step = { posts: 0, batches: 0, row: null, reg: null });
      const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function (...args) {
        seen.posts++;
        return post.apply(this, args);
      };
      let line = document.querySelector('.trace-row.current')?.dataset.line;
      const value = () => document.querySelector(`[data-reg=${reg}]`)?.textContent;
      let shown = value();
      new MutationObserver(() => {
        seen.batches++;
        const now = document.querySelector('.trace-row.current')?.dataset.line;
        if (now !== line && seen.row === null) seen.row = seen.batches;
        if (value() !== shown && seen.reg === null) seen.reg = seen.batches;
        line = now;
        shown = value();
      }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    }, changed);
    await page.keyboard.press('ArrowDown');
    await expectLine(page, to.line, 'ArrowDown');
    await page.waitForFunction(
      ([r, v]) => document.querySelector(`[data-reg=${r}]`)?.textContent === v,
      [changed, after[changed].padStart(16, '0')],
    );
    await page.waitForTimeout(200);
    const seen = await page.evaluate(() => window.__step);
    // The step, then its row, call stack and panes in one message.
    assert.equal(seen.posts, 2, `messages to the worker for one step: ${JSON.stringify(seen)}`);
    // Drawn in one task: one batch of DOM changes holds both.
    assert.equal(seen.row, seen.reg, `row and register pane changed apart: ${JSON.stringify(seen)}`);
  });

  test('the core registers show the values the trace last wrote', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    let compared = 0;
    for (const ins of [trace.instructions[30], trace.instructions[200], trace.instructions.at(-5)]) {
      await gotoLine(page, ins.line);
      await expectLine(page, ins.line, `l ${ins.line}`);
      const expected = registersAt(trace, blockEnd(trace, ins.line));
      await page.waitForFunction(
        (want) => document.querySelector('[data-reg=x0]')?.textContent === want,
        expected.x0,
        { timeout: 30_000 },
      );
      const shown = await registers(page);
      for (let n = 0; n <= 28; n++) {
        const name = `x${n}`;
        if (expected[name] === undefined) continue;
        assert.equal(shown[name], expected[name].padStart(16, '0'), `${name} after line ${ins.line}`);
        compared++;
      }
    }
    assert.ok(compared > 60, `only ${compared} register values compared`);
    await shoot(page, '[data-testid=registers-core]', 'registers.png');
  });

  test('clicking a register jumps to the instruction that last wrote it', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    // A position whose own block does not write x0, after a write of x0 by
    // an instruction (not the reset values at time 0).
    const pos = trace.instructions.find((ins, i) => {
      if (i < 40) return false;
      const end = blockEnd(trace, ins.line);
      const writes = registerWrites(trace, 'x0', end);
      const last = writes.at(-1);
      return last && last < ins.line && instructionOf(trace, last)?.time > 0;
    });
    const lastWrite = registerWrites(trace, 'x0', blockEnd(trace, pos.line)).at(-1);
    const writer = instructionOf(trace, lastWrite);
    await gotoLine(page, pos.line);
    await expectLine(page, pos.line, 'position');
    await page.click('[data-reg=x0]');
    await expectLine(page, writer.line, `previous write of x0 (line ${lastWrite})`);
    const shown = await registers(page);
    assert.equal(shown.x0, registersAt(trace, blockEnd(trace, writer.line)).x0.padStart(16, '0'));
  });

  test('a memory pane at sp shows the bytes the trace wrote there', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    // Just after a store below the stack pointer has happened.
    const store = memoryAccesses(trace).find((a) => a.write && instructionOf(trace, a.line)?.time > 0);
    const ins = instructionOf(trace, store.line);
    await gotoLine(page, ins.line);
    await expectLine(page, ins.line, 'position');
    const sp = registersAt(trace, blockEnd(trace, ins.line));
    await page.waitForFunction(() => document.querySelector('[data-reg=sp]')?.textContent.length > 0);
    const spText = (await registers(page)).sp;
    assert.ok(spText, 'sp shown');
    await prompt(page, 'm', 'sp');
    await page.waitForSelector('[data-testid=memory] [data-addr]');
    const spAddr = BigInt('0x' + spText);
    assert.equal(
      await page.locator(`[data-testid=memory] [data-addr="0x${spAddr.toString(16)}"]`).count(),
      1,
      'the byte at sp is shown',
    );
    const expected = memoryAt(trace, blockEnd(trace, ins.line));
    const cells = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid=memory] [data-addr]')].map((c) => [c.dataset.addr, c.textContent]),
    );
    assert.equal(cells.length, 128, '8 rows of 16 bytes');
    await page.keyboard.press('>');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=memory] [data-addr]').length === 144);
    await page.keyboard.press('<');
    await page.keyboard.press('<');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=memory] [data-addr]').length === 112);
    let compared = 0;
    for (const [addr, text] of cells) {
      const want = expected.get(BigInt(addr));
      if (want === undefined) continue;
      assert.equal(text, want.toString(16).padStart(2, '0'), `byte at ${addr}`);
      compared++;
    }
    assert.ok(compared >= 8, `only ${compared} bytes compared (sp ${spText}, registers ${JSON.stringify(sp.sp)})`);
    await shoot(page, '[data-testid=memory]', 'memory.png');
  });

  test('4 in a memory pane jumps to the last write of the word', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const accesses = memoryAccesses(trace);
    // A store, and a later position whose block does not touch that word.
    const store = accesses.filter((a) => a.write && instructionOf(trace, a.line)?.time > 0)[3];
    const word = store.addr & ~3n;
    const touches = (a) => a.write && a.addr < word + 4n && word < a.addr + BigInt(a.size);
    const writer = instructionOf(trace, store.line);
    const pos = trace.instructions.find((ins) => ins.line > store.line);
    const posEnd = blockEnd(trace, pos.line);
    assert.ok(!accesses.some((a) => a.line > store.line && a.line <= posEnd && touches(a)));
    await gotoLine(page, pos.line);
    await expectLine(page, pos.line, 'position');
    await prompt(page, 'm', `0x${word.toString(16)}`);
    await page.waitForSelector(`[data-addr="0x${word.toString(16)}"]`);
    await page.keyboard.press('4');
    await expectLine(page, writer.line, `previous write of the word at 0x${word.toString(16)}`);
  });

  test('d compares memory with another line; ] selects the next changed byte', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const accesses = memoryAccesses(trace);
    // A store that changes a byte whose earlier value the trace stated.
    let store;
    let differing;
    for (const a of accesses) {
      if (!a.write || instructionOf(trace, a.line)?.time === 0) continue;
      const before = memoryAt(trace, instructionOf(trace, a.line).line - 1);
      const k = a.bytes.findIndex((b, k) => before.has(a.addr + BigInt(k)) && before.get(a.addr + BigInt(k)) !== b);
      if (k >= 0) {
        store = a;
        differing = a.addr + BigInt(k);
        break;
      }
    }
    const ins = instructionOf(trace, store.line);
    const blockWrites = accesses.filter((a) => a.write && a.line > ins.line && a.line <= blockEnd(trace, ins.line));
    await gotoLine(page, ins.line);
    await expectLine(page, ins.line, 'position');
    const base = (store.addr & ~15n) - 16n;
    await prompt(page, 'm', `0x${base.toString(16)}`);
    await page.waitForSelector(`[data-addr="0x${base.toString(16)}"]`);
    await prompt(page, 'd', String(ins.line - 1));
    await page.waitForSelector('[data-testid=memory-pane-title]:has-text("compared")');
    const changed = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid=memory] .byte.changed')].map((c) => BigInt(c.dataset.addr).toString()),
    );
    assert.ok(changed.includes(differing.toString()), `byte ${differing.toString(16)} marked changed: ${changed}`);
    for (const a of changed.map(BigInt)) {
      assert.ok(
        blockWrites.some((w) => w.addr <= a && a < w.addr + BigInt(w.size)),
        `0x${a.toString(16)} marked changed but not written since line ${ins.line - 1}`,
      );
    }
    await page.keyboard.press(']');
    const first = changed.map(BigInt).reduce((m, a) => (a < m ? a : m));
    await page.waitForSelector(`[data-testid=memory] .byte.selected[data-addr="0x${first.toString(16)}"]`);
  });

  test('#line=N opens at the instruction holding line N, and follows hash changes', async (t) => {
    const target = trace.instructions[50];
    const inside = blockEnd(trace, target.line);
    const page = await openPage(t, `#line=${inside}`);
    await openTrace(page, QUICKSORT);
    await expectLine(page, target.line, `#line=${inside}`);
    const other = trace.instructions[120];
    await page.evaluate((line) => {
      location.hash = `#line=${line}`;
    }, other.line);
    await expectLine(page, other.line, 'hash change');
    // Two changes before the first is answered: the page ends at the last
    // (an answer for the first must not take the second's place).
    const [first, last] = [trace.instructions[70], trace.instructions[30]];
    await page.evaluate(
      ([a, b]) => {
        location.hash = `#line=${a}`;
        // After the page has asked for the first, before it is answered.
        window.addEventListener('hashchange', () => setTimeout(() => (location.hash = `#line=${b}`)), { once: true });
      },
      [first.line, last.line],
    );
    await expectLine(page, last.line, 'two hash changes at once');
    await page.waitForTimeout(300);
    await expectLine(page, last.line, 'two hash changes at once, settled');
    // t goes to a time; #pc= to the first visit of an address after the start.
    const timed = trace.instructions[140];
    await page.focus('[data-testid=browser]');
    await prompt(page, 't', String(timed.time));
    await expectLine(page, timed.line, `t ${timed.time}`);
    const pc = trace.instructions[90].text.split(/\s+/).filter(Boolean)[4];
    const firstVisit = trace.instructions.find((ins, i) => i > 0 && ins.text.split(/\s+/).filter(Boolean)[4] === pc);
    await page.evaluate((pc) => {
      location.hash = `#pc=0x${pc}`;
    }, pc);
    await expectLine(page, firstVisit.line, `#pc=0x${pc}`);
  });

  test('the view header counts instructions; a line past the end and a bad fragment are said so', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const k = 50;
    const ins = trace.instructions[k];
    await gotoLine(page, ins.line);
    await expectLine(page, ins.line, `l ${ins.line}`);
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid=view-position]')?.textContent === want,
      `line ${ins.line} · time ${ins.time} · instruction ${k + 1}`,
      { timeout: 30_000 },
    ).catch(async () => assert.fail(`header: ${await page.textContent('[data-testid=view-position]')}`));
    // Past the end: the last line named, the position kept.
    const last = trace.lines.length - (trace.lines.at(-1) === '' ? 1 : 0);
    await gotoLine(page, 999999);
    await page.waitForSelector('[data-testid=status-message]');
    assert.equal(
      await page.textContent('[data-testid=status-message]'),
      `Line 999,999 is past the end: the trace ends at line ${last.toLocaleString('en-US')}.`,
    );
    await expectLine(page, ins.line, 'l 999999 kept the position');
    // A line inside an instruction's lines: where it went.
    const inside = ins.line + 1;
    assert.ok(inside <= blockEnd(trace, ins.line));
    await gotoLine(page, inside);
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid=status-message]')?.textContent === want,
      `Line ${inside} is part of the instruction at line ${ins.line}.`,
      { timeout: 30_000 },
    );
    // A fragment that is no position is said so, and moves nothing.
    await page.evaluate(() => {
      location.hash = '#line=abc';
    });
    await page.waitForFunction(
      () => document.querySelector('[data-testid=status-message]')?.textContent.includes('"abc" is not a line number'),
      null,
      { timeout: 30_000 },
    );
    await expectLine(page, ins.line, '#line=abc kept the position');
  });

  test('the register pane marks what the instruction at the position wrote, whatever came before', async (t) => {
    const gen = readTrace(path.join(ROOT, `${GENERATED}.tarmac`));
    const page = await openPage(t);
    await openTrace(page, `${GENERATED}.tarmac`);
    // The core registers an instruction's R lines write (w names x).
    const written = (ins) => {
      const names = new Set();
      for (let i = ins.line; i < blockEnd(gen, ins.line); i++) {
        const m = /^\s*\d+\s+\S+\s+R\s+(\S+)\s/.exec(gen.lines[i]);
        if (!m) continue;
        const r = m[1].toLowerCase().replace(/^w(\d+)$/, 'x$1');
        if (/^x\d+$/.test(r) || r === 'sp') names.add(r);
        if (r === 'cpsr') names.add('psr');
      }
      return [...names].sort();
    };
    const marked = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('[data-testid=registers-core] .reg.changed .reg-value')].map((e) => e.dataset.reg).sort(),
      );
    const expectMarked = async (ins, what) => {
      const want = written(ins);
      await page
        .waitForFunction(
          (want) =>
            JSON.stringify(
              [...document.querySelectorAll('[data-testid=registers-core] .reg.changed .reg-value')].map((e) => e.dataset.reg).sort(),
            ) === want,
          JSON.stringify(want),
          { timeout: 30_000 },
        )
        .catch(async () => assert.fail(`${what}: marked ${JSON.stringify(await marked())}, the trace writes ${JSON.stringify(want)}`));
      return want;
    };
    // A jump far away, then steps: each time what the instruction wrote
    // (after a jump, not every register that differs from before it).
    const far = gen.instructions[3000];
    await gotoLine(page, far.line);
    await expectLine(page, far.line, 'jump');
    let nonEmpty = (await expectMarked(far, 'after a jump')).length > 0;
    for (let k = 3001; k < 3012; k++) {
      await page.keyboard.press('ArrowDown');
      await expectLine(page, gen.instructions[k].line, `step to ${k}`);
      nonEmpty ||= (await expectMarked(gen.instructions[k], `step to instruction ${k}`)).length > 0;
    }
    assert.ok(nonEmpty, 'some instruction wrote a register');
    // c in the pane: what changed since the last position instead, and back.
    const before = gen.instructions[3011];
    await gotoLine(page, gen.instructions[3100].line);
    await expectLine(page, gen.instructions[3100].line, 'jump again');
    // Tab: the register pane has the keys (a click would jump).
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('Tab');
    await page.waitForSelector('[data-testid=registers-core].focused');
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.querySelector('[data-testid=registers-core]')?.textContent.includes('changes since the last position'));
    const was = registersAt(gen, blockEnd(gen, before.line));
    const now = registersAt(gen, blockEnd(gen, gen.instructions[3100].line));
    const differing = Object.keys(now).filter((r) => /^x\d+$/.test(r) && now[r] !== was[r]);
    assert.ok(differing.length > 1);
    await page.waitForFunction(
      (want) => want.every((r) => document.querySelector(`[data-testid=registers-core] [data-reg=${r}]`)?.parentElement.classList.contains('changed')),
      differing,
      { timeout: 30_000 },
    );
  });

  test('w shows the registers the position changed, and follows the cursor', async (t) => {
    const gen = readTrace(path.join(ROOT, `${GENERATED}.tarmac`));
    const page = await openPage(t);
    await openTrace(page, `${GENERATED}.tarmac`);
    const written = (ins) => {
      const names = new Set();
      for (let i = ins.line; i < blockEnd(gen, ins.line); i++) {
        const m = /^\s*\d+\s+\S+\s+R\s+(\S+)\s/.exec(gen.lines[i]);
        if (!m) continue;
        const r = m[1].toLowerCase().replace(/^w(\d+)$/, 'x$1');
        if (/^x\d+$/.test(r)) names.add(r);
      }
      return [...names].sort();
    };
    const listed = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('[data-testid=registers-changed] .reg-value')]
          .map((e) => e.dataset.reg)
          .filter((r) => /^x\d+$/.test(r))
          .sort(),
      );
    await gotoLine(page, gen.instructions[2000].line);
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('w');
    await page.waitForSelector('[data-testid=registers-changed]');
    let wrote = 0;
    for (let k = 2000; k < 2010; k++) {
      if (k > 2000) {
        await page.focus('[data-testid=browser]');
        await page.keyboard.press('ArrowDown');
      }
      const ins = gen.instructions[k];
      await expectLine(page, ins.line, `instruction ${k}`);
      const want = written(ins);
      wrote += want.length;
      await page
        .waitForFunction(
          (want) =>
            JSON.stringify(
              [...document.querySelectorAll('[data-testid=registers-changed] .reg-value')]
                .map((e) => e.dataset.reg)
                .filter((r) => /^x\d+$/.test(r))
                .sort(),
            ) === want,
          JSON.stringify(want),
          { timeout: 30_000 },
        )
        .catch(async () => assert.fail(`instruction ${k}: listed ${JSON.stringify(await listed())}, the trace writes ${JSON.stringify(want)}`));
    }
    assert.ok(wrote > 0, 'some instruction wrote a register');
    assert.equal(await page.getAttribute('[data-testid=toggle-changed]', 'aria-pressed'), 'true');
  });

  test('the command palette finds a command by part of its name and goes to a typed line', async (t) => {
    const gen = readTrace(path.join(ROOT, `${GENERATED}.tarmac`));
    const page = await openPage(t);
    await openTrace(page, `${GENERATED}.tarmac`);
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('Control+K');
    await page.waitForSelector('[data-testid=palette-input]:focus');
    // Its field is named for what it is, not by its placeholder.
    assert.equal(await page.getByRole('combobox', { name: 'Command palette', exact: true }).count(), 1);
    // Every command of the trace pane is listed with its key (the F1 table's rows).
    const listed = await page.locator('[data-testid=palette-entry]').count();
    await page.keyboard.type("changed reg");
    await page.waitForFunction(
      () => document.querySelector('[data-testid=palette-entry].selected .palette-key')?.textContent === 'w',
      null,
      { timeout: 30_000 },
    );
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=registers-changed]');
    assert.equal(await page.locator('[data-testid=palette]').count(), 0, 'running a command closes the palette');
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('F1');
    await page.waitForSelector('[data-testid=help]');
    const helpRows = await page.locator('[data-testid=help] tr').count();
    await page.keyboard.press('Escape');
    // The help lists keys, the palette commands: Ctrl-K itself and the keys
    // that share a command (Down, j) are one entry.
    assert.ok(listed > 40 && listed <= helpRows, `${listed} commands listed, ${helpRows} keys in the help`);
    // Ctrl-Shift-P, a line number, Return: the view goes there.
    const target = gen.instructions[777].line;
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('[data-testid=palette-input]:focus');
    await page.keyboard.type(String(target));
    await page.keyboard.press('Enter');
    await expectLine(page, target, 'palette go to line');
    // Esc closes it and runs nothing.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('Control+K');
    await page.waitForSelector('[data-testid=palette-input]:focus');
    await page.keyboard.type('fold all');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('[data-testid=palette]'));
    await expectLine(page, target, 'Esc ran nothing');
  });

  test('the command palette finds an ELF function by part of its name and lists its calls', async (t) => {
    const page = await openPage(t);
    await openTrace(page, `${GENERATED}.tarmac`, `${GENERATED}.elf`);
    await page.waitForSelector('[data-testid=elf-symbols]');
    // The CLI's profile: partition's address and how often it was called.
    const profile = execFileSync(CLI, ['profile', `${GENERATED}.tarmac`, '--image', `${GENERATED}.elf`], { encoding: 'utf8' });
    const [addr, count] = profile
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .find((cols) => cols[3] === 'partition');
    assert.ok(Number(count) > 1, profile);
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('Control+K');
    await page.waitForSelector('[data-testid=palette-input]:focus');
    // The start of its name: the function comes first, before commands
    // whose help has a word starting so, and is the one selected.
    await page.keyboard.type('part');
    const entry = page.locator('[data-testid=palette-entry]', { hasText: 'Function partition' });
    await entry.waitFor({ timeout: 30_000 });
    assert.match(await entry.textContent(), new RegExp(`its ${count} calls`));
    const entries = await page.$$eval('[data-testid=palette-entry]', (es) => es.map((e) => e.textContent));
    assert.match(entries[0], /Function partition/, entries.join(' | '));
    assert.ok(entries.length > 1, 'the commands matching "part" are listed after it');
    assert.match(await page.textContent('[data-testid=palette-entry].selected'), /Function partition/);
    await page.keyboard.press('Enter');
    // The Reports panel opens at the profile, listing partition's calls.
    const calls = await page.waitForSelector('[data-testid=function-calls]', { timeout: 60_000 });
    assert.equal(await calls.getAttribute('data-addr'), addr);
  });

  test('folding a call leaves one row named after the callee (with its ELF)', async (t) => {
    const page = await openPage(t);
    const firstScreenMs = await openTrace(page, `${GENERATED}.tarmac`, `${GENERATED}.elf`);
    t.diagnostic(`first screenful ${firstScreenMs} ms`);
    await page.waitForSelector('[data-testid=elf-symbols]');
    // From the reference call tree: _start calls tg_main at line 771,
    // which starts at line 773.
    const generated = readTrace(path.join(ROOT, `${GENERATED}.tarmac`));
    await gotoLine(page, 773);
    await expectLine(page, 773, 'entry of tg_main');
    await page.keyboard.press('-');
    // The position was inside the call, so it moves to the call instruction.
    await expectLine(page, 771, 'fold moves to the call');
    await page.waitForSelector('[data-testid=fold-row]');
    // F7 shows branch targets as addresses again, F6 drops the colours.
    assert.ok((await page.locator('[data-testid=branch-symbol]').count()) > 0, 'branch targets named');
    await page.keyboard.press('F7');
    await page.waitForFunction(() => !document.querySelector('[data-testid=branch-symbol]'));
    await page.keyboard.press('F7');
    await page.waitForSelector('[data-testid=branch-symbol]');
    assert.ok((await page.locator('[data-testid=trace-pane] [data-hl]').count()) > 0, 'highlighted');
    await page.keyboard.press('F6');
    await page.waitForFunction(() => !document.querySelector('[data-testid=trace-pane] [data-hl]'));
    await page.keyboard.press('F6');
    await page.waitForSelector('[data-testid=trace-pane] [data-hl]');
    const folds = await page.locator('[data-testid=fold-row]').evaluateAll((rows) => rows.map((r) => r.dataset.function));
    assert.deepEqual(folds, ['tg_main']);
    // One step over the fold lands after the call's return.
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('.trace-row.current')?.dataset.line !== '771');
    const after = await current(page);
    assert.ok(after.line > 32000, `after the fold: ${JSON.stringify(after)}`);
    await shoot(page, '[data-testid=view]', 'folded.png');
    // A click on the fold unfolds it.
    await page.click('[data-testid=fold-row]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=fold-row]'));
    // The mouse path of `-`: a line inside tg_main folds its call again.
    await page.click('.trace-row[data-row-line="773"]', { button: 'right' });
    await page.click('[data-testid=context-menu] li:has-text("Fold the call containing this line")');
    await page.waitForSelector('[data-testid=fold-row][data-function=tg_main]');
    // Inside tg_main the call stack names it, and its call instruction has
    // a fold box.
    await page.keyboard.press('}');
    await page.waitForFunction(() => !document.querySelector('[data-testid=fold-row]'));
    await gotoLine(page, 776);
    await expectLine(page, instructionOf(generated, 776).line, 'inside tg_main');
    await page.waitForSelector('[data-testid=call-stack] button:has-text("tg_main")');
    // a in the register pane reads the selected register as an address.
    await page.locator('[data-testid=registers-core] header strong').click();
    // Two registers a row in the side area: down 14 rows, right 2 to x30.
    for (let k = 0; k < 14; k++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('.reg.selected [data-reg=x30]');
    await page.keyboard.press('a');
    await page.waitForSelector('[data-testid=registers-core] [data-testid=pane-note]');
    const note = await page.textContent('[data-testid=registers-core] [data-testid=pane-note]');
    assert.match(note, /^x30 = 0x10030 = _start ?\+ ?0x30$/);
    await page.click('.trace-row[data-row-line="771"] [data-testid=fold-toggle]');
    await page.waitForSelector('[data-testid=fold-row][data-function=tg_main]');
    await expectLine(page, 771, 'the fold box moves the position to the call');
    assert.ok(generated.instructions.length > 1000);
  });

  test('a highlights the lines before the position in turn; Return jumps to the write of its register', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const REG = /^\s*\d+\s+\S+\s+R\s+(X\d+)\s/;
    // An instruction that writes a register another instruction wrote before.
    let pick;
    for (const ins of trace.instructions.slice(40)) {
      const end = blockEnd(trace, ins.line);
      for (let l = ins.line + 1; l <= end && !pick; l++) {
        const m = REG.exec(trace.lines[l - 1]);
        if (!m) continue;
        const name = m[1].toLowerCase();
        const before = registerWrites(trace, name, ins.line - 1).at(-1);
        if (before && instructionOf(trace, before)?.time > 0) pick = { ins, line: l, name, before };
      }
      if (pick) break;
    }
    await gotoLine(page, pick.ins.line);
    await expectLine(page, pick.ins.line, 'position');
    const seen = [];
    for (let k = 0; k < 10; k++) {
      await page.keyboard.press('a');
      const lit = await page
        .waitForFunction((prev) => {
          const row = document.querySelector('.trace-row.annotated');
          const line = row ? row.dataset.rowLine : 'none';
          return line !== prev && line;
        }, seen.at(-1) ?? 'none')
        .then((h) => h.jsonValue());
      seen.push(lit);
      if (lit === String(pick.line)) break;
    }
    assert.equal(seen[0], String(pick.ins.line), 'the first press lights the instruction line');
    assert.equal(seen.at(-1), String(pick.line), `lit lines ${seen}`);
    await page.keyboard.press('Enter');
    const writer = instructionOf(trace, pick.before);
    await expectLine(page, writer.line, `previous write of ${pick.name}`);
  });

  test('a right-click on a register offers its previous write', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const pos = trace.instructions[150];
    await gotoLine(page, pos.line);
    await expectLine(page, pos.line, 'position');
    const name = 'x9';
    let from = blockEnd(trace, pos.line);
    let last = registerWrites(trace, name, from).at(-1);
    // The write in the position's own block is where the view is: the menu
    // still moves to it (the position is after it).
    const writer = instructionOf(trace, last);
    await page.click(`[data-reg=${name}]`, { button: 'right' });
    await page.waitForSelector('[data-testid=context-menu]');
    await page.click(`[data-testid=context-menu] li:has-text("Previous write of ${name}")`);
    if (writer.line === pos.line) {
      last = registerWrites(trace, name, pos.line - 1).at(-1);
      await expectLine(page, instructionOf(trace, last).line, `previous write of ${name}`);
    } else {
      await expectLine(page, writer.line, `previous write of ${name}`);
    }
  });

  test("a row's menu copies the gdb command that stands at its line", async (t) => {
    const page = await openPage(t);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await openTrace(page, QUICKSORT);
    const pos = trace.instructions[40];
    await gotoLine(page, pos.line);
    await expectLine(page, pos.line, 'position');
    await page.click(`.trace-row[data-row-line="${pos.line}"]`, { button: 'right' });
    await page.waitForSelector('[data-testid=context-menu]');
    const item = page.locator(`[data-testid=context-menu] li:has-text("Copy for gdb: monitor line ${pos.line}")`);
    assert.equal(await item.count(), 1, 'the menu offers the command');
    await item.click();
    await page.waitForSelector(`[data-testid=status-message]:has-text("Copied: monitor line ${pos.line}")`);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, `monitor line ${pos.line}`);
  });

  test('p finds the next visit of a PC, ; and , repeat the search', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const pcOf = (ins) => ins.text.split(/\s+/).filter(Boolean)[4];
    const pos = trace.instructions[60];
    const pc = pcOf(trace.instructions[70]);
    const visits = trace.instructions.filter((ins) => pcOf(ins) === pc && ins.line > pos.line);
    assert.ok(visits.length >= 3, `pc ${pc} visited ${visits.length} times`);
    await gotoLine(page, pos.line);
    await expectLine(page, pos.line, 'position');
    await prompt(page, 'p', `0x${pc}`);
    await expectLine(page, visits[0].line, `p 0x${pc}`);
    await page.keyboard.press(';');
    await expectLine(page, visits[1].line, ';');
    await page.keyboard.press(';');
    await expectLine(page, visits[2].line, '; again');
    await page.keyboard.press(',');
    await expectLine(page, visits[1].line, ',');
  });

  test('a second view keeps its own position; a locked pane stays put', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    const first = trace.instructions[100];
    await gotoLine(page, first.line);
    await expectLine(page, first.line, 'position');
    await page.click('[data-testid=new-view]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=view]').length === 2);
    const second = page.locator('[data-testid=view][data-view="1"]');
    await second.locator('.trace-row.current').waitFor();
    // The new view has the focus: Down moves it only.
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(
      (line) => document.querySelector('[data-view="1"] .trace-row.current')?.dataset.line === String(line),
      trace.instructions[101].line,
    );
    const firstView = await page.locator('[data-testid=view][data-view="0"] .trace-row.current').getAttribute('data-line');
    assert.equal(firstView, String(first.line));
    await shoot(page, '[data-testid=browser]', 'two-views.png');

    // Lock the registers (they follow view #1) to an earlier line.
    const lockAt = trace.instructions[30];
    await page.locator('[data-testid=registers-core] header').click();
    await prompt(page, 'l', String(lockAt.line));
    await page.waitForSelector('[data-testid=pane-lock]');
    const locked = registersAt(trace, blockEnd(trace, lockAt.line));
    await page.waitForFunction((x) => document.querySelector('[data-reg=x8]')?.textContent === x, locked.x8.padStart(16, '0'));
    // Moving the view does not change a locked pane.
    await page.keyboard.press('Tab');
    await page.keyboard.press('End');
    await page.waitForFunction(() => location.hash !== '');
    assert.equal((await registers(page)).x8, locked.x8.padStart(16, '0'));
    await page.click('[data-testid=pane-lock]');
    await page.waitForSelector('[data-testid=pane-lock]', { state: 'detached' });
  });

  test('a trace taller than the browser can scroll scrolls through every row', async (t) => {
    // ~600 k rows: at 18 px a row, far beyond the capped scroll height.
    const piece = fs.readFileSync(path.join(ROOT, `${GENERATED}.tarmac`));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-tall-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const tall = path.join(dir, 'tall.tarmac');
    const out = fs.openSync(tall, 'w');
    for (let i = 0; i < 19; i++) fs.writeSync(out, piece);
    fs.closeSync(out);
    const lineCount = 19 * (piece.toString('latin1').split('\n').length - 1);

    const page = await openPage(t);
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.longTasks.push(Math.round(e.duration));
      }).observe({ type: 'longtask' });
    });
    await page.setInputFiles('[data-testid=file-input]', tall);
    await page.waitForSelector('.trace-row.current');
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    const longTasks = await page.evaluate(() => window.longTasks);
    // How long the page's thread was busy is the benchmark's figure (a
    // shared machine's load made a 271 ms one here); printed, not asserted.
    t.diagnostic(`long tasks while indexing ${lineCount} lines: ${JSON.stringify(longTasks)}`);

    await page.waitForFunction((n) => document.querySelector('[data-testid=trace-pane]').dataset.rows === String(n), lineCount);
    const pane = page.locator('[data-testid=trace-pane]');
    const height = await pane.evaluate((el) => el.scrollHeight);
    assert.ok(height < lineCount * 18, `spacer ${height}px is capped`);
    // Dragging the scrollbar to the middle shows the middle of the trace.
    await pane.evaluate((el) => {
      el.scrollTop = (el.scrollHeight - el.clientHeight) / 2;
    });
    await page.waitForFunction((n) => {
      const top = Number(document.querySelector('[data-testid=trace-pane]').dataset.top);
      const first = document.querySelector('.trace-row')?.dataset.rowLine;
      return Math.abs(top - n / 2) < n / 100 && Math.abs(Number(first) - 1 - top) < 2;
    }, lineCount);
    assert.ok((await page.locator('.trace-row').count()) < 200, 'only visible rows are in the DOM');
    // And to the very end.
    await pane.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForFunction((n) => {
      const rows = [...document.querySelectorAll('.trace-row')];
      return rows.at(-1)?.dataset.rowLine === String(n);
    }, lineCount);
  });

  test('a second trace replaces the first, starting at its beginning', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    await gotoLine(page, trace.instructions[200].line);
    await expectLine(page, trace.instructions[200].line, 'position in the first trace');
    await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, `${GENERATED}.tarmac`));
    await page.waitForSelector('[data-testid=file-name]:has-text("fastmodel-2M.tarmac")');
    await page.waitForSelector('[data-testid=status][data-state=ready]');
    await expectLine(page, 1, 'start of the second trace');
    assert.equal(await page.locator('[data-testid=view]').count(), 1);
  });

  test('F1 shows the keys of the focused pane', async (t) => {
    const page = await openPage(t);
    await openTrace(page, QUICKSORT);
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('F1');
    await page.waitForSelector('[data-testid=help]');
    assert.match(await page.textContent('[data-testid=help]'), /fold the call containing the position/);
    await shoot(page, '[data-testid=help]', 'help.png');
    // A keyboard user reads all of it: the help has the focus, and the keys
    // that scroll scroll it; other keys do nothing behind it; Escape closes.
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'help');
    const scroll = () => page.$eval('[data-testid=help]', (e) => ({ top: e.scrollTop, room: e.scrollHeight - e.clientHeight }));
    assert.ok((await scroll()).room > 100, `the help scrolls: ${JSON.stringify(await scroll())}`);
    // A key that scrolls it, and the scroll's end (the browser scrolls
    // smoothly: a key pressed during one adds to where it was going).
    const scrollWith = async (key) => {
      await page.$eval('[data-testid=help]', (e) => {
        window.__scrolled = false;
        e.addEventListener('scrollend', () => (window.__scrolled = true), { once: true });
      });
      await page.keyboard.press(key);
      await page.waitForFunction(() => window.__scrolled);
      return (await scroll()).top;
    };
    assert.ok((await scrollWith('PageDown')) > 0, 'PageDown scrolls it');
    const bottom = await scrollWith('End');
    assert.ok(bottom >= (await scroll()).room - 1, 'End scrolls it to its end');
    const line = await currentLine(page);
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    // Keys go in order: once Up has scrolled it, x and j were had, and it
    // stayed open.
    assert.ok((await scrollWith('ArrowUp')) < bottom, 'Up scrolls it back');
    assert.notEqual(await page.$('[data-testid=help]'), null, 'other keys leave the help open');
    assert.equal(await currentLine(page), line, 'nothing moved behind the help');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('[data-testid=help]'));
    // The keys are the trace's again.
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid=browser]'));
    if (SCREENSHOTS) {
      const pos = trace.instructions[300];
      await gotoLine(page, pos.line);
      await expectLine(page, pos.line, 'position');
      await prompt(page, 'm', 'sp');
      await page.waitForSelector('[data-testid=memory] [data-addr]');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'browser.png') });
      await page.click('[data-testid=tab-summary]');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'summary.png') });
    }
  });
});
