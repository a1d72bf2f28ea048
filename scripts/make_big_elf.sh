#!/usr/bin/env bash
# Builds a big AArch64 ELF with full DWARF for benches/dwarf.rs: UNITS
# generated C files (default 410) of 100 functions each, every one with
# loops, a switch and inlined helpers, compiled -O1 -g by Debian's
# gcc-aarch64-linux-gnu and linked into OUT (about 50 MB).
#   scripts/make_big_elf.sh OUT.elf [UNITS]
set -euo pipefail
out="$1"
units="${2:-410}"
cc=aarch64-linux-gnu-gcc
command -v "$cc" >/dev/null || {
  echo "error: $cc not found (Debian: gcc-aarch64-linux-gnu)" >&2
  exit 1
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$units" "$work" <<'PY'
import sys
units, out = int(sys.argv[1]), sys.argv[2]
for u in range(units):
    with open(f"{out}/unit{u}.c", "w") as f:
        f.write(f"struct rec{u} {{ int a; long b; unsigned char c[16]; struct rec{u} *next; }};\n")
        f.write(f"static inline int mix{u}(int x, int y) {{ return (x * 31) ^ (y >> 3) ^ {u}; }}\n")
        f.write(f"static inline int step{u}(struct rec{u} *r, int k)\n{{\n    int s = 0;\n"
                f"    for (int i = 0; i < 16; i++)\n        s += mix{u}(r->c[i], k + i);\n"
                f"    return s + (int)r->b;\n}}\n")
        for i in range(100):
            f.write(f"""int f{u}_{i}(struct rec{u} *r, int n)
{{
    int acc = {i};
    for (int j = 0; j < n; j++) {{
        if (r->a & (1 << (j & 7)))
            acc += step{u}(r, j);
        else
            acc -= mix{u}(acc, j);
        switch (j % 5) {{
        case 0: acc ^= r->c[j & 15]; break;
        case 1: acc += (int)r->b; break;
        case 2: r = r->next ? r->next : r; break;
        case 3: acc = mix{u}(acc, {i}); break;
        default: acc--; break;
        }}
    }}
    return acc;
}}
""")
with open(f"{out}/start.c", "w") as f:
    f.write("void _start(void) { for (;;) ; }\n")
PY
jobs="$(nproc 2>/dev/null || echo 2)"
ls "$work"/*.c | xargs -P "$jobs" -I{} "$cc" -O1 -g -ffreestanding -c {} -o {}.o
"$cc" -nostdlib -static -Wl,--build-id=none "$work"/*.o -o "$out"
ls -l "$out"
