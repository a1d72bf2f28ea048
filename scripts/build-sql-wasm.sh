#!/usr/bin/env bash
# Builds the SQL engine (crates/sql) as the wasm module a page worker of
# its own loads when the Query pane first opens: release, wasm-bindgen
# (`--target web`: an ES module the worker imports), wasm-opt, and prints
# its size raw, gzip'd and brotli'd (what a download costs). Output in
# target/sql-wasm/ (or $1). The page's own wasm is not touched: the
# engine is never part of its first load.
#   OPT=z|s|3: the Rust optimisation level (default z).
#   WASM_OPT=1|s|z|...: wasm-opt's level (default 1: -Oz took 200 s more on
#   this 2-core machine, and its gzip'd module was no smaller; docs/performance.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
OUT="${1:-$ROOT/target/sql-wasm}"
OPT="${OPT:-z}"
WASM_OPT="${WASM_OPT:-1}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

# A cdylib for this build only: natively the crate stays an rlib, so no
# shared library of DataFusion is linked for nothing.
CARGO_PROFILE_RELEASE_OPT_LEVEL="$OPT" CARGO_PROFILE_RELEASE_DEBUG=0 \
  CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  cargo rustc -p tarmac-lens-sql --release --target wasm32-unknown-unknown --crate-type cdylib
mkdir -p "$OUT"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" \
  "$TARGET_DIR/wasm32-unknown-unknown/release/tarmac_lens_sql.wasm"
wasm-opt "-O$WASM_OPT" --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals -o "$OUT/tarmac_lens_sql_bg.wasm" "$OUT/tarmac_lens_sql_bg.wasm"
node -e '
const fs = require("fs"), zlib = require("zlib");
const f = process.argv[1], b = fs.readFileSync(f);
const gz = zlib.gzipSync(b, { level: 9 }).length;
const br = zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const mb = (n) => (n / 1e6).toFixed(2) + " MB";
console.log(`${f}: ${mb(b.length)} raw, ${mb(gz)} gzip -9, ${mb(br)} brotli 11`);
' "$OUT/tarmac_lens_sql_bg.wasm"
