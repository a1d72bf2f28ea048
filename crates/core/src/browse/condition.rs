//! Value conditions from the page ([`super::protocol::Condition`]): a bounded
//! piece of [`crate::Index::find_condition_until`] per reply, so the
//! worker answers other questions (and the page can stop asking) between
//! pieces of a search over a long trace.

use super::protocol::{self, ConditionReply};
use super::question::{Answerable, Example};
use super::{view, Session};
use crate::condition::Condition;
use crate::expr::ExprContext;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;
use crate::Result;

/// The most intervals one reply looks at, whatever is asked: about 64 MB
/// of trace, of which only those the index names are replayed.
const MAX_BUDGET: u32 = 256;

/// Names in a condition: registers are the condition's own; others are
/// the image's symbols, as `tarmac-lens find` reads them.
struct Symbols<'a>(Option<&'a SymbolTable>);

impl ExprContext for Symbols<'_> {
    fn register(&self, _: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.0?.address_of(name)
    }
}

impl Answerable for protocol::Condition {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<ConditionReply> {
        session.condition(&self.text, self.node, self.forward, self.budget)
    }

    /// A hit, a piece that goes on, one that is not a condition.
    fn examples(at: &Example) -> Vec<protocol::Condition> {
        [
            ("r0 == 0", true, 64),
            ("[sp:4] > 100 && r1 != 0", false, 1),
            ("r0 = 1", true, 1),
        ]
        .map(|(text, forward, budget)| protocol::Condition {
            text: text.into(),
            node: at.node,
            forward,
            budget,
        })
        .into()
    }
}

impl<S: TraceSource> Session<S> {
    fn condition(
        &mut self,
        text: &str,
        node: u64,
        forward: bool,
        budget: u32,
    ) -> Result<ConditionReply> {
        let cond = match Condition::parse_at(text, &Symbols(self.image.as_ref())) {
            Ok(c) => c,
            Err((column, message)) => {
                return Ok(ConditionReply::Invalid {
                    column: column as u32,
                    message,
                })
            }
        };
        let budget = budget.clamp(1, MAX_BUDGET);
        let (idx, src) = self.parts();
        let mut src = crate::sweep::Sweep::new(src, forward);
        let mut looked = 0u32;
        let page =
            idx.find_condition_until(&mut src, &cond, Some(node), forward, 1, &mut |_| {
                looked += 1;
                looked < budget
            })?;
        Ok(match (page.hits.first(), page.resume) {
            (Some(h), _) => ConditionReply::Hit(view(&h.node)),
            (None, Some(next)) => ConditionReply::Continue(next),
            (None, None) => ConditionReply::NotFound,
        })
    }
}
