// "Try the demo" opens the trace the app ships, with its ELF image: the
// browser shows symbols at once.

import path from 'node:path';
import { test } from 'node:test';

import { ROOT, pageFixture } from './harness.mjs';
import { checkFoldNamed, checkRegisters, firstCall, waitReady, watchErrors } from './browse_check.mjs';

const DEMO = path.join(ROOT, 'www/demo/recursion-aarch64');
const fx = pageFixture();

test('Try the demo opens the shipped trace with its symbols', async (t) => {
  const page = await fx.browser.context.newPage();
  const errors = watchErrors(page);
  t.after(() => page.close());
  await page.goto(fx.server.url);
  await page.waitForSelector('[data-testid=status][data-state=idle]');
  await page.click('[data-testid=demo-button]');
  await waitReady(page);
  await checkRegisters(page, `${DEMO}.tarmac`);
  await checkFoldNamed(page, firstCall(`${DEMO}.tarmac`, `${DEMO}.elf`));
  // The button is for the empty page only.
  await page.waitForSelector('[data-testid=demo-button]', { state: 'detached' });
  errors.check();
});
