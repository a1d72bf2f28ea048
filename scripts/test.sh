#!/usr/bin/env bash
# Runs every check: formatting, clippy (native and wasm32, the SQL engine's
# and the Python package's crates included), native tests, wasm-bindgen
# tests in headless Chromium, the Python wheel and tests (SQL against an
# oracle, DuckDB and Spark, the wheel against the CLI), the release web
# build and the Playwright tests of the built page. Every step runs even if an earlier one
# failed; the summary at the end lists them, and the exit status is non-zero
# if any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$SECONDS

"$ROOT/scripts/install-deps.sh"

# A browser that is killed, not closed, leaves its profile in the temporary
# directory: chromedriver's are ~90 MB each, and a run of the wasm tests
# left ~2 GB, until a later run filled the disk. Every step writes its
# temporary files under one directory, removed when the run ends.
RUN_TMP="$(mktemp -d "${TMPDIR:-/tmp}/tarmac-lens-run.XXXXXX")"
trap 'rm -rf "$RUN_TMP"' EXIT
export TMPDIR="$RUN_TMP"

# npm's binaryen first: Debian's wasm-opt cannot read wasm-bindgen output.
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# wasm-bindgen-test-runner gives a test file's run 20 s by default; the
# read-ahead tests (nested workers making 16-32 MiB buffers) take 23 s on a
# loaded two-core machine. A hung test still fails, at this limit.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# A run builds each crate once: incremental state would only take disk (GBs
# beside DataFusion's objects, on a CI disk that once filled up).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# The Playwright, Python and node tests compare with this binary's output:
# the one the native tests' build makes for the integration tests. Built
# again alone, without the dev-dependencies' features, it took 213-275 s.
export TARMAC_LENS_CLI="$TARGET_DIR/debug/tarmac-lens"

# The wasm tests are two binaries, one per run mode (Cargo.toml): the
# page's main thread and a dedicated worker.
wasm_tests=(--test wasm_browser --test wasm_worker)

results=()
failures=0
# Each step has a time limit, so that one hung test (an evaluation in a
# worker that closed, a browser left open) fails its step instead of the
# whole run: CI stops a run at 90 minutes and then nothing is reported.
# A cold machine builds in a few minutes; the browser tests take 5-6 here.
STEP_LIMIT="${TARMAC_LENS_STEP_LIMIT:-1200}"
step() {
  local name="$1"
  shift
  printf '\n==> %s: %s\n' "$name" "$*"
  local t0=$SECONDS
  local rc=0
  timeout --kill-after=30 "$STEP_LIMIT" "$@" || rc=$?
  if ((rc == 0)); then
    results+=("PASS  $name ($((SECONDS - t0))s)")
  elif ((rc == 124 || rc == 137)); then
    results+=("FAIL  $name (stopped at its limit of ${STEP_LIMIT}s)")
    failures=$((failures + 1))
  else
    results+=("FAIL  $name ($((SECONDS - t0))s)")
    failures=$((failures + 1))
  fi
}

step "format" cargo fmt --check
# Every crate of the workspace at once, so each dependency is checked once
# per target (crates that are no default member, such as the npm
# package's bindings, included: their features unified here harm nothing,
# since nothing is shipped from a check).
step "clippy native" cargo clippy --workspace --all-targets -- -D warnings
step "clippy wasm32" cargo clippy --target wasm32-unknown-unknown --workspace --exclude tarmac-lens-python --all-targets --features tarmac-lens/web -- -D warnings
# Built, then run: each has the step's limit (a cold build of the tests is
# most of a slow machine's first 20 minutes).
# The SQL engine's crate is no default member, and is tested with the rest in
# one build: tested alone, its dependencies' features differ and Arrow and
# DataFusion would be built twice. The npm and Python bindings are built by
# their own steps below.
native_tests=(--workspace --exclude tarmac-lens-js --exclude tarmac-lens-python)
step "native tests (build)" cargo test "${native_tests[@]}" --no-run
step "native tests" cargo test "${native_tests[@]}" --no-fail-fast
# The core is a library others build on, the app's model denies missing
# docs: every crate's documentation builds clean, links included. One
# step, so each dependency is checked once for it (core and app apart
# took 19 + 127 s; together with the SQL and npm crates, 118). The Python
# package's lib has the app's name; its docs are Python's.
step "docs" env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --exclude tarmac-lens-python --no-deps --lib
# The page's package alone: the SQL engine's crate is only checked for wasm32
# (clippy above), never built in full there for these tests.
step "wasm tests (headless Chromium)" cargo test --no-fail-fast --target wasm32-unknown-unknown -p tarmac-lens "${wasm_tests[@]}"
# The Python package, built as a wheel in the dev profile (the tests'
# Arrow and DataFusion reused) and installed into .venv for the tests.
step "python wheel (maturin, dev)" scripts/build-python.sh --dev --install "$RUN_TMP/wheel"
# SQL counts against an independent reading of the trace text, the farm
# recipe (docs/farm.md) in DuckDB and Spark, and the Python package against
# the CLI: the environment is install-deps.sh's .venv.
step "python tests (oracle, farm: DuckDB, Spark; the wheel)" "$ROOT/.venv/bin/python3" -m pytest -q -p no:cacheprovider tests/python
# The npm package unoptimised: its tests check answers (release: 125 s).
step "npm package" env TL_NPM_PROFILE=dev scripts/build-npm.sh
# Real readers of the exports (speedscope's importer), in Node, no browser.
step "node tests" node --test tests/node/
# The Query pane's engine (built by Trunk's post-build step) unoptimised,
# without wasm-opt: the tests check its answers, not its size or speed.
# Built for size it took 16-20 minutes of a cold run; at opt-level 1, 8.4;
# unoptimised, 4.6 (docs/performance.md).
step "web build (trunk, release)" env TL_SQL_ENGINE_PROFILE=sql-engine-test TL_SQL_WASM_OPT=0 trunk build --release
# --test-force-exit: a test that timed out may leave its browser open, which
# would otherwise keep node running after the last test. Two files at a
# time: one file's browser leaves a two-core machine's CPU part idle (all
# 161 tests: 665 s one at a time, 478 s two at a time).
step "browser tests (Playwright)" node --test --test-force-exit --test-concurrency=2 tests/browser/

printf '\n==================== summary ====================\n'
printf '%s\n' "${results[@]}"
printf 'total time: %ss\n' "$((SECONDS - START))"
# What the run left on disk: a full disk fails steps with unrelated errors.
printf 'target/: %s; free: %s\n' "$(du -sh "$TARGET_DIR" 2>/dev/null | cut -f1)" \
  "$(df -h --output=avail "$ROOT" | tail -1 | tr -d ' ')"
if ((failures)); then
  printf '%d step(s) FAILED\n' "$failures"
  exit 1
fi
echo "all steps passed"
