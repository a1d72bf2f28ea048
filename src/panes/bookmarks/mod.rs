//! The bookmarks pane (`B`): each bookmark's line, time, function and
//! note, a click going there; the note edited in place, × removing it; the
//! list exported as JSON and imported from such a file. The bookmarks are
//! the page's (`model::bookmarks`: `b`, `'` and the URL use them with the
//! pane closed), so the pane's state is only that it is
//! shown (`Shown`).

#[cfg(target_arch = "wasm32")]
mod view;

#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};
use crate::model::pane_state::Shown;

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "bookmarks",
    title: "Bookmarks",
    place: Place::Side,
    keys: &["B"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: || Box::new(Shown("Bookmarks")),
        help: "show/hide the bookmarks (line, time, function, note; click one to go there)",
    },
    rank: 2,
    wide: false,
    at_start: false,
    feed: None,
    focus: None,
};
