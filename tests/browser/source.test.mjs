// The source pane (`s`) as a person uses it: drop a trace and its ELF,
// open the pane (it names the file it wants), give the source files; the
// pane shows the file and line GNU addr2line gives for the position's PC
// at three positions, the gutter count of that line is the CLI's
// (`tarmac-lens lines`), and clicking the line lists that many executions.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { CLI, ROOT, expectLine, gotoLine, pageFixture } from './harness.mjs';

const fx = pageFixture();
const DIR = path.join(ROOT, 'tests/data/tracegen/lines');
const BASE = 'recursion-aarch64-O1-fastmodel';
const TRACE = path.join(DIR, `${BASE}.tarmac`);
const ELF = path.join(DIR, `${BASE}.elf`);
const SOURCES = ['recursion.c', 'main.c', 'rt.c'].map((f) => path.join(DIR, 'programs', f));

/** addr2line's innermost `file:line` of a PC. */
function addr2line(pc) {
  const out = execFileSync('aarch64-linux-gnu-addr2line', ['-e', ELF, '-i', pc], { encoding: 'utf8' });
  const [file, line] = out.split('\n')[0].split(':');
  return { file, line: Number(line) };
}

/** Waits for the source pane to name `name` as the file it needs. Before
 * the position is read it says so in the same place. */
async function wantsFile(page, name) {
  await page.waitForFunction(
    (name) => document.querySelector('[data-testid=source-wanted]')?.textContent.includes(name),
    name,
    { timeout: 30_000 },
  );
}

/** Three instruction lines of the trace whose code is in recursion.c:
 * { traceLine, file, srcLine }. */
function positions() {
  const lines = fs.readFileSync(TRACE, 'utf8').split('\n');
  const found = [];
  for (const frac of [0.3, 0.5, 0.7]) {
    for (let i = Math.floor(lines.length * frac); i < lines.length; i++) {
      const m = /\bIT \(\d+\) ([0-9a-f]+)/.exec(lines[i]);
      if (!m) continue;
      const where = addr2line(m[1]);
      if (where.file.endsWith('recursion.c') && where.line > 0) {
        found.push({ traceLine: i + 1, file: where.file, srcLine: where.line });
        break;
      }
    }
  }
  assert.equal(found.length, 3);
  return found;
}

test('the source pane shows the line addr2line names, its count and its executions', { timeout: 180_000 }, async (t) => {
  const cli = JSON.parse(execFileSync(CLI, ['lines', '--format', 'json', '--image', ELF, TRACE], { encoding: 'utf8' }));
  const counts = new Map();
  for (const f of cli.files) {
    if (!f.file.endsWith('recursion.c')) continue;
    for (const l of f.lines) counts.set(l.line, l.executed);
  }
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  const spots = positions();
  await gotoLine(page, spots[0].traceLine);
  await expectLine(page, spots[0].traceLine, `l ${spots[0].traceLine}`);
  await page.keyboard.press('s');
  // No source yet: once the position is read, the pane names the file it wants.
  await wantsFile(page, 'recursion.c');
  await page.setInputFiles('[data-testid=source-files-input]', SOURCES);
  await page.waitForSelector('[data-testid=source-text]');
  for (const spot of spots) {
    // Back to the trace view, as a click on it does, for its `l`.
    await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
    await gotoLine(page, spot.traceLine);
    await expectLine(page, spot.traceLine, `l ${spot.traceLine}`);
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid=source-text] .src-line.current')?.getAttribute('data-src-line') === String(want),
      spot.srcLine,
      { timeout: 30_000 },
    );
    const title = await page.textContent('[data-testid=source-pane-title]');
    assert.ok(title.includes(`recursion.c:${spot.srcLine}`), title);
  }
  // The rows' file:line column (L), and on hover.
  await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
  await page.keyboard.press('L');
  await page.waitForFunction(
    (want) => document.querySelector('.trace-row.current [data-testid=row-source]')?.textContent === want,
    `recursion.c:${spots[2].srcLine}`,
    { timeout: 30_000 },
  );
  const title = await page.getAttribute('.trace-row.current', 'title');
  assert.ok(title.endsWith(`recursion.c:${spots[2].srcLine}`), title);
  // The gutter count of the current line is the CLI's, and a click lists
  // that many executions.
  const spot = spots[2];
  const row = await page.$(`[data-testid=source-text] [data-src-line="${spot.srcLine}"]`);
  const count = counts.get(spot.srcLine);
  assert.ok(count > 0);
  assert.equal(Number(await row.getAttribute('data-count')), count);
  await row.click();
  await page.waitForSelector('[data-testid=source-hits]');
  const want = Math.min(count, 200);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=source-hits] li').length === n, want, { timeout: 30_000 });
  // A click on the first goes there; `n` to the second.
  const lines = await page.$$eval('[data-testid=source-hits] li', (lis) =>
    lis.map((li) => Number(/trace line ([^,]+),/.exec(li.textContent)[1].replace(/\D/g, ''))),
  );
  await page.click('[data-testid=source-hits] li:first-child button');
  await expectLine(page, lines[0], 'the first execution');
  if (lines.length > 1) {
    await page.keyboard.press('n');
    await expectLine(page, lines[1], 'n: the next execution');
  }
  assert.deepEqual(errors, []);
});

/** Whether all of `sel` is in sight: in the window and inside every
 * ancestor that clips; null if it is, else why not. */
function inSight(sel) {
  const el = document.querySelector(sel);
  if (!el) return `${sel}: not in the page`;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return `${sel}: not drawn`;
  for (let a = el.parentElement; a; a = a.parentElement) {
    const style = getComputedStyle(a);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const b = a.getBoundingClientRect();
    const top = b.top + a.clientTop;
    if (r.top < top - 0.5 || r.bottom > top + a.clientHeight + 0.5) {
      return `${sel} (${Math.round(r.top)}-${Math.round(r.bottom)}) is cut by ${a.tagName.toLowerCase()}.${a.className} (${Math.round(top)}-${Math.round(top + a.clientHeight)})`;
    }
  }
  return r.top >= 0 && r.bottom <= innerHeight ? null : `${sel} is outside the window`;
}

/** Each instruction line of the trace with its source line (the innermost,
 * as addr2line gives it for the PC: one run for every PC). */
function sourceOfLines() {
  const lines = fs.readFileSync(TRACE, 'utf8').split('\n');
  const at = [];
  for (const [i, text] of lines.entries()) {
    const m = /\bIT \(\d+\) ([0-9a-f]+)/.exec(text);
    if (m) at.push({ traceLine: i + 1, pc: m[1] });
  }
  const pcs = [...new Set(at.map((a) => a.pc))];
  const out = execFileSync('aarch64-linux-gnu-addr2line', ['-e', ELF, ...pcs], { encoding: 'utf8' }).trim().split('\n');
  const where = new Map(pcs.map((pc, k) => [pc, { file: out[k].split(':')[0], line: Number(out[k].split(':')[1]) }]));
  return at.map((a) => ({ ...a, ...where.get(a.pc) }));
}

test('the source pane keeps the position\'s line in sight as it moves, shows a line\'s executions where they are seen, and leaves the code its width', { timeout: 180_000 }, async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  // A position far down recursion.c (power_mod), out of the first screenful.
  const text = fs.readFileSync(path.join(DIR, 'programs/recursion.c'), 'utf8').split('\n');
  const spot = sourceOfLines().find((a) => a.file.endsWith('recursion.c') && a.line >= 58);
  assert.ok(spot, 'recursion.c runs past its line 58');
  await gotoLine(page, spot.traceLine);
  await expectLine(page, spot.traceLine, `l ${spot.traceLine}`);
  await page.keyboard.press('s');
  await wantsFile(page, 'recursion.c');
  await page.setInputFiles('[data-testid=source-files-input]', SOURCES);
  const current = '[data-testid=source-text] .src-line.current';
  await page.waitForFunction(
    ([sel, want]) => document.querySelector(sel)?.getAttribute('data-src-line') === String(want),
    [current, spot.line],
    { timeout: 10_000 },
  );
  // The pane is shorter than the file: the line is brought into sight.
  const room = await page.$eval('[data-testid=source-text]', (el) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
  assert.ok(room.scroll > room.client * 2 && text.length > 60, `the pane shows part of the file: ${JSON.stringify(room)}`);
  assert.equal(await page.evaluate(inSight, current), null, `line ${spot.line}`);

  // Stepping by source line, into and over calls and out of them: after
  // each step the pane shows the line of the position.
  await page.click('[data-testid=source-pane-title]');
  for (const key of ['j', 'j', 'j', 'o', 'o', 'u', 'j', 'k', 'k', 'o', 'u', 'j', 'j']) {
    const before = await page.evaluate(() => document.querySelector('.trace-row.current')?.dataset.line);
    await page.keyboard.press(key);
    // The position moved and the pane names the line it shows.
    await page.waitForFunction(
      ([before, sel]) => {
        const row = document.querySelector('.trace-row.current');
        const title = document.querySelector('[data-testid=source-pane-title]')?.textContent ?? '';
        const line = document.querySelector(sel)?.getAttribute('data-src-line');
        return row && row.dataset.line !== before && line && title.endsWith(`:${line}`);
      },
      [before, current],
      { timeout: 10_000 },
    );
    const line = await page.getAttribute(current, 'data-src-line');
    assert.equal(await page.evaluate(inSight, current), null, `${key}: line ${line}`);
  }

  // A click on a line lists its executions, in sight under the text.
  await page.click(current);
  await page.waitForSelector('[data-testid=source-hits] li');
  assert.equal(await page.evaluate(inSight, '[data-testid=source-hits-title]'), null);
  assert.equal(await page.evaluate(inSight, '[data-testid=source-hits] li'), null);
  assert.equal(await page.evaluate(inSight, current), null, 'the line clicked stays in sight');

  // The count gutter is as wide as its longest count, the rest is the code's.
  const widths = await page.evaluate(() => {
    const counts = [...document.querySelectorAll('[data-testid=source-text] .src-count')];
    const longest = counts.reduce((a, c) => (c.textContent.length > a.length ? c.textContent : a), '');
    const probe = document.createElement('span');
    probe.textContent = longest;
    probe.style.font = getComputedStyle(counts[0]).font;
    probe.style.whiteSpace = 'pre';
    document.body.append(probe);
    const text = probe.getBoundingClientRect().width;
    probe.remove();
    const ch = parseFloat(getComputedStyle(counts[0]).fontSize) * 0.7;
    return { longest, text, gutter: counts[0].getBoundingClientRect().width, ch };
  });
  assert.ok(widths.longest.length > 0, JSON.stringify(widths));
  assert.ok(widths.gutter <= widths.text + 2 * widths.ch, `the gutter takes ${widths.gutter} px for ${JSON.stringify(widths.longest)} (${widths.text} px)`);
  assert.deepEqual(errors, []);
});

test('with &src= the pane fetches the file the DWARF names from the site', { timeout: 120_000 }, async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const asked = [];
  await page.route('**/srcbase/**', (route) => {
    const p = new URL(route.request().url()).pathname;
    asked.push(p);
    const m = /\/srcbase\/programs\/([a-z_]+\.c)$/.exec(p);
    if (m && fs.existsSync(path.join(DIR, 'programs', m[1]))) {
      route.fulfill({ status: 200, contentType: 'text/plain', body: fs.readFileSync(path.join(DIR, 'programs', m[1])) });
    } else {
      route.fulfill({ status: 404, body: 'not found' });
    }
  });
  await page.goto(`${fx.server.url}?src=srcbase/`);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  const spot = positions()[1];
  await gotoLine(page, spot.traceLine);
  await expectLine(page, spot.traceLine, `l ${spot.traceLine}`);
  await page.keyboard.press('s');
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid=source-text] .src-line.current')?.getAttribute('data-src-line') === String(want),
    spot.srcLine,
    { timeout: 30_000 },
  );
  const text = await page.textContent(`[data-testid=source-text] [data-src-line="${spot.srcLine}"] .src-text`);
  const want = fs.readFileSync(path.join(DIR, 'programs/recursion.c'), 'utf8').split('\n')[spot.srcLine - 1];
  assert.equal(text, want);
  assert.ok(asked.at(-1).endsWith('/srcbase/programs/recursion.c'), asked.join(' '));
});

test('source files dropped on the pane are its text, not a new trace', { timeout: 120_000 }, async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  const spot = positions()[0];
  await gotoLine(page, spot.traceLine);
  await expectLine(page, spot.traceLine, `l ${spot.traceLine}`);
  await page.keyboard.press('s');
  await wantsFile(page, 'recursion.c');
  const text = fs.readFileSync(path.join(DIR, 'programs/recursion.c'), 'utf8');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'recursion.c', { type: 'text/plain' }));
    dt.items.add(new File(['\0\x01'], 'recursion.o'));
    const body = document.querySelector('[data-testid=source-body]');
    body.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid=source-text] .src-line.current')?.getAttribute('data-src-line') === String(want),
    spot.srcLine,
    { timeout: 30_000 },
  );
  // Still the same trace.
  assert.equal(await page.getAttribute('[data-testid=status]', 'data-state'), 'ready');
  assert.match(await page.textContent('[data-testid=file-summary]'), /recursion-aarch64-O1-fastmodel\.tarmac/);
});

test('an embedded viewer with panes=source goes to a source line the host names', { timeout: 120_000 }, async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const serve = (body, type) => (route) => route.fulfill({ status: 200, contentType: type, body });
  await page.route('**/host-src.html', serve(`<!doctype html><meta charset=utf-8>
<iframe id=v src="index.html?embed=1&panes=source" style="width:1200px;height:800px"></iframe>
<script>
  window.said = [];
  const v = document.getElementById('v');
  addEventListener('message', (e) => { if (e.source === v.contentWindow) window.said.push(e.data); });
  const ping = setInterval(() => v.contentWindow.postMessage('PING', '*'), 100);
  window.open_ = async (line) => {
    clearInterval(ping);
    const [trace, elf] = await Promise.all(['data/trace', 'data/elf'].map((u) => fetch(u).then((r) => r.arrayBuffer())));
    v.contentWindow.postMessage({ type: 'open', trace, elf, name: 'recursion.tarmac' }, '*');
  };
  window.goto_ = (source) => v.contentWindow.postMessage({ type: 'goto', source }, '*');
</script>`, 'text/html'));
  await page.route('**/data/trace', serve(fs.readFileSync(TRACE), 'application/octet-stream'));
  await page.route('**/data/elf', serve(fs.readFileSync(ELF), 'application/octet-stream'));
  await page.goto(`${fx.server.url}host-src.html`);
  await page.waitForFunction(() => window.said.includes('PONG'), null, { timeout: 30_000 });
  await page.evaluate(() => window.open_());
  await page.waitForFunction(() => window.said.some((m) => m?.type === 'state' && m.state === 'ready'), null, { timeout: 60_000 });
  // The first execution of a line, by brute force over the trace text.
  const spot = positions()[1];
  const lines = fs.readFileSync(TRACE, 'utf8').split('\n');
  let first = null;
  for (let i = 0; i < lines.length && first === null; i++) {
    const m = /\bIT \(\d+\) ([0-9a-f]+)/.exec(lines[i]);
    if (!m) continue;
    const w = addr2line(m[1]);
    if (w.file.endsWith('recursion.c') && w.line === spot.srcLine) first = i + 1;
  }
  assert.ok(first);
  await page.evaluate((s) => window.goto_(s), `recursion.c:${spot.srcLine}`);
  await page.waitForFunction((line) => window.said.some((m) => m?.type === 'position' && m.line === line), first, { timeout: 30_000 });
  const frame = page.frameLocator('#v');
  await frame.locator('[data-testid=source-pane-title]').filter({ hasText: `recursion.c:${spot.srcLine}` }).waitFor({ timeout: 30_000 });
  // A line that never runs is said so to the host.
  await page.evaluate(() => window.goto_('recursion.c:1'));
  await page.waitForFunction(() => window.said.some((m) => m?.type === 'error' && /recursion\.c:1/.test(m.message)), null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
});

/** Per source file of an lcov tracefile: its figures and first line never run. */
function lcovFiles(text) {
  const files = new Map();
  for (const record of text.split('end_of_record').filter((r) => r.includes('SF:'))) {
    const field = (k) => Number(new RegExp(`^${k}:(\\d+)$`, 'm').exec(record)[1]);
    const never = [...record.matchAll(/^DA:(\d+),0$/gm)].map((m) => Number(m[1]));
    files.set(/^SF:(.*)$/m.exec(record)[1], {
      lines: `${field('LH')}/${field('LF')}`,
      functions: `${field('FNH')}/${field('FNF')}`,
      branches: `${field('BRH')}/${field('BRF')}`,
      firstNever: never.length ? Math.min(...never) : null,
    });
  }
  return files;
}

test('the Coverage tab has the CLI figures and opens a file at its first line never run', { timeout: 180_000 }, async (t) => {
  const info = path.join(fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'tl-cov-')), 'cov.info');
  execFileSync(CLI, ['coverage', '--image', ELF, '--lcov', info, TRACE], { encoding: 'utf8' });
  const want = lcovFiles(fs.readFileSync(info, 'utf8'));
  assert.ok(want.size > 0);
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.click('[data-testid=open-reports]');
  await page.click('[data-testid=tab-coverage]', { timeout: 60_000 });
  await page.waitForSelector('[data-testid=coverage-files]', { timeout: 60_000 });
  const rows = await page.$$eval('[data-testid=coverage-file]', (trs) =>
    trs.map((tr) => {
      const fig = (k) => tr.querySelector(`[data-figure=${k}]`)?.textContent.replace(/,/g, '').split(' ')[0];
      const first = tr.querySelector('[data-figure=first-unexecuted]')?.textContent;
      return { name: tr.dataset.name, lines: fig('lines'), functions: fig('functions'), branches: fig('branches'), firstNever: /^\d+$/.test(first) ? Number(first) : null };
    }),
  );
  const shown = new Map(rows.map((r) => [r.name, r]));
  for (const [file, w] of want) {
    const r = shown.get(file);
    assert.ok(r, `${file} is listed`);
    assert.deepEqual({ lines: r.lines, functions: r.functions, branches: r.branches === '–' ? '0/0' : r.branches, firstNever: r.firstNever }, w, file);
  }
  // recursion.c's row: the source pane opens at its first line never run.
  const [file, w] = [...want].find(([f]) => f.endsWith('recursion.c'));
  assert.ok(w.firstNever, 'recursion.c has a line that never ran');
  await page.click(`[data-testid=coverage-file][data-name="${file}"]`);
  await wantsFile(page, 'recursion.c');
  await page.setInputFiles('[data-testid=source-files-input]', SOURCES);
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid=source-text] .src-line.current')?.getAttribute('data-src-line') === String(want),
    w.firstNever,
    { timeout: 30_000 },
  );
  const title = await page.textContent('[data-testid=source-pane-title]');
  assert.ok(title.includes(`recursion.c:${w.firstNever}`), title);
  const line = await page.$(`[data-testid=source-text] [data-src-line="${w.firstNever}"]`);
  assert.equal(Number((await line.getAttribute('data-count')) ?? 0), 0);
  assert.deepEqual(errors, []);
});
