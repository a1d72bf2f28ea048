// The npm package (npm/tarmac-lens, built by scripts/build-npm.sh, which
// scripts/test.sh runs first) in Node, against the CLI: the same call tree,
// profile and search hits, the trace's own lines and register writes, and
// `npm pack` holding all it needs.
//
// TARMAC_LENS_CLI is the built command (default target/debug/tarmac-lens).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
const CLI = process.env.TARMAC_LENS_CLI || path.join(TARGET, 'debug/tarmac-lens');
// The core's example prints the registers too; used when built.
const EXAMPLE = path.join(TARGET, 'debug/examples/registers_at_line');
const PKG = path.join(ROOT, 'npm/tarmac-lens');
const DATA = path.join(ROOT, 'tests/data/tracegen');
const TRACES = ['quicksort-aarch64-O2-fastmodel-2M', 'quicksort-arm-O2-fastmodel-2M'].map((name) => ({
  name,
  trace: path.join(DATA, `${name}.tarmac`),
  elf: path.join(DATA, `${name}.elf`),
}));

const cli = (...args) => execFileSync(CLI, [...args, '--no-index', '-q'], { encoding: 'utf8', maxBuffer: 1 << 28 });

let lib;
let tmp;
before(async () => {
  assert.ok(
    fs.existsSync(path.join(PKG, 'gen/tarmac_lens_js_bg.wasm')),
    'npm/tarmac-lens/gen is missing: run scripts/build-npm.sh first (scripts/test.sh does)',
  );
  // Imported as a dependency is: by name, through package.json's exports.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tarmac-lens-npm-'));
  fs.mkdirSync(path.join(tmp, 'node_modules'));
  fs.symlinkSync(PKG, path.join(tmp, 'node_modules/tarmac-lens'), 'dir');
  const entry = createRequire(path.join(tmp, 'index.js')).resolve('tarmac-lens');
  assert.equal(path.basename(entry), 'node.js', 'the "node" export is chosen in Node');
  lib = await import(pathToFileURL(entry));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Registers `Xn`/`rn` as the trace's `R` lines left them after `line`'s instruction. */
function writtenRegisters(lines, line) {
  const isInstruction = (text) => / I[ST] /.test(text);
  let end = line; // 1-based number of the node's last line
  while (end < lines.length && !isInstruction(lines[end])) end++;
  const regs = {};
  for (const text of lines.slice(0, end)) {
    const m = / R ([xr]\d+) ([0-9a-f]+)$/i.exec(text);
    if (m) regs[m[1].toLowerCase()] = m[2].toLowerCase();
  }
  return regs;
}

for (const { name, trace, elf } of TRACES) {
  test(`${name}: the package answers as the CLI does`, async () => {
    const text = fs.readFileSync(trace, 'utf8');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const seen = [];
    const called = [];
    const t = lib.startTrace(trace, { elf, onProgress: (p) => called.push(p) });
    t.addEventListener('progress', (e) => seen.push(e));
    assert.equal(await t.ready, t);
    try {
      // Progress: events and the callback, to the whole file.
      assert.ok(seen.length >= 1 && seen.length === called.length, 'progress events arrive');
      const last = seen.at(-1);
      assert.equal(last.complete, true);
      assert.equal(last.totalBytes, fs.statSync(trace).size);
      assert.equal(last.doneBytes, last.totalBytes);
      assert.equal(last.lines, lines.length);
      assert.ok(seen.every((e, i) => i === 0 || e.doneBytes >= seen[i - 1].doneBytes));
      assert.equal(t.elfWarning, null);

      // Rows: the trace's own lines.
      for (const first of [1, 1000, lines.length - 10]) {
        const rows = await t.rows(first, 1000);
        assert.deepEqual(
          rows.map((r) => r.text),
          lines.slice(first - 1, first - 1 + 1000),
        );
        assert.deepEqual(
          rows.map((r) => r.line),
          rows.map((_, i) => first + i),
        );
      }
      const call = lines.findIndex((l) => / IT .* BL /.test(l)) + 1;
      const [row] = await t.rows(call, 1);
      assert.equal(row.firstOfNode, true);
      assert.equal(typeof row.pc, 'bigint');
      assert.equal(row.pc, BigInt(`0x${/ IT \(\d+\) ([0-9a-f]+)/.exec(row.text)[1]}`));
      assert.equal(row.time, Number(row.text.split(' ')[0]));
      assert.ok(row.function, 'rows name their function from the ELF');

      // Registers: the trace's last writes, and the core example's output.
      const probe = [100, 1001, 5003, 20000, lines.length];
      for (const line of probe) {
        const regs = await t.registersAt(line);
        for (const [reg, value] of Object.entries(writtenRegisters(lines, line))) {
          assert.equal(regs[reg], value, `${reg} after line ${line}`);
        }
        if (fs.existsSync(EXAMPLE)) {
          const out = execFileSync(EXAMPLE, [trace, String(line)], { encoding: 'utf8' });
          const expected = Object.fromEntries(out.trim().split('\n').map((l) => l.split(/\s+/)));
          assert.deepEqual(regs, expected, `registers after line ${line}`);
        }
      }

      // Memory: a store's bytes are known from its line on, unknown before
      // (the trace writes that word first there).
      const store = lines.findIndex((l) => / MW4 /.test(l));
      const [, addr, value] = / MW4 ([0-9a-f]+):[0-9a-f]+ ([0-9a-f]{8})/.exec(lines[store]);
      const mem = await t.memoryAt(store + 1, BigInt(`0x${addr}`), 4);
      assert.equal(mem.address, BigInt(`0x${addr}`));
      assert.deepEqual([...mem.bytes], [3, 2, 1, 0].map((i) => parseInt(value.slice(i * 2, i * 2 + 2), 16)));
      assert.deepEqual(mem.known, [true, true, true, true]);
      assert.deepEqual((await t.memoryAt(store - 3, `0x${addr}`, 4)).known, [false, false, false, false]);

      // Reports: the CLI's text, byte for byte.
      assert.equal((await t.calltree()).text, cli('calltree', trace, '--image', elf));
      const profile = await t.profile();
      assert.equal(profile.text, cli('profile', trace, '--image', elf));
      assert.equal(profile.functions.length, profile.text.trim().split('\n').length - 1);
      const main = profile.functions.find((f) => f.name === 'tg_main');
      assert.ok(main && typeof main.address === 'bigint' && main.count === 1);

      // Search: the lines `tarmac-lens search` prints.
      for (const [pattern, options, flags] of [
        ['BL ', {}, []],
        ['[xr][0-9]+ 0{7,}[1-9]$', { regex: true, ignoreCase: true }, ['-E', '-i']],
        ['cpsr', { kinds: ['registers'], lines: [100, 5000] }, ['--kind', 'registers', '--lines', '100..5000']],
      ]) {
        const hits = await t.search(pattern, options);
        const expected = cli('search', trace, pattern, ...flags);
        assert.ok(hits.length > 0, `${pattern} is found`);
        assert.equal(hits.map((h) => `${h.line}:${h.text}\n`).join(''), expected, pattern);
      }
      assert.equal((await t.search('BL ', { max: 2 })).length, 2);
      await assert.rejects(t.search('(', { regex: true }), /bad regular expression/);
      await assert.rejects(t.registersAt(lines.length + 5), /no line/);
    } finally {
      await t.close();
    }
    await assert.rejects(t.rows(1, 1), /closed/);
  });
}

test('every kind of input reads the same trace', async () => {
  const { trace, elf } = TRACES[1];
  const bytes = fs.readFileSync(trace);
  const inputs = {
    path: trace,
    fileUrl: pathToFileURL(trace),
    fileUrlString: pathToFileURL(trace).href,
    buffer: bytes,
    arrayBuffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    blob: new Blob([bytes]),
  };
  let expected;
  for (const [kind, input] of Object.entries(inputs)) {
    const t = await lib.openTrace(input, { elf: kind === 'blob' ? new Blob([fs.readFileSync(elf)]) : elf });
    try {
      const got = { regs: await t.registersAt(5000), rows: await t.rows(4990, 20), tree: (await t.calltree()).text };
      expected ??= got;
      assert.deepEqual(got, expected, kind);
    } finally {
      await t.close();
    }
  }
});

test('a file that is no trace is refused with a clear message', async () => {
  const { elf } = TRACES[0];
  await assert.rejects(lib.openTrace(elf), /\.elf is an ELF executable, not a Tarmac trace/);
  await assert.rejects(
    lib.openTrace(path.join(ROOT, 'README.md')),
    /README\.md: this is not a Tarmac trace: line \d+ .* is not in any trace format/,
  );
  await assert.rejects(lib.openTrace(path.join(tmp, 'missing.tarmac')), /missing\.tarmac: ENOENT/);
  await assert.rejects(lib.openTrace('https://example.com/x.tarmac'), /Node reads files, not https: URLs/);
  await assert.rejects(lib.openTrace(42), /must be a path/);
  await assert.rejects(lib.openTrace(TRACES[0].trace, { elf: path.join(ROOT, 'README.md') }), /ELF|elf/);
});

test('package.json has the core crate version; npm pack holds the wasm, JS and types', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  const core = /^version = "(.*)"$/m.exec(fs.readFileSync(path.join(ROOT, 'crates/core/Cargo.toml'), 'utf8'))[1];
  assert.equal(pkg.version, core);
  assert.equal(pkg.name, 'tarmac-lens');
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PKG, encoding: 'utf8' }),
  );
  const files = packed.files.map((f) => f.path).sort();
  for (const file of [
    'README.md',
    'browser.js',
    'gen/tarmac_lens_js.cjs',
    'gen/tarmac_lens_js.js',
    'gen/tarmac_lens_js_bg.wasm',
    'index.d.ts',
    'lib/serve.js',
    'lib/trace.js',
    'node.js',
    'package.json',
    'worker-node.js',
    'worker.js',
  ]) {
    assert.ok(files.includes(file), `the package holds ${file} (it holds ${files.join(', ')})`);
  }
  // Every file the code imports is packed.
  for (const file of files.filter((f) => /\.(m?js|cjs)$/.test(f))) {
    const src = fs.readFileSync(path.join(PKG, file), 'utf8');
    for (const [, spec] of src.matchAll(/(?:from |import\(|require\(|new URL\()'(\.[^']+)'/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      assert.ok(files.includes(target), `${file} needs ${target}, which is packed`);
    }
  }
});
