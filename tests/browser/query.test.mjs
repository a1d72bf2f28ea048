// The Query pane (`Q`) as a person uses it: drop a trace and its ELF, open
// the pane, type a query and run it. The table shown equals what the CLI's
// `tarmac-lens sql --format csv` prints for the same query; a `line` cell
// clicked moves the trace view there; a bad query shows the engine's error
// at its position in the query; Escape stops a query that would run for
// hours, and the next query runs.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { CLI, ROOT, expectLine, openTracePage, pageFixture } from './harness.mjs';

const fx = pageFixture();
const BASE = path.join(ROOT, 'tests/data/tracegen/quicksort-arm-O2-fastmodel-2M');
const TRACE = `${BASE}.tarmac`;
const ELF = `${BASE}.elf`;

/** The CLI's answer to `sql` as rows of cells (CSV, header first). */
function cliRows(sql) {
  const text = execFileSync(CLI, ['sql', TRACE, '--image', ELF, '--no-index', '--quiet', '--format', 'csv', sql], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return parseCsv(text);
}

/** RFC 4180 CSV: quoted cells may hold commas, quotes and newlines. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** The pane's result as rows of cells, header first (a null as the CLI writes it: empty). */
function shownRows(page) {
  return page.evaluate(() => {
    const result = document.querySelector('[data-testid=query-result]');
    const head = [...result.querySelectorAll('[data-testid=query-head]')].map((th) => th.textContent);
    const rows = [...result.querySelectorAll('[data-testid=query-row]')].map((tr) =>
      [...tr.querySelectorAll('[data-testid=query-cell]')].map((td) => (td.dataset.null === 'true' ? '' : td.textContent)),
    );
    return [head, ...rows];
  });
}

/** Types `sql` into the editor and runs it with Ctrl-Enter; waits until
 * this run (the status numbers them) is in `state`. */
async function run(page, sql, state = 'done') {
  const before = Number(await page.getAttribute('[data-testid=query-status]', 'data-run'));
  await page.fill('[data-testid=query-editor]', sql);
  await page.press('[data-testid=query-editor]', 'Control+Enter');
  await page.waitForSelector(`[data-testid=query-status][data-run="${before + 1}"][data-state=${state}]`, { timeout: 120_000 });
  if (state === 'done') await page.waitForSelector('[data-testid=query-result][data-complete=true]');
}

test('the Query pane answers as the CLI does, links lines, places errors and stops on Escape', { timeout: 600_000 }, async (t) => {
  const page = await openTracePage(fx, t, [TRACE, ELF], { symbols: true });
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('Q');
  await page.waitForSelector('[data-testid=query]');
  // The engine is fetched as the pane opens, and lists the tables.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=query-table]').length === 8, null, { timeout: 120_000 });
  const columns = await page.$$eval('[data-table=calls] [data-testid=query-column]', (lis) => lis.map((li) => li.textContent.split(' ')[0]));
  assert.ok(columns.includes('return_line') && columns.includes('own_instructions'), columns.join(','));

  // Instructions (read from the trace) and calls (from the index).
  for (const sql of [
    "SELECT line, time, pc, mnemonic, operands, function FROM instructions WHERE mnemonic = 'BL' ORDER BY line LIMIT 12",
    'SELECT function, count(*) AS calls, sum(own_instructions) AS own FROM calls GROUP BY function ORDER BY calls DESC, function LIMIT 15',
  ]) {
    await run(page, sql);
    const expected = cliRows(sql);
    assert.ok(expected.length > 2, `${sql}: ${expected.length} rows from the CLI`);
    assert.deepEqual(await shownRows(page), expected, sql);
    assert.equal(await page.getAttribute('[data-testid=query-result]', 'data-rows'), String(expected.length - 1));
  }

  // A line cell goes there.
  const sql = "SELECT line, mnemonic FROM instructions WHERE mnemonic = 'BL' ORDER BY line LIMIT 5";
  await run(page, sql);
  const line = Number(cliRows(sql)[3][0]);
  await page.click('[data-testid=query-row][data-row="2"] [data-testid=query-link][data-link=line]');
  await expectLine(page, line, 'the line clicked in the result');

  // An error, at its place.
  await run(page, 'SELECT line,\n  nope\nFROM instructions', 'failed');
  const error = await page.$('[data-testid=query-error]');
  assert.deepEqual([await error.getAttribute('data-line'), await error.getAttribute('data-column')], ['2', '3']);
  assert.match(await page.textContent('[data-testid=query-error-message]'), /nope/);
  assert.match(await page.textContent('[data-testid=query-error-at]'), /^ {2}nope\n {2}\^$/);
  assert.equal(await page.getAttribute('[data-testid=query-editor]', 'data-error-at'), String('SELECT line,\n  '.length));

  // Escape stops a query of hours (every pair of instructions); the next runs.
  await run(page, 'SELECT count(*) FROM instructions a, instructions b WHERE a.pc + b.pc = 7', 'running');
  await page.press('[data-testid=query-editor]', 'Escape');
  await page.waitForSelector('[data-testid=query-status][data-state=stopped]');
  const count = "SELECT count(*) AS n FROM instructions WHERE mnemonic = 'BL'";
  await run(page, count);
  assert.deepEqual(await shownRows(page), cliRows(count));

  // The history lists what ran, newest first.
  const history = await page.$$eval('[data-testid=query-history] option', (os) => os.slice(1).map((o) => o.value));
  assert.equal(history[0], count);
});
