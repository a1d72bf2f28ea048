// Index cache figures: drops a generated trace (TL_BENCH_MB, default 256)
// twice on the built page in one browser profile and prints the time to
// `ready` indexed, then restored from the cache, and the cache size.
// Not a test (no .test. in the name): run it by hand after `trunk build`.

import { serveDist, launchBrowser, makeLargeTrace } from './harness.mjs';
const trace = makeLargeTrace(Number(process.env.TL_BENCH_MB ?? 256));
const server = await serveDist();
const browser = await launchBrowser();
for (let i = 0; i < 2; i++) {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle][data-warm=yes]');
  const t0 = Date.now();
  await page.setInputFiles('[data-testid=file-input]', trace);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 600_000 });
  const ready = Date.now() - t0;
  const reading = await page.getAttribute('[data-testid=status]', 'data-reading');
  if (i === 0) await page.waitForSelector('[data-testid=status][data-index-cache=saved]', { timeout: 60_000 });
  const size = await page.evaluate(async () => {
    const d = await (await navigator.storage.getDirectory()).getDirectoryHandle('tarmac-lens-index-cache');
    let n = 0; for await (const h of d.values()) n += (await h.getFile()).size; return n;
  });
  console.log(JSON.stringify({ run: i, reading, ready_ms: ready, cache_bytes: size }));
  await page.close();
}
await browser.close();
await server.close();
