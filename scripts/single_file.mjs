#!/usr/bin/env node
// Makes tarmac-lens.html: the whole app in one file that works when opened
// from file:// (e-mailed, in a shared folder), from the release build:
//
//   trunk build --release && node scripts/single_file.mjs [-o tarmac-lens.html] [--dist dist]
//
// What changes from dist/index.html: the stylesheet and icon are inlined;
// both wasm modules, the worker's glue and the demo files travel as base64
// data blocks (never executed, so outside the CSP); one inline module script
// decodes them, starts the page's wasm from bytes and hands the Rust side
// blob: URLs for the worker (glue + its wasm bytes) and the demo
// (`globalThis.tarmacLensAssets`, read by src/web/page/assets.rs). There is no
// service worker (file:// has none). The page carries its own CSP: scripts
// only by hash, wasm compilation, workers from blob: only, no connection
// anywhere but blob:.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const opts = { dist: path.join(ROOT, 'dist'), out: 'tarmac-lens.html' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-o' || a === '--out') opts.out = argv[++i];
    else if (a === '--dist') opts.dist = argv[++i];
    else throw new Error(`unknown argument ${a}\nusage: single_file.mjs [-o OUT.html] [--dist DIR]`);
    if (opts.out === undefined || opts.dist === undefined) throw new Error(`${a} needs a value`);
  }
  return opts;
}

/** Finds `re` in `text` or fails naming what was looked for. */
function need(text, re, what) {
  const m = re.exec(text);
  if (!m) throw new Error(`single_file: cannot find ${what} (has the build changed?)`);
  return m;
}

/** JS that goes between <script> tags must not close or comment them. */
function inlineSafe(js, what) {
  if (/<\/script|<!--/i.test(js)) throw new Error(`single_file: ${what} contains "</script" or "<!--"`);
  return js;
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export function buildSingleFile(dist) {
  const read = (name) => fs.readFileSync(path.join(dist, name));
  const relative = (href) => {
    if (!href.startsWith('./')) throw new Error(`single_file: ${href} is not a file of the build`);
    return href.slice(2);
  };
  let html = read('index.html').toString('utf8');

  // The page's wasm-bindgen glue, as Trunk loads it.
  const trunkScript = need(html, /<script type="module"[^>]*>[\s\S]*?<\/script>/, "Trunk's loader script")[0];
  const mainJs = relative(need(trunkScript, /from '([^']+\.js)'/, 'the main glue')[1]);
  const mainWasm = relative(need(trunkScript, /module_or_path: '([^']+\.wasm)'/, 'the main wasm')[1]);
  const mainGlue = read(mainJs).toString('utf8');
  if (/^\s*import\s/m.test(mainGlue)) throw new Error(`single_file: ${mainJs} imports other files`);
  const exportLine = need(mainGlue, /^export \{ initSync, __wbg_init as default \};\s*$/m, 'the glue exports');
  const glue = mainGlue.replace(exportLine[0], '');

  // The worker: its loader shim names its glue and wasm.
  const shim = read('tarmac-lens-worker_loader.js').toString('utf8');
  const workerJs = relative(need(shim, /importScripts\("([^"]+)"\)/, "the worker's glue")[1]);
  const workerWasm = relative(need(shim, /wasm_bindgen\(\{ module_or_path: "([^"]+)" \}\)/, "the worker's wasm")[1]);

  const blocks = {
    'tl-main-wasm': read(mainWasm),
    'tl-worker-js': read(workerJs),
    'tl-worker-wasm': read(workerWasm),
    'tl-demo-trace': read('demo/recursion-aarch64.tarmac'),
    'tl-demo-elf': read('demo/recursion-aarch64.elf'),
  };

  const start = `${inlineSafe(glue, mainJs)}
// ---- single-file start (scripts/single_file.mjs) ----
{
  const bytes = (id) => {
    const text = atob(document.getElementById(id).textContent.trim());
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  };
  const blobUrl = (parts, type) => URL.createObjectURL(new Blob(parts, { type }));
  // The worker is its glue followed by the start of its wasm from bytes
  // carried in its own source (a blob: worker has nothing else to read).
  const worker = [
    bytes('tl-worker-js'),
    '\\n;wasm_bindgen({ module_or_path: Uint8Array.from(atob("',
    document.getElementById('tl-worker-wasm').textContent.trim(),
    '"), (c) => c.charCodeAt(0)) });\\n',
  ];
  globalThis.tarmacLensAssets = {
    worker: blobUrl(worker, 'text/javascript'),
    demoTrace: blobUrl([bytes('tl-demo-trace')], 'text/plain'),
    demoElf: blobUrl([bytes('tl-demo-elf')], 'application/octet-stream'),
  };
  const wasm = await __wbg_init({ module_or_path: bytes('tl-main-wasm') });
  dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
}
`;
  html = html.replace(trunkScript, () => `<script type="module">${start}</script>`);

  // Preloads, the offline copy and any CSP of the hosted page do not apply.
  html = html.replace(/<link rel="(?:modulepreload|preload)"[^>]*>/g, '');
  html = html.replace(/<script src="\.\/register-sw\.js"[^>]*><\/script>\s*/g, '');
  html = html.replace(/<meta\b[^>]*Content-Security-Policy[^>]*>\s*/gi, '');
  html = html.replace(/<link rel="stylesheet" href="([^"]+)"[^>]*>/g, (_, href) => {
    const css = read(relative(href)).toString('utf8');
    if (/<\/style/i.test(css)) throw new Error(`single_file: ${href} contains "</style"`);
    return `<style>\n${css}</style>`;
  });
  html = html.replace(/<link rel="icon" href="([^"]+\.svg)"[^>]*>/g, (_, href) => {
    return `<link rel="icon" href="data:image/svg+xml;base64,${read(relative(href)).toString('base64')}">`;
  });
  // Any other script of the page is inlined too.
  html = html.replace(/<script src="([^"]+)"[^>]*><\/script>/g, (_, src) => {
    const js = read(relative(src)).toString('utf8');
    return `<script>${inlineSafe(js, src)}</script>`;
  });
  const leftover = /(?:src|href)="\.\/[^"]*"/.exec(html);
  if (leftover) throw new Error(`single_file: ${leftover[0]} still refers to a file beside the page`);

  const hashes = [...html.matchAll(/<script(?: type="module")?>([\s\S]*?)<\/script>/g)].map((m) => sha256(m[1]));
  const csp = [
    "default-src 'none'",
    `script-src ${hashes.join(' ')} 'wasm-unsafe-eval'`,
    'worker-src blob:',
    'connect-src blob:',
    // Components set style attributes; no script can come from a style.
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  // After the charset (which must come in the first 1024 bytes), before any script.
  html = html.replace(
    /<meta charset="utf-8" \/>/,
    (m) => `${m}\n    <meta http-equiv="Content-Security-Policy" content="${csp}" />`,
  );
  if (!html.includes(csp)) throw new Error('single_file: no <meta charset="utf-8" /> to put the CSP after');

  const data = Object.entries(blocks)
    .map(([id, buf]) => `<script type="application/octet-stream" id="${id}">${buf.toString('base64')}</script>`)
    .join('\n');
  html = html.replace(/<\/body>/, () => `${data}\n</body>`);
  return html;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const opts = parseArgs(process.argv.slice(2));
    if (!fs.existsSync(path.join(opts.dist, 'index.html'))) {
      throw new Error(`${opts.dist}/index.html is missing: run \`trunk build --release\` first`);
    }
    const html = buildSingleFile(opts.dist);
    fs.writeFileSync(opts.out, html);
    console.log(`${opts.out}: ${(Buffer.byteLength(html) / 1e6).toFixed(2)} MB`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
