"""Checks a drcov file against a trace and `objdump -d` of its image.

Written from the drcov format's description (DynamoRIO's drcov tool:
a text header, "Module Table: version 2, count N", a "Columns:" line, N
module lines, "BB Table: N bbs", then N little-endian entries of
uint32 start (from the module's base), uint16 size, uint16 module id),
not from the exporter's code; and the blocks expected are made here from
two other sources: the PCs the trace's instruction lines name (executed,
IT, or failed their condition, IS; ES style's "ES (addr:enc)") and the
basic blocks of the image as GNU objdump disassembles it (a block starts
at a symbol, at the first instruction after data, at a direct branch's
target, after an instruction that can write the pc).

Usage: drcov_check.py DRCOV --elf ELF --objdump OBJDUMP TRACE...
Exits 0 when the file's module is the ELF and its blocks are the runs of
reached instructions inside the image's blocks; else prints the
differences and exits 1. `drcov_check.py DRCOV --print` prints what the
file holds as JSON.
"""

import argparse
import json
import re
import struct
import subprocess
import sys


def read_drcov(path):
    data = open(path, "rb").read()
    pos = 0

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        text = data[pos:end].decode("utf-8")
        pos = end + 1
        return text

    version = line()
    if not re.fullmatch(r"DRCOV VERSION: 2", version):
        raise SystemExit(f"drcov_check: {path}: header {version!r}")
    flavor = line()
    if not flavor.startswith("DRCOV FLAVOR: "):
        raise SystemExit(f"drcov_check: {path}: flavor line {flavor!r}")
    m = re.fullmatch(r"Module Table: version (\d+), count (\d+)", line())
    if not m or m.group(1) != "2":
        raise SystemExit(f"drcov_check: {path}: module table header")
    count = int(m.group(2))
    columns = line()
    if columns != "Columns: id, base, end, entry, checksum, timestamp, path":
        raise SystemExit(f"drcov_check: {path}: columns {columns!r}")
    modules = []
    for _ in range(count):
        f = [x.strip() for x in line().split(",", 6)]
        modules.append({"id": int(f[0]), "base": int(f[1], 16), "end": int(f[2], 16),
                        "entry": int(f[3], 16), "path": f[6]})
    m = re.fullmatch(r"BB Table: (\d+) bbs", line())
    if not m:
        raise SystemExit(f"drcov_check: {path}: BB table header")
    n = int(m.group(1))
    if len(data) - pos != 8 * n:
        raise SystemExit(f"drcov_check: {path}: {len(data) - pos} bytes for {n} entries")
    blocks = [struct.unpack_from("<IHH", data, pos + 8 * i) for i in range(n)]
    return {"modules": modules, "blocks": blocks}


BRANCH_A64 = re.compile(r"^(b|bl|br|blr|ret|eret|cbz|cbnz|tbz|tbnz|braa|brab|blraa|blrab|retaa|retab)$|^b\.|^bc\.")
BRANCH_A32 = re.compile(r"^(b|bl|blx|bx|bxj|cbz|cbnz|tbb|tbh)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.[nw])?$")
TARGET = re.compile(r"\b([0-9a-f]+) <[^>]*>")


def writes_pc(mnemonic, operands, a64):
    if a64:
        return bool(BRANCH_A64.match(mnemonic))
    if BRANCH_A32.match(mnemonic):
        return True
    ops = operands.replace(" ", "")
    base = re.sub(r"(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.[nw])?$", "", mnemonic)
    if base.startswith(("pop", "ldm")) and re.search(r"[{,]pc[},]", ops):
        return True
    # A data-processing or load instruction whose destination is the pc.
    return ops.startswith("pc,") and not base.startswith(("cmp", "cmn", "tst", "teq", "str"))


def objdump(tool, elf):
    """Instructions (addr -> size) and the addresses where blocks start."""
    text = subprocess.run([tool, "-d", elf], check=True, capture_output=True, text=True).stdout
    a64 = "aarch64" in subprocess.run([tool, "-f", elf], check=True, capture_output=True,
                                     text=True).stdout
    insns, leaders = {}, set()
    after_break = True
    for ln in text.splitlines():
        if re.match(r"^[0-9a-f]+ <.*>:$", ln):
            leaders.add(int(ln.split()[0], 16))
            after_break = True
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2,8} )+)\s*(\S+)\s*(.*)$", ln.replace("\t", " "))
        if not m:
            continue
        addr = int(m.group(1), 16)
        words = m.group(2).split()
        mnemonic, operands = m.group(3), m.group(4).split(";")[0].split("@")[0].strip()
        if mnemonic.startswith("."):
            # Data (.word, .inst?), not code: what follows starts a block.
            after_break = True
            continue
        size = sum(len(w) for w in words) // 2
        insns[addr] = size
        if after_break:
            leaders.add(addr)
            after_break = False
        if writes_pc(mnemonic, operands, a64):
            leaders.add(addr + size)
            t = TARGET.search(operands)
            if t:
                leaders.add(int(t.group(1), 16))
    return insns, sorted(leaders)


def trace_pcs(path):
    pcs = set()
    fm = re.compile(r"\bI[TS] \(\d+\) ([0-9a-fA-F]+)(?::[0-9a-fA-F_NS]+)? ")
    es = re.compile(r"\bES +\(([0-9a-fA-F]+):")
    for ln in open(path, errors="replace"):
        m = fm.search(ln) or es.search(ln)
        if m:
            pcs.add(int(m.group(1), 16))
    return pcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("drcov")
    ap.add_argument("--print", action="store_true")
    ap.add_argument("--elf")
    ap.add_argument("--objdump")
    ap.add_argument("traces", nargs="*")
    a = ap.parse_intermixed_args()
    got = read_drcov(a.drcov)
    if a.print:
        json.dump(got, sys.stdout)
        return
    insns, leaders = objdump(a.objdump, a.elf)
    (module,) = got["modules"]
    if not module["path"].endswith(a.elf.split("/")[-1]):
        raise SystemExit(f"drcov_check: module {module['path']} is not {a.elf}")
    reached = set()
    for t in a.traces:
        reached |= {pc & ~1 for pc in trace_pcs(t)}
    import bisect
    expected, run = [], None
    for addr in sorted(insns):
        if addr not in reached:
            run = None
            continue
        block = bisect.bisect_right(leaders, addr)
        if run and run[0] == block and run[1] == addr and expected[-1][1] + insns[addr] <= 0xffff:
            expected[-1][1] += insns[addr]
        else:
            expected.append([addr - module["base"], insns[addr], 0])
        run = (block, addr + insns[addr])
    want = {tuple(e) for e in expected}
    have = set(got["blocks"])
    if len(have) != len(got["blocks"]):
        raise SystemExit("drcov_check: a block is listed twice")
    if want != have:
        print(f"drcov_check: {len(have)} blocks in the file, {len(want)} expected", file=sys.stderr)
        for b in sorted(have - want)[:20]:
            print(f"  only in the file: 0x{b[0] + module['base']:x} +{b[1]}", file=sys.stderr)
        for b in sorted(want - have)[:20]:
            print(f"  only expected:    0x{b[0] + module['base']:x} +{b[1]}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"blocks": len(have), "instructions": sum(1 for x in insns if x in reached)}))


if __name__ == "__main__":
    main()
