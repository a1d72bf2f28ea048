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
