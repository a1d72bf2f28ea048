// Platform conventions: the colour scheme follows the system's, keyboard
// focus is visible, the trace and panes carry ARIA roles, and the window
// title names the open file.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, pageFixture } from './harness.mjs';
import { waitReady, watchErrors } from './browse_check.mjs';

const QUICKSORT = path.join(ROOT, 'tests/data/ttu/quicksort.tarmac');
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;
const fx = pageFixture();

async function openTrace(t, colorScheme) {
  const page = await fx.browser.context.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  const errors = watchErrors(page);
  t.after(() => page.close());
  await page.emulateMedia({ colorScheme });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  assert.equal(await page.title(), 'Tarmac Lens');
  await page.setInputFiles('[data-testid=file-input]', QUICKSORT);
  await waitReady(page);
  return { page, errors };
}

/** Relative luminance (0 black … 1 white) of a computed `rgb(…)` colour. */
function luminance(css) {
  const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

for (const scheme of ['dark', 'light']) {
  test(`the ${scheme} theme follows prefers-color-scheme`, async (t) => {
    const { page, errors } = await openTrace(t, scheme);
    const colours = await page.evaluate(() => {
      const style = (sel) => getComputedStyle(document.querySelector(sel));
      return {
        page: style('body').backgroundColor,
        text: style('body').color,
        pane: style('[data-testid=view]').backgroundColor,
      };
    });
    const [bg, fg, pane] = [luminance(colours.page), luminance(colours.text), luminance(colours.pane)];
    if (scheme === 'dark') assert.ok(bg < 0.2 && fg > 0.7 && pane < 0.3, JSON.stringify(colours));
    else assert.ok(bg > 0.9 && fg < 0.2 && pane > 0.9, JSON.stringify(colours));
    if (SCREENSHOTS) {
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(SCREENSHOTS, `theme-${scheme}.png`) });
    }
    errors.check();
  });
}

test('ARIA roles: the trace is a listbox of lines, views and panes are labelled regions', async (t) => {
  const { page, errors } = await openTrace(t, 'light');
  assert.equal(await page.title(), 'quicksort.tarmac — Tarmac Lens');
  const pane = page.locator('[data-testid=trace-pane]');
  assert.equal(await pane.getAttribute('role'), 'listbox');
  assert.ok(await pane.getAttribute('aria-label'));
  const options = await page.locator('[data-testid=trace-pane] [role=option]').count();
  assert.equal(options, await page.locator('[data-testid=trace-pane] .trace-row').count());
  assert.ok(options > 5);
  const selected = page.locator('[data-testid=trace-pane] [role=option][aria-selected=true]');
  assert.equal(await selected.count(), 1);
  assert.equal(await selected.getAttribute('data-line'), await page.locator('.trace-row.current').getAttribute('data-line'));
  // The core registers pane opens with the trace.
  await page.waitForSelector('[data-testid=registers-core]');
  const regions = await page.evaluate(() =>
    [...document.querySelectorAll('[role=region]')].map((e) => [e.dataset.testid, e.getAttribute('aria-label')]),
  );
  assert.ok(regions.some(([id, label]) => id === 'view' && label === 'View #1'), JSON.stringify(regions));
  assert.ok(regions.some(([id, label]) => id === 'registers-core' && label), JSON.stringify(regions));
  assert.ok(regions.every(([, label]) => label), 'every region is labelled');
  errors.check();
});

test('keyboard focus is visible', async (t) => {
  const { page, errors } = await openTrace(t, 'light');
  await page.waitForSelector('.browser .view.focused');
  // Tab through the page: every focused control is outlined.
  const seen = [];
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const e = document.activeElement;
      const ringed = e.classList.contains('browser') ? document.querySelector('.browser :is(.view, .data-pane).focused') : e;
      if (!ringed) return { tag: e.tagName, testid: e.dataset.testid ?? null, outline: 'none (no focused view or pane)' };
      const s = getComputedStyle(ringed);
      return { tag: e.tagName, testid: e.dataset.testid ?? null, outline: s.outlineStyle, width: s.outlineWidth };
    });
    if (focus.tag === 'BODY') continue;
    seen.push(focus);
    assert.notEqual(focus.outline, 'none', `no focus ring on ${JSON.stringify(focus)}`);
    assert.notEqual(focus.width, '0px', `no focus ring on ${JSON.stringify(focus)}`);
  }
  assert.ok(seen.some((f) => f.testid === 'browser'), `the browser is reached by Tab: ${JSON.stringify(seen)}`);
  errors.check();
});
