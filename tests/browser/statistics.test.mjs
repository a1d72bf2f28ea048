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
