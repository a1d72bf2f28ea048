//! Register and memory panes: what they show, their keys and jumps.

use super::layout;
use super::pane_state::PaneAction;
use super::{Answer, Focus, Menu, MenuAction, Model, Msg, Pane, PaneBody, PromptFor};
use crate::i18n::{t, tf};
use crate::model::keys::{Command, RegKind};
use tarmac_lens_core::browse::protocol::{
    FindPc, Locate, Memory, MemoryReply, NodeId, RegMark, Registers, RegistersReply, Reply,
    Symbolize, WriteTarget,
};

/// Memory read per `[`/`]` search step, and how far a search goes.
const SEARCH_CHUNK: u64 = 4096;
const SEARCH_CHUNKS: u32 = 16;
const MEMORY_ROWS: u32 = 8;
/// 4096 bytes, the most one Memory query answers.
const MAX_MEMORY_ROWS: u32 = 256;

/// What fills a pane at its position, by its kind.
pub enum PaneData {
    Registers(Answer<RegistersReply>),
    Memory(Answer<MemoryReply>),
    /// A pane living in its own folder: its reply as the wire carries it,
    /// which its [`super::pane_state::PaneState`] decodes.
    Own(Reply),
}

/// The question that fills a pane, by its kind.
enum PaneAsk {
    Registers(Registers),
    Memory(Memory),
    Own(tarmac_lens_core::browse::protocol::Query),
}

/// A pane's messages: its own input, and the answers to its questions.
pub enum PaneMsg {
    /// What fills the pane at its position.
    Data {
        /// The question's number: an older one's answer is dropped.
        seq: u64,
        /// The answer, by the pane's kind.
        reply: PaneData,
    },
    /// The symbol for the selected register's value (`a`).
    Symbolized {
        /// The register and its value, as the note shows them.
        text: String,
        /// The value's symbol (empty: none).
        reply: Answer<Vec<String>>,
    },
    /// A chunk of memory read while looking for a changed byte (`[`, `]`).
    ChangedSearch {
        /// Looking after the selection, not before it.
        forward: bool,
        /// Chunks read so far: the search stops after a few.
        chunks: u32,
        /// The chunk, with which of its bytes changed.
        reply: Answer<MemoryReply>,
    },
    /// A click on a register: it is selected and its writer found.
    RegPick {
        /// The register's index in the panel.
        index: usize,
    },
    /// A right-click on a register: its context menu.
    RegContext {
        /// The register's index in the panel.
        index: usize,
        /// Where the menu opens: the click's `clientX`.
        x: i32,
        /// Where the menu opens: the click's `clientY`.
        y: i32,
    },
    /// A click on a byte: it is selected.
    MemPick {
        /// The byte's address.
        addr: u64,
    },
    /// The memory pane scrolled (the wheel).
    MemScroll {
        /// By how many 16-byte rows, negative upwards.
        rows: i64,
    },
    /// A right-click on a byte: its context menu.
    MemContext {
        /// The byte's address.
        addr: u64,
        /// Where the menu opens: the click's `clientX`.
        x: i32,
        /// Where the menu opens: the click's `clientY`.
        y: i32,
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
    /// A click in a pane living in its own folder (`src/panes/`).
    Action(super::pane_state::PaneAction),
    /// A pane in its own folder: its render's message, which its state
    /// reads (`PaneState::update`).
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

impl Model {
    /// What a register or memory pane has selected (`w`, `y`): its
    /// register, or its byte; `None` in other panes or with nothing selected.
    pub(super) fn selection_target(&self, pane: u32) -> Option<WriteTarget> {
        match &self.pane_ref(pane)?.body {
            PaneBody::Registers {
                panel, selected, ..
            } => Some(WriteTarget::Register(
                panel.as_ref()?.cells.get(*selected)?.name.clone(),
            )),
            PaneBody::Memory { selected, .. } => Some(WriteTarget::Memory {
                addr: *selected,
                len: 1,
            }),
            _ => None,
        }
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

    pub(super) fn add_registers(&mut self, kind: RegKind, view: u32) -> u32 {
        self.push_pane(
            view,
            PaneBody::Registers {
                kind,
                panel: None,
                answered: false,
                selected: 0,
                since: false,
            },
        )
    }

    pub(super) fn toggle_registers(&mut self, kind: RegKind) {
        let existing = self
            .panes
            .iter()
            .find(|p| matches!(p.body, PaneBody::Registers { kind: k, .. } if k == kind))
            .map(|p| p.id);
        match existing {
            Some(id) => self.close_pane(id),
            None => {
                let id = self.add_registers(kind, self.active_view());
                self.refresh_pane(id);
            }
        }
    }

    pub(super) fn open_memory(&mut self, view: u32, addr: u64) {
        let id = self.push_pane(
            view,
            PaneBody::Memory {
                addr: addr & !15,
                rows: MEMORY_ROWS,
                selected: addr,
                compare: None,
                memory: None,
            },
        );
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

    /// What changes are highlighted against: the view's previous position
    /// (the last move), or the line chosen with `d`.
    fn pane_compare(&self, pane: &Pane) -> Option<NodeId> {
        if let PaneBody::Memory {
            compare: Some(c), ..
        } = pane.body
        {
            return Some(c);
        }
        if pane.lock.is_some() {
            return None;
        }
        self.view_ref(pane.view)?.prev
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
        let Some(pane) = self.pane_ref(id) else {
            return;
        };
        let Some(node) = self.pane_node(pane) else {
            return;
        };
        let compare = self.pane_compare(pane);
        let registers = |mark| Registers { node, mark };
        let ask = match &pane.body {
            PaneBody::Registers { since: false, .. } => {
                PaneAsk::Registers(registers(RegMark::Written))
            }
            PaneBody::Registers { since: true, .. } => PaneAsk::Registers(registers(
                compare.map_or(RegMark::None, RegMark::ChangedSince),
            )),
            PaneBody::Memory { addr, rows, .. } => PaneAsk::Memory(Memory {
                node,
                addr: *addr,
                len: rows * 16,
                compare,
            }),
            PaneBody::Own { state, .. } => match state.query(node) {
                Some(q) => PaneAsk::Own(q),
                None => return,
            },
        };
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        pane.seq += 1;
        let seq = pane.seq;
        let data = move |reply| Msg::Pane(id, PaneMsg::Data { seq, reply });
        match ask {
            PaneAsk::Registers(q) => self.ask(q, move |r| data(PaneData::Registers(r))),
            PaneAsk::Memory(q) => self.ask(q, move |r| data(PaneData::Memory(r))),
            PaneAsk::Own(q) => self.ask_wire(q, move |r| data(PaneData::Own(r))),
        }
    }

    pub(super) fn on_pane_data(&mut self, id: u32, seq: u64, reply: PaneData) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        if pane.seq != seq {
            return;
        }
        match (&mut pane.body, reply) {
            (PaneBody::Own { state, .. }, PaneData::Own(reply)) => {
                pane.note = state.take(reply).err();
                // What it asks after its position's answer (the source
                // pane's counts).
                self.fetch_more(id);
            }
            (
                PaneBody::Registers {
                    kind,
                    panel,
                    answered,
                    selected,
                    ..
                },
                PaneData::Registers(Ok(regs)),
            ) => {
                *answered = true;
                *panel = regs.panels.into_iter().find(|p| p.kind == kind.panel());
                let n = panel.as_ref().map_or(0, |p| p.cells.len());
                *selected = (*selected).min(n.saturating_sub(1));
            }
            (PaneBody::Memory { memory, .. }, PaneData::Memory(Ok(m))) => *memory = Some(m),
            (_, PaneData::Registers(Err(e)) | PaneData::Memory(Err(e))) => pane.note = Some(e),
            // The pane changed kind while its question was on its way (a
            // registers pane toggled to another panel): a newer one follows.
            _ => {}
        }
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
            Command::Symbolic => self.symbolic(id),
            Command::ToggleRegMark => {
                if let PaneBody::Registers { since, .. } = &mut pane.body {
                    *since = !*since;
                    self.refresh_pane(id);
                }
            }
            Command::PrevChanged | Command::NextChanged => {
                self.changed_search(id, cmd == Command::NextChanged)
            }
            Command::Up | Command::Down | Command::Left | Command::Right => {
                let side = self.layout.area(layout::Slot::REGISTERS) == layout::Area::Side;
                let Some(pane) = self.pane_mut(id) else {
                    return;
                };
                let refresh = move_selection(pane, cmd, side);
                if refresh {
                    self.refresh_pane(id);
                }
            }
            Command::Shorter | Command::Taller => {
                if let PaneBody::Memory { rows, .. } = &mut pane.body {
                    *rows = if cmd == Command::Taller {
                        (*rows + 1).min(MAX_MEMORY_ROWS)
                    } else {
                        rows.saturating_sub(1).max(1)
                    };
                    self.refresh_pane(id);
                }
            }
            Command::PageUp | Command::PageDown => {
                if let PaneBody::Memory {
                    addr,
                    rows,
                    selected,
                    ..
                } = &mut pane.body
                {
                    let step = *rows as u64 * 16;
                    if cmd == Command::PageDown {
                        *addr = addr.wrapping_add(step);
                        *selected = selected.wrapping_add(step);
                    } else {
                        *addr = addr.wrapping_sub(step);
                        *selected = selected.wrapping_sub(step);
                    }
                    self.refresh_pane(id);
                }
            }
            _ => {}
        }
    }

    pub(super) fn scroll_memory(&mut self, id: u32, rows: i64) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        if let PaneBody::Memory { addr, .. } = &mut pane.body {
            *addr = addr.wrapping_add_signed(rows * 16);
            self.refresh_pane(id);
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
        let target = match &pane.body {
            PaneBody::Registers {
                panel, selected, ..
            } => match panel.as_ref().and_then(|p| p.cells.get(*selected)) {
                Some(cell) => WriteTarget::Register(cell.name.clone()),
                None => return,
            },
            PaneBody::Memory { selected, .. } => {
                let len = width.unwrap_or(1);
                WriteTarget::Memory {
                    addr: selected & !(len - 1),
                    len,
                }
            }
            _ => return,
        };
        let view = pane.view;
        self.previous_write(view, node, target);
    }

    fn symbolic(&mut self, id: u32) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        if pane.note.take().is_some() {
            return;
        }
        let PaneBody::Registers {
            panel, selected, ..
        } = &pane.body
        else {
            return;
        };
        let Some(cell) = panel.as_ref().and_then(|p| p.cells.get(*selected)) else {
            return;
        };
        if !cell.known {
            pane.note = Some(tf("{} is not known here", &[&cell.name]));
            return;
        }
        let Ok(value) = u64::from_str_radix(&cell.text, 16) else {
            pane.note = Some(tf("{} does not fit an address", &[&cell.name]));
            return;
        };
        let text = format!("{} = {value:#x}", cell.name);
        self.ask(Symbolize { addrs: vec![value] }, move |reply| {
            Msg::Pane(id, PaneMsg::Symbolized { text, reply })
        });
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

    /// `[`/`]`: the nearest changed byte before/after the selection, first
    /// in what is shown, then reading further in chunks.
    fn changed_search(&mut self, id: u32, forward: bool) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let PaneBody::Memory {
            memory: Some(m),
            selected,
            ..
        } = &pane.body
        else {
            return;
        };
        let found = find_changed(&m.changed, m.addr, *selected, forward);
        if let Some(addr) = found {
            select_memory(pane, addr);
            self.refresh_pane(id);
            return;
        }
        let from = if forward {
            m.addr.wrapping_add(m.bytes.len() as u64)
        } else {
            m.addr.wrapping_sub(SEARCH_CHUNK)
        };
        self.search_chunk(id, forward, from, 1);
    }

    fn search_chunk(&mut self, id: u32, forward: bool, addr: u64, chunks: u32) {
        let Some(pane) = self.pane_ref(id) else {
            return;
        };
        let (Some(node), compare) = (self.pane_node(pane), self.pane_compare(pane)) else {
            return;
        };
        if compare.is_none() {
            if let Some(p) = self.pane_mut(id) {
                p.note = Some(t("Nothing to compare with: move first, or d.").into());
            }
            return;
        }
        self.ask(
            Memory {
                node,
                addr,
                len: SEARCH_CHUNK as u32,
                compare,
            },
            move |reply| {
                Msg::Pane(
                    id,
                    PaneMsg::ChangedSearch {
                        forward,
                        chunks,
                        reply,
                    },
                )
            },
        );
    }

    pub(super) fn on_changed_search(
        &mut self,
        id: u32,
        forward: bool,
        chunks: u32,
        reply: Answer<MemoryReply>,
    ) {
        let m = match reply {
            Ok(m) => m,
            Err(e) => {
                if let Some(p) = self.pane_mut(id) {
                    p.note = Some(e);
                }
                return;
            }
        };
        let start = if forward {
            m.addr.wrapping_sub(1)
        } else {
            m.addr.wrapping_add(m.bytes.len() as u64)
        };
        if let Some(addr) = find_changed(&m.changed, m.addr, start, forward) {
            if let Some(p) = self.pane_mut(id) {
                p.note = None;
                select_memory(p, addr);
            }
            self.refresh_pane(id);
        } else if chunks < SEARCH_CHUNKS {
            let next = if forward {
                m.addr.wrapping_add(SEARCH_CHUNK)
            } else {
                m.addr.wrapping_sub(SEARCH_CHUNK)
            };
            self.search_chunk(id, forward, next, chunks + 1);
        } else if let Some(p) = self.pane_mut(id) {
            let kib = SEARCH_CHUNK * SEARCH_CHUNKS as u64 / 1024;
            p.note = Some(if forward {
                tf("No changed byte within {} KiB after.", &[&kib])
            } else {
                tf("No changed byte within {} KiB before.", &[&kib])
            });
        }
    }

    pub(super) fn on_reg_context(&mut self, id: u32, index: usize, x: i32, y: i32) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let PaneBody::Registers {
            panel, selected, ..
        } = &mut pane.body
        else {
            return;
        };
        *selected = index;
        let Some(cell) = panel.as_ref().and_then(|p| p.cells.get(index)) else {
            return;
        };
        let name = cell.name.clone();
        let value = u64::from_str_radix(&cell.text, 16)
            .ok()
            .filter(|_| cell.known);
        let view = pane.view;
        let at = pane.lock.or_else(|| self.view_ref(view)?.cursor);
        let Some(at) = at else { return };
        let node = at.node;
        let target = WriteTarget::Register(name.clone());
        let mut items = vec![
            (
                t("Why this value? (y)").into(),
                MenuAction::Why {
                    target: target.clone(),
                    node,
                    line: at.first_line,
                },
            ),
            (
                tf("Watch {} (W)", &[&name]),
                MenuAction::Watch(target.clone()),
            ),
            (
                tf("Previous write of {}", &[&name]),
                MenuAction::Write {
                    view,
                    node,
                    target: target.clone(),
                    forward: false,
                },
            ),
            (
                tf("Next write of {}", &[&name]),
                MenuAction::Write {
                    view,
                    node,
                    target,
                    forward: true,
                },
            ),
        ];
        if let Some(v) = value {
            items.push((
                tf("Symbol at {}", &[&format!("{v:#x}")]),
                MenuAction::Symbolize { pane: id, addr: v },
            ));
            items.push((
                tf("Open memory at {}", &[&format!("{v:#x}")]),
                MenuAction::OpenMemory { view, addr: v },
            ));
        }
        self.focus = Focus::Pane(id);
        self.menu = Some(Menu { x, y, items });
    }

    pub(super) fn on_mem_context(&mut self, id: u32, addr: u64, x: i32, y: i32) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        if let PaneBody::Memory { selected, .. } = &mut pane.body {
            *selected = addr;
        }
        let view = pane.view;
        let at = pane.lock.or_else(|| self.view_ref(view)?.cursor);
        let Some(at) = at else { return };
        let node = at.node;
        let mut items = vec![
            (
                t("Why this value? (y)").into(),
                MenuAction::Why {
                    target: WriteTarget::Memory { addr, len: 1 },
                    node,
                    line: at.first_line,
                },
            ),
            (
                tf("Why the 8 bytes at {}?", &[&format!("{:#x}", addr & !7)]),
                MenuAction::Why {
                    target: WriteTarget::Memory {
                        addr: addr & !7,
                        len: 8,
                    },
                    node,
                    line: at.first_line,
                },
            ),
        ];
        for len in [1u64, 2, 4, 8] {
            let start = addr & !(len - 1);
            items.push((
                if len > 1 {
                    tf(
                        "Previous write of {} bytes at {}",
                        &[&len, &format!("{start:#x}")],
                    )
                } else {
                    tf("Previous write of 1 byte at {}", &[&format!("{start:#x}")])
                },
                MenuAction::Write {
                    view,
                    node,
                    target: WriteTarget::Memory { addr: start, len },
                    forward: false,
                },
            ));
        }
        for len in [1u64, 4, 8] {
            let start = addr & !(len - 1);
            let target = WriteTarget::Memory { addr: start, len };
            items.push((
                if len > 1 {
                    tf("Watch {} bytes at {}", &[&len, &format!("{start:#x}")])
                } else {
                    tf("Watch the byte at {} (W)", &[&format!("{start:#x}")])
                },
                MenuAction::Watch(target),
            ));
        }
        items.push((
            tf("Next write of the byte at {}", &[&format!("{addr:#x}")]),
            MenuAction::Write {
                view,
                node,
                target: WriteTarget::Memory { addr, len: 1 },
                forward: true,
            },
        ));
        for (label, command) in [
            ("Previous changed byte ([)", Command::PrevChanged),
            ("Next changed byte (])", Command::NextChanged),
            ("Compare with a line… (d)", Command::CompareLine),
            ("Lock to a line… (l)", Command::LockLine),
        ] {
            items.push((t(label).into(), MenuAction::Pane { pane: id, command }));
        }
        self.focus = Focus::Pane(id);
        self.menu = Some(Menu { x, y, items });
    }
}

/// The first changed byte strictly after (or before) `from`.
fn find_changed(changed: &[bool], base: u64, from: u64, forward: bool) -> Option<u64> {
    let index = |addr: u64| addr.wrapping_sub(base);
    if forward {
        let start = index(from.wrapping_add(1));
        (start.min(changed.len() as u64) as usize..changed.len())
            .find(|&i| changed[i])
            .map(|i| base.wrapping_add(i as u64))
    } else {
        let end = index(from).min(changed.len() as u64) as usize;
        (0..end)
            .rev()
            .find(|&i| changed[i])
            .map(|i| base.wrapping_add(i as u64))
    }
}

/// Selects `addr`, scrolling the pane so it is shown.
fn select_memory(pane: &mut Pane, target: u64) {
    if let PaneBody::Memory {
        addr,
        rows,
        selected,
        ..
    } = &mut pane.body
    {
        *selected = target;
        let span = *rows as u64 * 16;
        if target < *addr || target >= addr.wrapping_add(span) {
            *addr = (target & !15).wrapping_sub((*rows as u64 / 2) * 16);
        }
    }
}

/// Arrow keys; true when a memory pane scrolled and needs reading again.
fn move_selection(pane: &mut Pane, cmd: Command, side: bool) -> bool {
    match &mut pane.body {
        PaneBody::Registers {
            kind,
            panel,
            selected,
            ..
        } => {
            let n = panel.as_ref().map_or(0, |p| p.cells.len());
            if n == 0 {
                return false;
            }
            let cols = kind.columns(side);
            *selected = match cmd {
                Command::Left => selected.saturating_sub(1),
                Command::Right => (*selected + 1).min(n - 1),
                Command::Up => selected.checked_sub(cols).unwrap_or(*selected),
                _ => (*selected + cols).min(n - 1),
            };
            false
        }
        PaneBody::Memory {
            addr,
            rows,
            selected,
            ..
        } => {
            *selected = match cmd {
                Command::Left => selected.wrapping_sub(1),
                Command::Right => selected.wrapping_add(1),
                Command::Up => selected.wrapping_sub(16),
                _ => selected.wrapping_add(16),
            };
            let span = *rows as u64 * 16;
            if selected.wrapping_sub(*addr) >= span {
                // One row at a time, like scrolling a hex dump.
                *addr = if *selected < *addr {
                    addr.wrapping_sub(16)
                } else {
                    addr.wrapping_add(16)
                };
                return true;
            }
            false
        }
        _ => false,
    }
}

impl Model {
    /// What a message of one pane does.
    pub(super) fn on_pane(&mut self, pane: u32, msg: PaneMsg) -> bool {
        match msg {
            PaneMsg::Data { seq, reply } => self.on_pane_data(pane, seq, reply),
            PaneMsg::Symbolized { text, reply } => self.on_symbolized(pane, text, reply),
            PaneMsg::ChangedSearch {
                forward,
                chunks,
                reply,
            } => self.on_changed_search(pane, forward, chunks, reply),
            PaneMsg::RegPick { index } => {
                self.focus = Focus::Pane(pane);
                if let Some(p) = self.pane_mut(pane) {
                    if let PaneBody::Registers { selected, .. } = &mut p.body {
                        *selected = index;
                    }
                }
                self.pane_previous_write(pane, None);
            }
            PaneMsg::RegContext { index, x, y } => self.on_reg_context(pane, index, x, y),
            PaneMsg::MemPick { addr } => {
                self.focus = Focus::Pane(pane);
                if let Some(p) = self.pane_mut(pane) {
                    if let PaneBody::Memory { selected, .. } = &mut p.body {
                        *selected = addr;
                    }
                }
            }
            PaneMsg::MemScroll { rows } => self.scroll_memory(pane, rows),
            PaneMsg::MemContext { addr, x, y } => self.on_mem_context(pane, addr, x, y),
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
                let PaneBody::Own { state, .. } = &mut p.body else {
                    return false;
                };
                let action = state.update(msg);
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
