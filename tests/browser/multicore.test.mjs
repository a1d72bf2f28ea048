// A multi-core trace in the page: two generated single-core traces (cpu0:
// quicksort, cpu1: recursion) interleaved by timestamp, as a multi-core
// model writes them. The page offers the cores; following one shows that
// core's registers, computed here from its own trace text.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { closeChecked, pageFixture, ROOT } from './harness.mjs';

const CPU0 = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac';
const CPU1 = 'tests/data/multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac';
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;

const fx = pageFixture();

/** Groups of lines by leading timestamp, merged in time order (cpu0 first at a tie). */
function merge(a, b) {
  const groups = (text, who) => {
    const out = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      const m = /^(\d+) /.exec(line);
      if (m || !out.length) out.push({ time: m ? Number(m[1]) : 0, who, seq: out.length, lines: [line] });
      else out[out.length - 1].lines.push(line);
    }
    return out;
  };
  const all = [...groups(a, 0), ...groups(b, 1)];
  all.sort((x, y) => x.time - y.time || x.who - y.who || x.seq - y.seq);
  return all.flatMap((g) => g.lines).join('\n') + '\n';
}

/** Final value of each register a trace writes (`... cpuN R X0 VALUE`). */
function finalRegisters(text) {
  const regs = {};
  for (const line of text.split('\n')) {
    const m = /^\d+ clk cpu\d+ R (\S+) ([0-9a-fA-F_]+)$/.exec(line);
    if (m) regs[m[1].toLowerCase()] = m[2].replaceAll('_', '').toLowerCase();
  }
  return regs;
}

test('the page offers the cores of a multi-core trace and follows the one picked', async (t) => {
  const a = fs.readFileSync(path.join(ROOT, CPU0), 'latin1');
  const b = fs.readFileSync(path.join(ROOT, CPU1), 'latin1');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-multicore-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const merged = path.join(dir, 'two-cores.tarmac');
  fs.writeFileSync(merged, merge(a, b), 'latin1');

  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  t.after(async () => {
    await closeChecked(page, problems);
  });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', merged);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });

  const options = await page.$$eval('[data-testid=core-select] option', (os) => os.map((o) => o.value));
  assert.deepEqual(options, ['', 'cpu0', 'cpu1']);

  // Registers whose final values differ between the programs tell the cores apart.
  const own0 = finalRegisters(a);
  const own1 = finalRegisters(b);
  const telling = Object.keys(own1).filter((r) => /^x\d+$/.test(r) && own0[r] && own1[r] !== own0[r]);
  assert.ok(telling.length >= 3, `registers that differ: ${telling}`);

  const atEnd = async () => {
    await page.click('[data-testid=trace-pane]');
    await page.keyboard.press('End');
    await page.waitForFunction(() => location.hash.includes('line='));
  };
  const showRegisters = async (want) => {
    await page.waitForFunction(
      (want) => want.every(([r, v]) => document.querySelector(`[data-reg=${r}]`)?.textContent === v),
      want,
      { timeout: 30_000 },
    );
  };

  await page.selectOption('[data-testid=core-select]', 'cpu1');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('cpu') === 'cpu1');
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  assert.equal(await page.inputValue('[data-testid=core-select]'), 'cpu1');
  await atEnd();
  await showRegisters(telling.map((r) => [r, own1[r]]));
  const row = await page.textContent('[data-testid=trace-pane] .trace-row.current');
  assert.match(row, /cpu1 IT \(4568\)/);
  // The other core's lines among cpu1's are dimmed, and only they.
  const dimmed = await page.$$eval('[data-testid=trace-pane] .trace-row', (rows) =>
    rows.map((r) => [/ cpu0 /.test(r.textContent), !!r.querySelector('.hl.other-core')]),
  );
  assert.ok(dimmed.some(([cpu0]) => cpu0), 'cpu0 lines in view');
  for (const [cpu0, dim] of dimmed) assert.equal(dim, cpu0);
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'multicore.png') });

  await page.selectOption('[data-testid=core-select]', 'cpu0');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('cpu') === 'cpu0');
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await atEnd();
  await showRegisters(telling.map((r) => [r, own0[r]]));

  // All cores: the one register file takes every line; the last instruction is cpu0's.
  await page.selectOption('[data-testid=core-select]', '');
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('cpu'));
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await atEnd();
  await page.waitForFunction(() =>
    /cpu0 IT/.test(document.querySelector('[data-testid=trace-pane] .trace-row.current')?.textContent ?? ''),
  );
});

test('a single-core trace offers no core picker', async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, CPU1));
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  assert.equal(await page.locator('[data-testid=core-picker]').count(), 0);
});
