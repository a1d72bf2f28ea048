//! What the model does for every pane alike: opening and closing, asking
//! its question at its position and taking the answer, its lock, its keys
//! and clicks, and carrying out what its state asks (`PaneAction`). What a
//! kind shows and does lives in its folder (`src/panes/`).

use super::layout;
use super::pane_state::{Arrow, At, MenuItem, PaneAction, PaneKey, PaneState};
use super::registry::{Opens, Slot};
use super::{Answer, Focus, Menu, MenuAction, Model, Msg, Pane, PaneBody, PromptFor};
use crate::i18n::{t, tf};
use crate::model::keys::{Command, RegKind};
use tarmac_lens_core::protocol::{FindPc, Locate, NodeId, Reply, Symbolize, WriteTarget};

/// A pane's messages: its own input, and the answers to its questions.
pub enum PaneMsg {
    /// What fills the pane at its position.
    Data {
        /// The question's number: an older one's answer is dropped.
        seq: u64,
        /// The answer, as the wire carries it: the pane's state decodes it.
        reply: Reply,
    },
    /// The symbol at a value (`a`, a context menu), for the pane's note.
    Symbolized {
        /// What the note says first (the register and its value).
        text: String,
        /// The value's symbol (empty: none).
        reply: Answer<Vec<String>>,
    },
    /// The header's view selector: the pane follows another view.
    View {
        /// The view to follow.
        view: u32,
    },
    /// The header's unlock button: follow the view again.
    Unlock,
    /// The header's lock button: lock to what is shown, or unlock.
    LockHere,
    /// The header's close button.
    Close,
    /// What a pane's state asks of the page (a click, a key's outcome).
    Action(PaneAction),
    /// Its render's message, which its state reads (`PaneState::update`).
    Own(Box<dyn std::any::Any>),
    /// A piece of a pane's list (`PaneState::more`).
    More {
        /// What the pane said to come back with.
        token: u64,
        /// The piece, as the wire carries it.
        reply: Reply,
    },
    /// Where a pane's step goes (`PaneState::step`).
    Stepped {
        /// The view that goes there.
        view: u32,
        /// The step.
        step: super::pane_state::Step,
        /// The answer, as the wire carries it.
        reply: Reply,
    },
}

/// The key a command is for a focused pane's state, if it is one.
fn pane_key(cmd: Command) -> Option<PaneKey> {
    Some(match cmd {
        Command::Up => PaneKey::Arrow(Arrow::Up),
        Command::Down => PaneKey::Arrow(Arrow::Down),
        Command::Left => PaneKey::Arrow(Arrow::Left),
        Command::Right => PaneKey::Arrow(Arrow::Right),
        Command::PageUp => PaneKey::Page { down: false },
        Command::PageDown => PaneKey::Page { down: true },
        Command::Shorter => PaneKey::Rows { more: false },
        Command::Taller => PaneKey::Rows { more: true },
        Command::ToggleRegMark => PaneKey::Mark,
        Command::Symbolic => PaneKey::Symbol,
        Command::PrevChanged => PaneKey::Changed { forward: false },
        Command::NextChanged => PaneKey::Changed { forward: true },
        _ => return None,
    })
}

impl Model {
    /// What a pane has selected (`w`, `y`): its register, or its byte;
    /// `None` in other panes or with nothing selected.
    pub(super) fn selection_target(&self, pane: u32) -> Option<WriteTarget> {
        self.pane_ref(pane)?.body.state.selection(None)
    }

    /// A new pane following view `view`; its id.
    pub(super) fn push_pane(&mut self, view: u32, body: PaneBody) -> u32 {
        let id = self.next_pane;
        self.next_pane += 1;
        self.panes.push(Pane {
            id,
            view,
            lock: None,
            note: None,
            seq: 0,
            body,
        });
        self.into_view = Some(layout::Shown::Pane(id));
        id
    }

    /// A pane of the first kind whose registry line `make` makes one
    /// from (the line that opens on a set of registers, or an address).
    fn made(make: impl Fn(Opens) -> Option<Box<dyn PaneState>>) -> Option<PaneBody> {
        Slot::ALL.into_iter().find_map(|slot| {
            let state = make(slot.entry().opens)?;
            Some(PaneBody { slot, state })
        })
    }

    /// A register pane on `kind`, not asked yet.
    fn register_pane(kind: RegKind) -> Option<PaneBody> {
        Model::made(|opens| match opens {
            Opens::Registers { make } => Some(make(kind)),
            _ => None,
        })
    }

    pub(super) fn add_registers(&mut self, kind: RegKind, view: u32) -> Option<u32> {
        let body = Model::register_pane(kind)?;
        Some(self.push_pane(view, body))
    }

    pub(super) fn toggle_registers(&mut self, kind: RegKind) {
        let Some(body) = Model::register_pane(kind) else {
            return;
        };
        let variant = body.state.variant();
        let existing = self
            .panes
            .iter()
            .find(|p| p.body.slot == body.slot && p.body.state.variant() == variant)
            .map(|p| p.id);
        match existing {
            Some(id) => self.close_pane(id),
            None => {
                let id = self.push_pane(self.active_view(), body);
                self.refresh_pane(id);
            }
        }
    }

    pub(super) fn open_memory(&mut self, view: u32, addr: u64) {
        let Some(body) = Model::made(|opens| match opens {
            Opens::Address { make } => Some(make(addr)),
            _ => None,
        }) else {
            return;
        };
        let id = self.push_pane(view, body);
        self.focus = Focus::Pane(id);
        self.refresh_pane(id);
    }

    pub(super) fn close_pane(&mut self, id: u32) {
        self.panes.retain(|p| p.id != id);
        if self.focus == Focus::Pane(id) {
            self.focus = Focus::View(self.active_view_after_close());
        }
    }

    fn active_view_after_close(&self) -> u32 {
        self.views.first().map_or(0, |v| v.id)
    }

    /// The position a pane shows: its lock, or its view's cursor.
    pub(super) fn pane_node(&self, pane: &Pane) -> Option<NodeId> {
        pane.lock
            .map(|l| l.node)
            .or_else(|| self.view_ref(pane.view)?.cursor.map(|c| c.node))
    }

    /// Where a pane stands: its position, compared with the view's
    /// previous one (none while it is locked).
    fn pane_at(&self, pane: &Pane) -> Option<At> {
        let node = self.pane_node(pane)?;
        let compare = match pane.lock {
            Some(_) => None,
            None => self.view_ref(pane.view)?.prev,
        };
        Some(At { node, compare })
    }

    pub(super) fn refresh_panes_of(&mut self, view: u32) {
        let ids: Vec<u32> = self
            .panes
            .iter()
            .filter(|p| p.view == view && p.lock.is_none())
            .map(|p| p.id)
            .collect();
        for id in ids {
            self.refresh_pane(id);
        }
    }

    pub(super) fn refresh_pane(&mut self, id: u32) {
        let Some(at) = self.pane_ref(id).and_then(|p| self.pane_at(p)) else {
            return;
        };
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let Some(query) = pane.body.state.query(at) else {
            return;
        };
        pane.seq += 1;
        let seq = pane.seq;
        self.ask_wire(query, move |reply| {
            Msg::Pane(id, PaneMsg::Data { seq, reply })
        });
    }

    pub(super) fn on_pane_data(&mut self, id: u32, seq: u64, reply: Reply) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        if pane.seq != seq {
            return;
        }
        pane.note = pane.body.state.take(reply).err();
        // What it asks after its position's answer (the source pane's
        // counts).
        self.fetch_more(id);
    }

    pub(super) fn run_pane(&mut self, id: u32, cmd: Command) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        match cmd {
            Command::Close => self.close_pane(id),
            Command::LockLine => self.prompt = Some(PromptFor::LockLine { pane: id }),
            Command::LockTime => self.prompt = Some(PromptFor::LockTime { pane: id }),
            Command::CompareLine => self.prompt = Some(PromptFor::CompareLine { pane: id }),
            Command::ToggleLock => {
                if pane.lock.take().is_none() {
                    let view = pane.view;
                    let cursor = self.view_ref(view).and_then(|v| v.cursor);
                    if let Some(p) = self.pane_mut(id) {
                        p.lock = cursor;
                    }
                }
                self.refresh_pane(id);
            }
            Command::PreviousWrite => self.pane_previous_write(id, None),
            Command::WriteOfWidth(w) => self.pane_previous_write(id, Some(w as u64)),
            // `a` with a note shown closes the note.
            Command::Symbolic if pane.note.take().is_some() => {}
            _ => {
                if let Some(key) = pane_key(cmd) {
                    self.on_pane_key(id, key);
                }
            }
        }
    }

    /// A key for the pane's state, and what it asks then.
    pub(super) fn on_pane_key(&mut self, id: u32, key: PaneKey) {
        let Some(slot) = self.pane_ref(id).map(|p| p.body.slot) else {
            return;
        };
        let side = self.layout.area(slot) == layout::Area::Side;
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let action = pane.body.state.key(key, side);
        self.fetch_more(id);
        if let Some(action) = action {
            self.on_pane(id, PaneMsg::Action(action));
        }
    }

    /// Return, a click, or `1 2 4 8`: the bound view jumps to the write
    /// that produced the selected register or the aligned memory region.
    pub(super) fn pane_previous_write(&mut self, id: u32, width: Option<u64>) {
        let Some(pane) = self.pane_ref(id) else {
            return;
        };
        let Some(node) = self.pane_node(pane) else {
            return;
        };
        let Some(target) = pane.body.state.selection(width) else {
            return;
        };
        let view = pane.view;
        self.previous_write(view, node, target);
    }

    pub(super) fn on_symbolized(&mut self, id: u32, text: String, reply: Answer<Vec<String>>) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        pane.note = Some(match reply {
            Ok(names) => match names.first().filter(|n| !n.is_empty()) {
                Some(name) => format!("{text} = {name}"),
                None => tf("{} (no symbol)", &[&text]),
            },
            Err(e) => e,
        });
    }

    /// Asks for the symbol at `addr`, for the pane's note after `text`.
    pub(super) fn symbolize(&mut self, id: u32, text: String, addr: u64) {
        self.ask(Symbolize { addrs: vec![addr] }, move |reply| {
            Msg::Pane(id, PaneMsg::Symbolized { text, reply })
        });
    }

    /// A pane's context menu, its entries given the view and position the
    /// pane shows.
    fn pane_menu(&mut self, id: u32, x: i32, y: i32, items: Vec<(String, MenuItem)>) {
        let Some(pane) = self.pane_ref(id) else {
            return;
        };
        let view = pane.view;
        let Some(at) = pane.lock.or_else(|| self.view_ref(view)?.cursor) else {
            return;
        };
        let (node, line) = (at.node, at.first_line);
        let items = items
            .into_iter()
            .map(|(label, item)| {
                let action = match item {
                    MenuItem::Why(target) => MenuAction::Why { target, node, line },
                    MenuItem::Watch(target) => MenuAction::Watch(target),
                    MenuItem::Write { target, forward } => MenuAction::Write {
                        view,
                        node,
                        target,
                        forward,
                    },
                    MenuItem::Symbol(addr) => MenuAction::Symbolize { pane: id, addr },
                    MenuItem::OpenMemory(addr) => MenuAction::OpenMemory { view, addr },
                    MenuItem::Key(key) => MenuAction::Key { pane: id, key },
                    MenuItem::CompareLine => MenuAction::Pane {
                        pane: id,
                        command: Command::CompareLine,
                    },
                    MenuItem::LockLine => MenuAction::Pane {
                        pane: id,
                        command: Command::LockLine,
                    },
                };
                (label, action)
            })
            .collect();
        self.focus = Focus::Pane(id);
        self.menu = Some(Menu { x, y, items });
    }
}

impl Model {
    /// What a message of one pane does.
    pub(super) fn on_pane(&mut self, pane: u32, msg: PaneMsg) -> bool {
        match msg {
            PaneMsg::Data { seq, reply } => self.on_pane_data(pane, seq, reply),
            PaneMsg::Symbolized { text, reply } => self.on_symbolized(pane, text, reply),
            PaneMsg::View { view } => {
                if let Some(p) = self.pane_mut(pane) {
                    p.view = view;
                }
                self.refresh_pane(pane);
            }
            PaneMsg::Unlock => {
                if let Some(p) = self.pane_mut(pane) {
                    p.lock = None;
                }
                self.refresh_pane(pane);
            }
            PaneMsg::LockHere => {
                self.focus = Focus::Pane(pane);
                self.run_pane(pane, Command::ToggleLock);
            }
            PaneMsg::Close => self.close_pane(pane),
            PaneMsg::Action(PaneAction::Close) => self.close_pane(pane),
            PaneMsg::Action(PaneAction::NextExecution(addr)) => {
                let Some(p) = self.pane_ref(pane) else {
                    return false;
                };
                let (view, node) = (p.view, self.pane_node(p));
                if let Some(node) = node {
                    self.refocus = true;
                    let question = FindPc {
                        node,
                        pc: addr,
                        forward: true,
                    };
                    self.move_to(view, question, true);
                }
            }
            PaneMsg::Action(PaneAction::GoToLine(line)) => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(view, Locate::Line(line), false);
            }
            PaneMsg::Action(PaneAction::GoToTime(time)) => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(view, Locate::Time(time), false);
            }
            PaneMsg::Action(PaneAction::Say(text)) => self.status = Some(t(text).into()),
            PaneMsg::Action(PaneAction::Refresh) => self.refresh_pane(pane),
            PaneMsg::Action(PaneAction::PreviousWrite) => self.pane_previous_write(pane, None),
            PaneMsg::Action(PaneAction::Note(text)) => {
                if let Some(p) = self.pane_mut(pane) {
                    p.note = Some(text);
                }
            }
            PaneMsg::Action(PaneAction::Symbolize { text, addr }) => {
                self.symbolize(pane, text, addr)
            }
            PaneMsg::Action(PaneAction::Menu { x, y, items }) => self.pane_menu(pane, x, y, items),
            PaneMsg::Action(PaneAction::GoToNode(node)) => match self.pane_ref(pane) {
                Some(p) if p.body.focusable() => {
                    let view = p.view;
                    self.move_to(view, Locate::Node(node), true);
                }
                _ => {
                    self.refocus = true;
                    let view = self.active_view();
                    self.move_to(view, Locate::Node(node), false);
                }
            },
            PaneMsg::Own(msg) => {
                let Some(p) = self.pane_mut(pane) else {
                    return false;
                };
                let action = p.body.state.update(msg);
                // A click in a pane that takes the focus gives it the focus.
                if p.body.focusable() {
                    self.focus = Focus::Pane(pane);
                }
                self.fetch_more(pane);
                if let Some(action) = action {
                    return self.on_pane(pane, PaneMsg::Action(action));
                }
            }
            PaneMsg::More { token, reply } => self.on_more(pane, token, reply),
            PaneMsg::Stepped { view, step, reply } => self.on_pane_stepped(pane, view, step, reply),
        }
        true
    }
}
