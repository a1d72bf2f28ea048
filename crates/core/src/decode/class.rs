//! What kind of work an instruction does, for the instruction mix, and
//! what it does to the flow of control, for branch and loop statistics.
//!
//! As for operands, the encoding is the truth: `yaxpeax-arm` names the
//! opcode and this module puts it in a class. The encodings it leaves
//! undecoded are placed by their encoding space: AArch32 floating point
//! (coprocessors 10 and 11) and Advanced SIMD, A32 media instructions,
//! hints, barriers and preloads, T32 coprocessor moves, and A64's SVE
//! and SME spaces. Whatever is left is [`InsnClass::Undecoded`], counted,
//! never guessed.
//!
//! Choices a reader of the mix needs: a memory access is a load or a store
//! whatever registers it moves (`LDR q0`, `LD1`, `VLDR` are loads); an
//! atomic read-modify-write and a swap are loads; a prefetch is a hint,
//! and so is `IT`; a move or compare to the pc is a branch; the exception
//! returns (`ERET`, `SUBS pc, lr`, `LDM ...^` with the pc, `RFE`) are in
//! the exception class with `SVC`, `HVC`, `SMC`, `BRK`, `HLT`, `BKPT` and
//! `UDF`; floating point on vectors is SIMD, on scalars floating point.

use serde::{Deserialize, Serialize};
use yaxpeax_arm::armv7::{Instruction as A32Inst, Opcode as A32Op, Operand as A32Operand};
use yaxpeax_arm::armv8::a64::{Instruction as A64Inst, Opcode as A64Op, Operand as A64Operand};

use super::{a32, a64, bits};
use crate::parse::ISet;

/// The classes of the instruction mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum InsnClass {
    /// Reads memory (loads, atomics, swaps, load-exclusive).
    Load,
    /// Writes memory (stores, store-exclusive, `PUSH`).
    Store,
    /// Changes the flow of control (branches, calls, returns, table
    /// branches, moves to the pc).
    Branch,
    /// Integer data processing: arithmetic, logic, moves, shifts,
    /// compares, bit fields, address generation.
    Alu,
    /// Integer multiply and divide.
    MulDiv,
    /// Scalar floating point.
    Float,
    /// Vector work: Advanced SIMD (NEON), Helium (MVE), SVE, SME.
    Simd,
    /// System registers, barriers, cache and TLB maintenance, coprocessor
    /// moves, mode changes.
    System,
    /// Generating or returning from an exception: `SVC`, `HVC`, `SMC`,
    /// `BRK`, `HLT`, `BKPT`, `UDF`, `ERET` and the AArch32 returns.
    Exception,
    /// Hints: `NOP`, `YIELD`, `WFI`, `WFE`, `SEV`, prefetches, `IT`,
    /// pointer-authentication and branch-target hints.
    Hint,
    /// No decoder this crate has could read the encoding.
    Undecoded,
}

impl InsnClass {
    /// Every class, in the order reports list them.
    pub const ALL: [InsnClass; 11] = [
        InsnClass::Load,
        InsnClass::Store,
        InsnClass::Branch,
        InsnClass::Alu,
        InsnClass::MulDiv,
        InsnClass::Float,
        InsnClass::Simd,
        InsnClass::System,
        InsnClass::Exception,
        InsnClass::Hint,
        InsnClass::Undecoded,
    ];

    /// Its position in [`InsnClass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name reports print (and `--json` writes).
    pub fn name(self) -> &'static str {
        match self {
            InsnClass::Load => "load",
            InsnClass::Store => "store",
            InsnClass::Branch => "branch",
            InsnClass::Alu => "alu",
            InsnClass::MulDiv => "muldiv",
            InsnClass::Float => "float",
            InsnClass::Simd => "simd",
            InsnClass::System => "system",
            InsnClass::Exception => "exception",
            InsnClass::Hint => "hint",
            InsnClass::Undecoded => "undecoded",
        }
    }
}

/// What an instruction does to the flow of control.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    /// A branch that may or may not be taken by its own condition
    /// (`B.cond`, `CBZ`, `TBZ`, an A32 branch with a condition). T32
    /// branches made conditional by an `IT` block are found by the trace
    /// (a failed condition), not here.
    pub conditional: bool,
    /// A call: it writes the return address to the link register.
    pub call: bool,
    /// An exception return.
    pub exception_return: bool,
    /// It may write the pc.
    pub writes_pc: bool,
}

/// An instruction's class and flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classified {
    /// Its class.
    pub class: InsnClass,
    /// Its effect on the flow of control.
    pub flow: Flow,
}

impl Classified {
    fn of(class: InsnClass) -> Classified {
        let writes_pc = class == InsnClass::Branch;
        Classified {
            class,
            flow: Flow {
                writes_pc,
                ..Flow::default()
            },
        }
    }
}

/// The class of an instruction from its encoding as the trace gives it
/// (as [`super::operands`] takes it). C64 is classed by its A64
/// encodings, as [`super::operands`] reads it.
pub fn classify(iset: ISet, encoding: u32, width: u8) -> Classified {
    match (iset, width) {
        (ISet::A64 | ISet::C64, 4) => a64_class(encoding),
        (ISet::Arm, 4) => a32_class(encoding, false, 4),
        (ISet::Thumb, 2 | 4) => a32_class(encoding, true, width),
        _ => Classified::of(InsnClass::Undecoded),
    }
}

fn a64_class(w: u32) -> Classified {
    let Ok(inst) = a64::decode(w) else {
        // SVE (op0 = 0010) and SME (op0 = 1000 with bit 31) are vector
        // work the decoder does not read.
        let op0 = bits(w, 28, 25);
        let class = if op0 == 0b0010 || (op0 == 0 && w >> 31 == 1) {
            InsnClass::Simd
        } else {
            InsnClass::Undecoded
        };
        return Classified::of(class);
    };
    use A64Op::*;
    let op = inst.opcode;
    let mut flow = Flow::default();
    let class = match op {
        ERET | ERETAA | ERETAB | DRPS => {
            flow.exception_return = true;
            flow.writes_pc = true;
            InsnClass::Exception
        }
        SVC | HVC | SMC | BRK | HLT | DCPS1 | DCPS2 | DCPS3 | UDF => InsnClass::Exception,
        PRFM | PRFUM => InsnClass::Hint,
        _ if a64::is_branch(op) => {
            flow.writes_pc = true;
            flow.conditional = matches!(op, Bcc(_) | BCcc(_) | CBZ | CBNZ | TBZ | TBNZ);
            flow.call = matches!(op, BL | BLR | BLRAA | BLRAAZ | BLRAB | BLRABZ);
            InsnClass::Branch
        }
        LDG => InsnClass::Load,
        _ => match a64::kind(op) {
            a64::Kind::Load | a64::Kind::Atomic | a64::Kind::CompareSwap => InsnClass::Load,
            a64::Kind::Store | a64::Kind::StoreExclusive => InsnClass::Store,
            _ => a64_other(&inst),
        },
    };
    Classified { class, flow }
}

/// A64 data processing, system and hint instructions.
fn a64_other(inst: &A64Inst) -> InsnClass {
    use A64Op::*;
    let op = inst.opcode;
    match op {
        MSR | MRS | SYS(_) | SYSL(_) | ISB | DSB(_) | DMB(_) | SB | PSSBB | SSBB | CLREX => {
            InsnClass::System
        }
        #[allow(deprecated)]
        SSSB => InsnClass::System,
        HINT | PACIASP | PACIAZ | PACIA1716 | PACIA171615 | PACIASPPC | PACNBIASPPC | PACIBSP
        | PACIBZ | PACIB1716 | PACIB171615 | PACIBSPPC | PACNBIBSPPC | AUTIASP | AUTIAZ
        | AUTIA1716 | AUTIA171615 | AUTIASPPC | AUTIASPPCR | AUTIBSP | AUTIBZ | AUTIB1716
        | AUTIB171615 | AUTIBSPPC | AUTIBSPPCR | XPACLRI | PACM => InsnClass::Hint,
        MADD | MSUB | SMADDL | SMSUBL | SMULH | UMADDL | UMSUBL | UMULH | UDIV | SDIV => {
            InsnClass::MulDiv
        }
        _ => {
            let mut vector = false;
            let mut fp_reg = false;
            for o in &inst.operands {
                match o {
                    A64Operand::SIMDRegisterElements(..)
                    | A64Operand::SIMDRegisterElementsLane(..)
                    | A64Operand::SIMDRegisterElementsMultipleLane(..)
                    | A64Operand::SIMDRegisterGroup(..)
                    | A64Operand::SIMDRegisterGroupLane(..) => vector = true,
                    A64Operand::SIMDRegister(..) => fp_reg = true,
                    _ => {}
                }
            }
            if vector {
                InsnClass::Simd
            } else if fp_reg || a64_float_opcode(op) {
                // A scalar on the SIMD and FP registers: floating point if
                // the opcode is, else Advanced SIMD's scalar forms.
                if a64_float_opcode(op) {
                    InsnClass::Float
                } else {
                    InsnClass::Simd
                }
            } else {
                InsnClass::Alu
            }
        }
    }
}

/// Whether an A64 opcode is a floating-point one (by name: they all start
/// with `F`, with the integer conversions and `BFCVT`).
fn a64_float_opcode(op: A64Op) -> bool {
    let name = format!("{op:?}");
    name.starts_with('F') || matches!(op, A64Op::SCVTF | A64Op::UCVTF | A64Op::BFCVT)
}

fn a32_class(w: u32, thumb: bool, width: u8) -> Classified {
    if thumb {
        if width == 2 && (w > 0xffff || w >> 11 >= 0b11101) {
            return Classified::of(InsnClass::Undecoded);
        }
        if width == 4 && w >> 27 < 0b11101 {
            return Classified::of(InsnClass::Undecoded);
        }
    }
    if !thumb || width == 4 {
        if let Some(class) = a32_by_space(w, thumb) {
            return Classified::of(class);
        }
    }
    match a32::decode(w, thumb, width) {
        Ok(inst) => a32_opcode(&inst),
        Err(_) => Classified::of(InsnClass::Undecoded),
    }
}

/// The 32-bit encodings `yaxpeax-arm` does not decode, by their space.
fn a32_by_space(w: u32, thumb: bool) -> Option<InsnClass> {
    let cond = bits(w, 31, 28);
    // Floating point: coprocessors 10 and 11 (T32 lays them out as A32
    // with 1110 for the condition).
    let op = bits(w, 27, 25);
    if bits(w, 11, 9) == 0b101 && (op == 0b110 || (op == 0b111 && bits(w, 24, 24) == 0)) {
        return Some(if op == 0b110 && bits(w, 27, 21) != 0b110_0010 {
            if bits(w, 20, 20) == 1 {
                InsnClass::Load
            } else {
                InsnClass::Store
            }
        } else {
            InsnClass::Float
        });
    }
    // Advanced SIMD data processing and element loads and stores.
    let (simd_dp, simd_ls) = if thumb {
        (
            w & 0xef00_0000 == 0xef00_0000,
            w & 0xff10_0000 == 0xf900_0000,
        )
    } else {
        (
            w & 0xfe00_0000 == 0xf200_0000,
            w & 0xff10_0000 == 0xf400_0000,
        )
    };
    if simd_dp {
        return Some(InsnClass::Simd);
    }
    if simd_ls {
        return Some(if bits(w, 21, 21) == 1 {
            InsnClass::Load
        } else {
            InsnClass::Store
        });
    }
    if thumb {
        // MCR/MRC, MCRR/MRRC to other coprocessors.
        if bits(w, 31, 29) == 0b111
            && ((bits(w, 27, 24) == 0b1110 && bits(w, 4, 4) == 1) || bits(w, 27, 21) == 0b110_0010)
        {
            return Some(InsnClass::System);
        }
        return None;
    }
    // A32 media: the signed multiplies and divides, else data processing.
    if bits(w, 27, 25) == 0b011 && bits(w, 4, 4) == 1 && cond != 0b1111 {
        if bits(w, 24, 20) == 0b11111 && bits(w, 7, 5) == 0b111 {
            // UDF: the permanently undefined corner of the media space.
            return Some(InsnClass::Exception);
        }
        return Some(if bits(w, 24, 20) & 0b11000 == 0b10000 {
            InsnClass::MulDiv
        } else {
            InsnClass::Alu
        });
    }
    // Hints (MSR with no mask), barriers, preloads.
    if cond != 0b1111 && w & 0x0fff_ff00 == 0x0320_f000 {
        return Some(InsnClass::Hint);
    }
    if w == 0xf57f_f01f || matches!(w & 0xffff_fff0, 0xf57f_f040..=0xf57f_f070) {
        return Some(InsnClass::System);
    }
    if cond == 0b1111 && bits(w, 27, 26) == 0b01 && bits(w, 15, 12) == 0b1111 {
        return Some(InsnClass::Hint);
    }
    None
}

fn a32_writes_pc(inst: &A32Inst) -> bool {
    matches!(inst.operands[0], A32Operand::Reg(r) if r.number() == 15)
}

fn a32_opcode(inst: &A32Inst) -> Classified {
    use A32Op::*;
    let op = inst.opcode;
    let mut flow = Flow::default();
    let conditional = inst.condition != yaxpeax_arm::armv7::ConditionCode::AL;
    let list_has_pc = inst
        .operands
        .iter()
        .any(|o| matches!(o, A32Operand::RegList(l) if l & 0x8000 != 0));
    let class = match op {
        B | BL | BLX | BX | BXJ | CBZ | CBNZ | TBB | TBH => {
            flow.writes_pc = true;
            flow.conditional = conditional || matches!(op, CBZ | CBNZ);
            flow.call = matches!(op, BL | BLX);
            InsnClass::Branch
        }
        ERET | RFE(..) => {
            flow.writes_pc = true;
            flow.exception_return = true;
            InsnClass::Exception
        }
        SVC | BKPT | HVC | SMC | UDF => InsnClass::Exception,
        LDM(_, _, _, user) if user && list_has_pc => {
            flow.writes_pc = true;
            flow.exception_return = true;
            InsnClass::Exception
        }
        MSR
        | MRS
        | CPS(_)
        | CPS_modeonly
        | SETEND
        | DSB
        | DMB
        | ISB
        | CLREX
        | MCR(..)
        | MRC(..)
        | MCRR(..)
        | MRRC(..)
        | CDP(..)
        | ENTERX
        | LEAVEX
        | TT { .. } => InsnClass::System,
        HINT | NOP | WFE | WFI | SEV | YIELD | CSDB | DBG | PLD | PLI | ESB | BTI | PACBTI
        | PAC | AUT | IT => InsnClass::Hint,
        MUL | MLA | MLS | UMAAL | UMULL | UMLAL | SMULL | SMUL(..) | SMLA(..) | SMLAL
        | SMLAL_halfword(..) | SMAL(..) | SMLAW(..) | SMLSD | SMMLA | SMMLAR | SMMLS | SMMLSR
        | SMLAD | SMUSD | SMMUL | SMULW(..) | SMUAD | SDIV | UDIV | SMLALD(..) | SMLSLD(..) => {
            InsnClass::MulDiv
        }
        _ => match a32::kind(op) {
            a32::Kind::Load | a32::Kind::Swap => {
                flow.writes_pc = list_has_pc || a32_writes_pc(inst);
                InsnClass::Load
            }
            a32::Kind::Store | a32::Kind::StoreExclusive => InsnClass::Store,
            _ => match op {
                LDM(..) | POP => {
                    flow.writes_pc = list_has_pc;
                    InsnClass::Load
                }
                STM(..) | PUSH => InsnClass::Store,
                _ if a32_writes_pc(inst) => {
                    flow.writes_pc = true;
                    if inst.s {
                        // `SUBS pc, lr, #imm`, `MOVS pc, lr`: the
                        // AArch32 exception returns.
                        flow.exception_return = true;
                        InsnClass::Exception
                    } else {
                        InsnClass::Branch
                    }
                }
                _ => InsnClass::Alu,
            },
        },
    };
    Classified { class, flow }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(iset: ISet, w: u32, width: u8) -> InsnClass {
        classify(iset, w, width).class
    }

    /// Encodings from the Arm ARM, one or more per class and set.
    #[test]
    fn every_class_from_its_encodings() {
        use InsnClass::*;
        for (w, want) in [
            (0xf940_03e1, Load),      // LDR x1, [sp]
            (0xa9be_7bfd, Store),     // STP x29, x30, [sp, #-32]!
            (0x3d80_03e0, Store),     // STR q0, [sp]
            (0x4c40_7000, Load),      // LD1 {v0.16b}, [x0]
            (0xf8e0_0020, Load),      // LDADDAL x0, x0, [x1]
            (0x9400_0010, Branch),    // BL
            (0x5400_0040, Branch),    // B.EQ
            (0xd65f_03c0, Branch),    // RET
            (0x8b02_0020, Alu),       // ADD x0, x1, x2
            (0xaa01_03e0, Alu),       // MOV x0, x1 (ORR)
            (0x9b02_7c20, MulDiv),    // MUL x0, x1, x2 (MADD)
            (0x9ac2_0c20, MulDiv),    // SDIV x0, x1, x2
            (0x1e62_2820, Float),     // FADD d0, d1, d2
            (0x9e67_0020, Float),     // FMOV d0, x1
            (0x4e22_8420, Simd),      // ADD v0.16b, v1.16b, v2.16b
            (0x4e22_d420, Simd),      // FADD v0.4s, v1.4s, v2.4s
            (0x0420_0000, Simd),      // SVE (ADD z0.b, z0.b, z0.b)
            (0xd518_1040, System),    // MSR CPACR_EL1, x0
            (0xd503_3fdf, System),    // ISB
            (0xd400_0001, Exception), // SVC #0
            (0xd69f_03e0, Exception), // ERET
            (0xd503_201f, Hint),      // NOP
            (0xd503_207f, Hint),      // WFI
            (0xf980_0000, Hint),      // PRFM
            (0x0000_0000, Exception), // UDF #0
        ] {
            assert_eq!(class(ISet::A64, w, 4), want, "A64 {w:08x}");
        }
        for (w, want) in [
            (0xe591_0000, Load),      // LDR r0, [r1]
            (0xe8bd_8010, Load),      // POP {r4, pc}
            (0xe92d_4010, Store),     // PUSH {r4, lr}
            (0xeb00_0010, Branch),    // BL
            (0x0a00_0001, Branch),    // BEQ
            (0xe12f_ff1e, Branch),    // BX lr
            (0xe1a0_f00e, Branch),    // MOV pc, lr
            (0xe25e_f004, Exception), // SUBS pc, lr, #4
            (0xe080_0001, Alu),       // ADD r0, r0, r1
            (0xe000_0190, MulDiv),    // MUL r0, r0, r1
            (0xe710_f110, MulDiv),    // SDIV r0, r0, r1
            (0xe6ef_0070, Alu),       // UXTB r0, r0 (media)
            (0xee30_0a00, Float),     // VADD.F32 s0, s0, s0
            (0xed9f_0a00, Load),      // VLDR s0, [pc]
            (0xf220_0d40, Simd),      // VADD.F32 q0, q0, q0
            (0xf420_070f, Load),      // VLD1.8 {d0}, [r0]
            (0xe10f_0000, System),    // MRS r0, APSR
            (0xf57f_f05f, System),    // DMB SY
            (0xef00_0000, Exception), // SVC #0
            (0xe320_f000, Hint),      // NOP
            (0xe320_f003, Hint),      // WFI
            (0xf5d0_f000, Hint),      // PLD [r0]
        ] {
            assert_eq!(class(ISet::Arm, w, 4), want, "A32 {w:08x}");
        }
        for (w, width, want) in [
            (0x6808, 2, Load),           // LDR r0, [r1]
            (0xbd10, 2, Load),           // POP {r4, pc}
            (0xb510, 2, Store),          // PUSH {r4, lr}
            (0xd001, 2, Branch),         // BEQ
            (0xb108, 2, Branch),         // CBZ r0
            (0x4770, 2, Branch),         // BX lr
            (0xf000_f800, 4, Branch),    // BL
            (0x1840, 2, Alu),            // ADDS r0, r0, r1
            (0x4348, 2, MulDiv),         // MULS r0, r1, r0
            (0xfb90_f0f1, 4, MulDiv),    // SDIV r0, r0, r1
            (0xbf08, 2, Hint),           // IT EQ
            (0xbf00, 2, Hint),           // NOP
            (0xbf30, 2, Hint),           // WFI
            (0xdf00, 2, Exception),      // SVC #0
            (0xbe00, 2, Exception),      // BKPT #0
            (0xf3de_8f00, 4, Exception), // SUBS pc, lr, #0 (ERET)
            (0xee30_0a00, 4, Float),     // VADD.F32 s0, s0, s0
            (0xef00_0d40, 4, Simd),      // VADD.F32 q0, q0, q0
            (0xf3bf_8f5f, 4, System),    // DMB SY
            (0xf3ef_8000, 4, System),    // MRS r0, APSR
            (0xee1d_0f70, 4, System),    // MRC p15, 0, r0, c13, c0, 3
        ] {
            assert_eq!(class(ISet::Thumb, w, width), want, "T32 {w:08x}");
        }
    }

    #[test]
    fn flow_of_calls_conditional_branches_and_returns() {
        let a64 = |w| classify(ISet::A64, w, 4).flow;
        assert!(a64(0x9400_0010).call);
        assert!(a64(0x5400_0040).conditional);
        assert!(a64(0xb400_0040).conditional); // CBZ x0
        assert!(!a64(0x1400_0010).conditional); // B
        assert!(a64(0xd69f_03e0).exception_return);
        let a32 = |w| classify(ISet::Arm, w, 4).flow;
        assert!(a32(0x0a00_0001).conditional);
        assert!(!a32(0xea00_0001).conditional);
        assert!(a32(0xeb00_0010).call);
        assert!(a32(0xe25e_f004).exception_return);
        assert!(a32(0xe8fd_8000).exception_return); // LDM sp!, {pc}^
        assert!(a32(0xe8bd_8010).writes_pc);
        let t32 = |w, width| classify(ISet::Thumb, w, width).flow;
        assert!(t32(0xd001, 2).conditional);
        assert!(t32(0xf000_f800, 4).call);
        assert!(t32(0xf3de_8f00, 4).exception_return);
    }

    #[test]
    fn what_no_decoder_reads_is_undecoded() {
        assert_eq!(class(ISet::ThumbEE, 0, 2), InsnClass::Undecoded);
        assert_eq!(class(ISet::Thumb, 0xf000, 2), InsnClass::Undecoded);
        assert_eq!(class(ISet::A64, 0x0000_0000, 2), InsnClass::Undecoded);
        // A32's permanently undefined space is UDF; the same with the
        // unconditional prefix is unallocated.
        assert_eq!(class(ISet::Arm, 0xe7f0_00f0, 4), InsnClass::Exception);
        assert_eq!(class(ISet::Arm, 0xf7f0_00f0, 4), InsnClass::Undecoded);
        // An unallocated A64 encoding (op0 = 0001).
        assert_eq!(class(ISet::A64, 0x0200_0000, 4), InsnClass::Undecoded);
    }
}
