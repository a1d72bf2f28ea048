//! The watch commands: what is watched (a selection, a prompt, a menu),
//! `(` and `)`; and for any pane in its own folder, the lists asked a
//! piece at a time as indexing goes on and the steps to what it marks.
//! The watch pane's state is its folder's (`src/panes/watch/`).

use super::layout::Slot;
use super::pane_state::{Goto, PaneState, Step};
use super::registry::{OpenOn, Opens};
use super::target::parse_target;
use super::{Model, Msg, PaneBody, PaneMsg, PromptFor};
use crate::i18n::t;
use crate::model::keys::Command;
use tarmac_lens_core::protocol::{Eval, Locate, NodeId, Reply, WriteTarget};

/// The kind of pane `W`, `(` and `)` are about, by its registry name.
const WATCH: &str = "watch";

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

    /// Starts watching `target`: the watch pane opens, or watches it
    /// instead of what it did.
    pub(super) fn watch(&mut self, target: WriteTarget) {
        let view = self.active_view();
        let (node, line) =
            (self.view_ref(view).and_then(|v| v.cursor)).map_or((0, 0), |c| (c.node, c.first_line));
        self.open_on(WATCH, target, node, line);
    }

    /// Opens the pane kind `name` (one that opens on a target:
    /// `Opens::Target`) on `target` at `node`, in place of the one shown,
    /// and asks what fills it.
    pub(super) fn open_on(&mut self, name: &str, target: WriteTarget, node: NodeId, line: u64) {
        let Some(slot) = Slot::named(name) else {
            return;
        };
        let Opens::Target { make } = slot.entry().opens else {
            return;
        };
        let state = make(OpenOn {
            target,
            node,
            line,
            previous: self.own_state(slot),
        });
        self.replace_kind(PaneBody { slot, state }, true);
        if let Some(id) = self.pane_of(slot).map(|p| p.id) {
            self.fetch_more(id);
        }
    }

    /// The state of the pane of a kind in its own folder, if one is shown.
    fn own_state(&self, slot: Slot) -> Option<&dyn PaneState> {
        Some(&*self.pane_of(slot)?.body.state)
    }

    /// Asks for the next piece of a pane's list, if it has more to ask
    /// (`PaneState::more`).
    pub(super) fn fetch_more(&mut self, id: u32) {
        let nodes = self.indexed_nodes;
        let Some(state) = self.pane_mut(id).map(|p| &mut p.body.state) else {
            return;
        };
        let mut asks = Vec::new();
        while let Some(ask) = state.more(nodes) {
            asks.push(ask);
        }
        for (token, query) in asks {
            self.ask_wire(query, move |reply| {
                Msg::Pane(id, PaneMsg::More { token, reply })
            });
        }
    }

    /// A piece of a pane's list came: it takes it and the list goes on.
    pub(super) fn on_more(&mut self, id: u32, token: u64, reply: Reply) {
        let Some(state) = self.pane_mut(id).map(|p| &mut p.body.state) else {
            return;
        };
        match state.take_more(token, reply) {
            Ok(action) => {
                self.fetch_more(id);
                if let Some(action) = action {
                    self.on_pane(id, PaneMsg::Action(action));
                }
            }
            Err(e) => self.say(id, e),
        }
    }

    /// What a pane in its own folder says: in the pane if it takes the
    /// focus (it has a note line), on the status line otherwise.
    pub(super) fn say(&mut self, id: u32, text: String) {
        match self.pane_mut(id) {
            Some(p) if p.body.focusable() => p.note = Some(text),
            _ => self.status = Some(text),
        }
    }

    /// Every pane's id.
    pub(super) fn pane_ids(&self) -> Vec<u32> {
        self.panes.iter().map(|p| p.id).collect()
    }

    /// More of the trace is indexed: the lists may go on.
    pub(super) fn more_progress(&mut self) {
        for id in self.pane_ids() {
            self.fetch_more(id);
        }
    }

    fn watch_step(&mut self, forward: bool) {
        let watching = Slot::named(WATCH).and_then(|slot| self.pane_of(slot));
        let Some(pane) = watching else {
            self.status =
                Some(t("Nothing is watched: W on a register, a byte or anywhere.").into());
            return;
        };
        let id = pane.id;
        let view = self.active_view();
        let Some(node) = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node) else {
            return;
        };
        self.pane_step(id, view, node, Step::Mark { forward });
    }

    /// Asks where pane `id`'s `step` goes from `node` in `view`; false if
    /// the pane has nowhere to go.
    pub(super) fn pane_step(&mut self, id: u32, view: u32, node: NodeId, step: Step) -> bool {
        let Some(state) = self.pane_ref(id).map(|p| &p.body.state) else {
            return false;
        };
        let Some(query) = state.step(node, step) else {
            return false;
        };
        self.ask_wire(query, move |reply| {
            Msg::Pane(id, PaneMsg::Stepped { view, step, reply })
        });
        true
    }

    /// Where a pane's step found to go: the view goes there.
    pub(super) fn on_pane_stepped(&mut self, id: u32, view: u32, step: Step, reply: Reply) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let state = &pane.body.state;
        let focusable = pane.body.focusable();
        match state.stepped(reply, step) {
            Ok(Goto::Node(node)) => {
                self.refocus = true;
                self.move_to(view, Locate::Node(node), false);
            }
            Ok(Goto::At(node)) => {
                pane.note = None;
                self.on_moved(view, Ok(Some(node)), true);
            }
            Err(e) if focusable => pane.note = Some(e),
            Err(e) => self.status = Some(e),
        }
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
}
