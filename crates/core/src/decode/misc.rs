//! A32 hints, barriers and preloads, decoded by their fields: `yaxpeax-arm`
//! 0.5 decodes none of them in A32 (`NOP`, `DMB`, `PLD`...), though it
//! does in T32.

use super::{bits, Operands, FLAGS};

/// `None` if `w` is none of them.
pub(super) fn operands(w: u32) -> Option<Result<Operands, &'static str>> {
    let mut o = Operands::new();
    let cond = bits(w, 31, 28);
    if cond != 0b1111 && w & 0x0fff_ff00 == 0x0320_f000 {
        // NOP, YIELD, WFE, WFI, SEV, SEVL, ESB, CSDB, DBG: MSR with no mask.
        if cond != 0b1110 {
            o.read(FLAGS);
        }
        return Some(Ok(o));
    }
    if cond != 0b1111 {
        return None;
    }
    // CLREX, DSB, DMB, ISB, SB.
    if w == 0xf57f_f01f || matches!(w & 0xffff_fff0, 0xf57f_f040..=0xf57f_f070) {
        return Some(Ok(o));
    }
    // PLD, PLDW, PLI: immediate (bit 25 clear) or register offset.
    let preload = bits(w, 27, 26) == 0b01
        && bits(w, 21, 20) == 0b01
        && bits(w, 15, 12) == 0b1111
        && (bits(w, 24, 24) == 1 || bits(w, 22, 22) == 1)
        && (bits(w, 25, 25) == 0 || bits(w, 4, 4) == 0);
    if preload {
        o.core(bits(w, 19, 16), false);
        if bits(w, 25, 25) == 1 {
            o.core(bits(w, 3, 0), false);
        }
        return Some(Ok(o));
    }
    None
}

/// T32 `MCR`/`MRC` and `MCRR`/`MRRC` to coprocessors other than the
/// floating point's, which `yaxpeax-arm` 0.5 does not decode in T32 (the
/// thread register `mrc p15, 0, r0, c13, c0, 3` is one). `None` if `w` is
/// none of them.
pub(super) fn t32_coprocessor(w: u32) -> Option<Result<Operands, &'static str>> {
    if bits(w, 31, 29) != 0b111 {
        return None;
    }
    let mut o = Operands::new();
    let rt = bits(w, 15, 12);
    let to_core = bits(w, 20, 20) == 1;
    if bits(w, 27, 24) == 0b1110 && bits(w, 4, 4) == 1 {
        if to_core && rt == 15 {
            // MRC to APSR_nzcv: the flags from the coprocessor register.
            o.write(FLAGS);
        } else {
            o.core(rt, to_core);
        }
        return Some(Ok(o));
    }
    if bits(w, 27, 21) == 0b110_0010 {
        o.core(rt, to_core);
        o.core(bits(w, 19, 16), to_core);
        return Some(Ok(o));
    }
    None
}
