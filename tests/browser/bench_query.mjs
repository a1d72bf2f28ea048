// The Query pane's budgets in the page (docs/performance.md, "SQL and
// Parquet"): a generated trace of TL_BENCH_MB megabytes (default 1024),
// or the trace TL_BENCH_TRACE names, is dropped, indexed, the pane opened, and each query's time inside the
// engine's worker read from the pane (`data-ms`, from the query's start
// to its count). Also the engine's download, as the page fetched it.
//   TL_BENCH_NO_BUILD=1 node tests/browser/bench_query.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { DIST, ROOT, launchBrowser, serveDist } from './harness.mjs';
import { generatedTrace } from './tracegen.mjs';

const MB = Number(process.env.TL_BENCH_MB ?? 1024);
const QUERIES = [
  "SELECT count(*) FROM instructions WHERE mnemonic = 'BL'",
  'SELECT count(*) FROM calls',
  'SELECT function, count(*) AS n, sum(own_instructions) AS own FROM calls GROUP BY function ORDER BY own DESC LIMIT 10',
];

if (!process.env.TL_BENCH_NO_BUILD) execFileSync('trunk', ['build', '--release'], { cwd: ROOT, stdio: 'inherit' });
const trace = process.env.TL_BENCH_TRACE ?? generatedTrace(MB);
const server = await serveDist({ dist: DIST });
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', trace);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
  await page.focus('[data-testid=browser]');
  const opened = Date.now();
  await page.keyboard.press('Q');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=query-table]').length === 8, null, { timeout: 600_000 });
  console.log(`engine started (index handed over, tables listed): ${Date.now() - opened} ms after Q`);
  for (const sql of QUERIES) {
    for (let i = 0; i < 2; i++) {
      const before = Number(await page.getAttribute('[data-testid=query-status]', 'data-run'));
      await page.fill('[data-testid=query-editor]', sql);
      await page.press('[data-testid=query-editor]', 'Control+Enter');
      await page.waitForSelector(`[data-testid=query-status][data-run="${before + 1}"][data-state=done]`, { timeout: 600_000 });
      const ms = await page.getAttribute('[data-testid=query-status]', 'data-ms');
      console.log(`${ms.padStart(9)} ms  ${sql}`);
    }
  }
  const engine = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => /sql-worker\.js|\/sql\//.test(e.name))
      .map((e) => ({ name: e.name.replace(/^.*\//, ''), transfer: e.transferSize, body: e.decodedBodySize })),
  );
  for (const e of engine) console.log(`download: ${e.name} ${e.body} bytes (${e.transfer} transferred)`);
  const wasm = path.join(DIST, 'sql/tarmac_lens_sql_bg.wasm');
  console.log(`engine wasm in dist: ${fs.statSync(wasm).size} bytes`);
} finally {
  await browser.close();
  await server.close();
}
