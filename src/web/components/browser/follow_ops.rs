//! A move's follow-up questions asked with the move (`Query::Then`): the
//! cursor's row, the call stack and each pane's contents come back in the
//! move's own answer, so a step is one round trip to the worker and one
//! render. Under load each extra round trip cost several milliseconds.

use yew::prelude::*;

use super::state::PaneBody;
use super::{Browser, Pane};
use crate::browse::protocol::{NodeId, Query, Reply, LANDED};

/// What a follow-up answer is for.
pub(super) enum FollowTarget {
    Row,
    Stack,
    Pane(u32),
}

impl Browser {
    /// The questions a move in `view` to `node` asks about where it lands,
    /// `prev` being the position it left (what changes are marked against).
    fn follow_ups(
        &self,
        view: u32,
        node: NodeId,
        prev: Option<NodeId>,
    ) -> Vec<(FollowTarget, Query)> {
        let mut out = vec![
            (FollowTarget::Row, Query::RowOfNode { view, node }),
            (FollowTarget::Stack, Query::CallStack { node }),
        ];
        for p in self
            .panes
            .iter()
            .filter(|p| p.view == view && p.lock.is_none())
        {
            out.push((FollowTarget::Pane(p.id), pane_query(p, node, prev)));
        }
        out
    }

    /// `query` (a move in `view`) with its follow-up questions, and those
    /// questions (for [`Self::apply_follow_ups`] to check).
    pub(super) fn with_follow_ups(&self, view: u32, query: Query) -> (Query, Vec<Query>) {
        let cursor = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node);
        let asked: Vec<Query> = self
            .follow_ups(view, LANDED, cursor)
            .into_iter()
            .map(|(_, q)| q)
            .collect();
        let query = Query::Then {
            first: Box::new(query),
            then: asked.clone(),
        };
        (query, asked)
    }

    /// After a move to `node` has set the cursor: applies the answers that
    /// came with it, if they answer what would be asked now (the move left
    /// the position it was asked from, no pane changed meanwhile). Returns
    /// whether it did; if not, the caller asks again.
    pub(super) fn apply_follow_ups(
        &mut self,
        ctx: &Context<Self>,
        view: u32,
        node: NodeId,
        recentre: bool,
        asked: &[Query],
        answers: Vec<Reply>,
    ) -> bool {
        let Some(prev) = self.view_ref(view).map(|v| v.prev) else {
            return false;
        };
        let now = self.follow_ups(view, LANDED, prev);
        if answers.len() != now.len() || !now.iter().map(|(_, q)| q).eq(asked.iter()) {
            return false;
        }
        for ((target, _), reply) in now.into_iter().zip(answers) {
            match target {
                FollowTarget::Row => self.on_cursor_row(ctx, view, node, reply, recentre),
                FollowTarget::Stack => {
                    self.on_stack(view, node, reply);
                }
                FollowTarget::Pane(id) => {
                    // As if asked now and answered at once: an older
                    // answer still on its way is dropped.
                    let Some(p) = self.pane_mut(id) else { continue };
                    p.seq += 1;
                    let seq = p.seq;
                    self.on_pane_data(id, seq, reply);
                }
            }
        }
        true
    }
}

/// What pane `p` asks about `node`, changes marked against `prev` (the
/// view's previous position; none for a locked pane) unless the pane
/// compares with a line of its own.
pub(super) fn pane_query(p: &Pane, node: NodeId, prev: Option<NodeId>) -> Query {
    match &p.body {
        PaneBody::Registers { .. } => Query::Registers {
            node,
            compare: prev,
        },
        PaneBody::Memory {
            addr,
            rows,
            compare,
            ..
        } => Query::Memory {
            node,
            addr: *addr,
            len: rows * 16,
            compare: compare.or(prev),
        },
    }
}
