//! T32 tables, 16-bit and 32-bit encodings: one row per instruction class,
//! encodings from `arm-none-eabi-as -mthumb` and `objdump -d` (a 32-bit
//! encoding with its first halfword high, as traces print it), reads and
//! writes as the Arm ARM describes each class.

use super::tests_common::check;
use crate::parse::ISet;

/// (encoding, assembly, reads, writes): registers as the core names them,
/// `pc` for a pc read or write, `[mem]` for a load (reads) or store (writes).
#[rustfmt::skip]
const ROWS_16: &[(u32, &str, &str, &str)] = &[
    // Moves; outside an IT block the 16-bit forms set the flags (MOV of a high register does
    // not).
    (0x2005, "movs r0, #5", "", "psr r0"),
    (0x4611, "mov r1, r2", "r2", "r1"),
    (0x4680, "mov r8, r0", "r0", "r8"),
    // Add/subtract, including the two-operand forms that read Rdn, and sp/pc-relative ADD.
    (0x1888, "adds r0, r1, r2", "r1 r2", "psr r0"),
    (0x3001, "adds r0, #1", "r0", "psr r0"),
    (0x4440, "add r0, r8", "r0 r8", "r0"),
    (0xb002, "add sp, #8", "r13", "r13"),
    (0xb082, "sub sp, #8", "r13", "r13"),
    (0xa801, "add r0, sp, #4", "r13", "r0"),
    (0xa001, "add r0, pc, #4", "pc", "r0"),
    (0x1e48, "subs r0, r1, #1", "r1", "psr r0"),
    // Compare and test write only the flags.
    (0x2804, "cmp r0, #4", "r0", "psr"),
    (0x4288, "cmp r0, r1", "r0 r1", "psr"),
    (0x42c8, "cmn r0, r1", "r0 r1", "psr"),
    (0x4208, "tst r0, r1", "r0 r1", "psr"),
    // ALU operations on Rdn: read Rdn and Rm, write Rdn; ADCS/SBCS read C; NEGS is RSBS #0.
    (0x4008, "ands r0, r1", "r0 r1", "psr r0"),
    (0x4048, "eors r0, r1", "r0 r1", "psr r0"),
    (0x4308, "orrs r0, r1", "r0 r1", "psr r0"),
    (0x4388, "bics r0, r1", "r0 r1", "psr r0"),
    (0x43c8, "mvns r0, r1", "r1", "psr r0"),
    (0x4148, "adcs r0, r1", "psr r0 r1", "psr r0"),
    (0x4188, "sbcs r0, r1", "psr r0 r1", "psr r0"),
    (0x4248, "negs r0, r1", "r1", "psr r0"),
    (0x0088, "lsls r0, r1, #2", "r1", "psr r0"),
    (0x40c8, "lsrs r0, r1", "r0 r1", "psr r0"),
    (0x10c8, "asrs r0, r1, #3", "r1", "psr r0"),
    (0x41c8, "rors r0, r1", "r0 r1", "psr r0"),
    (0x4348, "muls r0, r1", "r0 r1", "psr r0"),
    // Extends and reverses.
    (0xb2c8, "uxtb r0, r1", "r1", "r0"),
    (0xb208, "sxth r0, r1", "r1", "r0"),
    (0xba08, "rev r0, r1", "r1", "r0"),
    // Loads: immediate, register, sp-relative and literal (reads the pc).
    (0x6808, "ldr r0, [r1, #0]", "[mem] r1", "r0"),
    (0x6848, "ldr r0, [r1, #4]", "[mem] r1", "r0"),
    (0x5888, "ldr r0, [r1, r2]", "[mem] r1 r2", "r0"),
    (0x9802, "ldr r0, [sp, #8]", "[mem] r13", "r0"),
    (0x4801, "ldr r0, [pc, #4]", "[mem] pc", "r0"),
    (0x7848, "ldrb r0, [r1, #1]", "[mem] r1", "r0"),
    (0x5a88, "ldrh r0, [r1, r2]", "[mem] r1 r2", "r0"),
    (0x5688, "ldrsb r0, [r1, r2]", "[mem] r1 r2", "r0"),
    // Stores.
    (0x6008, "str r0, [r1, #0]", "r0 r1", "[mem]"),
    (0x9001, "str r0, [sp, #4]", "r0 r13", "[mem]"),
    (0x5488, "strb r0, [r1, r2]", "r0 r1 r2", "[mem]"),
    (0x8048, "strh r0, [r1, #2]", "r0 r1", "[mem]"),
    // LDM/STM: writeback unless the base is in an LDM's list; PUSH/POP read and write sp.
    (0xc806, "ldmia r0!, {r1, r2}", "[mem] r0", "r0 r1 r2"),
    (0xc803, "ldmia r0, {r0, r1}", "[mem] r0", "r0 r1"),
    (0xc006, "stmia r0!, {r1, r2}", "r0 r1 r2", "[mem] r0"),
    (0xb510, "push {r4, lr}", "r13 r14 r4", "[mem] r13"),
    (0xbd10, "pop {r4, pc}", "[mem] r13", "pc r13 r4"),
    (0xb401, "push {r0}", "r0 r13", "[mem] r13"),
    // Branches: B<cond> reads the flags; BX/BLX/CBZ read their register.
    (0xe7fe, "b.n .", "", "pc"),
    (0xd0fe, "beq.n .", "psr", "pc"),
    (0x4770, "bx lr", "r14", "pc"),
    (0x4798, "blx r3", "pc r3", "pc r14"),
    (0xb100, "cbz r0, .", "r0", "pc"),
    // Hints, IT and exceptions: no registers. MOVEQ in an IT block is MOVS's encoding, decoded
    // as outside one.
    (0xbf00, "nop", "", ""),
    (0xbf08, "it eq", "", ""),
    (0x2001, "moveq r0, #1", "", "psr r0"),
    (0xdf00, "svc 0", "", ""),
    (0xbf00, "nop", "", ""),
    (0xbe00, "bkpt 0x0000", "", ""),
    (0xb672, "cpsid i", "", ""),
];

#[test]
fn t32_16bit_table() {
    check(ISet::Thumb, 2, ROWS_16);
}

/// (encoding, assembly, reads, writes): registers as the core names them,
/// `pc` for a pc read or write, `[mem]` for a load (reads) or store (writes).
#[rustfmt::skip]
const ROWS_32: &[(u32, &str, &str, &str)] = &[
    // Moves: MOVT keeps the low halfword, so reads Rd.
    (0xf04f0005, "mov.w r0, #5", "", "r0"),
    (0xf2412034, "movw r0, #4660", "", "r0"),
    (0xf2c56078, "movt r0, #22136", "r0", "r0"),
    // Data processing: register, shifted register, modified immediate, plain 12-bit immediate;
    // flag-setting forms write cpsr; ADC/SBC read C.
    (0xeb010002, "add.w r0, r1, r2", "r1 r2", "r0"),
    (0xeb010082, "add.w r0, r1, r2, lsl #2", "r1 r2", "r0"),
    (0xf1110004, "adds.w r0, r1, #4", "r1", "psr r0"),
    (0xf60170ff, "addw r0, r1, #4095", "r1", "r0"),
    (0xf5ad7d80, "sub.w sp, sp, #256", "r13", "r13"),
    (0xeb710002, "sbcs.w r0, r1, r2", "psr r1 r2", "psr r0"),
    (0xeb410002, "adc.w r0, r1, r2", "psr r1 r2", "r0"),
    (0xf00100ff, "and.w r0, r1, #255", "r1", "r0"),
    (0xea4100f2, "orr.w r0, r1, r2, ror #3", "r1 r2", "r0"),
    (0xea810002, "eor.w r0, r1, r2", "r1 r2", "r0"),
    // Compare and test write only the flags.
    (0xf0100f01, "tst.w r0, #1", "r0", "psr"),
    (0xebb00f01, "cmp.w r0, r1", "r0 r1", "psr"),
    (0xf1100f01, "cmn.w r0, #1", "r0", "psr"),
    // Shifts (MOV with a shift is the immediate form).
    (0xfa01f002, "lsl.w r0, r1, r2", "r1 r2", "r0"),
    (0xea4f00d1, "mov.w r0, r1, lsr #3", "r1", "r0"),
    (0xfa61f002, "ror.w r0, r1, r2", "r1 r2", "r0"),
    (0xea6f0001, "mvn.w r0, r1", "r1", "r0"),
    // Multiplies and divides: MLA/MLS read Ra; UMULL writes RdLo and RdHi; SMLAL reads and
    // writes them.
    (0xfb01f002, "mul.w r0, r1, r2", "r1 r2", "r0"),
    (0xfb013002, "mla r0, r1, r2, r3", "r1 r2 r3", "r0"),
    (0xfb013012, "mls r0, r1, r2, r3", "r1 r2 r3", "r0"),
    (0xfba20103, "umull r0, r1, r2, r3", "r2 r3", "r0 r1"),
    (0xfbc20103, "smlal r0, r1, r2, r3", "r0 r1 r2 r3", "r0 r1"),
    (0xfb91f0f2, "sdiv r0, r1, r2", "r1 r2", "r0"),
    (0xfbb1f0f2, "udiv r0, r1, r2", "r1 r2", "r0"),
    // Bit operations, extends, bit-fields (BFI/BFC keep the rest, so read Rd), SEL reads GE.
    (0xfab1f081, "clz r0, r1", "r1", "r0"),
    (0xfa91f0a1, "rbit r0, r1", "r1", "r0"),
    (0xfa5ff081, "uxtb.w r0, r1", "r1", "r0"),
    (0xfa01f082, "sxtah r0, r1, r2", "r1 r2", "r0"),
    (0xf3410007, "sbfx r0, r1, #0, #8", "r1", "r0"),
    (0xf3c11003, "ubfx r0, r1, #4, #4", "r1", "r0"),
    (0xf361200b, "bfi r0, r1, #8, #4", "r0 r1", "r0"),
    (0xf36f0003, "bfc r0, #0, #4", "r0", "r0"),
    (0xfaa1f082, "sel r0, r1, r2", "psr r1 r2", "r0"),
    // Loads: the base is read, and written back by pre-index ! and post-index; literal loads
    // read the pc; LDRD writes two.
    (0xf8d10004, "ldr.w r0, [r1, #4]", "[mem] r1", "r0"),
    (0xf8510c04, "ldr.w r0, [r1, #-4]", "[mem] r1", "r0"),
    (0xf8510f04, "ldr.w r0, [r1, #4]!", "[mem] r1", "r0 r1"),
    (0xf8510b04, "ldr.w r0, [r1], #4", "[mem] r1", "r0 r1"),
    (0xf8510022, "ldr.w r0, [r1, r2, lsl #2]", "[mem] r1 r2", "r0"),
    (0xf8df0008, "ldr.w r0, [pc, #8]", "[mem] pc", "r0"),
    (0xf8910001, "ldrb.w r0, [r1, #1]", "[mem] r1", "r0"),
    (0xf9b10002, "ldrsh.w r0, [r1, #2]", "[mem] r1", "r0"),
    (0xe9d20102, "ldrd r0, r1, [r2, #8]", "[mem] r2", "r0 r1"),
    (0xe8f20102, "ldrd r0, r1, [r2], #8", "[mem] r2", "r0 r1 r2"),
    // Stores.
    (0xf8c10004, "str.w r0, [r1, #4]", "r0 r1", "[mem]"),
    (0xf84d0d04, "str.w r0, [sp, #-4]!", "r0 r13", "[mem] r13"),
    (0xe96d0102, "strd r0, r1, [sp, #-8]!", "r0 r1 r13", "[mem] r13"),
    (0xf8010002, "strb.w r0, [r1, r2]", "r0 r1 r2", "[mem]"),
    // Exclusives: STREX writes its status register.
    (0xe8510f00, "ldrex r0, [r1]", "[mem] r1", "r0"),
    (0xe8410200, "strex r2, r0, [r1]", "r0 r1", "[mem] r2"),
    // LDM/STM, PUSH/POP; a load to pc branches.
    (0xe8b0000e, "ldmia.w r0!, {r1, r2, r3}", "[mem] r0", "r0 r1 r2 r3"),
    (0xe92d4070, "stmdb sp!, {r4, r5, r6, lr}", "r13 r14 r4 r5 r6", "[mem] r13"),
    (0xe92d4ff0, "stmdb sp!, {r4, r5, r6, r7, r8, r9, sl, fp, lr}", "r10 r11 r13 r14 r4 r5 r6 r7 r8 r9", "[mem] r13"),
    (0xe8bd8ff0, "ldmia.w sp!, {r4, r5, r6, r7, r8, r9, sl, fp, pc}", "[mem] r13", "pc r10 r11 r13 r4 r5 r6 r7 r8 r9"),
    (0xf85dfb04, "ldr.w pc, [sp], #4", "[mem] r13", "pc r13"),
    // Table branches load an offset and branch.
    (0xe8d0f001, "tbb [r0, r1]", "[mem] r0 r1", "pc"),
    (0xe8dff011, "tbh [pc, r1, lsl #1]", "[mem] pc r1", "pc"),
    // Branches: BL/BLX write lr with the return address; B<cond> reads the flags.
    (0xf7ffbffe, "b.w .", "", "pc"),
    (0xf47faffe, "bne.w .", "psr", "pc"),
    (0xf7fffffe, "bl .", "pc", "pc r14"),
    (0xf7ffeffe, "blx .", "pc", "pc r14"),
    // Status registers, barriers, hints, preload; MRC writes Rt (decoded by this module's
    // fields: yaxpeax-arm 0.5 does not in T32).
    (0xf3ef8000, "mrs r0, CPSR", "psr", "r0"),
    (0xf3808800, "msr CPSR_f, r0", "r0", "psr"),
    (0xf3bf8f5b, "dmb ish", "", ""),
    (0xf3bf8f6f, "isb sy", "", ""),
    (0xf3af8000, "nop.w", "", ""),
    (0xf890f008, "pld [r0, #8]", "r0", ""),
    (0xee1d0f70, "mrc 15, 0, r0, cr13, cr0, {3}", "", "r0"),
    // VFP (decoded by this module's fields).
    (0xed900b00, "vldr d0, [r0]", "[mem] r0", "d0"),
    (0xed8d0a01, "vstr s0, [sp, #4]", "r13 s0", "[mem]"),
    (0xed2d8b04, "vpush {d8-d9}", "d8 d9 r13", "[mem] r13"),
    (0xecbd8b04, "vpop {d8-d9}", "[mem] r13", "d8 d9 r13"),
    (0xee001a10, "vmov s0, r1", "r1", "s0"),
    (0xec510b12, "vmov r0, r1, d2", "d2", "r0 r1"),
    (0xee310b02, "vadd.f64 d0, d1, d2", "d1 d2", "d0"),
    (0xee200a81, "vmul.f32 s0, s1, s2", "s1 s2", "s0"),
    (0xee010b02, "vmla.f64 d0, d1, d2", "d0 d1 d2", "d0"),
    (0xeeb50bc0, "vcmpe.f64 d0, #0.0", "d0", "fpscr"),
    (0xeef1fa10, "vmrs APSR_nzcv, fpscr", "fpscr", "psr"),
    (0xeebd0ac0, "vcvt.s32.f32 s0, s0", "s0", "s0"),
    (0xeeb10b41, "vneg.f64 d0, d1", "d1", "d0"),
];

#[test]
fn t32_32bit_table() {
    check(ISet::Thumb, 4, ROWS_32);
}
