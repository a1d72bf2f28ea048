//! The watch pane's state: the watchpoint, the accesses found so far and
//! where the list goes on; it makes the questions that fill it and step
//! from the position, and reads their answers.

use std::any::Any;
use std::rc::Rc;

use crate::i18n::t;
use crate::model::pane_kind::OpenOn;
use crate::model::pane_state::{fresh_token, Goto, PaneAction, PaneState, Step};
use crate::model::target::target_label;
use tarmac_lens_core::protocol::{Access, AccessKind, AccessView, Accesses, NodeId, Query, Question, Reply, WriteTarget};

/// Accesses the pane lists at most; `(` and `)` still find the others.
pub const MAX_LISTED: usize = 10_000;

/// Accesses asked for in one piece.
const PIECE: u32 = 500;

/// A watchpoint and what is known of its accesses.
#[derive(Clone, Debug, PartialEq)]
pub struct Watch {
    /// The register or memory range watched.
    pub target: WriteTarget,
    /// How the pane names it: `x5`, `[0x3fff60:8]`.
    pub label: String,
    /// Which accesses are listed and stepped to: reads, writes or both.
    pub kind: AccessKind,
    /// The accesses found so far, in trace order; shared, so that the
    /// page's render copies a pointer, not up to [`MAX_LISTED`] rows, at
    /// each step.
    pub hits: Rc<Vec<AccessView>>,
    /// Where the list goes on.
    next: NodeId,
    /// A piece is being asked for.
    asking: bool,
    /// Which list the answers are for: a piece answered for an older
    /// watchpoint (or another kind of access) is dropped.
    generation: u64,
}

/// The watch pane's own messages (its render's clicks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WatchMsg {
    /// Reads, writes or both: the list starts again.
    Kind(AccessKind),
    /// A listed access clicked: the active view goes there.
    Pick(NodeId),
}

impl Watch {
    /// A watchpoint on `target`, listing accesses of `kind`.
    pub fn new(target: WriteTarget, kind: AccessKind) -> Watch {
        Watch {
            label: target_label(&target),
            target,
            kind,
            hits: Default::default(),
            next: 0,
            asking: false,
            generation: fresh_token(),
        }
    }

    /// The registry's maker: a new watchpoint keeps the kind of access the
    /// one it replaces listed.
    pub fn boxed(on: OpenOn) -> Box<dyn PaneState> {
        let kind = on
            .previous
            .and_then(|p| p.as_any().downcast_ref::<Watch>())
            .map_or(AccessKind::Any, |w| w.kind);
        Box::new(Watch::new(on.target, kind))
    }

    /// The whole trace is listed (or as much as the pane lists).
    pub fn listed(&self, indexed_nodes: u64, complete: bool) -> bool {
        self.hits.len() >= MAX_LISTED || (complete && self.next >= indexed_nodes)
    }

    /// Where in the list the access at `node` is, if it is listed.
    pub fn index_of(&self, node: NodeId) -> Option<usize> {
        self.hits.binary_search_by_key(&node, |h| h.node.node).ok()
    }
}

impl PaneState for Watch {
    fn title(&self) -> String {
        t("Watch").into()
    }

    fn more(&mut self, indexed_nodes: u64) -> Option<(u64, Query)> {
        if self.asking || self.hits.len() >= MAX_LISTED || self.next >= indexed_nodes {
            return None;
        }
        self.asking = true;
        let query = Accesses {
            target: self.target.clone(),
            kind: self.kind,
            from: self.next,
            max: PIECE.min((MAX_LISTED - self.hits.len()) as u32),
        };
        Some((self.generation, query.into()))
    }

    fn take_more(&mut self, token: u64, reply: Reply) -> Result<Option<PaneAction>, String> {
        if token != self.generation {
            return Ok(None);
        }
        self.asking = false;
        let piece = Accesses::answer_of(reply)?;
        Rc::make_mut(&mut self.hits).extend(piece.hits);
        self.next = piece.next;
        Ok(None)
    }

    fn update(&mut self, msg: Box<dyn Any>) -> Option<PaneAction> {
        match *msg.downcast::<WatchMsg>().ok()? {
            WatchMsg::Kind(kind) => {
                if kind != self.kind {
                    *self = Watch::new(self.target.clone(), kind);
                }
                None
            }
            WatchMsg::Pick(node) => Some(PaneAction::GoToNode(node)),
        }
    }

    fn step(&self, node: NodeId, step: Step) -> Option<Query> {
        let Step::Mark { forward } = step else {
            return None;
        };
        let query = Access {
            node,
            target: self.target.clone(),
            kind: self.kind,
            forward,
        };
        Some(query.into())
    }

    fn stepped(&self, reply: Reply, step: Step) -> Result<Goto, String> {
        match Access::answer_of(reply)? {
            Some(a) => Ok(Goto::Node(a.node.node)),
            None => Err(t(if step == (Step::Mark { forward: true }) {
                "No later access."
            } else {
                "No earlier access."
            })
            .into()),
        }
    }
}
