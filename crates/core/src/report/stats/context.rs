//! Where an instruction ran, from the mode field the trace writes beside
//! it: the exception level and security state of an A-profile core
//! (`EL3h_s`, `EL1t_ns`, AArch32's `svc_s`, `usr_ns`), or the mode of an
//! M-profile core (`thread`, `handler`, `thrd_s`, `hndl_ns`, `lockup`).
//! A mode no rule reads is kept as written, its level unknown.

use serde::{Deserialize, Serialize};

/// Which architecture profile a mode belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Profile {
    /// A-profile, AArch64 (`ELnh`, `ELnt`).
    AArch64,
    /// A-profile, AArch32 (`usr`, `svc`, `irq`, ...).
    AArch32,
    /// M-profile (`thread`, `handler`).
    M,
    /// Not a mode these rules read.
    Unknown,
}

/// The security state a mode names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Security {
    /// `_s`.
    Secure,
    /// `_ns`.
    NonSecure,
    /// `_r`, `_rl`: Realm.
    Realm,
    /// `_rt`: Root.
    Root,
    /// The mode has no suffix.
    Unstated,
}

impl Security {
    /// As reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Security::Secure => "Secure",
            Security::NonSecure => "Non-secure",
            Security::Realm => "Realm",
            Security::Root => "Root",
            Security::Unstated => "(not stated)",
        }
    }
}

/// One mode as the trace writes it, read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Context {
    /// The mode as written (empty when the trace writes none).
    pub mode: String,
    /// Its profile.
    pub profile: Profile,
    /// The exception level (0-3) of an A-profile mode.
    pub level: Option<u8>,
    /// M-profile: handler mode (exceptions) rather than thread mode.
    pub handler: Option<bool>,
    /// Its security state.
    pub security: Security,
}

impl Context {
    /// Reads a mode field.
    pub fn of(mode: &[u8]) -> Context {
        let text = String::from_utf8_lossy(mode).into_owned();
        let lower = text.to_ascii_lowercase();
        let (base, security) = match lower.rsplit_once('_') {
            Some((b, "s")) => (b, Security::Secure),
            Some((b, "ns")) => (b, Security::NonSecure),
            Some((b, "r" | "rl")) => (b, Security::Realm),
            Some((b, "rt")) => (b, Security::Root),
            _ => (lower.as_str(), Security::Unstated),
        };
        let mut c = Context {
            mode: text.clone(),
            profile: Profile::Unknown,
            level: None,
            handler: None,
            security,
        };
        let b = base.as_bytes();
        if b.len() == 4 && b.starts_with(b"el") && matches!(b[3], b'h' | b't') {
            if let Some(l @ 0..=3) = (b[2] as char).to_digit(10) {
                c.profile = Profile::AArch64;
                c.level = Some(l as u8);
                return c;
            }
        }
        let aarch32_level = match base {
            "usr" => Some(0),
            "svc" | "irq" | "fiq" | "abt" | "und" | "sys" => Some(1),
            "hyp" => Some(2),
            "mon" => Some(3),
            _ => None,
        };
        if let Some(l) = aarch32_level {
            c.profile = Profile::AArch32;
            c.level = Some(l);
            return c;
        }
        match base {
            "thread" | "thrd" => {
                c.profile = Profile::M;
                c.handler = Some(false);
            }
            "handler" | "hndl" => {
                c.profile = Profile::M;
                c.handler = Some(true);
            }
            "lockup" => c.profile = Profile::M,
            _ => {}
        }
        c
    }

    /// Where it is, in words: `EL1 Non-secure`, `Handler Secure`.
    pub fn describe(&self) -> String {
        let place = match (self.profile, self.level, self.handler) {
            (Profile::AArch64 | Profile::AArch32, Some(l), _) => format!("EL{l}"),
            (Profile::M, _, Some(true)) => "Handler".to_string(),
            (Profile::M, _, Some(false)) => "Thread".to_string(),
            (Profile::M, _, None) => "Lockup".to_string(),
            _ => return "(unknown level)".to_string(),
        };
        match self.security {
            Security::Unstated => place,
            s => format!("{place} {}", s.name()),
        }
    }

    /// The level as a report groups by it: `EL0`..`EL3`, `Thread`,
    /// `Handler`, `Lockup`, or `?`.
    pub fn level_name(&self) -> String {
        match (self.profile, self.level, self.handler) {
            (_, Some(l), _) => format!("EL{l}"),
            (Profile::M, _, Some(true)) => "Handler".to_string(),
            (Profile::M, _, Some(false)) => "Thread".to_string(),
            (Profile::M, _, None) => "Lockup".to_string(),
            _ => "?".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_of_every_profile() {
        let c = Context::of(b"EL3h_s");
        assert_eq!(
            (c.profile, c.level, c.security),
            (Profile::AArch64, Some(3), Security::Secure)
        );
        assert_eq!(c.describe(), "EL3 Secure");
        let c = Context::of(b"el1t_ns");
        assert_eq!((c.level, c.security), (Some(1), Security::NonSecure));
        let c = Context::of(b"EL2h_rt");
        assert_eq!(c.security, Security::Root);
        let c = Context::of(b"svc_s");
        assert_eq!((c.profile, c.level), (Profile::AArch32, Some(1)));
        assert_eq!(Context::of(b"usr_ns").level, Some(0));
        assert_eq!(Context::of(b"mon_s").level, Some(3));
        let c = Context::of(b"thread");
        assert_eq!((c.profile, c.handler), (Profile::M, Some(false)));
        assert_eq!(c.describe(), "Thread");
        let c = Context::of(b"hndl_ns");
        assert_eq!((c.handler, c.security), (Some(true), Security::NonSecure));
        assert_eq!(c.describe(), "Handler Non-secure");
        assert_eq!(Context::of(b"thrd_s").describe(), "Thread Secure");
        assert_eq!(Context::of(b"lockup").describe(), "Lockup");
        let c = Context::of(b"weird");
        assert_eq!((c.profile, c.level_name()), (Profile::Unknown, "?".into()));
        assert_eq!(c.mode, "weird");
        assert_eq!(Context::of(b"").describe(), "(unknown level)");
    }
}
