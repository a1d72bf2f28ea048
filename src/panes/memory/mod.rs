//! The memory panes (`m`): 16 bytes a row at a view's position, unknown
//! bytes as `??`, those changed since the compared position (the view's
//! previous one, or a line chosen with `d`) marked; `[`/`]` find the
//! nearest changed byte, reading on a few KiB at a time. There may be
//! several, each at its own address.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{MemMsg, MemoryPane};
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, PaneKind, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "memory",
    title: "Memory",
    place: Place::Bottom,
    keys: &["m"],
    prompt: Some("sp"),
    close: Close::Key("x"),
    opens: Opens::Address {
        make: MemoryPane::boxed,
    },
    rank: 0,
    wide: false,
    at_start: false,
    feed: None,
    focus: Some(PaneKind::Memory),
};
