#!/usr/bin/env bash
# Fills fuzz/corpus/TARGET/ with seeds cut from the test data (small
# pieces: libFuzzer mutates short inputs faster). Idempotent; the corpora
# are not committed (fuzz/.gitignore).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="$ROOT/tests/data"
CORPUS="$ROOT/fuzz/corpus"
mkdir -p "$CORPUS"/{parse_line,detect_dialect,index_trace,elf_symbols,address_expr}

traces=("$DATA"/ttu/*.tarmac "$DATA"/ttu/*/*.tarmac "$DATA"/ttu/parsertest*.txt "$DATA"/tracegen/*.tarmac)
for t in "${traces[@]}"; do
  base="$(basename "$t")"
  # The first 4 KiB and 4 KiB from the middle of each trace: whole traces
  # for the indexer and the detector.
  size=$(stat -c %s "$t")
  head -c 4096 "$t" >"$CORPUS/index_trace/$base.head"
  dd if="$t" of="$CORPUS/index_trace/$base.mid" bs=4096 skip=$((size / 8192)) count=1 status=none
  cp "$CORPUS/index_trace/$base.head" "$CORPUS/detect_dialect/$base"
  # Line-parser seeds: a mode byte (dialect 0 = tarmac, options) then 16 lines.
  split -l 16 -a 4 --filter='{ printf "\\000"; cat; } >"$FILE"' "$t" "$CORPUS/parse_line/$base." 2>/dev/null || true
done
# Keep the first 52 pieces (832 lines) of each trace.
find "$CORPUS/parse_line" -type f ! -name '*.aa[ab]?' -delete
cp "$DATA"/elf/*.elf "$DATA"/tracegen/*.elf "$CORPUS/elf_symbols/" 2>/dev/null || true
grep -v '^#' "$DATA/ttu/exprtest.txt" | while IFS= read -r line; do
  [ -n "$line" ] && printf '%s' "$line" >"$CORPUS/address_expr/$(printf '%s' "$line" | md5sum | cut -c1-16)"
done
for e in 'sp+0x100' 'main+4' '(x0-8)*2' 'foo::bar<<3' '-x1>>2'; do
  printf '%s' "$e" >"$CORPUS/address_expr/$(printf '%s' "$e" | md5sum | cut -c1-16)"
done
for d in "$CORPUS"/*; do echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done
