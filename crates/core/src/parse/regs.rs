//! Register identities and the mapping from the many names traces use.
//!
//! Names follow the reference tools: the class is the leading letters up to
//! the first digit or underscore, matched case-insensitively, and anything
//! after an underscore (`r13_svc`, `r13_main_s`) selects a bank we fold into
//! the architectural register, as those tools do.

use std::fmt;

/// Register classes. Sizes are in bytes; `Z` and `P` give the maximum (SVE
/// vector length 2048 bits), and their updates may be shorter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// AArch32 core registers r0..r15.
    R,
    /// AArch64 32-bit views w0..w30.
    W,
    /// AArch64 x0..x30 (also written `e0..e30`).
    X,
    /// AArch64 `wsp`, the stack pointer's 32-bit view.
    Wsp,
    /// The AArch64 stack pointer (`sp`, `xsp`).
    Xsp,
    /// NEON/MVE 128-bit vectors, `v` and `q` spellings kept apart because
    /// traces use both and the dump shows which was written.
    V,
    /// `q0`..`q31`, the same bytes as `v`.
    Q,
    /// 64-bit floating-point/vector registers `d0`..`d31`.
    D,
    /// 32-bit floating-point registers `s0`..`s31`.
    S,
    /// SVE vectors `z0`..`z31`.
    Z,
    /// SVE predicates `p0`..`p15`.
    P,
    /// The program status register (`cpsr`, also written `psr`).
    Psr,
    /// AArch32 `fpscr`.
    Fpscr,
    /// AArch64 `fpcr`.
    Fpcr,
    /// AArch64 `fpsr`.
    Fpsr,
    /// MVE `vpr`.
    Vpr,
}

impl RegClass {
    pub(crate) const fn name(self) -> &'static str {
        match self {
            RegClass::R => "r",
            RegClass::W => "w",
            RegClass::X => "x",
            RegClass::Wsp => "wsp",
            RegClass::Xsp => "xsp",
            RegClass::V => "v",
            RegClass::Q => "q",
            RegClass::D => "d",
            RegClass::S => "s",
            RegClass::Z => "z",
            RegClass::P => "p",
            RegClass::Psr => "psr",
            RegClass::Fpscr => "fpscr",
            RegClass::Fpcr => "fpcr",
            RegClass::Fpsr => "fpsr",
            RegClass::Vpr => "vpr",
        }
    }

    /// Size of one register of this class in bytes (maximum for `Z`/`P`).
    pub(crate) const fn size(self) -> usize {
        match self {
            RegClass::R | RegClass::W | RegClass::Wsp | RegClass::S => 4,
            RegClass::X | RegClass::Xsp | RegClass::D => 8,
            RegClass::V | RegClass::Q => 16,
            RegClass::Z => 256,
            RegClass::P => 32,
            RegClass::Psr | RegClass::Fpscr | RegClass::Fpcr | RegClass::Fpsr | RegClass::Vpr => 4,
        }
    }

    /// Number of registers in the class (1 for singletons).
    pub(crate) const fn count(self) -> u8 {
        match self {
            RegClass::R => 16,
            RegClass::W | RegClass::X => 31,
            RegClass::V | RegClass::Q | RegClass::D | RegClass::S | RegClass::Z | RegClass::P => 32,
            _ => 1,
        }
    }

    /// Whether updates may carry fewer bytes than [`RegClass::size`]
    /// (SVE registers vary with the vector length).
    pub(crate) const fn variable_length(self) -> bool {
        matches!(self, RegClass::Z | RegClass::P)
    }

    const ALL: [RegClass; 16] = [
        RegClass::R,
        RegClass::W,
        RegClass::X,
        RegClass::Wsp,
        RegClass::Xsp,
        RegClass::V,
        RegClass::Q,
        RegClass::D,
        RegClass::S,
        RegClass::Z,
        RegClass::P,
        RegClass::Psr,
        RegClass::Fpscr,
        RegClass::Fpcr,
        RegClass::Fpsr,
        RegClass::Vpr,
    ];
}

/// A canonical register: class and index within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId {
    pub(crate) class: RegClass,
    pub(crate) index: u8,
}

impl RegId {
    /// Register `index` of `class`.
    pub const fn new(class: RegClass, index: u8) -> RegId {
        RegId { class, index }
    }

    pub(crate) const fn size(self) -> usize {
        self.class.size()
    }

    /// Looks up a register name as written in a trace. Returns `None` for
    /// names no view models (system registers such as `SCTLR`, `XPSR`).
    ///
    /// `sp` alone is ambiguous between r13 and the AArch64 stack pointer; the
    /// parser resolves it from the value width, so it is not handled here.
    pub fn lookup(name: &[u8]) -> Option<RegId> {
        // Fast path for the names that fill traces: x0..x30, r0..r15, w0..w30,
        // and cpsr, written on every flag-setting instruction.
        if name.eq_ignore_ascii_case(b"cpsr") {
            return Some(RegId::new(RegClass::Psr, 0));
        }
        if let [c, rest @ ..] = name {
            let class = match c {
                b'x' | b'X' => Some(RegClass::X),
                b'r' | b'R' => Some(RegClass::R),
                b'w' | b'W' => Some(RegClass::W),
                _ => None,
            };
            if let Some(class) = class {
                let n = match rest {
                    [a] if a.is_ascii_digit() => Some(a - b'0'),
                    [a, b] if a.is_ascii_digit() && b.is_ascii_digit() && *a != b'0' => {
                        Some((a - b'0') * 10 + (b - b'0'))
                    }
                    _ => None,
                };
                if let Some(n) = n {
                    return (n < class.count()).then(|| RegId::new(class, n));
                }
            }
        }
        let split = name
            .iter()
            .position(|&c| c.is_ascii_digit() || c == b'_')
            .unwrap_or(name.len());
        let (prefix, suffix) = name.split_at(split);
        for class in RegClass::ALL {
            if !prefix.eq_ignore_ascii_case(class.name().as_bytes()) {
                continue;
            }
            if suffix.is_empty() {
                if class.count() == 1 {
                    return Some(RegId::new(class, 0));
                }
                continue;
            }
            if class.count() == 1 {
                continue;
            }
            // strtoul semantics: leading digits, the rest (a bank suffix) ignored.
            let digits = suffix.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 || digits > 3 {
                continue;
            }
            let index: u32 = suffix[..digits]
                .iter()
                .fold(0, |a, &d| a * 10 + u32::from(d - b'0'));
            if index < u32::from(class.count()) {
                return Some(RegId::new(class, index as u8));
            }
        }
        if prefix.eq_ignore_ascii_case(b"msp") {
            return Some(RegId::new(RegClass::R, 13));
        }
        if prefix.eq_ignore_ascii_case(b"lr") {
            return Some(RegId::new(RegClass::R, 14));
        }
        if prefix.eq_ignore_ascii_case(b"cpsr") {
            return Some(RegId::new(RegClass::Psr, 0));
        }
        if prefix.eq_ignore_ascii_case(b"e") {
            // One flavour writes the AArch64 x registers as e0..e30.
            let digits = suffix.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 0 && digits <= 2 {
                let index = suffix[..digits]
                    .iter()
                    .fold(0u8, |a, &d| a * 10 + (d - b'0'));
                if index < 31 {
                    return Some(RegId::new(RegClass::X, index));
                }
            }
        }
        None
    }
}

impl fmt::Display for RegId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.class.name())?;
        if self.class.count() > 1 {
            write!(f, "{}", self.index)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Option<String> {
        RegId::lookup(s.as_bytes()).map(|r| r.to_string())
    }

    #[test]
    fn core_and_banked_names() {
        assert_eq!(name("r0").as_deref(), Some("r0"));
        assert_eq!(name("R15").as_deref(), Some("r15"));
        assert_eq!(name("r14_svc").as_deref(), Some("r14"));
        assert_eq!(name("r13_main_s").as_deref(), Some("r13"));
        assert_eq!(name("r13_mon").as_deref(), Some("r13"));
        assert_eq!(name("MSP_S").as_deref(), Some("r13"));
        assert_eq!(name("MSP").as_deref(), Some("r13"));
        assert_eq!(name("lr").as_deref(), Some("r14"));
        assert_eq!(name("X30").as_deref(), Some("x30"));
        assert_eq!(name("E15").as_deref(), Some("x15"));
        assert_eq!(name("w7").as_deref(), Some("w7"));
        assert_eq!(name("xsp").as_deref(), Some("xsp"));
        assert_eq!(name("wsp").as_deref(), Some("wsp"));
    }

    #[test]
    fn status_fp_and_vector_names() {
        assert_eq!(name("cpsr").as_deref(), Some("psr"));
        assert_eq!(name("CPSR").as_deref(), Some("psr"));
        assert_eq!(name("PSR").as_deref(), Some("psr"));
        assert_eq!(name("FPCR").as_deref(), Some("fpcr"));
        assert_eq!(name("fpsr").as_deref(), Some("fpsr"));
        assert_eq!(name("fpscr").as_deref(), Some("fpscr"));
        assert_eq!(name("vpr").as_deref(), Some("vpr"));
        assert_eq!(name("d8").as_deref(), Some("d8"));
        assert_eq!(name("s31").as_deref(), Some("s31"));
        assert_eq!(name("Q17").as_deref(), Some("q17"));
        assert_eq!(name("V0").as_deref(), Some("v0"));
        assert_eq!(name("Z31").as_deref(), Some("z31"));
        assert_eq!(name("P23").as_deref(), Some("p23"));
    }

    #[test]
    fn unmodelled_and_out_of_range() {
        assert_eq!(name("XPSR"), None);
        assert_eq!(name("SPSR_EL3"), None);
        assert_eq!(name("SCTLR"), None);
        assert_eq!(name("CONTROL"), None);
        assert_eq!(name("TPIDRRO_EL0"), None);
        assert_eq!(name("r16"), None);
        assert_eq!(name("x31"), None);
        assert_eq!(name("r"), None);
        assert_eq!(name("psr0"), None);
        assert_eq!(name("SP_EL3"), None);
    }
}
