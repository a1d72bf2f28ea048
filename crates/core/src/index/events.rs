//! Where the trace's events are: exceptions, interrupts, mode changes,
//! aborted accesses and unparsed lines, kept by the index so the browser can
//! list them and step from one to the next without reading the trace.
//!
//! Compact because a damaged trace can be mostly unparsed lines: events are
//! varint deltas (line, node, byte offset, kind), in blocks of [`BLOCK`]
//! with a directory of block heads, so an event costs about 3 bytes and a
//! page or a next/previous search decodes one or two blocks.

use serde::{Deserialize, Serialize};

use crate::codec::varint;
use crate::parse::RecordKind;

/// Events per directory entry.
const BLOCK: u64 = 64;

/// What made a line an event of the events list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventKind {
    /// An `E` line that is not an interrupt or a mode change (exceptions,
    /// resets, debug events, signals).
    Exception,
    /// An `E` line for an IRQ or FIQ.
    Interrupt,
    /// The instructions' mode field changed (`EL1h_s` → `EL3h_s`,
    /// `usr_s` → `svc_s`), or a `CoreEvent_ModeChange` line.
    ModeChange,
    /// A memory access or bus cycle that aborted.
    Aborted,
    /// A line the parser did not understand.
    Unparsed,
}

impl EventKind {
    pub(crate) const ALL: [EventKind; 5] = [
        EventKind::Exception,
        EventKind::Interrupt,
        EventKind::ModeChange,
        EventKind::Aborted,
        EventKind::Unparsed,
    ];

    pub(crate) fn code(self) -> u8 {
        match self {
            EventKind::Exception => 0,
            EventKind::Interrupt => 1,
            EventKind::ModeChange => 2,
            EventKind::Aborted => 3,
            EventKind::Unparsed => 4,
        }
    }

    pub(crate) fn from_code(c: u64) -> Option<EventKind> {
        EventKind::ALL.get(usize::try_from(c).ok()?).copied()
    }

    /// Bit of this kind in a kinds mask.
    pub fn bit(self) -> u8 {
        1 << self.code()
    }

    /// The event a line is, by its record; mode changes of instructions are
    /// found by the index builder, which remembers the previous mode.
    pub(crate) fn of(kind: &RecordKind<'_>) -> Option<EventKind> {
        match kind {
            RecordKind::Exception(e) => {
                let name = e.name.to_ascii_lowercase();
                let has = |w: &[u8]| name.windows(w.len()).any(|x| x == w);
                Some(if has(b"irq") || has(b"fiq") || has(b"interrupt") {
                    EventKind::Interrupt
                } else if has(b"modechange") {
                    EventKind::ModeChange
                } else {
                    EventKind::Exception
                })
            }
            RecordKind::Text(t) if t.type_word.eq_ignore_ascii_case(b"ABORTED") => {
                Some(EventKind::Aborted)
            }
            RecordKind::Text(t) if t.type_word == b"E" => Some(EventKind::Exception),
            RecordKind::Bus(b) if b.abort => Some(EventKind::Aborted),
            RecordKind::Unparsed(_) => Some(EventKind::Unparsed),
            _ => None,
        }
    }
}

/// One event: its line (1-based), the node holding it and the line's byte
/// offset (to read its text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) line: u64,
    pub(crate) node: u64,
    pub(crate) offset: u64,
    pub(crate) kind: EventKind,
}

/// Where a block of events starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BlockHead {
    pub(crate) line: u64,
    pub(crate) node: u64,
    pub(crate) offset: u64,
    /// Start of the block in the encoded stream.
    pub(crate) at: u64,
    /// Kinds present in the block.
    pub(crate) kinds: u8,
}

/// The events of a trace, in line order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventList {
    enc: Vec<u8>,
    dir: Vec<BlockHead>,
    len: u64,
    last: Option<Event>,
}

impl EventList {
    /// Adds the next event (lines, nodes and offsets never go back).
    pub(crate) fn push(&mut self, e: Event) {
        let prev = match self.last {
            Some(p) if !self.len.is_multiple_of(BLOCK) => p,
            _ => {
                self.dir.push(BlockHead {
                    line: e.line,
                    node: e.node,
                    offset: e.offset,
                    at: self.enc.len() as u64,
                    kinds: 0,
                });
                Event { kind: e.kind, ..e }
            }
        };
        varint::put(&mut self.enc, e.line.saturating_sub(prev.line));
        varint::put(
            &mut self.enc,
            (e.node.saturating_sub(prev.node) << 3) | u64::from(e.kind.code()),
        );
        varint::put(&mut self.enc, e.offset.saturating_sub(prev.offset));
        if let Some(h) = self.dir.last_mut() {
            h.kinds |= e.kind.bit();
        }
        self.len += 1;
        self.last = Some(e);
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Gives back the spare capacity once no more events come.
    pub(crate) fn shrink(&mut self) {
        self.enc.shrink_to_fit();
        self.dir.shrink_to_fit();
    }

    pub(crate) fn resident_bytes(&self) -> usize {
        self.enc.capacity() + self.dir.capacity() * std::mem::size_of::<BlockHead>()
    }

    /// The events of block `b`, decoded (fewer if the data is corrupt).
    fn block(&self, b: usize) -> Vec<Event> {
        let Some(h) = self.dir.get(b) else {
            return Vec::new();
        };
        let n = (self.len - b as u64 * BLOCK).min(BLOCK) as usize;
        let mut out = Vec::with_capacity(n);
        let mut pos = h.at as usize;
        let (mut line, mut node, mut offset) = (h.line, h.node, h.offset);
        for _ in 0..n {
            let (Some(dl), Some(dn), Some(doff)) = (
                varint::get(&self.enc, &mut pos),
                varint::get(&self.enc, &mut pos),
                varint::get(&self.enc, &mut pos),
            ) else {
                break;
            };
            let Some(kind) = EventKind::from_code(dn & 7) else {
                break;
            };
            line = line.saturating_add(dl);
            node = node.saturating_add(dn >> 3);
            offset = offset.saturating_add(doff);
            out.push(Event {
                line,
                node,
                offset,
                kind,
            });
        }
        out
    }

    /// Events `first..first+count`.
    pub(crate) fn page(&self, first: u64, count: u64) -> Vec<Event> {
        let mut out = Vec::new();
        let mut b = (first / BLOCK) as usize;
        let mut skip = (first % BLOCK) as usize;
        while (out.len() as u64) < count && b < self.dir.len() {
            let block = self.block(b);
            out.extend(
                block
                    .into_iter()
                    .skip(skip)
                    .take((count - out.len() as u64) as usize),
            );
            skip = 0;
            b += 1;
        }
        out
    }

    /// How many events lie in nodes before `node`.
    pub(crate) fn rank(&self, node: u64) -> u64 {
        let b = self.dir.partition_point(|h| h.node < node);
        if b == 0 {
            return 0;
        }
        let before = self.block(b - 1).iter().filter(|e| e.node < node).count();
        (b as u64 - 1) * BLOCK + before as u64
    }

    /// The first event in a node after `node`.
    pub(crate) fn next_after(&self, node: u64) -> Option<Event> {
        let b = self
            .dir
            .partition_point(|h| h.node <= node)
            .saturating_sub(1);
        (b..self.dir.len())
            .take(2)
            .flat_map(|b| self.block(b))
            .find(|e| e.node > node)
    }

    /// The last event in a node before `node`.
    pub(crate) fn prev_before(&self, node: u64) -> Option<Event> {
        let b = self.dir.partition_point(|h| h.node < node);
        self.block(b.checked_sub(1)?)
            .into_iter()
            .rev()
            .find(|e| e.node < node)
    }

    /// Kinds present per bucket, bucket `i` covering nodes
    /// `[bounds[i], bounds[i+1])`: whole blocks inside one bucket count by
    /// their head, so this decodes only blocks that straddle buckets.
    pub(crate) fn kinds_per_bucket(&self, bounds: &[u64]) -> Vec<u8> {
        let n = bounds.len().saturating_sub(1);
        let mut out = vec![0u8; n];
        let bucket = |node: u64| bounds.partition_point(|&b| b <= node).checked_sub(1);
        for (b, h) in self.dir.iter().enumerate() {
            let last_node = self
                .dir
                .get(b + 1)
                .map_or(self.last.map_or(h.node, |l| l.node), |n| n.node);
            match (bucket(h.node), bucket(last_node)) {
                (Some(i), Some(j)) if i == j => {
                    if i < n {
                        out[i] |= h.kinds;
                    }
                }
                _ => {
                    for e in self.block(b) {
                        if let Some(i) = bucket(e.node).filter(|&i| i < n) {
                            out[i] |= e.kind.bit();
                        }
                    }
                }
            }
        }
        out
    }

    /// Adds `other`'s events with their nodes and lines moved on (a range
    /// indexed in parallel joining the sequential index).
    pub(crate) fn append_shifted(&mut self, other: &EventList, node_off: u64, line_off: u64) {
        for b in 0..other.dir.len() {
            for e in other.block(b) {
                self.push(Event {
                    line: e.line + line_off,
                    node: e.node + node_off,
                    ..e
                });
            }
        }
    }

    /// The kinds of event it holds, as a mask of [`EventKind::bit`]s.
    pub(crate) fn kinds(&self) -> u8 {
        self.dir.iter().fold(0, |k, h| k | h.kinds)
    }

    pub(crate) fn parts(&self) -> (&[u8], &[BlockHead], u64) {
        (&self.enc, &self.dir, self.len)
    }

    /// Rebuilds a list from its parts, checking they agree (a corrupt index
    /// file is an error, never a panic later).
    pub(crate) fn from_parts(
        enc: Vec<u8>,
        dir: Vec<BlockHead>,
        len: u64,
    ) -> Result<EventList, &'static str> {
        let blocks = len.div_ceil(BLOCK);
        if blocks != dir.len() as u64 {
            return Err("event count and directory disagree");
        }
        if dir
            .windows(2)
            .any(|w| w[0].at > w[1].at || w[0].node > w[1].node)
            || dir.iter().any(|h| h.at > enc.len() as u64)
        {
            return Err("event directory out of order");
        }
        let mut list = EventList {
            enc,
            dir,
            len,
            last: None,
        };
        if let Some(b) = list.dir.len().checked_sub(1) {
            let block = list.block(b);
            if block.len() as u64 != len - b as u64 * BLOCK {
                return Err("event data truncated");
            }
            list.last = block.last().copied();
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(line: u64, node: u64, kind: EventKind) -> Event {
        Event {
            line,
            node,
            offset: line * 40,
            kind,
        }
    }

    fn sample(n: u64) -> (EventList, Vec<Event>) {
        let mut list = EventList::default();
        let mut all = Vec::new();
        for i in 0..n {
            // Two events share a node now and then.
            let e = ev(i * 3 + 1, i - i % 3 / 2, EventKind::ALL[(i % 5) as usize]);
            list.push(e);
            all.push(e);
        }
        (list, all)
    }

    #[test]
    fn pages_and_searches_agree_with_a_plain_list() {
        let (list, all) = sample(300);
        assert_eq!(list.len(), 300);
        assert_eq!(list.page(0, 1000), all);
        assert_eq!(list.page(63, 3), all[63..66].to_vec());
        assert_eq!(list.page(299, 10), all[299..].to_vec());
        assert!(list.page(300, 10).is_empty());
        for node in 0..620 {
            assert_eq!(
                list.rank(node),
                all.iter().filter(|e| e.node < node).count() as u64,
                "rank {node}"
            );
            assert_eq!(
                list.next_after(node),
                all.iter().find(|e| e.node > node).copied(),
                "next after {node}"
            );
            assert_eq!(
                list.prev_before(node),
                all.iter().rev().find(|e| e.node < node).copied(),
                "prev before {node}"
            );
        }
    }

    #[test]
    fn buckets_flag_the_kinds_they_hold() {
        let (list, all) = sample(500);
        for bounds in [
            vec![0, 1000],
            vec![0, 7, 300, 301, 1000],
            (0..1000).step_by(13).collect(),
        ] {
            let got = list.kinds_per_bucket(&bounds);
            for (i, w) in bounds.windows(2).enumerate() {
                let want = all
                    .iter()
                    .filter(|e| e.node >= w[0] && e.node < w[1])
                    .fold(0u8, |m, e| m | e.kind.bit());
                assert_eq!(got[i], want, "bucket {i} {w:?}");
            }
        }
    }

    #[test]
    fn appending_shifted_equals_pushing_shifted() {
        let (a, all_a) = sample(70);
        let (b, all_b) = sample(100);
        let mut joined = a.clone();
        joined.append_shifted(&b, 10_000, 20_000);
        let mut want = EventList::default();
        for e in all_a.iter().copied().chain(all_b.iter().map(|e| Event {
            line: e.line + 20_000,
            node: e.node + 10_000,
            ..*e
        })) {
            want.push(e);
        }
        assert_eq!(joined, want);
    }

    #[test]
    fn parts_round_trip_and_corrupt_parts_are_refused() {
        let (list, _) = sample(130);
        let (enc, dir, len) = list.parts();
        let back = EventList::from_parts(enc.to_vec(), dir.to_vec(), len).unwrap();
        assert_eq!(back, list);
        assert!(EventList::from_parts(enc.to_vec(), dir.to_vec(), len + 70).is_err());
        assert!(EventList::from_parts(enc[..enc.len() - 2].to_vec(), dir.to_vec(), len).is_err());
        let mut bad = dir.to_vec();
        bad[1].at = enc.len() as u64 + 5;
        assert!(EventList::from_parts(enc.to_vec(), bad, len).is_err());
    }
}
