//! The events pane (`v`): exceptions, interrupts, mode changes, aborted
//! accesses and unparsed lines, a page at a time, each going to its
//! position; `e`/`E` step between events and turn its page. The page is
//! the page's own (`model::nav`, its registry line's `Feed::Events` keeps
//! it fresh while the pane is shown), so the pane's state is only that it
//! is shown.

#[cfg(target_arch = "wasm32")]
mod view;

#[cfg(target_arch = "wasm32")]
pub use view::view;

use crate::i18n::t;
use crate::model::pane_kind::{Close, Entry, Feed, Opens, Place};
use crate::model::pane_state::PaneState;
use tarmac_lens_core::browse::protocol::{NodeId, Query, Reply};

/// Its line in the registry (`model::registry`).
pub const ENTRY: Entry = Entry {
    name: "events",
    title: "Events",
    place: Place::Side,
    keys: &["v"],
    prompt: None,
    close: Close::Same,
    opens: Opens::Toggle {
        make: EventList::boxed,
        help: "show/hide the events (exceptions, mode changes, aborts, unparsed lines)",
    },
    rank: 3,
    wide: false,
    at_start: false,
    feed: Some(Feed::Events),
};

/// The pane's state: nothing beyond being shown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventList;

impl EventList {
    /// The pane as it opens (`Opens::Toggle`'s `make`).
    pub fn boxed() -> Box<dyn PaneState> {
        Box::new(EventList)
    }
}

impl PaneState for EventList {
    fn query(&self, _: NodeId) -> Option<Query> {
        None
    }

    fn take(&mut self, _: Reply) -> Result<(), String> {
        Ok(())
    }

    fn title(&self) -> String {
        t("Events").into()
    }
}
