#!/usr/bin/env bash
# Installs what building and testing Tarmac Lens needs and is missing on a
# Debian machine that already has rustup: the wasm32 target, clippy/rustfmt,
# trunk, wasm-bindgen-cli (the version Cargo.lock pins), Chromium with its
# WebDriver, Node.js, Arm binutils (addr2line, the source-line tests'
# oracle), lcov (genhtml, the coverage tests' oracle), valgrind
# (callgrind_annotate, the export tests' oracle), gdb-multiarch (the
# gdbserver tests' client), clang (libzstd for wasm32), Java 17 (Spark),
# the npm packages (playwright-core, binaryen, speedscope), and in a venv
# (.venv) PyPI's perfetto and protobuf (Perfetto's own trace schema, the
# Perfetto export tests' oracle) and pytest, DuckDB and PySpark (the SQL
# tests' oracle and the farm's Parquet read by DuckDB and Spark).
# Anything already present at the right version is left alone.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14

log() { printf '==> %s\n' "$*"; }

if ! command -v rustup >/dev/null || ! command -v cargo >/dev/null; then
  echo "error: rustup and cargo are required (https://rustup.rs); install them first" >&2
  exit 1
fi

# --- Debian packages -------------------------------------------------------
apt_missing=()
command -v chromium >/dev/null || apt_missing+=(chromium)
command -v chromedriver >/dev/null || apt_missing+=(chromium-driver)
command -v node >/dev/null || apt_missing+=(nodejs)
command -v npm >/dev/null || apt_missing+=(npm)
command -v python3 >/dev/null || apt_missing+=(python3)
# Debian's python3 makes venvs only with python3-venv (ensurepip).
python3 -c 'import ensurepip' 2>/dev/null || apt_missing+=(python3-venv)
# GNU addr2line is the oracle of tests/source_lines.rs (DWARF source lines).
command -v aarch64-linux-gnu-addr2line >/dev/null || apt_missing+=(binutils-aarch64-linux-gnu)
command -v arm-none-eabi-addr2line >/dev/null || apt_missing+=(binutils-arm-none-eabi)
# genhtml (Debian's lcov) reads coverage's lcov output in tests/coverage.rs.
command -v genhtml >/dev/null || apt_missing+=(lcov)
# callgrind_annotate (Debian's valgrind) reads export's Callgrind output in tests/export.rs.
command -v callgrind_annotate >/dev/null || apt_missing+=(valgrind)
# gdb-multiarch debugs traces through `gdbserver` in tests/cli_gdb.rs.
command -v gdb-multiarch >/dev/null || apt_missing+=(gdb-multiarch)
# clang compiles libzstd to wasm32 for crates/sql (DataFusion's Arrow IPC
# needs zstd on every target; gcc has no wasm32 back end).
command -v clang >/dev/null || apt_missing+=(clang)
# Java 17 runs Spark for the farm test (tests/python/test_farm.py).
command -v java >/dev/null || apt_missing+=(openjdk-17-jre-headless)
if ((${#apt_missing[@]})); then
  sudo=()
  if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
  log "apt: installing ${apt_missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${apt_missing[@]}"
else
  log "apt: chromium, chromium-driver, node, npm, python3, Arm binutils, lcov, valgrind, gdb-multiarch, clang, java present"
fi

# --- Rust toolchain pieces -------------------------------------------------
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup: wasm32-unknown-unknown present"
else
  log "rustup: adding target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
for component in clippy rustfmt; do
  if rustup component list --installed | grep -q "^$component"; then
    log "rustup: $component present"
  else
    log "rustup: adding component $component"
    rustup component add "$component"
  fi
done

# --- trunk and wasm-bindgen-cli (cargo install, in the background) --------
# The CLI must be exactly the wasm-bindgen version in Cargo.lock, or the
# generated JS and the wasm disagree.
WBG_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"
if [ -z "$WBG_VERSION" ]; then
  echo "error: wasm-bindgen not found in Cargo.lock" >&2
  exit 1
fi

pids=()
names=()
logs=()
# Tools, not shipped code: trunk's own release profile (fat LTO, one codegen
# unit) made its link alone minutes of a cold run on two cores.
tool_profile=(CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)
if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
  log "trunk $TRUNK_VERSION present"
else
  log "cargo install trunk@$TRUNK_VERSION (log: /tmp/tarmac-lens-install-trunk.log)"
  env "${tool_profile[@]}" cargo install --locked "trunk@$TRUNK_VERSION" >/tmp/tarmac-lens-install-trunk.log 2>&1 &
  pids+=($!) names+=(trunk) logs+=(/tmp/tarmac-lens-install-trunk.log)
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WBG_VERSION" ] &&
  [ "$(wasm-bindgen-test-runner --version 2>/dev/null || true)" = "wasm-bindgen-test-runner $WBG_VERSION" ]; then
  log "wasm-bindgen-cli $WBG_VERSION present"
else
  # Not --locked: the CLI's own lockfile pins crates that no longer build
  # with current toolchains.
  log "cargo install wasm-bindgen-cli@=$WBG_VERSION (log: /tmp/tarmac-lens-install-wasm-bindgen.log)"
  env "${tool_profile[@]}" cargo install --force "wasm-bindgen-cli@=$WBG_VERSION" >/tmp/tarmac-lens-install-wasm-bindgen.log 2>&1 &
  pids+=($!) names+=(wasm-bindgen-cli) logs+=(/tmp/tarmac-lens-install-wasm-bindgen.log)
fi

# --- npm packages (playwright-core for browser tests, binaryen's wasm-opt, speedscope for tests/node) --
if [ -d node_modules ] && npm ls --depth=0 >/dev/null 2>&1; then
  log "npm: node_modules up to date"
else
  log "npm ci"
  npm ci --no-audit --no-fund
fi

# --- PyPI packages, in a venv of the project's own, so no system Python is
# changed (Debian's refuses `pip install` outside one); pinned, so every
# machine reads with the same versions. perfetto, protobuf:
# tests/perfetto_check.py, Perfetto's own schema (its trace processor is
# not used: it downloads a binary at run time; only its perfetto_trace_pb2
# bindings). pytest, duckdb, pyspark: tests/python/, the SQL oracle and the
# farm's Parquet read by DuckDB and Spark. maturin: builds the wheel
# (scripts/build-python.sh); pyarrow, pandas, polars: what the wheel's
# tables are read with (tests/python/test_wheel.py). unicorn, capstone,
# pyelftools: tracegen, which makes the benchmarks' big traces
# (tests/browser/tracegen.mjs), in the ranges it asks for.
VENV="$ROOT/.venv"
PY_PACKAGES=(perfetto==0.59.1 protobuf==7.36.2 pytest==9.2.0 duckdb==1.4.4 pyspark==4.1.1
  maturin==1.16.0 pyarrow==26.0.1 pandas==3.1.1 polars==2.1.0
  unicorn==2.1.4 capstone==5.0.9 pyelftools==0.33)
if "$VENV/bin/python3" -c '
import sys, importlib.metadata as m
from perfetto.protos.perfetto.trace import perfetto_trace_pb2
import pytest, duckdb, pyspark, pyarrow, pandas, polars, unicorn, capstone, elftools
want = dict(p.split("==") for p in sys.argv[1:])
sys.exit(any(m.version(k) != v for k, v in want.items()))
' "${PY_PACKAGES[@]}" 2>/dev/null; then
  log "python: ${PY_PACKAGES[*]} present ($VENV)"
else
  log "python: installing ${PY_PACKAGES[*]} into $VENV"
  [ -x "$VENV/bin/python3" ] || python3 -m venv "$VENV"
  "$VENV/bin/python3" -m pip install --quiet --disable-pip-version-check "${PY_PACKAGES[@]}"
fi

log "crates: cargo fetch"
cargo fetch --quiet

# The downloads above ran while the tools compiled (the CPU's work).
failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    log "installed ${names[$i]}"
  else
    echo "error: cargo install ${names[$i]} failed; last lines of ${logs[$i]}:" >&2
    tail -n 30 "${logs[$i]}" >&2
    failed=1
  fi
done
[ "$failed" = 0 ]
log "dependencies ready"
