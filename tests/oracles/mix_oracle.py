#!/usr/bin/env python3
"""An independent instruction mix, for tests/statistics.rs: per-PC counts
read from the trace text (IT/IS lines, and ES lines with or without
CCFAIL), each PC's mnemonic and operands from `objdump -d` of the ELF
(Debian's cross binutils), classified by mnemonic here. Prints one JSON
object: class -> [executed, failed].

    mix_oracle.py TRACE ELF OBJDUMP

Shares no code with the Rust decoder: the classes follow the rules of
crates/core/src/decode/class.rs's documentation, applied to objdump's text.
"""
import json
import re
import subprocess
import sys

CONDS = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt",
         "gt", "le", "al"}
ITLINE = re.compile(r"^\s*\d+\s+\w+\s+(?:cpu\S+\s+)?(IT|IS)\s+\(\d+\)\s+([0-9a-fA-F]+)")


def counts(trace):
    c = {}
    with open(trace) as f:
        for line in f:
            m = ITLINE.match(line)
            if not m:
                continue
            pc = int(m.group(2), 16)
            e = c.setdefault(pc, [0, 0])
            e[0 if m.group(1) == "IT" else 1] += 1
    return c


def disassembly(elf, tool):
    out = subprocess.run([tool, "-d", "-z", elf], capture_output=True, text=True, check=True).stdout
    d = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 3:
            continue
        a = f[0].strip().rstrip(":")
        try:
            addr = int(a, 16)
        except ValueError:
            continue
        d[addr] = (f[2].strip().lower(), f[3].strip().lower() if len(f) > 3 else "")
    return d


def strip(m):
    for s in (".n", ".w"):
        if m.endswith(s):
            m = m[: -len(s)]
    return m


def names(m):
    """The mnemonic as written, and without a condition suffix (movne ->
    mov): svc and mls end in what looks like a condition, so both are tried."""
    m = strip(m)
    out = [m]
    if len(m) > 2 and m[-2:] in CONDS:
        out.append(m[:-2])
    return out


def a64_class(m, ops):
    vector = re.search(r"\bv\d+\.", ops) is not None or re.search(r"\bz\d+\.", ops) is not None
    fpreg = re.search(r"\b[bhsdq]\d+\b", ops) is not None
    if m in ("eret", "eretaa", "eretab", "drps", "svc", "hvc", "smc", "brk", "hlt", "udf",
             "dcps1", "dcps2", "dcps3"):
        return "exception"
    if m in ("prfm", "prfum") or m in ("nop", "yield", "wfe", "wfi", "sev", "sevl", "hint", "bti",
                                        "paciasp", "autiasp", "pacibsp", "autibsp", "xpaclri"):
        return "hint"
    if m in ("b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz") or m.startswith("b."):
        return "branch"
    if m in ("msr", "mrs", "isb", "dsb", "dmb", "sys", "sysl", "dc", "ic", "tlbi", "at", "clrex",
             "sb", "ssbb", "pssbb"):
        return "system"
    if m.startswith(("ld", "swp", "cas")) and m not in ("ldg",):
        return "load"
    if m.startswith("st"):
        return "store"
    if vector:
        return "simd"
    if m in ("mul", "madd", "msub", "mneg", "smull", "umull", "smaddl", "umaddl", "smsubl",
             "umsubl", "smnegl", "umnegl", "smulh", "umulh", "sdiv", "udiv"):
        return "simd" if fpreg else "muldiv"
    if m.startswith("f") or m in ("scvtf", "ucvtf"):
        return "float"
    if fpreg:
        return "simd"
    return "alu"


def a32_class(m, ops):
    ns = names(m)
    full = ns[0]

    def one_of(*words):
        return any(n in words for n in ns)

    def starts(*prefixes):
        return any(n.startswith(prefixes) for n in ns)

    pc_written = re.match(r"^pc\b", ops) is not None
    if one_of("svc", "bkpt", "udf", "hvc", "smc", "eret") or starts("rfe"):
        return "exception"
    if one_of("subs", "movs") and pc_written:
        return "exception"
    if one_of("nop", "yield", "wfe", "wfi", "sev", "sevl", "pld", "pldw", "pli", "dbg", "csdb",
              "esb") or re.fullmatch(r"it[te]{0,3}", full):
        return "hint"
    if one_of("b", "bl", "blx", "bx", "bxj", "cbz", "cbnz", "tbb", "tbh"):
        return "branch"
    if one_of("mrs", "msr", "dmb", "dsb", "isb", "setend", "clrex") or starts("cps", "mcr", "mrc", "cdp"):
        return "system"
    if one_of("mul", "muls", "mla", "mlas", "mls", "umull", "umulls", "umlal", "umlals", "smull",
              "smulls", "smlal", "smlals", "sdiv", "udiv", "umaal", "smmul", "smmla", "smmls",
              "smuad", "smusd", "smlad", "smlsd", "smlald", "smlsld") or starts("smul", "smla"):
        return "muldiv"
    if starts("ldr", "ldm", "ldrex", "ldc", "vldr", "vldm", "vpop", "vld", "lda") or one_of("pop"):
        return "load"
    if starts("str", "stm", "strex", "stc", "vstr", "vstm", "vpush", "vst", "stl", "srs") or one_of("push"):
        return "store"
    if full.startswith("v"):
        return "simd" if re.search(r"\bq\d+", ops) else "float"
    if pc_written:
        return "branch"
    return "alu"


def main():
    trace, elf, tool = sys.argv[1:4]
    c = counts(trace)
    d = disassembly(elf, tool)
    a64 = "aarch64" in tool
    out = {}
    for pc, (ex, fail) in c.items():
        if pc not in d:
            cls = "undecoded"
        else:
            m, ops = d[pc]
            cls = a64_class(m, ops) if a64 else a32_class(m, ops)
        e = out.setdefault(cls, [0, 0])
        e[0] += ex
        e[1] += fail
    json.dump(out, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
