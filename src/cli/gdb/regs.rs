//! The register sets gdb expects, filled from the core's register file:
//! AArch64 (`org.gnu.gdb.aarch64.core` + `.fpu`, gdbstub_arch's own
//! description less its system registers, which a trace does not give),
//! AArch32 A-profile (`org.gnu.gdb.arm.core` + `.vfp`) and M-profile
//! (`org.gnu.gdb.arm.m-profile`). A register byte the trace never gave is
//! sent as `xx`, which gdb shows as `<unavailable>`.

use std::fmt::Debug;

use gdbstub::arch::{Arch, RegId, Registers};
use tarmac_lens_core::{register_location, RegClass, RegFile, RegId as TraceReg};

/// Which register set a trace is debugged with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// AArch64.
    A64,
    /// AArch32 A- or R-profile: A32 and Thumb, `cpsr` with its T bit.
    ArmA,
    /// Armv6-M/7-M/8-M: Thumb only, `xpsr`.
    ArmM,
}

/// What fills one register of gdb's set.
#[derive(Clone, Copy)]
enum Slot {
    /// Bytes of the core's register file: offset, size.
    File(usize, usize),
    /// The address of the instruction about to run.
    Pc(usize),
    /// `cpsr` (AArch32): its T bit follows the instruction about to run.
    Cpsr,
}

fn file(reg: TraceReg, aarch64: bool) -> Slot {
    let (o, s) = register_location(reg, aarch64);
    Slot::File(o, s)
}

fn slots(profile: Profile) -> Vec<Slot> {
    let r = |class, i| TraceReg::new(class, i);
    let mut v = Vec::new();
    match profile {
        Profile::A64 => {
            for i in 0..31 {
                v.push(file(r(RegClass::X, i), true));
            }
            v.push(file(r(RegClass::Xsp, 0), true));
            v.push(Slot::Pc(8));
            v.push(file(r(RegClass::Psr, 0), true));
            for i in 0..32 {
                v.push(file(r(RegClass::Q, i), true));
            }
            v.push(file(r(RegClass::Fpsr, 0), true));
            v.push(file(r(RegClass::Fpcr, 0), true));
        }
        Profile::ArmA | Profile::ArmM => {
            for i in 0..15 {
                v.push(file(r(RegClass::R, i), false));
            }
            v.push(Slot::Pc(4));
            if profile == Profile::ArmA {
                v.push(Slot::Cpsr);
                for i in 0..32 {
                    v.push(file(r(RegClass::D, i), false));
                }
                v.push(file(r(RegClass::Fpscr, 0), false));
            } else {
                v.push(file(r(RegClass::Psr, 0), false));
            }
        }
    }
    v
}

/// The target description gdb reads (`qXfer:features:read:target.xml`).
pub fn target_xml(profile: Profile) -> String {
    match profile {
        Profile::A64 => {
            // gdbstub_arch's description: core and fpu, then system
            // registers, which are cut.
            let full = gdbstub_arch::aarch64::AArch64::target_description_xml().unwrap_or("");
            match full.find("<feature name=\"org.rust.gdb.arm.sys.regs\">") {
                Some(start) => {
                    let end = full[start..]
                        .find("</feature>")
                        .map_or(full.len(), |e| start + e + "</feature>".len());
                    format!("{}{}", &full[..start], &full[end..])
                }
                None => full.to_string(),
            }
        }
        Profile::ArmA | Profile::ArmM => {
            let mut x = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n<architecture>arm</architecture>\n");
            let (feature, psr) = if profile == Profile::ArmA {
                ("org.gnu.gdb.arm.core", "cpsr")
            } else {
                ("org.gnu.gdb.arm.m-profile", "xpsr")
            };
            x.push_str(&format!("<feature name=\"{feature}\">\n"));
            for i in 0..13 {
                x.push_str(&format!(
                    "<reg name=\"r{i}\" bitsize=\"32\" type=\"uint32\"/>\n"
                ));
            }
            x.push_str("<reg name=\"sp\" bitsize=\"32\" type=\"data_ptr\"/>\n<reg name=\"lr\" bitsize=\"32\"/>\n<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\"/>\n");
            x.push_str(&format!(
                "<reg name=\"{psr}\" bitsize=\"32\" regnum=\"25\"/>\n</feature>\n"
            ));
            if profile == Profile::ArmA {
                x.push_str("<feature name=\"org.gnu.gdb.arm.vfp\">\n");
                for i in 0..32 {
                    x.push_str(&format!(
                        "<reg name=\"d{i}\" bitsize=\"64\" type=\"ieee_double\"/>\n"
                    ));
                }
                x.push_str("<reg name=\"fpscr\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n</feature>\n");
            }
            x.push_str("</target>\n");
            x
        }
    }
}

/// gdb's register set as bytes in `g` packet order, `None` where unknown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegBlock<U> {
    pub bytes: Vec<Option<u8>>,
    pub pc: U,
}

/// An address type gdb's packets use (`u32` or `u64`).
pub trait Addr: Copy + Default + Debug + PartialEq {
    fn to_u64(self) -> u64;
    fn from_u64(v: u64) -> Self;
}

impl Addr for u32 {
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    fn from_u64(v: u64) -> Self {
        v as u32
    }
}

impl Addr for u64 {
    fn to_u64(self) -> u64 {
        self
    }
    fn from_u64(v: u64) -> Self {
        v
    }
}

impl<U: Addr> Registers for RegBlock<U> {
    type ProgramCounter = U;

    fn pc(&self) -> U {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        for &b in &self.bytes {
            write_byte(b);
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        // Parsed for gdbstub's sake; writing registers is refused (a
        // trace is history).
        self.bytes = bytes.iter().map(|&b| Some(b)).collect();
        Ok(())
    }
}

/// The register set at a position: `pc` is the instruction about to run
/// (the Thumb bit in it selects `cpsr.T`).
pub fn fill(profile: Profile, regs: &RegFile, pc: u64) -> Vec<Option<u8>> {
    let mut out = Vec::with_capacity(600);
    for slot in slots(profile) {
        match slot {
            Slot::File(o, s) => {
                for i in o..o + s {
                    out.push((regs.known[i] != 0).then_some(regs.bytes[i]));
                }
            }
            Slot::Pc(size) => {
                let v = (pc & !1).to_le_bytes();
                out.extend(v[..size].iter().map(|&b| Some(b)));
            }
            Slot::Cpsr => {
                let (o, _) = register_location(TraceReg::new(RegClass::Psr, 0), false);
                let mut v = [0u8; 4];
                v.copy_from_slice(&regs.bytes[o..o + 4]);
                let known = regs.known[o..o + 4].iter().all(|&k| k != 0);
                // gdb decodes the instruction at pc by cpsr.T: it is the
                // trace's instruction set there, even where the trace
                // never gave cpsr (then only that bit is said).
                let mut cpsr = if known { u32::from_le_bytes(v) } else { 0 };
                if profile == Profile::ArmM {
                    // xPSR: always Thumb (bit 24); bits 8:0 are the
                    // exception number, which bit 5 belongs to.
                    cpsr |= 1 << 24;
                } else if pc & 1 != 0 {
                    cpsr |= 1 << 5;
                } else {
                    cpsr &= !(1 << 5);
                }
                out.extend(cpsr.to_le_bytes().iter().map(|&b| Some(b)));
            }
        }
    }
    out
}

/// No single-register access: gdb falls back to `g`.
#[derive(Debug)]
pub enum NoRegId {}

impl RegId for NoRegId {
    fn from_raw_id(_id: usize) -> Option<(Self, Option<std::num::NonZeroUsize>)> {
        None
    }
}

/// AArch64, its description given at run time.
pub enum A64 {}

impl Arch for A64 {
    type Usize = u64;
    type Registers = RegBlock<u64>;
    type BreakpointKind = usize;
    type RegId = NoRegId;
}

/// AArch32 (A, R and M profiles), its description given at run time.
pub enum A32 {}

impl Arch for A32 {
    type Usize = u32;
    type Registers = RegBlock<u32>;
    type BreakpointKind = gdbstub_arch::arm::ArmBreakpointKind;
    type RegId = NoRegId;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_gdbs_layouts() {
        let rf = RegFile::default();
        // x0-x30, sp, pc: 8 bytes; cpsr, fpsr, fpcr: 4; v0-v31: 16.
        assert_eq!(fill(Profile::A64, &rf, 0).len(), 33 * 8 + 4 + 32 * 16 + 8);
        // r0-r15, cpsr: 4 bytes; d0-d31: 8; fpscr: 4.
        assert_eq!(fill(Profile::ArmA, &rf, 0).len(), 17 * 4 + 32 * 8 + 4);
        assert_eq!(fill(Profile::ArmM, &rf, 0).len(), 17 * 4);
    }

    #[test]
    fn the_aarch64_description_keeps_core_and_fpu_only() {
        let x = target_xml(Profile::A64);
        assert!(x.contains("org.gnu.gdb.aarch64.core"));
        assert!(x.contains("org.gnu.gdb.aarch64.fpu"));
        assert!(!x.contains("sys.regs"));
        assert!(x.trim_end().ends_with("</target>"));
    }

    #[test]
    fn thumb_sets_cpsr_t_and_unknown_bytes_stay_unknown() {
        let rf = RegFile::default();
        let b = fill(Profile::ArmA, &rf, 0x8001);
        assert_eq!(b[15 * 4..16 * 4], [Some(0), Some(0x80), Some(0), Some(0)]);
        assert_eq!(b[16 * 4], Some(0x20));
        assert_eq!(b[0], None);
    }
}
