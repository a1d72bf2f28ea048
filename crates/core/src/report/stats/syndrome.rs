//! The registers an exception entry writes, in words: the syndrome
//! (`ESR_ELx`, by `aarch64-esr-decoder`), the saved and current program
//! status (`SPSR_ELx`, `cpsr`, AArch32's `spsr_<mode>`, M-profile's xPSR)
//! and M-profile's `EXC_RETURN`. A value no rule reads is shown as its
//! number, never dropped: an ESR whose class the decoder does not know
//! reads `EC 0x3f (not a class the decoder knows)`.

use super::context::Profile;

/// `name = value` in words, or `None` for a register these rules do not
/// read (its value is still shown by the caller).
pub fn describe(name: &str, value: u64, profile: Profile) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("esr_el") {
        return Some(esr(value));
    }
    if lower.starts_with("spsr_el") {
        return Some(if value & 0x10 != 0 {
            aarch32_psr(value)
        } else {
            aarch64_psr(value)
        });
    }
    let psr =
        matches!(lower.as_str(), "cpsr" | "psr" | "xpsr" | "apsr") || lower.starts_with("spsr");
    if psr {
        return Some(match profile {
            Profile::M => xpsr(value),
            Profile::AArch64 if !lower.starts_with("spsr_") => aarch64_psr(value),
            _ => aarch32_psr(value),
        });
    }
    if profile == Profile::M && matches!(lower.as_str(), "r14" | "lr") && value >> 24 == 0xff {
        return Some(exc_return(value));
    }
    None
}

/// An Exception Syndrome Register value.
pub fn esr(value: u64) -> String {
    let ec = (value >> 26) & 0x3f;
    match aarch64_esr_decoder::decode(value) {
        Ok(fields) => {
            let mut parts = Vec::new();
            for f in &fields {
                match f.name {
                    "EC" => parts.push(format!(
                        "EC 0x{:02x} {}",
                        f.value,
                        f.description.as_deref().unwrap_or("")
                    )),
                    "IL" => parts.push(format!(
                        "IL {}",
                        f.description.as_deref().unwrap_or(if f.value == 1 {
                            "32-bit instruction"
                        } else {
                            "16-bit instruction"
                        })
                    )),
                    "ISS" => {
                        let sub: Vec<String> = f
                            .subfields
                            .iter()
                            .filter(|s| s.name != "RES0")
                            .map(|s| match &s.description {
                                Some(d) => format!("{} {} ({d})", s.name, s.value_string()),
                                None => format!("{} {}", s.name, s.value_string()),
                            })
                            .collect();
                        if sub.is_empty() {
                            parts.push(format!("ISS 0x{:x}", f.value));
                        } else {
                            parts.push(format!("ISS 0x{:x}: {}", f.value, sub.join(", ")));
                        }
                    }
                    _ => {}
                }
            }
            parts.join("; ")
        }
        Err(_) => format!(
            "EC 0x{ec:02x} (not a class the decoder knows); IL {}; ISS 0x{:x}",
            (value >> 25) & 1,
            value & 0x1ff_ffff
        ),
    }
}

fn flags(value: u64) -> String {
    let mut s = String::new();
    for (bit, c) in [(31, 'N'), (30, 'Z'), (29, 'C'), (28, 'V')] {
        s.push(if value >> bit & 1 == 1 {
            c
        } else {
            c.to_ascii_lowercase()
        });
    }
    s
}

fn masks(value: u64, bits: &[(u32, char)]) -> String {
    let set: String = bits
        .iter()
        .filter(|(b, _)| value >> b & 1 == 1)
        .map(|(_, c)| *c)
        .collect();
    if set.is_empty() {
        "none masked".into()
    } else {
        format!("{set} masked")
    }
}

/// AArch64 PSTATE as `SPSR_ELx` (or a trace's `cpsr`) holds it.
pub fn aarch64_psr(value: u64) -> String {
    let m = value & 0xf;
    let mode = match m {
        0b0000 => "EL0t".to_string(),
        0b0100 => "EL1t".to_string(),
        0b0101 => "EL1h".to_string(),
        0b1000 => "EL2t".to_string(),
        0b1001 => "EL2h".to_string(),
        0b1100 => "EL3t".to_string(),
        0b1101 => "EL3h".to_string(),
        other => format!("mode 0b{other:04b} (reserved)"),
    };
    format!(
        "{mode} (AArch64), {}, {}",
        flags(value),
        masks(value, &[(9, 'D'), (8, 'A'), (7, 'I'), (6, 'F')])
    )
}

/// An AArch32 CPSR or SPSR.
pub fn aarch32_psr(value: u64) -> String {
    let mode = match value & 0x1f {
        0b10000 => "usr",
        0b10001 => "fiq",
        0b10010 => "irq",
        0b10011 => "svc",
        0b10110 => "mon",
        0b10111 => "abt",
        0b11010 => "hyp",
        0b11011 => "und",
        0b11111 => "sys",
        _ => "reserved mode",
    };
    let state = if value >> 5 & 1 == 1 { "Thumb" } else { "Arm" };
    let mut s = format!(
        "{mode} ({state}), {}, {}",
        flags(value),
        masks(value, &[(8, 'A'), (7, 'I'), (6, 'F')])
    );
    if value >> 27 & 1 == 1 {
        s.push_str(", Q");
    }
    if value >> 9 & 1 == 1 {
        s.push_str(", big-endian data");
    }
    s
}

/// An M-profile exception number's name.
pub fn m_exception_name(n: u64) -> String {
    match n {
        0 => "none (thread mode)".into(),
        1 => "Reset".into(),
        2 => "NMI".into(),
        3 => "HardFault".into(),
        4 => "MemManage".into(),
        5 => "BusFault".into(),
        6 => "UsageFault".into(),
        7 => "SecureFault".into(),
        11 => "SVCall".into(),
        12 => "DebugMonitor".into(),
        14 => "PendSV".into(),
        15 => "SysTick".into(),
        n if n >= 16 => format!("IRQ {}", n - 16),
        n => format!("reserved exception {n}"),
    }
}

/// An M-profile xPSR: flags, Thumb bit and the IPSR's exception number.
pub fn xpsr(value: u64) -> String {
    let ipsr = value & 0x1ff;
    let mut s = format!(
        "{}, exception {ipsr} ({})",
        flags(value),
        m_exception_name(ipsr)
    );
    if value >> 24 & 1 == 0 {
        s.push_str(", T clear (a fault on the next instruction)");
    }
    if value >> 27 & 1 == 1 {
        s.push_str(", Q");
    }
    s
}

/// An M-profile `EXC_RETURN` value.
pub fn exc_return(value: u64) -> String {
    let to = if value >> 3 & 1 == 1 {
        "Thread"
    } else {
        "Handler"
    };
    let stack = if value >> 2 & 1 == 1 { "PSP" } else { "MSP" };
    let frame = if value >> 4 & 1 == 1 {
        "basic frame"
    } else {
        "frame with floating point"
    };
    format!("EXC_RETURN: return to {to} mode on {stack}, {frame}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syndromes_in_words() {
        let svc = esr(0x5600_0000);
        assert!(
            svc.starts_with("EC 0x15 SVC instruction execution in AArch64 state"),
            "{svc}"
        );
        assert!(svc.contains("imm16 0x0000"), "{svc}");
        let abort = esr(0x9600_0021);
        assert!(abort.contains("EC 0x25 Data Abort"), "{abort}");
        assert!(abort.contains("Alignment fault"), "{abort}");
        // No exception class 0x3f: its number, not a guess.
        let unknown = esr(0xfc00_0000);
        assert_eq!(
            unknown,
            "EC 0x3f (not a class the decoder knows); IL 0; ISS 0x0"
        );
    }

    #[test]
    fn program_status_in_words() {
        assert_eq!(aarch64_psr(0x3cd), "EL3h (AArch64), nzcv, DAIF masked");
        assert_eq!(
            aarch64_psr(0x6000_0005),
            "EL1h (AArch64), nZCv, none masked"
        );
        assert_eq!(aarch32_psr(0x1d3), "svc (Arm), nzcv, AIF masked");
        assert_eq!(aarch32_psr(0x1f0), "usr (Thumb), nzcv, AIF masked");
        assert_eq!(
            xpsr(0x4000_000b),
            "nZcv, exception 11 (SVCall), T clear (a fault on the next instruction)"
        );
        assert_eq!(xpsr(0x0100_000f), "nzcv, exception 15 (SysTick)");
        assert_eq!(
            exc_return(0xffff_fff9),
            "EXC_RETURN: return to Thread mode on MSP, basic frame"
        );
        assert_eq!(
            exc_return(0xffff_fff1),
            "EXC_RETURN: return to Handler mode on MSP, basic frame"
        );
        assert_eq!(
            describe("SPSR_EL1", 0x3c5, Profile::AArch64).unwrap(),
            "EL1h (AArch64), nzcv, DAIF masked"
        );
        assert_eq!(describe("ELR_EL1", 0x1000, Profile::AArch64), None);
        assert!(describe("r14", 0xffff_fffd, Profile::M)
            .unwrap()
            .contains("PSP"));
    }
}
