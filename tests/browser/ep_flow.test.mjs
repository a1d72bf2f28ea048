// The Reports panel on traces without calls: a TI C64x+ EP trace (its cycle
// profile and its discontinuities) and a branch-only trace (its program
// flow). Both traces browse like any other; what the panel shows, its
// sorting and paging, its jumps into the trace view and every downloaded
// byte are checked against the native CLI (`ep-profile`, `flow`).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, clickDownload, currentLine, expectLine, openTracePage, pageFixture, ROOT } from './harness.mjs';

// Made by scripts/make_ep_sample.mjs.
const EP = path.join(ROOT, 'tests/data/ep/sploop-loop.ept.txt');
const FULL = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
const ELF = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.elf');
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;
// Rows per page of the panel's lists (components/reports/list_pager.rs).
const LIST_PAGE = 200;

const fx = pageFixture();

function cli(...args) {
  return execFileSync(CLI, [...args, '--no-index'], { maxBuffer: 1 << 28 });
}

/**
 * The branch-only trace Fast Models' program-flow source would write for
 * the full quicksort trace: an FD line per instruction whose successor is
 * not the next word (as tests/flow.rs makes it).
 */
function branchOnlyTrace() {
  const ins = [];
  for (const line of fs.readFileSync(FULL, 'latin1').split('\n')) {
    const m = line.match(/^\d+ clk IT \((\d+)\) ([0-9a-f]+) /);
    if (m) ins.push([Number(m[1]), parseInt(m[2], 16)]);
  }
  const out = [];
  for (let i = 0; i + 1 < ins.length; i++) {
    const [tick, pc] = ins[i];
    const next = ins[i + 1][1];
    if (next !== pc + 4) {
      out.push(`${tick} clk FD (${tick}) ${pc.toString(16).padStart(8, '0')} ${next.toString(16).padStart(8, '0')} O`);
    }
  }
  // A line no parser understands: counted, and the blocks go on.
  out.splice(10, 0, 'this is not a trace line');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-flow-'));
  const file = path.join(dir, 'quicksort-branches.tarmac');
  fs.writeFileSync(file, out.join('\n') + '\n');
  return { file, dir };
}

// Tall enough for the panel's screenshots to show a screenful.
const openPage = (t, files) =>
  openTracePage(fx, t, files, { height: 1500, symbols: files.includes(ELF) });

async function shoot(page, name) {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-testid=reports-panel]').screenshot({ path: path.join(SCREENSHOTS, name) });
}

/** The trace view shows the file's lines, and moves, like any trace's. */
async function browses(page, file) {
  const text = fs.readFileSync(file, 'latin1').split('\n');
  const rows = await page.$$eval('.trace-row[data-row-line]', (rs) =>
    rs.slice(0, 8).map((r) => ({ line: Number(r.dataset.rowLine), text: r.textContent })),
  );
  assert.ok(rows.length >= 4, 'rows shown');
  // Records are highlighted by field, not shown as plain text.
  assert.ok((await page.locator('[data-testid=trace-pane] [data-hl]:not([data-hl=text])').count()) > 0, 'highlighted');
  for (const r of rows) {
    const want = text[r.line - 1].trim();
    assert.ok(r.text.includes(want.slice(0, 20)), `row ${r.line}: ${JSON.stringify(r.text)} shows ${want}`);
  }
  await page.focus('[data-testid=browser]');
  const before = await currentLine(page);
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction((b) => Number(document.querySelector('.trace-row.current')?.dataset.line) > b, before);
  await page.keyboard.press('End');
  await page.waitForFunction((n) => Number(document.querySelector('.trace-row.current')?.dataset.line) >= n, text.length - 2, {
    timeout: 30_000,
  });
  await page.keyboard.press('Home');
  await page.waitForFunction((b) => Number(document.querySelector('.trace-row.current')?.dataset.line) <= b, before);
}

async function openReports(page) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
}

async function tabs(page) {
  return page.$$eval('[data-testid=reports-panel] [role=tab]', (ts) => ts.map((t) => t.dataset.testid));
}

async function download(page, kind) {
  const [d] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    clickDownload(page, kind),
  ]);
  await page.waitForSelector(`[data-testid=saved-${kind}]`, { state: 'attached' });
  return { bytes: fs.readFileSync(await d.path()), name: d.suggestedFilename() };
}

/** Polls `read` until it equals `want` (rows come with the worker's answer). */
async function eventually(read, want, what) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await read();
    if (JSON.stringify(got) === JSON.stringify(want) || Date.now() > deadline) {
      assert.deepEqual(got, want, what);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `ep-profile --top N`'s text, parsed. */
function parseEpProfile(text) {
  const lines = text.split('\n');
  const head = lines[0].match(/^cycles (\d+)\.\.(\d+) \((\d+)\); packet cycles (\d+), stall cycles (\d+) \((.*)\)$/);
  const sploop = lines[2].match(
    /^sploop: (\d+) packets from memory in (\d+) cycles; (\d+) cycles from the loop buffer \((\d+) records\); (\d+) epilogue discontinuities$/,
  );
  const table = [];
  let i = lines.findIndex((l) => l.trim().startsWith('pc ')) + 1;
  for (; lines[i] !== ''; i++) {
    const [pc, packets, cycles, share, stalls, size] = lines[i].trim().split(/\s+/);
    table.push({ pc, packets: Number(packets), cycles: Number(cycles), share, stalls: Number(stalls), size });
  }
  const flow = lines
    .filter((l) => l.startsWith('  cycle '))
    .map((l) => {
      const m = l.match(/^  cycle +(\d+)  (0x[0-9a-f]+) -> (0x[0-9a-f]+)  size (\d+) latency (\d+)( \(interrupt\))?  \(line (\d+)\)$/);
      return {
        line: Number(m[7]),
        cycle: Number(m[1]),
        from: m[2],
        to: m[3],
        size: Number(m[4]),
        latency: Number(m[5]),
      };
    });
  return {
    first: Number(head[1]),
    last: Number(head[2]),
    packetCycles: Number(head[4]),
    stallCycles: Number(head[5]),
    records: lines[1].replace(/^records: /, ''),
    sploop: sploop.slice(1, 6).map(Number),
    table,
    flow,
  };
}

async function epRows(page) {
  return page.$$eval('[data-testid=ep-row]', (rows) =>
    rows.map((r) => {
      const col = (c) => r.querySelector(`[data-col=${c}]`).textContent;
      return {
        pc: r.dataset.pc,
        packets: Number(col('packets')),
        cycles: Number(col('cycles')),
        share: col('share'),
        stalls: Number(col('stalls')),
        size: col('size'),
      };
    }),
  );
}

async function epFlowRows(page) {
  return page.$$eval('[data-testid=ep-flow-row]', (rows) =>
    rows.map((r) => {
      const col = (c) => r.querySelector(`[data-col=${c}]`).textContent;
      return {
        line: Number(r.dataset.line),
        cycle: Number(col('cycle')),
        from: col('from'),
        to: col('to'),
        size: Number(col('size')),
        latency: Number(col('latency')),
      };
    }),
  );
}

/** `flow`'s text, parsed: two lines per block. */
function parseFlow(text) {
  const lines = text.trimEnd().split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i += 2) {
    const h = lines[i].match(/^(\?{10}|0x[0-9a-f]+)\.\.(0x[0-9a-f]+) +(\?|\d+) instr *(A32|T32|A64|T32EE)? *(?:<([^>]*)>)?/);
    const b = lines[i + 1].match(/^    (F[DIR]) (0x[0-9a-f]+) -> (0x[0-9a-f]+)(?: <([^>]*)>)?  \(line (\d+), time (\d+)\)$/);
    assert.ok(h && b, `flow text: ${lines[i]} / ${lines[i + 1]}`);
    blocks.push({
      line: Number(b[5]),
      start: h[1].startsWith('?') ? '?' : h[1],
      end: h[2],
      instructions: h[3],
      iset: h[4] ?? '',
      function: h[5] ?? '',
      kind: b[1],
      target: b[3],
      targetFunction: b[4] ?? '',
      time: Number(b[6]),
    });
  }
  return blocks;
}

async function flowRows(page) {
  return page.$$eval('[data-testid=flow-row]', (rows) =>
    rows.map((r) => {
      const col = (c) => r.querySelector(`[data-col=${c}]`).textContent;
      return {
        line: Number(r.dataset.line),
        start: col('start'),
        end: col('end'),
        instructions: col('instructions'),
        iset: col('iset'),
        function: col('function'),
        kind: col('kind'),
        target: col('target'),
        targetFunction: col('target-function'),
        time: Number(col('time')),
      };
    }),
  );
}

describe('reports of EP and branch-only traces', () => {
  test('an EP trace browses like any trace; its cycle profile is the CLI\'s and sorts', async (t) => {
    const page = await openPage(t, [EP]);
    await browses(page, EP);
    const want = parseEpProfile(cli('ep-profile', EP, '--top', '100000').toString());
    // F asks for the flame graph: an EP trace has none, so the cycle
    // profile shows, and only the EP tabs are offered.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('F');
    await page.waitForSelector('[data-testid=ep-row]', { timeout: 60_000 });
    assert.deepEqual(await tabs(page), ['tab-ep-profile', 'tab-ep-flow']);
    assert.equal(await page.getAttribute('[data-testid=tab-ep-profile]', 'aria-selected'), 'true');
    assert.equal(await page.$('[data-testid=flame-canvas]'), null);
    // The summary.
    const cycles = await page.$eval('[data-testid=ep-cycles]', (e) => [Number(e.dataset.first), Number(e.dataset.last)]);
    assert.deepEqual(cycles, [want.first, want.last]);
    assert.equal(await page.getAttribute('[data-testid=ep-packet-cycles]', 'data-value'), String(want.packetCycles));
    assert.equal(await page.getAttribute('[data-testid=ep-stall-cycles]', 'data-value'), String(want.stallCycles));
    assert.equal(await page.textContent('[data-testid=ep-records]'), want.records);
    const sploop = await page.$eval('[data-testid=ep-sploop]', (e) =>
      ['memoryPackets', 'memoryCycles', 'bufferCycles', 'bufferRecords', 'epilogue'].map((k) => Number(e.dataset[k])),
    );
    assert.deepEqual(sploop, want.sploop);
    // The bar splits SPLOOP cycles between the loop buffer and memory.
    const [memCycles, bufCycles] = [want.sploop[1], want.sploop[2]];
    const bar = await page.$eval('[data-testid=ep-sploop-bar]', (b) => ({
      whole: b.clientWidth,
      buffer: b.querySelector('[data-testid=ep-sploop-buffer]').getBoundingClientRect().width,
    }));
    assert.ok(Math.abs(bar.buffer / bar.whole - bufCycles / (bufCycles + memCycles)) < 0.02, JSON.stringify(bar));
    // The table: the CLI's, in its order (most cycles first).
    assert.deepEqual(await epRows(page), want.table);
    // Each address knows its first packet (info records aside); a click
    // on its row moves the trace view there.
    const records = fs
      .readFileSync(EP, 'latin1')
      .split('\n')
      .map((l, i) => ({ f: l.split(':'), line: i + 1 }))
      .filter((r) => r.f.length === 7 && !r.f[0].startsWith('#') && r.f[2] !== '0');
    const firstLine = (pc) => records.find((r) => parseInt(r.f[1], 16) === Number(pc)).line;
    assert.deepEqual(
      await page.$$eval('[data-testid=ep-row]', (rs) => rs.map((r) => [r.dataset.pc, Number(r.dataset.firstLine)])),
      want.table.map((r) => [r.pc, firstLine(r.pc)]),
    );
    const top = want.table[0];
    const line = firstLine(top.pc);
    const lines = fs.readFileSync(EP, 'latin1').split('\n');
    // Its record starts a node (the line before is another cycle's).
    assert.notEqual(lines[line - 2].split(':')[0], lines[line - 1].split(':')[0]);
    await page.click(`[data-testid=ep-row][data-pc="${top.pc}"] [data-col=cycles]`);
    await expectLine(page, line, 'jump to an address\'s first packet');
    assert.equal(await page.getAttribute(`[data-testid=ep-row][data-pc="${top.pc}"]`, 'data-selected'), 'true');
    await shoot(page, 'ep-profile.png');
    const key = { pc: (r) => Number(r.pc), packets: (r) => r.packets, cycles: (r) => r.cycles, stalls: (r) => r.stalls };
    const sorted = (k, desc) =>
      [...want.table].sort((a, b) => (desc ? -1 : 1) * (key[k](a) - key[k](b)) || Number(a.pc) - Number(b.pc));
    for (const [k, desc] of [
      ['stalls', true],
      ['stalls', false],
      ['packets', true],
      ['pc', false],
      ['pc', true],
      ['cycles', true],
    ]) {
      await page.click(`[data-testid=ep-sort-${k}]`);
      await page.waitForFunction(
        ({ k, desc }) =>
          document.querySelector(`[data-testid=ep-sort-${k}]`).parentElement.getAttribute('aria-sort') ===
          (desc ? 'descending' : 'ascending'),
        { k, desc },
      );
      await eventually(() => epRows(page), sorted(k, desc), `sorted by ${k} ${desc ? 'down' : 'up'}`);
    }
    // The download is the CLI's text byte for byte.
    const d = await download(page, 'ep-profile');
    assert.ok(d.bytes.length > 0);
    assert.ok(Buffer.compare(d.bytes, cli('ep-profile', EP)) === 0, `${d.bytes.length} bytes`);
    assert.equal(d.name, 'sploop-loop.ept.txt.ep-profile.txt');
  });

  test('an EP table longer than a page comes a page at a time', async (t) => {
    // 620 packet addresses, each with its own cycle count: more than the
    // 500 rows of a reply.
    const lines = ['####Version:3'];
    let cycle = 100;
    for (let i = 0; i < 620; i++) {
      const cycles = 1 + (i % 9);
      lines.push(`${cycle}:0x${(0x8000 + 4 * i).toString(16)}:2:${cycles}:0x8000:4:${i % 3}`);
      cycle += cycles;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-ep-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'wide.ept.txt');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const want = parseEpProfile(cli('ep-profile', file, '--top', '1000').toString()).table;
    assert.equal(want.length, 620);
    const page = await openPage(t, [file]);
    await openReports(page);
    await page.waitForSelector('[data-testid=ep-row]');
    await eventually(() => epRows(page), want.slice(0, 500), 'first page');
    assert.equal(await page.isDisabled('[data-testid=ep-table-earlier]'), true);
    await page.click('[data-testid=ep-table-later]');
    await eventually(() => epRows(page), want.slice(500), 'second page');
    assert.equal(await page.isDisabled('[data-testid=ep-table-later]'), true);
    await page.click('[data-testid=ep-table-earlier]');
    await eventually(() => epRows(page), want.slice(0, 500), 'back to the first page');
    // Sorting starts again from the first page.
    await page.click('[data-testid=ep-table-later]');
    await eventually(() => epRows(page), want.slice(500), 'second page again');
    await page.click('[data-testid=ep-sort-pc]');
    const byPc = [...want].sort((a, b) => Number(a.pc) - Number(b.pc));
    await eventually(() => epRows(page), byPc.slice(0, 500), 'by address');
  });

  test('the EP flow lists the discontinuities a page at a time and moves the trace view', async (t) => {
    const page = await openPage(t, [EP]);
    const want = parseEpProfile(cli('ep-profile', EP).toString()).flow;
    assert.ok(want.length > LIST_PAGE, 'the sample has more than a page');
    await openReports(page);
    await page.click('[data-testid=tab-ep-flow]');
    await page.waitForSelector('[data-testid=ep-flow-row]');
    await eventually(() => epFlowRows(page), want.slice(0, LIST_PAGE), 'first page');
    assert.equal(await page.isVisible('[data-testid=ep-profile]'), false);
    // Interrupts are marked.
    const firstInterrupt = want.findIndex((d) => d.size === 0);
    assert.ok(firstInterrupt >= 0 && firstInterrupt < LIST_PAGE);
    assert.match(
      await page.textContent(`[data-testid=ep-flow-row][data-line="${want[firstInterrupt].line}"]`),
      /interrupt/,
    );
    // Clicking a row moves the trace view to its line.
    const row = want[57];
    await page.click(`[data-testid=ep-flow-row][data-line="${row.line}"] [data-col=to]`);
    await expectLine(page, row.line, 'jump to a discontinuity');
    await page.click(`[data-testid=ep-flow-row][data-line="${want[3].line}"] [data-testid=jump-line]`);
    await expectLine(page, want[3].line, 'the line button');
    // The row clicked last is marked.
    assert.deepEqual(
      await page.$$eval('[data-testid=ep-flow-row][data-selected=true]', (rs) => rs.map((r) => Number(r.dataset.line))),
      [want[3].line],
    );
    await shoot(page, 'ep-flow.png');
    // The next pages, then back.
    await page.click('[data-testid=ep-flow-later]');
    await eventually(() => epFlowRows(page), want.slice(LIST_PAGE, 2 * LIST_PAGE), 'second page');
    const last = Math.floor((want.length - 1) / LIST_PAGE) * LIST_PAGE;
    while ((await epFlowRows(page))[0]?.line !== want[last].line) {
      const shown = (await epFlowRows(page))[0]?.line;
      await page.click('[data-testid=ep-flow-later]');
      // The next page's rows, not a time.
      await page.waitForFunction(
        (shown) => {
          // A list redrawn has no row for a moment: not a page.
          const line = Number(document.querySelector('[data-testid=ep-flow-row]')?.dataset.line);
          return Number.isFinite(line) && line !== shown;
        },
        shown,
        { timeout: 30_000 },
      );
    }
    await eventually(() => epFlowRows(page), want.slice(last), 'last page');
    assert.equal(await page.isDisabled('[data-testid=ep-flow-later]'), true);
    const tail = want[want.length - 1];
    await page.click(`[data-testid=ep-flow-row][data-line="${tail.line}"]`);
    await expectLine(page, tail.line, 'jump from the last page');
    await page.click('[data-testid=ep-flow-earlier]');
    await eventually(() => epFlowRows(page), want.slice(last - LIST_PAGE, last), 'a page back');
  });

  test('a branch-only trace browses like any trace; its program flow is the CLI\'s', async (t) => {
    const { file, dir } = branchOnlyTrace();
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const page = await openPage(t, [file, ELF]);
    await browses(page, file);
    const want = parseFlow(cli('flow', file, '--image', ELF).toString());
    assert.ok(want.length > LIST_PAGE);
    assert.ok(want.some((b) => b.function !== ''), 'blocks are named');
    await openReports(page);
    await page.waitForSelector('[data-testid=flow-row]');
    assert.deepEqual(await tabs(page), ['tab-program-flow']);
    assert.match(await page.textContent('[data-testid=reports-summary]'), new RegExp(`${want.length.toLocaleString('en-US')} blocks`));
    assert.match(await page.textContent('[data-testid=program-flow-unparsed]'), /^Lines not understood: 1 /);
    await eventually(() => flowRows(page), want.slice(0, LIST_PAGE), 'first page');
    const block = want.find((b, i) => i >= 3 && b.function !== '');
    await page.click(`[data-testid=flow-row][data-line="${block.line}"] [data-col=function]`);
    await expectLine(page, block.line, 'jump to a branch');
    assert.equal(await page.getAttribute(`[data-testid=flow-row][data-line="${block.line}"]`, 'data-selected'), 'true');
    await shoot(page, 'branch-flow.png');
    await page.click('[data-testid=program-flow-later]');
    await eventually(() => flowRows(page), want.slice(LIST_PAGE, 2 * LIST_PAGE), 'second page');
    const later = want[LIST_PAGE + 150];
    await page.click(`[data-testid=flow-row][data-line="${later.line}"]`);
    await expectLine(page, later.line, 'jump from the second page');
    // The call reports' keys open the program flow instead.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('R');
    await page.waitForFunction(() => !document.querySelector('[data-testid=reports-panel]'));
    await page.keyboard.press('F');
    await page.waitForSelector('[data-testid=flow-row]', { timeout: 60_000 });
    assert.equal(await page.$('[data-testid=flame-canvas]'), null);
    const d = await download(page, 'flow');
    assert.ok(Buffer.compare(d.bytes, cli('flow', file, '--image', ELF)) === 0, `${d.bytes.length} bytes`);
    assert.equal(d.name, 'quicksort-branches.tarmac.flow.txt');
  });
});
