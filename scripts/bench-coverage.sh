#!/usr/bin/env bash
# The coverage budget (docs/performance.md): `coverage --jobs 2` over 100
# traces of about 10 MB against indexing the same traces two at a time
# (`index -j 1` per trace, `xargs -P 2`): both use two threads, both read
# every byte once, from the page cache. Neither writes an index file.
# Prints wall and CPU (user + system) seconds per round; measures, never
# asserts. Traces are made once with the workplace's tracegen (quicksort,
# AArch64, Fast Models style, each cut at another instruction count).
#
#   scripts/bench-coverage.sh [DIR] [ROUNDS]     (default /tmp/covbench, 3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-/tmp/covbench}"
ROUNDS="${2:-3}"
TRACEGEN="${TRACEGEN:-$ROOT/../shared/tools/tracegen/tracegen.py}"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/tarmac-lens"

mkdir -p "$DIR"
for i in $(seq 0 99); do
  n=$(printf %03d "$i")
  [ -s "$DIR/t$n.tarmac" ] && continue
  python3 "$TRACEGEN" -p quicksort -a aarch64 -s fastmodel -n 7 \
    --max-instructions $((90000 + 100 * i)) --no-elf-copy -o "$DIR/t$n.tarmac" >/dev/null
done
[ -s "$DIR/t000.elf" ] || cp "$(dirname "$TRACEGEN")/elf/quicksort-aarch64-O2.elf" "$DIR/t000.elf"
(cd "$ROOT" && cargo build --release --quiet)

cd "$DIR"
cat t*.tarmac >/dev/null # into the page cache, for both
echo "$(ls t*.tarmac | wc -l) traces, $(du -ch t*.tarmac | tail -1 | cut -f1)"
TIMEFORMAT='%R s wall, %U+%S s CPU'
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  printf '  coverage --jobs 2:          '
  { time "$BIN" coverage --image t000.elf --jobs 2 --lcov cov.info --json cov.json t*.tarmac >/dev/null; } 2>&1
  printf '  index -j 1, two at a time:  '
  { time sh -c "ls t*.tarmac | xargs -P 2 -n 1 '$BIN' index --no-index -j 1 >/dev/null"; } 2>&1
done
