//! The watch pane's part of the model: what is watched (a selection, a
//! prompt, a menu), the accesses asked a piece at a time as indexing goes
//! on, `(` and `)`; the pane's state is `watch.rs`'s.

use super::layout::Slot;
use super::watch::*;
use super::{Model, Msg, PaneBody, PromptFor};
use crate::i18n::t;
use crate::model::keys::Command;
use tarmac_lens_core::browse::protocol::{Access, AccessKind, Accesses, Eval, Locate, WriteTarget};

impl Model {
    /// The watch commands; false if `cmd` is not one.
    pub(super) fn run_watch(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::WatchPrompt => {
                // In a register or memory pane: its selection (`w` there
                // already shows the changed registers).
                let pane = match self.focus {
                    super::Focus::Pane(p) => Some(p),
                    super::Focus::View(_) => None,
                };
                if !pane.is_some_and(|p| self.watch_selection(p)) {
                    let view = self.active_view();
                    self.prompt = Some(PromptFor::Watch { view });
                }
            }
            Command::WatchStep { forward } => self.watch_step(forward),
            _ => return false,
        }
        true
    }

    /// `W` in a register or memory pane: watch its selection; false if
    /// the pane has none (or is another kind).
    pub(super) fn watch_selection(&mut self, pane: u32) -> bool {
        let Some(target) = self.selection_target(pane) else {
            return false;
        };
        self.watch(target);
        true
    }

    /// Starts watching `target`: the pane opens and lists its accesses.
    pub(super) fn watch(&mut self, target: WriteTarget) {
        let label = target_label(&target);
        let kind = self.watch_pane().map_or(AccessKind::Any, |w| w.kind);
        let generation = self.watch_pane().map_or(0, |w| w.generation + 1);
        let watch = Box::new(Watch {
            target,
            label,
            kind,
            hits: Default::default(),
            next: 0,
            asking: false,
            generation,
        });
        self.replace_kind(PaneBody::Watch(watch), true);
        self.fetch_watch();
    }

    /// Asks for the next piece of the list, if there is more to ask.
    fn fetch_watch(&mut self) {
        let nodes = self.indexed_nodes;
        let Some(w) = self.watch_pane_mut() else {
            return;
        };
        if w.asking || w.hits.len() >= MAX_LISTED || w.next >= nodes {
            return;
        }
        w.asking = true;
        let generation = w.generation;
        let query = Accesses {
            target: w.target.clone(),
            kind: w.kind,
            from: w.next,
            max: PIECE.min((MAX_LISTED - w.hits.len()) as u32),
        };
        self.ask(query, move |reply| {
            Msg::Watch(WatchMsg::Listed {
                generation,
                reply: Box::new(reply),
            })
        });
    }

    /// More of the trace is indexed: the list may go on.
    pub(super) fn watch_progress(&mut self) {
        self.fetch_watch();
    }

    fn watch_step(&mut self, forward: bool) {
        let Some(w) = self.watch_pane() else {
            self.status =
                Some(t("Nothing is watched: W on a register, a byte or anywhere.").into());
            return;
        };
        let view = self.active_view();
        let Some(node) = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node) else {
            return;
        };
        let query = Access {
            node,
            target: w.target.clone(),
            kind: w.kind,
            forward,
        };
        self.ask(query, move |reply| {
            Msg::Watch(WatchMsg::Found {
                view,
                forward,
                reply,
            })
        });
    }

    /// The watch prompt's answer: a register, or memory whose address the
    /// worker evaluates at the position.
    pub(super) fn watch_text(&mut self, view: u32, text: &str) {
        match parse_target(text) {
            Ok((Some(reg), _, _)) => self.watch(WriteTarget::Register(reg)),
            Ok((None, expr, len)) => {
                let node = self
                    .view_ref(view)
                    .and_then(|v| v.cursor)
                    .map_or(0, |c| c.node);
                self.ask(Eval { node, expr }, move |reply| match reply {
                    Ok(addr) => Msg::WatchMemory { addr, len },
                    Err(e) => Msg::WatchMemoryFailed(e),
                });
            }
            Err(e) => self.status = Some(e),
        }
    }

    pub(super) fn on_watch(&mut self, msg: WatchMsg) -> bool {
        match msg {
            WatchMsg::Listed { generation, reply } => {
                let Some(w) = self.watch_pane_mut() else {
                    return false;
                };
                if w.generation != generation {
                    return false;
                }
                w.asking = false;
                match *reply {
                    Ok(r) => {
                        std::rc::Rc::make_mut(&mut w.hits).extend(r.hits);
                        w.next = r.next;
                        self.fetch_watch();
                    }
                    Err(e) => self.status = Some(e),
                }
            }
            WatchMsg::Found {
                view,
                forward,
                reply,
            } => match reply {
                Ok(Some(a)) => {
                    self.refocus = true;
                    self.move_to(view, Locate::Node(a.node.node), false);
                }
                Ok(None) => {
                    self.status = Some(
                        t(if forward {
                            "No later access."
                        } else {
                            "No earlier access."
                        })
                        .into(),
                    )
                }
                Err(e) => self.status = Some(e),
            },
            WatchMsg::Kind(kind) => {
                if let Some(w) = self.watch_pane() {
                    if w.kind != kind {
                        let target = w.target.clone();
                        if let Some(w) = self.watch_pane_mut() {
                            w.kind = kind;
                        }
                        self.watch(target);
                    }
                }
            }
            WatchMsg::Pick(node) => {
                self.refocus = true;
                self.move_to(self.active_view(), Locate::Node(node), false);
            }
            WatchMsg::Close => self.hide_kind(Slot::WATCH),
        }
        true
    }
}
