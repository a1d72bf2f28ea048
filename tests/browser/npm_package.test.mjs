// The npm package (npm/tarmac-lens, built by scripts/build-npm.sh) in
// Chromium, without a bundler: a page imports it through an import map and
// opens a checked-in trace by URL (ranged requests, which the server here
// honours and logs) and as a Blob. Its registers are the trace's own
// register writes (and the core example's output, when built); its call
// tree is the CLI's.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { CLI, ROOT, launchBrowser } from './harness.mjs';

const PKG = path.join(ROOT, 'npm/tarmac-lens');
const EXAMPLE = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'debug/examples/registers_at_line');
const NAME = 'quicksort-thumb-O2-fastmodel-2M';
const DATA = path.join(ROOT, 'tests/data/tracegen');
const TRACE = path.join(DATA, `${NAME}.tarmac`);
const ELF = path.join(DATA, `${NAME}.elf`);
const LINES = [120, 2001, 15000, 36522];

const PAGE = `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{ "imports": { "tarmac-lens": "/tarmac-lens/browser.js" } }</script>
<script type="module">
  import { openTrace } from 'tarmac-lens';
  // Opens the trace by URL or as a Blob; answers in plain strings.
  window.check = async (how, lines) => {
    const url = '/data/${NAME}.tarmac';
    const input = how === 'blob' ? await (await fetch(url)).blob() : url;
    const progress = [];
    const trace = await openTrace(input, { elf: '/data/${NAME}.elf', onProgress: (p) => progress.push(p) });
    try {
      const registers = [];
      for (const line of lines) registers.push(await trace.registersAt(line));
      const [row] = await trace.rows(lines[0], 1);
      return { registers, row: row.text, calltree: (await trace.calltree()).text, progress };
    } finally {
      await trace.close();
    }
  };
  window.refused = () => openTrace('/data/${NAME}.elf').then(() => 'opened', (e) => e.message);
  window.ready = true;
</script>`;

const TYPES = { '.js': 'text/javascript', '.cjs': 'text/javascript', '.wasm': 'application/wasm' };

let server;
let origin;
const requests = [];
let browser;

before(async () => {
  assert.ok(
    fs.existsSync(path.join(PKG, 'gen/tarmac_lens_js_bg.wasm')),
    'npm/tarmac-lens/gen is missing: run scripts/build-npm.sh first',
  );
  server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push({ url, range: req.headers.range ?? null });
    if (url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    const [, dir, rest] = /^\/(tarmac-lens|data)\/(.+)$/.exec(url) ?? [];
    const file = dir && path.join(dir === 'data' ? DATA : PKG, rest);
    if (!file || !fs.existsSync(file) || rest.includes('..')) return res.writeHead(404).end();
    const body = fs.readFileSync(file);
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!range) return res.writeHead(200, { 'content-type': type }).end(body);
    const [from, to] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
    res
      .writeHead(206, { 'content-type': type, 'content-range': `bytes ${from}-${to}/${body.length}` })
      .end(body.subarray(from, to + 1));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

/** Registers `rN` as the trace's `R` lines left them after `line`'s instruction. */
function writtenRegisters(lines, line) {
  let end = line;
  while (end < lines.length && !/ I[ST] /.test(lines[end])) end++;
  const regs = {};
  for (const text of lines.slice(0, end)) {
    const m = / R (r\d+) ([0-9a-f]+)$/i.exec(text);
    if (m) regs[m[1].toLowerCase()] = m[2].toLowerCase();
  }
  return regs;
}

test('a page imports the package and opens a trace by URL and as a Blob', async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => window.ready === true);

  const lines = fs.readFileSync(TRACE, 'utf8').split('\n');
  const calltree = execFileSync(CLI, ['calltree', TRACE, '--image', ELF, '--no-index', '-q'], { encoding: 'utf8' });
  let first = null;
  for (const how of ['url', 'blob']) {
    requests.length = 0;
    const got = await page.evaluate(([how, probe]) => window.check(how, probe), [how, LINES]);
    assert.equal(got.calltree, calltree, `${how}: the CLI's call tree`);
    assert.equal(got.row, lines[LINES[0] - 1]);
    assert.ok(got.progress.length >= 1 && got.progress.at(-1).complete, `${how}: progress arrives`);
    assert.equal(got.progress.at(-1).doneBytes, fs.statSync(TRACE).size);
    got.registers.forEach((regs, i) => {
      for (const [reg, value] of Object.entries(writtenRegisters(lines, LINES[i]))) {
        assert.equal(regs[reg], value, `${how}: ${reg} after line ${LINES[i]}`);
      }
      if (fs.existsSync(EXAMPLE)) {
        const out = execFileSync(EXAMPLE, [TRACE, String(LINES[i])], { encoding: 'utf8' });
        assert.deepEqual(regs, Object.fromEntries(out.trim().split('\n').map((l) => l.split(/\s+/))));
      }
    });
    first ??= got;
    assert.deepEqual(got.registers, first.registers, 'a URL and a Blob read the same');
    const traceReads = requests.filter((r) => r.url.endsWith('.tarmac'));
    if (how === 'url') {
      // Read in slices, never the whole file at once.
      assert.ok(traceReads.length >= 2, 'the trace is read in ranges');
      assert.ok(traceReads.every((r) => r.range), `every read is ranged: ${JSON.stringify(traceReads)}`);
    }
  }
  assert.match(await page.evaluate(() => window.refused()), /\.elf is an ELF executable, not a Tarmac trace/);
  assert.deepEqual(errors, []);
  await page.close();
});
