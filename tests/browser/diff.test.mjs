// Trace comparison in the page: a trace open, another chosen with
// "Compare with another trace". The page must report what `tarmac-lens diff`
// reports (the same first divergences: instruction, line in each trace,
// fields with both values, or no divergence in the same number of
// instructions), and show both traces side by side at each divergence's
// line, moving both with the next/previous buttons.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { CLI, closeChecked, expectLine, pageFixture, ROOT } from './harness.mjs';

const FASTMODEL = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
const ES = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-es-2M.tarmac');
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;

const fx = pageFixture();

/** `tarmac-lens diff ARGS`' output: it exits 1 when the traces diverge, 0 when not. */
function runDiff(args) {
  const r = spawnSync(CLI, ['diff', ...args], { encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `diff exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** `tarmac-lens diff A B --max 100`, parsed: divergences with their lines and fields. */
function cliDiff(a, b) {
  const out = runDiff(['--max', '100', a, b]);
  const none = /^no divergence in (\d+) instructions$/m.exec(out);
  if (none) return { compared: Number(none[1]), divergences: [] };
  const divergences = [];
  for (const line of out.split('\n')) {
    let m;
    if ((m = /^divergence at instruction (\d+):$/.exec(line))) {
      divergences.push({ instruction: Number(m[1]), lines: [], fields: [] });
    } else if ((m = /^ {2}\S+: line (\d+) /.exec(line))) {
      divergences.at(-1).lines.push(Number(m[1]));
    } else if ((m = /^ {2}(.+): ([0-9a-f?]+) vs ([0-9a-f?]+)$/.exec(line))) {
      divergences.at(-1).fields.push([m[1], m[2], m[3]]);
    } else if ((m = /^ {2}(pc|encoding) differs$/.exec(line))) {
      divergences.at(-1).fields.push([m[1]]);
    } else if (line.trim()) {
      throw new Error(`unexpected CLI line ${JSON.stringify(line)}`);
    }
  }
  return { divergences };
}

/** The divergence the page shows: instruction, lines and fields. */
async function shown(page) {
  return page.$eval('[data-testid=divergence]', (d) => ({
    instruction: Number(d.dataset.instruction),
    lines: [Number(d.dataset.lineA), Number(d.dataset.lineB)],
    fields: [...d.querySelectorAll('[data-testid=diff-field]')].map((r) =>
      [...r.children].map((c) => c.textContent),
    ),
  }));
}

/** Both trace views have their cursor on these lines. */
async function viewsAt(page, [a, b]) {
  await page.waitForFunction(
    ([a, b]) =>
      document.querySelector('[data-testid=diff-view-a] .trace-row.current')?.dataset.line === String(a) &&
      document.querySelector('[data-testid=diff-view-b] .trace-row.current')?.dataset.line === String(b),
    [a, b],
    { timeout: 30_000 },
  );
}

/** The trace with the last hex digit of a register write near `fraction` of it changed. */
function changedAt(lines, fraction) {
  for (let i = Math.floor(lines.length * fraction); i < lines.length; i++) {
    const m = /^(.*\bR X\d+ [0-9A-Fa-f]{15})([0-9A-Fa-f])$/.exec(lines[i]);
    if (m) {
      lines[i] = m[1] + (m[2] === '0' ? '1' : '0');
      return i + 1;
    }
  }
  throw new Error(`no register write after ${fraction}`);
}

test('the page compares two traces as the CLI does and shows both at each divergence', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-diff-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A copy of the other tool's trace, so the lines differ between the two.
  const lines = fs.readFileSync(ES, 'latin1').split('\n');
  const changed = [changedAt(lines, 0.4), changedAt(lines, 0.6)];
  const modified = path.join(dir, 'quicksort-modified.tarmac');
  fs.writeFileSync(modified, lines.join('\n'), 'latin1');

  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1600, height: 1000 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  t.after(async () => {
    await closeChecked(page, problems);
  });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', FASTMODEL);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });

  // Two tools, one program: no divergence, over as many instructions as the CLI compares.
  const same = cliDiff(FASTMODEL, ES);
  assert.deepEqual(same.divergences, []);
  await page.setInputFiles('[data-testid=diff-input]', ES);
  const result = await page.waitForSelector('[data-testid=diff-result]', { timeout: 60_000 });
  assert.equal(await result.getAttribute('data-divergences'), '0');
  assert.equal(await result.getAttribute('data-compared'), String(same.compared));
  assert.equal((await result.textContent()).trim(), `No divergence in ${same.compared.toLocaleString('en-US')} instructions.`);
  assert.equal(await page.locator('[data-testid=diff-view-b]').count(), 0);

  // A copy of the ES trace with two register values changed: the same
  // divergences as the CLI's, at different lines in each trace.
  const expected = cliDiff(FASTMODEL, modified);
  assert.equal(expected.divergences.length, 2, JSON.stringify(expected));
  assert.notEqual(expected.divergences[0].lines[0], expected.divergences[0].lines[1]);
  // The changed lines are register writes of the divergent instructions.
  for (const [i, d] of expected.divergences.entries()) {
    assert.ok(d.lines[1] < changed[i] && changed[i] - d.lines[1] < 40, `${d.lines} vs ${changed[i]}`);
  }
  await page.setInputFiles('[data-testid=diff-input]', modified);
  await page.waitForSelector('[data-testid=diff-result][data-divergences="2"]', { timeout: 60_000 });
  assert.match(await page.textContent('[data-testid=diff-other]'), /quicksort-modified\.tarmac/);
  assert.match(await page.textContent('[data-testid=diff-count]'), /Divergence 1 of 2 divergences/);
  assert.deepEqual(await shown(page), expected.divergences[0]);
  await viewsAt(page, expected.divergences[0].lines);
  // The divergent instructions' rows are marked in both views.
  for (const [side, k] of [['a', 0], ['b', 1]]) {
    const marked = await page.$$eval(`[data-testid=diff-view-${side}] .trace-row.diverged`, (rows) =>
      rows.map((r) => Number(r.dataset.rowLine)),
    );
    assert.deepEqual(marked, [expected.divergences[0].lines[k]], side);
  }
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'diff.png'), fullPage: true });

  await page.click('[data-testid=diff-next]');
  await page.waitForSelector(`[data-testid=divergence][data-instruction="${expected.divergences[1].instruction}"]`);
  assert.deepEqual(await shown(page), expected.divergences[1]);
  await viewsAt(page, expected.divergences[1].lines);
  assert.ok(await page.isDisabled('[data-testid=diff-next]'));

  await page.click('[data-testid=diff-prev]');
  await viewsAt(page, expected.divergences[0].lines);

  // The list names each divergence; picking one moves both views there.
  const items = await page.$$eval('[data-testid=diff-item]', (li) => li.map((l) => l.textContent));
  assert.deepEqual(
    items,
    expected.divergences.map(
      (d) => `instruction ${d.instruction}, lines ${d.lines[0]} / ${d.lines[1]}: ${d.fields.map((f) => f[0]).join(', ')}`,
    ),
  );
  await page.click('[data-testid=diff-item] >> nth=1');
  await viewsAt(page, expected.divergences[1].lines);
  assert.deepEqual(await shown(page), expected.divergences[1]);

  // Closing the comparison leaves the open trace alone.
  await page.click('[data-testid=diff-close]');
  assert.equal(await page.locator('[data-testid=diff-view-b]').count(), 0);
  assert.equal(await page.locator('[data-testid=diff-result]').count(), 0);
  await page.waitForSelector('[data-testid=status][data-state=ready]');
});

test('a trace that stops early is reported where it ends, as the CLI does', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-diff-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const lines = fs.readFileSync(FASTMODEL, 'latin1').split('\n');
  const cut = path.join(dir, 'quicksort-cut.tarmac');
  // Cut before an instruction, so the instructions it keeps are whole.
  let end = Math.floor(lines.length / 2);
  while (!/ IT \(/.test(lines[end])) end++;
  fs.writeFileSync(cut, lines.slice(0, end).join('\n') + '\n', 'latin1');
  const out = runDiff([FASTMODEL, cut]);
  const instruction = Number(/^divergence at instruction (\d+):$/m.exec(out)[1]);
  const lineA = Number(/^ {2}\S+: line (\d+) /m.exec(out)[1]);
  assert.match(out, /^ {2}\S+: \(trace ended\)$/m);
  const ended = Number(/^ {2}\S*quicksort-cut\.tarmac ends after (\d+) instructions$/m.exec(out)[1]);

  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', FASTMODEL);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.setInputFiles('[data-testid=diff-input]', cut);
  await page.waitForSelector('[data-testid=diff-result][data-divergences="1"]', { timeout: 60_000 });
  const d = await page.$eval('[data-testid=divergence]', (d) => ({ ...d.dataset }));
  assert.equal(Number(d.instruction), instruction);
  assert.equal(Number(d.lineA), lineA);
  assert.equal(d.lineB, undefined);
  assert.equal((await page.textContent('[data-testid=diff-step-b]')).trim(), '(trace ended)');
  const fields = await page.$$eval('[data-testid=diff-field]', (rows) =>
    rows.map((r) => [...r.children].map((c) => c.textContent)),
  );
  assert.deepEqual(fields, [['end of trace', '', `ends after ${ended.toLocaleString('en-US')} instructions`]]);
  await expectLine(page, lineA, 'view A at the divergence', {
    within: '[data-testid=diff-view-a]',
    timeout: 30_000,
    // Where view A is instead: its current line, the rows it shows, the
    // fragment and its status line.
    seen: (page) =>
      page.evaluate(() => {
        const a = document.querySelector('[data-testid=diff-view-a]');
        const rows = [...(a?.querySelectorAll('[data-row-line]') ?? [])].map((r) => Number(r.dataset.rowLine));
        return {
          current: a?.querySelector('.trace-row.current')?.dataset.line,
          rows: rows.length ? [rows[0], rows[rows.length - 1]] : [],
          hash: location.hash,
          status: a?.querySelector('[data-testid=status-line]')?.textContent,
        };
      }),
  });
  // A file dropped (or chosen) as before replaces the open trace, and the
  // comparison, which was with the old one, goes.
  await page.setInputFiles('[data-testid=file-input]', ES);
  await page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent.includes('quicksort-aarch64-O2-es-2M'));
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  assert.equal(await page.locator('[data-testid=diff-result]').count(), 0);
  assert.equal(await page.locator('[data-testid=diff-view-b]').count(), 0);
  assert.equal(await page.locator('[data-testid=diff-other]').count(), 0);
});

test('side by side at 1440×900 both traces show every register, name their calls with the ELF and draw their timelines', { timeout: 180_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-diff-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const lines = fs.readFileSync(FASTMODEL, 'latin1').split('\n');
  changedAt(lines, 0.4);
  const modified = path.join(dir, 'quicksort-modified.tarmac');
  fs.writeFileSync(modified, lines.join('\n'), 'latin1');
  const [divergence] = cliDiff(FASTMODEL, modified).divergences;
  const nodes = JSON.parse(execFileSync(CLI, ['index', '--no-index', modified], { encoding: 'utf8' })).nodes;

  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  t.after(async () => {
    await closeChecked(page, problems);
  });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [FASTMODEL, FASTMODEL.replace(/\.tarmac$/, '.elf')]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.setInputFiles('[data-testid=diff-input]', modified);
  await page.waitForSelector('[data-testid=diff-result][data-divergences="1"]', { timeout: 60_000 });
  await viewsAt(page, divergence.lines);

  // Trace B names its calls as A does: the open trace's ELF is its too.
  const names = (side) => page.$$eval(`[data-testid=diff-view-${side}] [data-testid=stack-frame]`, (f) => f.map((e) => e.dataset.name));
  await page.waitForFunction(() => {
    const names = (side) => [...document.querySelectorAll(`[data-testid=diff-view-${side}] [data-testid=stack-frame]`)].map((e) => e.dataset.name);
    const [a, b] = [names('a'), names('b')];
    return a.length > 2 && JSON.stringify(a) === JSON.stringify(b);
  }, null, { timeout: 30_000 }).catch(async () => assert.fail(`A: ${await names('a')}, B: ${await names('b')}`));
  assert.ok((await names('b')).every((n) => !/^0x/.test(n)), `B's calls: ${await names('b')}`);

  // Every register value of both, each whole within its pane's width (a
  // narrow pane shows fewer columns, never a cut one).
  for (const side of ['a', 'b']) {
    const cut = await page.$eval(`[data-testid=diff-view-${side}] [data-testid=registers-core]`, (pane) => {
      const body = pane.querySelector('.registers').parentElement.getBoundingClientRect();
      const regs = [...pane.querySelectorAll('.reg')];
      return {
        regs: regs.length,
        cut: regs.filter((r) => {
          const b = r.getBoundingClientRect();
          return b.left < body.left - 0.5 || b.right > body.right + 0.5;
        }).map((r) => r.querySelector('.reg-name').textContent),
      };
    });
    assert.ok(cut.regs >= 34, `${side}: ${cut.regs} registers`);
    assert.deepEqual(cut.cut, [], `${side}: registers cut at the pane's edge`);
  }

  // Trace B's timeline covers its whole trace and draws its call depth.
  await page.waitForSelector(`[data-testid=diff-view-b] [data-testid=timeline][data-nodes="${nodes}"]`, { timeout: 30_000 });
  const drawn = await page.$eval('[data-testid=diff-view-b] [data-testid=timeline-canvas]', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let blue = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && d[i + 2] > 150 && d[i] < 140) blue++;
    return blue;
  });
  assert.ok(drawn > 100, `${drawn} pixels of call depth`);
});
