// Page benchmark (prints figures; not part of the test suite):
//
//   scripts/bench-browser.sh            # builds the release page, then runs this
//   node tests/browser/bench_page.mjs [TRACE...]
//
// For each trace (default: generated quicksort traces of $TL_BENCH_SIZES
// megabytes, "100,1024" by default, made with tracegen into the temporary
// directory and reused) and worker count (`?workers=`: 1 and one per core,
// or $TL_BENCH_WORKERS, e.g. "1,2,4"), drops it on the built page (dist/)
// in headless Chromium and prints one JSON line: size, workers, MB/s, the time from the drop to
// the first trace row, the worker's resident index bytes, the peak resident
// memory of the tab's renderer process (the worker runs in it; sampled from
// /proc, as the memory APIs need cross-origin isolation), the UI thread's
// long tasks while indexing, and p50/p99 of the step (Down key to the
// current row moving) and pane update (Down key to the register pane's last
// change) latencies, measured inside the page. On a loaded machine wall
// times say little: `mb_per_cpu_s` and the CPU time of each worker thread
// (`worker_threads_cpu_s`, the busiest bounding the time with a core per
// worker) do not depend on what else runs; `chromium_cpu_s` (every Chromium
// process) against `cores` times the wall time says whether the machine was
// full, and `chromium_cpu_by_thread` where it went (process type and thread
// name: `renderer:DedicatedWorker` the indexing workers and their file
// readers, `browser:ThreadPoolForeg` and `browser:Chrome_IOThread` the
// browser reading the file and piping it to the page's process).
// `ranges_joined` (`joined/ranges`) says whether the other workers' ranges
// were adopted or indexed again, `index_digest` which index was built (equal
// for any worker count); `error` is the page's words when indexing failed.
//
// Whether the operating system holds the file in its cache changes what the
// browser spends reading it (on this machine an uncached 1 GB trace cost
// the browser's file thread 2 CPU seconds more, on a 2-core machine taken
// from indexing), and a machine that reclaims its cache in minutes leaves
// it to chance. So before each drop the file is read through (default,
// `TL_BENCH_FILE_CACHE=warm`) or dropped from the cache (`cold`; `as-is`
// leaves it), and each line says which, with the cached fraction measured
// just before the drop (`file_cached_fraction`, from util-linux's fincore;
// null without it). `TL_BENCH_REPEAT=N` drops each trace N times per worker
// count and adds a line with the median, least and most of the figures
// that vary from run to run. `TL_BENCH_DIST=DIR` benchmarks the build in
// DIR instead of dist/ (alternate two builds to compare them).
//
// `TL_BENCH_SYNTHETIC_GB=100` (sizes in GB, comma-separated) opens instead
// a synthetic trace of that size by `?url=` (`synthetic_trace.mjs`: made
// on demand, byte ranges; no disk): the times then run from the page's
// navigation, and the line says where indexing ended (`state`: `ready`,
// or `stopped` at a limit, with `stopped` the page's words);
// `TL_BENCH_QUERY` adds to its query string (`index-budget=BYTES`), dropped or by URL.
// `TL_BENCH_REPORTS=1` then opens the Reports panel and its Statistics tab
// (`reports`: seconds to each one's first answer, to the statistics of
// the whole trace, steps meanwhile).
// `TL_BENCH_WORKSPACE=default` steps in the workspace a person works in,
// at 1440×900: the trace view, core registers and call stack, then the
// ELF image loaded (`TL_BENCH_ELF`, default tracegen's quicksort
// aarch64 -O2) and a memory pane at sp, the source pane and the Reports
// panel opened by their keys; `more` adds the watch and why panes (on x0),
// the bookmarks and the disassembly. Its line then adds `all_panes_ms`
// (Down to the last change in any pane) and `workspace`.
// `TL_BENCH_TIMELINE=1` adds `step_timeline_ms`: the page thread's ms per
// step by Chromium timeline event (script, layout, paint), and
// `step_tasks` and `indexing_tasks`: the page thread's tasks over 16 ms
// while stepping and from the drop to the end of indexing;
// `TL_BENCH_SMAPS=1` adds `tab_mappings`: the tab's largest mappings by
// resident MB once indexed and after the steps (each wasm memory is one
// anonymous mapping of several GB reserved).
// `TL_BENCH_CPUPROFILE=FILE` writes the page thread's CPU profile over the
// steps (DevTools' .cpuprofile; the wasm functions by name).
// `TL_BENCH_DROP_COPIES=N` drops one File of N copies of each trace (the
// page's own drop event; Chromium's blob refers to the one file N times):
// 100 GB by drop without 100 GB of disk. The copies repeat the times, so
// the trace's time goes back at each.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

import { chromiumThreads, cpuByThreadName, descendants, mappings, processCpu, renderers, workerThreads } from './proc_cpu.mjs';
import { launchBrowser, serveDist, within } from './harness.mjs';
import { SyntheticTrace, syntheticHandler } from './synthetic_trace.mjs';
import { generatedTrace } from './tracegen.mjs';

// Enough steps for a p99 that is not just the slowest (of 300, the fourth
// slowest).
const STEPS = Number(process.env.TL_BENCH_STEPS ?? 300);

/** The three slowest steps as [key number from 0, ms]: whether a p99 is
 * the first key after `ready` or one later on. */
function slowest(ms, keys) {
  return ms
    .map((v, i) => [keys[i], v])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3);
}

const FILE_CACHE = process.env.TL_BENCH_FILE_CACHE ?? 'warm';
if (!['warm', 'cold', 'as-is'].includes(FILE_CACHE)) {
  throw new Error(`TL_BENCH_FILE_CACHE must be warm, cold or as-is, not ${FILE_CACHE}`);
}
const REPEAT = Number(process.env.TL_BENCH_REPEAT ?? 1);
if (!Number.isInteger(REPEAT) || REPEAT < 1) throw new Error(`TL_BENCH_REPEAT must be a whole number ≥ 1, not ${process.env.TL_BENCH_REPEAT}`);

/** Puts `trace` in the operating system's file cache (reads it through) or
 * takes it out (`dd iflag=nocache count=0` advises the kernel to drop the
 * whole file's cached pages; no root needed). */
function prepareFileCache(trace) {
  if (FILE_CACHE === 'warm') {
    const fd = fs.openSync(trace, 'r');
    const buf = Buffer.allocUnsafe(8 << 20);
    try {
      while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
    } finally {
      fs.closeSync(fd);
    }
  } else if (FILE_CACHE === 'cold') {
    execFileSync('dd', [`if=${trace}`, 'iflag=nocache', 'count=0', 'status=none']);
  }
}

/** The fraction of `trace` in the file cache now, or null if fincore is
 * not there to say. */
function cachedFraction(trace) {
  try {
    const out = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', trace], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return Math.round((Number(out.trim()) / fs.statSync(trace).size) * 1000) / 1000;
  } catch {
    return null;
  }
}

/** Median, least and most of a figure over repeated runs. */
function spread(values) {
  const s = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (!s.length) return null;
  const mid = s.length >> 1;
  return { median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, min: s[0], max: s[s.length - 1] };
}

/** Nearest-rank percentile: the smallest value with at least p% of the
 * values at or below it (of 100, p99 is the second largest; the index
 * floor(p·n) taken before made it the largest, so one slow moment of the
 * machine decided it). */
function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return null;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/**
 * `TL_BENCH_REPORTS=1`: after the steps, the Reports panel opened (R) until
 * its calls are counted, then its Statistics tab until the first report
 * shows (their own pass, in the report worker), with steps taken while
 * that pass runs: whether it holds up the trace view.
 */
async function benchReports(page) {
  const t0 = Date.now();
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 3_600_000 });
  const reportsReady = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  await page.click('[data-testid=tab-statistics]');
  const shown = page.waitForSelector('[data-testid=statistics-text]', { timeout: 3_600_000 });
  const during = [];
  await page.focus('[data-testid=browser]');
  for (let k = 0; k < 20 && !(await page.$('[data-testid=statistics-text]')); k++) {
    const before = await page.evaluate(() => window.__bench.keys.length);
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction((n) => window.__bench.keys.length > n, before);
    const moved = await page
      .waitForFunction(() => {
        const b = window.__bench;
        const t = b.keys[b.keys.length - 1];
        const row = b.rowMoves.find((m) => m >= t);
        return row === undefined ? false : row - t;
      }, null, { timeout: 5_000 })
      .then((h) => h.jsonValue())
      .catch(() => null);
    if (moved !== null) during.push(moved);
  }
  await shown;
  const first = (Date.now() - t1) / 1000;
  // The first answer on a long trace counts its first lines; the whole
  // trace's comes with its download.
  await page.waitForSelector('[data-testid=statistics-download]', { timeout: 3_600_000 });
  return {
    ready_s: reportsReady,
    statistics_first_answer_s: first,
    statistics_whole_trace_s: (Date.now() - t1) / 1000,
    steps_during_statistics_ms: { n: during.length, p50: percentile(during, 50), max: percentile(during, 100) },
  };
}

async function bench(browser, server, trace, workers) {
  const synthetic = typeof trace === 'object' ? trace : null;
  const bytes = synthetic ? synthetic.trace.length : fs.statSync(trace).size * DROP_COPIES;
  const page = await browser.context.newPage();
  if (WORKSPACE) await page.setViewportSize({ width: 1440, height: 900 });
  // The workers log how their long reads were served (read ahead while
  // parsing, or waited for).
  const reads = { ahead: 0, waiting: 0 };
  // And what the page warned of (a range indexed again, the index not
  // cached) or logged as an error (a worker's panic), printed as `warnings`.
  const warnings = [];
  page.on('console', (m) => {
    if ((m.type() === 'warning' && m.text().startsWith('tarmac-lens:')) || m.type() === 'error') warnings.push(m.text());
    const r = m.text().match(/indexed: ([\d.]+) MB read ahead, ([\d.]+) MB read waiting/);
    if (r) {
      reads.ahead += Number(r[1]);
      reads.waiting += Number(r[2]);
    }
  });
  await page.addInitScript(() => {
    const b = (window.__bench = { longTasks: [], changeAt: null, firstRowAt: null, readyAt: null, keys: [], rowMoves: [], paneChanges: [], anyPaneChanges: [] });
    let isReady;
    window.__benchReady = new Promise((resolve) => (isReady = resolve));
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ entryTypes: ['longtask'] });
    document.addEventListener(
      'change',
      (e) => {
        if (e.target?.dataset?.testid === 'file-input') b.changeAt = performance.now();
      },
      true,
    );
    document.addEventListener('keydown', (e) => e.key === 'ArrowDown' && b.keys.push(performance.now()), true);
    let line = null;
    new MutationObserver((records) => {
      const t = performance.now();
      if (b.changeAt !== null && b.firstRowAt === null && document.querySelector('[data-row-line]')) b.firstRowAt = t;
      // When the page said so, not when Playwright's polling noticed (70-220
      // ms later, measured, more on a busy machine).
      if (b.changeAt !== null && b.readyAt === null && document.querySelector('[data-testid=status]:is([data-state=ready], [data-state=stopped], [data-state=error])')) {
        b.readyAt = t;
        isReady();
      }
      const current = document.querySelector('.trace-row.current')?.dataset.line ?? null;
      if (current !== line) {
        line = current;
        b.rowMoves.push(t);
      }
      if (records.some((r) => r.target instanceof Element && r.target.closest('.registers'))) b.paneChanges.push(t);
      const inPane = (r) => (r.target instanceof Element ? r.target : r.target.parentElement)?.closest('.area-item');
      if (records.some(inPane)) b.anyPaneChanges.push(t);
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  // A synthetic trace's time runs from its page's navigation
  // (performance.now()'s zero), as a person opening the link waits.
  if (synthetic) await page.addInitScript(() => (window.__bench.changeAt = 0));
  // `?digest=1`: the index's digest, and whether ranges joined.
  await page.goto(`${server.url}?workers=${workers}&digest=1${QUERY ? `&${QUERY}` : ''}`);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  // The page's start-up work done (a build from before `data-warm` was
  // idle only after it: `TL_BENCH_DIST` may be one, to compare with).
  await page.waitForSelector('[data-testid=status][data-warm=yes]', { timeout: 5_000 }).catch(() => {});
  // Let the spare worker start, as it would while a person picks a file.
  await page.waitForTimeout(500);
  // Peak per renderer process (the page's, which hosts its workers, is
  // the largest), and of all of them together.
  const peak = new Map();
  let peakSum = 0;
  // The samplers below run during the drop, on the same cores: they look
  // only at the processes there are now (a drop starts no process) and
  // read each thread's name once.
  const pids = descendants();
  const names = new Map();
  const sample = () => {
    const rs = renderers(pids);
    for (const r of rs) peak.set(r.pid, Math.max(peak.get(r.pid) ?? 0, r.rss, r.hwm));
    peakSum = Math.max(peakSum, rs.reduce((s, r) => s + r.rss, 0));
  };
  const sampler = setInterval(sample, 200);
  const cpu = () => renderers().reduce((s, r) => s + r.cpu, 0);
  const cpuBefore = cpu();
  // Every Chromium process (the browser's file reading, the GPU process):
  // against the cores times the wall time, whether the machine was full.
  const allCpu = () => descendants().reduce((s, pid) => s + processCpu(pid), 0);
  const allCpuBefore = allCpu();
  const allBefore = chromiumThreads();
  const threadsBefore = workerThreads(allBefore);
  // Threads that end (range workers close when done) are sampled while
  // they run.
  const allLast = new Map(allBefore);
  const threadSampler = setInterval(() => {
    for (const [t, c] of chromiumThreads(pids, names)) allLast.set(t, c);
  }, 100);
  // TL_BENCH_TIMELINE: the page thread's tasks over 16 ms while indexing
  // too (the `toplevel` category alone, the cheapest to record).
  const indexTimeline = TIMELINE ? await startTimeline(await page.context().newCDPSession(page), 'toplevel') : null;
  let cached = null;
  if (synthetic) {
    // The same origin: the tab keeps its renderer, which the samplers watch.
    await page.goto(`${server.url}?workers=${workers}&digest=1&url=${synthetic.name}${QUERY ? `&${QUERY}` : ''}`);
  } else {
    prepareFileCache(trace);
    cached = cachedFraction(trace);
    if (DROP_COPIES > 1) {
      // The file, picked in an input of the benchmark's own, dropped as
      // one File of DROP_COPIES copies of it: Chromium's blob references
      // the same file again and again, so no disk or memory holds it.
      await page.evaluate(() => {
        const input = Object.assign(document.createElement('input'), { type: 'file', id: 'bench-source' });
        input.style.display = 'none';
        document.body.append(input);
      });
      await page.setInputFiles('#bench-source', trace);
      await page.evaluate((copies) => {
        const file = document.getElementById('bench-source').files[0];
        const whole = new File(Array(copies).fill(file), `${copies}x-${file.name}`, { type: 'text/plain' });
        const dataTransfer = new DataTransfer();
        dataTransfer.items.add(whole);
        window.__bench.changeAt = performance.now();
        document.querySelector('[data-testid=drop-zone]').dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
      }, DROP_COPIES);
    } else {
      await page.setInputFiles('[data-testid=file-input]', trace);
    }
  }
  // Told by the page's own observer: Playwright's waitForSelector would
  // query the page over the DevTools protocol again and again meanwhile,
  // CPU of the page's thread and the browser's taken from the drop.
  const ready = await within(page.evaluate(() => window.__benchReady.then(() => true)), 3_600_000, false);
  if (!ready) throw new Error(`${trace} was not indexed within an hour`);
  const r = await page.evaluate(() => ({ ...window.__bench }));
  const indexTasks = indexTimeline ? (await indexTimeline(1)).tasks : null;
  // CPU time the renderers (page and workers) spent: MB/s per core busy,
  // which a loaded machine does not distort as it does wall time.
  const cpuSeconds = cpu() - cpuBefore;
  const allCpuSeconds = allCpu() - allCpuBefore;
  clearInterval(threadSampler);
  for (const [t, c] of chromiumThreads()) allLast.set(t, c);
  const threadCpu = workerThreads(allLast);
  // What each worker thread spent on this drop: on a machine with a core
  // per worker the busiest one bounds the time (other load does not).
  const perThread = [...threadCpu].map(([t, c]) => c - (threadsBefore.get(t) ?? 0)).filter((c) => c > 0.05);
  const busiest = Math.max(0, ...perThread);
  const state = await page.getAttribute('[data-testid=status]', 'data-state');
  const indexBytes = Number(await page.getAttribute('[data-testid=status]', 'data-index-bytes'));
  // `joined/ranges`: the other workers' ranges adopted, not indexed again.
  const ranges = await page.evaluate(() => document.body.getAttribute('data-index-ranges'));
  const digest = await page.evaluate(() => document.body.getAttribute('data-index-digest'));
  const stopped = state === 'stopped' ? await page.textContent('[data-testid=stopped]') : null;
  const error = state === 'error' ? await page.evaluate(() => document.querySelector('[data-testid=error], [data-testid=panic]')?.textContent ?? null) : null;

  // The tab's memory now (its largest renderer's RSS, MB), after each of
  // the workspace's parts: where a workspace's memory goes.
  const tabMb = () => Math.round(Math.max(0, ...renderers(pids).map((r) => r.rss)) / 2 ** 20);
  const workspaceMb = { indexed: tabMb() };
  // TL_BENCH_SMAPS: the tab's largest mappings once indexed and after the
  // steps (the page's and each worker's wasm memory, V8's heaps).
  const tabPid = () => renderers(pids).sort((a, b) => b.rss - a.rss)[0]?.pid;
  const tabMappings = SMAPS ? { indexed: mappings(tabPid()) } : null;
  if (WORKSPACE && state === 'ready') await openWorkspace(page, (part) => (workspaceMb[part] = tabMb()));

  // Steps: Down, wait until the row has moved and the panes have settled
  // (none on a page that failed: each would wait its 5 s for nothing).
  const step = [];
  const stepKey = [];
  const pane = [];
  const allPanes = [];
  // The page thread's CPU over the steps (Chromium's TaskDuration and
  // ScriptDuration, seconds): a step's cost that other load on the
  // machine stretches far less than its wall time.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const mainCpu = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const get = (name) => metrics.find((m) => m.name === name)?.value ?? 0;
    return { task: get('TaskDuration'), script: get('ScriptDuration') };
  };
  const cpuBeforeSteps = await mainCpu();
  // TL_BENCH_TIMELINE: where the page thread's time goes over the steps
  // (script, style, layout, paint), summed by Chromium's timeline events.
  const timeline = TIMELINE ? await startTimeline(cdp) : null;
  if (CPU_PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  for (let k = 0; k < (state === 'error' ? 0 : STEPS); k++) {
    const before = await page.evaluate(() => window.__bench.keys.length);
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction((n) => window.__bench.keys.length > n, before);
    // Until the row has moved, however long that takes (a step slower than
    // the wait below would otherwise go uncounted), then the panes' time.
    await page
      .waitForFunction(() => {
        const b = window.__bench;
        const t0 = b.keys[b.keys.length - 1];
        return b.rowMoves.some((t) => t >= t0);
      }, null, { timeout: 5_000 })
      .catch(() => {});
    await page.waitForTimeout(50);
    const m = await page.evaluate(() => {
      const b = window.__bench;
      const t0 = b.keys[b.keys.length - 1];
      const row = b.rowMoves.find((t) => t >= t0);
      const panes = b.paneChanges.filter((t) => t >= t0);
      const any = b.anyPaneChanges.filter((t) => t >= t0);
      return {
        row: row === undefined ? null : row - t0,
        pane: panes.length ? panes[panes.length - 1] - t0 : null,
        any: any.length ? any[any.length - 1] - t0 : null,
      };
    });
    if (m.row !== null) {
      step.push(m.row);
      stepKey.push(k);
    }
    if (m.pane !== null) pane.push(m.pane);
    if (m.any !== null) allPanes.push(m.any);
  }
  const cpuAfterSteps = await mainCpu();
  workspaceMb.stepped = tabMb();
  if (SMAPS) {
    tabMappings.stepped = mappings(tabPid());
    tabMappings.stepped_by_allocator = await memoryDump(page, tabPid()).catch((e) => String(e));
  }
  const timelineMs = timeline ? await timeline(Math.max(1, step.length)) : null;
  if (CPU_PROFILE) fs.writeFileSync(CPU_PROFILE, JSON.stringify((await cdp.send('Profiler.stop')).profile));
  const perStep = (what) => (step.length ? ((cpuAfterSteps[what] - cpuBeforeSteps[what]) * 1000) / step.length : null);
  const reports = REPORTS && state === 'ready' ? await benchReports(page) : null;
  clearInterval(sampler);
  sample();
  await page.close();
  const during = r.longTasks.filter((t) => t.start >= r.changeAt && t.start <= r.readyAt);
  const seconds = (r.readyAt - r.changeAt) / 1000;
  return {
    trace: synthetic ? `synthetic ${synthetic.name}` : DROP_COPIES > 1 ? `${DROP_COPIES} copies of ${trace}` : trace,
    bytes,
    state,
    stopped,
    error,
    workers,
    file_cache: FILE_CACHE,
    file_cached_fraction: cached,
    mb_per_s: bytes / 1e6 / seconds,
    ready_seconds: seconds,
    cpu_seconds: cpuSeconds,
    mb_per_cpu_s: bytes / 1e6 / cpuSeconds,
    chromium_cpu_s: allCpuSeconds,
    chromium_cpu_by_thread: cpuByThreadName(allBefore, allLast),
    cores: os.cpus().length,
    worker_threads_cpu_s: perThread.sort((a, b) => b - a),
    mb_per_busiest_worker_cpu_s: bytes / 1e6 / busiest,
    first_screen_ms: r.firstRowAt - r.changeAt,
    index_bytes: indexBytes,
    index_bytes_per_trace_byte: indexBytes / bytes,
    ranges_joined: ranges,
    index_digest: digest,
    tab_peak_rss_bytes: Math.max(0, ...peak.values()),
    renderers_peak_rss_sum_bytes: peakSum,
    ...(timelineMs ? { step_timeline_ms: timelineMs.ms, step_tasks: timelineMs.tasks, indexing_tasks: indexTasks } : {}),
    long_tasks: during.length,
    longest_task_ms: during.reduce((m, t) => Math.max(m, t.duration), 0),
    step_ms: { n: step.length, p50: percentile(step, 50), p99: percentile(step, 99), max: percentile(step, 100), slowest: slowest(step, stepKey) },
    pane_ms: { n: pane.length, p50: percentile(pane, 50), p99: percentile(pane, 99), max: percentile(pane, 100) },
    ...(WORKSPACE
      ? {
          workspace: WORKSPACE,
          workspace_tab_mb: workspaceMb,
          all_panes_ms: { n: allPanes.length, p50: percentile(allPanes, 50), p99: percentile(allPanes, 99), max: percentile(allPanes, 100) },
        }
      : {}),
    ...(tabMappings ? { tab_mappings: tabMappings } : {}),
    step_page_cpu_ms: { task: perStep('task'), script: perStep('script') },
    ...(reports ? { reports } : {}),
    read_mb: { ahead: Math.round(reads.ahead), waiting: Math.round(reads.waiting) },
    warnings,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

const QUERY = process.env.TL_BENCH_QUERY ?? '';
const REPORTS = process.env.TL_BENCH_REPORTS === '1';
const DROP_COPIES = Number(process.env.TL_BENCH_DROP_COPIES ?? 1);
const WORKSPACE = process.env.TL_BENCH_WORKSPACE ?? '';
const TIMELINE = process.env.TL_BENCH_TIMELINE === '1';
const SMAPS = process.env.TL_BENCH_SMAPS === '1';
const CPU_PROFILE = process.env.TL_BENCH_CPUPROFILE ?? '';
if (!['', 'default', 'more'].includes(WORKSPACE)) throw new Error(`TL_BENCH_WORKSPACE must be default or more, not ${WORKSPACE}`);
const ELF = process.env.TL_BENCH_ELF ?? '/work/shared/tools/tracegen/elf/quicksort-aarch64-O2.elf';

/** Opens the panes of `TL_BENCH_WORKSPACE` as a person would, each by its
 * key, waiting until each shows; then gives the trace view the keys. */
/** Records Chromium's timeline on the page; the function returned stops
 * it and gives the page thread's ms per step by kind of event (nested
 * kinds are in their parents' too). */
async function startTimeline(cdp, categories = 'toplevel,devtools.timeline,v8') {
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
  return async (steps) => {
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
    // The page's main thread: of the renderers' main threads (a spare
    // renderer has one too), the busiest.
    const busy = new Map();
    for (const e of events) if (e.ph === 'X') busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
    const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
    const main = mains.sort((a, b) => (busy.get(`${b.pid}:${b.tid}`) ?? 0) - (busy.get(`${a.pid}:${a.tid}`) ?? 0))[0];
    const ms = {};
    // The page thread's tasks (`…RunTask`) over a frame's 16 ms: 62's long
    // tasks, which the Long Tasks API (50 ms and over) cannot see.
    const tasks = { over_16ms: 0, longest_ms: 0 };
    for (const e of events) {
      if (e.ph !== 'X' || !main || e.pid !== main.pid || e.tid !== main.tid || e.name.startsWith('V8.')) continue;
      const dur = (e.dur ?? 0) / 1000;
      ms[e.name] = (ms[e.name] ?? 0) + dur;
      if (e.name.endsWith('RunTask')) {
        tasks.over_16ms += dur > 16 ? 1 : 0;
        tasks.longest_ms = Math.max(tasks.longest_ms, Math.round(dur * 10) / 10);
      }
    }
    const perStep = Object.entries(ms).filter(([, v]) => v >= 1).sort((a, b) => b[1] - a[1]);
    return { ms: Object.fromEntries(perStep.map(([k, v]) => [k, Math.round((v * 100) / steps) / 100])), tasks };
  };
}

// Chromium's own account of a renderer's memory (memory-infra, as
// chrome://tracing shows it): MB by allocator (`v8`, `partition_alloc`,
// `malloc`, `blink_gc`, …) and V8's by isolate (the page's and each
// worker's), for the tab's renderer.
async function memoryDump(page, tabPid) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], memoryDumpConfig: { triggers: [] } },
    transferMode: 'ReportEvents',
  });
  const { success } = await cdp.send('Tracing.requestMemoryDump', { levelOfDetail: 'detailed' });
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  await cdp.detach();
  if (!success) return null;
  const mb = (hex) => Math.round(parseInt(hex ?? '0', 16) / 2 ** 20 * 10) / 10;
  const dump = events.find((e) => e.ph === 'v' && e.pid === tabPid && e.args?.dumps?.allocators);
  if (!dump) return null;
  const allocators = dump.args.dumps.allocators;
  const top = {};
  const isolates = {};
  for (const [name, a] of Object.entries(allocators)) {
    const size = a.attrs?.size?.value;
    if (name.split('/').length <= 3 && !/\/(0x|pid_|free_list)/.test(name) && mb(size) >= 2) top[name] = mb(size);
    const isolate = name.match(/^v8\/(main|workers\/[^/]+)$/);
    if (isolate) isolates[isolate[1]] = mb(size);
  }
  const largest = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v >= 1).sort((a, b) => b[1] - a[1]));
  return { allocators_mb: largest(top), v8_isolates_mb: largest(isolates) };
}

async function openWorkspace(page, opened) {
  await page.setInputFiles('[data-testid=elf-input]', ELF);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 60_000 });
  opened('elf');
  const focusView = () => page.click('.trace-row.current');
  const open = async (key, slot, typed) => {
    await focusView();
    await page.keyboard.press(key);
    if (typed !== undefined) {
      await page.waitForSelector('[data-testid=prompt-input]');
      await page.fill('[data-testid=prompt-input]', typed);
      await page.keyboard.press('Enter');
    }
    await page.waitForSelector(`.area-item[data-slot=${slot}]`, { timeout: 60_000 });
    if (slot !== 'reports') opened(slot);
  };
  await open('m', 'memory', 'sp');
  await open('s', 'source');
  await open('R', 'reports');
  // Its pass done, so that its progress is not counted as a pane's change.
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 3_600_000 });
  opened('reports');
  if (WORKSPACE === 'more') {
    await open('W', 'watch', 'x0');
    await open('y', 'why', 'x0');
    await open('B', 'bookmarks');
    await open('i', 'disassembly');
  }
  await focusView();
}
if (!Number.isInteger(DROP_COPIES) || DROP_COPIES < 1) throw new Error(`TL_BENCH_DROP_COPIES must be a whole number ≥ 1, not ${process.env.TL_BENCH_DROP_COPIES}`);
const syntheticSizes = process.env.TL_BENCH_SYNTHETIC_GB?.split(',').map(Number) ?? [];
const traces = syntheticSizes.length
  ? syntheticSizes.map((gb) => ({ name: `synthetic-${gb}G.tarmac`, trace: new SyntheticTrace({ bytes: gb * 1e9 }) }))
  : process.argv.length > 2
    ? process.argv.slice(2)
    : (process.env.TL_BENCH_SIZES ?? '100,1024').split(',').map((s) => generatedTrace(Number(s)));
const handlers = traces.filter((t) => typeof t === 'object').map((t) => syntheticHandler(t.trace, `/${t.name}`).handler);
// 1 worker, then N (one per core, at most 8: what the page picks for big
// files; TL_BENCH_WORKERS=1,2,4 to choose).
const counts = (process.env.TL_BENCH_WORKERS ?? `1,${Math.min(8, os.cpus().length)}`)
  .split(',')
  .map(Number)
  .filter((n, i, all) => n > 0 && all.indexOf(n) === i);
// TL_BENCH_DIST: another build's dist/, for alternated before/after runs.
const server = await serveDist({
  ...(process.env.TL_BENCH_DIST ? { dist: process.env.TL_BENCH_DIST } : {}),
  extra: (req, res) => handlers.some((h) => h(req, res)),
});
try {
  for (const trace of traces) {
    for (const workers of counts) {
      const runs = [];
      for (let run = 0; run < REPEAT; run++) {
        // A fresh profile per drop: the same file dropped again in one
        // profile would be restored from the index cache, not indexed.
        const browser = await launchBrowser();
        try {
          const line = await bench(browser, server, trace, workers);
          runs.push(line);
          console.log(JSON.stringify(REPEAT > 1 ? { run: run + 1, ...line } : line));
        } finally {
          await browser.close();
        }
      }
      if (REPEAT > 1) {
        const of = (f) => spread(runs.map(f));
        console.log(
          JSON.stringify({
            summary: true,
            trace: runs[0].trace,
            bytes: runs[0].bytes,
            workers,
            runs: runs.length,
            file_cache: FILE_CACHE,
            mb_per_s: of((r) => r.mb_per_s),
            mb_per_busiest_worker_cpu_s: of((r) => r.mb_per_busiest_worker_cpu_s),
            chromium_cpu_s: of((r) => r.chromium_cpu_s),
            first_screen_ms: of((r) => r.first_screen_ms),
            step_p99_ms: of((r) => r.step_ms.p99),
            pane_p99_ms: of((r) => r.pane_ms.p99),
            ...(WORKSPACE ? { all_panes_p99_ms: of((r) => r.all_panes_ms.p99), step_p50_ms: of((r) => r.step_ms.p50) } : {}),
            tab_peak_rss_bytes: of((r) => r.tab_peak_rss_bytes),
            index_bytes_per_trace_byte: of((r) => r.index_bytes_per_trace_byte),
          }),
        );
      }
    }
  }
} finally {
  await server.close();
}
