// Page benchmark (prints figures; not part of the test suite):
//
//   node tests/browser/bench_page.mjs [TRACE]
//
// Drops TRACE (default: a trace of $TL_BENCH_MB megabytes, 1024 by default,
// made by concatenating the traces in tests/data) on the built page and
// measures, inside the page, the time from the file input's change event to
// the first trace row, the longest task on the UI thread while indexing
// (PerformanceObserver 'longtask'), the time to `ready`, and the MB/s. Needs
// `trunk build --release` (dist/) like the tests.

import { launchBrowser, makeLargeTrace, measureDrop, serveDist } from './harness.mjs';

const trace = process.argv[2] ?? makeLargeTrace(Number(process.env.TL_BENCH_MB ?? 1024));
const server = await serveDist();
const browser = await launchBrowser();
try {
  console.log(JSON.stringify(await measureDrop(browser, server, trace)));
} finally {
  await browser.close();
  await server.close();
}
