//! The "why this value?" pane's part of the model: what is asked (a
//! selection, a prompt, a menu), the tree of writes grown as it is opened,
//! its keys; the pane's state is `why.rs`'s.

use super::layout::Slot;
use super::why::*;
use super::{Focus, Model, Msg, PaneBody, PromptFor};
use crate::i18n::t;
use std::collections::BTreeSet;
use tarmac_lens_core::browse::protocol::{Eval, Locate, NodeId, WriteTarget};
use tarmac_lens_core::browse::why::WhyQuery;

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
        let label = super::target::target_label(&target);
        let generation = self.why_pane().map_or(0, |w| w.generation + 1);
        let why = Box::new(Why {
            label,
            node,
            line,
            root: None,
            error: None,
            collapsed: BTreeSet::new(),
            expanding: BTreeSet::new(),
            selected: Vec::new(),
            generation,
        });
        self.replace_kind(PaneBody::Why(why), true);
        let query = WhyQuery {
            node,
            target,
            depth: DEPTH,
            loaded: None,
        };
        self.ask(query, move |reply| {
            Msg::Why(WhyMsg::Tree { generation, reply })
        });
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
                self.ask(Eval { node, expr }, move |reply| {
                    Msg::Why(WhyMsg::Evaluated {
                        node,
                        line,
                        len,
                        reply,
                    })
                });
            }
            Err(e) => self.status = Some(e),
        }
    }

    /// Opens or shuts a step; a step left for later is asked for.
    fn why_toggle(&mut self, path: Path) {
        let Some(w) = self.why_pane_mut() else {
            return;
        };
        let Some(step) = w.step(&path) else {
            return;
        };
        if !step.inputs.is_empty() {
            if !w.collapsed.remove(&path) {
                w.collapsed.insert(path);
            }
            return;
        }
        let Some(more) = step.more.clone() else {
            return;
        };
        if !w.expanding.insert(path.clone()) {
            return;
        }
        let generation = w.generation;
        let query = WhyQuery {
            depth: MORE_DEPTH,
            ..more
        };
        self.ask(query, move |reply| {
            Msg::Why(WhyMsg::Expanded {
                generation,
                path,
                reply,
            })
        });
    }

    fn why_go(&mut self, path: Path) {
        let Some(w) = self.why_pane_mut() else {
            return;
        };
        let writer = w.step(&path).and_then(|s| s.writer);
        w.selected = path;
        match writer {
            Some(wr) => {
                let view = self.active_view();
                self.move_to(view, Locate::Node(wr.node), false);
            }
            None => self.status = Some(t("Nothing in the trace wrote this value.").into()),
        }
    }

    fn why_key(&mut self, key: WhyKey) {
        let Some(w) = self.why_pane_mut() else {
            return;
        };
        let rows = w.rows();
        let at = rows.iter().position(|p| *p == w.selected).unwrap_or(0);
        let sel = w.selected.clone();
        match key {
            WhyKey::Up => {
                w.selected = rows[at.saturating_sub(1).min(rows.len().saturating_sub(1))].clone()
            }
            WhyKey::Down => {
                if let Some(p) = rows.get(at + 1) {
                    w.selected = p.clone();
                }
            }
            WhyKey::Right => {
                let Some(step) = w.step(&sel) else { return };
                if step.inputs.is_empty() || !w.open(&sel) {
                    self.why_toggle(sel);
                } else {
                    let mut first = sel;
                    first.push(0);
                    w.selected = first;
                }
            }
            WhyKey::Left => {
                let has = w.step(&sel).is_some_and(|s| !s.inputs.is_empty());
                if has && w.open(&sel) {
                    w.collapsed.insert(sel);
                } else if !sel.is_empty() {
                    w.selected = sel[..sel.len() - 1].to_vec();
                }
            }
            WhyKey::Enter => self.why_go(sel),
        }
    }

    pub(super) fn on_why(&mut self, msg: WhyMsg) -> bool {
        match msg {
            WhyMsg::Tree { generation, reply } => {
                let Some(w) = self.why_pane_mut().filter(|w| w.generation == generation) else {
                    return false;
                };
                match reply {
                    Ok(tree) => w.root = Some(*tree),
                    Err(e) => w.error = Some(e),
                }
            }
            WhyMsg::Expanded {
                generation,
                path,
                reply,
            } => {
                let Some(w) = self.why_pane_mut().filter(|w| w.generation == generation) else {
                    return false;
                };
                w.expanding.remove(&path);
                match reply {
                    Ok(tree) => {
                        if let Some(step) = w.step_mut(&path) {
                            *step = *tree;
                        }
                        w.collapsed.remove(&path);
                    }
                    Err(e) => self.status = Some(e),
                }
            }
            WhyMsg::Evaluated {
                node,
                line,
                len,
                reply,
            } => match reply {
                Ok(addr) => self.why(WriteTarget::Memory { addr, len }, node, line),
                Err(e) => self.status = Some(e),
            },
            WhyMsg::Select(path) => match self.why_pane_mut() {
                Some(w) if w.selected != path => w.selected = path,
                _ => return false,
            },
            WhyMsg::Toggle(path) => self.why_toggle(path),
            WhyMsg::Go(path) => self.why_go(path),
            WhyMsg::Key(k) => self.why_key(k),
            WhyMsg::Close => self.hide_kind(Slot::WHY),
        }
        true
    }
}
