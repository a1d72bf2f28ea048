// The Reports panel's Statistics tab as a person uses it: each report
// chosen shows the text `tarmac-lens NAME` prints, and its download is
// that text byte for byte; the functions' switch gives the CLI's
// `--exclude-exceptions`; a function's control-flow graph is drawn, block
// by block as the DOT names them, and downloads as the CLI's DOT; a
// function that does not exist is said so. Checked against the native
// CLI (TARMAC_LENS_CLI) on a trace with exceptions and interrupts.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { CLI, openTracePage, pageFixture, ROOT } from './harness.mjs';

const BASE = 'tests/data/stats/exceptions-aarch64-O1-fastmodel';
const TRACE = path.join(ROOT, `${BASE}.tarmac`);
const ELF = path.join(ROOT, `${BASE}.elf`);
const NAME = path.basename(TRACE);

const fx = pageFixture();

function cli(...args) {
  return execFileSync(CLI, [...args, TRACE, '--image', ELF, '--no-index'], { maxBuffer: 1 << 26 });
}

async function openStatistics(t) {
  const page = await openTracePage(fx, t, [TRACE, ELF], { symbols: true });
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.click('[data-testid=tab-statistics]', { timeout: 60_000 });
  return page;
}

/** Chooses a report and waits for its text (`download` names its file). */
async function show(page, id, download) {
  await page.click(`[data-testid=statistic-${id}]`);
  await page.waitForFunction(
    (name) => document.querySelector('[data-testid=statistics-download]')?.getAttribute('download') === name,
    download,
    { timeout: 60_000 },
  );
}

async function downloaded(page) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.click('[data-testid=statistics-download]')]);
  return { name: download.suggestedFilename(), bytes: fs.readFileSync(await download.path()) };
}

test('each statistics report shows and downloads the text the CLI prints', { timeout: 240_000 }, async (t) => {
  const page = await openStatistics(t);
  for (const id of ['mix', 'levels', 'exceptions', 'functions', 'loops', 'cache-tlb']) {
    const want = cli(id);
    await show(page, id, `${NAME}.${id}.txt`);
    const shown = await page.textContent('[data-testid=statistics-text]');
    assert.equal(shown, want.toString('utf8'), `${id}: what the tab shows`);
    const got = await downloaded(page);
    assert.equal(got.name, `${NAME}.${id}.txt`);
    assert.ok(Buffer.compare(got.bytes, want) === 0, `${id}: the download is the CLI's text`);
  }
  // The exceptions report lists what the trace's exception lines say.
  await show(page, 'exceptions', `${NAME}.exceptions.txt`);
  assert.match(await page.textContent('[data-testid=statistics-text]'), /Exceptions taken: 17;/);

  // The functions' switch: exceptions taken inside a call left out of it.
  await show(page, 'functions', `${NAME}.functions.txt`);
  const counted = await page.textContent('[data-testid=statistics-text]');
  await page.uncheck('[data-testid=exceptions-in-calls]');
  const excluded = cli('functions', '--exclude-exceptions').toString('utf8');
  assert.notEqual(excluded, counted, 'the switch changes the report on this trace');
  await page.waitForFunction((want) => document.querySelector('[data-testid=statistics-text]')?.textContent === want, excluded, {
    timeout: 60_000,
  });
});

test("a function's control-flow graph is drawn block by block and downloads as the CLI's DOT", { timeout: 180_000 }, async (t) => {
  const page = await openStatistics(t);
  await page.click('[data-testid=statistic-cfg]');
  await page.fill('[data-testid=cfg-function]', 'run_iteration');
  await page.click('[data-testid=cfg-show]');
  await page.waitForSelector('[data-testid=cfg-picture]', { timeout: 60_000 });
  const dot = cli('cfg', '--function', 'run_iteration').toString('utf8');
  // Every block and exit the DOT declares is a box of the picture.
  const declared = [...dot.matchAll(/^ {2}"([^"]+)" \[/gm)].map((m) => m[1]);
  const drawn = await page.$$eval('[data-testid=cfg-node]', (gs) => gs.map((g) => g.dataset.node));
  assert.deepEqual([...drawn].sort(), [...declared].sort());
  const edges = [...dot.matchAll(/ -> /g)].length;
  assert.equal(await page.locator('[data-testid=cfg-edge]').count(), edges);
  const got = await downloaded(page);
  assert.equal(got.name, `${NAME}.cfg.run_iteration.dot`);
  assert.equal(got.bytes.toString('utf8'), dot);

  await page.fill('[data-testid=cfg-function]', 'no_such_function');
  await page.click('[data-testid=cfg-show]');
  const error = await page.waitForSelector('[data-testid=statistics-error]', { timeout: 60_000 });
  assert.match(await error.textContent(), /no_such_function/);
});

test("on a long trace each report's first answer counts its first lines and says so, then the whole trace's replaces it", { timeout: 180_000 }, async (t) => {
  const text = fs.readFileSync(TRACE);
  // Long for a quarter of it: the worker counts up to the first line end
  // at or after that many bytes first.
  const prefix = Math.floor(text.length / 4);
  const cut = text.indexOf(10, prefix - 1) + 1;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-prefix-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const head = path.join(dir, NAME);
  fs.writeFileSync(head, text.subarray(0, cut));
  const ofHead = (id) => execFileSync(CLI, [id, head, '--image', ELF, '--no-index']).toString('utf8');
  const want = { mix: cli('mix').toString('utf8'), levels: cli('levels').toString('utf8') };
  const first = { mix: ofHead('mix'), levels: ofHead('levels') };
  assert.notEqual(first.mix, want.mix, 'the first quarter counts differently');

  const page = await openTracePage(fx, t, [TRACE, ELF], { symbols: true, query: `?statistics-prefix=${prefix}` });
  // Every first answer the tab shows, as it is drawn; at the first, the
  // person chooses another report (before the whole trace is counted).
  await page.evaluate(() => {
    window.__partials = [];
    new MutationObserver(() => {
      const note = document.querySelector('[data-testid=statistics-partial]');
      if (!note) return;
      const kind = document.querySelector('[data-testid^=statistic-][aria-selected=true]')?.dataset.testid;
      const last = window.__partials[window.__partials.length - 1];
      if (last?.kind === kind) return;
      window.__partials.push({
        kind,
        note: note.textContent,
        text: document.querySelector('[data-testid=statistics-text]')?.textContent,
        download: document.querySelector('[data-testid=statistics-download]') !== null,
      });
      if (kind === 'statistic-mix') document.querySelector('[data-testid=statistic-levels]').click();
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.click('[data-testid=tab-statistics]', { timeout: 60_000 });
  // The person chooses levels at mix's first answer (the observer above):
  // not before it is drawn, however long that takes on a busy machine.
  await page.waitForFunction(() => window.__partials.some((p) => p.kind === 'statistic-mix'), null, { timeout: 60_000 });
  await show(page, 'levels', `${NAME}.levels.txt`);
  assert.equal(await page.textContent('[data-testid=statistics-text]'), want.levels, 'the whole trace counted at last');
  assert.equal(await page.$('[data-testid=statistics-partial]'), null, 'no longer said to be partial');

  const partials = await page.evaluate(() => window.__partials);
  assert.deepEqual(
    partials.map((p) => p.kind),
    ['statistic-mix', 'statistic-levels'],
    'a first answer for the report asked, then for the one chosen while the whole trace was counted',
  );
  for (const p of partials) {
    const id = p.kind.replace('statistic-', '');
    assert.equal(p.text, first[id], `${id}: the first answer is the CLI's text of the trace's first lines`);
    assert.equal(p.download, false, `${id}: no download of a partial count`);
    assert.ok(p.note.replaceAll(',', '').includes(`first ${cut} of ${text.length} bytes`), p.note);
  }

  // Counted once: the first report is now the whole trace's, at once.
  await show(page, 'mix', `${NAME}.mix.txt`);
  assert.equal(await page.textContent('[data-testid=statistics-text]'), want.mix);
  assert.equal(await page.evaluate(() => window.__partials.length), partials.length, 'no other first answer');
});
