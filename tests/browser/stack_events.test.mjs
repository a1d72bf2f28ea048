// The navigation views: the call stack pane, the events pane and the
// timeline strip. The call stacks expected come from the CLI's call tree
// (TARMAC_LENS_CLI), the events from the trace text.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, ROOT, currentLine, expectLine, gotoLine, openTracePage, pageFixture } from './harness.mjs';
import { instructionOf, readTrace } from './trace_text.mjs';

const GENERATED = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M';
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;

const fx = pageFixture();

const openPage = (t) => openTracePage(fx, t);

async function openTrace(page, ...files) {
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForSelector('.trace-row', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
}

async function shoot(page, selector, name) {
  if (!SCREENSHOTS) return;
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
    const m = /^\s*([-o]) t:\d+ l:(\d+) pc:(\S+) - t:\d+ l:(\d+) pc:\S+(?: : (.*))?$/.exec(line);
    if (!m) continue;
    if (m[1] === '-') {
      site = { callLine: Number(m[2]), resumeLine: Number(m[4]) };
    } else if (site) {
      calls.push({ ...site, entryLine: Number(m[2]), pc: m[3], name: m[5] ?? '' });
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
      { timeout: 30_000 },
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

/**
 * The events of a Fast Models trace from its text: `E` lines, `(ABORTED)`
 * accesses and instructions whose mode field changed. { line, kind }.
 */
function textEvents(trace) {
  const out = [];
  let mode = null;
  trace.lines.forEach((text, i) => {
    const words = text.trim().split(/\s+/);
    const type = words[2];
    if (type === 'E') {
      const name = words.at(-1).toLowerCase();
      const kind = /irq|fiq/.test(name) ? 'interrupt' : name.includes('modechange') ? 'mode-change' : 'exception';
      out.push({ line: i + 1, kind });
    } else if (type === 'IT' || type === 'IS') {
      const m = words[words.indexOf(':') - 1];
      if (m.length > 1) {
        if (mode !== null && m !== mode) out.push({ line: i + 1, kind: 'mode-change' });
        mode = m;
      }
    } else if (text.includes('(ABORTED)')) {
      out.push({ line: i + 1, kind: 'aborted' });
    }
  });
  return out;
}

async function shownEvents(page) {
  return page.locator('[data-testid=event]').evaluateAll((rows) =>
    rows.map((r) => ({ line: Number(r.dataset.line), kind: r.dataset.kind, text: r.querySelector('.event-text').textContent })),
  );
}

async function currentEventLines(page) {
  return page.locator('[data-testid=event].current').evaluateAll((rows) => rows.map((r) => Number(r.dataset.line)));
}

describe('events pane', () => {
  test('lists the E lines, aborted accesses and mode changes of the trace; e and E step through them', async (t) => {
    const file = path.join(ROOT, 'tests/data/ttu/truncate/crash32.tarmac');
    const trace = readTrace(file);
    const want = textEvents(trace);
    assert.ok(want.length >= 12 && new Set(want.map((e) => e.kind)).size >= 3, JSON.stringify(want));
    const page = await openPage(t);
    await openTrace(page, file);
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('v');
    await page.waitForSelector('[data-testid=event]');
    const shown = await shownEvents(page);
    assert.deepEqual(
      shown.map(({ line, kind }) => ({ line, kind })),
      want,
    );
    for (const e of shown) assert.equal(e.text, trace.lines[e.line - 1]);
    assert.equal(await page.getAttribute('[data-testid=events-pane]', 'data-total'), String(want.length));
    await shoot(page, '[data-testid=events-pane]', 'events.png');

    // e from the start visits every event, a node at a time, in order.
    await page.keyboard.press('Home');
    await expectLine(page, 1, 'Home');
    // Events on the first node are current at the start.
    const first = await currentEventLines(page);
    const visited = [];
    let last = first.at(-1) ?? 0;
    for (let k = 0; k < want.length + 2; k++) {
      await page.keyboard.press('e');
      try {
        await page.waitForFunction(
          (last) => {
            const rows = [...document.querySelectorAll('[data-testid=event].current')];
            const msg = document.querySelector('[data-testid=status-message]')?.textContent;
            return (rows.length && Number(rows[0].dataset.line) > last) || msg === 'No later event.';
          },
          last,
          { timeout: 30_000 },
        );
      } catch {
        assert.fail(`e ×${k + 1}: the events marked current are ${await currentEventLines(page)} after ${last}`);
      }
      const lines = await currentEventLines(page);
      if (!lines.length || lines[0] <= last) break;
      // The trace view is at the event's instruction, at or before its line.
      const at = await currentLine(page);
      assert.ok(at <= lines[0], `position ${at} after the event at ${lines[0]}`);
      // The events list shows it.
      await page.waitForFunction(() => {
        const row = document.querySelector('[data-testid=event].current').getBoundingClientRect();
        const list = document.querySelector('[data-testid=events-pane] ol').getBoundingClientRect();
        return row.top >= list.top - 1 && row.bottom <= list.bottom + 1;
      });
      visited.push(...lines);
      last = lines.at(-1);
    }
    assert.deepEqual([...new Set([...first, ...visited])].sort((a, b) => a - b), want.map((e) => e.line));
    assert.equal(await page.textContent('[data-testid=status-message]'), 'No later event.');
    // E goes back the same way.
    const back = [];
    for (let k = 0; k < 3; k++) {
      await page.keyboard.press('E');
      await page.waitForFunction(
        (last) => {
          const rows = [...document.querySelectorAll('[data-testid=event].current')];
          return rows.length && Number(rows.at(-1).dataset.line) < last;
        },
        last,
        { timeout: 30_000 },
      );
      const lines = await currentEventLines(page);
      back.push(lines[0]);
      last = lines[0];
    }
    assert.ok(back.every((l) => visited.includes(l)), `E went to ${back}`);
    // A click on an event goes to it.
    await page.click(`[data-testid=event][data-line="${want[5].line}"]`);
    await page.waitForSelector(`[data-testid=event][data-line="${want[5].line}"].current`);
    // v hides the pane.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('v');
    await page.waitForFunction(() => !document.querySelector('[data-testid=events-pane]'));
  });

  test('lists unparsed lines as the CLI statistics do', async (t) => {
    // The RTL lines of this reference file read now without
    // --implicit-thumb: garbage added after it, one line with a timestamp.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-unparsed-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'with-garbage.txt');
    fs.writeFileSync(
      file,
      fs.readFileSync(path.join(ROOT, 'tests/data/ttu/parsertest-implicit-thumb.txt'), 'utf8') +
        'garbage line\n   1166.300000us this is junk\n%%%\n',
    );
    const stats = JSON.parse(execFileSync(CLI, ['stats', '--json', file], { encoding: 'utf8' }));
    assert.ok(stats.unparsed_lines.length > 0);
    const page = await openPage(t);
    await openTrace(page, file);
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('v');
    await page.waitForSelector('[data-testid=event]');
    const shown = await shownEvents(page);
    assert.deepEqual(
      shown.filter((e) => e.kind === 'unparsed').map((e) => e.line),
      stats.unparsed_lines,
    );
    // Its E lines are signals: exceptions.
    const trace = readTrace(file);
    const eLines = trace.lines.flatMap((l, i) => (/^\s*\S+\s+E\s/.test(l) ? [i + 1] : []));
    assert.deepEqual(
      shown.filter((e) => e.kind === 'exception').map((e) => e.line),
      eLines,
    );
  });
});

/** Pixels of the timeline canvas by colour: { depth, exception, mode, viewport }. */
async function timelinePixels(page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid=timeline-canvas]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const n = { depth: 0, exception: 0, mode: 0, viewport: 0 };
    for (let i = 0; i < d.length; i += 4) {
      const [r, g, b, a] = [d[i], d[i + 1], d[i + 2], d[i + 3]];
      if (a === 0) continue;
      if (b > 150 && r < 140) n.depth++;
      else if (r > 180 && g < 80 && b < 80) n.exception++;
      else if (g > 120 && r < 80 && b < 100) n.mode++;
      else n.viewport++;
    }
    return n;
  });
}

describe('timeline', () => {
  test('draws call depth over the whole trace; a click or a drag moves the view there', async (t) => {
    const tracePath = path.join(ROOT, `${GENERATED}.tarmac`);
    const trace = readTrace(tracePath);
    const figures = JSON.parse(execFileSync(CLI, ['index', '--no-index', tracePath], { encoding: 'utf8' }));
    const page = await openPage(t);
    await openTrace(page, tracePath);
    await page.waitForSelector(`[data-testid=timeline][data-nodes="${figures.nodes}"]`);
    const pixels = await timelinePixels(page);
    assert.ok(pixels.depth > 1000, JSON.stringify(pixels));
    const box = await page.locator('[data-testid=timeline-canvas]').boundingBox();
    // The node under a click is its fraction of the trace's nodes; its
    // instruction's line is about that fraction of the lines.
    const lineAt = (fraction) => trace.instructions[Math.floor(fraction * figures.nodes)].line;
    for (const fraction of [0.5, 0.25, 0.9]) {
      await page.mouse.click(box.x + box.width * fraction, box.y + box.height / 2);
      const want = lineAt(fraction);
      try {
        await page.waitForFunction(
          (want) => Math.abs(Number(document.querySelector('.trace-row.current')?.dataset.line) - want) < 40,
          want,
          { timeout: 30_000 },
        );
      } catch {
        assert.fail(`click at ${fraction}: line ${await currentLine(page)}, expected about ${want}`);
      }
    }
    // A drag follows the mouse.
    await page.mouse.move(box.x + box.width * 0.1, box.y + 5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, box.y + 5, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.7, box.y + 5, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(
      (want) => Math.abs(Number(document.querySelector('.trace-row.current')?.dataset.line) - want) < 40,
      lineAt(0.7),
      { timeout: 30_000 },
    );
    await shoot(page, '[data-testid=timeline]', 'timeline.png');
    // Without an ELF the call stack names callees by address.
    const at = await currentLine(page);
    const calls = cliCalls(tracePath, path.join(ROOT, `${GENERATED}.elf`));
    const expected = stackAt(calls, at);
    assert.ok(expected.length > 0, `no call active at line ${at}`);
    await expectStack(page, expected.map((c) => c.pc), `line ${at} without symbols`);
    // T hides it.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('T');
    await page.waitForFunction(() => !document.querySelector('[data-testid=timeline]'));
  });

  test('marks exceptions and mode changes where they are', async (t) => {
    const file = path.join(ROOT, 'tests/data/ttu/truncate/crash32.tarmac');
    const page = await openPage(t);
    await openTrace(page, file);
    await page.waitForSelector('[data-testid=timeline][data-nodes]:not([data-nodes="0"])');
    await page.waitForFunction(() => {
      const c = document.querySelector('[data-testid=timeline-canvas]');
      const d = c.getContext('2d').getImageData(0, 0, c.width, 6).data;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 180 && d[i + 1] < 80 && d[i + 3] > 0) return true;
      return false;
    });
    const pixels = await timelinePixels(page);
    assert.ok(pixels.exception > 0 && pixels.mode > 0, JSON.stringify(pixels));
  });
});
