//! The disassembly pane (`i`): the ELF image's function around the
//! position, each instruction with how often it ran and failed its
//! condition; the position's instruction marked, those never run greyed; a
//! click goes to the instruction's next execution.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{Disassembly, Line};
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "disassembly",
    title: "Disassembly",
    place: Place::Bottom,
    keys: &["i"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: Disassembly::boxed,
        help: "show/hide the disassembly of the function around the position: each instruction's executions and failed conditions; click one to go to its next execution",
    },
    rank: 0,
    wide: false,
    at_start: false,
    feed: None,
    focus: None,
};
