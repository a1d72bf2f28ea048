//! The image's basic blocks: where control can enter a run of
//! instructions other than from the one before (a piece of code's or a
//! function's start, a direct branch's target, the instruction after one
//! that can write the pc), so that coverage can be given by block, as
//! drcov gives it (`drcov.rs`).
//!
//! Whether an instruction can write the pc is the decoder's word
//! ([`crate::decode::operands`]); a direct branch's target is read from
//! its immediate here (A64 `B`, `BL`, `B.cond`, `CBZ`, `TBZ`; A32 `B`,
//! `BL`, `BLX`; T32 `B`, `BL`, `BLX`, `CBZ`). Targets of indirect branches
//! are not known from the image; `tests` in `tests/exports_and_sets.rs`
//! compare the blocks with those `objdump -d` shows.

use crate::decode;
use crate::parse::ISet;

/// What one instruction does to the flow of control.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Flow {
    /// It can write the pc: the next instruction starts a block.
    pub(crate) ends: bool,
    /// Where a direct branch goes (no Thumb bit).
    pub(crate) target: Option<u64>,
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

fn field(w: u32, hi: u32, lo: u32) -> u64 {
    u64::from((w >> lo) & ((1u32 << (hi - lo + 1)) - 1))
}

fn a64_target(w: u32, pc: u64) -> Option<u64> {
    let offset = if w & 0x7c00_0000 == 0x1400_0000 {
        // B, BL
        sign_extend(field(w, 25, 0), 26) << 2
    } else if w & 0xff00_0010 == 0x5400_0000 || w & 0x7e00_0000 == 0x3400_0000 {
        // B.cond, CBZ, CBNZ
        sign_extend(field(w, 23, 5), 19) << 2
    } else if w & 0x7e00_0000 == 0x3600_0000 {
        // TBZ, TBNZ
        sign_extend(field(w, 18, 5), 14) << 2
    } else {
        return None;
    };
    Some(pc.wrapping_add(offset as u64))
}

fn a32_target(w: u32, pc: u64) -> Option<u64> {
    if w & 0x0e00_0000 != 0x0a00_0000 {
        return None;
    }
    let mut offset = sign_extend(field(w, 23, 0), 24) << 2;
    if w >> 28 == 0xf {
        // BLX (immediate): the H bit is the halfword.
        offset |= i64::from((w >> 24) & 1) << 1;
    }
    Some(pc.wrapping_add(8).wrapping_add(offset as u64))
}

/// `hw` is a 16-bit encoding, or a 32-bit one with its first halfword
/// high.
fn t32_target(hw: u32, wide: bool, pc: u64) -> Option<u64> {
    let base = pc.wrapping_add(4);
    if !wide {
        let offset = if hw & 0xf000 == 0xd000 && (hw >> 8) & 0xe != 0xe {
            // B<cond> (T1); 1110 and 1111 are UDF and SVC.
            sign_extend(field(hw, 7, 0), 8) << 1
        } else if hw & 0xf800 == 0xe000 {
            // B (T2)
            sign_extend(field(hw, 10, 0), 11) << 1
        } else if hw & 0xf500 == 0xb100 {
            // CBZ, CBNZ
            (field(hw, 9, 9) << 6 | field(hw, 7, 3) << 1) as i64
        } else {
            return None;
        };
        return Some(base.wrapping_add(offset as u64));
    }
    let (h1, h2) = (hw >> 16, hw & 0xffff);
    if h1 & 0xf800 != 0xf000 || h2 & 0x8000 == 0 {
        return None;
    }
    let s = field(h1, 10, 10);
    let (j1, j2) = (field(h2, 13, 13), field(h2, 11, 11));
    let imm11 = field(h2, 10, 0);
    match (h2 >> 12) & 0x5 {
        // B (T3), conditional: 10x0, condition not 111x.
        0x0 if (h1 >> 7) & 0x7 != 0x7 => {
            let imm = s << 20 | j2 << 19 | j1 << 18 | field(h1, 5, 0) << 12 | imm11 << 1;
            Some(base.wrapping_add(sign_extend(imm, 21) as u64))
        }
        // B (T4): 10x1; BL: 11x1; BLX: 11x0.
        0x1 | 0x5 | 0x4 => {
            let i1 = !(j1 ^ s) & 1;
            let i2 = !(j2 ^ s) & 1;
            let imm = s << 24 | i1 << 23 | i2 << 22 | field(h1, 9, 0) << 12 | imm11 << 1;
            let offset = sign_extend(imm, 25) as u64;
            if (h2 >> 12) & 0x5 == 0x4 {
                // BLX goes to A32 code, from the word-aligned pc.
                Some((base & !3).wrapping_add(offset) & !3)
            } else {
                Some(base.wrapping_add(offset))
            }
        }
        _ => None,
    }
}

/// The flow of the instruction `encoding` (a 32-bit Thumb one with its
/// first halfword high) of `size` bytes at `pc`.
pub(crate) fn flow(iset: ISet, encoding: u32, size: u8, pc: u64) -> Flow {
    // An instruction the decoder does not know is taken to end its block:
    // a block boundary too many splits a block, one too few would join
    // code that need not run together.
    let ends = decode::operands(iset, encoding, size).map_or(true, |o| o.writes_pc);
    let target = match iset {
        ISet::A64 | ISet::C64 => a64_target(encoding, pc),
        ISet::Arm => a32_target(encoding, pc),
        ISet::Thumb => t32_target(encoding, size == 4, pc),
        ISet::ThumbEE => None,
    };
    Flow {
        ends: ends || target.is_some(),
        target,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Encodings and targets as GNU as and objdump give them.
    #[test]
    fn direct_targets_are_read_from_the_immediates() {
        let a64 = |w, pc| flow(ISet::A64, w, 4, pc).target;
        assert_eq!(a64(0x9400000d, 0x1002c), Some(0x10060)); // bl
        assert_eq!(a64(0x97ffffef, 0x10094), Some(0x10050)); // bl back
        assert_eq!(a64(0x14000140, 0x10050), Some(0x10550)); // b
        assert_eq!(a64(0x34000275, 0x10078), Some(0x100c4)); // cbz
        assert_eq!(a64(0x54000041, 0x1000), Some(0x1008)); // b.ne
        assert_eq!(a64(0x36080040, 0x2000), Some(0x2008)); // tbz w0,#1
        assert_eq!(a64(0xd65f03c0, 0x2000), None); // ret
        assert!(flow(ISet::A64, 0xd65f03c0, 4, 0).ends);
        assert!(!flow(ISet::A64, 0xd503201f, 4, 0).ends); // nop
        let a32 = |w, pc| flow(ISet::Arm, w, 4, pc).target;
        assert_eq!(a32(0xeb000000, 0x8004), Some(0x800c)); // bl
        assert_eq!(a32(0x0afffffe, 0x8000), Some(0x8000)); // beq .
        assert_eq!(a32(0xfa000000, 0x8000), Some(0x8008)); // blx
        assert_eq!(a32(0xfb000000, 0x8000), Some(0x800a)); // blx, H set
        assert!(flow(ISet::Arm, 0xe12fff1e, 4, 0).ends); // bx lr
        let t16 = |w, pc| flow(ISet::Thumb, w, 2, pc).target;
        assert_eq!(t16(0xd0fe, 0x1000), Some(0x1000)); // beq .
        assert_eq!(t16(0xe7fe, 0x18), Some(0x18)); // b .
        assert_eq!(t16(0xb108, 0x100), Some(0x106)); // cbz r0, +2
        assert_eq!(t16(0xdf00, 0x100), None); // svc
        let t32 = |w, pc| flow(ISet::Thumb, w, 4, pc).target;
        assert_eq!(t32(0xf000_f800, 0x1004), Some(0x1008)); // bl
        assert_eq!(t32(0xf7ff_fffe, 0x1000), Some(0x1000)); // bl .
        assert_eq!(t32(0xf000_b800, 0x1000), Some(0x1004)); // b.w
        assert_eq!(t32(0xf000_8000, 0x1000), Some(0x1004)); // beq.w
        assert_eq!(t32(0xf000_e800, 0x1002), Some(0x1004)); // blx
    }
}
