// Parallel indexing in the page: a generated trace of about 100 MB dropped
// with `?workers=1` (the session's worker alone) and `?workers=2` (a second
// worker indexes the second half, which the session adopts) must end with
// the same index (its digest, `?digest=1`), the record counts the CLI
// prints, and progress that only grows to 100 %; so must a drop whose range
// worker dies (`?crash=range-worker`). The range worker is started before
// the drop (a spare), and the spares for the next file only once indexing
// has ended.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { cliStats, launchBrowser, serveDist, within } from './harness.mjs';
import { repeatedTrace } from './tracegen.mjs';

let server;
before(async () => {
  server = await serveDist();
});
after(async () => {
  await server?.close();
});

/** Notes every progress percentage the page shows. */
function watchProgress() {
  window.__percents = [];
  new MutationObserver(() => {
    const p = document.querySelector('[data-testid=progress]');
    if (p) window.__percents.push(Number(p.dataset.percent));
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

/** What `fn` returns in worker `w`, or null: a worker closing meanwhile
 * (a range worker, done) may never answer, and an evaluation left waiting
 * keeps the browser, and so the test run, alive. */
function inWorker(w, fn, ms = 1000) {
  return within(w.evaluate(fn).catch(() => null), ms);
}

/** The page's workers that answer (not the nested `blob:` readers), with
 * their names: '' for session workers, `tarmac-lens-next` for the spare
 * session worker started while a trace is open (it makes no read buffers
 * ahead), `tarmac-lens-range` for range workers. */
async function namedWorkers(page) {
  const named = [];
  for (const w of page.workers()) {
    if (w.url().startsWith('blob:')) continue;
    const name = await inWorker(w, () => self.name);
    if (name !== null) named.push({ worker: w, name });
  }
  return named;
}

/** A spare session worker's name while a trace is open. */
const NEXT = 'tarmac-lens-next';

/** The names of the page's workers, sorted. */
async function workerNames(page) {
  return (await namedWorkers(page)).map((n) => n.name).sort();
}

/** Waits until the page's workers are named `want` (sorted). */
async function waitForWorkers(page, want, ms = 60_000) {
  const until = Date.now() + ms;
  let names;
  while (Date.now() < until) {
    names = await workerNames(page);
    if (JSON.stringify(names) === JSON.stringify(want)) return names;
    await page.waitForTimeout(100);
  }
  return names;
}

/** Gives `fn(page, spares)` on a page at `?QUERY` in a fresh browser (a
 * fresh profile: the same file dropped again in one profile would be
 * restored from the index cache), once the page is idle and its spare
 * workers are named `spares` (sorted), or 15 s have passed; `init` runs in
 * the page before its own scripts. */
async function onIdlePage(query, spares, fn, init = null) {
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    if (init) await page.addInitScript(init);
    await page.goto(`${server.url}?${query}`);
    await page.waitForSelector('[data-testid=status][data-state=idle][data-warm=yes]');
    return await fn(page, await waitForWorkers(page, spares));
  } finally {
    await browser.close();
  }
}

/** Drops `trace` on a fresh page with `?workers=N` (and `extra` query);
 * `whileIndexing(page)` runs once the page says it indexes. Under
 * `&prewarm=held` the page's wait for the next file's spares is let go
 * once the file is indexed. */
async function dropWith(trace, workers, extra = '', { whileIndexing: duringIndexing = null } = {}) {
  // The spares: a session worker, and a range worker for each other
  // worker a big file gets.
  const spares = ['', ...Array(workers - 1).fill('tarmac-lens-range')];
  return onIdlePage(`workers=${workers}&digest=1${extra}`, spares, async (page, sparesBefore) => {
    const startedWhileIndexing = [];
    // What the workers say of a range indexed again (the page itself
    // shows nothing: the index is the same).
    const rangeWarnings = [];
    page.on('console', (m) => {
      if (m.type() === 'warning' && /^tarmac-lens: .*range/.test(m.text())) rangeWarnings.push(m.text());
    });
    page.on('worker', (w) => {
      if (!w.url().startsWith('blob:')) startedWhileIndexing.push(w.url());
    });
    const started = Date.now();
    await page.setInputFiles('[data-testid=file-input]', trace);
    if (duringIndexing) {
      await page.waitForSelector('[data-testid=status][data-state=indexing]', { timeout: 60_000 });
      await duringIndexing(page);
    }
    await page.waitForSelector('[data-testid=status][data-state=ready], [data-testid=panic], [data-testid=error]', {
      timeout: 180_000,
    });
    await page.waitForSelector('body[data-index-digest]', { timeout: 60_000 });
    const seconds = (Date.now() - started) / 1000;
    const got = await page.evaluate(() => {
      const records = {};
      for (const cell of document.querySelectorAll('[data-kind]')) {
        records[cell.getAttribute('data-kind')] = Number(cell.dataset.count ?? cell.textContent);
      }
      return {
        state: document.querySelector('[data-testid=status]').getAttribute('data-state'),
        lines: Number(document.querySelector('[data-testid=status]').getAttribute('data-lines')),
        digest: document.body.dataset.indexDigest,
        ranges: document.body.dataset.indexRanges,
        records,
        percents: window.__percents,
        panic: document.querySelector('[data-testid=panic]')?.textContent ?? null,
      };
    });
    const whileIndexing = [...startedWhileIndexing];
    if (extra.includes('prewarm=held')) await page.evaluate(() => window.tarmacLensPrewarm());
    // The finished, stitched index is what the index cache keeps.
    await page.waitForSelector('[data-testid=status][data-index-cache=saved]', { timeout: 60_000 });
    // Spares again for the next file: the open trace's worker, a spare
    // session worker and the range workers.
    const sparesAfter = await waitForWorkers(page, ['', NEXT, ...spares.slice(1)]);
    // And no more: a range worker ends once its range is sent. One that
    // closed but never ended (its nested reader stopped in the same task)
    // stays among the page's workers, answering nothing, and keeps its
    // memory (528 MB after a 32 GB drop).
    const loaders = () => page.workers().filter((w) => !w.url().startsWith('blob:')).length;
    const until = Date.now() + 60_000;
    while (loaders() > sparesAfter.length && Date.now() < until) await page.waitForTimeout(100);
    const workersAfter = loaders();
    await page.close();
    return { ...got, seconds, sparesBefore, whileIndexing, sparesAfter, workersAfter, rangeWarnings };
  }, watchProgress);
}

test('two workers build the index one worker builds', { timeout: 600_000 }, async () => {
  const trace = repeatedTrace(Number(process.env.TARMAC_LENS_WORKERS_MB ?? 100));
  const expected = cliStats(trace);
  const one = await dropWith(trace, 1);
  const two = await dropWith(trace, 2);
  console.log(`${path.basename(trace)}: 1 worker ${one.seconds} s, 2 workers ${two.seconds} s`);
  for (const [n, r] of [
    [1, one],
    [2, two],
  ]) {
    assert.equal(r.state, 'ready', `${n} workers`);
    assert.equal(r.lines, expected.lines, `${n} workers: lines`);
    for (const [kind, count] of Object.entries(expected.records)) {
      assert.equal(r.records[kind], count, `${n} workers: ${kind} records`);
    }
    // Progress only grows (other workers' bytes count as they are
    // indexed), and ends complete.
    const shown = r.percents.filter((p) => Number.isFinite(p));
    assert.ok(shown.length > 2, `${n} workers: progress was shown`);
    for (let i = 1; i < shown.length; i++) {
      assert.ok(shown[i] >= shown[i - 1], `${n} workers: progress went back from ${shown[i - 1]} to ${shown[i]}`);
    }
    assert.equal(shown[shown.length - 1], 100);
  }
  // One worker: nothing to adopt; two: the second half was adopted.
  assert.equal(one.ranges, '0/0');
  assert.equal(two.ranges, '1/1');
  assert.deepEqual([...one.rangeWarnings, ...two.rangeWarnings], []);
  assert.match(one.digest, /^[0-9a-f]{16}-\d+$/);
  assert.equal(two.digest, one.digest, 'the index two workers built differs from the one-worker index');
  for (const [n, r] of [
    [1, one],
    [2, two],
  ]) {
    const range = Array(n - 1).fill('tarmac-lens-range');
    assert.deepEqual(r.sparesBefore, ['', ...range], `${n} workers: spares before the drop`);
    // The spares took the file and its range: no worker started while
    // indexing (a spare session worker's warm-up would take a core).
    assert.deepEqual(r.whileIndexing, [], `${n} workers: workers started while indexing`);
    assert.deepEqual(r.sparesAfter, ['', NEXT, ...range], `${n} workers: spares after indexing`);
    assert.equal(r.workersAfter, r.sparesAfter.length, `${n} workers: a range worker outlived its range`);
  }

  // A range worker that dies: the session's worker indexes its range, and
  // the index is still the same; nothing is shown as a crash.
  const failed = await dropWith(trace, 2, '&crash=range-worker');
  assert.equal(failed.panic, null);
  assert.equal(failed.state, 'ready');
  assert.equal(failed.ranges, '0/1');
  // The console says why it took longer.
  assert.deepEqual(failed.rangeWarnings, [
    "tarmac-lens: range 1's worker stopped; the range is indexed here instead",
    'tarmac-lens: 1 of 1 ranges indexed by other workers were indexed again here',
  ]);
  assert.equal(failed.lines, expected.lines);
  assert.equal(failed.digest, one.digest, 'the index after a failed range worker differs');
});

test('a file dropped while the page waits to start a spare starts no worker while it is indexed', { timeout: 240_000 }, async () => {
  // The page starts its spare worker at load and, 2 s after any time it is
  // not indexing (its load among them), again if the spare was taken. A
  // file dropped within those 2 s took the spare: the wait must give up,
  // not start a spare (whose warm-up took 85-110 ms of a core) in the
  // middle of the file's indexing. `prewarm=held` ends the load's wait
  // when the test says, here while the page shows it indexes.
  const trace = repeatedTrace(256);
  const r = await dropWith(trace, 1, '&prewarm=held', {
    whileIndexing: async (page) => {
      const state = await page.evaluate(() => {
        const s = document.querySelector('[data-testid=status]').getAttribute('data-state');
        window.tarmacLensPrewarm();
        return s;
      });
      assert.equal(state, 'indexing', 'the wait ended before the file was indexed');
    },
  });
  assert.equal(r.state, 'ready');
  assert.deepEqual(r.whileIndexing, [], 'workers started while indexing');
  assert.deepEqual(r.sparesAfter, ['', NEXT], 'spares after indexing');
});

test('indexing and the split wait for the first rows to be drawn', { timeout: 240_000 }, async () => {
  // On two cores the page's thread that draws the first rows shares the
  // machine with the indexing worker, its reader and the browser reading
  // the file. So after the first step (the first screenful's lines) the
  // session worker indexes nothing more, and does not split the trace for
  // the range workers, until the page says the rows are drawn (the
  // worker's `first rows shown` span), or 100 ms have passed. Spans of the
  // worker's own clock: the page's and a worker's `timeOrigin` are not
  // comparable to the millisecond.
  const trace = repeatedTrace(256);
  await onIdlePage('workers=2', ['', 'tarmac-lens-range'], async (page) => {
    // The session's worker only: the range worker closes itself when done,
    // about when the spans are read.
    const sessionWorkers = (await namedWorkers(page)).filter((n) => n.name === '').map((n) => n.worker);
    assert.equal(sessionWorkers.length, 1, 'one session worker before the drop');
    await page.setInputFiles('[data-testid=file-input]', trace);
    await page.waitForSelector('[data-row-line]', { timeout: 60_000 });
    // Until the held indexing has gone on and split: a state of the
    // worker's spans, asked again until it is there, however long a loaded
    // machine takes.
    const read = () =>
      inWorker(
        sessionWorkers[0],
        () =>
          performance
            .getEntriesByType('measure')
            .filter((e) => ['index step', 'split', 'first rows shown'].includes(e.name))
            .map((e) => ({ name: e.name, at: e.startTime })),
        30_000,
      );
    const until = Date.now() + 120_000;
    let spans = await read();
    const count = (name) => spans?.filter((e) => e.name === name).length ?? 0;
    while (!(count('index step') >= 2 && count('split') >= 1 && count('first rows shown') >= 1) && Date.now() < until) {
      await page.waitForTimeout(100);
      spans = await read();
    }
    assert.ok(spans, 'the session worker did not answer');
    const at = (name) => spans.filter((e) => e.name === name).map((e) => e.at);
    const [steps, split, shown] = [at('index step'), at('split'), at('first rows shown')];
    assert.equal(shown.length, 1, 'the page said once that it shows the first rows');
    assert.ok(steps.length >= 2, `${steps.length} index steps`);
    assert.ok(steps[0] < shown[0], 'the first step came before the first rows');
    // Held until the page said so, or until the hold's 100 ms were up.
    const resumable = Math.min(shown[0], steps[0] + 95);
    assert.ok(
      steps[1] >= resumable,
      `the second index step started ${(resumable - steps[1]).toFixed(1)} ms before the first rows were shown`,
    );
    assert.equal(split.length, 1, 'the trace was split once');
    assert.ok(split[0] >= resumable, `split ${(resumable - split[0]).toFixed(1)} ms before the first rows were shown`);
    await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 180_000 });
  });
});

test('the spares for the next file wait while the person steps', { timeout: 240_000 }, async () => {
  // Two seconds after indexing ends the page starts spare workers for the
  // next file, whose warm-up takes a core for about 100 ms: not while
  // someone steps through the trace (each key asks the worker), only once
  // the page has asked nothing for a second.
  // What is checked is the cause, in the page's own clock: every worker
  // the page starts after the drop starts a second or more after the last
  // key and two after `ready`. A loaded machine that makes the steps slow
  // may let a spare start between two of them, rightly: what it may never
  // do is start one less than a second after a key.
  const trace = repeatedTrace(100);
  const init = () => {
    const seen = (window.__spares = { keys: [], workers: [], readyAt: null, dropAt: null });
    document.addEventListener('keydown', () => seen.keys.push(performance.now()), true);
    document.addEventListener('change', () => (seen.dropAt ??= performance.now()), true);
    const Original = window.Worker;
    window.Worker = class extends Original {
      constructor(...args) {
        super(...args);
        seen.workers.push(performance.now());
      }
    };
    new MutationObserver(() => {
      if (seen.readyAt === null && document.querySelector('[data-testid=status][data-state=ready]')) seen.readyAt = performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true });
  };
  await onIdlePage(
    'workers=1',
    [''],
    async (page) => {
      await page.setInputFiles('[data-testid=file-input]', trace);
      await page.locator('[data-row-line]').first().click({ timeout: 60_000 });
      // Steps every 150 ms from the first rows on, while the trace is
      // indexed and until 4 s after `ready`: well past the 2 s after it.
      const ready = page.locator('[data-testid=status][data-state=ready]');
      let readyAt = null;
      const deadline = Date.now() + 120_000;
      while (readyAt === null || Date.now() < readyAt + 4000) {
        assert.ok(Date.now() < deadline, 'not ready in 2 minutes');
        await page.keyboard.press('ArrowDown');
        await page.waitForTimeout(150);
        if (readyAt === null && (await ready.count()) > 0) readyAt = Date.now();
      }
      // Quiet now: the spare comes (a state, waited for).
      const names = await waitForWorkers(page, ['', NEXT]);
      assert.deepEqual(names, ['', NEXT], 'the spare after the steps');
      const seen = await page.evaluate(() => window.__spares);
      const spares = seen.workers.filter((t) => t > seen.dropAt);
      assert.ok(spares.length >= 1, `workers started after the drop: ${JSON.stringify(seen.workers)}`);
      for (const t of spares) {
        const lastKey = Math.max(...seen.keys.filter((k) => k <= t));
        assert.ok(t - lastKey >= 950, `a spare started ${(t - lastKey).toFixed(0)} ms after a key`);
        assert.ok(seen.readyAt !== null && t - seen.readyAt >= 1950, `a spare started ${(t - seen.readyAt).toFixed(0)} ms after ready`);
      }
      // The steps went on past the two seconds after ready: a spare held
      // back by them, not one whose time had not come.
      assert.ok(Math.max(...seen.keys) > seen.readyAt + 2000, 'the steps went on past 2 s after ready');
    },
    init,
  );
});
