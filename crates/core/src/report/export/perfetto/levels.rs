//! The exception level (AArch64) or privilege level (AArch32) a trace's
//! mode field names: calls at each level get a track of their own.

/// The level of `mode` as a track's label: `EL0`–`EL3` for an AArch64
/// mode (`EL1h_ns`, `el0t_s`), `PL0`–`PL2` for an AArch32 one (`usr` is
/// PL0, `hyp` PL2, the other modes PL1: which exception level PL1 is
/// depends on the state EL3 runs in, which the trace does not say), with
/// `S-`/`NS-` when the mode gives the security state (`_s`, `_n` or
/// `_ns`; EL3 has only one). Any other text is its own label.
pub(super) fn label(mode: &[u8]) -> String {
    let text = String::from_utf8_lossy(mode);
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let (base, security) = match lower.rsplit_once('_') {
        Some((b, "s")) => (b, Some("S-")),
        Some((b, "ns" | "n")) => (b, Some("NS-")),
        _ => (lower.as_str(), None),
    };
    let level = if let Some(n) = base
        .strip_prefix("el")
        .and_then(|r| r.strip_suffix(['h', 't']).or(Some(r)))
        .filter(|n| matches!(*n, "0" | "1" | "2" | "3"))
    {
        if n == "3" {
            return "EL3".into();
        }
        format!("EL{n}")
    } else {
        match base {
            "usr" | "user" => "PL0".into(),
            "hyp" => "PL2".into(),
            "svc" | "irq" | "fiq" | "abt" | "und" | "sys" | "mon" => "PL1".into(),
            _ => return text.to_string(),
        }
    };
    format!("{}{level}", security.unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn modes_name_their_level() {
        for (mode, want) in [
            ("EL3h_s", "EL3"),
            ("el3h_s", "EL3"),
            ("EL1h_ns", "NS-EL1"),
            ("EL1h_n", "NS-EL1"),
            ("EL1t_s", "S-EL1"),
            ("EL0t_ns", "NS-EL0"),
            ("EL2h", "EL2"),
            ("svc_s", "S-PL1"),
            ("abt_s", "S-PL1"),
            ("usr_ns", "NS-PL0"),
            ("hyp", "PL2"),
            ("mon_s", "S-PL1"),
            ("irq", "PL1"),
            ("weird", "weird"),
            ("EL7h", "EL7h"),
        ] {
            assert_eq!(label(mode.as_bytes()), want, "{mode}");
        }
    }
}
