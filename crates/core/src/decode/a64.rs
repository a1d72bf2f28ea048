//! A64: `yaxpeax-arm` lists the operands destination first, so an
//! instruction is classified only by how it departs from "the first operand
//! is written, the rest are read": stores read all, compares and branches
//! read all, and some write their destination only in part and so read it.

use yaxpeax_arch::{Decoder, U8Reader};
use yaxpeax_arm::armv8::a64::{InstDecoder, Instruction, Opcode, Operand};

use super::{Operands, Regs, FLAGS};
use crate::parse::{RegClass, RegId};

/// `MRS`/`MSR` system register numbers (o0:op1:CRn:CRm:op2, as
/// `yaxpeax-arm` packs them) of the registers the core models.
const SYSREG_NZCV: u16 = 0x5a10;
const SYSREG_FPCR: u16 = 0x5a20;
const SYSREG_FPSR: u16 = 0x5a21;

/// How an instruction's operands are used, beyond the default.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// First operand written, the rest read.
    Normal,
    /// Like `Normal`, but the destination is only partly written
    /// (`MOVK`, accumulators, inserts), so its old value is read too.
    ReadsDest,
    /// Every operand read, none written (compares, branches on a register).
    ReadsAll,
    /// Register operands before the address are written.
    Load,
    /// Register operands before the address are read.
    Store,
    /// A store-exclusive: the status register first, then the stored ones.
    StoreExclusive,
    /// `SWP`, `LDADD` and kin: `Rs` stored, `Rt` loaded.
    Atomic,
    /// `CAS`: `Rs` compared and loaded into, `Rt` stored.
    CompareSwap,
}

pub(super) fn kind(op: Opcode) -> Kind {
    use Opcode::*;
    match op {
        LDAR | LDLAR | LDARB | LDLARB | LDAXRB | LDARH | LDLARH | LDAXP | LDAXR | LDAXRH | LDP
        | LDPSW | LDR | LDRB | LDRSB | LDRSW | LDRSH | LDRH | LDTR | LDTRB | LDTRH | LDTRSB
        | LDTRSH | LDTRSW | LDUR | LDURB | LDURSB | LDURSW | LDURSH | LDURH | LDXP | LDXR
        | LDXRB | LDXRH | LDNP | LD1 | LD2 | LD3 | LD4 | LD1R | LD2R | LD3R | LD4R | LDRAA
        | LDRAB | LDAPR | LDAPRH | LDAPRB | LDGM | LDAPUR | LDAPURB | LDAPURH | LDAPURSB
        | LDAPURSH | LDAPURSW => Kind::Load,
        STLR | STLLR | STLRB | STLLRB | STLRH | STLLRH | STP | STR | STTR | STTRB | STTRH
        | STRB | STRH | STRW | STUR | STURB | STURH | STNP | ST1 | ST2 | ST3 | ST4 | STGM
        | STZGM | STG | STZG | ST2G | STZ2G | STLUR | STLURB | STLURH => Kind::Store,
        STLXP | STLXR | STLXRB | STLXRH | STXP | STXR | STXRB | STXRH => Kind::StoreExclusive,
        SWP(_) | SWPB(_) | SWPH(_) | LDADDB(_) | LDCLRB(_) | LDEORB(_) | LDSETB(_) | LDSMAXB(_)
        | LDSMINB(_) | LDUMAXB(_) | LDUMINB(_) | LDADDH(_) | LDCLRH(_) | LDEORH(_) | LDSETH(_)
        | LDSMAXH(_) | LDSMINH(_) | LDUMAXH(_) | LDUMINH(_) | LDADD(_) | LDCLR(_) | LDEOR(_)
        | LDSET(_) | LDSMAX(_) | LDSMIN(_) | LDUMAX(_) | LDUMIN(_) => Kind::Atomic,
        CAS(_) | CASH(_) | CASB(_) | CASP(_) => Kind::CompareSwap,
        CBZ | CBNZ | TBZ | TBNZ | BR | BLR | RET | BRAA | BRAAZ | BRAB | BRABZ | BLRAA | BLRAAZ
        | BLRAB | BLRABZ | RETAA | RETAB | CCMP | CCMN | FCMP | FCMPE | FCCMP | FCCMPE | SYS(_)
        | PRFM | PRFUM | SETF8 | SETF16 | RMIF => Kind::ReadsAll,
        // A64 `LDG` loads a tag into the address bits of Xt, keeping the rest.
        LDG => Kind::ReadsDest,
        MOVK | BFM | FMLA | FMLS | MLA | MLS | SMLAL | SMLAL2 | UMLAL | UMLAL2 | SMLSL | SMLSL2
        | UMLSL | UMLSL2 | SQDMLAL | SQDMLAL2 | SQDMLSL | SQDMLSL2 | SQRDMLAH | SQRDMLSH | SABA
        | UABA | SABAL | SABAL2 | UABAL | UABAL2 | SADALP | UADALP | SUQADD | USQADD | SSRA
        | USRA | SRSRA | URSRA | SRI | SLI | BSL | BIT | BIF | INS | XTN2 | SQXTN2 | UQXTN2
        | SQXTUN2 | SHRN2 | RSHRN2 | SQSHRN2 | SQRSHRN2 | SQSHRUN2 | SQRSHRUN2 | UQSHRN2
        | UQRSHRN2 | ADDHN2 | SUBHN2 | RADDHN2 | RSUBHN2 | FCVTN2 | FCVTXN2 | SDOT | UDOT
        | FCMLA | FMLAL | FMLAL2 | FMLSL | FMLSL2 | TBX | AESE | AESD | SHA1C | SHA1P | SHA1M
        | SHA1SU0 | SHA1SU1 | SHA256H | SHA256H2 | SHA256SU0 | SHA256SU1 | SHA512H | SHA512H2
        | SHA512SU0 | SHA512SU1 | SM3TT1A | SM3TT1B | SM3TT2A | SM3TT2B | SM3PARTW1 | SM3PARTW2
        | SM4E => Kind::ReadsDest,
        _ => Kind::Normal,
    }
}

fn writes_flags(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        ADDS | SUBS
            | ANDS
            | BICS
            | ADCS
            | SBCS
            | CCMP
            | CCMN
            | FCMP
            | FCMPE
            | FCCMP
            | FCCMPE
            | SETF8
            | SETF16
            | RMIF
            | SUBPS
    )
}

fn reads_flags(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        ADC | ADCS
            | SBC
            | SBCS
            | CSEL
            | CSINC
            | CSINV
            | CSNEG
            | CCMP
            | CCMN
            | FCSEL
            | FCCMP
            | FCCMPE
            | Bcc(_)
            | BCcc(_)
    )
}

pub(super) fn is_branch(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        B | BL
            | Bcc(_)
            | BCcc(_)
            | CBZ
            | CBNZ
            | TBZ
            | TBNZ
            | BR
            | BLR
            | RET
            | ERET
            | BRAA
            | BRAAZ
            | BRAB
            | BRABZ
            | BLRAA
            | BLRAAZ
            | BLRAB
            | BLRABZ
            | RETAA
            | RETAB
            | ERETAA
            | ERETAB
            | RETAASPPC
            | RETABSPPC
            | RETAASPPCR
            | RETABSPPCR
    )
}

fn x(n: u16) -> RegId {
    RegId::new(RegClass::X, n as u8)
}

fn v(n: u16) -> RegId {
    RegId::new(RegClass::V, (n % 32) as u8)
}

fn sp_or_x(n: u16) -> RegId {
    if n == 31 {
        RegId::new(RegClass::Xsp, 0)
    } else {
        x(n)
    }
}

/// The registers an operand names as values (not as an address), in
/// order; the zero register is none.
fn value_regs(op: &Operand, out: &mut Regs) {
    match *op {
        Operand::Register(_, n) | Operand::RegShift(_, _, _, n) if n != 31 => out.push(x(n)),
        Operand::RegisterPair(_, n) => {
            for n in [n, n + 1] {
                if n < 31 {
                    out.push(x(n));
                }
            }
        }
        Operand::RegisterOrSP(_, n) => out.push(sp_or_x(n)),
        Operand::SIMDRegister(_, n)
        | Operand::SIMDRegisterElements(_, n, _)
        | Operand::SIMDRegisterElementsLane(_, n, _, _)
        | Operand::SIMDRegisterElementsMultipleLane(_, n, _, _, _) => out.push(v(n)),
        Operand::SIMDRegisterGroup(_, n, _, count)
        | Operand::SIMDRegisterGroupLane(n, _, count, _) => {
            for i in 0..u16::from(count) {
                out.push(v(n + i));
            }
        }
        Operand::SystemReg(SYSREG_NZCV) => out.push(FLAGS),
        Operand::SystemReg(SYSREG_FPCR) => out.push(RegId::new(RegClass::Fpcr, 0)),
        Operand::SystemReg(SYSREG_FPSR) => out.push(RegId::new(RegClass::Fpsr, 0)),
        _ => {}
    }
}

/// Whether an operand is an address, which reads its base (and index)
/// and may write the base back.
fn address(op: &Operand, o: &mut Operands) -> bool {
    match *op {
        Operand::RegPreIndex(n, _, wback) => {
            o.read(sp_or_x(n));
            if wback {
                o.write(sp_or_x(n));
            }
        }
        Operand::RegPostIndex(n, _) => {
            o.read(sp_or_x(n));
            o.write(sp_or_x(n));
        }
        Operand::RegPostIndexReg(n, m) => {
            o.read(sp_or_x(n));
            if m != 31 {
                o.read(x(m));
            }
            o.write(sp_or_x(n));
        }
        Operand::RegRegOffset(n, m, ..) => {
            o.read(sp_or_x(n));
            if m != 31 {
                o.read(x(m));
            }
        }
        _ => return false,
    }
    true
}

/// The instruction `yaxpeax-arm` decodes from `encoding`.
pub(super) fn decode(encoding: u32) -> Result<Instruction, &'static str> {
    let bytes = encoding.to_le_bytes();
    let inst: Instruction = InstDecoder::default()
        .decode(&mut U8Reader::new(&bytes))
        .map_err(|_| "not an A64 instruction yaxpeax-arm decodes")?;
    if inst.opcode == Opcode::Invalid {
        return Err("not an A64 instruction yaxpeax-arm decodes");
    }
    Ok(inst)
}

pub(super) fn operands(encoding: u32) -> Result<Operands, &'static str> {
    let inst = decode(encoding)?;
    let op = inst.opcode;
    let kind = kind(op);
    let mut o = Operands::new();
    let mut values = 0;
    for (i, operand) in inst.operands.iter().enumerate() {
        if address(operand, &mut o) {
            continue;
        }
        if let Operand::PCOffset(_) = operand {
            // A pc-relative address the instruction computes or loads from;
            // a branch target is no value read.
            if !is_branch(op) {
                o.reads_pc = true;
            }
            continue;
        }
        let mut regs = Regs::new();
        value_regs(operand, &mut regs);
        let first = values == 0;
        // A system register the core does not model is still the operand
        // `MSR` writes: what follows it is read.
        if !regs.as_slice().is_empty()
            || matches!(operand, Operand::Register(..) | Operand::SystemReg(_))
        {
            values += 1;
        }
        let (read, write) = match kind {
            Kind::Normal => (!first, first),
            Kind::ReadsDest => (true, first),
            Kind::ReadsAll | Kind::Store => (true, false),
            Kind::Load => (false, true),
            Kind::StoreExclusive => (!first, first),
            Kind::Atomic => (first, !first),
            Kind::CompareSwap => (true, first),
        };
        // A lane written keeps the other lanes: the register is read too.
        let partial = i == 0
            && matches!(
                operand,
                Operand::SIMDRegisterElementsLane(..) | Operand::SIMDRegisterGroupLane(..)
            );
        // `ORR`/`BIC` (vector, immediate) combine the destination with the
        // immediate.
        let imm_into_vector = i == 0
            && matches!(operand, Operand::SIMDRegisterElements(..))
            && matches!(op, Opcode::ORR | Opcode::BIC)
            && !matches!(
                inst.operands[1],
                Operand::SIMDRegisterElements(..) | Operand::Nothing
            );
        for &reg in regs.as_slice() {
            if read || partial || imm_into_vector {
                o.read(reg);
            }
            if write {
                o.write(reg);
            }
        }
    }
    match kind {
        Kind::Load => o.loads = true,
        Kind::Store | Kind::StoreExclusive => o.stores = true,
        Kind::Atomic | Kind::CompareSwap => {
            o.loads = true;
            o.stores = true;
        }
        _ => {}
    }
    if matches!(op, Opcode::LDG) {
        o.loads = true;
    }
    if reads_flags(op) {
        o.read(FLAGS);
    }
    if writes_flags(op) {
        o.write(FLAGS);
    }
    if is_branch(op) {
        o.writes_pc = true;
    }
    if matches!(
        op,
        Opcode::BL | Opcode::BLR | Opcode::BLRAA | Opcode::BLRAAZ | Opcode::BLRAB | Opcode::BLRABZ
    ) {
        // The link register gets the return address, pc + 4.
        o.write(x(30));
        o.reads_pc = true;
    }
    Ok(o)
}
