#!/usr/bin/env bash
# Builds target/release/tarmac-lens with the web page inside, for
# `tarmac-lens serve` without --page (docs/serve.md): the release page
# first (Trunk), then the CLI with TARMAC_LENS_PAGE naming it (build.rs
# embeds its files).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

"$ROOT/scripts/install-deps.sh"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"

echo "==> trunk build --release"
trunk build --release

echo "==> cargo build --release (the page in dist/ built in)"
TARMAC_LENS_PAGE="$ROOT/dist" cargo build --release --bin tarmac-lens

echo
echo "    ${CARGO_TARGET_DIR:-$ROOT/target}/release/tarmac-lens serve TRACE"
