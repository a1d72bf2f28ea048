//! The Reports panel (`R`): the trace's call tree, profile, flame graph,
//! coverage and statistics (or an EP or branch-only trace's own), each a
//! tab, computed by a worker of its own. The panel's parts are
//! `model::reports_panel` and `web::components::reports` (each with its
//! tests); this folder is the pane: the tab shown, which the model's
//! commands (`R`, `F`, `g`, the palette's functions) set by message.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::Reports;
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "reports",
    title: "Reports",
    place: Place::Bottom,
    keys: &["R"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Shown {
        make: Reports::boxed,
    },
    rank: 6,
    wide: true,
    at_start: false,
    feed: None,
    focus: None,
};
