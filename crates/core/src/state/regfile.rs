//! The register file as one byte-addressed space, laid out as the reference
//! tools lay it out, so that aliasing falls out of the addresses: `rN` and
//! `wN` are the low bytes of `xN`, `vN`/`qN` the low 16 bytes of SVE `zN`,
//! and `dN`/`sN` overlap `qN` differently in AArch64 and AArch32.
//!
//! Values are stored little-endian; every byte has a known flag.

use crate::parse::{RegClass, RegId};

pub(crate) const X_BASE: usize = 0; // 31 x 8
/// Offset of the AArch64 stack pointer (8 bytes).
pub const XSP: usize = 248; // 8
pub(crate) const Z_BASE: usize = 256; // 32 x 256
pub(crate) const Z_STRIDE: usize = 256;
pub(crate) const P_BASE: usize = Z_BASE + 32 * Z_STRIDE; // 32 x 32
pub(crate) const P_STRIDE: usize = 32;
pub(crate) const PSR: usize = P_BASE + 32 * P_STRIDE;
pub(crate) const FPSCR: usize = PSR + 4;
pub(crate) const FPCR: usize = PSR + 8;
pub(crate) const FPSR: usize = PSR + 12;
pub(crate) const VPR: usize = PSR + 16;
/// Not a register: the indexer's record of the execution state (AArch64
/// or not, endianness), kept with the registers so it travels with them.
pub const IFLAGS: usize = PSR + 20;
pub(crate) const SIZE: usize = IFLAGS + 4;

pub(crate) const IFLAG_AARCH64: u32 = 1;
pub(crate) const IFLAG_BIGEND: u32 = 2;

/// Byte offset and size of a register in the file. `aarch64` selects how
/// `dN`/`sN` overlap the vector registers.
pub fn location(reg: RegId, aarch64: bool) -> (usize, usize) {
    let i = reg.index as usize;
    match reg.class {
        RegClass::R | RegClass::W => (X_BASE + 8 * i, 4),
        RegClass::X => (X_BASE + 8 * i, 8),
        RegClass::Wsp => (XSP, 4),
        RegClass::Xsp => (XSP, 8),
        RegClass::V | RegClass::Q => (Z_BASE + Z_STRIDE * i, 16),
        RegClass::Z => (Z_BASE + Z_STRIDE * i, 256),
        RegClass::P => (P_BASE + P_STRIDE * i, 32),
        RegClass::D | RegClass::S => {
            let size = reg.class.size();
            if aarch64 {
                (Z_BASE + Z_STRIDE * i, size)
            } else {
                let per_q = 16 / size;
                (Z_BASE + Z_STRIDE * (i / per_q) + size * (i % per_q), size)
            }
        }
        RegClass::Psr => (PSR, 4),
        RegClass::Fpscr => (FPSCR, 4),
        RegClass::Fpcr => (FPCR, 4),
        RegClass::Fpsr => (FPSR, 4),
        RegClass::Vpr => (VPR, 4),
    }
}

/// Group of a byte offset, for "which registers changed" bitmaps: x0..x30 are
/// 0..30, the stack pointer 31, each zN (with its v/q/d/s aliases) 32+N, each
/// pN 64+N, then psr, fpscr, fpcr, fpsr, vpr, iflags.
pub(crate) fn group_of(offset: usize) -> usize {
    if offset < XSP {
        offset / 8
    } else if offset < Z_BASE {
        31
    } else if offset < P_BASE {
        32 + (offset - Z_BASE) / Z_STRIDE
    } else if offset < PSR {
        64 + (offset - P_BASE) / P_STRIDE
    } else {
        96 + (offset - PSR) / 4
    }
}

#[cfg(test)]
pub(crate) const GROUPS: usize = 102;

/// Register contents plus a known flag per byte.
#[derive(Clone)]
pub struct RegFile {
    /// The file's bytes; a register's value is little-endian at its
    /// [`location`].
    pub bytes: Box<[u8; SIZE]>,
    /// Per byte: nonzero if the value is known.
    pub known: Box<[u8; SIZE]>,
}

impl Default for RegFile {
    fn default() -> Self {
        RegFile {
            bytes: Box::new([0; SIZE]),
            known: Box::new([0; SIZE]),
        }
    }
}

impl RegFile {
    /// Writes `bytes` at `offset` where `known` is set; returns whether
    /// anything was written.
    pub(crate) fn write(&mut self, offset: usize, bytes: &[u8], known: &[u8]) -> bool {
        let end = offset + bytes.len();
        // The usual update sets every byte: copy it whole. (`all`, not
        // `contains`, which calls `memchr` for these few bytes.)
        if end <= SIZE && known.len() == bytes.len() && known.iter().all(|&k| k != 0) {
            self.bytes[offset..end].copy_from_slice(bytes);
            self.known[offset..end].fill(1);
            return !bytes.is_empty();
        }
        let mut any = false;
        for (i, (&b, &k)) in bytes.iter().zip(known).enumerate() {
            let o = offset + i;
            if k != 0 && o < SIZE {
                self.bytes[o] = b;
                self.known[o] = 1;
                any = true;
            }
        }
        any
    }

    /// Little-endian value of `size` (at most 8) bytes at `offset`, if all known.
    pub fn value(&self, offset: usize, size: usize) -> Option<u64> {
        let mut v = 0u64;
        for i in (0..size.min(8)).rev() {
            if self.known[offset + i] == 0 {
                return None;
            }
            v = (v << 8) | u64::from(self.bytes[offset + i]);
        }
        Some(v)
    }

    pub(crate) fn reg_value(&self, reg: RegId, aarch64: bool) -> Option<u64> {
        let (o, s) = location(reg, aarch64);
        if s > 8 {
            return None;
        }
        self.value(o, s)
    }

    pub(crate) fn iflags(&self) -> u32 {
        self.value(IFLAGS, 4).unwrap_or(0) as u32
    }

    /// Whether the byte range of `reg` overlaps `[offset, offset+len)`.
    pub(crate) fn overlaps(reg: RegId, aarch64: bool, offset: usize, len: usize) -> bool {
        let (o, s) = location(reg, aarch64);
        offset < o + s && o < offset + len
    }
}

/// The execution state of a register file; before the first instruction
/// (nothing recorded yet) the trace's overall state decides.
pub(crate) fn is_aarch64(rf: &RegFile, hint: bool) -> bool {
    if rf.known[IFLAGS] != 0 {
        rf.iflags() & IFLAG_AARCH64 != 0
    } else {
        hint
    }
}

/// Whether `name` names a register in either execution state (`x5`, `r0`,
/// `sp`, `cpsr`, `q1`): what a person typed is a register, not an address.
pub fn is_register_name(name: &str) -> bool {
    lookup(name, true).is_some() || lookup(name, false).is_some()
}

/// Resolves a register name the person typed or clicked (`sp` and `lr`
/// follow the execution state).
pub(crate) fn lookup(name: &str, aarch64: bool) -> Option<RegId> {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "sp" => Some(if aarch64 {
            RegId::new(RegClass::Xsp, 0)
        } else {
            RegId::new(RegClass::R, 13)
        }),
        "lr" => Some(if aarch64 {
            RegId::new(RegClass::X, 30)
        } else {
            RegId::new(RegClass::R, 14)
        }),
        _ => RegId::lookup(lower.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_share_bytes() {
        let r13 = RegId::new(RegClass::R, 13);
        let x13 = RegId::new(RegClass::X, 13);
        assert_eq!(location(r13, false).0, location(x13, true).0);
        let q1 = RegId::new(RegClass::Q, 1);
        let d2 = RegId::new(RegClass::D, 2);
        let s5 = RegId::new(RegClass::S, 5);
        // AArch32: d2 is the low half of q1, s5 the second word of q1.
        assert_eq!(location(d2, false), (location(q1, false).0, 8));
        assert_eq!(location(s5, false), (location(q1, false).0 + 4, 4));
        // AArch64: d2 and s2 sit at the bottom of q2.
        let q2 = RegId::new(RegClass::Q, 2);
        assert_eq!(location(d2, true).0, location(q2, true).0);
        assert_eq!(group_of(location(q2, true).0 + 3), 34);
        assert_eq!(group_of(IFLAGS), 101);
        assert!(group_of(IFLAGS) < GROUPS);
    }

    #[test]
    fn values_need_every_byte() {
        let mut rf = RegFile::default();
        rf.write(8, &[1, 2, 3, 4], &[1, 1, 1, 1]);
        assert_eq!(rf.value(8, 4), Some(0x04030201));
        assert_eq!(rf.value(8, 8), None);
    }
}
