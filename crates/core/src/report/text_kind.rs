//! Which texts and exports the Reports panel offers, and the file names
//! of their downloads ([`TextKind`], re-exported by `explore`).

use serde::{Deserialize, Serialize};

/// The reports' texts, as the CLI prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextKind {
    /// `tarmac-lens calltree`.
    Calltree,
    /// `tarmac-lens profile`.
    Profile,
    /// `tarmac-lens flamegraph` (folded stacks).
    Flamegraph,
    /// `tarmac-lens vcd --no-date` (a date would make two runs differ).
    Vcd,
    /// `tarmac-lens ep-profile` (an EP trace's: `report::ep_explore`).
    EpProfile,
    /// `tarmac-lens flow` (a branch-only trace's: `report::flow_explore`).
    Flow,
    /// `tarmac-lens export --format chrome`.
    Chrome,
    /// `tarmac-lens export --format perfetto` (binary: Perfetto's
    /// protobuf trace, one part).
    Perfetto,
    /// `tarmac-lens export --format callgrind`, by address: the panel
    /// reads no DWARF.
    Callgrind,
}

impl TextKind {
    /// The call reports' texts.
    pub const ALL: [TextKind; 7] = [
        TextKind::Calltree,
        TextKind::Profile,
        TextKind::Flamegraph,
        TextKind::Vcd,
        TextKind::Perfetto,
        TextKind::Chrome,
        TextKind::Callgrind,
    ];

    /// Whether it is an export for other tools ([`Reports::write_export`](super::explore::Reports::write_export)).
    pub fn is_export(self) -> bool {
        matches!(
            self,
            TextKind::Chrome | TextKind::Callgrind | TextKind::Perfetto
        )
    }

    /// Whether its bytes are no text.
    pub fn is_binary(self) -> bool {
        self == TextKind::Perfetto
    }

    /// The download's file name for a trace named `trace`.
    pub fn file_name(self, trace: &str) -> String {
        let ext = match self {
            TextKind::Calltree => "calltree.txt",
            TextKind::Profile => "profile.txt",
            TextKind::Flamegraph => "folded.txt",
            TextKind::Vcd => "vcd",
            TextKind::EpProfile => "ep-profile.txt",
            TextKind::Flow => "flow.txt",
            // Not `.chrome.json`: speedscope takes that for the other
            // Chrome format (DevTools' timeline).
            TextKind::Chrome => "trace.json",
            // What ui.perfetto.dev's file dialog suggests.
            TextKind::Perfetto => "pftrace",
            // KCachegrind's file dialog lists `callgrind.out.*`.
            TextKind::Callgrind => return format!("callgrind.out.{trace}"),
        };
        format!("{trace}.{ext}")
    }
}
