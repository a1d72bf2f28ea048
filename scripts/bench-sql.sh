#!/usr/bin/env bash
# The SQL budgets (docs/performance.md, "SQL and Parquet") on one trace,
# with the release CLI and the trace's index reused (built first if
# missing): each query's wall time (best of 3), and the Parquet export's
# rate and size.
#   scripts/bench-sql.sh TRACE [ELF]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLI="${TARMAC_LENS_CLI:-$ROOT/target/release/tarmac-lens}"
TRACE="$1"
ELF="${2:-}"
image=()
[ -n "$ELF" ] && image=(--image "$ELF")

"$CLI" index "$TRACE" >/dev/null
lines=$("$CLI" index "$TRACE" | python3 -c 'import json,sys; print(json.load(sys.stdin)["lines"])')
bytes=$(stat -c %s "$TRACE")

best() {
  local best=999999
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N)
    "$CLI" sql "${image[@]}" "$TRACE" "$1" --format csv >/dev/null
    t1=$(date +%s.%N)
    best=$(python3 -c "print(min($best, ($t1 - $t0) * 1000))")
  done
  printf '%8.0f ms  %s\n' "$best" "$1"
}

best "SELECT count(*) FROM instructions WHERE mnemonic = 'BL'"
best "SELECT count(*) FROM calls"
best "SELECT function, count(*) AS n, sum(own_instructions) AS own FROM calls GROUP BY function ORDER BY own DESC LIMIT 10"
if [ -n "$ELF" ]; then
  best "SELECT name, calls, instructions FROM functions ORDER BY instructions DESC LIMIT 10"
  best "SELECT file, line, executions FROM source_lines ORDER BY executions DESC LIMIT 10"
fi
for at in 1 $((lines / 2)) $((lines - 1000001)); do
  best "SELECT count(*), sum(pc) FROM instructions WHERE line BETWEEN $at AND $((at + 1000000))"
done
best "SELECT count(*) FROM registers WHERE register = 'x0'"
# The slow path: the calls' times replay the trace.
best "SELECT max(time) FROM calls"

out=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-lens-bench-sql.XXXXXX")
trap 'rm -rf "$out"' EXIT
t0=$(date +%s.%N)
"$CLI" export --format parquet -o "$out" "${image[@]}" "$TRACE" --quiet
t1=$(date +%s.%N)
pq=$(du -sb "$out" | cut -f1)
python3 -c "
s = $t1 - $t0
print(f'export --format parquet: {s:.2f} s, {$bytes / 1e6 / s:.0f} MB/s of trace; {$pq} bytes of Parquet, {$pq / $bytes:.4f} per trace byte')
"
for t in "$out"/*; do
  printf '  %-13s %12d bytes\n' "$(basename "$t")" "$(du -sb "$t" | cut -f1)"
done
