//! The source pane (`s`): the file and line of a view's position from the
//! image's DWARF, each line's execution count, a clicked line's
//! executions (`n`/`N` step through them), and stepping by source line
//! (`j`/`k`, `o` over a call, `u` out of it). It follows one view (one
//! pane per view if need be) and takes the keyboard focus. The source
//! text is the person's (`model::source`); without it, the pane names the
//! file it wants. The model runs `s` and the Coverage tab's "show this
//! line" (`model::source_following`); this folder's state answers them.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{SourceMsg, SourcePane};
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, PaneKind, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "source",
    title: "Source",
    place: Place::Bottom,
    keys: &["s"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Shown {
        make: SourcePane::boxed,
    },
    rank: 0,
    wide: false,
    at_start: false,
    feed: None,
    focus: Some(PaneKind::Source),
};
