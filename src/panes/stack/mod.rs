//! The call stack pane (`C`): the calls active at the active view's
//! position, innermost first, each going to its call. It asks nothing:
//! the view already holds its calls (`TraceView::stack`), so its state is
//! only that it is shown.

#[cfg(target_arch = "wasm32")]
mod view;

#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::i18n::t;
use crate::model::pane_kind::{Close, Entry, Opens, Place};
use crate::model::pane_state::PaneState;
use tarmac_lens_core::browse::protocol::{NodeId, Query, Reply};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "stack",
    title: "Call stack",
    place: Place::Side,
    keys: &["C"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: CallStack::boxed,
        help: "show/hide the call stack",
    },
    rank: 1,
    wide: false,
    at_start: true,
    feed: None,
};

/// The pane's state: nothing beyond being shown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallStack;

impl CallStack {
    /// The pane as it opens (`Opens::Toggle`'s `make`).
    pub fn boxed() -> Box<dyn PaneState> {
        Box::new(CallStack)
    }
}

impl PaneState for CallStack {
    fn query(&self, _: NodeId) -> Option<Query> {
        None
    }

    fn take(&mut self, _: Reply) -> Result<(), String> {
        Ok(())
    }

    fn title(&self) -> String {
        t("Call stack").into()
    }
}
