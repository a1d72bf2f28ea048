#!/usr/bin/env bash
# The farm budget (docs/performance.md): `coverage merge` of 100, 1,000
# and 10,000 `--json` parts of one image, each part one trace. Prints wall
# and CPU seconds and peak RSS per count: memory should stay flat in the
# number of parts (a part is read, folded in and dropped; what grows is
# the list of runs kept per line). Measures, never asserts.
#
# Parts are made once: 20 traces of quicksort (AArch64, Fast Models
# style, each cut at another instruction count, so their coverage
# differs) by the workplace's tracegen, their `coverage --json`, then
# copied round-robin under distinct trace names.
#
#   scripts/bench-coverage-merge.sh [DIR] [COUNTS...]
#       (default /tmp/covmerge, 100 1000 10000)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-/tmp/covmerge}"
shift || true
COUNTS=("${@:-100 1000 10000}")
read -r -a COUNTS <<<"${COUNTS[*]}"
TRACEGEN="${TRACEGEN:-$ROOT/../shared/tools/tracegen/tracegen.py}"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/tarmac-lens"

(cd "$ROOT" && cargo build --release --quiet --bin tarmac-lens)
mkdir -p "$DIR/base"
for i in $(seq 0 19); do
  n=$(printf %02d "$i")
  [ -s "$DIR/base/t$n.json" ] && continue
  python3 "$TRACEGEN" -p quicksort -a aarch64 -s fastmodel -n 3 \
    --max-instructions $((2000 + 1500 * i)) --no-elf-copy --quiet -o "$DIR/base/t$n.tarmac"
  [ -s "$DIR/base/q.elf" ] || cp "$(dirname "$TRACEGEN")/elf/quicksort-aarch64-O2.elf" "$DIR/base/q.elf"
  "$BIN" coverage --quiet --image "$DIR/base/q.elf" --json "$DIR/base/t$n.json" "$DIR/base/t$n.tarmac" >/dev/null
done
echo "one part: $(du -h "$DIR/base/t00.json" | cut -f1), $(grep -c '"pc"' "$DIR/base/t00.json") instructions"

max=0
for c in "${COUNTS[@]}"; do ((c > max)) && max=$c; done
mkdir -p "$DIR/parts"
for i in $(seq 0 $((max - 1))); do
  p="$DIR/parts/p$(printf %05d "$i").json"
  [ -s "$p" ] && continue
  # The same coverage under the name of run $i.
  sed "s|^\"traces\": \[.*\],\$|\"traces\": [\"run$i.tarmac\"],|" "$DIR/base/t$(printf %02d $((i % 20))).json" >"$p"
done

cd "$DIR/parts"
cat p*.json >/dev/null # into the page cache
for c in "${COUNTS[@]}"; do
  parts=()
  for i in $(seq 0 $((c - 1))); do parts+=("p$(printf %05d "$i").json"); done
  printf '%6d parts (%s): ' "$c" "$(du -ch "${parts[@]}" | tail -1 | cut -f1)"
  /usr/bin/time -f '%e s wall, %U+%S s CPU, peak RSS %M KB' \
    "$BIN" coverage merge --quiet --json "$DIR/merged-$c.json" "${parts[@]}" >/dev/null
done
