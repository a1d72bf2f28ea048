//! The call stack pane (`C`): the calls active at the active view's
//! position, innermost first, each going to its call. It asks nothing:
//! the view already holds its calls (`TraceView::stack`), so its state is
//! only that it is shown.

#[cfg(target_arch = "wasm32")]
mod view;

#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};
use crate::model::pane_state::Shown;

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "stack",
    title: "Call stack",
    place: Place::Side,
    keys: &["C"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: || Box::new(Shown("Call stack")),
        help: "show/hide the call stack",
    },
    rank: 1,
    wide: false,
    at_start: true,
    feed: None,
    focus: None,
};
