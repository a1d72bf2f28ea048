#!/usr/bin/env bash
# Builds the SQL engine (crates/sql) as the wasm module a page worker of
# its own loads when the Query pane first opens: release, wasm-bindgen
# (`--target web`: an ES module the worker imports), wasm-opt, and prints
# its size raw, gzip'd and brotli'd (what a download costs). Output in
# target/sql-wasm/ (or $1). The page's own wasm is not touched: the
# engine is never part of its first load.
#   TL_SQL_ENGINE_PROFILE: the Cargo profile (default sql-engine; scripts/test.sh builds
#   with sql-engine-test, quicker to build, larger: Cargo.toml).
#   TL_SQL_WASM_OPT=0|1|s|z|...: wasm-opt's level (default 1: -Oz took 200 s more on
#   this 2-core machine, and its gzip'd module was no smaller; docs/performance.md).
#   0 runs no wasm-opt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
OUT="${1:-$ROOT/target/sql-wasm}"
PROFILE="${TL_SQL_ENGINE_PROFILE:-sql-engine}"
TL_SQL_WASM_OPT="${TL_SQL_WASM_OPT:-1}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

# A cdylib for this build only: natively the crate stays an rlib, so no
# shared library of DataFusion is linked for nothing.
cargo rustc -p tarmac-lens-sql --profile "$PROFILE" --target wasm32-unknown-unknown --crate-type cdylib
mkdir -p "$OUT"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" \
  "$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/tarmac_lens_sql.wasm"
[ "$TL_SQL_WASM_OPT" = 0 ] || wasm-opt "-O$TL_SQL_WASM_OPT" --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals -o "$OUT/tarmac_lens_sql_bg.wasm" "$OUT/tarmac_lens_sql_bg.wasm"
# What a download costs, for the shipped build only: compressing the tests'
# 60 MB build took 80 s.
[ "$PROFILE" = sql-engine ] || { ls -l "$OUT/tarmac_lens_sql_bg.wasm"; exit 0; }
node -e '
const fs = require("fs"), zlib = require("zlib");
const f = process.argv[1], b = fs.readFileSync(f);
const gz = zlib.gzipSync(b, { level: 9 }).length;
const br = zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const mb = (n) => (n / 1e6).toFixed(2) + " MB";
console.log(`${f}: ${mb(b.length)} raw, ${mb(gz)} gzip -9, ${mb(br)} brotli 11`);
' "$OUT/tarmac_lens_sql_bg.wasm"
