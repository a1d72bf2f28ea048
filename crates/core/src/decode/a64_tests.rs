//! A64 table: one row per instruction class, encodings from
//! `aarch64-linux-gnu-as -march=armv8.2-a` and `objdump -d`, reads and writes
//! as the Arm ARM describes each class.

use super::tests_common::check;
use crate::parse::ISet;

/// (encoding, assembly, reads, writes): registers as the core names them,
/// `pc` for a pc read or write, `[mem]` for a load (reads) or store (writes).
#[rustfmt::skip]
const ROWS: &[(u32, &str, &str, &str)] = &[
    // Move wide: MOVZ/MOVN write Rd from an immediate; MOVK keeps the other halfwords, so
    // reads Rd.
    (0xd28000a0, "mov x0, #0x5", "", "x0"),
    (0x52a24681, "mov w1, #0x12340000", "", "x1"),
    (0xf2b7dde2, "movk x2, #0xbeef, lsl #16", "x2", "x2"),
    (0x92800003, "mov x3, #0xffffffffffffffff", "", "x3"),
    // Add/subtract (immediate, shifted and extended register); register 31 is sp for the
    // immediate forms; the W views are the X registers.
    (0x91004020, "add x0, x1, #0x10", "x1", "x0"),
    (0x910043e0, "add x0, sp, #0x10", "xsp", "x0"),
    (0x910083ff, "add sp, sp, #0x20", "xsp", "xsp"),
    (0x0b020020, "add w0, w1, w2", "x1 x2", "x0"),
    (0x8b020c20, "add x0, x1, x2, lsl #3", "x1 x2", "x0"),
    (0x8b224820, "add x0, x1, w2, uxtw #2", "x1 x2", "x0"),
    // Flag-setting forms write NZCV; CMP/CMN/TST write only the flags (Rd is the zero
    // register).
    (0xab020020, "adds x0, x1, x2", "x1 x2", "psr x0"),
    (0xcb050083, "sub x3, x4, x5", "x4 x5", "x3"),
    (0x71000420, "subs w0, w1, #0x1", "x1", "psr x0"),
    (0xf100101f, "cmp x0, #0x4", "x0", "psr"),
    (0xeb01001f, "cmp x0, x1", "x0 x1", "psr"),
    (0x3100045f, "cmn w2, #0x1", "x2", "psr"),
    (0xf2401c7f, "tst x3, #0xff", "x3", "psr"),
    // Logical and moves; the zero register is never read or written.
    (0xcb0103e0, "neg x0, x1", "x1", "x0"),
    (0x8a020020, "and x0, x1, x2", "x1 x2", "x0"),
    (0x2a0103e0, "mov w0, w1", "x1", "x0"),
    (0xaa0103e0, "mov x0, x1", "x1", "x0"),
    (0x910003e0, "mov x0, sp", "xsp", "x0"),
    (0xcac21c20, "eor x0, x1, x2, ror #7", "x1 x2", "x0"),
    (0x8a220020, "bic x0, x1, x2", "x1 x2", "x0"),
    // Add/subtract with carry read C.
    (0x9a020020, "adc x0, x1, x2", "psr x1 x2", "x0"),
    (0x7a020020, "sbcs w0, w1, w2", "psr x1 x2", "psr x0"),
    // Conditional select and conditional compare read NZCV.
    (0x9a820020, "csel x0, x1, x2, eq", "psr x1 x2", "x0"),
    (0x1a821420, "csinc w0, w1, w2, ne", "psr x1 x2", "x0"),
    (0x1a9fa7e0, "cset w0, lt", "psr", "x0"),
    (0xda9f83e0, "csetm x0, ls", "psr", "x0"),
    (0xfa411004, "ccmp x0, x1, #0x4, ne", "psr x0 x1", "psr"),
    // Shifts, bitfield moves (BFI/BFXIL keep the bits outside the field, so read Rd), extends.
    (0xd37df020, "lsl x0, x1, #3", "x1", "x0"),
    (0x1ac22420, "lsr w0, w1, w2", "x1 x2", "x0"),
    (0x937ffc20, "asr x0, x1, #63", "x1", "x0"),
    (0x93442c20, "sbfx x0, x1, #4, #8", "x1", "x0"),
    (0x53010c20, "ubfx w0, w1, #1, #3", "x1", "x0"),
    (0xb3780c20, "bfi x0, x1, #8, #4", "x0 x1", "x0"),
    (0x33001c20, "bfxil w0, w1, #0, #8", "x0 x1", "x0"),
    (0x93407c20, "sxtw x0, w1", "x1", "x0"),
    (0x53001c20, "uxtb w0, w1", "x1", "x0"),
    (0x93c24020, "extr x0, x1, x2, #16", "x1 x2", "x0"),
    (0xdac01020, "clz x0, x1", "x1", "x0"),
    (0x5ac00820, "rev w0, w1", "x1", "x0"),
    // Multiply and divide: MADD/MSUB/SMADDL read the accumulator Ra.
    (0x9b027c20, "mul x0, x1, x2", "x1 x2", "x0"),
    (0x9b020c20, "madd x0, x1, x2, x3", "x1 x2 x3", "x0"),
    (0x1b028c20, "msub w0, w1, w2, w3", "x1 x2 x3", "x0"),
    (0x9ba27c20, "umull x0, w1, w2", "x1 x2", "x0"),
    (0x9b220c20, "smaddl x0, w1, w2, x3", "x1 x2 x3", "x0"),
    (0x9bc27c20, "umulh x0, x1, x2", "x1 x2", "x0"),
    (0x9ac20820, "udiv x0, x1, x2", "x1 x2", "x0"),
    // PC-relative addresses read the pc.
    (0x10000000, "adr x0, .", "pc", "x0"),
    (0x90000001, "adrp x1, .", "pc", "x1"),
    // Loads: the base is read, and written back by pre- and post-index; register offsets read
    // the index; literal loads read the pc.
    (0xf9400020, "ldr x0, [x1]", "[mem] x1", "x0"),
    (0xb9400820, "ldr w0, [x1, #8]", "[mem] x1", "x0"),
    (0xf9400be0, "ldr x0, [sp, #16]", "[mem] xsp", "x0"),
    (0xf8408c20, "ldr x0, [x1, #8]!", "[mem] x1", "x0 x1"),
    (0xf8408420, "ldr x0, [x1], #8", "[mem] x1", "x0 x1"),
    (0xf8627820, "ldr x0, [x1, x2, lsl #3]", "[mem] x1 x2", "x0"),
    (0xb862c820, "ldr w0, [x1, w2, sxtw]", "[mem] x1 x2", "x0"),
    (0x39400420, "ldrb w0, [x1, #1]", "[mem] x1", "x0"),
    (0x79800020, "ldrsh x0, [x1]", "[mem] x1", "x0"),
    (0xb9800420, "ldrsw x0, [x1, #4]", "[mem] x1", "x0"),
    (0xf85f8020, "ldur x0, [x1, #-8]", "[mem] x1", "x0"),
    (0x58000000, "ldr x0, <literal>", "[mem] pc", "x0"),
    (0x9c000000, "ldr q0, <literal>", "[mem] pc", "v0"),
    // Stores read the stored register and the base; STR XZR stores zero.
    (0xf9000020, "str x0, [x1]", "x0 x1", "[mem]"),
    (0xb90007e0, "str w0, [sp, #4]", "x0 xsp", "[mem]"),
    (0xf8010c20, "str x0, [x1, #16]!", "x0 x1", "[mem] x1"),
    (0x38001420, "strb w0, [x1], #1", "x0 x1", "[mem] x1"),
    (0xf900003f, "str xzr, [x1]", "x1", "[mem]"),
    (0xb81fc3a0, "stur w0, [x29, #-4]", "x0 x29", "[mem]"),
    // Load/store pair.
    (0xa8c17bfd, "ldp x29, x30, [sp], #16", "[mem] xsp", "x29 x30 xsp"),
    (0xa9410440, "ldp x0, x1, [x2, #16]", "[mem] x2", "x0 x1"),
    (0xa9bf7bfd, "stp x29, x30, [sp, #-16]!", "x29 x30 xsp", "[mem] xsp"),
    (0x29000440, "stp w0, w1, [x2]", "x0 x1 x2", "[mem]"),
    // Exclusives (STXR writes its status register), acquire/release, atomics: LDADD/SWP read
    // Rs and write Rt; CAS reads Rs and Rt and writes Rs.
    (0xc85f7c20, "ldxr x0, [x1]", "[mem] x1", "x0"),
    (0xc8027c20, "stxr w2, x0, [x1]", "x0 x1", "[mem] x2"),
    (0x88dffc20, "ldar w0, [x1]", "[mem] x1", "x0"),
    (0xc89ffc20, "stlr x0, [x1]", "x0 x1", "[mem]"),
    (0xf8200041, "ldadd x0, x1, [x2]", "[mem] x0 x2", "[mem] x1"),
    (0xb8208041, "swp w0, w1, [x2]", "[mem] x0 x2", "[mem] x1"),
    (0xc8a07c41, "cas x0, x1, [x2]", "[mem] x0 x1 x2", "[mem] x0"),
    // Prefetch reads only its address.
    (0xf9800000, "prfm pldl1keep, [x0]", "x0", ""),
    // Branches: BL/BLR write x30 with pc + 4; B.cond reads NZCV; CBZ/TBZ/BR/RET read their
    // register.
    (0x14000000, "b .", "", "pc"),
    (0x94000000, "bl .", "pc", "pc x30"),
    (0x54000001, "b.ne .", "psr", "pc"),
    (0xb4000000, "cbz x0, .", "x0", "pc"),
    (0x35000001, "cbnz w1, .", "x1", "pc"),
    (0x36180000, "tbz w0, #3, .", "x0", "pc"),
    (0xb7400001, "tbnz x1, #40, .", "x1", "pc"),
    (0xd61f0200, "br x16", "x16", "pc"),
    (0xd63f0100, "blr x8", "pc x8", "pc x30"),
    (0xd65f03c0, "ret", "x30", "pc"),
    (0xd65f0020, "ret x1", "x1", "pc"),
    // Exceptions, hints and barriers: no registers.
    (0xd4000001, "svc #0x0", "", ""),
    (0xd4000002, "hvc #0x0", "", ""),
    (0xd503201f, "nop", "", ""),
    (0xd5033fdf, "isb", "", ""),
    (0xd5033bbf, "dmb ish", "", ""),
    // System registers: NZCV, FPCR and FPSR are modelled, others (TPIDR_EL0) not; DC ZVA reads
    // its address.
    (0xd53b4200, "mrs x0, nzcv", "psr", "x0"),
    (0xd51b4201, "msr nzcv, x1", "x1", "psr"),
    (0xd53b4400, "mrs x0, fpcr", "fpcr", "x0"),
    (0xd51b4422, "msr fpsr, x2", "x2", "fpsr"),
    (0xd53bd040, "mrs x0, tpidr_el0", "", "x0"),
    (0xd5181040, "msr cpacr_el1, x0", "x0", ""),
    (0xd5381040, "mrs x0, cpacr_el1", "", "x0"),
    (0xd50342df, "msr daifset, #0x2", "", ""),
    (0xd50b7420, "dc zva, x0", "x0", ""),
    // SIMD/FP moves and arithmetic: every view of register n is vN; writing one lane keeps the
    // others, so reads the register; FMLA accumulates; FCMP writes NZCV, FCSEL reads it.
    (0x9e670020, "fmov d0, x1", "x1", "v0"),
    (0x9e660001, "fmov x1, d0", "v0", "x1"),
    (0x1e2e1000, "fmov s0, #1.000000000000000000e+00", "", "v0"),
    (0x1e604041, "fmov d1, d2", "v2", "v1"),
    (0x9eaf0060, "fmov v0.d[1], x3", "v0 x3", "v0"),
    (0x1e622820, "fadd d0, d1, d2", "v1 v2", "v0"),
    (0x1e222820, "fadd s0, s1, s2", "v1 v2", "v0"),
    (0x6e22dc20, "fmul v0.4s, v1.4s, v2.4s", "v1 v2", "v0"),
    (0x1f420c20, "fmadd d0, d1, d2, d3", "v1 v2 v3", "v0"),
    (0x4e22cc20, "fmla v0.4s, v1.4s, v2.4s", "v0 v1 v2", "v0"),
    (0x1e612000, "fcmp d0, d1", "v0 v1", "psr"),
    (0x1e202008, "fcmp s0, #0.0", "v0", "psr"),
    (0x1e62cc20, "fcsel d0, d1, d2, gt", "psr v1 v2", "v0"),
    (0x1e780020, "fcvtzs w0, d1", "v1", "x0"),
    (0x9e620020, "scvtf d0, x1", "x1", "v0"),
    // SIMD/FP loads and stores, structure loads (a single lane keeps the other lanes).
    (0x3dc00000, "ldr q0, [x0]", "[mem] x0", "v0"),
    (0xfd400421, "ldr d1, [x1, #8]", "[mem] x1", "v1"),
    (0xbd4003e2, "ldr s2, [sp]", "[mem] xsp", "v2"),
    (0x3c810c00, "str q0, [x0, #16]!", "v0 x0", "[mem] x0"),
    (0xad400400, "ldp q0, q1, [x0]", "[mem] x0", "v0 v1"),
    (0x6dbf27e8, "stp d8, d9, [sp, #-16]!", "v8 v9 xsp", "[mem] xsp"),
    (0x4cdfa000, "ld1 {v0.16b, v1.16b}, [x0], #32", "[mem] x0", "v0 v1 x0"),
    (0x4c007820, "st1 {v0.4s}, [x1]", "v0 x1", "[mem]"),
    (0x0d409000, "ld1 {v0.s}[1], [x0]", "[mem] v0 x0", "v0"),
    // Vector data processing: ORR (immediate) and BSL read their destination; lane moves.
    (0x6f00e400, "movi v0.2d, #0x0", "", "v0"),
    (0x4f001420, "orr v0.4s, #0x1", "v0", "v0"),
    (0x4ea11c20, "mov v0.16b, v1.16b", "v1", "v0"),
    (0x4ea28420, "add v0.4s, v1.4s, v2.4s", "v1 v2", "v0"),
    (0x6e228c20, "cmeq v0.16b, v1.16b, v2.16b", "v1 v2", "v0"),
    (0x6e621c20, "bsl v0.16b, v1.16b, v2.16b", "v0 v1 v2", "v0"),
    (0x6f7d0420, "ushr v0.2d, v1.2d, #3", "v1", "v0"),
    (0x4e040c20, "dup v0.4s, w1", "x1", "v0"),
    (0x0e143c20, "mov w0, v1.s[2]", "v1", "x0"),
    (0x4e0c1c20, "mov v0.s[1], w1", "v0 x1", "v0"),
    (0x4eb1b820, "addv s0, v1.4s", "v1", "v0"),
];

#[test]
fn a64_table() {
    check(ISet::A64, 4, ROWS);
}
