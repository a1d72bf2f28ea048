// The workspace as a person sees it at three window sizes: after a drop the
// page does not scroll, the trace view and every open pane are inside the
// window and none overlaps another; a pane toggled on is in sight in full
// (the core registers' last row, the call stack, a memory pane, the flame
// graph's base frame). With every kind of pane open at once, at 1024×700,
// 1440×900 and 2560×1440, nothing is drawn over anything else (the trace
// rows stay inside their view), every pane's header can be seen, and what
// does not fit scrolls inside its pane under a header that stays. The
// call stack fills the room it has, the calls in the view's header are
// cut at their outer end with an ellipsis, the Reports header keeps its
// height through downloads; a splitter dragged keeps its size after a
// reload, its keys resize it (and say the size shown), and panes move
// between the areas and collapse.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, clickDownload, expectLine, gotoLine, pageFixture } from './harness.mjs';
import { readTrace } from './trace_text.mjs';

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

/** Waits (a frame at a time) until `inSight` holds for `sel`; null then,
 * else why not at the end of `timeout`. */
async function waitInSight(page, sel, bottom = 0, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const why = await page.evaluate(inSight(), { sel, bottom });
    if (why === null || Date.now() > deadline) return why;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  }
}

/** The page's scroll, and the boxes of the views and panes: inside the
 * window, none overlapping another. A pane counts by the part of it its
 * area shows (an area too short for all its panes scrolls); the trace
 * rows are inside their view, and each pane is inside its place. */
async function checkLayout(page, what) {
  const found = await page.evaluate(() => {
    const s = document.scrollingElement;
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { l: r.left, t: r.top, r: r.right, b: r.bottom };
    };
    const inner = (el) => {
      const r = el.getBoundingClientRect();
      const l = r.left + el.clientLeft;
      const t = r.top + el.clientTop;
      return { l, t, r: l + el.clientWidth, b: t + el.clientHeight };
    };
    const clip = (a, b) => ({ l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) });
    const boxes = [];
    for (const el of document.querySelectorAll('[data-testid=view]')) {
      boxes.push({ name: `view ${el.getAttribute('data-view')}`, ...box(el) });
    }
    for (const el of document.querySelectorAll('.area-item')) {
      const seen = clip(box(el), inner(el.parentElement));
      if (seen.r - seen.l > 1 && seen.b - seen.t > 1) boxes.push({ name: el.getAttribute('data-slot'), ...seen });
    }
    // What must lie inside what: the rows inside their view, a pane inside its place.
    const nested = [];
    for (const el of document.querySelectorAll('[data-testid=view] [data-testid=trace-pane]')) {
      nested.push({ name: 'trace rows', inner: box(el), outer: box(el.closest('[data-testid=view]')) });
    }
    for (const el of document.querySelectorAll('.area-item > *')) {
      nested.push({ name: `${el.parentElement.getAttribute('data-slot')} pane's contents`, inner: box(el), outer: box(el.parentElement) });
    }
    return {
      scrolls: s.scrollHeight > innerHeight || s.scrollWidth > innerWidth || s.scrollTop > 0,
      window: [innerWidth, innerHeight],
      boxes,
      nested,
    };
  });
  assert.equal(found.scrolls, false, `${what}: the page scrolls`);
  const [w, h] = found.window;
  for (const b of found.boxes) {
    assert.ok(b.l >= -0.5 && b.t >= -0.5 && b.r <= w + 0.5 && b.b <= h + 0.5, `${what}: ${b.name} is outside the window: ${JSON.stringify(b)}`);
  }
  for (let i = 0; i < found.boxes.length; i++) {
    for (let j = i + 1; j < found.boxes.length; j++) {
      const [a, b] = [found.boxes[i], found.boxes[j]];
      const overlap = Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
      assert.ok(!overlap, `${what}: ${a.name} overlaps ${b.name}: ${JSON.stringify([a, b])}`);
    }
  }
  for (const { name, inner, outer } of found.nested) {
    const inside = inner.l >= outer.l - 1 && inner.t >= outer.t - 1 && inner.r <= outer.r + 1 && inner.b <= outer.b + 1;
    assert.ok(inside, `${what}: the ${name} are drawn outside their place: ${JSON.stringify({ inner, outer })}`);
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
    // Once the panel has taken its place (the canvas is sized after it).
    assert.equal(await waitInSight(page, '[data-testid=flame-canvas]', 18), null);
    if (size.height >= 1440) await check('[data-testid=flame-canvas]');
    await checkLayout(page, 'with the reports');
    if (SCREENSHOTS && size.width === 1440) {
      await page.screenshot({ path: path.join(SCREENSHOTS, 'workspace.png') });
    }
    assert.deepEqual(errors, []);
  });
}

// A recursive program with its ELF and C sources: deep call stacks, and a
// source pane with text.
const LINES = path.join(ROOT, 'tests/data/tracegen/lines');
const DEEP = path.join(LINES, 'recursion-aarch64-O1-fastmodel.tarmac');
const DEEP_ELF = DEEP.replace(/\.tarmac$/, '.elf');
const SOURCES = ['recursion.c', 'main.c', 'rt.c'].map((f) => path.join(LINES, 'programs', f));

/** The instruction line where the most calls are active, from the trace
 * text alone: a BL or BLR opens a call, a RET closes one. */
function deepestLine(file) {
  let depth = 0;
  let best = { line: 0, depth: -1 };
  for (const ins of readTrace(file).instructions) {
    if (depth > best.depth) best = { line: ins.line, depth };
    const mnemonic = (ins.text.split(' : ')[1] ?? '').trim().split(/\s+/)[0]?.toUpperCase();
    if (mnemonic === 'BL' || mnemonic === 'BLR') depth++;
    else if (mnemonic === 'RET') depth--;
  }
  return best;
}

/** A page at `size` with the recursive trace and its ELF, at its deepest line. */
async function openDeep(t, { width, height }) {
  const page = await fx.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  t.after(async () => {
    await page.close();
    assert.deepEqual(errors, []);
  });
  await page.setViewportSize({ width, height });
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  // The default layout, and no bookmarks from another test (`b` on one removes it).
  await page.evaluate(() => localStorage.clear());
  await page.setInputFiles('[data-testid=file-input]', [DEEP, DEEP_ELF]);
  await page.waitForSelector('[data-testid=elf-symbols]', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=status][data-state=ready]', { timeout: 60_000 });
  await page.waitForSelector('[data-testid=registers-core] .reg');
  const deep = deepestLine(DEEP);
  assert.ok(deep.depth >= 6, `the trace nests ${deep.depth} calls`);
  await gotoLine(page, deep.line);
  await expectLine(page, deep.line, `l ${deep.line}`);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=stack-frame]').length >= n, deep.depth);
  return page;
}

/** A key pressed in the trace view, and the text its prompt asks for. */
async function inView(page, key, typed) {
  await page.focus('[data-testid=browser]');
  await page.dispatchEvent('[data-testid=trace-pane]', 'mousedown');
  await page.keyboard.press(key);
  if (typed === undefined) return;
  await page.waitForSelector('[data-testid=prompt-input]');
  await page.fill('[data-testid=prompt-input]', typed);
  await page.press('[data-testid=prompt-input]', 'Enter');
}

/** How many trace rows are wholly inside the trace view's pane. */
function rowsInSight(page) {
  return page.evaluate(() => {
    const pane = document.querySelector('[data-testid=trace-pane]').getBoundingClientRect();
    return [...document.querySelectorAll('[data-testid=trace-pane] .trace-row')].filter((r) => {
      const b = r.getBoundingClientRect();
      return b.top >= pane.top - 0.5 && b.bottom <= pane.bottom + 0.5;
    }).length;
  });
}

for (const size of SIZES.slice(0, 3)) {
  const name = `${size.width}×${size.height}`;
  test(`at ${name} with every kind of pane open none is drawn over another, each header is seen and each scrolls inside`, { timeout: 240_000 }, async (t) => {
    const page = await openDeep(t, size);
    // Every kind of pane: source (with its text), changed and
    // double-precision registers, memory, events, bookmarks, watch, why,
    // the reports, the disassembly; the core registers and the call stack
    // are there.
    await inView(page, 's');
    await page.setInputFiles('[data-testid=source-files-input]', SOURCES);
    await page.waitForSelector('[data-testid=source-text] .src-line.current');
    await inView(page, 'i');
    await page.waitForSelector('[data-testid=disassembly-row]');
    await inView(page, 'w');
    await page.waitForSelector('[data-testid=registers-changed]');
    await inView(page, 'D');
    await page.waitForSelector('[data-testid=registers-double]');
    await inView(page, 'm', 'sp');
    await page.waitForSelector('[data-testid=memory] .byte');
    await inView(page, 'v');
    await page.waitForSelector('[data-testid=events-pane]');
    await inView(page, 'b', 'deepest');
    await inView(page, 'B');
    await page.waitForSelector('[data-testid=bookmark]');
    await inView(page, 'W', 'x0');
    await page.waitForSelector('[data-testid=watch-hit]', { timeout: 30_000 });
    await inView(page, 'y', 'x0');
    await page.waitForSelector('[data-testid=why-step]', { timeout: 30_000 });
    await inView(page, 'R');
    await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
    const slots = await page.$$eval('.area-item', (items) => items.map((i) => i.dataset.slot));
    for (const slot of ['registers', 'memory', 'source', 'stack', 'events', 'reports', 'bookmarks', 'watch', 'why', 'disassembly']) {
      assert.ok(slots.includes(slot), `${slot} is open: ${slots}`);
    }
    await checkLayout(page, `every pane at ${name}`);
    // The trace view keeps rows to read.
    assert.ok((await rowsInSight(page)) >= 6, `${await rowsInSight(page)} trace rows in sight`);
    // Each pane, brought into its area's sight (as the page does when it
    // opens one), shows its header whole.
    for (const area of ['side', 'bottom']) {
      const count = await page.locator(`[data-area=${area}] > .area-item`).count();
      for (let k = 1; k <= count; k++) {
        const item = `[data-area=${area}] > .area-item:nth-child(${k})`;
        await page.$eval(item, (el) => el.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
        assert.equal(await page.evaluate(inSight(), { sel: `${item} .pane-header`, bottom: 0 }), null);
      }
      await checkLayout(page, `every pane at ${name}, ${area} area scrolled`);
    }
    // What does not fit scrolls inside its pane, under a header that
    // stays: the core registers' last row, the outermost call, the
    // source's current line, the watch's last access.
    // The watch list draws the rows in sight: its last access once it is
    // scrolled to the end.
    await page.waitForSelector('[data-testid=watch-pane][data-listed=true]', { timeout: 30_000 });
    const accesses = Number(await page.getAttribute('[data-testid=watch-pane]', 'data-count'));
    await page.$eval('.watch-hits', (el) => el.scrollTo(0, el.scrollHeight));
    await page.waitForSelector(`[data-testid=watch-hit][data-index="${accesses - 1}"]`);
    for (const [row, title] of [
      ['[data-testid=registers-core] .reg:last-child', '[data-testid=registers-core] [data-testid=registers-pane-title]'],
      ['[data-testid=stack-pane] li:last-child [data-testid=stack-frame]', '[data-testid=stack-pane-title]'],
      ['[data-testid=source-text] .src-line.current', '[data-testid=source-pane-title]'],
      [`[data-testid=watch-hit][data-index="${accesses - 1}"]`, '[data-testid=watch-title]'],
    ]) {
      await page.$eval(row, (el) => el.closest('.area-item').scrollIntoView({ block: 'nearest', inline: 'nearest' }));
      await page.$eval(row, (el) => el.scrollIntoView({ block: 'center', inline: 'nearest' }));
      assert.equal(await page.evaluate(inSight(), { sel: row, bottom: 0 }), null);
      assert.equal(await page.evaluate(inSight(), { sel: title, bottom: 0 }), null, `${title} stays in sight`);
    }
    await checkLayout(page, `every pane at ${name}, scrolled inside`);
  });
}

test('at 1024×700 with the source, reports, changed registers and bookmarks open, the side column holds every header without scrolling and the calls in the header end in an ellipsis', { timeout: 180_000 }, async (t) => {
  const page = await openDeep(t, { width: 1024, height: 700 });
  await inView(page, 's');
  await page.setInputFiles('[data-testid=source-files-input]', SOURCES);
  await page.waitForSelector('[data-testid=source-text] .src-line.current');
  await inView(page, 'R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
  await inView(page, 'w');
  await page.waitForSelector('[data-testid=registers-changed]');
  await inView(page, 'B');
  await page.waitForSelector('[data-testid=bookmarks-pane]');
  await checkLayout(page, 's, R, w, B at 1024×700');
  assert.ok((await rowsInSight(page)) >= 6, `${await rowsInSight(page)} trace rows in sight`);
  // The panes shrink and scroll inside: the column itself does not scroll.
  const side = await page.$eval('[data-area=side]', (a) => ({ scroll: a.scrollHeight, client: a.clientHeight }));
  assert.ok(side.scroll <= side.client + 1, `the side column scrolls: ${JSON.stringify(side)}`);
  for (const title of [
    '[data-testid=registers-core] [data-testid=registers-pane-title]',
    '[data-testid=registers-changed] [data-testid=registers-pane-title]',
    '[data-testid=stack-pane-title]',
    '[data-testid=bookmarks-pane-title]',
    '[data-testid=source-pane-title]',
    '[data-testid=reports-panel] .pane-header',
  ]) {
    assert.equal(await page.evaluate(inSight(), { sel: title, bottom: 0 }), null);
  }
  // The calls active here do not fit the view's header: the outer ones are
  // cut, with an ellipsis, and the innermost is whole.
  const nav = await page.$eval('[data-testid=call-stack]', (n) => ({
    overflows: n.scrollWidth > n.clientWidth,
    ellipsis: getComputedStyle(n).textOverflow,
    frames: n.querySelectorAll('.frame').length,
  }));
  assert.ok(nav.overflows && nav.frames >= 6, JSON.stringify(nav));
  assert.equal(nav.ellipsis, 'ellipsis');
  assert.equal(await page.evaluate(inSight(), { sel: '[data-testid=call-stack] .frame:last-child', bottom: 0 }), null);
  assert.notEqual(await page.evaluate(inSight(), { sel: '[data-testid=call-stack] .frame:first-child', bottom: 0 }), null);
});

test('at 1440×900 the call stack fills the side column: its calls are in sight, or it scrolls with no room left', { timeout: 180_000 }, async (t) => {
  const page = await openDeep(t, { width: 1440, height: 900 });
  const seen = await page.evaluate(() => {
    const area = document.querySelector('[data-area=side]').getBoundingClientRect();
    const item = document.querySelector('.area-item[data-slot=stack]').getBoundingClientRect();
    const list = document.querySelector('[data-testid=stack-pane] ol');
    const box = list.getBoundingClientRect();
    const frames = [...list.querySelectorAll('[data-testid=stack-frame]')];
    const shown = frames.filter((f) => {
      const r = f.getBoundingClientRect();
      return r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    }).length;
    return { areaBottom: area.bottom, itemBottom: item.bottom, frames: frames.length, shown, rowHeight: frames[0].closest('li').getBoundingClientRect().height, room: list.clientHeight };
  });
  // The pane reaches down to the column's end, and shows as many calls as
  // its room holds.
  assert.ok(Math.abs(seen.areaBottom - seen.itemBottom) <= 2, JSON.stringify(seen));
  const holds = Math.floor((seen.room - 8) / seen.rowHeight);
  assert.ok(seen.shown === seen.frames || seen.shown >= holds, JSON.stringify(seen));
  assert.ok(seen.shown >= 7, JSON.stringify(seen));
});

test('the Reports header keeps its height through downloads; the Download menu offers each again', { timeout: 180_000 }, async (t) => {
  const page = await openDeep(t, { width: 1440, height: 900 });
  await inView(page, 'R');
  await page.waitForSelector('[data-testid=reports-summary]', { timeout: 60_000 });
  const height = () => page.$eval('[data-testid=reports-panel] > .pane-header', (h) => h.getBoundingClientRect().height);
  const before = await height();
  const kinds = ['calltree', 'profile', 'flamegraph'];
  for (const kind of kinds) {
    await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), clickDownload(page, kind)]);
    await page.waitForSelector(`[data-testid=saved-${kind}]`, { state: 'attached' });
    assert.ok(Math.abs((await height()) - before) <= 1, `after ${kind}: ${await height()} px, ${before} before`);
  }
  await page.click('[data-testid=menu-downloads]');
  for (const kind of kinds) {
    assert.equal(await page.evaluate(inSight(), { sel: `[data-testid=saved-${kind}]`, bottom: 0 }), null);
  }
  assert.ok(Math.abs((await height()) - before) <= 1, `with the menu open: ${await height()} px, ${before} before`);
});

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
  // End asks for more than the window gives: the splitter says the size shown.
  await page.keyboard.press('End');
  await page.waitForFunction(() => {
    const shown = Math.round(document.querySelector('[data-area=side]').getBoundingClientRect().width);
    const said = Number(document.querySelector('[data-testid=splitter-side]').getAttribute('aria-valuenow'));
    return shown > 600 && Math.abs(said - shown) <= 1;
  });
  // And a step back from there is seen at once.
  const widest = await width();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((w) => document.querySelector('[data-area=side]').getBoundingClientRect().width < w - 20, widest);
  await page.keyboard.press('Home');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=splitter-side]').getAttribute('aria-valuenow')) <= 170);
  // The window narrowed: the size said follows what is shown.
  await page.keyboard.press('End');
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.waitForFunction(() => {
    const shown = Math.round(document.querySelector('[data-area=side]').getBoundingClientRect().width);
    return Math.abs(Number(document.querySelector('[data-testid=splitter-side]').getAttribute('aria-valuenow')) - shown) <= 1;
  });
  await page.setViewportSize({ width: 1440, height: 900 });
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
