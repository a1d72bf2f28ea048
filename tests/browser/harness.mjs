// Shared set-up for the browser tests: a static server for dist/, headless
// Chromium through playwright-core, and the native CLI as the oracle.

import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// TARMAC_LENS_DIST lets a second build (another target dir) be tested alongside.
export const DIST = process.env.TARMAC_LENS_DIST ?? path.join(ROOT, 'dist');
export const CLI = process.env.TARMAC_LENS_CLI ?? path.join(ROOT, 'target/debug/tarmac-lens');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Serves dist/ on a free port of 127.0.0.1; resolves to { url, close }.
 * Options: `dist` (another directory), `base` (the sub-path it is served
 * under, e.g. '/some/path/'; anything else is 404), `log` (an array every
 * request path is pushed to), `extra(req, res)` (sees each request first and
 * returns true if it answered it: tests serve traces next to the page that
 * way; a function alone is taken as `extra`). `setDown(true)` makes the
 * server drop every connection, as if the network were gone, while keeping
 * the origin.
 */
export async function serveDist(options = {}) {
  const { dist = DIST, base = '/', log = null, extra = null } =
    typeof options === 'function' ? { extra: options } : (options ?? {});
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: run \`trunk build\` first (scripts/test.sh does)`);
  }
  let down = false;
  const server = http.createServer((req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    if (extra?.(req, res)) return;
    const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    log?.push(urlPath);
    const rel = urlPath.startsWith(base) ? urlPath.slice(base.length) : null;
    const file = rel === null ? null : path.join(dist, rel === '' ? 'index.html' : rel);
    if (!file || !file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${base}`,
    origin: `http://127.0.0.1:${port}`,
    setDown: (value) => {
      down = value;
      if (down) server.closeAllConnections();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Headless Chromium with a throw-away profile; resolves to { context, close }.
 * The page's service worker (offline copy) is blocked unless
 * `serviceWorkers: 'allow'`: served from its cache, requests would escape
 * the tests' routes. The locale is English unless `locale` says otherwise.
 * Other `options` go to Playwright's context options (e.g. bypassCSP).
 */
/** What `promise` gives, or `otherwise` if it has not settled in `ms`. The
 * timer is cleared either way: one left running kept node (a benchmark, a
 * test file run alone) alive that long after its last browser closed. */
export async function within(promise, ms, otherwise = null) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(otherwise), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function launchBrowser({ serviceWorkers = 'block', locale = 'en-US', ...options } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1100, height: 900 },
    serviceWorkers,
    // The page speaks the browser's language: tests choose it.
    locale,
    ...options,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      // A renderer stuck in a task can keep close() waiting: then the
      // browser's processes (named by their profile) are killed.
      const closed = await within(context.close().then(() => true), 30_000, false);
      if (!closed) spawnSync('pkill', ['-KILL', '-f', profile]);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Clicks the Reports panel's download of `kind`, opening its menu first. */
export async function clickDownload(page, kind) {
  const button = `[data-testid=download-${kind}]`;
  if (!(await page.isVisible(button))) await page.click('[data-testid=menu-downloads]');
  await page.click(button);
}

/** What the native CLI says about a trace: the expected page content. */
/**
 * Serves dist/ and launches one browser for a test file: registers the
 * node:test hooks that start them before its tests and stop them after.
 * `server` and `browser` are set once the `before` hook has run.
 */
export function pageFixture() {
  const fx = { server: null, browser: null };
  before(async () => {
    fx.server = await serveDist();
    fx.browser = await launchBrowser();
  });
  after(async () => {
    await fx.browser?.close();
    await fx.server?.close();
  });
  return fx;
}

/** Closes `page`, then fails if it logged any of `problems` before the
 * close: a load still under way when a page closes is aborted, and says
 * so (seen on a loaded machine), which is no fault of the page's. */
export async function closeChecked(page, problems, message = 'the page logged errors') {
  const said = [...problems];
  await page.close();
  assert.deepEqual(said, [], message);
}

/**
 * Opens the page (with `query`: a URL's `?…` or `#…`) in a new tab of
 * `fx`'s browser (`pageFixture`, or any `{ browser, server }`), drops
 * `files` (none: the page stays idle) and waits until the trace is shown
 * and indexed, and with `symbols`, until the ELF's symbols are loaded. The
 * tab closes after test `t`, which fails if the page logged errors.
 */
export async function openTracePage(fx, t, files = [], { query = '', height = 1000, symbols = false, timeout = 60_000 } = {}) {
  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1400, height });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  t.after(async () => {
    await closeChecked(page, problems, 'the page logged errors');
  });
  await page.goto(fx.server.url + query);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  if (files.length === 0) return page;
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForSelector('.trace-row', { timeout });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout });
  if (symbols) await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  return page;
}

export function cliStats(trace) {
  const out = execFileSync(cli(), ['stats', '--json', trace], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** `cliStats` without blocking: the debug CLI takes seconds on a big trace,
 * which can overlap with the page's indexing of it. */
export function cliStatsLater(trace) {
  return new Promise((resolve, reject) => {
    execFile(cli(), ['stats', '--json', trace], { encoding: 'utf8' }, (e, out) =>
      e ? reject(e) : resolve(JSON.parse(out)),
    );
  });
}

function cli() {
  if (!fs.existsSync(CLI)) {
    throw new Error(`${CLI} is missing: run \`cargo build\` first (scripts/test.sh does)`);
  }
  return CLI;
}

/** Every trace the page is checked against, relative to the repository. */
export function traces() {
  const samples = path.join(ROOT, 'tests/data/ttu/samples');
  return [
    'tests/data/ttu/parsertest.txt',
    ...fs
      .readdirSync(samples)
      .filter((f) => fs.statSync(path.join(samples, f)).isFile())
      .sort()
      .map((f) => `tests/data/ttu/samples/${f}`),
    'tests/data/ttu/quicksort.tarmac',
    'tests/data/ttu/indextest.tarmac',
    // Every other trace of the reference tools' test data.
    ...['calltests', 'truncate'].flatMap((dir) =>
      fs
        .readdirSync(path.join(ROOT, 'tests/data/ttu', dir))
        .filter((f) => f.endsWith('.tarmac'))
        .sort()
        .map((f) => `tests/data/ttu/${dir}/${f}`),
    ),
    'tests/data/ttu/parsertest-implicit-thumb.txt',
    // Two unparsed lines: the list of unparsed lines is compared too, not
    // only found empty.
    'tests/data/fuzz/index_trace/memory-window-wrapping-past-address-0.tarmac',
    // Forms other tools' users published: cores of clusters, capability
    // addresses, an RTL logger's lines, an ES log's exception.
    ...['morello-fvp', 'cortex-m-rtl-logger', 'emulator-es'].flatMap((dir) =>
      fs
        .readdirSync(path.join(ROOT, 'tests/data/published', dir))
        .filter((f) => f.endsWith('.tarmac'))
        .sort()
        .map((f) => `tests/data/published/${dir}/${f}`),
    ),
    // The forms reported from the field, with register values short and unknown.
    ...fs
      .readdirSync(path.join(ROOT, 'tests/data/field'))
      .filter((f) => f.endsWith('.tarmac'))
      .sort()
      .map((f) => `tests/data/field/${f}`),
  ];
}

/**
 * Waits until the page shows the results for `name` (or an error), and
 * returns everything a person sees about it.
 */
export async function readResults(page, name) {
  await page.waitForFunction(
    (name) => {
      const status = document.querySelector('[data-testid=status]');
      const shown = document.querySelector('[data-testid=file-name]');
      const state = status?.getAttribute('data-state');
      return (
        document.querySelector('[data-testid=panic]') ||
        (shown?.textContent === name && (state === 'ready' || state === 'error'))
      );
    },
    name,
    { timeout: 60_000 },
  );
  return page.evaluate(() => {
    const $ = (sel) => document.querySelector(sel);
    const records = {};
    for (const cell of document.querySelectorAll('[data-kind]')) {
      records[cell.getAttribute('data-kind')] = Number(cell.dataset.count ?? cell.textContent);
    }
    return {
      panic: $('[data-testid=panic]')?.textContent ?? null,
      error: $('[data-testid=error]')?.textContent ?? null,
      state: $('[data-testid=status]').getAttribute('data-state'),
      statusLines: $('[data-testid=status]').getAttribute('data-lines'),
      lineCount: $('[data-testid=line-count]')?.textContent ?? null,
      sizeBytes: $('[data-testid=file-size]')?.getAttribute('data-bytes') ?? null,
      sizeText: $('[data-testid=file-size]')?.textContent ?? null,
      records,
      unparsedLines: [...document.querySelectorAll('[data-testid=unparsed] [data-line]')].map((li) =>
        Number(li.getAttribute('data-line')),
      ),
      valueNotes: Object.fromEntries(
        [...document.querySelectorAll('[data-testid=value-notes] [data-note]')].map((li) => [
          li.getAttribute('data-note'),
          { count: Number(li.getAttribute('data-count')), first_line: Number(li.getAttribute('data-line')), text: li.textContent },
        ]),
      ),
    };
  });
}

/**
 * Every access the watch pane lists once it has listed them all, as
 * [line, kind]: the pane draws only the rows in sight, so this scrolls
 * its list from the top a screen at a time, as a person reads it, and
 * back to the top.
 */
export async function watchHits(page) {
  await page.waitForSelector('[data-testid=watch-pane][data-listed=true]', { timeout: 30_000 });
  const count = Number(await page.getAttribute('[data-testid=watch-pane]', 'data-count'));
  const seen = new Map();
  const top = async () => {
    await page.$eval('.watch-hits', (el) => el.scrollTo(0, 0)).catch(() => {});
    if (count > 0) await page.waitForSelector('[data-testid=watch-hit][data-index="0"]');
  };
  await top();
  const drawn = () =>
    page.$$eval('[data-testid=watch-hit]', (rows) => rows.map((r) => [Number(r.dataset.index), Number(r.dataset.line), r.dataset.kind]));
  for (;;) {
    for (const [i, line, kind] of await drawn()) seen.set(i, [line, kind]);
    let next = 0;
    while (seen.has(next)) next++;
    if (next >= count) break;
    await page.$eval('.watch-hits', (el) => el.scrollBy(0, el.clientHeight));
    await page.waitForSelector(`[data-testid=watch-hit][data-index="${next}"]`);
  }
  await top();
  return [...seen.keys()].sort((a, b) => a - b).map((i) => seen.get(i));
}

/** A trace of about `mb` megabytes made by concatenating the repository's
 * traces (kept in the temporary directory and reused). */
export function makeLargeTrace(mb) {
  const file = path.join(os.tmpdir(), `tarmac-lens-page-bench-${mb}M.tarmac`);
  const want = mb * 1024 * 1024;
  if (fs.existsSync(file) && fs.statSync(file).size >= want) return file;
  const parts = [];
  for (const dir of ['tests/data/ttu/samples', 'tests/data/tracegen']) {
    for (const f of fs.readdirSync(path.join(ROOT, dir)).sort()) {
      if (f.endsWith('.tarmac')) parts.push(fs.readFileSync(path.join(ROOT, dir, f)));
    }
  }
  const fd = fs.openSync(file, 'w');
  let written = 0;
  while (written < want) {
    for (const p of parts) {
      fs.writeSync(fd, p);
      written += p.length;
      if (written >= want) break;
    }
  }
  fs.closeSync(fd);
  return file;
}

/**
 * Drops `trace` on a fresh page and measures, inside the page, the time from
 * the file input's change event to the first trace row, the long tasks on
 * the UI thread while indexing, and the time to `ready`.
 */
export async function measureDrop(browser, server, trace) {
  const bytes = fs.statSync(trace).size;
  const page = await browser.context.newPage();
  await page.addInitScript(() => {
    window.__bench = { longTasks: [], changeAt: null, firstRowAt: null, stateAtFirstRow: null };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__bench.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ entryTypes: ['longtask'] });
    document.addEventListener(
      'change',
      (e) => {
        if (e.target?.dataset?.testid === 'file-input') window.__bench.changeAt = performance.now();
      },
      true,
    );
    new MutationObserver(() => {
      if (window.__bench.changeAt !== null && window.__bench.firstRowAt === null && document.querySelector('[data-row-line]')) {
        window.__bench.firstRowAt = performance.now();
        window.__bench.stateAtFirstRow = document.querySelector('[data-testid=status]')?.dataset.state ?? null;
      }
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle][data-warm=yes]');
  // Let the spare worker start, as it would while a person picks a file.
  await page.waitForTimeout(500);
  await page.setInputFiles('[data-testid=file-input]', trace);
  await page.waitForSelector('[data-testid=status][data-state=ready], [data-testid=status][data-state=error]', {
    timeout: 600_000,
  });
  const r = await page.evaluate(() => ({ ...window.__bench, readyAt: performance.now() }));
  const during = r.longTasks.filter((t) => t.start >= r.changeAt);
  const longest = during.reduce((m, t) => Math.max(m, t.duration), 0);
  const seconds = (r.readyAt - r.changeAt) / 1000;
  await page.close();
  return {
      trace,
      bytes,
      first_row_ms: r.firstRowAt - r.changeAt,
      state_at_first_row: r.stateAtFirstRow,
      ready_seconds: seconds,
      mb_per_s: bytes / 1e6 / seconds,
      long_tasks: during.length,
      longest_task_ms: longest,
      // When each long task started, relative to the drop.
      long_task_starts_ms: during.map((t) => Math.round(t.start - r.changeAt)),
  };
}

/** The line of the trace view's current row. */
export async function currentLine(page) {
  return page.evaluate(() => Number(document.querySelector('.trace-row.current')?.dataset.line));
}

/** Waits until the current row (of the view under `within`, else any) is
 * at `line` (answers are asynchronous); on failure says what `seen(page)`
 * gives (by default the current line). `timeout` only bounds a row that
 * never gets there: a loaded machine's slow answer is still awaited. */
export async function expectLine(page, line, what, { within = '', timeout = 30_000, seen = currentLine } = {}) {
  try {
    await page.waitForFunction(
      ([selector, line]) => document.querySelector(selector)?.dataset.line === String(line),
      [`${within} .trace-row.current`.trim(), line],
      { timeout },
    );
  } catch {
    assert.fail(`${what}: current line is ${JSON.stringify(await seen(page))}, expected ${line}`);
  }
}

/** Moves the trace view to `line` with the `l` prompt. */
export async function gotoLine(page, line) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('l');
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', String(line));
  await page.press('[data-testid=prompt-input]', 'Enter');
}
