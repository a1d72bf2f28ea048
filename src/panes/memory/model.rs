//! A memory pane's state: the bytes shown, the selected one, what they
//! are compared with, and the search for a changed byte beyond what is
//! shown (a chunk at a time, through `PaneState::more`).

use std::any::Any;

use crate::i18n::{t, tf};
use crate::model::pane_state::{
    fresh_token, Arrow, At, MenuItem, PaneAction, PaneKey, PaneState,
};
use tarmac_lens_core::protocol::{Memory, MemoryReply, NodeId, Query, Question, Reply, WriteTarget};

/// Memory read per `[`/`]` search step, and how far a search goes.
const SEARCH_CHUNK: u64 = 4096;
const SEARCH_CHUNKS: u32 = 16;
/// Rows shown at first.
const ROWS: u32 = 8;
/// 4096 bytes, the most one Memory question answers.
const MAX_ROWS: u32 = 256;

/// What a memory pane shows.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPane {
    /// First byte shown (16-aligned).
    pub addr: u64,
    /// How many 16-byte rows it shows.
    pub rows: u32,
    /// The selected byte's address.
    pub selected: u64,
    /// Compared with this node instead of the view's previous one (`d`).
    pub compare: Option<NodeId>,
    /// The bytes at the pane's position, once answered.
    pub memory: Option<MemoryReply>,
    /// Where it was last asked at: what a search reads at.
    at: Option<At>,
    /// A `[`/`]` search reading past what is shown.
    search: Option<Search>,
}

/// A search for a changed byte, a chunk at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Search {
    /// After the selection, not before it.
    forward: bool,
    /// The next chunk's first byte.
    addr: u64,
    /// Chunks read so far, that one included.
    chunks: u32,
    /// The chunk's token; `None` until asked.
    token: Option<u64>,
}

/// A memory pane's own messages, from its render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemMsg {
    /// A click on a byte: it is selected.
    Pick {
        /// The byte's address.
        addr: u64,
    },
    /// The wheel: scroll by this many 16-byte rows (negative: up).
    Scroll {
        /// Rows.
        rows: i64,
    },
    /// A right-click on a byte: its context menu.
    Context {
        /// The byte's address.
        addr: u64,
        /// The click's `clientX`.
        x: i32,
        /// The click's `clientY`.
        y: i32,
    },
}

impl MemoryPane {
    /// A pane at `addr` (`registry::Opens::Address`).
    pub fn boxed(addr: u64) -> Box<dyn PaneState> {
        Box::new(MemoryPane {
            addr: addr & !15,
            rows: ROWS,
            selected: addr,
            compare: None,
            memory: None,
            at: None,
            search: None,
        })
    }

    fn compared(&self, at: At) -> Option<NodeId> {
        self.compare.or(at.compare)
    }

    /// Selects `target`, scrolling so that it is shown.
    fn select(&mut self, target: u64) {
        self.selected = target;
        let span = self.rows as u64 * 16;
        if target < self.addr || target >= self.addr.wrapping_add(span) {
            self.addr = (target & !15).wrapping_sub((self.rows as u64 / 2) * 16);
        }
    }

    fn arrow(&mut self, arrow: Arrow) -> Option<PaneAction> {
        self.selected = match arrow {
            Arrow::Left => self.selected.wrapping_sub(1),
            Arrow::Right => self.selected.wrapping_add(1),
            Arrow::Up => self.selected.wrapping_sub(16),
            Arrow::Down => self.selected.wrapping_add(16),
        };
        if self.selected.wrapping_sub(self.addr) < self.rows as u64 * 16 {
            return None;
        }
        // One row at a time, like scrolling a hex dump.
        self.addr = if self.selected < self.addr {
            self.addr.wrapping_sub(16)
        } else {
            self.addr.wrapping_add(16)
        };
        Some(PaneAction::Refresh)
    }

    /// `[`/`]`: the nearest changed byte before/after the selection, first
    /// in what is shown, then reading on (`more`).
    fn changed(&mut self, forward: bool) -> Option<PaneAction> {
        let m = self.memory.as_ref()?;
        if let Some(addr) = find_changed(&m.changed, m.addr, self.selected, forward) {
            self.select(addr);
            return Some(PaneAction::Refresh);
        }
        let addr = if forward {
            m.addr.wrapping_add(m.bytes.len() as u64)
        } else {
            m.addr.wrapping_sub(SEARCH_CHUNK)
        };
        if self.at.and_then(|at| self.compared(at)).is_none() {
            return Some(PaneAction::Note(
                t("Nothing to compare with: move first, or d.").into(),
            ));
        }
        self.search = Some(Search {
            forward,
            addr,
            chunks: 1,
            token: None,
        });
        None
    }

    fn menu(&self, addr: u64, x: i32, y: i32) -> PaneAction {
        let hex = |a: u64| format!("{a:#x}");
        let mut items = vec![
            (
                t("Why this value? (y)").into(),
                MenuItem::Why(WriteTarget::Memory { addr, len: 1 }),
            ),
            (
                tf("Why the 8 bytes at {}?", &[&hex(addr & !7)]),
                MenuItem::Why(WriteTarget::Memory {
                    addr: addr & !7,
                    len: 8,
                }),
            ),
        ];
        for len in [1u64, 2, 4, 8] {
            let start = addr & !(len - 1);
            let label = if len > 1 {
                tf("Previous write of {} bytes at {}", &[&len, &hex(start)])
            } else {
                tf("Previous write of 1 byte at {}", &[&hex(start)])
            };
            let target = WriteTarget::Memory { addr: start, len };
            items.push((
                label,
                MenuItem::Write {
                    target,
                    forward: false,
                },
            ));
        }
        for len in [1u64, 4, 8] {
            let start = addr & !(len - 1);
            let label = if len > 1 {
                tf("Watch {} bytes at {}", &[&len, &hex(start)])
            } else {
                tf("Watch the byte at {} (W)", &[&hex(start)])
            };
            let target = WriteTarget::Memory { addr: start, len };
            items.push((label, MenuItem::Watch(target)));
        }
        items.push((
            tf("Next write of the byte at {}", &[&hex(addr)]),
            MenuItem::Write {
                target: WriteTarget::Memory { addr, len: 1 },
                forward: true,
            },
        ));
        for (label, item) in [
            (
                "Previous changed byte ([)",
                MenuItem::Key(PaneKey::Changed { forward: false }),
            ),
            (
                "Next changed byte (])",
                MenuItem::Key(PaneKey::Changed { forward: true }),
            ),
            ("Compare with a line… (d)", MenuItem::CompareLine),
            ("Lock to a line… (l)", MenuItem::LockLine),
        ] {
            items.push((t(label).into(), item));
        }
        PaneAction::Menu { x, y, items }
    }
}

impl PaneState for MemoryPane {
    fn query(&mut self, at: At) -> Option<Query> {
        self.at = Some(at);
        Some(
            Memory {
                node: at.node,
                addr: self.addr,
                len: self.rows * 16,
                compare: self.compared(at),
            }
            .into(),
        )
    }

    fn take(&mut self, reply: Reply) -> Result<(), String> {
        self.memory = Some(Memory::answer_of(reply)?);
        Ok(())
    }

    fn title(&self) -> String {
        let addr = format!("{:#x}", self.addr);
        match self.compare {
            Some(_) => tf("Memory at {} (compared)", &[&addr]),
            None => tf("Memory at {}", &[&addr]),
        }
    }

    fn more(&mut self, _indexed_nodes: u64) -> Option<(u64, Query)> {
        let at = self.at?;
        let compare = self.compared(at);
        let search = self.search.as_mut().filter(|s| s.token.is_none())?;
        let token = fresh_token();
        search.token = Some(token);
        let query = Memory {
            node: at.node,
            addr: search.addr,
            len: SEARCH_CHUNK as u32,
            compare,
        };
        Some((token, query.into()))
    }

    fn take_more(&mut self, token: u64, reply: Reply) -> Result<Option<PaneAction>, String> {
        let Some(search) = self.search.filter(|s| s.token == Some(token)) else {
            return Ok(None);
        };
        self.search = None;
        let m = Memory::answer_of(reply)?;
        let from = if search.forward {
            m.addr.wrapping_sub(1)
        } else {
            m.addr.wrapping_add(m.bytes.len() as u64)
        };
        if let Some(addr) = find_changed(&m.changed, m.addr, from, search.forward) {
            self.select(addr);
            return Ok(Some(PaneAction::Refresh));
        }
        if search.chunks >= SEARCH_CHUNKS {
            let kib = SEARCH_CHUNK * SEARCH_CHUNKS as u64 / 1024;
            return Err(if search.forward {
                tf("No changed byte within {} KiB after.", &[&kib])
            } else {
                tf("No changed byte within {} KiB before.", &[&kib])
            });
        }
        self.search = Some(Search {
            addr: if search.forward {
                m.addr.wrapping_add(SEARCH_CHUNK)
            } else {
                m.addr.wrapping_sub(SEARCH_CHUNK)
            },
            chunks: search.chunks + 1,
            token: None,
            ..search
        });
        Ok(None)
    }

    fn update(&mut self, msg: Box<dyn Any>) -> Option<PaneAction> {
        match *msg.downcast::<MemMsg>().ok()? {
            MemMsg::Pick { addr } => {
                self.selected = addr;
                None
            }
            MemMsg::Scroll { rows } => {
                self.addr = self.addr.wrapping_add_signed(rows * 16);
                Some(PaneAction::Refresh)
            }
            MemMsg::Context { addr, x, y } => {
                self.selected = addr;
                Some(self.menu(addr, x, y))
            }
        }
    }

    fn key(&mut self, key: PaneKey, _side: bool) -> Option<PaneAction> {
        match key {
            PaneKey::Arrow(arrow) => self.arrow(arrow),
            PaneKey::Page { down } => {
                let step = self.rows as u64 * 16;
                let by = |a: u64| {
                    if down {
                        a.wrapping_add(step)
                    } else {
                        a.wrapping_sub(step)
                    }
                };
                (self.addr, self.selected) = (by(self.addr), by(self.selected));
                Some(PaneAction::Refresh)
            }
            PaneKey::Rows { more } => {
                self.rows = if more {
                    (self.rows + 1).min(MAX_ROWS)
                } else {
                    self.rows.saturating_sub(1).max(1)
                };
                Some(PaneAction::Refresh)
            }
            PaneKey::Changed { forward } => self.changed(forward),
            PaneKey::Mark | PaneKey::Symbol => None,
        }
    }

    fn grows(&self) -> bool {
        false
    }

    fn selection(&self, width: Option<u64>) -> Option<WriteTarget> {
        let len = width.unwrap_or(1);
        Some(WriteTarget::Memory {
            addr: self.selected & !(len - 1),
            len,
        })
    }

    fn compare_with(&mut self, node: NodeId) {
        self.compare = Some(node);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pane_at(addr: u64, compare: Option<NodeId>) -> MemoryPane {
        let mut pane = MemoryPane::boxed(addr)
            .as_any()
            .downcast_ref::<MemoryPane>()
            .unwrap()
            .clone();
        let at = At { node: 7, compare };
        let Some(Query::Memory(q)) = pane.query(at) else {
            panic!("a memory question")
        };
        pane.take(Reply::Memory(chunk(q.addr, q.len as usize, None)))
            .unwrap();
        pane
    }

    /// `len` bytes at `addr`, the one at `changed` (if any) changed.
    fn chunk(addr: u64, len: usize, changed: Option<u64>) -> MemoryReply {
        MemoryReply {
            node: 7,
            addr,
            bytes: vec![0; len],
            known: vec![true; len],
            changed: (0..len as u64).map(|i| Some(addr + i) == changed).collect(),
        }
    }

    #[test]
    fn a_search_past_what_is_shown_reads_on_a_chunk_at_a_time() {
        let mut pane = pane_at(0x1000, Some(3));
        assert_eq!(pane.key(PaneKey::Changed { forward: true }, false), None);
        let mut asked = Vec::new();
        let found = loop {
            let (token, query) = pane.more(0).expect("the next chunk asked");
            assert!(pane.more(0).is_none(), "one chunk at a time");
            let Query::Memory(q) = query else { panic!() };
            assert_eq!((q.node, q.compare, q.len), (7, Some(3), 4096));
            asked.push(q.addr);
            let changed = (asked.len() == 3).then_some(q.addr + 100);
            let reply = Reply::Memory(chunk(q.addr, 4096, changed));
            if let Some(action) = pane.take_more(token, reply).unwrap() {
                break action;
            }
        };
        // After the 128 bytes shown, then on.
        assert_eq!(asked, [0x1080, 0x2080, 0x3080]);
        assert_eq!(found, PaneAction::Refresh);
        assert_eq!(pane.selected, 0x3080 + 100);
        assert!(pane.addr <= pane.selected && pane.selected < pane.addr + 128);
    }

    #[test]
    fn a_search_stops_after_64_kib_and_says_so() {
        let mut pane = pane_at(0x10_0000, Some(3));
        pane.key(PaneKey::Changed { forward: false }, false);
        let mut chunks = 0;
        let said = loop {
            let (token, Query::Memory(q)) = pane.more(0).unwrap() else {
                panic!()
            };
            chunks += 1;
            match pane.take_more(token, Reply::Memory(chunk(q.addr, 4096, None))) {
                Ok(None) => {}
                Ok(Some(a)) => panic!("{a:?}"),
                Err(said) => break said,
            }
        };
        assert_eq!(chunks, SEARCH_CHUNKS);
        assert_eq!(said, "No changed byte within 64 KiB before.");
        assert!(pane.more(0).is_none());
    }

    #[test]
    fn a_search_needs_something_to_compare_with() {
        let mut pane = pane_at(0x1000, None);
        assert_eq!(
            pane.key(PaneKey::Changed { forward: true }, false),
            Some(PaneAction::Note(
                "Nothing to compare with: move first, or d.".into()
            ))
        );
        assert!(pane.more(0).is_none());
        // `d` gives it one, and the title says so.
        pane.compare_with(2);
        assert!(pane.title().ends_with("(compared)"));
        assert_eq!(pane.key(PaneKey::Changed { forward: true }, false), None);
        assert!(pane.more(0).is_some());
    }

    #[test]
    fn an_answer_to_an_older_chunk_is_dropped() {
        let mut pane = pane_at(0x1000, Some(3));
        pane.key(PaneKey::Changed { forward: true }, false);
        let (token, _) = pane.more(0).unwrap();
        let stale = Reply::Memory(chunk(0x1080, 4096, Some(0x1090)));
        assert_eq!(pane.take_more(token + 1_000_000, stale), Ok(None));
        assert_eq!(pane.selected, 0x1000);
    }
}
