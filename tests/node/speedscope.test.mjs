// `tarmac-lens export --format chrome` read by a real reader: speedscope's
// own trace-event importer, from the speedscope npm package, in Node.
//
// The package ships only its browser bundle (one script in a closure, no
// exports), so the test takes the importer out of it: the function the
// bundle calls after "Importing as Trace Event Format profile" is handed
// out just before the page would start, and the bundle runs in a `vm`
// context whose browser objects are inert stand-ins. The importer itself
// runs unchanged. Anything it says on the console (speedscope warns there
// about unmatched or misnested B/E events) fails the test.
//
// Run by scripts/test.sh (`node --test tests/node/`), with
// TARMAC_LENS_CLI the built command (default target/debug/tarmac-lens).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI =
  process.env.TARMAC_LENS_CLI ||
  path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'debug/tarmac-lens');

function speedscopeImporter() {
  const dir = path.join(ROOT, 'node_modules/speedscope/dist/release');
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const script = /<script src="(speedscope-[\w-]+\.js)">/.exec(html);
  assert.ok(script, 'speedscope index.html names its bundle');
  let src = fs.readFileSync(path.join(dir, script[1]), 'utf8');
  const call = /Importing as Trace Event Format profile"\),([A-Za-z_$][\w$]*)\(/.exec(src);
  assert.ok(call, 'the bundle has the trace-event importer');
  const start = src.lastIndexOf('console.log(`speedscope v');
  assert.ok(start > 0, 'the bundle starts the page where expected');
  src = `${src.slice(0, start)}globalThis.__importTraceEvents=${call[1]};return;${src.slice(start)}`;
  const inert = () =>
    new Proxy(function () {}, {
      get: (_, key) => (key === Symbol.toPrimitive ? () => '' : inert()),
      apply: () => inert(),
      construct: () => inert(),
    });
  const said = [];
  const record = (...args) => said.push(args.map(String).join(' '));
  const ctx = {
    console: { log: record, warn: record, error: record, info: record, debug: record },
    URL, URLSearchParams, TextDecoder, TextEncoder, setTimeout, clearTimeout,
  };
  ctx.window = ctx;
  ctx.self = ctx;
  ctx.globalThis = ctx;
  for (const k of ['document', 'navigator', 'location', 'localStorage', 'requestAnimationFrame',
    'matchMedia', 'addEventListener', 'devicePixelRatio', 'HTMLElement', 'Element', 'Node',
    'performance']) {
    ctx[k] = inert();
  }
  vm.createContext(ctx);
  vm.runInContext(src, ctx);
  said.length = 0;
  return { importTraceEvents: ctx.__importTraceEvents, said };
}

const TRACEGEN = path.join(ROOT, 'tests/data/tracegen');
// [trace, with its image, --time]: the fastmodel trace's clock ticks once
// per instruction; the ES trace's `tic` moves every few instructions, so
// with its own times many calls are zero long, and speedscope, drawing
// time, leaves those out: with `--time instructions` it has every one.
const cases = [
  ['quicksort-aarch64-O2-fastmodel-2M', true, 'trace'],
  ['quicksort-arm-O2-es-2M', true, 'trace'],
  ['quicksort-arm-O2-es-2M', true, 'instructions'],
  ['../ttu/calltests/calltest64', false, 'trace'],
];

/// Slices of a document that last: what a time-based viewer draws.
function lasting(json) {
  const open = new Map();
  let n = 0;
  for (const e of json.traceEvents) {
    const key = `${e.pid}/${e.tid}`;
    if (!open.has(key)) open.set(key, []);
    if (e.ph === 'B') open.get(key).push(e.ts);
    if (e.ph === 'E' && e.ts > open.get(key).pop()) n += 1;
  }
  return n;
}

for (const [name, image, time] of cases) {
  test(`speedscope imports the Chrome export of ${path.basename(name)} (--time ${time})`, () => {
    const trace = path.join(TRACEGEN, `${name}.tarmac`);
    const args = image ? [`--image=${path.join(TRACEGEN, `${name}.elf`)}`] : [];
    const run = (cmd) =>
      execFileSync(CLI, [...cmd, ...args, trace], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const json = JSON.parse(run(['export', '--format', 'chrome', '--time', time]));
    const { importTraceEvents, said } = speedscopeImporter();
    const group = importTraceEvents(json);
    assert.deepEqual(said, [], 'speedscope said nothing about the events');
    assert.equal(group.profiles.length, 1, 'one thread, one profile');
    const profile = group.profiles[0];
    let calls = 0;
    const frames = new Set();
    profile.forEachCall(
      (node) => {
        calls += 1;
        frames.add(node.frame.name);
      },
      () => {},
    );
    // A frame per activation `calltree` prints (that lasts), named as
    // `profile` names the functions.
    const activations = run(['calltree'])
      .split('\n')
      .filter((l) => l.trimStart().startsWith('o ')).length;
    const slices = json.traceEvents.filter((e) => e.ph === 'B').length;
    assert.equal(slices, activations);
    if (name.includes('fastmodel') || time === 'instructions') {
      assert.equal(lasting(json), activations, 'every call lasts');
      assert.equal(calls, activations);
    } else {
      // Zero-long calls are not drawn, and calls back to back with no
      // time between them are drawn as one.
      assert.ok(calls > 0 && calls <= lasting(json), `${calls} frames`);
    }
    const names = new Set(
      run(['profile'])
        .split('\n')
        .slice(1)
        .filter((l) => l)
        .map((l) => l.slice(36) || l.split(/\s+/)[0]),
    );
    for (const f of frames) assert.ok(names.has(f), `${f} is a profile name`);
    if (calls === activations) assert.deepEqual([...frames].sort(), [...names].sort());
  });
}
