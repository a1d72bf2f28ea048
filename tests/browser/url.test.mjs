// `?url=`: traces opened from a web server, by byte ranges when the server
// serves them (never downloaded whole), downloaded with progress when it
// does not, and clear errors for 404s, non-trace content, CORS and CSP.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { CLI, clickDownload, cliStats, DIST, launchBrowser, makeLargeTrace, ROOT, serveDist } from './harness.mjs';

const GENERATED = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M');
const HTML = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body><form>Password</form></body></html>\n';

/**
 * Answers /traces/NAME from `files` (name -> path or { body, type }):
 * with byte ranges if `ranges`, CORS headers if `cors`, the whole file in
 * slow chunks if `slow`, each range after `msPerMb` per megabyte (a
 * network of finite speed). Counts what it sends in `stats`.
 */
function traceHandler(files, { ranges = true, cors = false, slow = false, msPerMb = 0 } = {}) {
  const stats = { bytes: 0, largest: 0, rangeRequests: 0, wholeRequests: 0, wholeOf: {}, ranges: [] };
  const bodies = new Map();
  const bodyOf = (name, entry) => {
    if (!bodies.has(name)) bodies.set(name, typeof entry === 'string' ? fs.readFileSync(entry) : Buffer.from(entry.body));
    return bodies.get(name);
  };
  const handler = (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith('/traces/')) return false;
    const headers = {};
    if (cors) {
      headers['access-control-allow-origin'] = '*';
      headers['access-control-allow-headers'] = 'range';
      headers['access-control-expose-headers'] = 'content-range';
      if (req.method === 'OPTIONS') {
        res.writeHead(204, headers).end();
        return true;
      }
    }
    const name = decodeURIComponent(url.pathname.slice('/traces/'.length));
    const entry = files[name];
    if (!entry) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
      return true;
    }
    const body = bodyOf(name, entry);
    headers['content-type'] = entry.type ?? 'text/plain';
    const m = ranges && /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (m) {
      const start = Number(m[1]);
      const end = Math.min(body.length - 1, m[2] ? Number(m[2]) : body.length - 1);
      const slice = body.subarray(start, end + 1);
      stats.bytes += slice.length;
      stats.largest = Math.max(stats.largest, slice.length);
      stats.rangeRequests += 1;
      stats.ranges.push([name, start, end]);
      res.writeHead(206, {
        ...headers,
        'accept-ranges': 'bytes',
        'content-range': `bytes ${start}-${end}/${body.length}`,
        'content-length': slice.length,
      });
      setTimeout(() => res.end(slice), (msPerMb * slice.length) / (1 << 20));
      return true;
    }
    stats.bytes += body.length;
    stats.wholeRequests += 1;
    stats.wholeOf[name] = (stats.wholeOf[name] ?? 0) + 1;
    res.writeHead(200, { ...headers, 'content-length': body.length });
    if (!slow) {
      res.end(body);
      return true;
    }
    // A slow network: the page has time to show the download's progress.
    const chunk = Math.ceil(body.length / 10);
    let at = 0;
    const next = () => {
      if (at >= body.length) return res.end();
      res.write(body.subarray(at, at + chunk));
      at += chunk;
      setTimeout(next, 80);
    };
    next();
    return true;
  };
  return { handler, stats };
}

function countLines(file) {
  const bytes = fs.readFileSync(file);
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n += 1;
  return bytes.length && bytes[bytes.length - 1] !== 10 ? n + 1 : n;
}

async function openUrl(browser, base, query) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}?${query}`);
  return { page, errors };
}

/** Opens the Reports panel (R) and downloads the call tree text. */
async function reportCalltree(page) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    clickDownload(page, 'calltree'),
  ]);
  return { bytes: fs.readFileSync(await download.path()), name: download.suggestedFilename() };
}

function cliCalltree(...image) {
  return execFileSync(CLI, ['calltree', `${GENERATED}.tarmac`, ...image, '--no-index'], { maxBuffer: 1 << 28 });
}

async function errorText(page) {
  await page.waitForSelector('[data-testid=status][data-state=error]', { timeout: 30_000 });
  return page.textContent('[data-testid=error]');
}

describe('open from a URL', () => {
  const large = makeLargeTrace(64);
  // 12.5 MB/s: reading the whole trace takes seconds, the first screen much less.
  const slowRanges = traceHandler({ 'large.tarmac': large }, { msPerMb: 80 });
  const ranged = traceHandler({
    'quicksort.tarmac': `${GENERATED}.tarmac`,
    'quicksort.elf': `${GENERATED}.elf`,
    'page.html': { body: HTML, type: 'text/html' },
  });
  const whole = traceHandler({ 'quicksort.tarmac': `${GENERATED}.tarmac` }, { ranges: false, slow: true });
  const other = traceHandler({ 'quicksort.tarmac': `${GENERATED}.tarmac` });
  const otherCors = traceHandler({ 'quicksort.tarmac': `${GENERATED}.tarmac` }, { cors: true });
  const fx = {};
  before(async () => {
    fx.ranged = await serveDist(ranged.handler);
    fx.slowRanges = await serveDist(slowRanges.handler);
    fx.whole = await serveDist(whole.handler);
    fx.other = await serveDist(other.handler);
    fx.otherCors = await serveDist(otherCors.handler);
    // The page as it will be deployed with a strict policy: cross-origin
    // trace URLs refused by connect-src.
    fx.strict = await serveDist((req, res) => {
      if (new URL(req.url, 'http://x').pathname !== '/') return false;
      const html = fs
        .readFileSync(path.join(DIST, 'index.html'), 'utf8')
        .replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="connect-src 'self' blob: data:">`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      return true;
    });
    // The page as a deployer who lets traces come from other sites serves
    // it (docs/hosting.md: connect-src widened), so the CORS path itself is reached.
    fx.widened = await serveDist((req, res) => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname.startsWith('/traces/')) return ranged.handler(req, res);
      if (url.pathname !== '/') return false;
      const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
      const widened = html.replace("connect-src 'self' blob: data:", "connect-src 'self' blob: data: http://127.0.0.1:*");
      assert.notEqual(widened, html, 'the page carries the connect-src the test widens');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(widened);
      return true;
    });
    fx.browser = await launchBrowser();
  });
  after(async () => {
    await fx.browser?.close();
    for (const s of ['ranged', 'slowRanges', 'whole', 'other', 'otherCors', 'strict', 'widened']) await fx[s]?.close();
  });

  test('a range-serving server: the first screen comes before the trace is read, and it is never fetched whole', async () => {
    const size = fs.statSync(large).size;
    const { page, errors } = await openUrl(fx.browser, fx.slowRanges.url, 'url=traces/large.tarmac');
    await page.waitForSelector('.trace-row', { timeout: 30_000 });
    const atFirstScreen = slowRanges.stats.bytes;
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'ranges');
    assert.ok(
      atFirstScreen < size / 4,
      `${atFirstScreen} bytes had been sent for the first screen of a ${size}-byte trace`,
    );
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 120_000 });
    assert.equal(Number(await page.getAttribute('[data-testid=status]', 'data-lines')), countLines(large));
    assert.match(await page.textContent('[data-testid=read-by-ranges]'), /never downloaded whole/);
    assert.equal(slowRanges.stats.wholeRequests, 0, 'no request for the whole file');
    // Indexing's slices read ahead are the largest (32 MiB).
    assert.ok(slowRanges.stats.largest <= 32 << 20, `largest range ${slowRanges.stats.largest} bytes`);
    // Indexing reads the trace once; answering the first screen rereads a little.
    assert.ok(slowRanges.stats.bytes < size * 1.25, `${slowRanges.stats.bytes} bytes sent for ${size}`);
    console.log(
      `# ranges: ${size} byte trace, ${atFirstScreen} bytes sent at the first screen, ` +
        `${slowRanges.stats.bytes} by ready in ${slowRanges.stats.rangeRequests} requests`,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a range-serving server is asked for each part of the trace once while it opens', async () => {
    const before = ranged.stats.ranges.length;
    const { page, errors } = await openUrl(fx.browser, fx.ranged.url, 'url=traces/quicksort.tarmac');
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('.trace-row.current');
    const asked = ranged.stats.ranges.slice(before).filter(([name]) => name === 'quicksort.tarmac');
    // The probe of the first bytes (ranges? how long? compressed?), then
    // the first screen's short read and indexing's slices read ahead: the
    // questions of the first screen replay the start of the trace, which
    // one request brought. Only reads too short to wait for a slice on its
    // way (under 512 KiB: the first screen's, indexing's first) read bytes
    // a slice also brings.
    const size = fs.statSync(`${GENERATED}.tarmac`).size;
    assert.deepEqual(asked[0].slice(1), [0, 3], 'the probe first');
    const fromStart = asked.slice(1).filter(([, start]) => start === 0);
    assert.equal(fromStart.length, 2, `ranges from the start: ${JSON.stringify(fromStart)}`);
    const seen = new Set();
    let bytes = 0;
    for (const [, start, end] of asked.slice(1)) {
      const key = `${start}-${end}`;
      assert.ok(!seen.has(key), `bytes ${key} asked for twice: ${JSON.stringify(asked)}`);
      seen.add(key);
      bytes += end + 1 - start;
    }
    assert.ok(bytes >= size && bytes - size < 512 << 10, `${bytes} bytes asked for: ${JSON.stringify(asked)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the trace and its ELF image by URL: symbols load', async () => {
    const { page } = await openUrl(fx.browser, fx.ranged.url, 'url=traces/quicksort.tarmac&elf=traces/quicksort.elf');
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    assert.equal(await page.textContent('[data-testid=file-name]'), 'quicksort.tarmac');
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    assert.match(await page.textContent('[data-testid=elf-symbols]'), /^[1-9]\d* symbols loaded$/);
    await page.close();
  });

  test('a server without ranges: downloaded with progress, then browsable', async () => {
    const expected = cliStats(`${GENERATED}.tarmac`);
    const { page, errors } = await openUrl(fx.browser, fx.whole.url, 'url=traces/quicksort.tarmac');
    await page.waitForSelector('[data-testid=download-progress]', { timeout: 30_000 });
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'downloaded');
    assert.match(await page.textContent('[data-testid=downloaded]'), /does not serve byte ranges/);
    assert.equal(Number(await page.getAttribute('[data-testid=status]', 'data-lines')), expected.lines);
    assert.equal(whole.stats.wholeRequests, 1);
    assert.ok(await page.isVisible('.trace-row'));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('reports of a range-serving trace and its ELF image by URL: the CLI call tree, the trace never fetched whole', async () => {
    const before = { bytes: ranged.stats.bytes };
    const { page, errors } = await openUrl(fx.browser, fx.ranged.url, 'url=traces/quicksort.tarmac&elf=traces/quicksort.elf');
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    const { bytes, name } = await reportCalltree(page);
    const want = cliCalltree('--image', `${GENERATED}.elf`);
    assert.ok(Buffer.compare(bytes, want) === 0, `call tree: ${bytes.length} bytes, CLI ${want.length}`);
    assert.match(bytes.toString(), /quicksort/, 'the calls are named from the ELF image');
    assert.equal(name, 'quicksort.tarmac.calltree.txt');
    assert.equal(ranged.stats.wholeOf['quicksort.tarmac'], undefined, 'no request for the whole trace');
    const size = fs.statSync(`${GENERATED}.tarmac`).size;
    assert.ok(ranged.stats.largest <= 4 << 20, `largest range ${ranged.stats.largest} bytes`);
    assert.ok(ranged.stats.bytes - before.bytes > 1.9 * size, 'the report worker read the trace by ranges too');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('reports of a trace downloaded whole: the CLI call tree, and the trace downloaded once', async () => {
    const before = whole.stats.wholeRequests;
    const { page, errors } = await openUrl(fx.browser, fx.whole.url, 'url=traces/quicksort.tarmac');
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    const { bytes } = await reportCalltree(page);
    const want = cliCalltree();
    assert.ok(Buffer.compare(bytes, want) === 0, `call tree: ${bytes.length} bytes, CLI ${want.length}`);
    assert.equal(whole.stats.wholeRequests, before + 1, 'the reports read the download, not a second one');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a missing trace names the status and the URL', async () => {
    const { page } = await openUrl(fx.browser, fx.ranged.url, 'url=traces/missing.tarmac');
    const text = await errorText(page);
    assert.match(text, /HTTP 404/);
    assert.ok(text.includes(`${fx.ranged.url}traces/missing.tarmac`), text);
    await page.close();
  });

  test('an HTML page is not a trace: the error names the line', async () => {
    const { page } = await openUrl(fx.browser, fx.ranged.url, 'url=traces/page.html');
    const text = await errorText(page);
    assert.match(text, /not a Tarmac trace but an HTML page: line 1 \("<!DOCTYPE html>"\)/);
    await page.close();
  });

  test('another site without CORS headers: the CORS error', async () => {
    const { page } = await openUrl(fx.browser, fx.widened.url, `url=${encodeURIComponent(fx.other.url + 'traces/quicksort.tarmac')}`);
    const text = await errorText(page);
    assert.match(text, /CORS/);
    assert.match(text, /Access-Control-Allow-Origin/);
    await page.close();
  });

  test('another site with CORS headers: read by ranges', async () => {
    const { page } = await openUrl(fx.browser, fx.widened.url, `url=${encodeURIComponent(fx.otherCors.url + 'traces/quicksort.tarmac')}`);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'ranges');
    assert.equal(otherCors.stats.wholeRequests, 0);
    await page.close();
  });

  test('another site, the page as deployed: refused by CORS or by the page policy, saying which', async () => {
    const { page } = await openUrl(fx.browser, fx.ranged.url, `url=${encodeURIComponent(fx.other.url + 'traces/quicksort.tarmac')}`);
    const text = await errorText(page);
    assert.match(text, /Content-Security-Policy only allows trace URLs from its own site|CORS/);
    await page.close();
  });

  test('a page whose policy allows only its own origin says so', async () => {
    const { page } = await openUrl(fx.browser, fx.strict.url, `url=${encodeURIComponent(fx.otherCors.url + 'traces/quicksort.tarmac')}`);
    const text = await errorText(page);
    assert.match(text, /Content-Security-Policy only allows trace URLs from its own site/);
    // Its own origin still works.
    await page.goto(`${fx.strict.url}?url=traces/none.tarmac`);
    assert.match(await errorText(page), /HTTP 404/);
    await page.close();
  });
});
