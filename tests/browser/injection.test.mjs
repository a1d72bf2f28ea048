// Trace text, symbol names and file names are shown as text, never parsed
// as HTML: a trace full of <script> and <img onerror> (in instruction text,
// in unparsed lines), an ELF whose symbol names are markup (patched in a
// copy of a test ELF's string table) and a file named like markup must run
// nothing, add no element, and show literally.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, pageFixture } from './harness.mjs';

const GENERATED = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M';
const SCRIPT = '<script>window.__xss = "script"</script>';
const IMG = '<img src=x onerror="window.__xss = \'img\'">';
// Fits over "run_iteration\0quicksort.c" in the string table.
const SYMBOL = '<img src=x onerror=X=1>';
const FILE_NAME = '<img src=x onerror=window.__xss=1>.tarmac';

const fx = pageFixture();

/** The generated trace's first lines with markup in instruction text and
 * whole unparsed lines of markup. */
function hostileTrace() {
  const lines = fs.readFileSync(path.join(ROOT, `${GENERATED}.tarmac`), 'utf8').split('\n');
  let n = 0;
  const out = lines.map((l) => {
    if (/ I[TS] \(/.test(l) && n++ % 3 === 0) {
      return l.replace(/ : .*$/, ` : ${n % 2 ? SCRIPT : IMG}`);
    }
    return l;
  });
  out.splice(5, 0, SCRIPT, IMG, `# ${IMG}`);
  return Buffer.from(out.join('\n'));
}

/** A copy of the trace's ELF whose `run_iteration` symbol is named SYMBOL. */
function hostileElf() {
  const elf = fs.readFileSync(path.join(ROOT, `${GENERATED}.elf`));
  const at = elf.indexOf(Buffer.from('run_iteration\0quicksort.c\0'));
  assert.ok(at > 0, 'symbol names found');
  assert.ok(SYMBOL.length <= 'run_iteration\0quicksort.c'.length);
  elf.write(SYMBOL + '\0', at, 'latin1');
  return elf;
}

test('markup in traces, symbols and file names is shown as text', async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  // Line 900 is inside run_iteration (entered at line 805), so its name is
  // in the call stack.
  await page.goto(fx.server.url + '#line=900');
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  const before = await page.evaluate(() => document.querySelectorAll('img, script').length);

  await page.setInputFiles('[data-testid=file-input]', [
    { name: FILE_NAME, mimeType: 'text/plain', buffer: hostileTrace() },
    { name: 'image.elf', mimeType: 'application/octet-stream', buffer: hostileElf() },
  ]);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  assert.equal(await page.textContent('[data-testid=file-name]'), FILE_NAME);

  // Instruction text, on screen in the trace pane.
  await page.waitForFunction(
    ([a, b]) => {
      const text = document.querySelector('[data-testid=trace-pane]')?.textContent ?? '';
      return text.includes(a) && text.includes(b);
    },
    [SCRIPT, IMG],
    { timeout: 30_000 },
  );
  // A symbol name.
  await page.waitForFunction(
    (s) => document.querySelector('[data-testid=call-stack]')?.textContent.includes(s),
    SYMBOL,
    { timeout: 30_000 },
  );
  // Unparsed lines, in the summary.
  await page.click('[data-testid=tab-summary]');
  await page.waitForFunction(
    (s) => document.querySelector('[data-testid=unparsed]')?.textContent.includes(s),
    SCRIPT,
    { timeout: 30_000 },
  );

  const after = await page.evaluate(() => ({
    elements: document.querySelectorAll('img, script').length,
    xss: window.__xss ?? null,
    x: window.X ?? null,
  }));
  assert.deepEqual(after, { elements: before, xss: null, x: null });
  assert.ok(!requests.some((u) => /\/x$/.test(u)), 'no <img src=x> was loaded');
  assert.deepEqual(errors, []);
});
