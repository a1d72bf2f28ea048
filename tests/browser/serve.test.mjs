// `tarmac-lens serve` (TARMAC_LENS_CLI, with --page TARMAC_LENS_DIST): the
// page it serves browses the trace with every pane, answered by the
// server, and shows what the CLI and the trace text say: the first rows,
// a jump and steps with the keys, the registers, a search's count, a call
// folded and named from the ELF, the watch (`W`), the "why?" tree (`y`) and
// a condition (`c`); the memory pane and the Reports panel equal those of
// the same trace dropped on the page; a .gz served shows the same; a
// multi-core trace follows the core `--cpu` names. Questions go by the
// page's socket, by POST where it cannot open, and a server gone is said. A
// request without the printed token is refused, the page included. The
// first screen after the page's load and the step latency are logged
// (docs/performance.md), never asserted.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';

import { CLI, ROOT, cliStats, closeChecked, expectLine, gotoLine, launchBrowser, serveDist, watchHits } from './harness.mjs';
import { checkFoldNamed, checkRegisters, firstCall } from './browse_check.mjs';
import { percentile, recordSteps, serve, timeSteps } from './served.mjs';
import { previousWrite, readTrace } from './trace_text.mjs';

const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
const ELF = path.join(ROOT, 'tests/data/elf/quicksort-aarch64-O2-fastmodel-2M.elf');
// The array quicksort sorts (`qs_array`), and x19 pointing into it.
const ARRAY = '0x10780:64';
const CONDITION = 'x19 > 0x10780 && x19 < 0x10790';
const STEPS = 200;

const dirs = [];

/** A copy of `bytes` in a directory of its own (the index goes beside it). */
function copy(name, bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-serve-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

let browser;
const servers = [];
// However the run ends (a test that timed out, --test-force-exit), no
// server outlives it.
process.on('exit', () => servers.forEach((s) => s.close()));
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  for (const s of servers) s.close();
  await browser?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function served(trace, ...args) {
  const s = serve(CLI, trace, ...args);
  servers.push(s);
  return s.url;
}

const squash = (s) => s.replace(/\s+/g, ' ').trim();

async function rowsShown(page) {
  return page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll('.trace-row[data-row-line]')].map((r) => [Number(r.dataset.rowLine), r.textContent])),
  );
}

/** A page that records, from its start, when the first row showed, when
 * each Down key went and when the current row moved; errors fail the test. */
async function newPage(t, { refusals = false, tolerate = null } = {}) {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // The refusals a test asks for are logged as failed loads.
    if (refusals && /status of 403/.test(m.text())) return;
    if (tolerate?.test(m.text())) return;
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  t.after(async () => {
    await closeChecked(page, problems);
  });
  await recordSteps(page);
  return page;
}

async function openServed(t, url, name) {
  const page = await newPage(t);
  // The page opens the trace written into it as it starts: it never asks
  // `api/open`, and never shows the drop page meanwhile.
  const opens = [];
  page.on('request', (r) => r.url().includes('/api/open') && opens.push(r.url()));
  await page.addInitScript(() => {
    new MutationObserver(() => {
      if (document.querySelector('[data-testid=demo-button]')) window.__dropPageShown = true;
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(url);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.waitForSelector('.trace-row.current');
  assert.equal(await page.textContent('[data-testid=file-name]'), name);
  assert.equal(await page.getAttribute('[data-testid=status]', 'data-reading'), 'served');
  assert.deepEqual(opens, []);
  assert.equal(await page.evaluate(() => window.__dropPageShown ?? false), false);
  return page;
}

async function openDropped(t, server) {
  const page = await newPage(t);
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  return page;
}

/** The first screen after the page's load, and `STEPS` Down keys' latency
 * (key to the current row moving), measured in the page; each step waits
 * until the row is at `lines[k]`, however long that takes. */
async function timings(page, lines) {
  const { steps, stuck, ...firstScreen } = await timeSteps(page, STEPS, { gap: 0, lines });
  return { ...firstScreen, steps: steps.length, stuck, step_p50_ms: percentile(steps, 50), step_p99_ms: percentile(steps, 99) };
}

/** The CLI's answers, the oracles. */
function cli(...args) {
  const r = spawnSync(CLI, [...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function cliWatch(trace, range) {
  return cli('watch', '--no-index', trace, '--mem', range)
    .split('\n')
    .filter(Boolean)
    .map((l) => [Number(l.split(' ')[1]), l.split(': ')[1].split(' ')[0]]);
}

function cliWhy(trace, line, what) {
  const rows = [];
  const walk = (n, p) => {
    rows.push([p, n.what, n.value, n.writer ? String(n.writer.line) : null, n.source.kind]);
    n.inputs.forEach((c, i) => walk(c, p === '' ? String(i) : `${p}.${i}`));
  };
  walk(JSON.parse(cli('why', '--no-index', trace, '--image', ELF, '--line', String(line), what, '--depth', '4', '--json')), '');
  return rows;
}

async function prompt(page, key, text) {
  await page.click('.trace-row.current');
  await page.keyboard.press(key);
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', text);
  await page.press('[data-testid=prompt-input]', 'Enter');
}

/** The memory pane at `sp` after line `line`, as a person reads it. */
async function memoryAt(page, line) {
  await gotoLine(page, line);
  await expectLine(page, line, 'before the memory pane');
  await prompt(page, 'm', 'sp');
  await page.waitForFunction(() => /[0-9a-f]{2}/.test(document.querySelector('.memory')?.textContent ?? ''), null, { timeout: 30_000 });
  return squash(await page.textContent('.memory'));
}

/** The timeline's node count once drawn (`nodes`: wait for that count),
 * and the line a click at 80% of its width goes to. */
async function timelineClick(page, nodes = null) {
  await page.waitForFunction(
    (nodes) => {
      const n = Number(document.querySelector('[data-testid=timeline]')?.dataset.nodes ?? 0);
      return nodes === null ? n > 0 : n === nodes;
    },
    nodes,
    { timeout: 60_000 },
  );
  const drawn = Number(await page.getAttribute('[data-testid=timeline]', 'data-nodes'));
  const lineNow = () => {
    const line = Number(document.querySelector('.trace-row.current')?.dataset.line);
    return Number.isFinite(line) && line;
  };
  const before = await (await page.waitForFunction(lineNow)).jsonValue();
  const canvas = page.locator('[data-testid=timeline-canvas]');
  const box = await canvas.boundingBox();
  await canvas.click({ position: { x: box.width * 0.8, y: box.height / 2 } });
  // The line the current row moved to (a row redrawn meanwhile has none
  // for a moment: not a line).
  const moved = await page.waitForFunction(
    (before) => {
      const line = Number(document.querySelector('.trace-row.current')?.dataset.line);
      return Number.isFinite(line) && line !== before && line;
    },
    before,
    { timeout: 30_000 },
  );
  return { nodes: drawn, line: await moved.jsonValue() };
}

async function reportsSummary(page) {
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
  return squash(await page.textContent('[data-testid=reports-summary]'));
}

describe('tarmac-lens serve', () => {
  test('the served page browses as the CLI and the trace text say, as a dropped trace does', async (t) => {
    const trace = copy('quicksort.tarmac', fs.readFileSync(TRACE));
    const url = await served(trace, '--image', ELF);
    const text = readTrace(TRACE);
    const page = await openServed(t, url, 'quicksort.tarmac');
    const expected = cliStats(TRACE);
    assert.equal(Number(await page.getAttribute('[data-testid=status]', 'data-lines')), expected.lines);
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });

    // The first screen: the trace's first lines.
    const first = await rowsShown(page);
    const numbers = Object.keys(first).map(Number);
    assert.ok(numbers.length >= 10, `${numbers.length} rows shown`);
    for (const n of numbers.slice(0, 10)) assert.ok(squash(first[n]).includes(squash(text.lines[n - 1])), `line ${n}: ${first[n]}`);

    // A jump, then three instructions on with the Down key.
    await gotoLine(page, 2004);
    await expectLine(page, 2004, 'the jump');
    const at = text.instructions.findIndex((i) => i.line === 2004);
    await page.click('.trace-row.current');
    for (let k = 1; k <= 3; k++) {
      await page.keyboard.press('ArrowDown');
      await expectLine(page, text.instructions[at + k].line, `Down ${k}`);
    }
    await checkRegisters(page, TRACE);

    // "why?" of x0 at 2004, the CLI's tree.
    await gotoLine(page, 2004);
    await expectLine(page, 2004, 'back to 2004');
    await page.click('[data-reg=x0]');
    // The click's move to x0's previous write, waited for as a state.
    const whyAt = previousWrite(text, 'x0', 2004);
    await expectLine(page, whyAt, 'the previous write of x0');
    await page.keyboard.press('y');
    await page.waitForSelector('[data-testid=why-tree]', { timeout: 30_000 });
    const whyShown = await page.$$eval('[data-testid=why-step]', (rows) =>
      rows.map((r) => [r.dataset.path, r.dataset.what, r.dataset.value, r.dataset.line ?? null, r.dataset.source]),
    );
    assert.deepEqual(whyShown, cliWhy(TRACE, whyAt, 'x0'));
    await page.click('[data-testid=why-close]');

    // The watch pane: every access of the array, as the CLI's watch.
    await prompt(page, 'W', ARRAY);
    const hits = await watchHits(page);
    const wantHits = cliWatch(TRACE, ARRAY);
    assert.ok(wantHits.length > 10);
    assert.deepEqual(hits, wantHits);
    await page.click('[data-testid=watch-close]');

    // A condition: where the CLI's find first finds it.
    const found = cli('find', '--no-index', TRACE, CONDITION, '--first').split('\n')[0];
    const firstHit = Number(found.split(' ')[1]);
    await gotoLine(page, 1);
    await expectLine(page, 1, 'the start');
    await prompt(page, 'c', CONDITION);
    await expectLine(page, firstHit, 'the condition', { timeout: 30_000 });

    // A search: the CLI's count of lines.
    const pattern = 'LDR';
    const count = Number(cli('search', '-c', TRACE, pattern).trim());
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('/');
    await page.waitForSelector('[data-testid=search-input]');
    await page.fill('[data-testid=search-input]', pattern);
    await page.press('[data-testid=search-input]', 'Enter');
    await page.waitForSelector('[data-testid=search-status]:is([data-state=done],[data-state=error])', { timeout: 60_000 });
    assert.equal(await page.getAttribute('[data-testid=search-status]', 'data-state'), 'done');
    assert.equal(Number(await page.getAttribute('[data-testid=search-status]', 'data-matches')), count);
    await page.press('[data-testid=search-input]', 'Escape').catch(() => {});

    // A call folded and named from the ELF the server loaded.
    await checkFoldNamed(page, firstCall(TRACE, ELF));

    // The memory pane and the Reports panel (which reads the trace's text
    // by ranges from the server) equal the dropped trace's, each on a
    // page just opened.
    const fresh = await openServed(t, url, 'quicksort.tarmac');
    await fresh.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    const memoryLine = text.instructions[1400].line;
    const memory = await memoryAt(fresh, memoryLine);
    const reports = await reportsSummary(fresh);
    const server = await serveDist();
    t.after(() => server.close());
    const dropped = await openDropped(t, server);
    assert.equal(await memoryAt(dropped, memoryLine), memory);
    assert.equal(await reportsSummary(dropped), reports);
    assert.match(reports, /\d/);
    // The timeline: drawn over the whole trace at once (the served index is
    // whole before the page starts), and a click at 80% of it goes where
    // the dropped trace's does, four fifths of the way in.
    const servedClick = await timelineClick(fresh);
    const droppedClick = await timelineClick(dropped, servedClick.nodes);
    assert.deepEqual(servedClick, droppedClick);
    const last = text.instructions.at(-1).line;
    assert.ok(servedClick.line > last * 0.7 && servedClick.line < last * 0.9, `80% of the timeline is line ${servedClick.line} of ${last}`);
  });

  test('a .gz served shows the plain trace; first screen and steps measured', async (t) => {
    const gz = copy('quicksort.tarmac.gz', zlib.gzipSync(fs.readFileSync(TRACE)));
    const url = await served(gz);
    const page = await openServed(t, url, 'quicksort.tarmac.gz');
    assert.equal(Number(await page.getAttribute('[data-testid=status]', 'data-lines')), cliStats(TRACE).lines);
    const text = readTrace(TRACE);
    const first = await rowsShown(page);
    for (const n of Object.keys(first).map(Number).slice(0, 10)) {
      assert.ok(squash(first[n]).includes(squash(text.lines[n - 1])), `line ${n}: ${first[n]}`);
    }
    await checkRegisters(page, TRACE);
    const late = text.instructions[text.instructions.length - 40].line;
    await gotoLine(page, late);
    await expectLine(page, late, 'a jump near the end');
    assert.ok(squash((await rowsShown(page))[late]).includes(squash(text.lines[late - 1])));
    // An ELF image given on the page goes to the server, which names the
    // calls with it, and keeps it for the next load.
    assert.equal(await page.$('[data-testid=elf-symbols]'), null);
    await page.setInputFiles('[data-testid=elf-input]', ELF);
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    await checkFoldNamed(page, firstCall(TRACE, ELF));
    // Reloaded: the first screen after the page's load, then steps from a
    // known instruction, nothing folded, each to the trace's next
    // instruction. Each step waits for its row, not for a time: a loaded
    // machine makes them slow, never wrong; a step that does not move the
    // row fails the test. Their latency is logged, never asserted.
    await page.reload();
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('.trace-row.current');
    await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
    await page.focus('[data-testid=browser]');
    await page.keyboard.press('}');
    await page.waitForFunction(() => !document.querySelector('[data-testid=fold-row]'));
    const from = 100;
    await gotoLine(page, text.instructions[from].line);
    await expectLine(page, text.instructions[from].line, 'the steps\' start');
    const lines = text.instructions.slice(from + 1, from + 1 + STEPS).map((i) => i.line);
    assert.equal(lines.length, STEPS);
    const measured = await timings(page, lines);
    console.log(`serve timings (${path.basename(gz)}, ${fs.statSync(TRACE).size} bytes): ${JSON.stringify(measured)}`);
    assert.equal(measured.stuck, null, `a step did not move the row to the next instruction: ${JSON.stringify(measured.stuck)}`);
    assert.equal(measured.steps, STEPS);
  });

  test('a multi-core trace is served following the core --cpu names; the page says where to choose it', async (t) => {
    // cpu1 alone is a trace of its own; merged by time with cpu0's, the
    // server follows cpu1 and its registers at the end are cpu1's own.
    const groups = (text) => {
      const out = [];
      for (const line of text.split('\n')) {
        if (!line) continue;
        const m = /^(\d+) /.exec(line);
        if (m || !out.length) out.push({ time: m ? Number(m[1]) : 0, lines: [line] });
        else out[out.length - 1].lines.push(line);
      }
      return out;
    };
    const a = fs.readFileSync(path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac'), 'latin1');
    const b = fs.readFileSync(path.join(ROOT, 'tests/data/multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac'), 'latin1');
    const merged = [...groups(a).map((g, i) => ({ ...g, who: 0, i })), ...groups(b).map((g, i) => ({ ...g, who: 1, i }))]
      .sort((x, y) => x.time - y.time || x.who - y.who || x.i - y.i)
      .flatMap((g) => g.lines)
      .join('\n');
    const finals = {};
    for (const line of b.split('\n')) {
      const m = /^\d+ clk cpu1 R (X\d+) ([0-9a-fA-F_]+)$/.exec(line);
      if (m) finals[m[1].toLowerCase()] = m[2].replaceAll('_', '').toLowerCase();
    }
    const url = await served(copy('two-cores.tarmac', Buffer.from(`${merged}\n`, 'latin1')), '--cpu', 'cpu1');
    const page = await openServed(t, url, 'two-cores.tarmac');
    await page.waitForSelector('[data-testid=core-served]');
    assert.match(await page.textContent('[data-testid=core-served]'), /serve --cpu/);
    assert.equal(await page.$('[data-testid=core-picker]'), null);
    await page.click('[data-testid=trace-pane]');
    await page.keyboard.press('End');
    await page.waitForFunction(() => / cpu1 IT /.test(document.querySelector('.trace-row.current')?.textContent ?? ''));
    const want = Object.entries(finals).slice(0, 6);
    assert.ok(want.length >= 3);
    await page.waitForFunction(
      (want) => want.every(([r, v]) => document.querySelector(`[data-reg=${r}]`)?.textContent === v),
      want,
      { timeout: 30_000 },
    );
  });

  test('questions go by the page\'s socket once it opens, by POST where none opens; a server gone is said', async (t) => {
    const trace = copy('quicksort.tarmac', fs.readFileSync(TRACE));
    const server = serve(CLI, trace);
    servers.push(server);
    const url = await server.url;
    const text = readTrace(TRACE);
    const at = text.instructions.findIndex((i) => i.line === 2004);
    /** Steps `n` instructions on from line 2004, each checked; counts what
     * went by POST and by the socket meanwhile. */
    const steps = async (page, n, sent) => {
      await gotoLine(page, 2004);
      await expectLine(page, 2004, 'the jump');
      await page.click('.trace-row.current');
      const before = { posts: sent.posts, frames: sent.frames };
      for (let k = 1; k <= n; k++) {
        await page.keyboard.press('ArrowDown');
        await expectLine(page, text.instructions[at + k].line, `Down ${k}`);
      }
      return { posts: sent.posts - before.posts, frames: sent.frames - before.frames };
    };
    const watch = (page) => {
      const sent = { posts: 0, frames: 0, sockets: [] };
      page.on('request', (r) => r.url().includes('/api/ask') && sent.posts++);
      page.on('websocket', (ws) => {
        sent.sockets.push(new URL(ws.url()).pathname);
        ws.on('framesent', () => sent.frames++);
      });
      return sent;
    };

    // A browser's socket: every step's questions go by it. (The server
    // stopped at the end, the page's requests fail.)
    const page = await newPage(t, { tolerate: /ERR_CONNECTION_(REFUSED|RESET)/ });
    // The server answers: the page starts no worker, now or when idle.
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    const sent = watch(page);
    await page.goto(url);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('.trace-row.current');
    const token = new URL(url).pathname.split('/')[1];
    assert.deepEqual(sent.sockets, [`/${token}/api/socket`]);
    const bySocket = await steps(page, 8, sent);
    assert.equal(bySocket.posts, 0, 'nothing posted once the socket is open');
    assert.ok(bySocket.frames >= 8, `${bySocket.frames} batches on the socket for 8 steps`);
    await checkRegisters(page, TRACE);

    // A proxy that passes no upgrade: the socket closes before it opens,
    // and the same steps are posted.
    const proxied = await newPage(t);
    await proxied.addInitScript(() => {
      window.WebSocket = class extends EventTarget {
        constructor() {
          super();
          this.readyState = 0;
          setTimeout(() => {
            this.readyState = 3;
            this.onclose?.({ code: 1006, reason: '' });
          }, 0);
        }
        send() {
          throw new Error('never open');
        }
      };
    });
    const postedSent = watch(proxied);
    // What the page said and asked, for a failure to show.
    const heard = [];
    proxied.on('console', (m) => heard.push(`${m.type()}: ${m.text()}`));
    proxied.on('requestfailed', (r) => heard.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    proxied.on('request', (r) => heard.push(`asked: ${new URL(r.url()).pathname}`));
    proxied.on('response', (r) => heard.push(`${r.status()} ${new URL(r.url()).pathname}`));
    proxied.on('pageerror', (e) => heard.push(`page error: ${e.message}`));
    await proxied.goto(url);
    await proxied
      .waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 })
      .catch(async (e) => {
        const status = await proxied.textContent('[data-testid=status]').catch(() => '?');
        throw new Error(`${e.message}\nstatus: ${status}\n${heard.join('\n')}`);
      });
    await proxied.waitForSelector('.trace-row.current');
    const byPost = await steps(proxied, 4, postedSent);
    assert.ok(byPost.posts >= 4, `${byPost.posts} batches posted for 4 steps`);
    await checkRegisters(proxied, TRACE);
    await proxied.close();

    // The server stops: the next step says so, in words, with how to get
    // it back (docs/serve.md), and no browser error object.
    server.close();
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('[data-testid=status-message]', { timeout: 60_000 });
    const said = await page.textContent('[data-testid=status-message]');
    assert.match(said, /^The tarmac-lens serve process has stopped answering: it was stopped, or the SSH tunnel to it closed\. Run tarmac-lens serve again \(and the tunnel\) and open the URL it prints: each run has a new one\.$/);
    assert.doesNotMatch(said, /JsValue|TypeError|wasm|\n/);
    assert.deepEqual(workers, [], 'workers started on the served page');
  });

  test('without the printed token, nothing is served: the page shows the refusal', async (t) => {
    const url = new URL(await served(copy('t.tarmac', fs.readFileSync(TRACE))));
    const token = url.pathname.split('/')[1];
    assert.match(token, /^[0-9a-f]{32}$/);
    const wrong = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    const page = await newPage(t, { refusals: true });
    for (const pathname of ['/', `/${wrong}/`, '/index.html', `/${wrong}/api/open`, `/${wrong}/trace`]) {
      const response = await page.goto(`${url.origin}${pathname}?serve=1`);
      assert.equal(response.status(), 403, pathname);
      assert.match(await page.textContent('body'), /403 Forbidden/, pathname);
      assert.equal(await page.$('[data-testid=status]'), null, `${pathname}: no page`);
    }
    const ok = await page.goto(url.href);
    assert.equal(ok.status(), 200);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  });
});

// So that a CLI missing is said before the browser starts.
if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: cargo build first`);
execFileSync(CLI, ['serve', '--help'], { stdio: 'ignore' });
