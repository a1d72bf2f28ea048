//! Every kind of pane besides the trace views, one line each: the slot it
//! sits in, its title, where it goes at first, the keys that open and
//! close it. The layout, the workspace, the toolbar and the tests read
//! this list (`tests/browser_model.rs` walks it: help, palette,
//! `docs/keys.md`, a French title, opening and closing by its keys).
//!
//! Keys are named as the key tables spell them (`model::keys`) rather than
//! by their command, so the layout and the key tables can both depend on
//! this file. A kind living in its own folder (`src/panes/`) gives its
//! line itself (`ENTRY` in its `mod.rs`, listed by `panes::ENTRIES`), with
//! how to make its state and its key's help: its key then shows and hides
//! it through one generic command, and nothing here names it.

pub use super::pane_kind::{Close, Entry, Feed, OpenOn, Opens, PaneKind, Place};

/// A kind of pane: its line in [`PANES`]. A number rather than an enum so
/// that a kind in its own folder needs no variant here.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot(u8);

impl Slot {
    /// The register panes: first in `panes::kinds!` (a test holds it),
    /// named by the layout's rules (their area decides their columns).
    pub const REGISTERS: Slot = Slot(0);
    /// The memory panes: second in `panes::kinds!`, named by the layout's
    /// rules (in the bottom row they take their width).
    pub const MEMORY: Slot = Slot(1);

    /// Every kind, in [`PANES`]' order.
    pub const ALL: [Slot; PANES.len()] = {
        let mut all = [Slot(0); PANES.len()];
        let mut i = 0;
        while i < PANES.len() {
            all[i] = Slot(i as u8);
            i += 1;
        }
        all
    };

    /// Its line in [`PANES`].
    pub fn entry(self) -> &'static Entry {
        &PANES[self.index()]
    }

    /// Its name in the layout's saved text and the page's `data-slot`.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// Its place in [`PANES`] and [`Slot::ALL`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The kind of this [`Entry::name`].
    pub fn named(name: &str) -> Option<Slot> {
        Slot::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every kind of pane, each in a folder of its own (`panes::ENTRIES`).
pub const PANES: [Entry; crate::panes::ENTRIES.len()] = crate::panes::ENTRIES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_name_their_slot() {
        for slot in Slot::ALL {
            let name = slot.name();
            assert_eq!(PANES.iter().filter(|o| o.name == name).count(), 1);
            assert_eq!(Slot::named(name), Some(slot), "{name}");
        }
        assert_eq!(Slot::REGISTERS.name(), "registers");
        assert_eq!(Slot::MEMORY.name(), "memory");
        assert_eq!(Slot::named("no such pane"), None);
    }
}
