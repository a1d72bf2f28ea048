//! Every kind of pane besides the trace views, one line each: the slot it
//! sits in, its title, where it goes at first, the keys that open and
//! close it. The layout, the workspace, the toolbar and the tests read
//! this list, so a new kind of pane is a line here and its own files
//! (`tests/browser_model.rs` walks it: help, palette, `docs/keys.md`, a
//! French title, opening and closing by its keys).
//!
//! Keys are named as the key tables spell them (`model::keys`) rather than
//! by their command, so the layout and the key tables can both depend on
//! this file. A kind living in its own folder (`src/panes/`) also gives here
//! how to make its state and its key's help: its key then shows and hides
//! it through one generic command.

use super::pane_state::PaneState;

/// A kind of pane, as the layout places it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    Registers,
    Memory,
    Source,
    Stack,
    Events,
    Reports,
    Bookmarks,
    Watch,
    Why,
    Disassembly,
    Query,
}

/// Where a kind of pane sits at first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Right of the views: narrow panes (registers, lists).
    Side,
    /// Under the views: wide panes (16 bytes a row, source lines, tables).
    Bottom,
}

/// How a pane opened by its key closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Close {
    /// The key that opened it.
    Same,
    /// This key, with the pane focused.
    Key(&'static str),
    /// Its header's × only (the key asks what to show, so it cannot also
    /// hide).
    Button,
}

/// What a pane kind's keys do.
#[derive(Clone, Copy, Debug)]
pub enum Opens {
    /// They run the commands `model::keys` binds them to.
    Commands,
    /// They show or hide it (`Command::TogglePane`); `help` is what the
    /// keys' help and the palette say.
    Toggle {
        make: fn() -> Box<dyn PaneState>,
        help: &'static str,
    },
}

/// One kind of pane.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub slot: Slot,
    /// Its name in the layout's saved text and the page's `data-slot`.
    pub name: &'static str,
    /// English; translated where shown (`i18n::t`).
    pub title: &'static str,
    pub place: Place,
    /// The keys (as `keys::key_name` spells them) that open it.
    pub keys: &'static [&'static str],
    /// What the key asks for before the pane opens, as a person would type
    /// it (`None`: it opens at once).
    pub prompt: Option<&'static str>,
    pub close: Close,
    pub opens: Opens,
    /// How it is listed among the other panes of its area: panes of the
    /// same rank keep the order they opened in.
    pub rank: u8,
}

/// Every kind of pane, in [`Slot`]'s order. The register, memory and
/// source panes follow a view's position and take the keyboard
/// focus; the others are lists about the trace or the active view.
pub const PANES: [Entry; 11] = [
    Entry {
        slot: Slot::Registers,
        name: "registers",
        title: "Registers",
        place: Place::Side,
        keys: &["r", "S", "D", "V", "M", "Z", "w"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Commands,
        rank: 0,
    },
    Entry {
        slot: Slot::Memory,
        name: "memory",
        title: "Memory",
        place: Place::Bottom,
        keys: &["m"],
        prompt: Some("sp"),
        close: Close::Key("x"),
        opens: Opens::Commands,
        rank: 0,
    },
    Entry {
        slot: Slot::Source,
        name: "source",
        title: "Source",
        place: Place::Bottom,
        keys: &["s"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Commands,
        rank: 0,
    },
    Entry {
        slot: Slot::Stack,
        name: "stack",
        title: "Call stack",
        place: Place::Side,
        keys: &["C"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Commands,
        rank: 1,
    },
    Entry {
        slot: Slot::Events,
        name: "events",
        title: "Events",
        place: Place::Side,
        keys: &["v"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Commands,
        rank: 3,
    },
    Entry {
        slot: Slot::Reports,
        name: "reports",
        title: "Reports",
        place: Place::Bottom,
        keys: &["R"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Commands,
        rank: 6,
    },
    Entry {
        slot: Slot::Bookmarks,
        name: "bookmarks",
        title: "Bookmarks",
        place: Place::Side,
        keys: &["B"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Commands,
        rank: 2,
    },
    Entry {
        slot: Slot::Watch,
        name: "watch",
        title: "Watch",
        place: Place::Side,
        keys: &["W"],
        prompt: Some("sp"),
        close: Close::Button,
        opens: Opens::Commands,
        rank: 4,
    },
    Entry {
        slot: Slot::Why,
        name: "why",
        title: "Why this value?",
        place: Place::Side,
        keys: &["y"],
        prompt: Some("sp"),
        close: Close::Button,
        opens: Opens::Commands,
        rank: 5,
    },
    Entry {
        slot: Slot::Disassembly,
        name: "disassembly",
        title: "Disassembly",
        place: Place::Bottom,
        keys: &["i"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Toggle {
            make: crate::panes::disassembly::Disassembly::boxed,
            help: "show/hide the disassembly of the function around the position: each instruction's executions and failed conditions; click one to go to its next execution",
        },
        rank: 0,
    },
    Entry {
        slot: Slot::Query,
        name: "query",
        title: "Query",
        place: Place::Bottom,
        keys: &["Q"],
        prompt: None,
        close: Close::Same,
        opens: Opens::Toggle {
            make: crate::panes::query::Query::boxed,
            help: "show/hide the Query pane: SQL over the trace's tables (instructions, registers, memory, calls, functions, source lines, events, unparsed lines); Ctrl-Enter runs, Escape stops; click a line or time to go there",
        },
        rank: 7,
    },
];

impl Slot {
    pub const ALL: [Slot; PANES.len()] = {
        let mut all = [Slot::Registers; PANES.len()];
        let mut i = 0;
        while i < PANES.len() {
            all[i] = PANES[i].slot;
            i += 1;
        }
        all
    };

    /// Its line in [`PANES`].
    pub fn entry(self) -> &'static Entry {
        &PANES[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.entry().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_in_slot_order_and_names_are_unique() {
        for (i, e) in PANES.iter().enumerate() {
            assert_eq!(e.slot as usize, i, "{}", e.name);
            assert_eq!(PANES.iter().filter(|o| o.name == e.name).count(), 1);
        }
    }
}
