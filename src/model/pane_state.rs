//! What a pane kind living in its own folder (`src/panes/`) gives the
//! model: the question that fills it at a position and what it keeps of
//! the answer. The model asks, routes the answer and carries out the
//! pane's actions, so such a pane needs no arm anywhere in `src/model/`.

use std::any::Any;
use std::fmt::Debug;

use tarmac_lens_core::browse::protocol::{NodeId, Query, Reply};

/// What a click in such a pane asks of the browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneAction {
    /// Go to the next execution, after the pane's position, of the
    /// instruction at this address.
    NextExecution(u64),
    /// Close the pane.
    Close,
}

/// A pane that follows a view's position.
pub trait PaneState: DynPane + Debug {
    /// The question that fills it at `node`.
    fn question(&self, node: NodeId) -> Query;
    /// Takes the answer; `Err` is what to say instead.
    fn answer(&mut self, reply: Reply) -> Result<(), String>;
    /// Its header's title, in the page's language.
    fn title(&self) -> String;
}

/// What lets the model keep a pane's state as a `Box<dyn PaneState>` and
/// still copy and compare it (as it does every pane's); implemented for
/// every `Clone + PartialEq` state.
pub trait DynPane {
    fn clone_box(&self) -> Box<dyn PaneState>;
    fn as_any(&self) -> &dyn Any;
    fn same(&self, other: &dyn PaneState) -> bool;
}

impl<T: PaneState + Clone + PartialEq + 'static> DynPane for T {
    fn clone_box(&self) -> Box<dyn PaneState> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn PaneState) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

impl Clone for Box<dyn PaneState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl PartialEq for Box<dyn PaneState> {
    fn eq(&self, other: &Self) -> bool {
        self.same(&**other)
    }
}
