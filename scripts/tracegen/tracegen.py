#!/usr/bin/env python3
"""
tracegen.py - generate REAL Arm Tarmac execution traces.

Small freestanding C programs (programs/*.c, prebuilt into elf/) are run
under the Unicorn CPU emulator; every executed instruction is
disassembled with Capstone and written out as Tarmac text in one of
several dialects:

  fastmodel      Arm Fast Models style:   53 clk IT (53) 002109f0 f94003e1 O EL3h_s : LDR      x1,[sp,#0]
  fastmodel-cpu  the same with a cpu field and cycle timestamps:  1939 clk cpu0 IT (1915) ...
  es             ES / LD / ST 'diagram' style (16-byte memory diagrams, continuation lines)
  gem5           gem5 TarmacTracer (v8 record) style

Usage example:
  tracegen.py --program quicksort --arch aarch64 --style fastmodel \\
              --target-bytes 100M -o out.tarmac
writes out.tarmac and out.elf (the image, for --image= in analyzers).

See README.md in this directory for details.
"""

import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import time
from itertools import compress
from operator import ne

HERE = os.path.dirname(os.path.abspath(__file__))
ELF_DIR = os.path.join(HERE, "elf")

PROGRAMS = ["quicksort", "recursion", "interp", "hash", "tree", "float", "mixed", "exceptions"]
# cortex-m: Thumb code (ARMv7-M) with the M-profile exception model (thread and
# handler modes, hardware stacking); only the exceptions program is built for it.
ARCHES = ["aarch64", "arm", "thumb", "cortex-m"]
OPTS = ["O1", "O2"]
STYLES = ["fastmodel", "fastmodel-cpu", "es", "gem5"]

# Emulated memory: the linker script (programs/link.ld) puts code at
# 0x10000 and the initial stack pointer at 0x400000.
RAM_BASE = 0x10000
RAM_TOP = 0x400000


def die(msg):
    sys.stderr.write("tracegen: error: %s\n" % msg)
    sys.exit(2)


def parse_size(text):
    """'100M' -> 104857600; accepts K/M/G/T suffixes (binary) and plain ints."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)[iI]?[bB]?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError("bad size %r" % text)
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * mult)


# ---------------------------------------------------------------------------
# ELF image

class Image:
    def __init__(self, path):
        try:
            from elftools.elf.elffile import ELFFile
        except ImportError:
            die("pyelftools is not installed (pip install pyelftools)")
        self.path = path
        with open(path, "rb") as f:
            elf = ELFFile(f)
            self.machine = elf["e_machine"]
            self.entry = elf["e_entry"]
            self.segments = []
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_LOAD":
                    self.segments.append((seg["p_vaddr"], seg.data(), seg["p_memsz"]))
            self.symbols = {}
            symtab = elf.get_section_by_name(".symtab")
            if symtab is None:
                die("%s has no symbol table" % path)
            for sym in symtab.iter_symbols():
                if sym.name:
                    self.symbols[sym.name] = sym["st_value"]

    def sym(self, name):
        if name not in self.symbols:
            die("symbol %s not found in %s" % (name, self.path))
        return self.symbols[name]


# ---------------------------------------------------------------------------
# Disassembly -> Tarmac-dialect text

_BRANCH_IMM_A64 = re.compile(r"^(b|bl|b\.\w+|cbz|cbnz|tbz|tbnz|adr|adrp)$")
_BRANCH_IMM_A32 = re.compile(r"^((b|bl|blx)(eq|ne|hs|lo|cs|cc|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?|cbz|cbnz)(\.w|\.n)?$")
_SMALL_HEX = re.compile(r"#(-?)0x([0-9])\b")
_ZERO_OFF_MNEM = re.compile(r"^(ldr|str|ldur|stur|ldp|stp|ldnp|stnp)(b|h|sb|sh|sw|d|ex|exb|exh|exd)?(\.w)?$")
_SHIFT_WORDS = re.compile(r"\b(lsl|lsr|asr|ror|rrx|uxtb|uxth|uxtw|uxtx|sxtb|sxth|sxtw|sxtx|msl)\b")
_HEX_IMM = re.compile(r"#(-?)0x([0-9a-fA-F]+)")
_REGLIST = re.compile(r"\{([^}]*)\}")
_SIMD_REG = re.compile(r"\b[bhsdqvz]\d+\b")
_WREG = re.compile(r"\bw(\d+)\b")


def _compress_reglist(body):
    """'r0,r1,r2,r4,lr' -> 'r0-r2,r4,lr' (runs of 3+ are collapsed, like Fast Models)."""
    regs = [r.strip() for r in body.split(",")]
    nums = []
    for r in regs:
        m = re.fullmatch(r"r(\d+)", r)
        nums.append(int(m.group(1)) if m else None)
    out = []
    i = 0
    while i < len(regs):
        j = i
        if nums[i] is not None:
            while j + 1 < len(regs) and nums[j + 1] is not None and nums[j + 1] == nums[j] + 1:
                j += 1
        if j - i >= 2:
            out.append("%s-%s" % (regs[i], regs[j]))
            i = j + 1
        else:
            out.append(regs[i])
            i += 1
    return ",".join(out)


def fm_disasm(mnemonic, op_str, addr, a64):
    """Capstone text -> Fast Models flavoured disassembly
    ('LDR      x1,[sp,#0]', 'BL       {pc}+0x3e0 ; 0x2109bc')."""
    mn = mnemonic.lower()
    ops = op_str.strip()
    branch_re = _BRANCH_IMM_A64 if a64 else _BRANCH_IMM_A32
    literal = a64 and mn in ("ldr", "ldrsw", "prfm") and "[" not in ops
    if branch_re.match(mn) or literal:
        m = re.search(r"#(-?0x[0-9a-fA-F]+|-?\d+)$", ops)
        if m:
            target = int(m.group(1), 0) & ((1 << 64) - 1 if a64 else 0xFFFFFFFF)
            base = addr
            if mn == "adrp":
                base = addr & ~0xFFF
            off = target - base
            shown = addr + off
            pcrel = "{pc}%s0x%x" % ("+" if off >= 0 else "-", abs(off))
            ops = ops[: m.start()] + pcrel + " ; 0x%x" % shown
    else:
        if _ZERO_OFF_MNEM.match(mn):
            ops = re.sub(r"\[(\w+)\](?!\s*,)", r"[\1, #0]", ops)
        ops = _REGLIST.sub(lambda mm: "{" + _compress_reglist(mm.group(1)) + "}", ops)
        ops = _SHIFT_WORDS.sub(lambda mm: mm.group(1).upper(), ops)
    ops = _SMALL_HEX.sub(r"#\1\2", ops)  # '#-0x1' -> '#-1', like '#8'
    ops = ops.replace(", ", ",")
    return "%-8s %s" % (mnemonic.upper(), ops)


def gem5_disasm(mnemonic, op_str, addr, a64):
    """Capstone text -> gem5-flavoured disassembly ('  LDR   X1, [SP, #16]')."""
    mn = mnemonic.lower()
    if a64 and mn in ("stp", "ldp", "ldpsw", "stnp", "ldnp"):
        # gem5 prints load/store-pair macro-ops with an empty operand list
        return "%s        " % mnemonic.upper()
    ops = op_str.strip()
    branch_re = _BRANCH_IMM_A64 if a64 else _BRANCH_IMM_A32
    if branch_re.match(mn) and mn not in ("adr", "adrp"):
        ops = re.sub(r"#(0x[0-9a-fA-F]+)$", lambda mm: "0X%X" % int(mm.group(1), 16), ops)
    ops = _HEX_IMM.sub(lambda mm: "#%s%d" % (mm.group(1), int(mm.group(2), 16)), ops)
    return "  %s   %s" % (mnemonic.upper(), ops.upper())


# architectural condition codes 0..14 -> pass/fail for each NZCV value
def _build_cond_table():
    table = []
    for cc in range(16):
        row = []
        for nzcv in range(16):
            n, z, c, v = (nzcv >> 3) & 1, (nzcv >> 2) & 1, (nzcv >> 1) & 1, nzcv & 1
            base = cc >> 1
            if base == 0:
                r = z == 1
            elif base == 1:
                r = c == 1
            elif base == 2:
                r = n == 1
            elif base == 3:
                r = v == 1
            elif base == 4:
                r = c == 1 and z == 0
            elif base == 5:
                r = n == v
            elif base == 6:
                r = n == v and z == 0
            else:
                r = True
            if (cc & 1) and cc != 15:
                r = not r
            if cc >= 14:
                r = True
            row.append(r)
        table.append(tuple(row))
    return tuple(table)


COND_OK = _build_cond_table()
COND_NAMES = ["eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"]
_COND_BY_NAME = {n: i for i, n in enumerate(COND_NAMES)}
_COND_BY_NAME.update({"cs": 2, "cc": 3})


class Insn:
    """Static, per-address information about one instruction (cached)."""
    __slots__ = ("addr", "size", "enc", "text_fm", "text_gem5", "cond", "cond_branch",
                 "simd", "wregs", "pair_load", "it_conds", "mnemonic", "wr", "wsimd",
                 "it_members", "pre")


# Instructions that only write the flags, whatever Capstone's register
# access information says (Capstone 5 lists e.g. x1 as written by CMP x1,x2).
_FLAGS_ONLY = {"cmp", "cmn", "tst", "teq", "ccmp", "ccmn", "fcmp", "fcmpe", "fccmp",
               "fccmpe", "vcmp", "vcmpe"}
_A32_ALIASES = {"sb": 9, "sl": 10, "fp": 11, "ip": 12, "sp": 13, "lr": 14}


def static_writes(ci, a64, sp_idx, cpsr_idx):
    """Registers an instruction writes, from Capstone's detail information,
    as (gpr-index set, simd-index set). Used so that, like Fast Models, an
    R line is printed for every register *written* (even with an unchanged
    value: e.g. a BL that sets LR to the value it already had), not only
    for registers whose value changed."""
    gpr, simd = set(), set()
    try:
        _, writes = ci.regs_access()
    except Exception:
        return gpr, simd
    mn = ci.mnemonic.lower()
    flags_only = mn in _FLAGS_ONLY
    for r in writes:
        name = ci.reg_name(r)
        if not name:
            continue
        name = name.lower()
        if name in ("nzcv", "cpsr", "apsr", "apsr_nzcv"):
            gpr.add(cpsr_idx)
            continue
        if flags_only:
            continue
        if a64:
            if name in ("sp", "wsp"):
                gpr.add(sp_idx)
            elif name == "fp":
                gpr.add(29)
            elif name == "lr":
                gpr.add(30)
            elif name[0] in "xw" and name[1:].isdigit():
                gpr.add(int(name[1:]))
            elif name[0] in "bhsdqv" and name[1:].isdigit():
                simd.add(int(name[1:]))
        else:
            if name in _A32_ALIASES:
                gpr.add(_A32_ALIASES[name])
            elif name[0] == "r" and name[1:].isdigit() and int(name[1:]) < 15:
                gpr.add(int(name[1:]))
    if getattr(ci, "update_flags", False):
        gpr.add(cpsr_idx)
    return gpr, simd


# ---------------------------------------------------------------------------
# The tracer

class Tracer:
    def __init__(self, image, arch, style, out, el=3, cpu_name="cpu0", progress=True,
                 gem5_mr16="split", stop_at=None, timer_period=300):
        try:
            import unicorn as uc
            import capstone as cs
        except ImportError as e:
            die("%s (pip install 'unicorn>=2.1,<2.2' 'capstone>=5.0,<5.1' pyelftools)" % e)
        self.uc_mod = uc
        self.cs = cs
        self.image = image
        self.arch = arch
        self.a64 = arch == "aarch64"
        self.mprofile = arch == "cortex-m"
        # The exception model is on for images with vector tables (the
        # exceptions program): see run().
        self.exc_on = "tg_vectors_el1" in image.symbols or "tg_vectors" in image.symbols
        if self.exc_on and style not in ("fastmodel", "fastmodel-cpu"):
            die("exceptions are written in the fastmodel styles only (their E lines)")
        self.style = style
        self.out = out
        self.el = el
        self.cpu_name = cpu_name
        self.progress = progress
        self.gem5_mr16 = gem5_mr16
        self.stop_at = stop_at
        self.timer_period = timer_period
        if self.a64 and image.machine != "EM_AARCH64":
            die("%s is not an AArch64 image" % image.path)
        if self.mprofile and "tg_vectors" not in image.symbols:
            die("%s has no M-profile vector table (tg_vectors): build the exceptions program" % image.path)
        if not self.a64 and image.machine != "EM_ARM":
            die("%s is not an AArch32 image" % image.path)

        # disassemblers
        if self.a64:
            self.md = cs.Cs(cs.CS_ARCH_ARM64, cs.CS_MODE_ARM)
            self.md.detail = True
        else:
            self.md_arm = cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_ARM)
            self.md_thumb = cs.Cs(cs.CS_ARCH_ARM, cs.CS_MODE_THUMB)
            for md in (self.md_arm, self.md_thumb):
                md.syntax = cs.CS_OPT_SYNTAX_NOREGNAME
                md.detail = True
        self.cache = ({}, {})  # per instruction-set state (A64/Arm, Thumb)

    # -- emulator setup ------------------------------------------------------

    def setup(self, iterations):
        uc = self.uc_mod
        img = self.image
        if self.a64:
            import unicorn.arm64_const as K
            self.K = K
            self.u = uc.Uc(uc.UC_ARCH_ARM64, uc.UC_MODE_ARM)
        else:
            import unicorn.arm_const as K
            self.K = K
            self.u = uc.Uc(uc.UC_ARCH_ARM, uc.UC_MODE_ARM)
        u = self.u
        u.mem_map(RAM_BASE, RAM_TOP - RAM_BASE)
        for vaddr, data, memsz in img.segments:
            if vaddr < RAM_BASE or vaddr + memsz > RAM_TOP:
                die("segment at 0x%x does not fit the emulated RAM" % vaddr)
            u.mem_write(vaddr, data)
        # The tg_* symbols are optional, so that other bare-metal images
        # (linked for the same RAM window) can be traced too.
        self.sym_iter = img.symbols.get("tg_iterations")
        self.sym_status = img.symbols.get("tg_status")
        self.sym_result = img.symbols.get("tg_result")
        stop = self.stop_at if self.stop_at is not None else img.symbols.get("tg_exit")
        if isinstance(stop, str):
            stop = int(stop, 0) if stop[:1].isdigit() else img.sym(stop)
        self.exit_addr = (stop & ~1) if stop is not None else -1
        if self.sym_iter is not None:
            u.mem_write(self.sym_iter, int(iterations).to_bytes(4, "little"))

        if self.a64:
            # Start at ELn with SP_ELn selected, DAIF masked, flags clear.
            u.reg_write(K.UC_ARM64_REG_PSTATE, 0x3C0 | (self.el << 2) | 1)
            self.gpr_ids = [getattr(K, "UC_ARM64_REG_X%d" % i) for i in range(31)] + [
                K.UC_ARM64_REG_SP, K.UC_ARM64_REG_PSTATE]
            self.simd_ids = [getattr(K, "UC_ARM64_REG_Q%d" % i) for i in range(32)] + [K.UC_ARM64_REG_FPSR]
            self.sp_idx, self.cpsr_idx = 31, 32
        else:
            self.gpr_ids = [getattr(K, "UC_ARM_REG_R%d" % i) for i in range(13)] + [
                K.UC_ARM_REG_SP, K.UC_ARM_REG_LR, K.UC_ARM_REG_CPSR]
            self.simd_ids = []
            self.sp_idx, self.cpsr_idx = 13, 15
            # SVC mode, IRQ/FIQ/async aborts masked, flags clear (Unicorn's
            # reset value has Z set); emu_start() selects Thumb from bit 0
            u.reg_write(K.UC_ARM_REG_CPSR, 0x1D3)
            if self.mprofile:
                # Interrupts unmasked (cpsie/cpsid mask them, as PRIMASK);
                # the page of EXC_RETURN values, where a handler's return
                # lands and the model unstacks.
                u.reg_write(K.UC_ARM_REG_CPSR, 0x153)
                u.mem_map(0xFFFFF000, 0x1000)
        self.entry = img.entry

    # -- decoding --------------------------------------------------------------

    def decode(self, addr, size, thumb):
        """Disassemble the instruction at addr (cached by the caller)."""
        code = bytes(self.u.mem_read(addr, size))
        ins = Insn()
        ins.addr = addr
        ins.size = size
        ins.cond = 14
        ins.cond_branch = False
        ins.simd = False
        ins.wregs = ()
        ins.pair_load = False
        ins.it_conds = None
        ins.it_members = ()
        ins.pre = None
        ins.wr = ()
        ins.wsimd = ()
        if thumb:
            hw1 = code[0] | code[1] << 8
            if size == 4:
                hw2 = code[2] | code[3] << 8
                ins.enc = "%04x%04x" % (hw1, hw2)
            else:
                ins.enc = "%04x" % hw1
            md = self.md_thumb
        else:
            word = int.from_bytes(code[:4], "little")
            ins.enc = "%08x" % word
            md = self.md if self.a64 else self.md_arm
        try:
            ci = next(md.disasm(code, addr, 1))
            mnemonic, op_str = ci.mnemonic, ci.op_str
        except StopIteration:
            ci = None
            mnemonic, op_str = "UNDEFINED", ""
        ins.mnemonic = mnemonic.lower()
        if ci is not None:
            g, v = static_writes(ci, self.a64, self.sp_idx, self.cpsr_idx)
            ins.wr = tuple(sorted(g))
            ins.wsimd = tuple(sorted(v))
        ins.text_fm = fm_disasm(mnemonic, op_str, addr, self.a64)
        ins.text_gem5 = gem5_disasm(mnemonic, op_str, addr, self.a64)
        mn = ins.mnemonic
        if self.a64:
            ins.cond_branch = mn.startswith("b.") or mn in ("cbz", "cbnz", "tbz", "tbnz")
            ins.simd = bool(_SIMD_REG.search(op_str))
            ins.wregs = tuple(sorted({int(x) for x in _WREG.findall(op_str)}))
            ins.pair_load = mn in ("ldp", "ldnp", "ldpsw")
        else:
            if not thumb:
                ins.cond = word >> 28
                if ins.cond == 15:
                    ins.cond = 14
            elif ci is not None and ci.cc not in (0, 15):
                ins.cond = ci.cc - 1  # capstone numbers conditions from 1
            ins.cond_branch = mn in ("cbz", "cbnz")
            if thumb and ci is not None and mn.startswith("it") and re.fullmatch(r"it[te]{0,3}", mn):
                first = _COND_BY_NAME.get(op_str.strip().lower(), 14)
                conds = [first]
                for ch in mn[2:]:
                    conds.append(first if ch == "t" else first ^ 1)
                ins.it_conds = tuple(conds)
                ins.cond = 14
                # disassemble the IT block members in context, so that they
                # get their conditional mnemonics (MOVEQ rather than MOVS)
                block = bytes(self.u.mem_read(addr, 2 + 4 * len(conds)))
                members = list(self.md_thumb.disasm(block, addr, 1 + len(conds)))[1:]
                it_members = []
                for k, mi in enumerate(members):
                    m = Insn()
                    for slot in Insn.__slots__:
                        setattr(m, slot, None)
                    m.addr = mi.address
                    m.size = mi.size
                    b = mi.bytes
                    h1 = b[0] | b[1] << 8
                    m.enc = "%04x%04x" % (h1, b[2] | b[3] << 8) if mi.size == 4 else "%04x" % h1
                    m.mnemonic = mi.mnemonic.lower()
                    m.text_fm = fm_disasm(mi.mnemonic, mi.op_str, mi.address, False)
                    m.text_gem5 = gem5_disasm(mi.mnemonic, mi.op_str, mi.address, False)
                    m.cond = conds[k] if k < len(conds) else 14
                    m.cond_branch = False
                    m.simd = False
                    m.wregs = ()
                    m.pair_load = False
                    m.it_conds = None
                    g, v = static_writes(mi, False, self.sp_idx, self.cpsr_idx)
                    m.wr = tuple(sorted(g))
                    m.wsimd = ()
                    m.it_members = ()
                    it_members.append(m)
                ins.it_members = tuple(it_members)
        return ins

    # -- main loop -----------------------------------------------------------

    def run(self, max_insns=None):
        """Run the program to tg_exit, writing the trace to self.out.
        Returns (instructions, bytes_written)."""
        u = self.u
        uc = self.uc_mod
        a64 = self.a64
        style = self.style
        out_write = self.out.write
        uclib = _uclib()
        uch = u._uch

        ngpr = len(self.gpr_ids)
        ids_arr = (ctypes.c_int * ngpr)(*self.gpr_ids)
        vals = (ctypes.c_uint64 * ngpr)()
        ptrs = (ctypes.c_void_p * ngpr)(*[ctypes.addressof(vals) + 8 * i for i in range(ngpr)])
        read_batch = uclib.uc_reg_read_batch
        read_batch.restype = ctypes.c_int

        # (AArch32 registers are 32-bit: the top half of each slot stays 0)
        vals_list = memoryview(vals).cast("B").cast("Q").tolist

        def read_gprs():
            read_batch(uch, ids_arr, ptrs, ngpr)
            return vals_list()

        nsimd = len(self.simd_ids)
        if nsimd:
            simd_ids = (ctypes.c_int * nsimd)(*self.simd_ids)
            simd_buf = (ctypes.c_ubyte * (16 * nsimd))()
            simd_ptrs = (ctypes.c_void_p * nsimd)(*[ctypes.addressof(simd_buf) + 16 * i for i in range(nsimd)])

            def read_simd():
                read_batch(uch, simd_ids, simd_ptrs, nsimd)
                return bytes(simd_buf)
        else:
            def read_simd():
                return b""

        # ---- register naming / formatting per dialect ----
        CPSR_IDX = ngpr - 1
        SP_IDX = ngpr - 2 if a64 else 13
        if a64:
            it_mask = 0xFFFFFFFF
        else:
            it_mask = ~((3 << 25) | (0x3F << 10)) & 0xFFFFFFFF  # hide IT state bits
        reg_line = [None] * ngpr   # "%"-format producing the 'R name value' text
        wreg_line = [None] * 31
        el = self.el
        if a64:
            mode_fm = "EL%dh_%s" % (el, "s" if el == 3 else "n")
            for i in range(31):
                if style == "es":
                    reg_line[i] = "R X%d %%016x" % i
                elif style == "gem5":
                    reg_line[i] = "R X%d %%016x" % i
                    wreg_line[i] = "R W%d %%08x" % i
                else:
                    reg_line[i] = "R X%d %%016X" % i
            if style == "es":
                reg_line[SP_IDX] = "R SP_EL%d %%016x" % el
                reg_line[CPSR_IDX] = "R CPSR %08x"
            elif style == "gem5":
                reg_line[SP_IDX] = None  # gem5 does not trace the AArch64 SP
                reg_line[CPSR_IDX] = "R cpsr %08x"
            else:
                reg_line[SP_IDX] = "R SP_EL%d %%016X" % el
                reg_line[CPSR_IDX] = "R cpsr %08x"
            if style == "fastmodel" or style == "fastmodel-cpu":
                simd_line = ["R q%d %%032X" % i for i in range(32)] + ["R FPSR %08x"]
            elif style == "es":
                simd_line = ["R Q%d %%032x" % i for i in range(32)] + ["R FPSR %08x"]
            else:
                simd_line = ["R Q%d %%032x" % i for i in range(32)] + ["R fpsr %08x"]
        else:
            mode_fm = "svc_s"
            simd_line = []
            for i in range(13):
                reg_line[i] = ("R R%d %%08x" if style == "es" else "R r%d %%08x") % i
            if style == "es":
                reg_line[13], reg_line[14], reg_line[15] = "R SP_SVC %08x", "R LR_SVC %08x", "R CPSR %08x"
            elif style == "gem5":
                reg_line[13], reg_line[14], reg_line[15] = "R sp_svc %08x", "R lr_svc %08x", "R cpsr %08x"
            else:
                reg_line[13], reg_line[14], reg_line[15] = "R r13_svc %08x", "R r14_svc %08x", "R cpsr %08x"
        if self.mprofile:
            mode_fm = "thread"
            reg_line[13], reg_line[14] = "R MSP %08x", "R r14 %08x"
        if a64 and self.exc_on:
            mode_fm = "EL%dh_%s" % (el, "s" if el == 3 else "ns")
        mode_es = mode_fm.lower()
        # The mode instructions are written in (the exception model changes it).
        label = self.label = [mode_fm]

        # ---- hooks ----
        acc = []
        acc_append = acc.append
        W = uc.UC_MEM_WRITE

        MEMCB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64,
                                 ctypes.c_int, ctypes.c_int64, ctypes.c_void_p)
        CODECB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_void_p)

        def on_mem(_h, access, addr, size, value, _ud):
            acc_append((access == W, addr, size, value & MASK[size]))

        cache = self.cache
        decode = self.decode
        chunks = []
        chunks_append = chunks.append
        it_members = []  # Thumb: remaining members of the current IT block
        nbytes = [0]
        simd_prev = [read_simd()]
        max_n = max_insns or 0
        exc_on = self.exc_on
        emit = self._make_emitter(reg_line, wreg_line, simd_line, mode_fm, mode_es,
                                  SP_IDX, CPSR_IDX)
        flush_every = 2048
        progress = self.progress
        t_start = time.time()
        last_report = [t_start]
        RANGE = range(ngpr)

        # State carried from one code-hook call to the next: the instruction
        # whose hook fired last (its effects are complete when the next hook
        # fires) and the register values from before it executed.
        pend_ins = None
        pend_regs = None
        pend_thumb = 0
        n_insns = 0
        exit_addr = self.exit_addr
        exit_seen = False
        stop_next = [None]
        IT_BITS = (3 << 25) | (0x3F << 10)
        cpsr_reg = None if a64 else self.K.UC_ARM_REG_CPSR
        pc_reg = self.K.UC_ARM64_REG_PC if a64 else self.K.UC_ARM_REG_PC
        stopping = False

        # ---- the exception model (images with vector tables) ----
        # The emulated CPU stays where it started (AArch64: EL3; M-profile
        # code runs on an A-profile core in Thumb state): the model decides
        # what the trace says. AArch64: SVC is taken to EL1 (current EL,
        # SPx, synchronous), SMC to EL3 (lower EL, AArch64), the timer's IRQ
        # to EL1; ERET returns to where the innermost was taken from, and
        # the boot's ERET (none open) drops from EL3 to EL1. M-profile: SVC
        # is SVCall (11), the timer SysTick (15, which may preempt SVCall);
        # entry stacks r0-r3, r12, lr, the return address and xPSR and puts
        # EXC_RETURN in lr; a branch to EXC_RETURN unstacks. The timer
        # fires every timer_period instructions while interrupts are
        # unmasked (PSTATE.I / cpsid) and no timer handler runs. Entries
        # take cycles (2 AArch64, 11 M-profile) between the event line and
        # the handler's first instruction.
        mprofile = self.mprofile
        model_stack = []
        timer_period = self.timer_period
        next_tick = [timer_period]
        pend_label = [None]
        pend_force = [False]
        ipsr = [0]
        MBITS = {"EL3h_s": 0xD, "EL1h_ns": 0x5}
        ts_ref = self._ts if exc_on else [0]
        with_cpu = style == "fastmodel-cpu"
        if exc_on and a64:
            vbar = {1: self.image.symbols["tg_vectors_el1"], 3: self.image.symbols["tg_vectors_el3"]}
        if mprofile:
            vtor = self.image.symbols["tg_vectors"]
        K = self.K

        def cpsr_view(v, lab=None):
            if a64:
                return (v & ~0xF) | MBITS.get(lab or label[0], v & 0xF)
            if mprofile:
                return (v & 0xF8000000) | 0x01000000 | ipsr[0]
            return v

        def set_label(lab):
            label[0] = lab
            if a64:
                reg_line[SP_IDX] = "R SP_EL%d %%016X" % (1 if lab.startswith("EL1") else 3)

        def stamp(cycles=1):
            ts_ref[0] += cycles
            return "%d clk %s" % (ts_ref[0], self.cpu_name + " " if with_cpu else "")

        def take_a64(number, name, ret, target, offset, esr):
            p = stamp()
            old = label[0]
            pst = u.reg_read(K.UC_ARM64_REG_PSTATE)
            spsr = (pst & ~0xF) | MBITS[old]
            model_stack.append((ret, old, pst & 0xF00003C0, name))
            set_label("EL3h_s" if target == 3 else "EL1h_ns")
            u.reg_write(K.UC_ARM64_REG_PSTATE, pst | 0x3C0)
            lines = [p + "E %08x %08x CoreEvent_%s" % (ret, number, name),
                     p + "R cpsr %08x" % cpsr_view(pst | 0x3C0)]
            if esr is not None:
                u.reg_write(getattr(K, "UC_ARM64_REG_ESR_EL%d" % target), esr)
                if target == 3:
                    # ESR_EL3 is op0=3 op1=6 CRn=5 CRm=2 op2=0 (emulated).
                    el3_sysregs[(3 << 14) | (6 << 11) | (5 << 7) | (2 << 3)] = esr
                lines.append(p + "R ESR_EL%d %016X" % (target, esr))
            u.reg_write(getattr(K, "UC_ARM64_REG_ELR_EL%d" % target), ret)
            lines.append(p + "R ELR_EL%d %016X" % (target, ret))
            lines.append(p + "R SPSR_EL%d %016X" % (target, spsr))
            chunks_append("\n".join(lines) + "\n")
            ts_ref[0] += 2
            u.reg_write(K.UC_ARM64_REG_PC, vbar[target] + offset)

        def take_m(num, name, ret):
            p = stamp()
            from_thread = not model_stack
            lines = []
            if from_thread:
                lines.append(p + "E 00000000 handler 00000019 CoreEvent_ModeChange")
            r = read_gprs()
            frame = (r[13] - 32) & 0xFFFFFFFF
            words = [r[0], r[1], r[2], r[3], r[12], r[14], ret & ~1, cpsr_view(r[15])]
            for k in reversed(range(8)):
                a = frame + 4 * k
                u.mem_write(a, (words[k] & 0xFFFFFFFF).to_bytes(4, "little"))
                lines.append(p + "MW4 %08x:%012x %08x" % (a, a, words[k]))
            lines.append(p + "E %08x %08x CoreEvent_%s" % (ret & ~1, num, name))
            exc_return = 0xFFFFFFF9 if from_thread else 0xFFFFFFF1
            u.reg_write(K.UC_ARM_REG_LR, exc_return)
            u.reg_write(K.UC_ARM_REG_SP, frame)
            model_stack.append((num, ret, from_thread, name))
            ipsr[0] = num
            set_label("handler")
            lines += [p + "R r14 %08x" % exc_return, p + "R MSP %08x" % frame,
                      p + "R cpsr %08x" % cpsr_view(r[15])]
            chunks_append("\n".join(lines) + "\n")
            ts_ref[0] += 11
            u.reg_write(K.UC_ARM_REG_PC, self.read_u32(vtor + 4 * num) | 1)

        def return_m():
            num, ret, to_thread, _ = model_stack.pop()
            p = stamp()
            r = read_gprs()
            sp = r[13]
            words = [self.read_u32(sp + 4 * k) for k in range(8)]
            lines = [p + "MR4 %08x:%012x %08x" % (sp + 4 * k, sp + 4 * k, words[k]) for k in range(8)]
            if to_thread:
                lines.append(p + "E 00000000 thread 00000019 CoreEvent_ModeChange")
            for k, reg in enumerate((K.UC_ARM_REG_R0, K.UC_ARM_REG_R1, K.UC_ARM_REG_R2,
                                     K.UC_ARM_REG_R3, K.UC_ARM_REG_R12, K.UC_ARM_REG_LR)):
                u.reg_write(reg, words[k])
            u.reg_write(K.UC_ARM_REG_SP, sp + 32)
            cpsr = u.reg_read(K.UC_ARM_REG_CPSR)
            u.reg_write(K.UC_ARM_REG_CPSR, (cpsr & 0x07FFFFFF) | (words[7] & 0xF8000000))
            ipsr[0] = model_stack[-1][0] if model_stack else 0
            set_label("thread" if to_thread else "handler")
            for k, n in enumerate((0, 1, 2, 3, 12)):
                lines.append(p + (reg_line[n] % words[k]))
            lines += [p + "R r14 %08x" % words[5], p + "R MSP %08x" % (sp + 32),
                      p + "R cpsr %08x" % cpsr_view(u.reg_read(K.UC_ARM_REG_CPSR))]
            chunks_append("\n".join(lines) + "\n")
            ts_ref[0] += 9
            u.reg_write(K.UC_ARM_REG_PC, words[6] | 1)

        def timer_due(raw_cpsr):
            if not exc_on or n_insns < next_tick[0]:
                return False
            masked = (u.reg_read(K.UC_ARM64_REG_PSTATE) if a64 else raw_cpsr) & 0x80
            in_timer = any(e[3] in ("CURRENT_SPx_IRQ", "SYSTICK") for e in model_stack)
            return not masked and not in_timer

        el3_sysregs = {}

        def el3_sysreg(pc):
            """Unicorn's AArch64 core has no EL3: an MSR or MRS of an EL3
            system register (op1 = 6) is emulated here. True if it was one."""
            w = self.read_u32(pc)
            if w & 0xFFD00000 != 0xD5100000 or (w >> 16) & 7 != 6:
                return False
            key = (w >> 5) & 0xFFFF
            rt = w & 31
            if w & (1 << 21):
                if rt != 31:
                    u.reg_write(getattr(K, "UC_ARM64_REG_X%d" % rt), el3_sysregs.get(key, 0))
            else:
                el3_sysregs[key] = 0 if rt == 31 else u.reg_read(getattr(K, "UC_ARM64_REG_X%d" % rt))
            return True

        def on_intr(_h, intno, _ud):
            nonlocal pend_ins
            if a64 and intno == 1 and el3_sysreg(u.reg_read(pc_reg)):
                pc = u.reg_read(pc_reg)
                regs = read_gprs()
                if pend_ins is not None:
                    finalize(pend_ins, pend_regs, pend_thumb, regs, pc + 4)
                    pend_ins = None
                u.reg_write(pc_reg, pc + 4)
                return
            regs = read_gprs()
            if not a64:
                regs[CPSR_IDX] &= it_mask
            pc = u.reg_read(pc_reg)
            if pend_ins is not None:
                finalize(pend_ins, pend_regs, pend_thumb, regs, pc & ~1)
                pend_ins = None
            if a64:
                imm = (self.read_u32(pc - 4) >> 5) & 0xFFFF
                if intno == 2:
                    take_a64(0x84, "CURRENT_SPx_SYNC", pc, 1, 0x200, 0x56000000 | imm)
                elif intno == 13:
                    take_a64(0x88, "LOWER_64_SYNC", pc, 3, 0x400, 0x5E000000 | imm)
                else:
                    die("unexpected exception %d at pc=0x%x" % (intno, pc))
            elif mprofile and intno == 2:
                take_m(11, "SVCALL", pc | 1)
            else:
                die("unexpected exception %d at pc=0x%x" % (intno, pc))

        def finalize(ins, before, thumb, after, next_addr, insn_label=None, force_cpsr=False):
            """Emit the trace records of one completed instruction."""
            nonlocal n_insns
            if exc_on:
                after = list(after)
                after[CPSR_IDX] = cpsr_view(after[CPSR_IDX])
                before = list(before)
                before[CPSR_IDX] = cpsr_view(before[CPSR_IDX], insn_label)
            # did it execute? (AArch32: condition codes and IT blocks)
            if it_members:
                if it_members[0].addr == ins.addr:
                    ins = it_members.pop(0)  # disassembled in IT context (MOVEQ, not MOVS)
                else:
                    del it_members[:]  # left the IT block some other way
            cond = ins.cond
            executed = cond == 14 or COND_OK[cond][before[CPSR_IDX] >> 28]
            if ins.it_members and executed:
                it_members[:] = ins.it_members
            # Unicorn does not call the code hook for IT-block members that
            # fail their condition, so find those here: they lie between this
            # instruction and the next one that did reach the hook.
            expected = ins.addr + ins.size
            skipped = None
            while it_members and it_members[0].addr == expected and next_addr != expected:
                m = it_members.pop(0)
                skipped = skipped or []
                skipped.append(m)
                expected += m.size
            taken = next_addr != expected
            if ins.cond_branch and not taken:
                executed = False  # not-taken CBZ/TBZ/B.cond: Fast Models reports IS
            if acc:
                mems = acc[:]
                acc.clear()
            else:
                mems = ()
            # Registers to report: every register the instruction writes
            # (Capstone's static write set, so that e.g. a BL which leaves LR
            # unchanged still shows 'R X30', as Fast Models does) plus any
            # other register whose value actually changed (which also covers
            # writes that Capstone's tables miss).
            wr = ins.wr
            if executed:
                expect = before.copy()
                for r in wr:
                    expect[r] = after[r]
                if expect == after:
                    changed = wr
                else:
                    changed = sorted(set(compress(RANGE, map(ne, after, before))).union(wr))
            elif after == before:
                changed = ()
            else:
                changed = list(compress(RANGE, map(ne, after, before)))
            if force_cpsr and CPSR_IDX not in changed:
                changed = sorted(set(changed) | {CPSR_IDX})
            simd_changes = ()
            if ins.simd:
                sb = read_simd()
                old = simd_prev[0]
                ws = ins.wsimd if executed else ()
                if ws:
                    expect = bytearray(old)
                    for k in ws:
                        expect[16 * k:16 * k + 16] = sb[16 * k:16 * k + 16]
                    ks = ws if expect == sb else None
                else:
                    ks = () if sb == old else None
                if ks is None:
                    ks = sorted(set(k for k in range(nsimd)
                                    if sb[16 * k:16 * k + 16] != old[16 * k:16 * k + 16]).union(ws))
                if ks:
                    simd_changes = [(k, int.from_bytes(sb[16 * k:16 * k + 16], "little")) for k in ks]
                simd_prev[0] = sb
            n_insns += 1
            chunks_append(emit(ins, executed, n_insns, thumb, mems, after, changed, simd_changes,
                               taken, next_addr, after[CPSR_IDX], insn_label))
            if skipped:
                for m in skipped:
                    n_insns += 1
                    chunks_append(emit(m, False, n_insns, thumb, (), after, (), (), False,
                                       next_addr, after[CPSR_IDX], insn_label))
            if len(chunks) >= flush_every:
                flush()

        def flush():
            data = "".join(chunks)
            chunks.clear()
            nbytes[0] += len(data)
            out_write(data)
            if progress:
                now = time.time()
                if now - last_report[0] > 5:
                    last_report[0] = now
                    sys.stderr.write("  ... %d instructions, %.1f MB, %.0f insn/s\n" % (
                        n_insns, nbytes[0] / 1e6, n_insns / (now - t_start)))

        def on_code(_h, addr, size, _ud):
            nonlocal pend_ins, pend_regs, pend_thumb, exit_seen, stopping
            if stopping:
                return
            if exit_seen:
                # The stop instruction (tg_exit: 'b .') has now executed once
                # and is traced, so that the return into it from tg_main is
                # visible; end the run here.
                stopping = True
                stop_next[0] = addr
                u.emu_stop()
                return
            read_batch(uch, ids_arr, ptrs, ngpr)
            regs = vals_list()
            if not a64:
                raw_cpsr = regs[CPSR_IDX]
                regs[CPSR_IDX] = raw_cpsr & it_mask
                thumb = 1 if raw_cpsr & 0x20 else 0
            else:
                raw_cpsr = 0
                thumb = 0
            if pend_ins is not None:
                finalize(pend_ins, pend_regs, pend_thumb, regs, addr, pend_label[0], pend_force[0])
                pend_ins = None
                pend_label[0] = None
                pend_force[0] = False
            if mprofile and addr >= 0xFFFFFF00:
                # A branch to EXC_RETURN: the handler returns.
                return_m()
                return
            if timer_due(raw_cpsr):
                next_tick[0] = n_insns + timer_period
                if a64:
                    take_a64(0x85, "CURRENT_SPx_IRQ", addr, 1, 0x280, None)
                else:
                    take_m(15, "SYSTICK", addr | thumb)
                return
            if raw_cpsr & IT_BITS and not (it_members and it_members[0].addr == addr):
                # Unicorn bug workaround: with memory hooks installed, a load
                # or store inside a Thumb IT block leaves the IT state in
                # env->condexec_bits behind after the block has ended, and the
                # next translation block is then decoded as if it were still
                # inside the IT block (so instructions get skipped). Clear the
                # stale state and restart at this instruction, which forces a
                # fresh translation-block lookup; the hook then fires again.
                u.reg_write(cpsr_reg, raw_cpsr & it_mask)
                if DEBUG:
                    sys.stderr.write("it-fix at %x cpsr %08x thumb %d\n" % (addr, raw_cpsr, thumb))
                if thumb:
                    # (in Arm state the stale bits do not affect decoding, so
                    # clearing them is enough)
                    u.reg_write(pc_reg, addr | 1)
                    return
            if addr == exit_addr:
                exit_seen = True
            ins = cache[thumb].get(addr)
            if ins is None:
                ins = cache[thumb][addr] = decode(addr, size, thumb)
            pend_ins = ins
            pend_regs = regs
            pend_thumb = thumb
            if exc_on and a64 and ins.enc == "d69f03e0":
                # ERET: the model returns (the CPU, still at EL3, does not
                # run it).
                old = label[0]
                if model_stack:
                    ret, back, daif, _ = model_stack.pop()
                else:
                    # ELR_EL3 (op0=3 op1=6 CRn=4 CRm=0 op2=1) as the boot code set it.
                    ret = el3_sysregs.get((3 << 14) | (6 << 11) | (4 << 7) | 1) or \
                        u.reg_read(K.UC_ARM64_REG_ELR_EL3)
                    back, daif = "EL1h_ns", u.reg_read(K.UC_ARM64_REG_PSTATE) & 0xF0000000
                pst = u.reg_read(K.UC_ARM64_REG_PSTATE)
                # The saved flags and masks come back (SPSR into PSTATE).
                u.reg_write(K.UC_ARM64_REG_PSTATE, (pst & ~0xF00003C0) | daif)
                set_label(back)
                pend_label[0] = old
                pend_force[0] = True
                u.reg_write(pc_reg, ret)
                return
            if max_n and n_insns >= max_n:
                stopping = True
                u.emu_stop()

        code_cb = CODECB(on_code)
        mem_cb = MEMCB(on_mem)
        self._keep = (code_cb, mem_cb)
        if exc_on:
            self._intr = u.hook_add(uc.UC_HOOK_INTR, on_intr)
        h = ctypes.c_size_t()
        err = uclib.uc_hook_add(uch, ctypes.byref(h), uc.UC_HOOK_CODE, code_cb, None,
                                ctypes.c_uint64(1), ctypes.c_uint64(0))
        if err:
            die("uc_hook_add(code) failed: %d" % err)
        err = uclib.uc_hook_add(uch, ctypes.byref(h), uc.UC_HOOK_MEM_WRITE | uc.UC_HOOK_MEM_READ_AFTER,
                                mem_cb, None, ctypes.c_uint64(1), ctypes.c_uint64(0))
        if err:
            die("uc_hook_add(mem) failed: %d" % err)

        # ---- header ----
        init = read_gprs()
        init[CPSR_IDX] &= it_mask
        if exc_on:
            init[CPSR_IDX] = cpsr_view(init[CPSR_IDX])
        header = self._header(init, reg_line, simd_line, mode_fm)
        nbytes[0] += len(header)
        out_write(header)

        begin = self.entry
        t0 = time.time()
        try:
            u.emu_start(begin, 0)
        except uc.UcError as e:
            pc = u.reg_read(self.K.UC_ARM64_REG_PC if a64 else self.K.UC_ARM_REG_PC)
            die("emulation failed at pc=0x%x after %d instructions: %s" % (pc, n_insns, e))
        if pend_ins is not None:
            regs = read_gprs()
            regs[CPSR_IDX] &= it_mask
            pc = stop_next[0] if stop_next[0] is not None else u.reg_read(
                self.K.UC_ARM64_REG_PC if a64 else self.K.UC_ARM_REG_PC)
            finalize(pend_ins, pend_regs, pend_thumb, regs, pc & ~1, pend_label[0], pend_force[0])
        trailer = self._trailer(n_insns)
        data = "".join(chunks) + trailer
        chunks.clear()
        nbytes[0] += len(data)
        out_write(data)
        self.elapsed = time.time() - t0
        self.instructions = n_insns
        self.bytes = nbytes[0]
        return n_insns, nbytes[0]

    def read_u32(self, addr):
        return int.from_bytes(bytes(self.u.mem_read(addr, 4)), "little")

    # -- dialects --------------------------------------------------------------

    def _header(self, init, reg_line, simd_line, mode_fm):
        style = self.style
        a64 = self.a64
        lines = []
        if style in ("fastmodel", "fastmodel-cpu"):
            p = "0 clk " + (self.cpu_name + " " if style == "fastmodel-cpu" else "")
            # reset-time register dump, as Fast Models prints one
            cpsr_i = len(init) - 1
            lines.append(p + reg_line[cpsr_i] % init[cpsr_i])
            for i in range(len(init) - 1):
                if reg_line[i] is not None:
                    lines.append(p + reg_line[i] % init[i])
            for k in range(len(simd_line) - 1):
                lines.append(p + simd_line[k] % 0)
            lines.append(p + "E %08x:%012x %08x CoreEvent_Reset" % (0, 0, 0))
        elif style == "es":
            lines.append("Tarmac Text Rev 3t")
            if a64:
                lines.append("%11d tic ES  EXC Reset" % 0)
                lines.append(" " * 20 + "BR (%016x) O" % self.entry)
            else:
                lines.append("%11d tic ES  EXC [0x00] Reset" % 0)
                lines.append(" " * 20 + "BR (%08x) %s" % (self.entry & ~1, "T" if self.entry & 1 else "A"))
        return "".join(l + "\n" for l in lines)

    def _trailer(self, n):
        if self.style in ("fastmodel", "fastmodel-cpu"):
            p = "%d clk " % (self._ts[0] if hasattr(self, "_ts") else n)
            if self.style == "fastmodel-cpu":
                p += self.cpu_name + " "
            return p + "CADI E simulation_stopped\n"
        return ""

    def _make_emitter(self, reg_line, wreg_line, simd_line, mode_fm, mode_es, SP_IDX, CPSR_IDX):
        style = self.style
        a64 = self.a64
        tracer = self
        cpu = self.cpu_name

        if style in ("fastmodel", "fastmodel-cpu"):
            with_cpu = style == "fastmodel-cpu"
            state_a = "O " + mode_fm + " : " if a64 else "A " + mode_fm + " : "
            state_t = "T " + mode_fm + " : "
            cyc = tracer._ts = [0]

            exc_on = tracer.exc_on
            label = tracer.label

            def emit(ins, executed, n, thumb, mems, after, changed, simd_changes, taken, next_addr, cpsr,
                     insn_label=None):
                if with_cpu or exc_on:
                    # a simple timing model: 1 cycle/insn, +1 per memory access,
                    # +2 for a taken branch (with exceptions, the fastmodel style
                    # counts cycles too, so that exception entry takes time)
                    ts = cyc[0] = cyc[0] + 1 + len(mems) + (2 if taken else 0)
                    p = "%d clk %s " % (ts, cpu) if with_cpu else "%d clk " % ts
                else:
                    cyc[0] = n
                    p = "%d clk " % n
                if exc_on:
                    mode = insn_label or label[0]
                    state = ("T " if thumb else ("O " if a64 else "A ")) + mode + " : "
                    sfx = "%08x %s %s%s\n" % (ins.addr, ins.enc, state, ins.text_fm)
                else:
                    sfx = ins.pre
                    if sfx is None:
                        sfx = ins.pre = "%08x %s %s%s\n" % (
                            ins.addr, ins.enc, state_t if thumb else state_a, ins.text_fm)
                text = "%s%s (%d) %s" % (p, "IT" if executed else "IS", n, sfx)
                for w, addr, size, val in mems:
                    if size == 8:
                        text += "%sM%s8 %08x:%012x %08x_%08x\n" % (
                            p, "W" if w else "R", addr, addr, val >> 32, val & 0xFFFFFFFF)
                    else:
                        text += "%sM%s%d %08x:%012x %0*x\n" % (
                            p, "W" if w else "R", size, addr, addr, 2 * size, val)
                for i in changed:
                    lf = reg_line[i]
                    if lf is not None:
                        text += p + lf % after[i] + "\n"
                for k, v in simd_changes:
                    text += p + simd_line[k] % v + "\n"
                return text
            return emit

        if style == "gem5":
            state_a = (" O " if a64 else " A ") + mode_fm + " : "
            state_t = " T " + mode_fm + " : "
            tick = [0]
            suffix_cache = {}
            pre = "clk %s " % cpu
            mr16_split = tracer.gem5_mr16 == "split"

            def emit(ins, executed, n, thumb, mems, after, changed, simd_changes, taken, next_addr, cpsr):
                ts = tick[0]
                # 250 ticks per instruction (1 cycle at 4 GHz with 1 ps ticks),
                # plus stalls for memory accesses and taken branches
                tick[0] = ts + 250 + (500 if taken else 0) + (250 if mems else 0)
                p = "%d %s" % (ts, pre)
                key = (ins, thumb)
                sfx = suffix_cache.get(key)
                if sfx is None:
                    sfx = suffix_cache[key] = "%08x %s%s%s" % (
                        ins.addr, ins.enc, state_t if thumb else state_a, ins.text_gem5)
                # gem5 only marks AArch32 predicated-false instructions as IS
                ex = executed or (a64 and ins.cond_branch)
                lines = [p + ("IT (%d) " % n if ex else "IS (%d) " % n) + sfx]
                if a64 and ins.pair_load and len(mems) == 2 and not mems[0][0] and not mems[1][0] \
                        and mems[1][1] == mems[0][1] + mems[0][2]:
                    # gem5 performs a load-pair as one double-width access
                    (w0, a0, s0, v0), (w1, a1, s1, v1) = mems
                    mems = ((False, a0, s0 + s1, v0 | (v1 << (8 * s0))),)
                for w, addr, size, val in mems:
                    if size == 16 and mr16_split:
                        # two words, high then low: the form Tarmac Trace
                        # Utilities accepts for 16-byte accesses
                        lines.append("%sM%s16 %08x:%012x %016x %016x" % (
                            p, "W" if w else "R", addr, addr, val >> 64, val & 0xFFFFFFFFFFFFFFFF))
                    else:
                        lines.append("%sM%s%d %08x:%012x %0*x" % (p, "W" if w else "R", size, addr, addr, 2 * size, val))
                wr = ins.wregs
                for i in changed:
                    lf = reg_line[i]
                    if lf is None:
                        continue
                    if wr and i < 31 and i in wr:
                        lines.append(p + wreg_line[i] % (after[i] & 0xFFFFFFFF))
                    else:
                        lines.append(p + lf % after[i])
                for k, v in simd_changes:
                    lines.append(p + simd_line[k] % v)
                lines.append("")
                return "\n".join(lines)
            return emit

        if style == "es":
            ind = " " * 20
            aw = 16 if a64 else 8
            st_a = "O" if a64 else "A"
            es_cache = {}

            def diagram(row):
                parts = []
                for g in range(4):
                    s = []
                    for b in (15 - 4 * g, 14 - 4 * g, 13 - 4 * g, 12 - 4 * g):
                        v = row[b]
                        s.append(".." if v is None else "%02x" % v)
                    parts.append("".join(s))
                return " ".join(parts)

            def emit(ins, executed, n, thumb, mems, after, changed, simd_changes, taken, next_addr, cpsr):
                ts = (n >> 4) * 100  # low-resolution 'tic' timestamps, as in ES traces
                key = (ins, thumb)
                pre = es_cache.get(key)
                if pre is None:
                    pre = es_cache[key] = (
                        "(%0*x:%s) %s %s" % (aw, ins.addr, ins.enc, "T" if thumb else st_a,
                                             ("%s:" % mode_es).ljust(9)),
                        ins.text_fm)
                ccfail = (not executed) and not a64 and not ins.cond_branch
                lines = ["%11d tic ES  %s%s%s" % (ts, pre[0], "CCFAIL " if ccfail else "       ", pre[1])]
                if mems:
                    rows = {}
                    for w, addr, size, val in mems:
                        for k in range(size):
                            a = addr + k
                            key2 = (w, a & ~15)
                            r = rows.get(key2)
                            if r is None:
                                r = rows[key2] = [None] * 16
                            r[a & 15] = (val >> (8 * k)) & 0xFF
                    for (w, base) in sorted(rows, key=lambda kk: (kk[0], -kk[1])):
                        lines.append("%s%s %0*x %s    S:%010x    nGnRnE OSH" % (
                            ind, "ST" if w else "LD", aw, base, diagram(rows[(w, base)]), base))
                for i in changed:
                    lf = reg_line[i]
                    if lf is not None:
                        lines.append(ind + lf % after[i])
                for k, v in simd_changes:
                    lines.append(ind + simd_line[k] % v)
                if taken and executed:
                    if a64:
                        lines.append("%sBR (%016x) O" % (ind, next_addr))
                    else:
                        lines.append("%sBR (%08x) %s" % (ind, next_addr, "T" if cpsr & 0x20 else "A"))
                lines.append("")
                return "\n".join(lines)
            return emit

        die("unknown style %s" % style)


DEBUG = bool(os.environ.get("TRACEGEN_DEBUG"))
MASK = {1: 0xFF, 2: 0xFFFF, 4: 0xFFFFFFFF, 8: 0xFFFFFFFFFFFFFFFF, 16: (1 << 128) - 1}


def _uclib():
    try:
        from unicorn.unicorn_py3.unicorn import uclib
    except ImportError:  # older layouts
        from unicorn.unicorn import _uc as uclib
    return uclib


# ---------------------------------------------------------------------------
# Driver

class CountingSink:
    """A file-like object that only counts characters (for calibration)."""

    def __init__(self):
        self.n = 0

    def write(self, s):
        self.n += len(s)


def elf_path_for(program, arch, opt):
    return os.path.join(ELF_DIR, "%s-%s-%s.elf" % (program, arch, opt))


def ensure_elf(program, arch, opt):
    path = elf_path_for(program, arch, opt)
    if not os.path.exists(path):
        sys.stderr.write("tracegen: %s missing, running build.sh\n" % path)
        subprocess.check_call([os.path.join(HERE, "build.sh")])
    return path


def trace_once(image, arch, style, iterations, out, max_insns=None, progress=False, **kw):
    t = Tracer(image, arch, style, out, progress=progress, **kw)
    t.setup(iterations)
    t.run(max_insns=max_insns)
    t.status = t.read_u32(t.sym_status) if t.sym_status is not None else 0
    t.result = t.read_u32(t.sym_result) if t.sym_result is not None else 0
    return t


def calibrate(image, arch, style, target, verbose, **kw):
    """Estimate the iteration count that gives ~target bytes of trace."""
    t1 = trace_once(image, arch, style, 1, CountingSink(), **kw)
    if t1.bytes >= target:
        if verbose and t1.bytes > 1.25 * target:
            sys.stderr.write("tracegen: note: a single iteration already gives %.2f MB; for smaller "
                             "traces use a smaller program (e.g. recursion) or --max-instructions\n"
                             % (t1.bytes / 1e6))
        return 1, t1.bytes, t1.bytes
    # Iterations differ a little in size (their data cycles with the
    # iteration number), so sample more of them for large targets, keeping
    # the calibration cost to about 1/8 of the real run.
    k = int(max(4, min(32, target / (8.0 * t1.bytes))))
    t2 = trace_once(image, arch, style, 1 + k, CountingSink(), **kw)
    per_iter = max(1.0, (t2.bytes - t1.bytes) / k)
    fixed = t1.bytes - per_iter
    n = max(1, int(round((target - fixed) / per_iter)))
    if verbose:
        sys.stderr.write("tracegen: calibration (%d+1 iterations): %.0f bytes/iteration, %.0f bytes "
                         "fixed -> %d iterations\n" % (k, per_iter, fixed, n))
    return n, per_iter, fixed


def host_check(program, iterations):
    """Run the host-native build of the workload; returns (result, status) or None."""
    exe = os.path.join(HERE, "build", "host", program)
    if not os.path.exists(exe):
        try:
            subprocess.check_call([os.path.join(HERE, "build.sh"), "host"],
                                  stdout=subprocess.DEVNULL)
        except (OSError, subprocess.CalledProcessError):
            return None
    out = subprocess.check_output([exe, str(iterations)], text=True).split()
    return int(out[0], 16), int(out[1], 16)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Generate real Arm Tarmac traces by running bare-metal programs under Unicorn.")
    ap.add_argument("--program", "-p", choices=PROGRAMS, default="quicksort")
    ap.add_argument("--arch", "-a", choices=ARCHES, default="aarch64",
                    help="aarch64, arm (A32 state; libgcc helpers run in Thumb), thumb (Thumb-2)")
    ap.add_argument("--opt", choices=OPTS, default="O2", help="which prebuilt optimisation level")
    ap.add_argument("--style", "-s", choices=STYLES, default="fastmodel")
    ap.add_argument("--elf", help="use this ELF instead of elf/<program>-<arch>-<opt>.elf")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--target-bytes", "-t", type=parse_size,
                   help="approximate trace size (e.g. 1M, 100M, 1G); picks the iteration count")
    g.add_argument("--iterations", "-n", type=int, help="workload iterations (default 1)")
    ap.add_argument("--max-instructions", type=int, help="stop after this many instructions")
    ap.add_argument("--stop-at", metavar="SYMBOL|ADDR",
                    help="stop address (default: the tg_exit symbol); the instruction there is "
                         "traced once, then the run ends")
    ap.add_argument("--el", type=int, choices=[1, 2, 3], default=3,
                    help="AArch64 exception level to run at (default 3, like the FVP samples)")
    ap.add_argument("--gem5-mr16", choices=["split", "single"], default="split",
                    help="gem5 style: how to print the 16-byte access of an LDP. 'split' (default) "
                         "prints the value as two 64-bit words, which Tarmac Trace Utilities "
                         "accepts; 'single' prints one 32-digit word like real gem5 does (the "
                         "reference parser rejects that)")
    ap.add_argument("--cpu-name", default="cpu0", help="cpu field for fastmodel-cpu/gem5 styles")
    ap.add_argument("--timer-period", type=int, default=300, metavar="N",
                    help="exceptions program: the timer interrupt fires every N instructions")
    ap.add_argument("--check", action="store_true",
                    help="compare the emulated tg_result with a host-native run of the same C code")
    ap.add_argument("--no-elf-copy", action="store_true", help="do not copy the ELF next to the output")
    ap.add_argument("--quiet", "-q", action="store_true")
    ap.add_argument("-o", "--output", help="output trace file ('-' for stdout)")
    ap.add_argument("--list", action="store_true", help="list programs/arches/styles and exit")
    args = ap.parse_args(argv)

    if args.list:
        print("programs: " + " ".join(PROGRAMS))
        print("arches:   " + " ".join(ARCHES))
        print("opts:     " + " ".join(OPTS))
        print("styles:   " + " ".join(STYLES))
        return 0
    if not args.output:
        ap.error("-o/--output is required")

    elf = args.elf or ensure_elf(args.program, args.arch, args.opt)
    image = Image(elf)
    verbose = not args.quiet

    kw = dict(el=args.el, gem5_mr16=args.gem5_mr16, cpu_name=args.cpu_name, stop_at=args.stop_at,
              timer_period=args.timer_period)
    if args.stop_at is None and "tg_exit" not in image.symbols and not args.max_instructions:
        ap.error("%s has no tg_exit symbol: give --stop-at or --max-instructions" % elf)
    if args.target_bytes:
        iterations, _, _ = calibrate(image, args.arch, args.style, args.target_bytes, verbose, **kw)
    else:
        iterations = args.iterations or 1

    if args.output == "-":
        out = sys.stdout
        close = False
    else:
        d = os.path.dirname(os.path.abspath(args.output))
        os.makedirs(d, exist_ok=True)
        out = open(args.output, "w", buffering=1 << 20, newline="\n")
        close = True
    t0 = time.time()
    try:
        t = trace_once(image, args.arch, args.style, iterations, out,
                       max_insns=args.max_instructions, progress=verbose, **kw)
    finally:
        if close:
            out.close()
    wall = time.time() - t0

    if args.output != "-" and not args.no_elf_copy:
        base, _ = os.path.splitext(args.output)
        dst = base + ".elf"
        if os.path.abspath(dst) != os.path.abspath(elf):
            shutil.copyfile(elf, dst)

    rate = t.instructions / wall if wall > 0 else 0
    if verbose:
        sys.stderr.write(
            "tracegen: %s %s/%s %s: %d iterations, %d instructions, %.2f MB in %.1f s "
            "(%.0f insn/s, %.1f MB/s); tg_result=%08x tg_status=%08x\n"
            % (args.program, args.arch, args.opt, args.style, iterations, t.instructions,
               t.bytes / 1e6, wall, rate, t.bytes / 1e6 / wall if wall else 0, t.result, t.status))
    rc = 0
    if t.status != 0:
        sys.stderr.write("tracegen: WARNING: workload self-check failed (tg_status=%08x)\n" % t.status)
        rc = 1
    if args.check and not args.max_instructions:
        ref = host_check(args.program, iterations)
        if ref is None:
            sys.stderr.write("tracegen: --check: host build unavailable\n")
        elif ref != (t.result, t.status):
            sys.stderr.write("tracegen: --check FAILED: host %08x/%08x, emulated %08x/%08x\n"
                             % (ref[0], ref[1], t.result, t.status))
            rc = 1
        elif verbose:
            sys.stderr.write("tracegen: --check OK: emulated result matches the host-native run\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
