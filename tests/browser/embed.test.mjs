// The embedding example: two viewers in iframes, driven by the host page
// through postMessage (handshake, open, go to a line), reporting their
// positions back; the registers inside each frame match the trace text.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { ROOT, pageFixture } from './harness.mjs';
import { blockEnd, instructionOf, readTrace, registersAt } from './trace_text.mjs';

const fx = pageFixture();

const VIEWERS = {
  a: readTrace(path.join(ROOT, 'www/examples/quicksort.tarmac')),
  b: readTrace(path.join(ROOT, 'www/examples/calltest64.tarmac')),
};

async function lastPosition(page, id) {
  return page.evaluate((id) => window.tarmacLensHost.messages[id].filter((m) => m?.type === 'position').at(-1) ?? null, id);
}

describe('embedding', () => {
  test('both viewers shake hands, open their traces and follow the host', async () => {
    const page = await fx.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const missing = [];
    page.on('response', (r) => r.status() >= 400 && missing.push(`${r.status()} ${r.url()}`));
    await page.goto(`${fx.server.url}embed-example.html`);
    // Its icon is one the page names and the server has (a browser asks
    // for /favicon.ico, which is not there, when a page names none).
    const icon = await page.evaluate(() => document.querySelector('link[rel=icon]')?.href ?? null);
    assert.ok(icon, 'the page names its icon');
    const got = await page.request.get(icon);
    assert.equal(got.status(), 200, icon);
    assert.match(got.headers()['content-type'], /svg/);
    for (const id of ['a', 'b']) {
      await page.waitForSelector(`[data-viewer=${id}][data-state=ready]`, { timeout: 60_000 });
      const said = await page.evaluate((id) => window.tarmacLensHost.messages[id], id);
      assert.equal(said.filter((m) => m === 'PONG').length >= 1, true, `viewer ${id} answered PING`);
      assert.ok(said.some((m) => m?.type === 'state' && m.state === 'indexing'), `viewer ${id} said it was indexing`);
    }
    for (const [id, trace] of Object.entries(VIEWERS)) {
      const frame = page.frameLocator(`[data-viewer=${id}] iframe`);
      // The compact viewer: no drop zone, no toolbar.
      assert.equal(await frame.locator('[data-testid=drop-zone]').count(), 0);
      assert.equal(await frame.locator('[data-testid=toolbar]').count(), 0);
      for (const ins of [trace.instructions[10], trace.instructions.at(-3)]) {
        // A line inside the instruction's block: the viewer moves to its start.
        const target = ins.line + 1 <= blockEnd(trace, ins.line) ? ins.line + 1 : ins.line;
        await page.fill(`[data-viewer=${id}] [data-input=line]`, String(target));
        await page.click(`[data-viewer=${id}] [data-action=goto]`);
        await page.waitForFunction(
          ([id, line]) => window.tarmacLensHost.messages[id].some((m) => m?.type === 'position' && m.line === line),
          [id, instructionOf(trace, target).line],
          { timeout: 30_000 },
        );
        const pos = await lastPosition(page, id);
        assert.equal(pos.line, ins.line, `viewer ${id}: position after going to line ${target}`);
        assert.equal(pos.time, ins.time);
        const expected = registersAt(trace, blockEnd(trace, ins.line));
        const regs = Object.keys(expected).filter((r) => /^x\d+$/.test(r)).slice(0, 6);
        assert.ok(regs.length > 0, 'the trace writes x registers by then');
        for (const r of regs) {
          await frame
            .locator(`[data-reg=${r}]`)
            .filter({ hasText: expected[r].padStart(16, '0') })
            .waitFor({ timeout: 30_000 });
        }
      }
    }
    // Viewer b asked for a memory pane (panes=regs,mem:x0).
    assert.equal(await page.frameLocator('[data-viewer=b] iframe').locator('[data-testid=memory]').count(), 1);
    // In the frames' width every register is whole: a narrow pane shows
    // fewer columns, never a cut one.
    for (const id of ['a', 'b']) {
      const frame = await (await page.$(`[data-viewer=${id}] iframe`)).contentFrame();
      const cut = await frame.$eval('[data-testid=registers-core]', (pane) => {
        const body = pane.querySelector('.registers').parentElement.getBoundingClientRect();
        return [...pane.querySelectorAll('.reg')]
          .filter((r) => {
            const b = r.getBoundingClientRect();
            return b.left < body.left - 0.5 || b.right > body.right + 0.5 || b.right > innerWidth + 0.5;
          })
          .map((r) => r.querySelector('.reg-name').textContent);
      });
      assert.deepEqual(cut, [], `viewer ${id}: registers cut at the pane's edge`);
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(missing, [], 'every request the page made was answered');
    await page.close();
  });

  test('the prefilled lines move both viewers; a line before the first instruction or past the end is said so', async () => {
    const page = await fx.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${fx.server.url}embed-example.html`);
    for (const [id, trace] of Object.entries(VIEWERS)) {
      await page.waitForSelector(`[data-viewer=${id}][data-state=ready]`, { timeout: 60_000 });
      const prefilled = Number(await page.inputValue(`[data-viewer=${id}] [data-input=line]`));
      // The example's values are instruction lines past each trace's start.
      assert.equal(instructionOf(trace, prefilled).line, prefilled, `viewer ${id}: line ${prefilled} starts an instruction`);
      assert.ok(prefilled > trace.instructions[0].line, `viewer ${id}: line ${prefilled} is past the first instruction`);
      await page.click(`[data-viewer=${id}] [data-action=goto]`);
      await page.waitForFunction(
        ([id, line]) => window.tarmacLensHost.messages[id].some((m) => m?.type === 'position' && m.line === line),
        [id, prefilled],
        { timeout: 30_000 },
      );
      const pos = await lastPosition(page, id);
      assert.equal(pos.asked, undefined, `viewer ${id}: went where asked`);
      assert.match(await page.textContent(`[data-viewer=${id}] [data-testid=position]`), new RegExp(`^line ${prefilled} ·`));
    }
    const frame = page.frameLocator('[data-viewer=a] iframe');
    // Before the first instruction: the trace's start, and said so.
    const first = VIEWERS.a.instructions[0].line;
    await page.fill('[data-viewer=a] [data-input=line]', String(first - 20));
    await page.click('[data-viewer=a] [data-action=goto]');
    await page.waitForFunction(() => window.tarmacLensHost.messages.a.some((m) => m?.type === 'position' && m.asked !== undefined), null, {
      timeout: 30_000,
    });
    const snapped = await lastPosition(page, 'a');
    assert.equal(snapped.asked, first - 20);
    assert.notEqual(snapped.line, first - 20);
    assert.match(await page.textContent('[data-viewer=a] [data-testid=position]'), new RegExp(`\\(asked for line ${first - 20}\\)`));
    await frame.locator('[data-testid=status-message]').filter({ hasText: `Line ${first - 20} comes before the first instruction` }).waitFor({ timeout: 30_000 });
    // Past the end: the last line named, to the host and on screen.
    const last = VIEWERS.a.lines.length - (VIEWERS.a.lines.at(-1) === '' ? 1 : 0);
    await page.fill('[data-viewer=a] [data-input=line]', '999999');
    await page.click('[data-viewer=a] [data-action=goto]');
    await page.waitForFunction(() => window.tarmacLensHost.messages.a.some((m) => m?.type === 'error' && /past the end/.test(m.message)), null, {
      timeout: 30_000,
    });
    const said = await page.evaluate(() => window.tarmacLensHost.messages.a.filter((m) => m?.type === 'error').at(-1).message);
    assert.equal(said, `Line 999,999 is past the end: the trace ends at line ${last.toLocaleString('en-US')}.`);
    await frame.locator('[data-testid=status-message]').filter({ hasText: 'past the end' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('malformed messages are reported and change nothing; goto by time; open a Blob', async () => {
    const page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}embed-example.html`);
    await page.waitForSelector('[data-viewer=a][data-state=ready]', { timeout: 60_000 });
    await page.evaluate(() => {
      const w = document.querySelector('[data-viewer=a] iframe').contentWindow;
      w.postMessage(42, location.origin);
      w.postMessage({ type: 'fly' }, location.origin);
      w.postMessage({ type: 'goto', line: -3 }, location.origin);
      w.postMessage({ type: 'open', trace: 17 }, location.origin);
    });
    await page.waitForFunction(() => window.tarmacLensHost.messages.a.filter((m) => m?.type === 'error').length >= 4, null, {
      timeout: 30_000,
    });
    const errorsSaid = await page.evaluate(() => window.tarmacLensHost.messages.a.filter((m) => m?.type === 'error').map((m) => m.message));
    assert.match(errorsSaid[0], /must be "PING" or an object with a type/);
    assert.match(errorsSaid[1], /unknown message type "fly"/);
    assert.match(errorsSaid[2], /line must be a non-negative integer/);
    assert.match(errorsSaid[3], /expected an ArrayBuffer, a Blob or a URL/);
    assert.equal(
      await page.frameLocator('[data-viewer=a] iframe').locator('[data-testid=status]').getAttribute('data-state'),
      'ready',
    );

    // A time, then a Blob: the other ways in.
    const ins = VIEWERS.a.instructions[50];
    await page.evaluate((time) => {
      document.querySelector('[data-viewer=a] iframe').contentWindow.postMessage({ type: 'goto', time }, location.origin);
    }, ins.time);
    await page.waitForFunction(
      (line) => window.tarmacLensHost.messages.a.some((m) => m?.type === 'position' && m.line === line),
      instructionOf(VIEWERS.a, ins.line).line,
      { timeout: 30_000 },
    );
    assert.equal((await lastPosition(page, 'a')).time, ins.time);
    await page.evaluate(async () => {
      const blob = await (await fetch('examples/calltest64.tarmac')).blob();
      document.querySelector('[data-viewer=a] iframe').contentWindow.postMessage({ type: 'open', trace: blob, name: 'from-a-blob.tarmac' }, location.origin);
    });
    await page.waitForFunction(
      () => window.tarmacLensHost.messages.a.some((m) => m?.type === 'state' && m.state === 'ready' && m.name === 'from-a-blob.tarmac'),
      null,
      { timeout: 30_000 },
    );
    assert.equal(
      Number(await page.frameLocator('[data-viewer=a] iframe').locator('[data-testid=status]').getAttribute('data-lines')),
      VIEWERS.b.lines.length - (VIEWERS.b.lines.at(-1) === '' ? 1 : 0),
    );
    await page.close();
  });
});
