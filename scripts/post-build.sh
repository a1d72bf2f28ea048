#!/usr/bin/env bash
# Trunk's post-build steps (Trunk.toml), in order: Trunk runs a stage's
# hooks at the same time, and the offline copy's file hash must see the
# files the other steps wrote. The Query pane's engine (crates/sql) is
# built here into sql/, beside its worker (www/sql-worker.js);
# TL_NO_SQL_ENGINE=1 leaves it out (the pane then says it cannot start). Usage: scripts/post-build.sh [DIR] (default:
# $TRUNK_STAGING_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-${TRUNK_STAGING_DIR:?usage: post-build.sh DIR}}"

# Trunk 0.21's worker loader shim starts the wasm with a bare path, which
# wasm-bindgen 0.2.130 warns about in every worker ("using deprecated
# parameters for the initialization function"): pass the object it wants.
loader="$dir/tarmac-lens-worker_loader.js"
if [ -f "$loader" ]; then
  sed -E -i 's/wasm_bindgen\("([^"]+)"\)/wasm_bindgen({ module_or_path: "\1" })/' "$loader"
  grep -q 'module_or_path' "$loader" || { echo "post-build: $loader has no wasm_bindgen call to fix" >&2; exit 1; }
fi
if [ "${TL_NO_SQL_ENGINE:-}" != 1 ]; then
  bash "$ROOT/scripts/build-sql-wasm.sh" "$dir/sql" >&2
fi
node "$ROOT/scripts/csp-hashes.mjs" "$dir"
bash "$ROOT/scripts/sw-manifest.sh" "$dir"
