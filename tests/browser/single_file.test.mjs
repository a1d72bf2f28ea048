// The single-file build (scripts/single_file.mjs) opened from file://: it
// indexes and browses a dropped trace as the hosted page does, opens the
// demo it carries, and fetches nothing, its CSP forbidding it anyway.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { DIST, ROOT, cliStats, launchBrowser, readResults } from './harness.mjs';
import { checkFoldNamed, checkRegisters, firstCall, waitReady, watchErrors } from './browse_check.mjs';

const QUICKSORT = path.join(ROOT, 'tests/data/ttu/quicksort.tarmac');
const DEMO = path.join(ROOT, 'www/demo/recursion-aarch64');

describe('single-file build', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-single-'));
  const file = path.join(dir, 'tarmac-lens.html');
  let browser;
  before(async () => {
    execFileSync('node', [path.join(ROOT, 'scripts/single_file.mjs'), '--dist', DIST, '-o', file]);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function open(t) {
    const requests = [];
    const page = await browser.context.newPage();
    page.on('request', (r) => requests.push(r.url()));
    const errors = watchErrors(page);
    t.after(() => page.close());
    const t0 = Date.now();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    t.diagnostic(`file:// page ready ${Date.now() - t0} ms after navigation`);
    return { page, errors, requests };
  }

  test('is one file that needs nothing beside it', (t) => {
    const html = fs.readFileSync(file, 'utf8');
    assert.doesNotMatch(html, /(?:src|href)="(?!data:)[^"]+"/, 'a reference to another file');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    assert.ok(csp, 'carries a CSP');
    assert.match(csp, /script-src 'sha256-[^']+' 'wasm-unsafe-eval';/);
    assert.match(csp, /connect-src blob:;/);
    t.diagnostic(`tarmac-lens.html: ${(Buffer.byteLength(html) / 1e6).toFixed(2)} MB`);
  });

  test('from file:// it browses a trace as the CLI reads it', async (t) => {
    const { page, errors, requests } = await open(t);
    await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
    await waitReady(page);
    await checkRegisters(page, QUICKSORT);
    const seen = await readResults(page, 'quicksort.tarmac');
    const expected = cliStats(QUICKSORT);
    assert.equal(seen.lineCount, expected.lines.toLocaleString('en-US'));
    assert.deepEqual(seen.records, expected.records);
    assert.equal(await page.title(), 'quicksort.tarmac — Tarmac Lens');
    errors.check();
    const fetched = requests.filter((u) => !/^(blob|data):/.test(u) && u !== pathToFileURL(file).href);
    assert.deepEqual(fetched, [], 'requests besides the file itself');

    // The CSP is in force: a connection elsewhere is refused.
    const refused = await page.evaluate(async () => {
      const violation = new Promise((resolve) =>
        document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true }),
      );
      await fetch('http://127.0.0.1:9/').catch(() => {});
      return violation;
    });
    assert.equal(refused, 'connect-src');
  });

  test('carries the demo, with its symbols', async (t) => {
    const { page, errors } = await open(t);
    await page.click('[data-testid=demo-button]');
    await waitReady(page);
    await checkFoldNamed(page, firstCall(`${DEMO}.tarmac`, `${DEMO}.elf`));
    errors.check();
  });
});
