// The <tarmac-lens-viewer> element (dist/tarmac-lens-embed.js) on its
// example page (docs/embedding.md's recipes): several viewers, each on its
// own trace, loaded when near the screen, live attributes, goto()/open();
// and the viewer's safe messaging: a frame or host on another origin (a
// second server, on another port) is ignored and counted, a host on a
// listed origin sends bytes, not URLs; drops on the host page stay the host's.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { CLI, ROOT, pageFixture, serveDist } from './harness.mjs';
import { blockEnd, instructionOf, memoryAccesses, readTrace, registersAt, registerWrites } from './trace_text.mjs';

const fx = pageFixture();
const QUICKSORT = readTrace(path.join(ROOT, 'www/examples/quicksort.tarmac'));
const CALLTEST = readTrace(path.join(ROOT, 'www/examples/calltest64.tarmac'));

/** A second origin: serves `pages` (name → HTML) and the example traces. */
let other;
const pages = {};
before(async () => {
  other = await serveDist((req, res) => {
    const name = new URL(req.url, 'http://x').pathname.slice(1);
    if (pages[name] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[name]);
      return true;
    }
    if (name.startsWith('traces/')) {
      const file = path.join(ROOT, 'www/examples', path.basename(name));
      if (fs.existsSync(file)) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(file));
        return true;
      }
    }
    return false;
  });
});
after(() => other?.close());

/** A symbol's address (hex digits) from binutils' nm: an oracle independent of the viewer. */
function elfSymbol(elf, name) {
  const nm = spawnSync('aarch64-linux-gnu-nm', [elf], { encoding: 'utf8' });
  assert.equal(nm.status, 0, nm.stderr);
  const line = nm.stdout.split('\n').find((l) => l.endsWith(` T ${name}`));
  assert.ok(line, `${name} in ${elf}`);
  return line.split(' ')[0].replace(/^0+/, '');
}

const viewer = (page, recipe) => page.locator(`[data-recipe=${recipe}] tarmac-lens-viewer`);
const frameOf = (page, recipe) => page.frameLocator(`[data-recipe=${recipe}] tarmac-lens-viewer >> iframe`);

async function waitState(locator, state, timeout = 60_000) {
  await locator.and(locator.page().locator(`[data-state=${state}]`)).waitFor({ timeout });
}

async function waitLine(locator, line, timeout = 20_000) {
  const el = await locator.elementHandle();
  await locator.page().waitForFunction(([el, line]) => el.position?.line === line, [el, line], { timeout });
}

/** The viewer frame inside an element. */
async function contentFrame(locator) {
  return (await locator.evaluateHandle((el) => el.shadowRoot.querySelector('iframe'))).asElement().contentFrame();
}

/** The byte a memory pane at `register` selects at instruction line `line`:
 * the register's value there, as the trace text states it (`sp`: the last
 * stack pointer written, whatever its exception level). */
function addressOf(trace, line, register) {
  const upTo = blockEnd(trace, line);
  let value = null;
  for (let i = 0; i < upTo; i++) {
    const m = /^\s*\d+\s+\S+\s+R\s+(\S+)\s+([0-9a-fA-F_]+)/.exec(trace.lines[i]);
    if (!m) continue;
    const name = m[1].toLowerCase();
    if (register === 'sp' ? name === 'sp' || name.startsWith('sp_el') : name === register) value = m[2].replaceAll('_', '');
  }
  assert.ok(value, `the trace writes ${register} by line ${line}`);
  return `0x${BigInt(`0x${value}`).toString(16)}`;
}

async function expectRegisters(frame, trace, line) {
  const expected = registersAt(trace, blockEnd(trace, line));
  const regs = Object.keys(expected).filter((r) => /^x\d+$/.test(r)).slice(0, 4);
  assert.ok(regs.length > 0, `the trace writes x registers by line ${line}`);
  for (const r of regs) {
    await frame.locator(`[data-reg=${r}]`).filter({ hasText: expected[r].padStart(16, '0') }).waitFor({ timeout: 30_000 });
  }
}

describe('the <tarmac-lens-viewer> element', () => {
  test('the example page: each viewer opens its own trace where its attributes say, the far one only when scrolled to', async () => {
    const page = await fx.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${fx.server.url}embedding.html`);
    await waitState(viewer(page, 'html'), 'ready');
    await waitState(viewer(page, 'mdbook'), 'ready');
    // The Sphinx recipe is 2400 px below: no frame, no fetch yet.
    assert.equal(await viewer(page, 'sphinx').getAttribute('data-state'), 'unloaded');
    assert.equal(await viewer(page, 'sphinx').evaluate((el) => el.shadowRoot.querySelector('iframe')), null);

    // Plain HTML: line="400", an instruction line of quicksort.
    await waitLine(viewer(page, 'html'), instructionOf(QUICKSORT, 400).line);
    await expectRegisters(frameOf(page, 'html'), QUICKSORT, 400);
    // mdBook: pc="tg_main", through the ELF's symbols.
    const demo = readTrace(path.join(ROOT, 'www/demo/recursion-aarch64.tarmac'));
    const main = BigInt(`0x${elfSymbol(path.join(ROOT, 'www/demo/recursion-aarch64.elf'), 'tg_main')}`);
    const firstMain = demo.instructions.find((i) => BigInt(`0x${/\)\s+([0-9a-f]+)\s/i.exec(i.text)[1]}`) === main);
    assert.ok(firstMain, 'the demo runs tg_main');
    await waitLine(viewer(page, 'mdbook'), firstMain.line);
    assert.equal(await frameOf(page, 'mdbook').locator('[data-testid=memory]').count(), 1, 'panes="regs,mem:sp"');
    // The memory pane is at sp where the viewer starts, not at the trace's first line.
    const sp = addressOf(demo, firstMain.line, 'sp');
    assert.notEqual(sp, '0x0');
    await frameOf(page, 'mdbook').locator(`[data-testid=memory] .byte.selected[data-addr="${sp}"]`).waitFor({ timeout: 10_000 });
    assert.match(await frameOf(page, 'mdbook').locator('[data-testid=memory-pane-title]').textContent(), new RegExp(`^Memory at ${sp.slice(0, -1)}0$`));

    await viewer(page, 'sphinx').scrollIntoViewIfNeeded();
    await waitState(viewer(page, 'sphinx'), 'ready');
    await waitLine(viewer(page, 'sphinx'), instructionOf(CALLTEST, 201).line);
    await expectRegisters(frameOf(page, 'sphinx'), CALLTEST, 201);
    // panes="regs,mem:x0": at x0 of line 201.
    const x0 = addressOf(CALLTEST, instructionOf(CALLTEST, 201).line, 'x0');
    assert.notEqual(x0, '0x0');
    await frameOf(page, 'sphinx').locator(`[data-testid=memory] .byte.selected[data-addr="${x0}"]`).waitFor({ timeout: 10_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('watch() lists and steps through accesses as the trace text shows them, find() goes where the CLI finds, why() names the writer; a bad question rejects alone', async () => {
    const page = await fx.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${fx.server.url}embedding.html`);
    const el = viewer(page, 'html');
    await waitState(el, 'ready');
    const start = instructionOf(QUICKSORT, 400).line;
    await waitLine(el, start);
    // The nodes writing x0 (or w0), by their first line: an instruction's,
    // or line 1 for the values the trace states before its first one.
    const nodeLine = (line) => instructionOf(QUICKSORT, line)?.line ?? 1;
    const end = QUICKSORT.lines.length;
    const writes = [...new Set([...registerWrites(QUICKSORT, 'x0', end), ...registerWrites(QUICKSORT, 'w0', end)].sort((a, b) => a - b).map(nodeLine))];
    assert.ok(writes.length > 30, `quicksort writes x0 ${writes.length} times`);

    const all = await el.evaluate((v) => v.watch('x0', { access: 'write', direction: 'all', max: 25 }));
    assert.equal(all.target, 'x0');
    assert.equal(all.more, true);
    assert.deepEqual(all.hits.map((h) => h.line), writes.slice(0, 25));
    assert.ok(all.hits.every((h) => /^0x[0-9a-f]+$/.test(h.pc ?? '0x0') && h.access === 'w'), JSON.stringify(all.hits[0]));

    // Next from the position the viewer shows, previous from a line.
    const next = await el.evaluate((v) => v.watch('x0', { access: 'write' }));
    assert.deepEqual(next.hits.map((h) => h.line), [writes.find((l) => l > start)]);
    const prev = await el.evaluate((v, line) => v.watch('x0', { access: 'write', direction: 'previous', line }), start);
    assert.deepEqual(prev.hits.map((h) => h.line), [writes.filter((l) => l < start).pop()]);

    // A memory range: the 8 bytes of a store, its writes before a late line.
    const stores = memoryAccesses(QUICKSORT).filter((a) => a.write && a.size === 8);
    const addr = stores[Math.floor(stores.length / 2)].addr;
    const touching = memoryAccesses(QUICKSORT).filter((a) => a.write && a.addr < addr + 8n && addr < a.addr + BigInt(a.size));
    // Before the last instruction: the last write in an earlier node.
    const lastInstruction = QUICKSORT.instructions[QUICKSORT.instructions.length - 1].line;
    const before = touching.map((a) => nodeLine(a.line)).filter((l) => l < lastInstruction);
    const mem = await el.evaluate((v, [target, line]) => v.watch(target, { access: 'write', direction: 'previous', line }), [`0x${addr.toString(16)}:8`, lastInstruction]);
    assert.equal(mem.target, `[0x${addr.toString(16)}:8]`);
    assert.deepEqual(mem.hits.map((h) => h.line), [before[before.length - 1]]);

    // find(): where a condition becomes true, as the CLI finds it (on a copy:
    // the CLI saves an index beside the trace).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-embed-find-'));
    const copy = path.join(dir, 'quicksort.tarmac');
    fs.copyFileSync(path.join(ROOT, 'www/examples/quicksort.tarmac'), copy);
    const cliFind = (...args) => {
      const r = spawnSync(CLI, ['find', '--json', copy, ...args], { encoding: 'utf8' });
      assert.ok(r.status === 0 || r.status === 1, r.stderr);
      return JSON.parse(r.stdout).hits[0]?.line ?? null;
    };
    for (const [condition, backward] of [['x0 == 0', false], ['x0 == 0', true], ['[sp+8:8] > 0', false], ['x1 == 0x123456789', false]]) {
      const want = cliFind('--from', String(start), ...(backward ? ['--backward'] : []), condition);
      const got = await el.evaluate((v, [c, b]) => v.find(c, { direction: b ? 'previous' : 'next' }), [condition, backward]);
      assert.equal(got.condition, condition);
      assert.equal(got.hit?.line ?? null, want, `${condition} ${backward ? 'before' : 'after'} line ${start}`);
    }
    fs.rmSync(dir, { recursive: true });
    const badCondition = await el.evaluate((v) => v.find('x0 == [sp').then(() => 'answered', (e) => e.message));
    assert.match(badCondition, /^find: column \d+: /);

    // why(): the tree's root is the last write of x0 at or before the line.
    const explained = await el.evaluate((v, line) => v.why('x0', { line, depth: 2 }), start);
    assert.equal(explained.target, 'x0');
    assert.equal(explained.tree.what, 'x0');
    assert.equal(explained.tree.writer.line, writes.filter((l) => l <= start).pop());
    assert.ok(Array.isArray(explained.tree.inputs), JSON.stringify(explained.tree).slice(0, 200));
    const tooDeep = await el.evaluate((v) => v.why('x0', { depth: 99 }).then(() => 'answered', (e) => e.message));
    assert.match(tooDeep, /^why: depth must be 1 to \d+/);

    // A bad question rejects that question only; the viewer answers the next.
    const refused = await el.evaluate((v) => v.watch('x0', { direction: 'sideways' }).then(() => 'answered', (e) => e.message));
    assert.match(refused, /direction must be "next", "previous" or "all"/);
    assert.equal(await el.getAttribute('data-state'), 'ready');
    const again = await el.evaluate((v) => v.watch('x0', { access: 'write', direction: 'all', max: 3 }));
    assert.deepEqual(again.hits.map((h) => h.line), writes.slice(0, 3));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('changing one element\'s line moves only it; goto() resolves to the position; open() shows a Blob', async () => {
    const page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}embedding.html`);
    await waitState(viewer(page, 'html'), 'ready');
    await waitState(viewer(page, 'mdbook'), 'ready');
    await waitLine(viewer(page, 'html'), instructionOf(QUICKSORT, 400).line);
    const mdbookBefore = await viewer(page, 'mdbook').evaluate((el) => el.position?.line);
    await viewer(page, 'mdbook').evaluate((el) => {
      window.mdbookMoves = 0;
      el.addEventListener('position', () => window.mdbookMoves++);
    });

    const target = QUICKSORT.instructions.at(-5);
    await viewer(page, 'html').evaluate((el, line) => el.setAttribute('line', String(line)), target.line);
    await waitLine(viewer(page, 'html'), target.line);
    await expectRegisters(frameOf(page, 'html'), QUICKSORT, target.line);
    assert.equal(await viewer(page, 'mdbook').evaluate((el) => el.position?.line), mdbookBefore);
    assert.equal(await page.evaluate(() => window.mdbookMoves), 0, 'the other viewer did not move');

    // goto(): the position, with `asked` for a line inside an instruction.
    const inside = QUICKSORT.instructions.slice(30).find((i) => blockEnd(QUICKSORT, i.line) > i.line).line + 1;
    const reached = await viewer(page, 'html').evaluate((el, line) => el.goto(line), inside);
    assert.equal(reached.line, instructionOf(QUICKSORT, inside).line);
    assert.equal(reached.asked, inside);
    const refused = await viewer(page, 'html').evaluate((el) => el.goto(10_000_000).then(() => 'moved', (e) => e.message));
    assert.match(refused, /past the end/);

    // panes and height are live too: panes make a new frame, on the same trace.
    await viewer(page, 'html').evaluate((el) => el.setAttribute('panes', 'regs,mem:sp'));
    await waitState(viewer(page, 'html'), 'ready');
    assert.equal(new URL(await viewer(page, 'html').evaluate((el) => el.shadowRoot.querySelector('iframe').src)).searchParams.get('panes'), 'regs,mem:sp');
    await frameOf(page, 'html').locator('[data-testid=memory]').waitFor({ state: 'attached', timeout: 30_000 });
    await waitLine(viewer(page, 'html'), target.line);
    await viewer(page, 'html').evaluate((el) => el.setAttribute('height', '300'));
    assert.equal(await viewer(page, 'html').evaluate((el) => el.getBoundingClientRect().height), 300);

    // open(): a trace the page has, in place of src.
    const state = await viewer(page, 'html').evaluate(async (el) => {
      const blob = await (await fetch('examples/calltest64.tarmac')).blob();
      const ready = await el.open(blob, { name: 'calltest64-from-a-blob.tarmac' });
      return ready.name;
    });
    assert.equal(state, 'calltest64-from-a-blob.tarmac');
    const ins = CALLTEST.instructions[40];
    await viewer(page, 'html').evaluate((el, line) => el.goto({ line }), ins.line);
    await expectRegisters(frameOf(page, 'html'), CALLTEST, ins.line);
    await page.close();
  });

  test('a frame on another origin is ignored and counted; a drop on the host page is not taken', async () => {
    pages['meddler.html'] = `<!DOCTYPE html><script>
      // Another origin, framed in the host page: tries to drive the viewer.
      addEventListener('message', (e) => {
        const target = parent.frames[e.data.frame];
        target.postMessage('PING', '*');
        target.postMessage({ type: 'goto', line: e.data.line }, '*');
        target.postMessage({ type: 'open', trace: 'examples/calltest64.tarmac' }, '*');
        parent.postMessage('sent', '*');
      });
    </script>`;
    const page = await fx.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${fx.server.url}embedding.html`);
    await waitState(viewer(page, 'html'), 'ready');
    const start = instructionOf(QUICKSORT, 400).line;
    await waitLine(viewer(page, 'html'), start);
    // The host's own drop zone: a drop outside the viewer is its.
    await page.evaluate(() => {
      window.hostDrops = [];
      document.body.addEventListener('dragover', (e) => e.preventDefault());
      document.body.addEventListener('drop', (e) => {
        e.preventDefault();
        window.hostDrops.push([...e.dataTransfer.files].map((f) => f.name));
      });
    });
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['0 clk IT (0) 00000000 d503201f A EL3h : NOP\n'], 'dropped.tarmac'));
      return dt;
    });
    await page.dispatchEvent('h1', 'drop', { dataTransfer });
    assert.deepEqual(await page.evaluate(() => window.hostDrops), [['dropped.tarmac']]);
    // On the viewer itself, a drop is refused: not opened, and the frame is not replaced by the file.
    const frame = await contentFrame(viewer(page, 'html'));
    const refusedDrop = await frame.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['x'], 'onto-the-viewer.tarmac'));
      const e = new DragEvent('drop', { dataTransfer: dt, cancelable: true, bubbles: true });
      document.body.dispatchEvent(e);
      return e.defaultPrevented;
    });
    assert.equal(refusedDrop, true);

    assert.deepEqual(errors, []);
    await page.close();

    // A frame from the other origin posts to a viewer of the iframe example
    // (an element's frame, in its shadow root, is out of other frames' reach).
    const host = await fx.browser.context.newPage();
    await host.goto(`${fx.server.url}embed-example.html`);
    await host.waitForSelector('[data-viewer=a][data-state=ready]', { timeout: 60_000 });
    const first = QUICKSORT.instructions[20].line;
    await host.fill('[data-viewer=a] [data-input=line]', String(first));
    await host.click('[data-viewer=a] [data-action=goto]');
    const lastLine = () => host.evaluate(() => window.tarmacLensHost.messages.a.filter((m) => m?.type === 'position').at(-1)?.line);
    await host.waitForFunction((line) => window.tarmacLensHost.messages.a.some((m) => m?.type === 'position' && m.line === line), first);
    await host.evaluate((src) => {
      const f = document.createElement('iframe');
      f.src = src;
      f.id = 'meddler';
      document.body.append(f);
      return new Promise((resolve) => f.addEventListener('load', resolve));
    }, `${other.url}meddler.html`);
    await host.evaluate((line) => {
      document.getElementById('meddler').contentWindow.postMessage({ frame: 0, line }, '*');
      return new Promise((resolve) => addEventListener('message', (e) => e.data === 'sent' && resolve()));
    }, QUICKSORT.instructions.at(-2).line);
    const viewerA = host.frames().find((f) => f.url().includes('embed=1&panes=regs') && !f.url().includes('mem:'));
    // Counted as ignored is a state: the viewer has had them, and did
    // not act on them.
    await viewerA.waitForFunction(() => Number(document.body.dataset.ignoredMessages) >= 3, null, { timeout: 30_000 });
    assert.equal(await lastLine(), first, 'the viewer did not move');
    const told = await host.evaluate(() => window.tarmacLensHost.messages.a.filter((m) => m?.type === 'ignored'));
    assert.ok(told.length >= 3, 'the host was told of each ignored message');
    assert.equal(told.at(-1).origin, other.origin);
    assert.equal(await host.frameLocator('[data-viewer=a] iframe').locator('[data-testid=status]').getAttribute('data-state'), 'ready');
    await host.close();
  });

  test('a host on another origin: the element sends bytes, the viewer answers its origin; a host it was not told of is ignored', async () => {
    const script = `${fx.server.url}tarmac-lens-embed.js`;
    pages['host.html'] = `<!DOCTYPE html><meta charset="utf-8"><script src="${script}" defer></script>
      <tarmac-lens-viewer id="v" src="traces/calltest64.tarmac" line="201" panes="regs" loading="eager"></tarmac-lens-viewer>`;
    const page = await fx.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${other.url}host.html`);
    const el = page.locator('#v');
    await waitState(el, 'ready');
    const src = await el.evaluate((el) => el.shadowRoot.querySelector('iframe').src);
    assert.equal(new URL(src).searchParams.get('origins'), other.origin);
    await waitLine(el, instructionOf(CALLTEST, 201).line);
    await expectRegisters(page.frameLocator('#v >> iframe'), CALLTEST, 201);
    // Sending a URL from this origin is refused: the viewer would fetch it as its own.
    const said = await el.evaluate((el, url) => new Promise((resolve) => {
      el.addEventListener('viewererror', (e) => resolve(e.detail.message), { once: true });
      el.shadowRoot.querySelector('iframe').contentWindow.postMessage({ type: 'open', trace: url }, new URL(el.shadowRoot.querySelector('iframe').src).origin);
    }), `${fx.server.url}examples/quicksort.tarmac`);
    assert.match(said, /sends the trace's bytes .* not a URL/);

    // The same viewer framed without ?origins=: the handshake is never answered.
    const bare = await page.evaluate((viewerUrl) => {
      const f = document.createElement('iframe');
      f.src = viewerUrl;
      document.body.append(f);
      const heard = [];
      addEventListener('message', (e) => e.source === f.contentWindow && heard.push(e.data));
      return new Promise((resolve) => {
        f.addEventListener('load', () => {
          const pinger = setInterval(() => f.contentWindow.postMessage('PING', '*'), 100);
          setTimeout(() => {
            clearInterval(pinger);
            resolve({ heard, ignored: null });
          }, 4000);
        });
      });
    }, `${fx.server.url}index.html?embed=1`);
    assert.deepEqual(bare.heard, [], 'no PONG to an origin the viewer was not told of');
    const bareFrame = page.frames().find((f) => f.url() === `${fx.server.url}index.html?embed=1`);
    assert.ok(Number(await bareFrame.evaluate(() => document.body.dataset.ignoredMessages)) >= 10);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
