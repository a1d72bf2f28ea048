//! A32 and T32: `yaxpeax-arm` decodes both into one instruction type, so
//! one table of opcode classes serves both; as in A64, a class says only
//! how its operands depart from "the first is written, the rest read".

use yaxpeax_arch::{Decoder, U8Reader};
use yaxpeax_arm::armv7::{
    ConditionCode, InstDecoder, Instruction, Opcode, Operand, Reg, RegShift, RegShiftStyle,
    ShiftStyle,
};

use super::{media, misc, vfp, Operands, FLAGS};
use crate::parse::{RegClass, RegId};

/// How an instruction's operands are used, beyond the default.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// First operand written, the rest read.
    Normal,
    /// The destination is only partly written (`MOVT`, `BFI`), so read too.
    ReadsDest,
    /// The first two operands written (`UMULL`'s RdLo and RdHi).
    WritesTwo,
    /// The first two operands read and written (`UMLAL`'s accumulator).
    AccumulatesTwo,
    /// Every operand read, none written.
    ReadsAll,
    /// Register operands before the address written.
    Load,
    /// Register operands read.
    Store,
    /// `STREX`: the status register first, then the stored ones.
    StoreExclusive,
    /// `SWP`: the first operand loaded, the second stored.
    Swap,
}

pub(super) fn kind(op: Opcode) -> Kind {
    use Opcode::*;
    match op {
        LDR | LDRB | LDRH | LDRSH | LDRSB | LDRT | LDRBT | LDRHT | LDRSHT | LDRSBT | LDRD
        | LDREX | LDREXB | LDREXH | LDREXD | LDA | LDAB | LDAH | LDAEX | LDAEXB | LDAEXH
        | LDAEXD | LDC(..) | LDCL(..) | RFE(..) => Kind::Load,
        STR | STRB | STRH | STRD | STRT | STRBT | STRHT | STL | STLB | STLH | STC(..)
        | STCL(..) | SRS(..) => Kind::Store,
        STREX | STREXB | STREXH | STREXD | STLEX | STLEXB | STLEXH | STLEXD => Kind::StoreExclusive,
        SWP | SWPB => Kind::Swap,
        MOVT | BFI | BFC => Kind::ReadsDest,
        UMULL | SMULL | MRRC(..) => Kind::WritesTwo,
        UMLAL | SMLAL | UMAAL | SMLAL_halfword(..) | SMLALD(..) | SMLSLD(..) => {
            Kind::AccumulatesTwo
        }
        TST | TEQ | CMP | CMN | BX | BXJ | BLX | CBZ | CBNZ | MCR(..) | MCRR(..) | MSR | PLD
        | PLI | TBB | TBH => Kind::ReadsAll,
        _ => Kind::Normal,
    }
}

fn two_operand_form(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        AND | EOR
            | SUB
            | RSB
            | ADD
            | ADC
            | SBC
            | RSC
            | ORR
            | BIC
            | ORN
            | LSL
            | LSR
            | ASR
            | ROR
            | MUL
    )
}

fn writes_flags(inst: &Instruction) -> bool {
    use Opcode::*;
    inst.s
        || matches!(
            inst.opcode,
            TST | TEQ
                | CMP
                | CMN
                // The GE bits, which `SEL` reads.
                | SADD16
                | SASX
                | SSAX
                | SSUB16
                | SADD8
                | SSUB8
                | UADD16
                | UASX
                | USAX
                | USUB16
                | UADD8
                | USUB8
        )
}

fn r(reg: Reg) -> RegId {
    RegId::new(RegClass::R, reg.number())
}

/// Reads `reg` as a value: the pc is a flag, not a register.
fn read(o: &mut Operands, reg: Reg) {
    if reg.number() == 15 {
        o.reads_pc = true;
    } else {
        o.read(r(reg));
    }
}

fn write(o: &mut Operands, reg: Reg) {
    if reg.number() == 15 {
        o.writes_pc = true;
    } else {
        o.write(r(reg));
    }
}

/// Reads the registers of a shifted-register operand; `RRX` shifts the
/// carry flag in.
fn read_shift(o: &mut Operands, shift: RegShift) {
    match shift.into_shift() {
        RegShiftStyle::RegImm(s) => {
            read(o, s.shiftee());
            if s.stype() == ShiftStyle::RRX {
                o.read(FLAGS);
            }
        }
        RegShiftStyle::RegReg(s) => {
            read(o, s.shiftee());
            read(o, s.shifter());
        }
    }
}

/// Handles an address operand (base read, index read, base written back);
/// false if `op` is no address.
fn address(op: &Operand, o: &mut Operands) -> bool {
    // Post-indexing always writes the base back; `yaxpeax-arm`'s flag there
    // is the W bit, which marks the unprivileged forms (`LDRT`).
    let (base, wback) = match *op {
        Operand::RegDeref(n) => (n, false),
        Operand::RegDerefPostindexRegShift(n, shift, _, _) => {
            read_shift(o, shift);
            (n, true)
        }
        Operand::RegDerefPreindexRegShift(n, shift, _, wback) => {
            read_shift(o, shift);
            (n, wback)
        }
        Operand::RegDerefPostindexOffset(n, ..) => (n, true),
        Operand::RegDerefPreindexOffset(n, _, _, wback) => (n, wback),
        Operand::RegDerefPostindexReg(n, m, _, _) => {
            read(o, m);
            (n, true)
        }
        Operand::RegDerefPreindexReg(n, m, _, wback) => {
            read(o, m);
            (n, wback)
        }
        _ => return false,
    };
    read(o, base);
    if wback {
        write(o, base);
    }
    true
}

fn reg_list(list: u16) -> impl Iterator<Item = Reg> {
    (0..16u8)
        .filter(move |i| list & (1 << i) != 0)
        .map(Reg::from_u8)
}

pub(super) fn operands(encoding: u32, thumb: bool, width: u8) -> Result<Operands, &'static str> {
    // The bytes as they lie in memory: Thumb halfwords little-endian, the
    // first one first.
    let (bytes, len) = if !thumb {
        (encoding.to_le_bytes(), 4)
    } else if width == 2 {
        let half = u16::try_from(encoding).map_err(|_| "wider than 16 bits")?;
        if half >> 11 >= 0b11101 {
            return Err("the first half of a 32-bit Thumb encoding");
        }
        (u32::from(half).to_le_bytes(), 2)
    } else {
        let [a, b] = ((encoding >> 16) as u16).to_le_bytes();
        let [c, d] = (encoding as u16).to_le_bytes();
        ([a, b, c, d], 4)
    };
    if thumb && width == 4 && encoding >> 27 < 0b11101 {
        return Err("a 16-bit Thumb encoding given as 32 bits");
    }
    // VFP, which `yaxpeax-arm` sees only as coprocessor instructions: in
    // T32 its 32-bit encodings are laid out as A32's with condition AL.
    if !thumb || width == 4 {
        if let Some(result) = vfp::operands(encoding, thumb) {
            return result;
        }
    }
    let extra = if !thumb {
        media::operands(encoding).or_else(|| misc::operands(encoding))
    } else if width == 4 {
        misc::t32_coprocessor(encoding)
    } else {
        None
    };
    if let Some(result) = extra {
        return result;
    }
    Ok(classify(&decode_bytes(encoding, thumb, &bytes[..len])?))
}

/// The instruction `yaxpeax-arm` decodes from its bytes in memory order.
fn decode_bytes(encoding: u32, thumb: bool, bytes: &[u8]) -> Result<Instruction, &'static str> {
    // A32 LDRD/STRD name Rt and Rt + 1: with Rt = r15 (unpredictable)
    // `yaxpeax-arm` 0.5 panics making register 16.
    if !thumb && encoding & 0x0e10_00d0 == 0x0000_00d0 && encoding >> 12 & 0xf == 15 {
        return Err("LDRD/STRD of r15 and r16 (unpredictable)");
    }
    let decoder = InstDecoder::default().with_thumb_mode(thumb);
    let inst: Instruction = decoder
        .decode(&mut U8Reader::new(bytes))
        .map_err(|_| "not an instruction yaxpeax-arm decodes")?;
    if inst.opcode == Opcode::Invalid {
        return Err("not an instruction yaxpeax-arm decodes");
    }
    Ok(inst)
}

/// The instruction `yaxpeax-arm` decodes from an A32 or T32 encoding as
/// the trace gives it (see [`operands`]), without the encodings the
/// operand decoder reads by their fields first.
pub(super) fn decode(encoding: u32, thumb: bool, width: u8) -> Result<Instruction, &'static str> {
    let (bytes, len) = if !thumb {
        (encoding.to_le_bytes(), 4)
    } else if width == 2 {
        let half = u16::try_from(encoding).map_err(|_| "wider than 16 bits")?;
        (u32::from(half).to_le_bytes(), 2)
    } else {
        let [a, b] = ((encoding >> 16) as u16).to_le_bytes();
        let [c, d] = (encoding as u16).to_le_bytes();
        ([a, b, c, d], 4)
    };
    decode_bytes(encoding, thumb, &bytes[..len])
}

fn classify(inst: &Instruction) -> Operands {
    let op = inst.opcode;
    let mut kind = kind(op);
    // The two-operand Thumb forms (`ADDS r0, #1`, `ANDS r0, r1`) use the
    // destination as the first source.
    let count = inst
        .operands
        .iter()
        .filter(|o| **o != Operand::Nothing)
        .count();
    if count == 2 && two_operand_form(op) {
        kind = Kind::ReadsDest;
    }
    let mut o = Operands::new();
    let mut values = 0;
    for operand in &inst.operands {
        if address(operand, &mut o) {
            continue;
        }
        match *operand {
            // `yaxpeax-arm` gives T32's `BFC` an Rn of r15, which it does
            // not read.
            Operand::Reg(_) if op == Opcode::BFC && values > 0 => {}
            Operand::Reg(reg) => {
                let first = values == 0;
                let second = values == 1;
                values += 1;
                let (rd, wr) = match kind {
                    Kind::Normal => (!first, first),
                    Kind::ReadsDest => (true, first),
                    Kind::WritesTwo => (!(first || second), first || second),
                    Kind::AccumulatesTwo => (true, first || second),
                    Kind::ReadsAll | Kind::Store => (true, false),
                    Kind::Load => (false, true),
                    Kind::StoreExclusive | Kind::Swap => (!first, first),
                };
                if rd {
                    read(&mut o, reg);
                }
                if wr {
                    write(&mut o, reg);
                }
            }
            Operand::RegShift(shift) => read_shift(&mut o, shift),
            Operand::RegWBack(n, wback) => {
                // The base of `LDM`/`STM`.
                read(&mut o, n);
                if wback {
                    write(&mut o, n);
                }
            }
            Operand::RegList(list) => {
                for reg in reg_list(list) {
                    if matches!(op, Opcode::LDM(..) | Opcode::POP) {
                        write(&mut o, reg);
                    } else {
                        read(&mut o, reg);
                    }
                }
            }
            Operand::APSR | Operand::CPSR => o.read(FLAGS),
            Operand::StatusRegMask(mask) if (mask as u8) & 0x10 == 0 => o.write(FLAGS),
            _ => {}
        }
    }
    match kind {
        Kind::Load => o.loads = true,
        Kind::Store | Kind::StoreExclusive => o.stores = true,
        Kind::Swap => {
            o.loads = true;
            o.stores = true;
        }
        _ => {}
    }
    match op {
        Opcode::LDM(..) => o.loads = true,
        Opcode::STM(..) => o.stores = true,
        Opcode::PUSH | Opcode::POP => {
            let sp = Reg::from_u8(13);
            read(&mut o, sp);
            write(&mut o, sp);
            if op == Opcode::PUSH {
                o.stores = true;
            } else {
                o.loads = true;
            }
        }
        Opcode::PLD | Opcode::PLI => {}
        Opcode::ADR => o.reads_pc = true,
        Opcode::B | Opcode::BX | Opcode::BXJ | Opcode::CBZ | Opcode::CBNZ => o.writes_pc = true,
        Opcode::TBB | Opcode::TBH => {
            o.loads = true;
            o.writes_pc = true;
        }
        Opcode::BL | Opcode::BLX => {
            // The link register gets the return address.
            o.write(RegId::new(RegClass::R, 14));
            o.reads_pc = true;
            o.writes_pc = true;
        }
        // `MRC` to r15 sets the flags from bits 31:28 of the coprocessor
        // register.
        Opcode::MRC(..) if o.writes_pc => {
            o.writes_pc = false;
            o.write(FLAGS);
        }
        _ => {}
    }
    if inst.condition != ConditionCode::AL
        || matches!(
            op,
            Opcode::ADC | Opcode::SBC | Opcode::RSC | Opcode::RRX | Opcode::SEL
        )
    {
        o.read(FLAGS);
    }
    if writes_flags(inst) {
        o.write(FLAGS);
    }
    o
}
