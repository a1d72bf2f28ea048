//! The "why this value?" command (`y`): what is asked (a selection, a
//! prompt, a menu). The pane, its tree and its keys are its folder's
//! (`src/panes/why/`).

use super::{Focus, Model, Msg, PromptFor};
use tarmac_lens_core::protocol::{Eval, NodeId, WriteTarget};

/// The kind of pane `y` opens, by its registry name.
const WHY: &str = "why";

impl Model {
    /// `y`: the focused register or memory pane's selection, else a
    /// prompt.
    pub(super) fn why_prompt(&mut self) {
        let pane = match self.focus {
            Focus::Pane(p) => Some(p),
            Focus::View(_) => None,
        };
        if !pane.is_some_and(|p| self.why_selection(p)) {
            let view = self.active_view();
            self.prompt = Some(PromptFor::Why { view });
        }
    }

    /// The position a pane shows: its lock, else its view's.
    fn pane_position(&self, pane: u32) -> Option<(NodeId, u64)> {
        let p = self.pane_ref(pane)?;
        let c = match p.lock {
            Some(l) => l,
            None => self.view_ref(p.view)?.cursor?,
        };
        Some((c.node, c.first_line))
    }

    /// `y` in a register or memory pane; false if it has no selection.
    fn why_selection(&mut self, pane: u32) -> bool {
        let Some(target) = self.selection_target(pane) else {
            return false;
        };
        let Some((node, line)) = self.pane_position(pane) else {
            return false;
        };
        self.why(target, node, line);
        true
    }

    /// Asks where `target`'s value after `node` came from; the pane opens.
    pub(super) fn why(&mut self, target: WriteTarget, node: NodeId, line: u64) {
        self.open_on(WHY, target, node, line);
    }

    /// The prompt's answer: a register, or memory whose address the worker
    /// evaluates at the position.
    pub(super) fn why_text(&mut self, view: u32, text: &str) {
        let Some(c) = self.view_ref(view).and_then(|v| v.cursor) else {
            return;
        };
        let (node, line) = (c.node, c.first_line);
        match super::target::parse_target(text) {
            Ok((Some(reg), _, _)) => self.why(WriteTarget::Register(reg), node, line),
            Ok((None, expr, len)) => {
                self.ask(Eval { node, expr }, move |reply| Msg::WhyMemory {
                    node,
                    line,
                    len,
                    reply,
                });
            }
            Err(e) => self.status = Some(e),
        }
    }
}
