//! Which registers an instruction reads and writes, and whether it touches
//! memory, decoded from its encoding.
//!
//! The key design choice: the encoding, never the trace's disassembly text,
//! is the source of truth. Disassembly differs between trace producers
//! (case, aliases, `.W` suffixes, `DCI` for what the model could not name),
//! while an encoding means one thing. `yaxpeax-arm` turns it into an opcode
//! and typed operands; this module only knows, per class of instruction,
//! which of those operands are read and which written. The floating-point
//! instructions of AArch32 (VFP, coprocessors 10 and 11), which `yaxpeax-arm`
//! does not decode, are decoded here by their fields (`vfp.rs`), as are the
//! few A32 and T32 classes it leaves out (`media.rs`, `misc.rs`).
//!
//! Results are in the core's own register ids ([`RegId`]) so the engine can
//! look them up in its register file directly:
//!
//! - AArch64: `xN` for both `xN` and `wN` (the same bytes), `xsp` for the
//!   stack pointer, `vN` for every SIMD/FP view (`bN`, `hN`, `sN`, `dN`,
//!   `qN`, `vN.T`: all the low bytes of the same register), `fpcr`/`fpsr`
//!   for their `MRS`/`MSR`. The zero register is never listed.
//! - AArch32: `r0`..`r14` (`sp` is `r13`, `lr` is `r14`), `sN`, `dN` and `qN`
//!   as named (the register file makes them overlap), `fpscr`.
//! - The flags (NZCV, and the GE bits of AArch32) are `psr`, the register
//!   traces write as `cpsr`: [`Operands::reads_flags`] and
//!   [`Operands::writes_flags`] say whether it is listed.
//! - The program counter has no register of its own in AArch64, and `r15`
//!   aliases `x15` in the register file, so reads and writes of the pc are
//!   flags: [`Operands::reads_pc`] (pc-relative addresses, literal loads,
//!   the return address a call writes) and [`Operands::writes_pc`]
//!   (branches, and loads or moves to `pc`).
//!
//! What the encoding alone cannot tell: whether a Thumb instruction is in
//! an `IT` block (there it reads the flags, and a 16-bit `ADDS` does not
//! set them); both are decoded as outside one.
//!
//! Not listed, as no data flow a person follows goes through them: the
//! rounding mode floating point reads from FPCR/FPSCR and the cumulative
//! exception bits it sets in FPSR/FPSCR, AArch32's sticky Q flag, the T
//! bit an interworking branch changes, and registers no view models
//! (system registers other than NZCV, FPCR, FPSR; ELR and SPSR). Not
//! decoded (an [`Undecoded`] error): SVE and SME, AArch32 Advanced SIMD,
//! ThumbEE.

mod a32;
mod a64;
mod class;
mod media;
mod misc;
mod vfp;

#[cfg(test)]
mod a32_tests;
#[cfg(test)]
mod a64_tests;
#[cfg(test)]
mod t32_tests;
#[cfg(test)]
mod tests_common;

use std::fmt;

pub use class::{classify, Classified, Flow, InsnClass};

use crate::parse::{ISet, RegClass, RegId};

/// The flags register: NZCV (and AArch32's GE bits) live in `cpsr`.
pub const FLAGS: RegId = RegId::new(RegClass::Psr, 0);

/// Longest register list an instruction can name: `LDM` with all 16
/// registers and its base, or `VLDM` of 32 single registers.
const MAX_REGS: usize = 34;

/// A short list of distinct registers, kept inline so that decoding an
/// instruction allocates nothing (a data-flow walk decodes many).
#[derive(Clone, Copy)]
pub struct Regs {
    regs: [RegId; MAX_REGS],
    len: u8,
}

impl Regs {
    const fn new() -> Regs {
        Regs {
            regs: [RegId::new(RegClass::R, 0); MAX_REGS],
            len: 0,
        }
    }

    fn push(&mut self, reg: RegId) {
        if !self.contains(reg) && (self.len as usize) < MAX_REGS {
            self.regs[self.len as usize] = reg;
            self.len += 1;
        }
    }

    /// The registers, in the order the instruction names them.
    pub fn as_slice(&self) -> &[RegId] {
        &self.regs[..self.len as usize]
    }

    /// Whether `reg` is one of them.
    pub fn contains(&self, reg: RegId) -> bool {
        self.as_slice().contains(&reg)
    }
}

impl fmt::Debug for Regs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// What one instruction reads and writes.
#[derive(Clone, Copy, Debug)]
pub struct Operands {
    reads: Regs,
    writes: Regs,
    /// It reads memory.
    pub loads: bool,
    /// It writes memory.
    pub stores: bool,
    /// It reads the pc as a value: a pc-relative address (`ADR`, a literal
    /// load) or the return address a call writes to the link register.
    pub reads_pc: bool,
    /// It may change the pc: a branch, or a load or move to `pc`.
    pub writes_pc: bool,
}

impl Operands {
    fn new() -> Operands {
        Operands {
            reads: Regs::new(),
            writes: Regs::new(),
            loads: false,
            stores: false,
            reads_pc: false,
            writes_pc: false,
        }
    }

    /// Registers whose value it uses (an immediate-only instruction reads
    /// none).
    pub fn reads(&self) -> &[RegId] {
        self.reads.as_slice()
    }

    /// Registers it writes, whole or in part.
    pub fn writes(&self) -> &[RegId] {
        self.writes.as_slice()
    }

    /// It reads the flags ([`FLAGS`] is among [`Operands::reads`]).
    pub fn reads_flags(&self) -> bool {
        self.reads.contains(FLAGS)
    }

    /// It writes the flags ([`FLAGS`] is among [`Operands::writes`]).
    pub fn writes_flags(&self) -> bool {
        self.writes.contains(FLAGS)
    }

    fn read(&mut self, reg: RegId) {
        self.reads.push(reg);
    }

    fn write(&mut self, reg: RegId) {
        self.writes.push(reg);
    }

    /// Reads (or writes) AArch32 core register `n` by its encoding field;
    /// r15 is the pc, a flag rather than a register.
    fn core(&mut self, n: u32, write: bool) {
        match (n, write) {
            (15, false) => self.reads_pc = true,
            (15, true) => self.writes_pc = true,
            (_, false) => self.read(RegId::new(RegClass::R, n as u8)),
            (_, true) => self.write(RegId::new(RegClass::R, n as u8)),
        }
    }
}

/// Bits `hi..=lo` of `w`.
fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// An encoding that could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undecoded {
    /// The instruction set it was decoded as.
    pub iset: ISet,
    /// The encoding (first Thumb halfword in the high half).
    pub encoding: u32,
    /// Why.
    pub reason: &'static str,
}

impl fmt::Display for Undecoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot decode {:?} encoding {:08x}: {}",
            self.iset, self.encoding, self.reason
        )
    }
}

impl std::error::Error for Undecoded {}

/// The registers an instruction reads and writes, from its encoding as the
/// trace gives it: for Thumb, `width` is 2 or 4 bytes and a 32-bit
/// encoding has its first halfword in the high half; other sets take 4.
pub fn operands(iset: ISet, encoding: u32, width: u8) -> Result<Operands, Undecoded> {
    let fail = |reason| Undecoded {
        iset,
        encoding,
        reason,
    };
    match (iset, width) {
        (ISet::A64 | ISet::C64, 4) => a64::operands(encoding).map_err(fail),
        (ISet::Arm, 4) => a32::operands(encoding, false, 4).map_err(fail),
        (ISet::Thumb, 2 | 4) => a32::operands(encoding, true, width).map_err(fail),
        (ISet::ThumbEE, _) => Err(fail("ThumbEE is not decoded")),
        _ => Err(fail("encoding width does not fit the instruction set")),
    }
}
