#!/usr/bin/env bash
# Browser benchmark: builds the release page, then drops generated traces on
# it in headless Chromium and prints one JSON line per trace (see
# tests/browser/bench_page.mjs). Sizes in MB: TL_BENCH_SIZES=100,1024,10240.
# TL_BENCH_NO_BUILD=1 reuses dist/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
if [ -z "${TL_BENCH_NO_BUILD:-}" ]; then
  trunk build --release >&2
fi
exec node tests/browser/bench_page.mjs "$@"
