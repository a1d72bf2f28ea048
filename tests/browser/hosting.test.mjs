// Static hosting and the offline copy: the built dist/ served under a deep
// sub-path asks nothing of any other origin; once visited, it opens and
// browses traces with the network gone, and a new build reaches the
// browser on the next visit.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DIST, ROOT, launchBrowser, serveDist } from './harness.mjs';
import { checkRegisters, waitReady, watchErrors } from './browse_check.mjs';

const BASE = '/some/deep/path/';
const QUICKSORT = path.join(ROOT, 'tests/data/ttu/quicksort.tarmac');

describe('static hosting under a sub-path', () => {
  const log = [];
  let server;
  let browser;
  before(async () => {
    server = await serveDist({ base: BASE, log });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('every request stays on the page’s origin and under its path', async (t) => {
    const requests = [];
    browser.context.on('request', (r) => requests.push(r.url()));
    const page = await browser.context.newPage();
    const errors = watchErrors(page);
    t.after(() => page.close());
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
    await waitReady(page);
    await checkRegisters(page, QUICKSORT);
    assert.equal(await page.title(), 'quicksort.tarmac — Tarmac Lens');
    errors.check();

    const foreign = requests.filter((u) => !u.startsWith(server.origin + '/') && !/^(blob|data):/.test(u));
    assert.deepEqual(foreign, [], 'requests to other origins');
    // The worker, its glue and both wasm modules came from under the sub-path.
    for (const f of ['tarmac-lens-worker_loader.js', 'tarmac-lens-worker.js', 'tarmac-lens-worker_bg.wasm']) {
      assert.ok(log.includes(BASE + f), `${f} requested under ${BASE}: ${log.join(' ')}`);
    }
    assert.ok(log.some((p) => p.startsWith(BASE) && /^tarmac-lens-[0-9a-f]+_bg\.wasm$/.test(p.slice(BASE.length))));
    const outside = log.filter((p) => !p.startsWith(BASE));
    assert.deepEqual(outside, [], 'requests outside the sub-path');
  });
});

/** The build's version, as scripts/sw-manifest.sh wrote it into sw.js. */
function swVersion(dir) {
  const m = /^const BUILD = \{ version: '([0-9a-f]+)'/m.exec(fs.readFileSync(path.join(dir, 'sw.js'), 'utf8'));
  assert.ok(m, `${dir}/sw.js has no build version: was it built by trunk (post_build hook)?`);
  return m[1];
}

/** Waits until the service worker controls the page and has cached the build `version`. */
async function waitOffline(page, version) {
  const deadline = Date.now() + 30_000;
  let seen;
  while (Date.now() < deadline) {
    seen = await page.evaluate(async () => ({
      controller: Boolean(navigator.serviceWorker?.controller),
      state: (await navigator.serviceWorker?.getRegistration())?.active?.state ?? null,
      caches: await caches.keys(),
    }));
    // The worker is activated only once every file is cached (install).
    if (seen.controller && seen.state === 'activated' && seen.caches.join() === `tarmac-lens-${version}`) return;
    await page.waitForTimeout(200);
  }
  assert.fail(`the offline copy of build ${version} is not ready: ${JSON.stringify(seen)}`);
}

describe('offline copy (service worker)', () => {
  // A copy of dist/, so a new build can be made in it.
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-dist-'));
  let server;
  let browser;
  before(async () => {
    fs.cpSync(DIST, dist, { recursive: true });
    server = await serveDist({ dist, base: BASE });
    browser = await launchBrowser({ serviceWorkers: 'allow' });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('after one visit, the viewer opens and browses with the network off', async (t) => {
    const page = await browser.context.newPage();
    t.after(async () => {
      server.setDown(false);
      await browser.context.setOffline(false);
      await page.close();
    });
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    await waitOffline(page, swVersion(dist));

    server.setDown(true);
    await browser.context.setOffline(true);
    await page.reload();
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    // The demo is part of the build, so it is there offline too.
    await page.click('[data-testid=demo-button]');
    await waitReady(page);
    await checkRegisters(page, path.join(ROOT, 'www/demo/recursion-aarch64.tarmac'));
    await page.waitForSelector('[data-testid=elf-symbols]');
    // And a trace from the disk.
    await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
    await page.waitForFunction(() => document.title.startsWith('quicksort.tarmac'));
    await waitReady(page);
    await checkRegisters(page, QUICKSORT);
  });

  test('a new build is picked up on the next visit', async (t) => {
    const page = await browser.context.newPage();
    t.after(async () => {
      server.setDown(false);
      await browser.context.setOffline(false);
      await page.close();
    });
    const css = fs.readdirSync(dist).find((f) => /^styles-.*\.css$/.test(f));
    const cssText = () => page.evaluate(async (css) => (await fetch(`./${css}`)).text(), css);
    const v1 = swVersion(dist);
    await page.goto(server.url);
    await waitOffline(page, v1);
    assert.ok(!(await cssText()).includes('build 2'));

    // "Build 2": one file changes in place (as the worker's files, whose
    // names carry no hash, do), and the hook is run again.
    fs.appendFileSync(path.join(dist, css), '\n/* build 2 */\n');
    execFileSync('bash', [path.join(ROOT, 'scripts/sw-manifest.sh'), dist]);
    const v2 = swVersion(dist);
    assert.notEqual(v2, v1, 'the new build has a new version');

    // The next visit installs the new build's offline copy and drops the old.
    await page.reload();
    await waitOffline(page, v2);
    assert.ok((await cssText()).includes('build 2'), 'the new file is served');
    // So that it is the new file that is served offline.
    server.setDown(true);
    await browser.context.setOffline(true);
    await page.reload();
    await page.waitForSelector('[data-testid=status][data-state=idle]');
    assert.ok((await cssText()).includes('build 2'), 'the new file is served offline');
  });
});
