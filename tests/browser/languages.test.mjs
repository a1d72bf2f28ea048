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

/** The French catalogue of src/i18n.rs: [english, french] pairs. */
function catalogue() {
  const source = fs.readFileSync(path.join(ROOT, 'src/i18n.rs'), 'utf8');
  const body = source.slice(source.indexOf('static FR:'));
  const lit = '"((?:[^"\\\\]|\\\\.)*)"';
  const unescape = (s) => s.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
  return [...body.matchAll(new RegExp(`\\(\\s*${lit},\\s*${lit}\\s*\\)`, 'g'))].map((m) => [unescape(m[1]), unescape(m[2])]);
}

/** Matchers of the texts one language says and the other does not: each
 * `{}` any argument; only texts with a word of their own (3 letters or
 * more outside the arguments), and that the other language writes
 * differently. */
function saidIn(pairs, which) {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return pairs
    .filter(([en, fr]) => en !== fr)
    .map((pair) => pair[which])
    .filter((text) => /\p{L}{3}/u.test(text.replaceAll('{}', '')))
    .map((text) => ({ text, re: new RegExp(`^${text.split('{}').map(escape).join('.+')}$`, 'su') }));
}

/** Every visible text of the page's own (not the trace's: rows, registers,
 * memory, source, names) under `root`, trimmed. */
async function screenTexts(page, root = 'body') {
  return page.evaluate((root) => {
    const skip = '.trace-row, [data-reg], .memory, .source-line, [data-testid=file-name], [data-testid=coverage-function] td:first-child, [data-testid=profile-row] td:last-child, .tree-name';
    const out = [];
    const walk = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const text = n.nodeValue.trim();
      const el = n.parentElement;
      if (!text || !el || el.closest(skip) || !el.checkVisibility()) continue;
      out.push(text);
    }
    return out;
  }, root);
}

/** The texts of `texts` that are `other`'s (the language not shown). */
function foreign(texts, other) {
  return texts.filter((t) => other.some((m) => m.re.test(t))).map((t) => `${t} (${other.find((m) => m.re.test(t)).text})`);
}

test('every text follows a switch, there and back: the reports, the summary, coverage and the help', async (t) => {
  const GEN = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M');
  const english = await launchBrowser({ locale: 'en-US' });
  t.after(() => english.close());
  const page = await english.context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const errors = watchErrors(page);
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [`${GEN}.tarmac`, `${GEN}.elf`]);
  await waitReady(page);
  await page.waitForSelector('[data-testid=elf-symbols]');
  const pairs = catalogue();
  assert.ok(pairs.length > 300, `${pairs.length} French texts read`);
  const frenchOnly = saidIn(pairs, 1);
  const englishOnly = saidIn(pairs, 0);

  // The Reports panel, its call tree and profile drawn in English first.
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('R');
  await page.waitForSelector('[data-testid=tree-row]', { timeout: 60_000 });
  await page.click('[data-testid=tab-profile]');
  await page.waitForSelector('[data-testid=profile-row]', { timeout: 60_000 });
  await page.click('[data-testid=tab-calltree]');
  const treeEnglish = await page.innerText('[data-testid=call-tree]');
  assert.match(treeEnglish, /time [\d,]+/);

  const switchTo = async (lang, tab) => {
    await page.selectOption('[data-testid=language]', lang);
    await page.waitForFunction((tab) => document.querySelector('[data-testid=tab-browse]')?.innerText === tab, tab);
  };
  await switchTo('fr', 'Parcourir');
  // Every struct component of the panel drew again: the tree's rows, the
  // profile's headers.
  await page.waitForFunction(() => /temps [\d\u202f]+/.test(document.querySelector('[data-testid=call-tree]')?.innerText));
  assert.match(await page.innerText('[data-testid=call-tree]'), /\d appel\b/);
  await page.click('[data-testid=tab-profile]');
  assert.match(await page.innerText('[data-testid=sort-address]'), /^Adresse/);
  assert.match(await page.innerText('[data-testid=sort-count]'), /^Nombre/);
  assert.match(await page.innerText('[data-testid=profile-row] >> nth=0'), /\d,\d\u00a0%/);
  const panel = await screenTexts(page, '[data-testid=reports-panel]');
  assert.deepEqual(foreign(panel, englishOnly), [], 'English in the French Reports panel');
  // The matchers know a language's texts when they see them.
  assert.ok(foreign(panel, frenchOnly).length > 5, `French texts recognised: ${foreign(panel, frenchOnly)}`);
  // Coverage: the group without a line, and the shares, in French.
  await page.click('[data-testid=tab-coverage]');
  await page.waitForSelector('[data-testid=coverage-files]', { timeout: 60_000 });
  const coverage = await page.innerText('[data-testid=coverage]');
  assert.doesNotMatch(coverage, /no source line|\d\.\d%/);
  assert.match(coverage, /\(sans ligne source\)/);
  assert.match(coverage, /\(\d+,\d\u00a0%\)/);
  assert.deepEqual(foreign(await screenTexts(page, '[data-testid=coverage]'), englishOnly), [], 'English in the French coverage');
  // The Summary: record kinds in French, counts grouped as French groups them.
  await page.click('[data-testid=tab-summary]');
  const counts = await page.innerText('[data-testid=counts]');
  assert.match(counts, /Enregistrements par type/);
  assert.match(counts, /registre\s+[\d\u202f]+/);
  const instructions = Number(await page.getAttribute('[data-testid=counts] [data-kind=instruction]', 'data-count'));
  assert.ok(instructions > 1000);
  assert.equal(await page.innerText('[data-testid=counts] [data-kind=instruction]'), instructions.toLocaleString('fr-FR'));
  assert.deepEqual(foreign(await screenTexts(page, '[data-testid=summary-panel]'), englishOnly), [], 'English in the French summary');
  // The help: key names in French beside the French texts; "writer" is
  // the instruction that wrote the value.
  await page.click('[data-testid=tab-browse]');
  await page.focus('[data-testid=browser]');
  await page.keyboard.press('F1');
  await page.waitForSelector('[data-testid=help]');
  const help = await page.innerText('[data-testid=help]');
  assert.match(help, /\bBas\b/);
  assert.match(help, /Pg suiv/);
  assert.doesNotMatch(help, /\bDown\b|PgDn|\bShift\b/);
  assert.match(help, /Entrée va à l’instruction qui a écrit la valeur/);
  assert.doesNotMatch(help, /écrivain/);
  assert.deepEqual(foreign(await screenTexts(page, '[data-testid=help]'), englishOnly), [], 'English in the French help');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=help]', { state: 'detached' });

  // And back: nothing stays French.
  await switchTo('en', 'Browse');
  await page.click('[data-testid=tab-calltree]');
  await page.waitForFunction(() => /time [\d,]+/.test(document.querySelector('[data-testid=call-tree]')?.innerText ?? ''));
  assert.equal(await page.innerText('[data-testid=call-tree]'), treeEnglish);
  await page.click('[data-testid=tab-profile]');
  assert.match(await page.innerText('[data-testid=sort-address]'), /^Address/);
  assert.match(await page.innerText('[data-testid=sort-count]'), /^Count/);
  assert.match(await page.innerText('[data-testid=sort-inclusive]'), /^Time/);
  assert.deepEqual(foreign(await screenTexts(page), frenchOnly), [], 'French on the English page');
  await page.click('[data-testid=tab-summary]');
  assert.match(await page.innerText('[data-testid=counts]'), /register\s+[\d,]+/);
  assert.deepEqual(foreign(await screenTexts(page), frenchOnly), [], 'French on the English summary');
  errors.check();
});
