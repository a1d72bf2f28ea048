// The page must show, for every test trace, exactly what the native CLI
// computes: same parser, different platform. Both ways of opening a file are
// exercised: a real drop event and the file picker.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { cliStats, cliStatsLater, closeChecked, pageFixture, readResults, ROOT, traces } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

const fx = pageFixture();

/** A fresh page; any uncaught error or console error fails the test. */
async function openPage(t, { allowConsoleErrors = false, query = '' } = {}) {
  const page = await fx.browser.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !allowConsoleErrors) problems.push(`console error: ${m.text()}`);
  });
  t.after(async () => {
    await closeChecked(page, problems, 'the page logged errors');
  });
  await page.goto(fx.server.url + query);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  return page;
}

function checkAgainstCli(seen, trace) {
  const file = path.join(ROOT, trace);
  const expected = cliStats(file);
  assert.equal(seen.panic, null, `wasm panicked on ${trace}`);
  assert.equal(seen.error, null, `page shows an error for ${trace}`);
  assert.equal(seen.state, 'ready');
  assert.equal(seen.statusLines, String(expected.lines), `data-lines of ${trace}`);
  assert.equal(seen.lineCount, expected.lines.toLocaleString('en-US'), `line count of ${trace}`);
  assert.equal(seen.sizeBytes, String(expected.bytes), `byte size of ${trace}`);
  assert.equal(seen.sizeBytes, String(fs.statSync(file).size), `byte size of ${trace} on disk`);
  assert.deepEqual(seen.records, expected.records, `per-kind counts of ${trace}`);
  assert.deepEqual(seen.unparsedLines, expected.unparsed_lines, `unparsed lines of ${trace}`);
  // Register values short or unknown: counted and the first line named, as `stats` does.
  for (const [note, field] of [['short-registers', 'short_register_values'], ['unknown-registers', 'unknown_register_values']]) {
    const want = expected[field];
    const shown = seen.valueNotes[note];
    if (want.count === 0) {
      assert.equal(shown, undefined, `${note} of ${trace}`);
    } else {
      assert.deepEqual({ count: shown?.count, first_line: shown?.first_line }, want, `${note} of ${trace}`);
      assert.match(shown.text, new RegExp(`^${want.count} register values? .*first at line ${want.first_line}$`));
    }
  }
  // A trace with no records of any kind would make the comparison vacuous.
  assert.ok(Object.keys(seen.records).length > 0, `${trace} shows no counts`);
}

/** Drops `trace` on the drop zone with a real DragEvent carrying a File. */
async function dropFile(page, trace) {
  const name = path.basename(trace);
  const base64 = fs.readFileSync(path.join(ROOT, trace)).toString('base64');
  const dataTransfer = await page.evaluateHandle(
    ({ name, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'text/plain' }));
      return dt;
    },
    { name, base64 },
  );
  for (const type of ['dragenter', 'dragover', 'drop']) {
    await page.dispatchEvent('[data-testid=drop-zone]', type, { dataTransfer });
  }
  await dataTransfer.dispose();
  return name;
}

describe('Tarmac Lens page', () => {
  test('dropping traces shows the same stats as the CLI', async (t) => {
    const page = await openPage(t);
    for (const trace of traces()) {
      const name = await dropFile(page, trace);
      checkAgainstCli(await readResults(page, name), trace);
      // TARMAC_LENS_SCREENSHOTS=1 refreshes the README's picture.
      if (trace.endsWith('parsertest.txt') && process.env.TARMAC_LENS_SCREENSHOTS) {
        fs.mkdirSync(path.join(ROOT, 'docs'), { recursive: true });
        await page.screenshot({ path: path.join(ROOT, 'docs/screenshot.png'), fullPage: true });
      }
    }
  });

  test('choosing traces with the file picker shows the same stats as the CLI', async (t) => {
    const page = await openPage(t);
    for (const trace of traces()) {
      await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, trace));
      checkAgainstCli(await readResults(page, path.basename(trace)), trace);
    }
  });

  test('a large trace is read in the background with visible progress', async (t) => {
    // The worker posts progress at most every 250 ms, so the trace must take
    // several of those to index: 256 MiB, with one worker (more would split
    // it by the machine's cores), is about 0.8 s here, and would still show
    // progress on a machine twice as fast. A 48 MiB trace indexed in under
    // 250 ms on CI once the reading got faster, and showed none.
    const big = repeatedTrace(256);
    const expectedLater = cliStatsLater(big);
    // Awaited below; a failure before then must not be an unhandled rejection.
    expectedLater.catch(() => {});

    const page = await openPage(t, { query: '?workers=1' });
    // Record every state and percentage the page goes through; polling could
    // miss a fast run.
    await page.evaluate(() => {
      window.seen = { states: [], percents: [], rates: [] };
      const record = () => {
        const status = document.querySelector('[data-testid=status]');
        const state = status.getAttribute('data-state');
        if (window.seen.states.at(-1) !== state) window.seen.states.push(state);
        const progress = document.querySelector('[data-testid=progress]');
        if (progress) {
          window.seen.percents.push(Number(progress.getAttribute('data-percent')));
          window.seen.rates.push(document.querySelector('[data-testid=progress-rate]').textContent);
        }
      };
      new MutationObserver(record).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
    });
    await page.setInputFiles('[data-testid=file-input]', big);
    await page.waitForSelector('[data-testid=status][data-state=indexing]');
    // The main thread stays free while the worker parses: it draws the
    // progress between 0 and 100 % (checked below), which a page blocked
    // by the parsing could not (a state, not a time: a loaded machine
    // makes it slower, never blocked).

    const seen = await readResults(page, path.basename(big));
    const expected = await expectedLater;
    assert.equal(seen.error, null);
    assert.equal(seen.lineCount, expected.lines.toLocaleString('en-US'));
    assert.equal(seen.sizeBytes, String(fs.statSync(big).size));
    assert.deepEqual(seen.records, expected.records);

    const history = await page.evaluate(() => window.seen);
    // Mutations before the drop (the cache control filling in) may record
    // the idle state first; from the drop on, indexing then ready.
    const fromDrop = history.states.slice(history.states.indexOf('indexing'));
    assert.deepEqual(fromDrop, ['indexing', 'ready'], `state sequence ${history.states}`);
    assert.ok(history.states.indexOf('indexing') <= 1, `state sequence ${history.states}`);
    assert.ok(
      history.percents.some((p) => p > 0 && p < 100),
      `no intermediate progress shown: ${history.percents}`,
    );
    assert.ok(
      history.rates.some((r) => /^\d+\.\d MB\/s$/.test(r)),
      `no throughput shown: ${history.rates}`,
    );
  });

  test('the hidden rehearsal browses the worker\'s sample, steps and ends', async (t) => {
    // At load the real browser runs hidden on the spare worker's session
    // over the sample trace (src/web/components/rehearsal.rs): watched from
    // the page's start, as it is removed before the status says `data-warm`
    // (the page is `idle`, and takes a file, before).
    const page = await fx.browser.context.newPage();
    t.after(() => page.close());
    await page.addInitScript(() => {
      const seen = { lines: [], panes: false, registers: false, memory: false };
      window.__rehearsal = seen;
      new MutationObserver(() => {
        const hidden = document.querySelector('[aria-hidden=true][style*="-10000px"]');
        if (!hidden) return;
        const line = hidden.querySelector('.browser [aria-selected=true]')?.getAttribute('data-line');
        if (line && seen.lines.at(-1) !== line) seen.lines.push(line);
        seen.panes ||= !!hidden.querySelector('.browser [data-area=side]');
        seen.registers ||= !!hidden.querySelector('.browser [data-reg]');
        seen.memory ||= !!hidden.querySelector('.data-pane [data-addr]');
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    const href = fx.server.url;
    await page.goto(href);
    await page.waitForSelector('[data-testid=status][data-state=idle][data-warm=yes]', { timeout: 30_000 });
    const seen = await page.evaluate(() => window.__rehearsal);
    assert.ok(seen.panes && seen.registers && seen.memory, JSON.stringify(seen));
    assert.equal(seen.lines[0], '1', `the cursor's lines: ${seen.lines}`);
    assert.ok(seen.lines.length >= 2, `no step down: ${seen.lines}`);
    assert.equal(await page.evaluate(() => document.querySelector('[aria-hidden=true][style*="-10000px"]')), null);
    assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
    assert.equal(page.url(), href);
  });

  test('a file chosen while the page still starts is kept and opened', async (t) => {
    // As a person who picks a file the moment the page appears: before
    // the page's start-up work (the hidden rehearsal) is done.
    const trace = 'tests/data/ttu/quicksort.tarmac';
    const expected = cliStats(path.join(ROOT, trace));
    const states = [];
    for (let i = 0; i < 6; i++) {
      const page = await fx.browser.context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(fx.server.url, { waitUntil: 'commit' });
      await page.waitForSelector('[data-testid=file-input]', { state: 'attached', timeout: 30_000 });
      states.push(await page.getAttribute('[data-testid=status]', 'data-state'));
      await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, trace));
      await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 30_000 });
      assert.equal(await page.getAttribute('[data-testid=status]', 'data-lines'), String(expected.lines));
      await page.waitForSelector('.trace-row.current', { timeout: 30_000 });
      assert.deepEqual(errors, []);
      await page.close();
    }
    t.diagnostic(`states when the file was chosen: ${states.join(', ')}`);
  });

  test('a worker that cannot start is reported as an error, not a hang', async (t) => {
    // Worker scripts are fetched outside the page, so route at context
    // level, and before the page loads: it starts a worker ahead of the drop.
    const missing = '**/tarmac-lens-worker_loader.js';
    await fx.browser.context.route(missing, (route) => route.fulfill({ status: 404 }));
    t.after(() => fx.browser.context.unroute(missing));
    const page = await openPage(t, { allowConsoleErrors: true });
    await page.setInputFiles('[data-testid=file-input]', path.join(ROOT, traces()[0]));
    const seen = await readResults(page, path.basename(traces()[0]));
    assert.equal(seen.state, 'error');
    assert.match(seen.error, /worker/);
  });
});
