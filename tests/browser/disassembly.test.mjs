// The disassembly pane (`i`) as a person uses it: drop an A32 trace and
// its ELF, go to the first execution of memcpy, press `i`. The pane lists
// memcpy with the position's instruction marked, each instruction's count
// and failed-condition count as the trace text has them (counted here, line
// by line), the instructions never run greyed; clicking one goes to its
// next execution, which the pane then marks.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, expectLine, gotoLine, pageFixture } from './harness.mjs';

const fx = pageFixture();
const BASE = path.join(ROOT, 'tests/data/tracegen/quicksort-arm-O2-fastmodel-2M');
const TRACE = `${BASE}.tarmac`;
const ELF = `${BASE}.elf`;

/** memcpy's address, as binutils' nm gives it. */
function memcpy() {
  const out = execFileSync('arm-none-eabi-nm', [ELF], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => / T memcpy$/.test(l));
  return parseInt(line.split(' ')[0], 16);
}

/** Per address: executed (`IT`) and failed (`IS`) counts, and the line
 * numbers of its executions. */
function textCounts() {
  const executed = new Map();
  const failed = new Map();
  const lines = new Map();
  fs.readFileSync(TRACE, 'utf8').split('\n').forEach((text, i) => {
    const m = /\b(IT|IS) \(\d+\) ([0-9a-f]+)/.exec(text);
    if (!m) return;
    const addr = parseInt(m[2], 16);
    const counts = m[1] === 'IT' ? executed : failed;
    counts.set(addr, (counts.get(addr) ?? 0) + 1);
    if (m[1] === 'IT') lines.set(addr, [...(lines.get(addr) ?? []), i + 1]);
  });
  return { executed, failed, lines };
}

/** The pane's rows as shown: address, count, failed count, marked, greyed. */
function rows(page) {
  return page.$$eval('[data-testid=disassembly-row]', (trs) =>
    trs.map((tr) => ({
      addr: parseInt(tr.dataset.addr, 16),
      count: Number(tr.querySelector('[data-testid=disassembly-count]').textContent.replace(/\D/g, '')),
      failed: Number(tr.querySelector('[data-testid=disassembly-failed]').textContent.replace(/\D/g, '') || '0'),
      here: tr.dataset.here === 'true',
      opacity: Number(getComputedStyle(tr).opacity),
    })),
  );
}

test('the disassembly pane marks the position, counts each instruction, greys what never ran and goes to a clicked one', { timeout: 180_000 }, async (t) => {
  const start = memcpy();
  const text = textCounts();
  const first = text.lines.get(start)[0];
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
  await gotoLine(page, first);
  await expectLine(page, first, `l ${first}`);
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('i');
  await page.waitForSelector(`[data-testid=disassembly-row][data-here=true][data-addr="0x${start.toString(16)}"]`, { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid=disassembly-pane-title]'), /memcpy/);

  const shown = await rows(page);
  assert.ok(shown.length > 10, `${shown.length} rows`);
  for (const r of shown) {
    assert.equal(r.count, text.executed.get(r.addr) ?? 0, `count at ${r.addr.toString(16)}`);
    assert.equal(r.failed, text.failed.get(r.addr) ?? 0, `failed at ${r.addr.toString(16)}`);
    const never = r.count === 0 && r.failed === 0;
    assert.equal(r.opacity < 1, never && !r.here, `greyed at ${r.addr.toString(16)}`);
  }
  assert.ok(shown.some((r) => r.failed > 0), 'a failed count is shown');
  assert.ok(shown.some((r) => r.opacity < 1), 'a row is greyed');

  // A click on an instruction run later goes to its next execution.
  const target = shown.find((r) => !r.here && (text.lines.get(r.addr) ?? []).some((l) => l > first));
  const next = text.lines.get(target.addr).find((l) => l > first);
  await page.click(`[data-testid=disassembly-row][data-addr="0x${target.addr.toString(16)}"]`);
  await expectLine(page, next, `click at ${target.addr.toString(16)}`);
  await page.waitForSelector(`[data-testid=disassembly-row][data-here=true][data-addr="0x${target.addr.toString(16)}"]`);
  assert.deepEqual(errors, []);
});
