#!/usr/bin/env node
// Trunk post-build hook (Trunk.toml): puts the sha256 of every inline
// <script> of the built index.html into its Content-Security-Policy, so the
// policy can forbid inline script in general yet allow Trunk's module
// script that starts the wasm. Self-contained (Node's standard library
// only). Usage: node scripts/csp-hashes.mjs [DIR] (default:
// $TRUNK_STAGING_DIR, else dist).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';
const file = path.join(dir, 'index.html');
let html = fs.readFileSync(file, 'utf8');

// Inline scripts: <script ...> without src, up to </script>.
const hashes = [];
for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
  if (/\bsrc\s*=/i.test(m[1])) continue;
  const digest = crypto.createHash('sha256').update(m[2], 'utf8').digest('base64');
  hashes.push(`'sha256-${digest}'`);
}

const meta = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/i;
if (!meta.test(html)) {
  console.error(`${file}: no Content-Security-Policy meta tag to fill`);
  process.exit(1);
}
html = html.replace(meta, (_, open, policy, close) => {
  const directives = policy.split(';').map((d) => d.trim()).filter(Boolean);
  const i = directives.findIndex((d) => d.startsWith('script-src'));
  if (i < 0) {
    console.error(`${file}: the policy has no script-src`);
    process.exit(1);
  }
  // Idempotent: hashes of an earlier run are replaced, not added to.
  const kept = directives[i].split(/\s+/).filter((t) => !t.startsWith("'sha256-"));
  directives[i] = [...kept, ...hashes].join(' ');
  return open + directives.join('; ') + close;
});
fs.writeFileSync(file, html);
console.log(`csp-hashes: ${hashes.length} inline script(s) allowed by hash in ${file}`);
