//! Which instructions have two outcomes, from the encoding alone: a
//! conditional branch (taken / not taken) or a conditional instruction that
//! can fail its condition (executed / condition-failed). A table of
//! encodings, not a disassembler: coverage needs one bit of meaning per
//! instruction, and the tables below are checked against the GNU
//! assembler's encodings in the tests.

/// What outcomes an instruction can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// One outcome: it runs or it is not reached.
    Plain,
    /// A conditional branch (or a conditional write of the PC): taken or
    /// not taken.
    Branch,
    /// A conditional instruction that is no branch: executed or failed
    /// its condition.
    Conditional,
}

impl Kind {
    /// The name in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Plain => "plain",
            Kind::Branch => "branch",
            Kind::Conditional => "conditional",
        }
    }

    /// The inverse of [`Kind::name`].
    pub fn from_name(s: &str) -> Option<Kind> {
        [Kind::Plain, Kind::Branch, Kind::Conditional]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// A64: B.cond (and BC.cond), CBZ/CBNZ, TBZ/TBNZ. Nothing else in A64 can
/// fail a condition (CSEL and CCMP always execute).
pub fn a64(w: u32) -> Kind {
    if w & 0xff00_0000 == 0x5400_0000 {
        // B.AL and B.NV always branch.
        return if w & 0xe == 0xe {
            Kind::Plain
        } else {
            Kind::Branch
        };
    }
    if w & 0x7e00_0000 == 0x3400_0000 || w & 0x7e00_0000 == 0x3600_0000 {
        return Kind::Branch;
    }
    Kind::Plain
}

/// A32: any instruction whose condition field is not AL (0b1110) or the
/// unconditional space (0b1111) can fail; it is a branch when it writes
/// the PC: B/BL, BX/BLX/BXJ, LDM or POP with the PC in its list, LDR to
/// the PC, and data processing into the PC (`movne pc, lr`).
pub fn a32(w: u32) -> Kind {
    if w >> 28 >= 0xe {
        return Kind::Plain;
    }
    let writes_pc = w & 0x0e00_0000 == 0x0a00_0000 // B, BL
        || (w & 0x0fff_ff00 == 0x012f_ff00 && matches!((w >> 4) & 0xf, 1..=3)) // BX, BXJ, BLX
        || w & 0x0e10_8000 == 0x0810_8000 // LDM with the PC in the list
        || w & 0x0c50_f000 == 0x0410_f000 // LDR (not LDRB) into the PC
        || (w & 0x0c00_f000 == 0x0000_f000
            // Data processing into the PC, not TST/TEQ/CMP/CMN (whose Rd is
            // no destination) nor the misc and multiply spaces.
            && !matches!((w >> 21) & 0xf, 8..=11)
            && (w & 0x0200_0000 != 0 || w & 0x90 != 0x90));
    if writes_pc {
        Kind::Branch
    } else {
        Kind::Conditional
    }
}

/// Bytes of the T32 instruction whose first halfword is `hw`: 4 when its
/// top five bits are 0b11101, 0b11110 or 0b11111, else 2.
pub fn thumb_size(hw: u16) -> u8 {
    if hw >> 11 >= 0x1d {
        4
    } else {
        2
    }
}

/// Decodes T32 in address order, following IT blocks: the instructions an
/// IT covers can fail, and one of them that writes the PC is a conditional
/// branch. An IT block is only known from the instructions before it, so
/// the decoder is fed every instruction of a code region in order.
#[derive(Clone, Debug, Default)]
pub struct ThumbDecoder {
    /// Instructions still covered by the last IT.
    it_left: u8,
    /// That IT's condition is AL: its instructions cannot fail.
    it_always: bool,
}

impl ThumbDecoder {
    /// The kind of the instruction `hw1` (`hw2` its second halfword when
    /// [`thumb_size`] says 4 bytes, else ignored), advancing the IT state.
    pub fn next(&mut self, hw1: u16, hw2: u16) -> Kind {
        let wide = thumb_size(hw1) == 4;
        let in_it = self.it_left > 0;
        let always = self.it_always;
        if in_it {
            self.it_left -= 1;
        }
        if !wide && hw1 & 0xff00 == 0xbf00 && hw1 & 0xf != 0 {
            // IT: the block is as long as the mask's bits above its lowest set bit.
            let mask = hw1 & 0xf;
            self.it_left = 4 - mask.trailing_zeros() as u8;
            self.it_always = (hw1 >> 4) & 0xf == 0xe;
            return Kind::Plain;
        }
        if in_it {
            if always {
                return Kind::Plain;
            }
            let writes_pc = if wide {
                t32_writes_pc(hw1, hw2)
            } else {
                t16_writes_pc(hw1)
            };
            return if writes_pc {
                Kind::Branch
            } else {
                Kind::Conditional
            };
        }
        if wide {
            // B<cond> T3; cond 0b111x is the misc-control space.
            if hw1 & 0xf800 == 0xf000 && hw2 & 0xd000 == 0x8000 && (hw1 >> 7) & 0x7 != 0x7 {
                return Kind::Branch;
            }
            return Kind::Plain;
        }
        // B<cond> T1 (cond 0b1110 is UDF, 0b1111 SVC), CBZ/CBNZ.
        if (hw1 & 0xf000 == 0xd000 && (hw1 >> 9) & 0x7 != 0x7) || hw1 & 0xf500 == 0xb100 {
            return Kind::Branch;
        }
        Kind::Plain
    }
}

/// A 16-bit instruction that writes the PC (in an IT block, the last
/// instruction may): B (T2), BX/BLX, POP with the PC, MOV/ADD into the PC.
fn t16_writes_pc(hw: u16) -> bool {
    hw & 0xf800 == 0xe000 || hw & 0xff00 == 0x4700 || hw & 0xff00 == 0xbd00 || hw & 0xfc87 == 0x4487
    // ADD/MOV (high registers) with Rd = PC
}

/// A 32-bit instruction that writes the PC: B (T4), BL, BLX, LDM/POP.W with
/// the PC in its list, LDR.W into the PC.
fn t32_writes_pc(hw1: u16, hw2: u16) -> bool {
    // BL, BLX (hw2 0b11x1, 0b11x0), B.W (0b10x1).
    (hw1 & 0xf800 == 0xf000 && (hw2 & 0xc000 == 0xc000 || hw2 & 0xd000 == 0x9000))
        || ((hw1 & 0xffd0 == 0xe890 || hw1 & 0xffd0 == 0xe910) && hw2 & 0x8000 != 0) // LDMIA/LDMDB
        || (hw1 & 0xff70 == 0xf850 && hw2 & 0xf000 == 0xf000) // LDR{.W} Rt = PC
}

#[cfg(test)]
mod tests {
    use super::*;

    // Encodings as the GNU assembler gives them (`aarch64-linux-gnu-as`,
    // `arm-none-eabi-as`, then `objdump -d`).
    #[test]
    fn a64_table() {
        for (w, kind, what) in [
            (0x5400_0120u32, Kind::Branch, "b.eq"),
            (0x5400_010b, Kind::Branch, "b.lt"),
            (0x5400_00ee, Kind::Plain, "b.al"),
            (0xb400_00c0, Kind::Branch, "cbz x0"),
            (0x3500_00a1, Kind::Branch, "cbnz w1"),
            (0x3618_0080, Kind::Branch, "tbz w0, #3"),
            (0xb7f8_0060, Kind::Branch, "tbnz x0, #63"),
            (0x1400_0002, Kind::Plain, "b"),
            (0x9400_0002, Kind::Plain, "bl"),
            (0xd65f_03c0, Kind::Plain, "ret"),
            (0x9a81_1020, Kind::Plain, "csel x0, x1, x1, ne"),
            (0xfa42_0820, Kind::Plain, "ccmp x1, #2, #0, eq"),
            (0xd503_201f, Kind::Plain, "nop"),
        ] {
            assert_eq!(a64(w), kind, "{what} {w:08x}");
        }
    }

    #[test]
    fn a32_table() {
        for (w, kind, what) in [
            (0x0a00_0000u32, Kind::Branch, "beq"),
            (0x1b00_0000, Kind::Branch, "blne"),
            (0xea00_0000, Kind::Plain, "b"),
            (0xeb00_0000, Kind::Plain, "bl"),
            (0xfa00_0000, Kind::Plain, "blx imm"),
            (0x012f_ff1e, Kind::Branch, "bxeq lr"),
            (0x112f_ff33, Kind::Branch, "blxne r3"),
            (0xe12f_ff1e, Kind::Plain, "bx lr"),
            (0x18bd_8010, Kind::Branch, "popne {r4, pc}"),
            (
                0x149d_4004,
                Kind::Conditional,
                "popne {r4} (ldrne r4, [sp], #4)",
            ),
            (0x1590_f000, Kind::Branch, "ldrne pc, [r0]"),
            (0x15d0_0000, Kind::Conditional, "ldrbne r0, [r0]"),
            (0x11a0_f00e, Kind::Branch, "movne pc, lr"),
            (0x1350_0000, Kind::Conditional, "cmpne r0, #0"),
            (0x1150_0001, Kind::Conditional, "cmpne r0, r1"),
            (0x03a0_0001, Kind::Conditional, "moveq r0, #1"),
            (0xb581_0004, Kind::Conditional, "strlt r0, [r1, #4]"),
            (0x0001_0092, Kind::Conditional, "muleq r1, r2, r0"),
            (0xe3a0_0001, Kind::Plain, "mov r0, #1"),
            (0xe1a0_f00e, Kind::Plain, "mov pc, lr"),
            (0xf57f_f04f, Kind::Plain, "dsb sy (unconditional space)"),
        ] {
            assert_eq!(a32(w), kind, "{what} {w:08x}");
        }
    }

    fn thumb_kinds(code: &[u16]) -> Vec<Kind> {
        let mut d = ThumbDecoder::default();
        let mut out = Vec::new();
        let mut i = 0;
        while i < code.len() {
            let hw2 = code.get(i + 1).copied().unwrap_or(0);
            out.push(d.next(code[i], hw2));
            i += usize::from(thumb_size(code[i]) / 2);
        }
        out
    }

    #[test]
    fn thumb_sizes() {
        assert_eq!(thumb_size(0x4770), 2); // bx lr
        assert_eq!(thumb_size(0xe7fe), 2); // b . (T2)
        assert_eq!(thumb_size(0xe92d), 4); // push.w
        assert_eq!(thumb_size(0xf000), 4); // bl
        assert_eq!(thumb_size(0xf8d0), 4); // ldr.w
    }

    #[test]
    fn thumb_table() {
        for (hw, kind, what) in [
            (0xd0feu16, Kind::Branch, "beq"),
            (0xdbfd, Kind::Branch, "blt"),
            (0xde00, Kind::Plain, "udf"),
            (0xdf00, Kind::Plain, "svc"),
            (0xb190, Kind::Branch, "cbz r0"),
            (0xb989, Kind::Branch, "cbnz r1"),
            (0xe7fe, Kind::Plain, "b ."),
            (0x4770, Kind::Plain, "bx lr"),
            (0xbd10, Kind::Plain, "pop {r4, pc}"),
            (0x2001, Kind::Plain, "movs r0, #1"),
            (0xbf00, Kind::Plain, "nop (IT with mask 0)"),
        ] {
            assert_eq!(thumb_kinds(&[hw]), vec![kind], "{what} {hw:04x}");
        }
        for (code, kinds, what) in [
            // bne.w; b.w; bl
            (
                &[0xf47f, 0xaffa, 0xf7ff, 0xbff8, 0xf7ff, 0xfff6][..],
                &[Kind::Branch, Kind::Plain, Kind::Plain][..],
                "wide branches",
            ),
            // ite eq; moveq r0, #1; movne r0, #0; movs r0, #2
            (
                &[0xbf0c, 0x2001, 0x2000, 0x2002],
                &[
                    Kind::Plain,
                    Kind::Conditional,
                    Kind::Conditional,
                    Kind::Plain,
                ],
                "ite",
            ),
            // it ne; popne {r4, pc}; movs r0, #0
            (
                &[0xbf18, 0xbd10, 0x2000],
                &[Kind::Plain, Kind::Branch, Kind::Plain],
                "it; pop pc",
            ),
            // itt eq; ldreq.w r0, [r1]; bxeq lr
            (
                &[0xbf04, 0xf8d1, 0x0000, 0x4770],
                &[Kind::Plain, Kind::Conditional, Kind::Branch],
                "itt with a wide instruction",
            ),
            // ittt al, hand-encoded (GNU as refuses AL in an IT block):
            // its instructions cannot fail.
            (
                &[0xbfe2, 0x2000, 0x2000, 0x2000, 0x2000],
                &[Kind::Plain; 5],
                "it al",
            ),
            // it eq; beq.w (B T4 in an IT block is conditional)
            (
                &[0xbf08, 0xf7ff, 0xbfea],
                &[Kind::Plain, Kind::Branch],
                "it; b.w",
            ),
        ] {
            assert_eq!(thumb_kinds(code), kinds, "{what}");
        }
    }

    #[test]
    fn kind_names_round_trip() {
        for k in [Kind::Plain, Kind::Branch, Kind::Conditional] {
            assert_eq!(Kind::from_name(k.name()), Some(k));
        }
        assert_eq!(Kind::from_name("x"), None);
    }
}
