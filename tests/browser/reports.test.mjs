// The Reports panel as a person uses it: open it with R, expand the call
// tree and jump from it into the trace, sort the profile, zoom and hover
// the flame graph, search it, and download the four texts and the
// Perfetto export. What the panel shows and every downloaded byte are
// checked against the native CLI (TARMAC_LENS_CLI) on the same trace and
// ELF image.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, clickDownload, currentLine, expectLine, gotoLine as promptLine, makeLargeTrace, openTracePage, pageFixture, ROOT } from './harness.mjs';
import { readTrace } from './trace_text.mjs';

const BASE = 'tests/data/tracegen/quicksort-arm-O2-fastmodel-2M';
const TRACE = path.join(ROOT, `${BASE}.tarmac`);
const ELF = path.join(ROOT, `${BASE}.elf`);
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;
// What report::explore leaves out of a flame graph reply.
const MIN_FRAME_FRACTION = 1 / 4000;
const ROW = 18;

const fx = pageFixture();

function cli(...args) {
  return execFileSync(CLI, [...args, TRACE, '--image', ELF, '--no-index'], { maxBuffer: 1 << 28 });
}

/** A trace whose outermost function makes `n` calls: more than a page of the tree. */
function manyCallsTrace(n) {
  const lines = ['1 clk IT (1) 00000ffc e3a0d901 A svc_s : MOV      r13,#0x400000', '1 clk R r13_svc 00400000'];
  let t = 2;
  for (let i = 0; i < n; i++) {
    lines.push(`${t} clk IT (${t}) 00001000 eb000010 A svc_s : BL       {pc}+0x48 ; 0x1048`, `${t} clk R r14_svc 00001004`);
    t++;
    lines.push(`${t} clk IT (${t}) 00001048 e2800001 A svc_s : ADD      r0,r0,#1`, `${t} clk R r0 ${(i + 1).toString(16).padStart(8, '0')}`);
    t++;
    lines.push(`${t} clk IT (${t}) 0000104c e12fff1e A svc_s : BX       lr`);
    t++;
    lines.push(`${t} clk IT (${t}) 00001004 eafffffd A svc_s : B        {pc}-0x4 ; 0x1000`);
    t++;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-reports-'));
  const file = path.join(dir, 'many-calls.tarmac');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, dir };
}

function cliVcd() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-reports-'));
  const out = path.join(dir, 't.vcd');
  execFileSync(CLI, ['vcd', TRACE, '--image', ELF, '--no-index', '--no-date', '-o', out]);
  const bytes = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** The CLI's call tree text as nested activations. */
function parseCalltree(text) {
  const re = /^( *)o t:(\d+) l:(\d+) pc:(0x[0-9a-f]+) - t:(\d+) l:(\d+) pc:0x[0-9a-f]+ : (.*)$/;
  const callRe = /^( *)- t:(\d+) l:(\d+) pc:0x[0-9a-f]+ - t:(\d+) l:(\d+)/;
  const stack = [];
  let root = null;
  let pendingCall = null;
  for (const line of text.split('\n')) {
    let m = line.match(callRe);
    if (m) {
      pendingCall = { line: Number(m[3]) };
      continue;
    }
    m = line.match(re);
    if (!m) continue;
    const level = m[1].length / 4;
    const node = {
      // Without a symbol the panel names a function by its address.
      name: m[7] || m[4],
      entryLine: Number(m[3]),
      time: Number(m[5]) - Number(m[2]),
      exitLine: Number(m[6]),
      call: pendingCall,
      children: [],
    };
    pendingCall = null;
    stack.length = level;
    if (level === 0) root = node;
    else stack[level - 1].children.push(node);
    stack.push(node);
  }
  return root;
}

/** The CLI's folded stacks as a trie laid out as report::explore lays it out. */
function flameTrie(folded) {
  const root = { name: null, own: 0, total: 0, children: new Map() };
  for (const line of folded.trim().split('\n')) {
    const at = line.lastIndexOf(' ');
    const count = Number(line.slice(at + 1));
    let node = root;
    for (const name of line.slice(0, at).split(';')) {
      if (!node.children.has(name)) node.children.set(name, { name, own: 0, total: 0, children: new Map() });
      node = node.children.get(name);
    }
    node.own += count;
  }
  const total = (n) => {
    n.total = n.own;
    for (const c of n.children.values()) n.total += total(c);
    return n.total;
  };
  total(root);
  const layout = (n, start) => {
    n.start = start;
    let s = start;
    for (const name of [...n.children.keys()].sort()) {
      const c = n.children.get(name);
      layout(c, s);
      s += c.total;
    }
  };
  const top = [...root.children.values()][0];
  layout(top, 0);
  return top;
}

/** Frames under `root` that a reply holds: those wide enough to see. */
function shownFrames(root) {
  const min = Math.max(1, Math.floor(root.total * MIN_FRAME_FRACTION));
  const out = [];
  const walk = (n, depth) => {
    out.push({ node: n, depth });
    for (const c of n.children.values()) if (c.total >= min) walk(c, depth + 1);
  };
  walk(root, 0);
  return out;
}

const openPage = (t, files = [TRACE, ELF]) =>
  openTracePage(fx, t, files, { height: 1100, symbols: files.includes(ELF) });

async function openReports(page) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
}

async function shoot(page, name) {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-testid=reports-panel]').screenshot({ path: path.join(SCREENSHOTS, name) });
}

async function gotoLine(page, line) {
  await promptLine(page, line);
  await expectLine(page, line, `l ${line}`);
}

/** Presses g and gives the newly selected row of the call tree. */
async function revealCall(page) {
  const selected = () => document.querySelector('[data-testid=tree-row][data-selected=true]')?.dataset.path ?? null;
  const before = await page.evaluate(selected);
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('g');
  await page.waitForFunction(
    (before) => {
      const p = document.querySelector('[data-testid=tree-row][data-selected=true]')?.dataset.path;
      return p !== undefined && p !== before;
    },
    before,
    { timeout: 30_000 },
  );
  return page.$eval('[data-testid=tree-row][data-selected=true]', (r) => ({ path: r.dataset.path, name: r.dataset.name }));
}

async function treeRows(page) {
  return page.$$eval('[data-testid=tree-row]', (rows) =>
    rows.map((r) => ({
      path: r.dataset.path,
      name: r.dataset.name,
      children: Number(r.dataset.children),
      time: r.querySelector('[data-testid=tree-time]')?.dataset.value,
      callLine: Number(r.querySelector('[data-testid=jump-call]')?.dataset.line),
      returnLine: Number(r.querySelector('[data-testid=jump-return]')?.dataset.line),
    })),
  );
}

async function profileRows(page) {
  return page.$$eval('[data-testid=profile-row]', (rows) =>
    rows.map((r) => ({
      addr: r.dataset.addr,
      count: Number(r.querySelector('[data-col=count]').dataset.value),
      inclusive: Number(r.querySelector('[data-col=inclusive]').dataset.value),
      exclusive: Number(r.querySelector('[data-col=exclusive]').dataset.value),
      name: r.querySelector('[data-col=name]').textContent,
    })),
  );
}

/** Every activation of the CLI call tree, in trace order. */
function activations(node, out = []) {
  out.push(node);
  for (const c of node.children) activations(c, out);
  return out;
}

describe('reports panel', () => {
  test('the call tree shows the CLI tree level by level and jumps to calls and returns', async (t) => {
    const page = await openPage(t);
    const tree = parseCalltree(cli('calltree').toString());
    // The toolbar button opens it too.
    await page.click('[data-testid=open-reports]');
    await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=tree-row]');
    let rows = await treeRows(page);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].name, tree.name);
    assert.equal(rows[0].time, String(tree.time));
    assert.equal(rows[0].children, tree.children.length);
    assert.equal(rows[0].returnLine, tree.exitLine);
    // Expand the root, then its first callee, then that one's first.
    let node = tree;
    let pathSoFar = '';
    for (let depth = 0; depth < 3; depth++) {
      const sel = `[data-testid=tree-row][data-path="${pathSoFar}"] [data-testid=tree-toggle]`;
      await page.click(sel);
      const childPath = (i) => (pathSoFar === '' ? `${i}` : `${pathSoFar}.${i}`);
      await page.waitForSelector(`[data-testid=tree-row][data-path="${childPath(0)}"]`);
      rows = await treeRows(page);
      const kids = rows.filter(
        (r) =>
          r.path !== '' &&
          r.path.split('.').length === depth + 1 &&
          (pathSoFar === '' || r.path.startsWith(`${pathSoFar}.`)),
      );
      assert.deepEqual(
        kids.map((r) => [r.name, r.time, r.callLine, r.returnLine, r.children]),
        node.children.map((c) => [c.name, String(c.time), c.call.line, c.exitLine, c.children.length]),
        `children of ${node.name}`,
      );
      node = node.children[0];
      pathSoFar = childPath(0);
    }
    await shoot(page, 'calltree.png');
    // Another tab and back: the tree is as it was left.
    await page.click('[data-testid=tab-profile]');
    assert.equal(await page.isVisible('[data-testid=call-tree]'), false);
    await page.click('[data-testid=tab-calltree]');
    assert.equal(await page.isVisible('[data-testid=tree-row][data-path="0.0.0"]'), true);
    // Collapsing hides the children again.
    await page.click('[data-testid=tree-row][data-path="0"] [data-testid=tree-toggle]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=tree-row][data-path="0.0"]'));
    assert.equal(
      await page.getAttribute('[data-testid=tree-row][data-path="0"]', 'aria-expanded'),
      'false',
    );
    // Jumps: tg_main's call instruction and its return.
    const tgMain = tree.children[0];
    await page.click('[data-testid=tree-row][data-path="0"] [data-testid=jump-call]');
    await expectLine(page, tgMain.call.line, 'jump to the call');
    await page.click('[data-testid=tree-row][data-path="0"] [data-testid=jump-return]');
    await expectLine(page, tgMain.exitLine, 'jump to the return');
    // g shows the call at the position: a line inside partition, three
    // calls deep, with its ancestors opened.
    const quicksortAt = tree.children[0].children[0].children.findIndex((c) => c.name === 'quicksort');
    const partition = tree.children[0].children[0].children[quicksortAt].children[0];
    await gotoLine(page, partition.entryLine);
    const shown = await revealCall(page);
    assert.deepEqual(shown, { path: `0.0.${quicksortAt}.0`, name: partition.name });
    assert.ok(await page.isVisible('[data-testid=tree-row][data-selected=true]'));
    // R closes the panel.
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('R');
    await page.waitForFunction(() => !document.querySelector('[data-testid=reports-panel]'));
  });

  test('a node with more calls than a page shows them a page at a time', async (t) => {
    const { file, dir } = manyCallsTrace(250);
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const page = await openPage(t, [file]);
    const tree = parseCalltree(execFileSync(CLI, ['calltree', file, '--no-index']).toString());
    assert.equal(tree.children.length, 250);
    await openReports(page);
    await page.click('[data-testid=tree-row][data-path=""] [data-testid=tree-toggle]');
    await page.waitForSelector('[data-testid=tree-more]');
    let rows = await treeRows(page);
    // The root, a page of 200 calls, and a button for the rest.
    assert.equal(rows.length, 1 + 200);
    assert.match(await page.textContent('[data-testid=tree-more]'), /50 more calls/);
    await page.click('[data-testid=tree-more]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=tree-more]'));
    rows = await treeRows(page);
    assert.deepEqual(
      rows.slice(1).map((r) => [r.path, r.name, r.callLine, r.returnLine]),
      tree.children.map((c, i) => [String(i), c.name, c.call.line, c.exitLine]),
    );
  });

  test('g loads the pages of calls up to the position\'s call', async (t) => {
    const { file, dir } = manyCallsTrace(250);
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const page = await openPage(t, [file]);
    const tree = parseCalltree(execFileSync(CLI, ['calltree', file, '--no-index']).toString());
    // The panel closed: g opens it on the call tree.
    await gotoLine(page, tree.children[229].entryLine);
    const shown = await revealCall(page);
    assert.deepEqual(shown, { path: '229', name: tree.children[229].name });
    // Between the calls, the position is the outermost function's.
    await gotoLine(page, tree.children[10].call.line);
    assert.deepEqual(await revealCall(page), { path: '', name: tree.name });
  });

  test('the trace view keeps answering while the reports are computed', async (t) => {
    const big = makeLargeTrace(96);
    const page = await openPage(t, [big]);
    await page.focus('[data-testid=browser]');
    const before = await currentLine(page);
    // What came first is recorded in the page: successive round trips from here could see
    // the reports end between two questions on a loaded machine.
    await page.evaluate((before) => {
      const seen = (window.__order = []);
      const look = () => {
        const progress = document.querySelector('[data-testid=reports-progress] progress');
        if (!seen.length && progress) seen.push(`progress of ${progress.getAttribute('max')}`);
        const line = Number(document.querySelector('.trace-row.current')?.dataset.line);
        if (!seen.includes('step') && line > before) seen.push('step');
        if (!seen.includes('reports') && document.querySelector('[data-testid=reports-summary]')) seen.push('reports');
      };
      new MutationObserver(look).observe(document.body, { childList: true, subtree: true, attributes: true });
    }, before);
    const t0 = Date.now();
    await page.keyboard.press('R');
    // The report worker reads the file in slices and says how far it is.
    await page.waitForSelector('[data-testid=reports-progress] progress', { timeout: 30_000 });
    const t1 = Date.now();
    await page.keyboard.press('PageDown');
    // Answered before the reports are done (the order below), however long
    // a loaded machine takes: not within a time.
    await page.waitForFunction(() => window.__order.includes('step'), null, { timeout: 120_000 });
    const stepMs = Date.now() - t1;
    await page.waitForSelector('[data-testid=reports-summary]', { timeout: 120_000 });
    // The step was answered before the reports were done.
    assert.deepEqual(await page.evaluate(() => window.__order), [`progress of ${fs.statSync(big).size}`, 'step', 'reports']);
    const mb = fs.statSync(big).size / (1 << 20);
    const reportMs = Date.now() - t0;
    const summary = await page.textContent('[data-testid=reports-summary]');
    t.diagnostic(
      `reports of ${mb.toFixed(0)} MiB (${summary}) in ${reportMs} ms (${((mb * 1000) / reportMs).toFixed(0)} MiB/s); a PageDown meanwhile took ${stepMs} ms`,
    );
  });

  test('a refused ELF image leaves the reports named by address', async (t) => {
    const page = await fx.browser.context.newPage();
    t.after(() => page.close());
    await page.goto(fx.server.url);
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    // An ELF header and nothing after it.
    const broken = fs.readFileSync(ELF).subarray(0, 80);
    await page.setInputFiles('[data-testid=file-input]', [
      { name: path.basename(TRACE), mimeType: 'text/plain', buffer: fs.readFileSync(TRACE) },
      { name: 'broken.elf', mimeType: 'application/octet-stream', buffer: broken },
    ]);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await openReports(page);
    await page.waitForSelector('[data-testid=reports-elf-ignored]');
    assert.match(await page.textContent('[data-testid=reports-elf-ignored]'), /broken\.elf/);
    await page.waitForSelector('[data-testid=tree-row]');
    const [root] = await treeRows(page);
    const first = execFileSync(CLI, ['calltree', TRACE, '--no-index']).toString().split('\n')[0];
    assert.equal(root.name, first.match(/pc:(0x[0-9a-f]+)/)[1]);
  });

  test('markup in symbol and file names is shown as text in every view', async (t) => {
    const SYMBOL = '<img src=x onerror=X=1>';
    const FILE_NAME = '<img src=x onerror=window.__xss=1>.tarmac';
    const elf = fs.readFileSync(ELF);
    const at = elf.indexOf(Buffer.from('run_iteration\0quicksort.c\0'));
    assert.ok(at > 0, 'symbol names found');
    elf.write(SYMBOL + '\0', at, 'latin1');
    const page = await fx.browser.context.newPage();
    t.after(() => page.close());
    await page.goto(fx.server.url);
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    const before = await page.evaluate(() => document.querySelectorAll('img, script').length);
    await page.setInputFiles('[data-testid=file-input]', [
      { name: FILE_NAME, mimeType: 'text/plain', buffer: fs.readFileSync(TRACE) },
      { name: 'image.elf', mimeType: 'application/octet-stream', buffer: elf },
    ]);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=elf-symbols]');
    await openReports(page);
    await page.click('[data-testid=tree-row][data-path=""] [data-testid=tree-toggle]');
    await page.click('[data-testid=tree-row][data-path="0"] [data-testid=tree-toggle]');
    await page.waitForSelector('[data-testid=tree-row][data-path="0.0"]');
    assert.equal(await page.textContent('[data-testid=tree-row][data-path="0.0"] [data-testid=tree-name]'), SYMBOL);
    await page.click('[data-testid=tab-profile]');
    await page.waitForFunction(
      (s) => [...document.querySelectorAll('[data-testid=profile-row] [data-col=name]')].some((e) => e.textContent === s),
      SYMBOL,
    );
    await page.click('[data-testid=tab-flamegraph]');
    await page.waitForSelector('[data-testid=flame-canvas][data-frames]');
    await page.fill('[data-testid=flame-search]', SYMBOL);
    await page.waitForSelector('[data-testid=flame-matches][data-count="1"]');
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      clickDownload(page, 'profile'),
    ]);
    assert.equal(download.suggestedFilename().includes('.tarmac.profile.txt'), true);
    assert.ok(fs.readFileSync(await download.path()).toString().includes(SYMBOL));
    const after = await page.evaluate(() => ({
      elements: document.querySelectorAll('img, script').length,
      xss: window.__xss ?? null,
      x: window.X ?? null,
    }));
    assert.deepEqual(after, { elements: before, xss: null, x: null });
  });

  test('an ELF image loaded while the panel is open names the reports', async (t) => {
    const page = await openPage(t, [TRACE]);
    await openReports(page);
    await page.waitForSelector('[data-testid=tree-row]');
    const first = execFileSync(CLI, ['calltree', TRACE, '--no-index']).toString().split('\n')[0];
    assert.equal((await treeRows(page))[0].name, first.match(/pc:(0x[0-9a-f]+)/)[1]);
    await page.setInputFiles('[data-testid=elf-input]', ELF);
    await page.waitForFunction(
      () => document.querySelector('[data-testid=tree-row]')?.dataset.name === '_start',
      null,
      { timeout: 30_000 },
    );
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      clickDownload(page, 'calltree'),
    ]);
    assert.ok(Buffer.compare(fs.readFileSync(await download.path()), cli('calltree')) === 0);
  });

  test('an ELF image refused while the panel is open is said there, the reports still by address', async (t) => {
    const page = await openPage(t, [TRACE]);
    await openReports(page);
    await page.waitForSelector('[data-testid=tree-row]');
    // An ELF header and nothing after it, given once the reports are made.
    await page.setInputFiles('[data-testid=elf-input]', {
      name: 'broken.elf',
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(ELF).subarray(0, 80),
    });
    await page.waitForSelector('[data-testid=elf-error]');
    await page.waitForSelector('[data-testid=reports-elf-ignored]');
    assert.match(await page.textContent('[data-testid=reports-elf-ignored]'), /broken\.elf/);
    const first = execFileSync(CLI, ['calltree', TRACE, '--no-index']).toString().split('\n')[0];
    assert.equal((await treeRows(page))[0].name, first.match(/pc:(0x[0-9a-f]+)/)[1]);
  });

  test('the profile table holds the CLI profile and sorts by each column', async (t) => {
    const page = await openPage(t);
    await openReports(page);
    await page.click('[data-testid=tab-profile]');
    await page.waitForSelector('[data-testid=profile-row]');
    const want = cli('profile')
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => {
        const [addr, count, time, ...name] = l.trim().split(/\s+/);
        return { addr, count: Number(count), inclusive: Number(time), name: name.join(' ') };
      });
    let rows = await profileRows(page);
    const strip = (r) => ({ addr: r.addr, count: r.count, inclusive: r.inclusive, name: r.name });
    const byAddr = (a, b) => Number(a.addr) - Number(b.addr);
    assert.deepEqual([...rows].map(strip).sort(byAddr), [...want].sort(byAddr));
    // Own times add up to the folded stacks' counts.
    const folded = cli('flamegraph').toString().trim().split('\n');
    const sum = folded.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    assert.equal(rows.reduce((s, r) => s + r.exclusive, 0), sum);
    // Inclusive time, biggest first, by default.
    const val = (r, key) => (key === 'addr' ? Number(r.addr) : r[key]);
    const sortedBy = (key, desc) => (a, b) =>
      (desc ? -1 : 1) * (val(a, key) < val(b, key) ? -1 : val(a, key) > val(b, key) ? 1 : 0) ||
      Number(a.addr) - Number(b.addr);
    assert.deepEqual(rows, [...rows].sort(sortedBy('inclusive', true)));
    await shoot(page, 'profile.png');
    const clickSort = async (id, key, desc) => {
      await page.click(`[data-testid=sort-${id}]`);
      await page.waitForFunction(
        ({ id, desc }) =>
          document.querySelector(`[data-testid=sort-${id}]`).parentElement.getAttribute('aria-sort') ===
          (desc ? 'descending' : 'ascending'),
        { id, desc },
      );
      // The rows come with the worker's answer.
      const deadline = Date.now() + 30_000;
      for (;;) {
        rows = await profileRows(page);
        const sorted = [...rows].sort(sortedBy(key, desc));
        if (JSON.stringify(rows) === JSON.stringify(sorted) || Date.now() > deadline) {
          assert.deepEqual(rows, sorted, `sorted by ${id} ${desc ? 'down' : 'up'}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await clickSort('count', 'count', true);
    assert.equal(rows[0].name, 'cmp_ascending');
    await clickSort('count', 'count', false);
    await clickSort('exclusive', 'exclusive', true);
    await clickSort('name', 'name', false);
    await clickSort('address', 'addr', false);
    assert.deepEqual(rows.map(strip), want);
  });

  test('the profile shows shares of the instructions, and a row lists its function\'s calls with jumps', async (t) => {
    const page = await openPage(t);
    await openReports(page);
    await page.click('[data-testid=tab-profile]');
    await page.waitForSelector('[data-testid=profile-row]');
    // The trace's instructions, counted from its text.
    const total = readTrace(TRACE).instructions.length;
    const shares = await page.$$eval('[data-testid=profile-row]', (rows) =>
      rows.map((r) => ({
        name: r.querySelector('[data-col=name]').textContent,
        instructions: Number(r.querySelector('[data-col=instructions]').dataset.value),
        own: Number(r.querySelector('[data-col=own-instructions]').dataset.value),
        shown: r.querySelector('[data-col=instructions]').textContent,
        ownShown: r.querySelector('[data-col=own-instructions]').textContent,
      })),
    );
    assert.equal(shares.reduce((s, r) => s + r.own, 0), total, 'own instructions add up to the trace');
    const outer = shares.find((r) => r.name === '_start');
    assert.equal(outer.instructions, total);
    assert.equal(outer.shown, '100.0%');
    for (const r of shares) {
      assert.equal(r.ownShown, `${((r.own * 100) / total).toFixed(1)}%`, r.name);
      assert.ok(r.own <= r.instructions, r.name);
    }
    // A click on partition's row lists its calls, as the CLI's tree has them.
    const tree = parseCalltree(cli('calltree').toString());
    const want = activations(tree).filter((a) => a.name === 'partition');
    assert.ok(want.length > 10);
    await page.click('[data-testid=profile-row] [data-col=name]:text-is("partition")');
    await page.waitForSelector('[data-testid=function-call]');
    assert.equal(await page.textContent('[data-testid=function-calls-title]'), `partition: ${want.length} calls`);
    const listed = await page.$$eval('[data-testid=function-call]', (rows) =>
      rows.map((r) => ({ call: Number(r.dataset.callLine), entry: Number(r.dataset.entryLine) })),
    );
    assert.deepEqual(
      listed,
      want.map((a) => ({ call: a.call.line, entry: a.entryLine })),
    );
    // The jumps: to the third call, and to where it returned.
    await page.locator('[data-testid=function-call]').nth(2).locator('[data-testid=call-jump]').click();
    await expectLine(page, want[2].call.line, 'jump to a call of partition');
    await page.locator('[data-testid=function-call]').nth(2).locator('[data-testid=return-jump]').click();
    await expectLine(page, want[2].exitLine, 'jump to its return');
    await page.click('[data-testid=function-calls-close]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=function-calls]'));
    // Sorting by own share puts the busiest function first.
    await page.click('[data-testid=sort-own-instructions]');
    const busiest = [...shares].sort((a, b) => b.own - a.own)[0].name;
    await page.waitForFunction(
      (name) => document.querySelector('[data-testid=profile-row] [data-col=name]')?.textContent === name,
      busiest,
      { timeout: 30_000 },
    );
  });

  test('the flame graph draws the folded stacks, zooms, hovers and searches', async (t) => {
    const page = await openPage(t);
    const top = flameTrie(cli('flamegraph').toString());
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('F');
    await page.waitForSelector('[data-testid=flame-canvas][data-frames]', { timeout: 60_000 });
    const canvas = page.locator('[data-testid=flame-canvas]');
    const geometry = async () =>
      canvas.evaluate((c) => ({ width: c.clientWidth, depth: Number(c.dataset.depth), root: c.dataset.root }));
    let g = await geometry();
    assert.equal(g.root, top.name);
    assert.equal(await canvas.getAttribute('data-frames'), String(shownFrames(top).length));
    assert.equal(g.depth, Math.max(...shownFrames(top).map((f) => f.depth)));
    // The centre of a frame as drawn under zoom root `root`.
    const centre = (root, node, depth, g) => ({
      x: ((node.start - root.start + node.total / 2) * g.width) / root.total,
      y: (g.depth - depth) * ROW + ROW / 2,
    });
    const hover = async (pos) => {
      await canvas.hover({ position: pos });
      await page.waitForFunction(() => document.querySelector('[data-testid=flame-tooltip]').dataset.name);
      return page.$eval('[data-testid=flame-tooltip]', (e) => ({
        name: e.dataset.name,
        total: Number(e.dataset.total),
        own: Number(e.dataset.own),
        text: e.textContent,
      }));
    };
    let tip = await hover(centre(top, top, 0, g));
    assert.deepEqual([tip.name, tip.total, tip.own], [top.name, top.total, top.own]);
    assert.match(tip.text, /100\.0%/);
    // Down the first stack to quicksort.
    const tgMain = top.children.get('tg_main');
    const run = tgMain.children.get('run_iteration');
    const quick = run.children.get('quicksort');
    tip = await hover(centre(top, run, 2, g));
    assert.deepEqual([tip.name, tip.total, tip.own], ['run_iteration', run.total, run.own]);
    await shoot(page, 'flamegraph.png');
    await canvas.click({ position: centre(top, quick, 3, g) });
    await page.waitForFunction(() => document.querySelector('[data-testid=flame-canvas]').dataset.root === 'quicksort');
    g = await geometry();
    assert.equal(await canvas.getAttribute('data-frames'), String(shownFrames(quick).length));
    assert.deepEqual(
      await page.$$eval('[data-testid=flame-ancestor]', (b) => b.map((e) => e.textContent)),
      ['_start', 'tg_main', 'run_iteration'],
    );
    tip = await hover(centre(quick, quick, 0, g));
    assert.deepEqual([tip.name, tip.total], ['quicksort', quick.total]);
    const inner = [...quick.children.values()].sort((a, b) => b.total - a.total)[0];
    tip = await hover(centre(quick, inner, 1, g));
    assert.deepEqual([tip.name, tip.total, tip.own], [inner.name, inner.total, inner.own]);
    // The bottom frame zooms out one level; Esc all the way.
    await canvas.click({ position: centre(quick, quick, 0, g) });
    await page.waitForFunction(() => document.querySelector('[data-testid=flame-canvas]').dataset.root === 'run_iteration');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('[data-testid=flame-canvas]').dataset.root === '_start');
    // Search: the frames whose names contain the text.
    await page.fill('[data-testid=flame-search]', 'Swap');
    await page.waitForSelector('[data-testid=flame-matches]');
    const expected = shownFrames(top).filter((f) => f.node.name.toLowerCase().includes('swap')).length;
    assert.ok(expected > 0);
    assert.equal(await page.getAttribute('[data-testid=flame-matches]', 'data-count'), String(expected));
    // Highlighted pixels: the search colour is on the canvas.
    const purple = await canvas.evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 140 && d[i + 2] > 200) n++;
      return n;
    });
    assert.ok(purple > 0, 'highlighted frames are drawn');
  });

  test('the Perfetto download is the command\'s export byte for byte', async (t) => {
    const page = await openPage(t);
    await openReports(page);
    // Run where the trace is: the export names the trace as the page does.
    const want = execFileSync(CLI, ['export', '--format', 'perfetto', '--image', ELF, path.basename(TRACE)], {
      cwd: path.dirname(TRACE),
      maxBuffer: 1 << 28,
    });
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      clickDownload(page, 'perfetto'),
    ]);
    const got = fs.readFileSync(await download.path());
    assert.ok(got.length > 1000, `${got.length} bytes`);
    assert.ok(Buffer.compare(got, want) === 0, `${got.length} bytes, CLI ${want.length}`);
    assert.equal(download.suggestedFilename(), 'quicksort-arm-O2-fastmodel-2M.tarmac.pftrace');
    await page.waitForSelector('[data-testid=saved-perfetto]', { state: 'attached' });
  });

  test('the downloads are the CLI texts byte for byte', async (t) => {
    const page = await openPage(t);
    await openReports(page);
    const want = {
      calltree: cli('calltree'),
      profile: cli('profile'),
      flamegraph: cli('flamegraph'),
      vcd: cliVcd(),
    };
    for (const [kind, bytes] of Object.entries(want)) {
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        clickDownload(page, kind),
      ]);
      const got = fs.readFileSync(await download.path());
      assert.ok(got.length > 0, `${kind} is not empty`);
      assert.ok(Buffer.compare(got, bytes) === 0, `${kind}: ${got.length} bytes, CLI ${bytes.length}`);
      assert.match(download.suggestedFilename(), new RegExp(`^quicksort-arm-O2-fastmodel-2M\\.tarmac\\.`));
      await page.waitForSelector(`[data-testid=saved-${kind}]`, { state: 'attached' });
    }
  });
});
