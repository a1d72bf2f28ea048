#!/usr/bin/env bash
# Parallel indexing against one worker (docs/performance.md): `index
# --jobs 1` and `--jobs N` on traces made from tests/data's tracegen
# traces, about TL_BENCH_MB megabytes each (default 1024):
#
#   one       the AArch64 Fast Models quicksort repeated (time restarts at
#             every copy);
#   three     A32, Thumb and AArch64 Fast Models quicksorts in blocks of
#             about a sixth of the trace each, twice round: changes of
#             instruction set and execution state, time going back;
#   backwards gem5's Thumb quicksort (7.2M ticks) and the AArch64 Fast
#             Models one (26k) in turn: after the first copy every time is
#             clamped, and the state changes every 2 MB;
#   gem5      the AArch64 Fast Models quicksort for about a sixth of the
#             trace, then gem5's AArch64 one, which never writes sp: its
#             calls are detected with the sp the first part left.
#
# Prints, per trace and job count, the median MB/s, CPU seconds (user +
# system) and peak RSS of TL_BENCH_REPEAT runs (default 3, alternated),
# the speed-up over one job and the CPU time against one job's (the
# parallel work's overhead), and the load average: on a shared machine
# the others' work shows in it, and a speed-up needs the cores free (CPU
# seconds close to one job's and a wall time no shorter say they were
# not). Measures, never asserts. The binary is
# TL_BIN (default the release build, built here).
#
#   scripts/bench-parallel.sh [TRACE-KIND...]   (default: one three backwards gem5)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="$ROOT/tests/data/tracegen"
MB="${TL_BENCH_MB:-1024}"
REPEAT="${TL_BENCH_REPEAT:-3}"
JOBS="${TL_BENCH_JOBS:-1 2}"
DIR="${TMPDIR:-/tmp}"
if [ -z "${TL_BIN:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet --bin tarmac-lens)
  TL_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/tarmac-lens"
fi
KINDS=("${@:-one three backwards gem5}")
read -r -a KINDS <<<"${KINDS[*]}"

# make KIND: writes $DIR/tarmac-lens-par-KIND-${MB}M.tarmac once.
make() {
  local out="$DIR/tarmac-lens-par-$1-${MB}M.tarmac" want=$((MB << 20)) n=0
  [ -s "$out" ] && { echo "$out"; return; }
  local a64="$DATA/quicksort-aarch64-O2-fastmodel-2M.tarmac"
  local a32="$DATA/quicksort-arm-O2-fastmodel-2M.tarmac"
  local t32="$DATA/quicksort-thumb-O2-fastmodel-2M.tarmac"
  local g5="$DATA/quicksort-thumb-O2-gem5-2M.tarmac"
  local a64c="$DATA/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac"
  local g64="$DATA/quicksort-aarch64-O2-gem5-2M.tarmac"
  local block=$((want / 6 / $(stat -c %s "$a64") + 1))
  {
    while [ "$n" -lt "$want" ]; do
      case "$1" in
        one) cat "$a64"; n=$((n + $(stat -c %s "$a64"))) ;;
        three)
          for f in "$a32" "$t32" "$a64"; do
            for _ in $(seq "$block"); do cat "$f"; done
            n=$((n + block * $(stat -c %s "$f")))
          done ;;
        backwards) cat "$g5" "$a64c"; n=$((n + $(stat -c %s "$g5") + $(stat -c %s "$a64c"))) ;;
        gem5)
          if [ "$n" -eq 0 ]; then
            for _ in $(seq "$block"); do cat "$a64"; done
            n=$((block * $(stat -c %s "$a64")))
          fi
          cat "$g64"; n=$((n + $(stat -c %s "$g64"))) ;;
        *) echo "unknown trace kind $1" >&2; exit 2 ;;
      esac
    done
  } >"$out.tmp"
  mv "$out.tmp" "$out"
  echo "$out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for kind in "${KINDS[@]}"; do
  trace="$(make "$kind")"
  cat "$trace" >/dev/null # into the page cache
  declare -A mbs=() rss=() cpu=() joined=()
  for _ in $(seq "$REPEAT"); do
    for j in $JOBS; do
      out="$(/usr/bin/time -f 'cpu %U %S' "$TL_BIN" index --no-index -v --jobs "$j" "$trace" 2>&1)"
      cpu[$j]+="$(awk '/^cpu / { print $2 + $3 }' <<<"$out") "
      json="$(grep '^{' <<<"$out")"
      mbs[$j]+="$(sed 's/.*"mb_per_s":\([0-9.]*\).*/\1/' <<<"$json") "
      rss[$j]+="$(sed 's/.*"peak_rss_bytes":\([0-9]*\).*/\1/' <<<"$json") "
      joined[$j]="$(grep -o '[0-9]* joined, [0-9]* bytes parsed again' <<<"$out" || echo '-')"
    done
  done
  base="" base_cpu=""
  for j in $JOBS; do
    m="$(tr ' ' '\n' <<<"${mbs[$j]}" | grep . | median)"
    r="$(tr ' ' '\n' <<<"${rss[$j]}" | grep . | median)"
    c="$(tr ' ' '\n' <<<"${cpu[$j]}" | grep . | median)"
    [ -z "$base" ] && base="$m" base_cpu="$c"
    printf '%-9s jobs %s: %4.0f MB/s (%s) CPU %5.2f s  peak RSS %4.0f MB  speed-up %.2fx  CPU %.2fx  [%s]\n' \
      "$kind" "$j" "$m" "$(for v in ${mbs[$j]}; do printf '%.0f ' "$v"; done | sed 's/ $//')" "$c" \
      "$(awk "BEGIN { print $r / 1e6 }")" "$(awk "BEGIN { print $m / $base }")" \
      "$(awk "BEGIN { print $c / $base_cpu }")" "${joined[$j]}"
  done
  unset mbs rss cpu joined
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
