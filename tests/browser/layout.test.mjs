// The workspace as a person sees it at three window sizes: after a drop the
// page does not scroll, the trace view and every open pane are inside the
// window and none overlaps another; a pane toggled on is in sight in full
// (the core registers' last row, the call stack, a memory pane, the flame
// graph's base frame); a splitter dragged keeps its size after a reload,
// its keys resize it, and panes move between the areas and collapse.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, gotoLine, pageFixture } from './harness.mjs';

const fx = pageFixture();
// Set TARMAC_LENS_SCREENSHOTS=1 to refresh docs/screenshots/workspace.png.
const SCREENSHOTS = process.env.TARMAC_LENS_SCREENSHOTS ? path.join(ROOT, 'docs/screenshots') : null;
const TRACE = path.join(ROOT, 'tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac');
const ELF = TRACE.replace(/\.tarmac$/, '.elf');
// Window sizes in CSS pixels; `zoom`: a 2560×1440 screen at 200% browser
// zoom; `dark`: the dark theme.
const SIZES = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
  { width: 2560, height: 1440, dark: true },
  { width: 1280, height: 720, zoom: 2 },
];

async function open(page, { width, height, zoom = 1, dark = false }) {
  if (zoom === 1) {
    await page.setViewportSize({ width, height });
  } else {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: zoom, mobile: false });
  }
  await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.waitForSelector('[data-testid=registers-core] .reg');
}

/** Whether all of the element (or its bottom `bottom` pixels) is in sight:
 * inside the window and inside every ancestor that clips (scrolls or hides)
 * what overflows it; null if it is, else why not. */
function inSight() {
  return ({ sel, bottom }) => {
    const el = document.querySelector(sel);
    if (!el) return `${sel}: not in the page`;
    const box = el.getBoundingClientRect();
    const r = bottom ? { left: box.left, right: box.right, bottom: box.bottom, top: box.bottom - bottom, width: box.width, height: bottom } : box;
    if (r.width === 0 || r.height === 0) return `${sel}: not drawn`;
    const outside = (box, what) =>
      r.left < box.left - 0.5 || r.top < box.top - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5
        ? `${sel} (${[r.left, r.top, r.right, r.bottom].map(Math.round)}) is cut by ${what} (${[box.left, box.top, box.right, box.bottom].map(Math.round)})`
        : null;
    const cut = outside({ left: 0, top: 0, right: innerWidth, bottom: innerHeight }, 'the window');
    if (cut) return cut;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      const box = { left: b.left + a.clientLeft, top: b.top + a.clientTop };
      box.right = box.left + a.clientWidth;
      box.bottom = box.top + a.clientHeight;
      const c = outside(box, `${a.tagName.toLowerCase()}.${a.className}`);
      if (c) return c;
    }
    return null;
  };
}

/** The page's scroll, and the boxes of the views and panes: inside the
 * window, none overlapping another. */
async function checkLayout(page, what) {
  const found = await page.evaluate(() => {
    const s = document.scrollingElement;
    const boxes = [...document.querySelectorAll('[data-testid=view], .area-item')].map((el) => {
      const r = el.getBoundingClientRect();
      return { name: el.getAttribute('data-slot') ?? `view ${el.getAttribute('data-view')}`, l: r.left, t: r.top, r: r.right, b: r.bottom };
    });
    return {
      scrolls: s.scrollHeight > innerHeight || s.scrollWidth > innerWidth || s.scrollTop > 0,
      window: [innerWidth, innerHeight],
      boxes,
    };
  });
  assert.equal(found.scrolls, false, `${what}: the page scrolls`);
  const [w, h] = found.window;
  for (const b of found.boxes) {
    assert.ok(b.l >= 0 && b.t >= 0 && b.r <= w + 0.5 && b.b <= h + 0.5, `${what}: ${b.name} is outside the window: ${JSON.stringify(b)}`);
  }
  for (let i = 0; i < found.boxes.length; i++) {
    for (let j = i + 1; j < found.boxes.length; j++) {
      const [a, b] = [found.boxes[i], found.boxes[j]];
      const overlap = Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
      assert.ok(!overlap, `${what}: ${a.name} overlaps ${b.name}: ${JSON.stringify([a, b])}`);
    }
  }
}

for (const size of SIZES) {
  const name = `${size.width}×${size.height}${size.zoom ? ` at ${size.zoom * 100}% zoom` : ''}${size.dark ? ', dark' : ''}`;
  test(`at ${name} the workspace fills the window and every pane opened is in sight`, { timeout: 180_000 }, async (t) => {
    const page = await fx.browser.context.newPage();
    t.after(() => page.close());
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await open(page, size);
    const check = (sel, bottom = 0) => page.evaluate(inSight(), { sel, bottom }).then((why) => assert.equal(why, null));
    await checkLayout(page, 'after the drop');
    // The core registers' last row, and the call stack.
    await check('[data-testid=registers-core] .reg:last-child');
    await check('[data-testid=stack-pane]');
    await check('[data-testid=trace-pane]');
    // The double-precision registers, toggled on: in sight (their title at
    // least, when the pane is taller than the area).
    await page.keyboard.press('D');
    await page.waitForSelector('[data-testid=registers-double] .reg');
    await check('[data-testid=registers-double] [data-testid=registers-pane-title]');
    await page.keyboard.press('D');
    // A memory pane at sp, inside the sort.
    await gotoLine(page, 16000);
    await page.waitForFunction(() => !document.querySelector('[data-testid=view-position]')?.textContent.startsWith('line 1 '));
    await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
    await page.keyboard.press('m');
    await page.fill('[data-testid=prompt-input]', 'sp');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=memory] .byte');
    await check('[data-testid=memory]');
    await checkLayout(page, 'with a memory pane');
    // The flame graph: its base frame (the bottom row of its canvas, 18
    // px) in sight; the whole graph where the window is tall enough (on
    // 1440 px, beside a memory pane).
    await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
    await page.keyboard.press('F');
    await page.waitForSelector('[data-testid=flame-canvas][data-frames]', { timeout: 60_000 });
    await page.waitForTimeout(300);
    await check('[data-testid=flame-canvas]', 18);
    if (size.height >= 1440) await check('[data-testid=flame-canvas]');
    await checkLayout(page, 'with the reports');
    if (SCREENSHOTS && size.width === 1440) {
      await page.screenshot({ path: path.join(SCREENSHOTS, 'workspace.png') });
    }
    assert.deepEqual(errors, []);
  });
}

test('a splitter dragged keeps its size after a reload; keys resize it; panes move and collapse', { timeout: 180_000 }, async (t) => {
  const page = await fx.browser.context.newPage();
  t.after(() => page.close());
  await open(page, { width: 1440, height: 900 });
  const width = () => page.evaluate(() => document.querySelector('[data-area=side]').getBoundingClientRect().width);
  const before = await width();
  const bar = await page.locator('[data-testid=splitter-side]').boundingBox();
  const y = bar.y + bar.height / 2;
  await page.mouse.move(bar.x + bar.width / 2, y);
  await page.mouse.down();
  await page.mouse.move(bar.x - 60, y, { steps: 4 });
  await page.mouse.move(bar.x - 150, y, { steps: 4 });
  await page.mouse.up();
  const dragged = await width();
  assert.ok(Math.abs(dragged - (before + 150)) <= 3, `side area ${before} px, dragged 150 px left: ${dragged}`);
  await page.reload();
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.setInputFiles('[data-testid=file-input]', [TRACE, ELF]);
  await page.waitForSelector('[data-testid=registers-core] .reg');
  assert.ok(Math.abs((await width()) - dragged) <= 1, `after the reload: ${await width()}, dragged to ${dragged}`);
  // The splitter's keys: focus it, Left widens.
  await page.focus('[data-testid=splitter-side]');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((w) => document.querySelector('[data-area=side]').getBoundingClientRect().width > w + 20, dragged);
  // The browser's keys: Ctrl-Shift-Right narrows.
  const wide = await width();
  await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
  await page.keyboard.press('Control+Shift+ArrowRight');
  await page.waitForFunction((w) => document.querySelector('[data-area=side]').getBoundingClientRect().width < w - 20, wide);
  // The registers move under the views, and back with A.
  await page.click('[data-testid=move-registers]');
  await page.waitForSelector('[data-area=bottom] [data-testid=registers-core]');
  await checkLayout(page, 'registers in the bottom area');
  await page.click('[data-testid=registers-pane-title]');
  await page.keyboard.press('A');
  await page.waitForSelector('[data-area=side] [data-testid=registers-core]');
  // Collapsed, the call stack shows its header alone.
  await page.click('[data-testid=collapse-stack]');
  await page.waitForSelector('[data-testid=stack-pane-title]');
  assert.equal(await page.isVisible('[data-testid=stack-empty], [data-testid=stack-frame]'), false);
  // Reset: the default width again, the stack open.
  await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
  await page.keyboard.press('Control+Shift+Backspace');
  await page.waitForFunction((w) => Math.abs(document.querySelector('[data-area=side]').getBoundingClientRect().width - w) <= 1, before);
  assert.equal(await page.isVisible('[data-testid=stack-empty], [data-testid=stack-frame]'), true);
});
