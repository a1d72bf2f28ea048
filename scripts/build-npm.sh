#!/usr/bin/env bash
# Builds the npm package in npm/tarmac-lens from crates/js: the wasm
# (release), wasm-bindgen's glue for browsers (--target web) and for Node
# (--target nodejs), wasm-opt if on PATH. Hand-written files (package.json,
# the JS wrappers, index.d.ts, README.md) are checked in; generated ones go
# to npm/tarmac-lens/gen/ (git-ignored). Re-running with nothing changed
# only asks cargo, which takes a second or two.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# npm's binaryen first: Debian's wasm-opt cannot read wasm-bindgen output.
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
PKG=npm/tarmac-lens
GEN="$PKG/gen"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

die() {
  echo "build-npm: $*" >&2
  exit 1
}

# The package is the core's: one version for the three.
version() { sed -n 's/^version = "\(.*\)"$/\1/p' "$1" | head -n1; }
core="$(version crates/core/Cargo.toml)"
js="$(version crates/js/Cargo.toml)"
npm="$(node -p "require('./$PKG/package.json').version")"
[[ "$core" == "$js" && "$core" == "$npm" ]] ||
  die "versions differ: crates/core $core, crates/js $js, $PKG/package.json $npm"

# The glue must come from the wasm-bindgen the crate was built against.
pinned="$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' crates/js/Cargo.toml)"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" ||
  die "wasm-bindgen is not installed (scripts/install-deps.sh installs it)"
[[ "$pinned" == "$have" ]] || die "crates/js pins wasm-bindgen $pinned but the CLI is $have"

# TL_NPM_PROFILE=dev (scripts/test.sh): unoptimised and no wasm-opt, for
# tests that check answers, not speed: 31 s against 125 for the release.
PROFILE="${TL_NPM_PROFILE:-release}"
case "$PROFILE" in
  release) cargo build --release --target wasm32-unknown-unknown -p tarmac-lens-js ;;
  dev) cargo build --target wasm32-unknown-unknown -p tarmac-lens-js ;;
  *) die "TL_NPM_PROFILE is release or dev, not $PROFILE" ;;
esac
WASM="$TARGET_DIR/wasm32-unknown-unknown/$([[ $PROFILE == dev ]] && echo debug || echo release)/tarmac_lens_js.wasm"

# Up to date: the same wasm through the same script and wasm-opt.
stamp="$(sha256sum "$WASM" "$0" | awk '{print $1}' | tr '\n' ' ')$(command -v wasm-opt || true)"
if [[ -f "$GEN/.stamp" && "$(cat "$GEN/.stamp")" == "$stamp" ]]; then
  echo "build-npm: $PKG is up to date"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web --no-typescript --out-dir "$tmp/web" "$WASM"
wasm-bindgen --target nodejs --no-typescript --out-dir "$tmp/node" "$WASM"
# Both glues load one wasm file: the targets differ only in the glue.
cmp -s "$tmp/web/tarmac_lens_js_bg.wasm" "$tmp/node/tarmac_lens_js_bg.wasm" ||
  die "wasm-bindgen made different wasm for web and nodejs"

out="$tmp/gen"
mkdir "$out"
cp "$tmp/web/tarmac_lens_js.js" "$out/tarmac_lens_js.js"
# CommonJS in a "type": "module" package: .cjs.
cp "$tmp/node/tarmac_lens_js.js" "$out/tarmac_lens_js.cjs"
if [[ "$PROFILE" == dev ]]; then
  cp "$tmp/web/tarmac_lens_js_bg.wasm" "$out/tarmac_lens_js_bg.wasm"
elif command -v wasm-opt >/dev/null; then
  wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$tmp/web/tarmac_lens_js_bg.wasm" -o "$out/tarmac_lens_js_bg.wasm"
else
  echo "build-npm: no wasm-opt on PATH: the wasm is left unoptimised" >&2
  cp "$tmp/web/tarmac_lens_js_bg.wasm" "$out/tarmac_lens_js_bg.wasm"
fi
echo "$stamp" >"$out/.stamp"
rm -rf "$GEN"
mv "$out" "$GEN"
ls -l "$GEN"
