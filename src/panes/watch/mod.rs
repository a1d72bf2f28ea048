//! The watch pane (`W`): a watchpoint on a register or a memory range (a
//! register or memory pane's selection, one typed at the prompt, or a
//! context menu's), its accesses listed as the worker finds them (a piece
//! per answer, asked again until the end of what is indexed, then again as
//! indexing goes on), and the access before or after the position (`(`,
//! `)`). The model runs those commands (`model::watching`) and this
//! folder's state answers them, so no model arm names the pane's type.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{Watch, WatchMsg, MAX_LISTED};
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "watch",
    title: "Watch",
    place: Place::Side,
    keys: &["W"],
    prompt: Some("sp"),
    close: Close::Button,
    opens: Opens::Target { make: Watch::boxed },
    rank: 4,
    wide: false,
    at_start: false,
    feed: None,
    focus: None,
};
