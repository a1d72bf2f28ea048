//! A32 table: one row per instruction class, encodings from
//! `arm-none-eabi-as -march=armv7ve` and `objdump -d`, reads and writes as
//! the Arm ARM describes each class.

use super::tests_common::check;
use crate::parse::ISet;

/// (encoding, assembly, reads, writes): registers as the core names them,
/// `pc` for a pc read or write, `[mem]` for a load (reads) or store (writes).
#[rustfmt::skip]
const ROWS: &[(u32, &str, &str, &str)] = &[
    // Moves: MOVT keeps the low halfword, so reads Rd.
    (0xe3a00005, "mov r0, #5", "", "r0"),
    (0xe1a01002, "mov r1, r2", "r2", "r1"),
    (0xe1e00001, "mvn r0, r1", "r1", "r0"),
    (0xe3010234, "movw r0, #4660", "", "r0"),
    (0xe3450678, "movt r0, #22136", "r0", "r0"),
    // Data processing: immediate, register, shifted by immediate, shifted by register (reads
    // Rs); sp is r13.
    (0xe0810002, "add r0, r1, r2", "r1 r2", "r0"),
    (0xe2810004, "add r0, r1, #4", "r1", "r0"),
    (0xe0810102, "add r0, r1, r2, lsl #2", "r1 r2", "r0"),
    (0xe0810312, "add r0, r1, r2, lsl r3", "r1 r2 r3", "r0"),
    // Flag-setting forms write cpsr; ADC/SBC/RRX read C; CMP/CMN/TST/TEQ write only the flags.
    (0xe0910002, "adds r0, r1, r2", "r1 r2", "psr r0"),
    (0xe24dd008, "sub sp, sp, #8", "r13", "r13"),
    (0xe2610000, "rsb r0, r1, #0", "r1", "r0"),
    (0xe0a10002, "adc r0, r1, r2", "psr r1 r2", "r0"),
    (0xe0d10002, "sbcs r0, r1, r2", "psr r1 r2", "psr r0"),
    (0xe20100ff, "and r0, r1, #255", "r1", "r0"),
    (0xe18101e2, "orr r0, r1, r2, ror #3", "r1 r2", "r0"),
    (0xe0200231, "eor r0, r0, r1, lsr r2", "r0 r1 r2", "r0"),
    (0xe3c10001, "bic r0, r1, #1", "r1", "r0"),
    (0xe3500000, "cmp r0, #0", "r0", "psr"),
    (0xe1500141, "cmp r0, r1, asr #2", "r0 r1", "psr"),
    (0xe1700001, "cmn r0, r1", "r0 r1", "psr"),
    (0xe3100001, "tst r0, #1", "r0", "psr"),
    (0xe1300001, "teq r0, r1", "r0 r1", "psr"),
    // Shifts.
    (0xe1a00101, "lsl r0, r1, #2", "r1", "r0"),
    (0xe1a00231, "lsr r0, r1, r2", "r1 r2", "r0"),
    (0xe1b000c1, "asrs r0, r1, #1", "r1", "psr r0"),
    (0xe1a00271, "ror r0, r1, r2", "r1 r2", "r0"),
    (0xe1a00061, "rrx r0, r1", "psr r1", "r0"),
    // Conditionally executed instructions read the flags.
    (0x03a00001, "moveq r0, #1", "psr", "r0"),
    (0x10810002, "addne r0, r1, r2", "psr r1 r2", "r0"),
    (0x35910000, "ldrlo r0, [r1]", "[mem] psr r1", "r0"),
    // PC-relative addresses read the pc.
    (0xe28f0008, "add r0, pc, #8", "pc", "r0"),
    (0xe24f0008, "adr r0, . (sub r0, pc, #8)", "pc", "r0"),
    // Multiplies: MLA/MLS read Ra; UMULL writes RdLo and RdHi; UMLAL reads and writes them;
    // divides.
    (0xe0000291, "mul r0, r1, r2", "r1 r2", "r0"),
    (0xe0203291, "mla r0, r1, r2, r3", "r1 r2 r3", "r0"),
    (0xe0603291, "mls r0, r1, r2, r3", "r1 r2 r3", "r0"),
    (0xe0810392, "umull r0, r1, r2, r3", "r2 r3", "r0 r1"),
    (0xe0c10392, "smull r0, r1, r2, r3", "r2 r3", "r0 r1"),
    (0xe0a10392, "umlal r0, r1, r2, r3", "r0 r1 r2 r3", "r0 r1"),
    (0xe1600281, "smulbb r0, r1, r2", "r1 r2", "r0"),
    (0xe1003281, "smlabb r0, r1, r2, r3", "r1 r2 r3", "r0"),
    (0xe710f211, "sdiv r0, r1, r2", "r1 r2", "r0"),
    (0xe730f211, "udiv r0, r1, r2", "r1 r2", "r0"),
    // CLZ, and the media instructions (decoded by this module's fields: yaxpeax-arm 0.5 does
    // not): reverses, extends, bit-fields (BFI/BFC keep the rest, so read Rd), saturate, SEL
    // reads GE, UADD8 writes GE, SMLAD.
    (0xe16f0f11, "clz r0, r1", "r1", "r0"),
    (0xe6bf0f31, "rev r0, r1", "r1", "r0"),
    (0xe6ef3073, "uxtb r3, r3", "r3", "r3"),
    (0xe6bf0071, "sxth r0, r1", "r1", "r0"),
    (0xe6e10072, "uxtab r0, r1, r2", "r1 r2", "r0"),
    (0xe7a03050, "sbfx r3, r0, #0, #1", "r0", "r3"),
    (0xe7e70251, "ubfx r0, r1, #4, #8", "r1", "r0"),
    (0xe7cb0411, "bfi r0, r1, #8, #4", "r0 r1", "r0"),
    (0xe7c3001f, "bfc r0, #0, #4", "r0", "r0"),
    (0xe6e80011, "usat r0, #8, r1", "r1", "r0"),
    (0xe6810fb2, "sel r0, r1, r2", "psr r1 r2", "r0"),
    (0xe6510f92, "uadd8 r0, r1, r2", "r1 r2", "psr r0"),
    (0xe7003211, "smlad r0, r1, r2, r3", "r1 r2 r3", "r0"),
    // Loads: the base is read, and written back by pre-index ! and every post-index; register
    // offsets read the index; literal loads read the pc; a load to pc branches.
    (0xe5910000, "ldr r0, [r1]", "[mem] r1", "r0"),
    (0xe5910004, "ldr r0, [r1, #4]", "[mem] r1", "r0"),
    (0xe5b10004, "ldr r0, [r1, #4]!", "[mem] r1", "r0 r1"),
    (0xe4910004, "ldr r0, [r1], #4", "[mem] r1", "r0 r1"),
    (0xe7910002, "ldr r0, [r1, r2]", "[mem] r1 r2", "r0"),
    (0xe7910102, "ldr r0, [r1, r2, lsl #2]", "[mem] r1 r2", "r0"),
    (0xe6110002, "ldr r0, [r1], -r2", "[mem] r1 r2", "r0 r1"),
    (0xe59f0004, "ldr r0, [pc, #4]", "[mem] pc", "r0"),
    (0xe49df004, "pop {pc} (ldr pc, [sp], #4)", "[mem] r13", "pc r13"),
    (0xe5d10001, "ldrb r0, [r1, #1]", "[mem] r1", "r0"),
    (0xe1d100b2, "ldrh r0, [r1, #2]", "[mem] r1", "r0"),
    (0xe19100d2, "ldrsb r0, [r1, r2]", "[mem] r1 r2", "r0"),
    (0xe1c200d0, "ldrd r0, r1, [r2]", "[mem] r2", "r0 r1"),
    (0xe1e420d8, "ldrd r2, r3, [r4, #8]!", "[mem] r4", "r2 r3 r4"),
    // Stores read the stored registers and the base.
    (0xe5810000, "str r0, [r1]", "r0 r1", "[mem]"),
    (0xe52d0004, "push {r0} (str r0, [sp, #-4]!)", "r0 r13", "[mem] r13"),
    (0xe4c10001, "strb r0, [r1], #1", "r0 r1", "[mem] r1"),
    (0xe18100b2, "strh r0, [r1, r2]", "r0 r1 r2", "[mem]"),
    (0xe1c200f8, "strd r0, r1, [r2, #8]", "r0 r1 r2", "[mem]"),
    // Exclusives (STREX writes its status register), SWP.
    (0xe1910f9f, "ldrex r0, [r1]", "[mem] r1", "r0"),
    (0xe1812f90, "strex r2, r0, [r1]", "r0 r1", "[mem] r2"),
    (0xe1020091, "swp r0, r1, [r2]", "[mem] r1 r2", "[mem] r0"),
    // Load/store multiple: the list is written (LDM, POP) or read (STM, PUSH); PUSH and POP
    // read and write sp.
    (0xe890000e, "ldm r0, {r1, r2, r3}", "[mem] r0", "r1 r2 r3"),
    (0xe8b00006, "ldm r0!, {r1, r2}", "[mem] r0", "r0 r1 r2"),
    (0xe92d4010, "push {r4, lr}", "r13 r14 r4", "[mem] r13"),
    (0xe92d4070, "push {r4, r5, r6, lr}", "r13 r14 r4 r5 r6", "[mem] r13"),
    (0xe8bd8070, "pop {r4, r5, r6, pc}", "[mem] r13", "pc r13 r4 r5 r6"),
    (0xe49d0004, "pop {r0} (ldr r0, [sp], #4)", "[mem] r13", "r0 r13"),
    // Branches: BL/BLX write lr with the return address; BX/BLX (register) read their
    // register; B<cond> reads the flags.
    (0xeafffffe, "b .", "", "pc"),
    (0xebfffffe, "bl .", "pc", "pc r14"),
    (0xfafffffe, "blx .", "pc", "pc r14"),
    (0xe12fff33, "blx r3", "pc r3", "pc r14"),
    (0xe12fff1e, "bx lr", "r14", "pc"),
    (0x1afffffe, "bne .", "psr", "pc"),
    // Status and coprocessor registers: MRS reads cpsr, MSR writes it; MCR reads Rt, MRC
    // writes it.
    (0xe10f0000, "mrs r0, CPSR", "psr", "r0"),
    (0xe128f000, "msr CPSR_f, r0", "r0", "psr"),
    (0xe321f013, "msr CPSR_c, #19", "", "psr"),
    (0xee070f15, "mcr 15, 0, r0, cr7, cr5, {0}", "r0", ""),
    (0xee110f10, "mrc 15, 0, r0, cr1, cr0, {0}", "", "r0"),
    // Exceptions, hints, barriers, preload (reads its address).
    (0xef000000, "svc 0x00000000", "", ""),
    (0xe320f000, "nop {0}", "", ""),
    (0xf57ff05b, "dmb ish", "", ""),
    (0xe1200070, "bkpt 0x0000", "", ""),
    (0xf5d0f020, "pld [r0, #32]", "r0", ""),
    // VFP (decoded by this module's fields): loads/stores, VPUSH/VPOP, moves between core and
    // FP registers, arithmetic (VMLA/VFMA read Dd), compares write FPSCR, VMRS APSR_nzcv
    // writes the flags, conversions, scalar lanes.
    (0xed900b00, "vldr d0, [r0]", "[mem] r0", "d0"),
    (0xed911a02, "vldr s2, [r1, #8]", "[mem] r1", "s2"),
    (0xed0d1b02, "vstr d1, [sp, #-8]", "d1 r13", "[mem]"),
    (0xecb00b08, "vldmia r0!, {d0-d3}", "[mem] r0", "d0 d1 d2 d3 r0"),
    (0xed2d8b04, "vpush {d8-d9}", "d8 d9 r13", "[mem] r13"),
    (0xecbd8a02, "vpop {s16-s17}", "[mem] r13", "r13 s16 s17"),
    (0xee001a10, "vmov s0, r1", "r1", "s0"),
    (0xee100a90, "vmov r0, s1", "s1", "r0"),
    (0xec410b10, "vmov d0, r0, r1", "r0 r1", "d0"),
    (0xec532b11, "vmov r2, r3, d1", "d1", "r2 r3"),
    (0xeeb00a60, "vmov.f32 s0, s1", "s1", "s0"),
    (0xeeb70b00, "vmov.f64 d0, #112", "", "d0"),
    (0xee300a81, "vadd.f32 s0, s1, s2", "s1 s2", "s0"),
    (0xee310b02, "vadd.f64 d0, d1, d2", "d1 d2", "d0"),
    (0xee610ba2, "vmul.f64 d16, d17, d18", "d17 d18", "d16"),
    (0xee000a81, "vmla.f32 s0, s1, s2", "s0 s1 s2", "s0"),
    (0xeea10b02, "vfma.f64 d0, d1, d2", "d0 d1 d2", "d0"),
    (0xee810b02, "vdiv.f64 d0, d1, d2", "d1 d2", "d0"),
    (0xeeb10ae0, "vsqrt.f32 s0, s1", "s1", "s0"),
    (0xeeb40b41, "vcmp.f64 d0, d1", "d0 d1", "fpscr"),
    (0xeeb50ac0, "vcmpe.f32 s0, #0.0", "s0", "fpscr"),
    (0xeef1fa10, "vmrs APSR_nzcv, fpscr", "fpscr", "psr"),
    (0xeef10a10, "vmrs r0, fpscr", "fpscr", "r0"),
    (0xeee10a10, "vmsr fpscr, r0", "r0", "fpscr"),
    (0xeeb70ae0, "vcvt.f64.f32 d0, s1", "s1", "d0"),
    (0xeebd0bc1, "vcvt.s32.f64 s0, d1", "d1", "s0"),
    (0xeeb80a60, "vcvt.f32.u32 s0, s1", "s1", "s0"),
    (0xee200b10, "vmov.32 d0[1], r0", "d0 r0", "d0"),
    (0xee110b10, "vmov.32 r0, d1[0]", "d1", "r0"),
    (0x0e300a81, "vaddeq.f32 s0, s1, s2", "psr s1 s2", "s0"),
];

#[test]
fn a32_table() {
    check(ISet::Arm, 4, ROWS);
}
