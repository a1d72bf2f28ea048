#!/usr/bin/env bash
# Builds the `tarmac_lens` Python wheel (crates/python) with maturin from
# the project's .venv (scripts/install-deps.sh installs it) into OUT_DIR
# (default target/wheels). One abi3 wheel serves Python 3.9 and later.
#
#   scripts/build-python.sh [--dev] [--install] [OUT_DIR]
#
# --dev builds in the dev profile, with the features the tests build with,
# so the Arrow and DataFusion that `cargo test` compiled are reused
# (scripts/test.sh builds it so); without it, the release profile.
# --install then installs the wheel into .venv, replacing any other.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

profile=release
install=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) profile=dev ;;
    --install) install=1 ;;
    -*) echo "usage: $0 [--dev] [--install] [OUT_DIR]" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
OUT="${1:-${CARGO_TARGET_DIR:-$ROOT/target}/wheels}"
VENV="$ROOT/.venv"
if [ ! -x "$VENV/bin/maturin" ]; then
  echo "error: $VENV/bin/maturin is missing: run scripts/install-deps.sh" >&2
  exit 1
fi
# A wheel of an earlier build in OUT_DIR would be installed too.
rm -f "$OUT"/tarmac_lens-*.whl
"$VENV/bin/maturin" build --manifest-path crates/python/Cargo.toml \
  --profile "$profile" --interpreter "$VENV/bin/python3" --out "$OUT"
if ((install)); then
  "$VENV/bin/python3" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps "$OUT"/tarmac_lens-*.whl
fi
