//! Answers to the prompt (`l t p P m d` and the panes' `l t`) and to the
//! context menus.

use super::{Answer, MenuAction, Model, Moved, Msg, PromptFor, ViewMsg};
use crate::i18n::{t, tf};
use crate::model::hash::number;
use tarmac_lens_core::protocol::{Eval, FindPc, Fold, Locate, Write};

/// Answers kept per prompt.
const PROMPT_HISTORY: usize = 50;

impl Model {
    pub(super) fn on_prompt_submit(&mut self, text: String) {
        let Some(prompt) = self.prompt.take() else {
            return;
        };
        self.refocus = true;
        let text = text.trim().to_string();
        if let PromptFor::BookmarkNote { line } = prompt {
            return self.set_bookmark_note(line, &text);
        }
        if text.is_empty() {
            return;
        }
        self.remember(&prompt, &text);
        let num = || number(&text).ok_or_else(|| format!("{text:?} is not a number"));
        let located = match &prompt {
            PromptFor::GotoLine { view } => match num() {
                Ok(n) => {
                    self.goto_line = Some((*view, n));
                    self.move_to(*view, Locate::Line(n), true);
                    return;
                }
                Err(e) => Err(e),
            },
            PromptFor::GotoTime { view } => match num() {
                Ok(t) => {
                    self.move_to(*view, Locate::Time(t), true);
                    return;
                }
                Err(e) => Err(e),
            },
            PromptFor::FindPc { view, .. } | PromptFor::OpenMemory { view } => {
                let node = self
                    .view_ref(*view)
                    .and_then(|v| v.cursor)
                    .map_or(0, |c| c.node);
                let question = Eval { node, expr: text };
                return self.ask(question, move |reply| Msg::Evaluated { prompt, reply });
            }
            PromptFor::LockLine { .. } | PromptFor::CompareLine { .. } => num().map(Locate::Line),
            PromptFor::LockTime { .. } => num().map(Locate::Time),
            PromptFor::BookmarkNote { .. } => return,
            PromptFor::Watch { view } => return self.watch_text(*view, &text),
            PromptFor::Condition { view } => return self.condition_search(*view, text, true),
            PromptFor::Why { view } => return self.why_text(*view, &text),
        };
        match located {
            Ok(locate) => self.ask(locate, move |reply| Msg::Located { prompt, reply }),
            Err(e) => self.status = Some(e),
        }
    }

    /// Keeps `text` as `prompt`'s latest answer (once, however often given).
    fn remember(&mut self, prompt: &PromptFor, text: &str) {
        let history = self.prompt_history.entry(prompt.label()).or_default();
        history.retain(|h| h != text);
        history.push(text.to_string());
        if history.len() > PROMPT_HISTORY {
            history.remove(0);
        }
    }

    /// The open prompt's earlier answers, oldest first.
    pub fn prompt_history(&self) -> &[String] {
        self.prompt
            .as_ref()
            .and_then(|p| self.prompt_history.get(p.label()))
            .map_or(&[], Vec::as_slice)
    }

    pub(super) fn on_evaluated(&mut self, prompt: PromptFor, reply: Answer<u64>) {
        let value = match reply {
            Ok(v) => v,
            Err(e) => {
                self.status = Some(e);
                return;
            }
        };
        match prompt {
            PromptFor::FindPc { view, forward } => {
                self.last_pc = Some(value);
                let node = self
                    .view_ref(view)
                    .and_then(|v| v.cursor)
                    .map_or(0, |c| c.node);
                self.move_to(
                    view,
                    FindPc {
                        node,
                        pc: value,
                        forward,
                    },
                    true,
                );
            }
            PromptFor::OpenMemory { view } => self.open_memory(view, value),
            _ => {}
        }
    }

    /// A `mem:EXPR` pane opens where its expression first has a value:
    /// `sp` is unknown at a trace's start, until the first write of it.
    pub(super) fn on_pane_address(&mut self, view: u32, expr: String, reply: Answer<u64>) {
        match reply {
            Ok(value) => self.open_memory(view, value),
            Err(e) => {
                self.status = Some(tf(
                    "The memory pane at {} opens where it has a value ({}).",
                    &[&expr, &e],
                ));
                self.pending_memory.push(expr);
            }
        }
    }

    pub(super) fn on_located(&mut self, prompt: PromptFor, reply: Moved) {
        let node = match reply {
            Ok(Some(n)) => n,
            Ok(None) => {
                self.status = Some(t("No such position in the trace.").into());
                return;
            }
            Err(e) => {
                self.status = Some(e);
                return;
            }
        };
        let pane = match prompt {
            PromptFor::LockLine { pane } | PromptFor::LockTime { pane } => {
                if let Some(p) = self.pane_mut(pane) {
                    p.lock = Some(node);
                }
                pane
            }
            PromptFor::CompareLine { pane } => {
                if let Some(p) = self.pane_mut(pane) {
                    p.body.state.compare_with(node.node);
                }
                pane
            }
            _ => return,
        };
        self.refresh_pane(pane);
    }

    pub(super) fn on_menu_pick(&mut self, index: usize) {
        let Some(menu) = self.menu.take() else {
            return;
        };
        self.refocus = true;
        let Some((_, action)) = menu.items.into_iter().nth(index) else {
            return;
        };
        match action {
            MenuAction::MoveTo { view, node } => self.move_to(view, Locate::Node(node), false),
            MenuAction::Write {
                view,
                node,
                target,
                forward: false,
            } => self.previous_write(view, node, target),
            MenuAction::Write {
                view,
                node,
                target,
                forward: true,
            } => self.move_to(
                view,
                Write {
                    node,
                    target,
                    forward: true,
                },
                true,
            ),
            MenuAction::Fold { view, node, op } => self
                .ask(Fold { view, node, op }, move |reply| {
                    Msg::View(view, ViewMsg::Folded { reply })
                }),
            MenuAction::Pane { pane, command } => {
                self.focus = super::Focus::Pane(pane);
                self.run_pane(pane, command);
            }
            MenuAction::Key { pane, key } => {
                self.focus = super::Focus::Pane(pane);
                self.on_pane_key(pane, key);
            }
            MenuAction::Symbolize { pane, addr } => {
                self.symbolize(pane, format!("{addr:#x}"), addr)
            }
            MenuAction::OpenMemory { view, addr } => self.open_memory(view, addr),
            MenuAction::Watch(target) => self.watch(target),
            MenuAction::Copy(text) => {
                self.status = Some(tf("Copied: {}", &[&text]));
                self.effects.push(super::Effect::Copy(text));
            }
            MenuAction::Why { target, node, line } => self.why(target, node, line),
        }
    }
}
