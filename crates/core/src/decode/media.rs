//! A32 media instructions (extend, bit-field, reverse, saturate, parallel
//! add/subtract, signed multiply, divide), decoded by their fields:
//! `yaxpeax-arm` 0.5 leaves this whole space of A32 (bits 27:25 = 011,
//! bit 4 = 1) undecoded, though it decodes the T32 forms.

use super::{bits, Operands, FLAGS};

/// `None` if `w` is not in the A32 media space.
pub(super) fn operands(w: u32) -> Option<Result<Operands, &'static str>> {
    if bits(w, 27, 25) != 0b011 || bits(w, 4, 4) != 1 {
        return None;
    }
    let cond = bits(w, 31, 28);
    if cond == 0b1111 {
        return Some(Err("an unconditional media encoding (unallocated)"));
    }
    let mut o = Operands::new();
    if cond != 0b1110 {
        o.read(FLAGS);
    }
    let (op1, op2) = (bits(w, 24, 20), bits(w, 7, 5));
    let (hi, mid, lo) = (bits(w, 19, 16), bits(w, 15, 12), bits(w, 3, 0));
    match op1 >> 3 {
        // Parallel add and subtract: Rd = Rn op Rm; the plain (not
        // saturating, not halving) forms set the GE flags.
        0b00 => {
            if op1 & 0b11 == 0 {
                return Some(Err("an unallocated parallel add/subtract"));
            }
            o.core(hi, false);
            o.core(lo, false);
            o.core(mid, true);
            if op1 & 0b11 == 0b01 {
                o.write(FLAGS);
            }
        }
        // Packing, unpacking, saturation and reversal: Rd from Rm, and Rn
        // where 19:16 is one (saturation puts its bit position there).
        0b01 => {
            let saturate =
                (op1 & 0b00010 != 0 && op2 & 1 == 0) || (op1 & 0b11011 == 0b01010 && op2 == 0b001);
            if !saturate && hi != 15 {
                o.core(hi, false);
            }
            o.core(lo, false);
            o.core(mid, true);
            // SEL picks bytes by the GE flags.
            if op1 == 0b01000 && op2 == 0b101 {
                o.read(FLAGS);
            }
        }
        // Signed multiplies and divides, and USAD8/USADA8: Rd in 19:16,
        // an accumulator in 15:12 unless it is 1111.
        0b10 | 0b11 if op1 >> 3 == 0b10 || (op1 == 0b11000 && op2 == 0) => {
            o.core(bits(w, 11, 8), false);
            o.core(lo, false);
            if mid != 15 {
                o.core(mid, false);
            }
            if op1 == 0b10100 {
                // SMLALD/SMLSLD accumulate into RdHi:RdLo.
                o.core(hi, false);
                o.core(mid, true);
            }
            o.core(hi, true);
        }
        // SBFX, UBFX: Rd from a field of Rn.
        0b11 if (op1 & 0b11110 == 0b11010 || op1 & 0b11110 == 0b11110) && op2 & 0b011 == 0b010 => {
            o.core(lo, false);
            o.core(mid, true);
        }
        // BFC, BFI: the destination keeps the bits outside the field.
        0b11 if op1 & 0b11110 == 0b11100 && op2 & 0b011 == 0 => {
            if lo != 15 {
                o.core(lo, false);
            }
            o.core(mid, false);
            o.core(mid, true);
        }
        // UDF: permanently undefined, no registers.
        0b11 if op1 == 0b11111 && op2 == 0b111 => {}
        _ => return Some(Err("an unallocated media encoding")),
    }
    Some(Ok(o))
}
