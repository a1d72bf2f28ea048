//! The register panes (`r S D V M Z w`): one set of registers at a view's
//! position, one pane per set, with what the position wrote (or, `c`, what
//! changed since the compared position) marked. A click goes to the
//! selected register's previous write; `a` names the symbol at its value;
//! a right-click offers its why, watch, writes and a memory pane there.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{RegMsg, RegistersPane};
#[cfg(target_arch = "wasm32")]
pub use view::{view, RegisterPane, RegisterPaneProps};

use crate::model::pane_kind::{Close, Entry, Opens, PaneKind, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "registers",
    title: "Registers",
    place: Place::Side,
    keys: &["r", "S", "D", "V", "M", "Z", "w"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Registers {
        make: RegistersPane::boxed,
    },
    rank: 0,
    wide: false,
    at_start: false,
    feed: None,
    focus: Some(PaneKind::Registers),
};
