//! The "why this value?" pane (`y`): where a register's or memory byte's
//! value came from, as a tree of the writes that made it. The model runs
//! `y` (a selection, a prompt, a context menu: `model::explaining`); the
//! tree, the questions that grow it and its keys are this folder's.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{source_kind, source_label, Path, Why, WhyKey, WhyMsg, DEPTH, MORE_DEPTH};
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "why",
    title: "Why this value?",
    place: Place::Side,
    keys: &["y"],
    prompt: Some("sp"),
    close: Close::Button,
    opens: Opens::Target { make: Why::boxed },
    rank: 5,
    wide: false,
    at_start: false,
    feed: None,
    focus: None,
};
