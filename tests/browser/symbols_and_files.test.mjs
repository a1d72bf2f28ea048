// What a new user met first (issue: wrong names on Thumb traces, files
// accepted silently): the page names every call target as the CLI's call
// tree does on Thumb, A32 and A64 traces; a new ELF renames the rows on
// screen and one for another architecture is said to be wrong; an ELF
// alone is kept and said so; a file that is no trace, and an empty one,
// are named for what they are.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { CLI, closeChecked, expectLine, gotoLine, pageFixture, ROOT } from './harness.mjs';

const fx = pageFixture();
const GEN = path.join(ROOT, 'tests/data/tracegen');

async function openPage(t) {
  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // Errors, and warnings of the page's own code (wasm-bindgen's about how
    // a worker starts its wasm), not the browser's about preloads.
    if (m.type() === 'error' || (m.type() === 'warning' && /deprecated/i.test(m.text()))) {
      problems.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  t.after(async () => {
    await closeChecked(page, problems, 'the page logged errors or warnings');
  });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  return page;
}

/** One call per call site and callee, from the CLI's call tree with the
 * image: { callLine, entryLine, name }. */
function callSites(trace, elf) {
  const out = execFileSync(CLI, ['calltree', '--no-index', '--image', elf, trace], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const calls = [];
  const seen = new Set();
  let site = null;
  for (const line of out.split('\n')) {
    const m = /^\s*([-o]) t:\d+ l:(\d+) pc:(\S+) - t:\d+ l:(\d+) pc:\S+(?: : (.*))?$/.exec(line);
    if (!m) continue;
    if (m[1] === '-') {
      site = { callLine: Number(m[2]), pc: m[3] };
    } else if (site) {
      const name = m[5] ?? '';
      const key = `${site.pc} ${name}`;
      if (!seen.has(key)) {
        seen.add(key);
        calls.push({ callLine: site.callLine, entryLine: Number(m[2]), name });
      }
      site = null;
    }
  }
  return calls;
}

/** The symbol part: the CLI writes an entry inside a function as
 * `name + 0xADDRESS`, the page as `name + 0xOFFSET`. */
const symbolOf = (name) => name.split(' + ')[0];

async function rowSymbol(page, line) {
  return page.evaluate((line) => {
    const s = document.querySelector(`.trace-row[data-row-line="${line}"] [data-testid=branch-symbol]`);
    return s ? s.textContent.replace(/^\s*→\s*/, '') : null;
  }, line);
}

async function stackNames(page) {
  return page.locator('[data-testid=stack-pane] [data-testid=stack-frame]').evaluateAll((b) => b.map((e) => e.dataset.name));
}

describe('names from the ELF image', () => {
  for (const base of ['quicksort-thumb-O2-fastmodel-2M', 'quicksort-thumb-O2-gem5-2M', 'quicksort-arm-O2-fastmodel-2M', 'quicksort-aarch64-O2-fastmodel-2M']) {
    test(`${base}: every call target is named as the CLI's call tree names it`, async (t) => {
      const trace = path.join(GEN, `${base}.tarmac`);
      const elf = path.join(GEN, `${base}.elf`);
      const calls = callSites(trace, elf);
      assert.ok(calls.length > 10, `${calls.length} call sites`);
      const page = await openPage(t);
      await page.setInputFiles('[data-testid=file-input]', [trace, elf]);
      await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
      await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
      assert.equal(await page.$('[data-testid=elf-warning]'), null, 'the right image is not warned about');
      let named = 0;
      for (const c of calls) {
        await gotoLine(page, c.callLine);
        await expectLine(page, c.callLine, `l ${c.callLine}`);
        const symbol = await rowSymbol(page, c.callLine);
        // A branch to a register names nothing; one to an address names
        // the callee.
        if (symbol !== null) {
          assert.equal(symbolOf(symbol), symbolOf(c.name), `${base} line ${c.callLine}`);
          if (!c.name.includes(' + ')) assert.equal(symbol, c.name, `${base} line ${c.callLine}`);
          named += 1;
        }
        // At the callee's entry its name is the innermost frame, in the
        // stack pane and the view's header.
        await gotoLine(page, c.entryLine);
        await expectLine(page, c.entryLine, `l ${c.entryLine}`);
        await page.waitForFunction(
          (want) => {
            const frames = [...document.querySelectorAll('[data-testid=stack-pane] [data-testid=stack-frame]')];
            return frames.length > 0 && frames[0].dataset.name.split(' + ')[0] === want;
          },
          symbolOf(c.name),
          { timeout: 30_000 },
        ).catch(async () => assert.fail(`${base} line ${c.entryLine}: stack ${JSON.stringify(await stackNames(page))}, CLI: ${c.name}`));
        const header = await page.locator('[data-testid=call-stack] .frame').evaluateAll((b) => b.map((e) => e.textContent));
        assert.equal(symbolOf(header.at(-1).replace(/^› /, '')), symbolOf(c.name), `${base} header at line ${c.entryLine}`);
      }
      assert.ok(named > 5, `${base}: ${named} call rows named`);
    });
  }

  test('another ELF renames the rows on screen; one for another architecture is said to be wrong', async (t) => {
    const trace = path.join(GEN, 'quicksort-aarch64-O2-fastmodel-2M.tarmac');
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', [trace, path.join(GEN, 'quicksort-aarch64-O2-fastmodel-2M.elf')]);
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    // The first call to run_iteration, on screen.
    const calls = callSites(trace, path.join(GEN, 'quicksort-aarch64-O2-fastmodel-2M.elf'));
    const call = calls.find((c) => c.name === 'run_iteration');
    await gotoLine(page, call.callLine);
    await expectLine(page, call.callLine, 'the call');
    assert.equal(await rowSymbol(page, call.callLine), 'run_iteration');
    // The Thumb program's image: same number of symbols, other addresses.
    await page.setInputFiles('[data-testid=elf-input]', path.join(GEN, 'quicksort-thumb-O2-fastmodel-2M.elf'));
    await page.waitForSelector('[data-testid=elf-warning]', { timeout: 30_000 });
    const warning = await page.textContent('[data-testid=elf-warning]');
    assert.match(warning, /AArch32/);
    assert.match(warning, /AArch64/);
    await page.waitForFunction((line) => {
      const s = document.querySelector(`.trace-row[data-row-line="${line}"] [data-testid=branch-symbol]`);
      return !s || !s.textContent.includes('run_iteration');
    }, call.callLine, { timeout: 30_000 });
    // Back to the right one: the name and no warning.
    await page.setInputFiles('[data-testid=elf-input]', path.join(GEN, 'quicksort-aarch64-O2-fastmodel-2M.elf'));
    await page.waitForFunction(() => !document.querySelector('[data-testid=elf-warning]'), null, { timeout: 30_000 });
    await page.waitForFunction(
      (line) => document.querySelector(`.trace-row[data-row-line="${line}"] [data-testid=branch-symbol]`)?.textContent.includes('run_iteration'),
      call.callLine,
      { timeout: 30_000 },
    );
  });

  test('an ELF chosen alone is kept and said so; its trace then opens named', async (t) => {
    const page = await openPage(t);
    const elf = path.join(GEN, 'quicksort-thumb-O2-fastmodel-2M.elf');
    await page.setInputFiles('[data-testid=file-input]', elf);
    await page.waitForSelector('[data-testid=elf-alone]');
    // The symbols the reference tools keep, counted by binutils' readelf:
    // functions, objects and labels with a name, but no mapping symbols.
    const symbols = execFileSync('readelf', ['-sW', elf], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length >= 8 && /^\d+:$/.test(f[0]) && ['NOTYPE', 'OBJECT', 'FUNC'].includes(f[3]))
      .filter((f) => ['LOCAL', 'GLOBAL', 'WEAK'].includes(f[4]) && !/^\$[atdx](\.|$)/.test(f[7])).length;
    assert.equal(symbols, 23);
    assert.equal(
      await page.textContent('[data-testid=elf-alone]'),
      `ELF image quicksort-thumb-O2-fastmodel-2M.elf loaded (${symbols} symbols); now drop its trace.`,
    );
    await page.setInputFiles('[data-testid=file-input]', path.join(GEN, 'quicksort-thumb-O2-fastmodel-2M.tarmac'));
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    assert.equal(await page.textContent('[data-testid=elf-symbols]'), `${symbols} symbols loaded`);
    assert.equal(await page.$('[data-testid=elf-alone]'), null);
    // Where the issue saw `tg_exit + 0xf` and `quicksort + 0x4f`: tg_main's
    // call of run_iteration, and run_iteration's branch to prog_quicksort.
    await gotoLine(page, 1445);
    await expectLine(page, 1445, 'l 1445');
    assert.equal(await rowSymbol(page, 1443), 'run_iteration');
    assert.equal(await rowSymbol(page, 1445), 'prog_quicksort');
    const header = await page.locator('[data-testid=call-stack] .frame').evaluateAll((b) => b.map((e) => e.textContent));
    assert.deepEqual(header, ['› tg_main', '› run_iteration']);
  });

  test('a file that is no ELF image, chosen as one, is refused with why', async (t) => {
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', path.join(GEN, 'quicksort-thumb-O2-fastmodel-2M.tarmac'));
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.setInputFiles('[data-testid=elf-input]', path.join(ROOT, 'docs/screenshot.png'));
    await page.waitForSelector('[data-testid=elf-error]');
    assert.match(await page.textContent('[data-testid=elf-error]'), /not an ELF file/);
    // A load offset that is no number is refused as it is typed.
    await page.fill('[data-testid=elf-offset]', 'zz');
    await page.press('[data-testid=elf-offset]', 'Tab');
    await page.waitForSelector('[data-testid=elf-offset-error]');
    assert.match(await page.textContent('[data-testid=elf-offset-error]'), /"zz"/);
    assert.equal(await page.getAttribute('[data-testid=elf-offset]', 'aria-invalid'), 'true');
  });
});

describe('files that are not traces', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-not-traces-'));
  const files = {
    random: path.join(dir, 'random.bin'),
    picture: path.join(dir, 'picture.png'),
    notes: path.join(dir, 'notes.txt'),
    empty: path.join(dir, 'empty.tarmac'),
  };
  // A gzip trace is read in place now (compressed.test.mjs).
  const trace = fs.readFileSync(path.join(GEN, 'quicksort-arm-O2-fastmodel-2M.tarmac'));
  let seed = 0x2545f491;
  fs.writeFileSync(
    files.random,
    Buffer.from(Array.from({ length: 100_000 }, () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed & 0xff;
    })),
  );
  fs.copyFileSync(path.join(ROOT, 'docs/screenshot.png'), files.picture);
  fs.writeFileSync(files.notes, 'Build notes\n'.concat(Array.from({ length: 60 }, (_, i) => `step ${i}: compile the thing\n`).join('')));
  fs.writeFileSync(files.empty, '');

  async function open(t, file) {
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', file);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=file-notice]');
    return page;
  }

  // Bytes that are not text show no rows (they would be garbage); text in
  // no trace format keeps its rows, which may say what it is.
  const cases = [
    ['random', 'binary', /random\.bin holds binary data, not a Tarmac trace/, false],
    ['picture', 'document', /picture\.png is a PNG image file, not a Tarmac trace/, false],
    ['notes', 'text', /notes\.txt does not look like a Tarmac trace: line 1 \("Build notes"\) is in no trace format/, true],
  ];
  for (const [key, kind, message, rows] of cases) {
    test(`${key}: named for what it is in the browse view, with the unparsed count and a link to the list`, async (t) => {
      const page = await open(t, files[key]);
      assert.equal(await page.getAttribute('[data-testid=file-notice]', 'data-kind'), kind);
      assert.match(await page.textContent('[data-testid=file-notice]'), message);
      // Read to its end (the notice counts its lines): what is shown now stays.
      await page.waitForSelector('[data-testid=file-notice-unparsed]');
      if (rows) await page.waitForSelector('.trace-row');
      assert.equal(await page.locator('.trace-row').count() > 0, rows, `${key}: rows shown`);
      assert.equal(await page.locator('[data-testid=browser]').count() > 0, rows, `${key}: a trace browser`);
      // The CLI refuses such a file: the lines are counted here.
      const bytes = fs.readFileSync(files[key]);
      const lines = bytes.toString('latin1').split('\n').length - (bytes.at(-1) === 0x0a ? 1 : 0);
      await page.waitForSelector('[data-testid=file-notice-unparsed]');
      const said = await page.textContent('[data-testid=file-notice-unparsed]');
      const m = /^([\d,]+) of its ([\d,]+) lines were not understood\.$/.exec(said);
      assert.ok(m, said);
      const unparsed = Number(m[1].replaceAll(',', ''));
      assert.equal(Number(m[2].replaceAll(',', '')), lines);
      assert.ok(unparsed > lines * 0.9, said);
      await page.click('[data-testid=show-unparsed]');
      await page.waitForSelector('[data-testid=unparsed]', { state: 'visible' });
      assert.equal(await page.getAttribute('[data-testid=unparsed]', 'data-total'), String(unparsed));
      const cli = spawnSync(CLI, ['stats', '--json', files[key]], { encoding: 'utf8' });
      assert.equal(cli.status, 1, 'the CLI refuses it too');
      assert.match(cli.stderr, /not a Tarmac trace/);
    });
  }

  test('an empty file says so, in the browse view, the panes and the summary', async (t) => {
    const page = await open(t, files.empty);
    assert.equal(await page.getAttribute('[data-testid=file-notice]', 'data-kind'), 'empty');
    assert.match(await page.textContent('[data-testid=file-notice]'), /This file is empty\./);
    await page.waitForSelector('[data-testid=registers-empty]');
    assert.match(await page.textContent('[data-testid=registers-empty]'), /the trace has no instruction/);
    await page.click('[data-testid=tab-summary]');
    assert.equal(await page.textContent('[data-testid=unparsed-none]'), 'This file is empty.');
  });

  test('unknown lines in a trace are counted by their type, as the CLI counts them', async (t) => {
    // A real trace with 40 lines of a made-up type and 7 of another mixed in.
    const lines = trace.toString('latin1').split('\n').slice(0, 3000);
    for (let i = 0; i < 40; i++) lines.splice(100 + i * 60, 0, `${i} clk XYZ 0000 made-up event ${i}`);
    for (let i = 0; i < 7; i++) lines.splice(150 + i * 300, 0, `${i} clk QQQ ${i}`);
    const file = path.join(dir, 'with-unknown-types.tarmac');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', file);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.click('[data-testid=tab-summary]');
    await page.waitForSelector('[data-testid=unparsed-words]');
    const shown = await page.$$eval('[data-testid=unparsed-words] li', (items) => items.map((li) => li.textContent));
    const cli = spawnSync(CLI, ['stats', file], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const said = [...cli.stdout.matchAll(/^ {2}([\d,]+) lines of type `(\S+)` unread$/gm)].map((m) => `${m[1]} lines of type “${m[2]}” unread`);
    assert.deepEqual(said, ['40 lines of type “XYZ” unread', '7 lines of type “QQQ” unread'], cli.stdout);
    assert.deepEqual(shown, said);
  });

  test('a trace gets no notice', async (t) => {
    const page = await openPage(t);
    await page.setInputFiles('[data-testid=file-input]', path.join(GEN, 'quicksort-arm-O2-fastmodel-2M.tarmac'));
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    assert.equal(await page.$('[data-testid=file-notice]'), null);
  });
});
