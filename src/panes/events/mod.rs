//! The events pane (`v`): exceptions, interrupts, mode changes, aborted
//! accesses and unparsed lines, a page at a time, each going to its
//! position; `e`/`E` step between events and turn its page. The page is
//! the page's own (`model::nav`, its registry line's `Feed::Events` keeps
//! it fresh while the pane is shown), so the pane's state is only that it
//! is shown (`Shown`).

#[cfg(target_arch = "wasm32")]
mod view;

#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Feed, Opens, Place};
use crate::model::pane_state::Shown;

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "events",
    title: "Events",
    place: Place::Side,
    keys: &["v"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: || Box::new(Shown("Events")),
        help: "show/hide the events (exceptions, mode changes, aborts, unparsed lines)",
    },
    rank: 3,
    wide: false,
    at_start: false,
    feed: Some(Feed::Events),
    focus: None,
};
