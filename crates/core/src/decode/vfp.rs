//! AArch32 floating point (VFP), decoded by its fields: `yaxpeax-arm` reads
//! coprocessors 10 and 11 as generic `LDC`/`CDP`/`MCR` and so would name no
//! floating-point register. T32 lays these encodings out as A32 does, with
//! `1110` where A32 has the condition, so one decoder serves both.
//!
//! Advanced SIMD (NEON) is not decoded: those encodings are an error.

use super::{bits, Operands, FLAGS};
use crate::parse::{RegClass, RegId};

fn s(n: u32) -> RegId {
    RegId::new(RegClass::S, n as u8)
}

fn d(n: u32) -> RegId {
    RegId::new(RegClass::D, n as u8)
}

const FPSCR: RegId = RegId::new(RegClass::Fpscr, 0);

/// The VFP register numbered by a 4-bit field and its extra bit: for
/// singles the extra bit is the low bit, for doubles the high one.
fn vreg(double: bool, field: u32, extra: u32) -> RegId {
    if double {
        d(extra << 4 | field)
    } else {
        s(field << 1 | extra)
    }
}

/// `None` if `w` is not a floating-point encoding (coprocessor 10 or 11).
pub(super) fn operands(w: u32, thumb: bool) -> Option<Result<Operands, &'static str>> {
    let op = bits(w, 27, 25);
    if bits(w, 11, 9) != 0b101 || !(op == 0b110 || (op == 0b111 && bits(w, 24, 24) == 0)) {
        return None;
    }
    let cond = bits(w, 31, 28);
    if cond == 0b1111 {
        return Some(Err(
            "an unconditional floating-point encoding (not decoded)",
        ));
    }
    let mut o = Operands::new();
    if !thumb && cond != 0b1110 {
        o.read(FLAGS);
    }
    let decoded = if op == 0b110 {
        load_store(w, &mut o)
    } else if bits(w, 4, 4) == 0 {
        data_processing(w, &mut o)
    } else {
        transfer(w, &mut o)
    };
    Some(decoded.map(|()| o))
}

/// VLDR, VSTR, VLDM, VSTM (VPUSH, VPOP), and VMOV of two core registers.
fn load_store(w: u32, o: &mut Operands) -> Result<(), &'static str> {
    let double = bits(w, 8, 8) == 1;
    let (p, u, wback, load) = (
        bits(w, 24, 24),
        bits(w, 23, 23),
        bits(w, 21, 21) == 1,
        bits(w, 20, 20) == 1,
    );
    let rn = bits(w, 19, 16);
    if bits(w, 24, 21) == 0b0010 {
        // VMOV between two core registers and a double or two singles.
        let (rt, rt2) = (bits(w, 15, 12), bits(w, 19, 16));
        let m = bits(w, 3, 0);
        let ext = bits(w, 5, 5);
        let regs = if double {
            [vreg(true, m, ext), vreg(true, m, ext)]
        } else {
            let first = m << 1 | ext;
            [s(first), s((first + 1) % 32)]
        };
        for reg in regs {
            if load {
                o.read(reg);
            } else {
                o.write(reg);
            }
        }
        o.core(rt, load);
        o.core(rt2, load);
        return Ok(());
    }
    let first = vreg(double, bits(w, 15, 12), bits(w, 22, 22));
    let count = if p == 1 && !wback {
        // VLDR/VSTR: one register, offset addressing.
        1
    } else if (p == 0 && u == 1) || (p == 1 && u == 0 && wback) {
        // VLDM/VSTM (VPUSH/VPOP): increment after, or decrement before
        // with writeback; imm8 counts words.
        let imm8 = bits(w, 7, 0);
        if double {
            imm8 / 2
        } else {
            imm8
        }
    } else {
        return Err("not a floating-point load or store");
    };
    if count == 0 {
        return Err("a floating-point register list of none");
    }
    for i in 0..count {
        let reg = RegId::new(first.class, first.index.wrapping_add(i as u8) % 32);
        if load {
            o.write(reg);
        } else {
            o.read(reg);
        }
    }
    o.core(rn, false);
    if wback {
        o.core(rn, true);
    }
    o.loads = load;
    o.stores = !load;
    Ok(())
}

/// The arithmetic and conversions (`CDP` space of coprocessors 10 and 11).
fn data_processing(w: u32, o: &mut Operands) -> Result<(), &'static str> {
    let double = bits(w, 8, 8) == 1;
    let dest = vreg(double, bits(w, 15, 12), bits(w, 22, 22));
    let n = vreg(double, bits(w, 19, 16), bits(w, 7, 7));
    let m = vreg(double, bits(w, 3, 0), bits(w, 5, 5));
    let opc1 = bits(w, 23, 23) << 2 | bits(w, 21, 20);
    match opc1 {
        // VMLA/VMLS, VNMLA/VNMLS, VFNMA/VFNMS, VFMA/VFMS accumulate.
        0b000 | 0b001 | 0b101 | 0b110 => {
            o.read(n);
            o.read(m);
            o.read(dest);
            o.write(dest);
        }
        // VMUL/VNMUL, VADD/VSUB, VDIV.
        0b010..=0b100 => {
            o.read(n);
            o.read(m);
            o.write(dest);
        }
        0b111 => return other(w, double, dest, m, o),
        _ => return Err("not a floating-point data-processing instruction"),
    }
    Ok(())
}

/// The one-source operations (`opc1` = 1x11).
fn other(
    w: u32,
    double: bool,
    dest: RegId,
    m: RegId,
    o: &mut Operands,
) -> Result<(), &'static str> {
    if bits(w, 6, 6) == 0 {
        // VMOV (immediate).
        o.write(dest);
        return Ok(());
    }
    let single = |field_hi: u32, field_lo: u32, extra: u32| {
        vreg(false, bits(w, field_hi, field_lo), bits(w, extra, extra))
    };
    match bits(w, 19, 16) {
        // VMOV (register), VABS, VNEG, VSQRT.
        0b0000 | 0b0001 => {
            o.read(m);
            o.write(dest);
        }
        // VCVTB/VCVTT: one half of a single, the other half kept when the
        // result is a half.
        0b0010 | 0b0011 => {
            let to_half = bits(w, 16, 16) == 1;
            let (dst, src) = if to_half {
                (
                    single(15, 12, 22),
                    vreg(double, bits(w, 3, 0), bits(w, 5, 5)),
                )
            } else {
                (
                    vreg(double, bits(w, 15, 12), bits(w, 22, 22)),
                    single(3, 0, 5),
                )
            };
            o.read(src);
            if to_half {
                o.read(dst);
            }
            o.write(dst);
        }
        // VCMP, VCMPE (against a register or zero): flags in FPSCR.
        0b0100 | 0b0101 => {
            o.read(dest);
            if bits(w, 16, 16) == 0 {
                o.read(m);
            }
            o.write(FPSCR);
        }
        // VCVT between double and single: the destination is the other size.
        0b0111 => {
            o.read(m);
            o.write(vreg(!double, bits(w, 15, 12), bits(w, 22, 22)));
        }
        // VCVT from an integer, always in a single.
        0b1000 => {
            o.read(single(3, 0, 5));
            o.write(dest);
        }
        // VCVT to or from fixed point, in place.
        0b1010 | 0b1011 | 0b1110 | 0b1111 => {
            o.read(dest);
            o.write(dest);
        }
        // VCVT to an integer, always in a single.
        0b1100 | 0b1101 => {
            o.read(m);
            o.write(single(15, 12, 22));
        }
        _ => return Err("not a floating-point data-processing instruction"),
    }
    Ok(())
}

/// VMOV between a core register and a single or a scalar, VMRS, VMSR.
fn transfer(w: u32, o: &mut Operands) -> Result<(), &'static str> {
    let to_core = bits(w, 20, 20) == 1;
    let rt = bits(w, 15, 12);
    let a = bits(w, 23, 21);
    match (bits(w, 8, 8), a) {
        (0, 0b000) => {
            let sn = vreg(false, bits(w, 19, 16), bits(w, 7, 7));
            if to_core {
                o.read(sn);
                o.core(rt, true);
            } else {
                o.core(rt, false);
                o.write(sn);
            }
        }
        (0, 0b111) => {
            // Only FPSCR (reg 1) is modelled; FPSID, FPEXC, MVFRn are not.
            let fpscr = bits(w, 19, 16) == 1;
            if to_core {
                if fpscr {
                    o.read(FPSCR);
                }
                if rt == 15 {
                    // VMRS APSR_nzcv, FPSCR: the compare's flags to cpsr.
                    o.write(FLAGS);
                } else {
                    o.core(rt, true);
                }
            } else {
                o.core(rt, false);
                if fpscr {
                    o.write(FPSCR);
                }
            }
        }
        (1, _) if to_core || a & 0b100 == 0 => {
            // VMOV between a core register and one lane of a double.
            let dn = vreg(true, bits(w, 19, 16), bits(w, 7, 7));
            o.read(dn);
            if to_core {
                o.core(rt, true);
            } else {
                o.core(rt, false);
                o.write(dn);
            }
        }
        _ => return Err("an Advanced SIMD transfer (not decoded)"),
    }
    Ok(())
}
