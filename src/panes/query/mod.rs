//! The Query pane (`Q`): SQL over the trace tables (`docs/tables.md`) by
//! the query engine of crates/sql, which runs in a worker of its own
//! fetched when the pane first opens (`web::page::sql_client`): the
//! tables and their columns, an editor with a history, the result as a
//! window over its rows, its `line` and `time` cells links to there.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::*;
#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::model::pane_kind::{Close, Entry, Opens, Place};
use crate::model::pane_state::Shown;

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "query",
    title: "Query",
    place: Place::Bottom,
    keys: &["Q"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: || Box::new(Shown("Query")),
        help: "show/hide the Query pane: SQL over the trace's tables (instructions, registers, memory, calls, functions, source lines, events, unparsed lines); Ctrl-Enter runs, Escape stops; click a line or time to go there",
    },
    rank: 7,
    wide: true,
    at_start: false,
    feed: None,
    focus: None,
};
