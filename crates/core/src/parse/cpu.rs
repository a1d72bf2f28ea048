//! Which core a multi-core trace's line belongs to. Fast Models and gem5
//! interleave several CPUs in one file, each line naming its source in the
//! `<cpu>` field (`cpu0`, `cpu1`); a report or a browsing session for one
//! core feeds the engine that core's lines only (see `engine::Engine::feed`).

use std::fmt;

use crate::Error;

/// Whether a word in the `<cpu>` field's place names a core: `cpu0`, or a
/// model's dotted path ending in one (`cluster0.cpu2`, as Fast Models
/// write a core of a multi-cluster system). Event types have no dot.
#[inline(always)]
pub(crate) fn is_cpu_field(word: &[u8]) -> bool {
    // The event types the fast path reads are shorter than a dotted name:
    // one comparison for them (a search for the dot was 2% of indexing).
    word.starts_with(b"cpu") || (word.len() > 4 && dotted_cpu(word))
}

#[inline(never)]
fn dotted_cpu(word: &[u8]) -> bool {
    match word.iter().rposition(|&b| b == b'.') {
        Some(dot) => word[dot + 1..].starts_with(b"cpu"),
        None => false,
    }
}

/// A core's name as the trace's `<cpu>` field spells it, kept inline so
/// that options holding it stay `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CpuName {
    len: u8,
    bytes: [u8; CpuName::MAX],
}

impl CpuName {
    /// Longest name accepted: real names are `cpu0`..`cpu255` or a few more
    /// characters.
    pub(crate) const MAX: usize = 31;

    /// The name, checked to be what the parser takes for a `<cpu>` field: a
    /// word starting with `cpu`, or a dotted path whose last part does
    /// (`cluster0.cpu2`).
    pub fn new(name: &[u8]) -> crate::Result<CpuName> {
        let shown = String::from_utf8_lossy(name);
        if !is_cpu_field(name)
            || name
                .iter()
                .any(|b| b.is_ascii_whitespace() || !b.is_ascii_graphic())
        {
            return Err(Error::CoreName(format!(
                "'{}' is not a core name: the trace's <cpu> field is a word starting with 'cpu' (cpu0, cpu1, …), or a path ending in one (cluster0.cpu2)",
                shown
            )));
        }
        if name.len() > Self::MAX {
            return Err(Error::CoreName(format!(
                "core name '{}' is longer than {} characters",
                shown,
                Self::MAX
            )));
        }
        let mut bytes = [0; Self::MAX];
        bytes[..name.len()].copy_from_slice(name);
        Ok(CpuName {
            len: name.len() as u8,
            bytes,
        })
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Display for CpuName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.as_bytes()))
    }
}

impl fmt::Debug for CpuName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuName({})", self)
    }
}

impl std::str::FromStr for CpuName {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CpuName::new(s.as_bytes())
    }
}

// As its text: the page sends the chosen core to the worker.
impl serde::Serialize for CpuName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for CpuName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        CpuName::new(s.as_bytes()).map_err(serde::de::Error::custom)
    }
}

/// Tracks which core the current line belongs to: a line with a `<cpu>`
/// field decides; a line without one (an `LD`/`ST` diagram's continuation, a
/// dialect without the field) belongs to the core of the line before it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CoreSelect {
    want: CpuName,
    selected: bool,
}

impl CoreSelect {
    /// Starts selected: a node's first line is always the wanted core's, so
    /// a replay resumed at a node boundary starts right.
    pub(crate) fn new(want: CpuName) -> CoreSelect {
        CoreSelect {
            want,
            selected: true,
        }
    }

    /// Whether the last line was the core's (for carrying the state
    /// between workers).
    pub(crate) fn selected(&self) -> bool {
        self.selected
    }

    pub(crate) fn set_selected(&mut self, selected: bool) {
        self.selected = selected;
    }

    /// Whether the line whose `<cpu>` field is `cpu` belongs to the core.
    pub(crate) fn line(&mut self, cpu: Option<&[u8]>) -> bool {
        if let Some(c) = cpu {
            self.selected = c == self.want.as_bytes();
        }
        self.selected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert_eq!(CpuName::new(b"cpu1").unwrap().as_bytes(), b"cpu1");
        assert_eq!("cpu12".parse::<CpuName>().unwrap().to_string(), "cpu12");
        assert!(CpuName::new(b"core1")
            .unwrap_err()
            .to_string()
            .contains("not a core name"));
        assert!(CpuName::new(b"cpu 1").is_err());
        assert_eq!(
            CpuName::new(b"cluster0.cpu2").unwrap().to_string(),
            "cluster0.cpu2"
        );
        assert!(CpuName::new(b"cluster0.gpu2").is_err());
        assert!(CpuName::new(b"cluster0.").is_err());
        assert!(CpuName::new(b"").is_err());
        let long = format!("cpu{}", "9".repeat(40));
        assert!(CpuName::new(long.as_bytes())
            .unwrap_err()
            .to_string()
            .contains("longer"));
    }

    #[test]
    fn names_travel_as_text() {
        let c: CpuName = serde_json::from_str("\"cpu3\"").unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"cpu3\"");
        assert!(serde_json::from_str::<CpuName>("\"gpu3\"").is_err());
    }

    #[test]
    fn lines_without_a_field_follow_the_line_before() {
        let mut s = CoreSelect::new(CpuName::new(b"cpu1").unwrap());
        assert!(s.line(None));
        assert!(!s.line(Some(b"cpu0")));
        assert!(!s.line(None));
        assert!(s.line(Some(b"cpu1")));
        assert!(s.line(None));
        assert!(!s.line(Some(b"cpu10")));
    }
}
