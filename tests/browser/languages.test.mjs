// Languages: a French browser gets the French page; the switch goes back to
// English, and the choice outlives a reload. Test ids and data attributes
// are the same in every language.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { ROOT, launchBrowser, serveDist } from './harness.mjs';
import { checkRegisters, waitReady, watchErrors } from './browse_check.mjs';

const QUICKSORT = path.join(ROOT, 'tests/data/ttu/quicksort.tarmac');
let server;
let browser;
before(async () => {
  server = await serveDist();
  browser = await launchBrowser({ locale: 'fr-FR' });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const text = (page, sel) => page.locator(sel).first().innerText();

test('a French browser gets French, and the switch brings English back for good', async (t) => {
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  t.after(() => page.close());
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr');
  assert.equal(await text(page, '[data-testid=demo-button]'), 'Essayer la démo');
  assert.match(await text(page, '[data-testid=drop-zone]'), /Déposez une trace Tarmac ici/);
  assert.equal(await page.locator('[data-testid=language]').inputValue(), 'fr');
  await page.waitForSelector('[data-testid=index-cache-count]');
  assert.match(await text(page, '[data-testid=index-cache]'), /^Index en cache : 0 \(0 o\)/);

  // Browsing works the same, in French.
  await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
  await waitReady(page);
  assert.equal(await text(page, '[data-testid=tab-browse]'), 'Parcourir');
  assert.equal(await text(page, '[data-testid=tab-summary]'), 'Résumé');
  assert.equal(await text(page, '[data-testid=new-view]'), 'Nouvelle vue');
  assert.match(await text(page, '[data-testid=registers-core]'), /Registres principaux/);
  assert.match(await text(page, '[data-testid=file-summary]'), /Taille[\s\S]*octets/);
  // Numbers as French writes them (the browser's Intl, as Node's).
  const size = fs.statSync(QUICKSORT).size;
  assert.ok(size > 1000);
  assert.match(await text(page, '[data-testid=file-size]'), new RegExp(`\\(${size.toLocaleString('fr-FR')} octets\\)`));
  assert.match(await text(page, '[data-testid=file-size]'), /^\d+,\d Kio/);
  // The reports' summary: plurals and numbers in French.
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
  assert.match(await text(page, '[data-testid=reports-summary]'), /^[\d\u202f]+ appels · [\d\u202f]+ fonctions · [\d\u202f]+ instructions$/);
  await page.keyboard.press('R');
  await checkRegisters(page, QUICKSORT);
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('F1');
  assert.match(await text(page, '[data-testid=help]'), /Touches du volet de trace[\s\S]*instruction suivante/);
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=help]', { state: 'detached' });

  // The switch: everything on screen turns English at once, the trace stays open.
  await page.selectOption('[data-testid=language]', 'en');
  await page.waitForFunction(() => document.querySelector('[data-testid=tab-browse]')?.innerText === 'Browse');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  assert.equal(await text(page, '[data-testid=new-view]'), 'New view');
  assert.match(await text(page, '[data-testid=registers-core]'), /Core registers/);
  assert.match(await text(page, '[data-testid=file-summary]'), /Size[\s\S]*bytes/);
  assert.match(await text(page, '[data-testid=drop-zone]'), /Drop another trace/);
  await checkRegisters(page, QUICKSORT, [40]);

  // Remembered: a reload of the French browser stays English.
  await page.reload();
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  assert.equal(await text(page, '[data-testid=demo-button]'), 'Try the demo');
  assert.equal(await page.locator('[data-testid=language]').inputValue(), 'en');
  errors.check();
});
