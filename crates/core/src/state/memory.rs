//! Current contents of memory as the trace has shown it so far.
//!
//! Each byte is never-seen, known, or unknown-since-some-node (a write whose
//! data the trace did not show, or a semihosting call that may have written
//! it). Never-seen and unknown bytes are *fillable*: a later read reveals
//! what they held ever since they became unknown, which is how the
//! reference tools back-date read data.

use std::collections::BTreeMap;

use super::fasthash::AddrMap;
use crate::codec::{Dec, Enc};

const PAGE_BITS: u32 = 12;
const PAGE: usize = 1 << PAGE_BITS;

const NEVER: u8 = 0;
const KNOWN: u8 = 1;
const UNKNOWN: u8 = 2;
/// Known from a read of a byte the memory had not seen since a parallel
/// indexing split: known here, but the value before the split (if it was
/// known) would have won.
const READ_AT_SPLIT: u8 = 3;

struct Page {
    bytes: [u8; PAGE],
    state: [u8; PAGE],
}

/// What a read revealed about bytes that were not known: `since` is the node
/// from which the value held (`None`: since before the trace started).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fill {
    /// The node from which it held the value; `None`: since before the trace
    /// started.
    pub since: Option<u64>,
    /// The byte's address.
    pub addr: u64,
    /// The value it held.
    pub value: u8,
}

/// Memory as the trace has shown it so far (see the module's doc).
#[derive(Default)]
pub struct Memory {
    /// Page number -> index in `store`.
    pages: AddrMap<u64, u32>,
    store: Vec<Box<Page>>,
    /// Most recently used page: accesses cluster (stack, one buffer).
    last: Option<(u64, u32)>,
    /// Unknown ranges `lo -> (hi inclusive, since node)`, non-overlapping.
    unknown_since: BTreeMap<u64, (u64, u64)>,
    /// Started at a split point: never-seen means "as before the split".
    split: bool,
}

/// What memory holds for one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ByteKind {
    Never,
    Known,
    /// Unknown since this node (or, without one, since an unrecorded range).
    Unknown(Option<u64>),
}

impl Memory {
    fn page_index(&self, addr: u64) -> Option<u32> {
        let key = addr >> PAGE_BITS;
        match self.last {
            Some((k, i)) if k == key => Some(i),
            _ => self.pages.get(&key).copied(),
        }
    }

    fn page_mut(&mut self, addr: u64) -> &mut Page {
        let key = addr >> PAGE_BITS;
        let i = match self.last {
            Some((k, i)) if k == key => i,
            _ => {
                let next = self.store.len() as u32;
                let i = *self.pages.entry(key).or_insert(next);
                if i == next {
                    self.store.push(Box::new(Page {
                        bytes: [0; PAGE],
                        state: [NEVER; PAGE],
                    }));
                }
                self.last = Some((key, i));
                i
            }
        };
        &mut self.store[i as usize]
    }

    fn state_of(&self, addr: u64) -> u8 {
        self.page_index(addr).map_or(NEVER, |i| {
            self.store[i as usize].state[(addr as usize) & (PAGE - 1)]
        })
    }

    /// Known value of one byte.
    pub fn get(&self, addr: u64) -> Option<u8> {
        let p = &self.store[self.page_index(addr)? as usize];
        let i = (addr as usize) & (PAGE - 1);
        matches!(p.state[i], KNOWN | READ_AT_SPLIT).then_some(p.bytes[i])
    }

    /// Empty memory that stands for the memory at a split point.
    pub(crate) fn at_split() -> Memory {
        Memory {
            split: true,
            ..Memory::default()
        }
    }

    pub(crate) fn kind(&self, addr: u64) -> ByteKind {
        match self.state_of(addr) {
            NEVER => ByteKind::Never,
            UNKNOWN => ByteKind::Unknown(self.since_of(addr)),
            _ => ByteKind::Known,
        }
    }

    /// Whether `[addr, addr+len)` reads the same here as it would with the
    /// memory before the split underneath (no byte depends on it).
    pub(crate) fn determined(&self, addr: u64, len: u64) -> bool {
        (0..len).all(|i| matches!(self.state_of(addr.wrapping_add(i)), KNOWN | UNKNOWN))
    }

    /// Lays memory that ran from a split point (`top`, node indices short by
    /// `node_off`) over this memory as it stood at the split.
    pub(crate) fn overlay(&mut self, top: &Memory, node_off: u64) {
        for (&lo, &(hi, since)) in &top.unknown_since {
            self.write_unknown(lo, hi - lo + 1, since + node_off);
        }
        let mut pages: Vec<(u64, u32)> = top.pages.iter().map(|(&k, &i)| (k, i)).collect();
        pages.sort_unstable();
        for (key, i) in pages {
            let p = &top.store[i as usize];
            for j in 0..PAGE {
                let addr = (key << PAGE_BITS) | j as u64;
                match p.state[j] {
                    KNOWN => self.write_known(addr, p.bytes[j]),
                    READ_AT_SPLIT if self.state_of(addr) != KNOWN => {
                        self.write_known(addr, p.bytes[j])
                    }
                    _ => {}
                }
            }
        }
    }

    /// Little-endian or big-endian value of `size` bytes (at most 8), if all known.
    pub(crate) fn value(&self, addr: u64, size: usize, big_endian: bool) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..size.min(8) {
            let a = if big_endian { i } else { size - 1 - i };
            v = (v << 8) | u64::from(self.get(addr.wrapping_add(a as u64))?);
        }
        Some(v)
    }

    pub(crate) fn write_known(&mut self, addr: u64, value: u8) {
        let p = self.page_mut(addr);
        let i = (addr as usize) & (PAGE - 1);
        p.bytes[i] = value;
        p.state[i] = KNOWN;
    }

    /// Marks `[addr, addr+len)` unknown from node `since` on.
    pub(crate) fn write_unknown(&mut self, addr: u64, len: u64, since: u64) {
        if len == 0 {
            return;
        }
        let hi = addr.saturating_add(len - 1);
        self.cut_unknown(addr, hi);
        self.unknown_since.insert(addr, (hi, since));
        let mut a = addr;
        loop {
            let p = self.page_mut(a);
            let i = (a as usize) & (PAGE - 1);
            p.state[i] = UNKNOWN;
            if a == hi {
                break;
            }
            a += 1;
        }
    }

    /// Removes `[lo, hi]` from the unknown-range map, splitting ranges that
    /// straddle it.
    fn cut_unknown(&mut self, lo: u64, hi: u64) {
        let overlapping: Vec<(u64, (u64, u64))> = self
            .unknown_since
            .range(..=hi)
            .rev()
            .take_while(|(_, (h, _))| *h >= lo)
            .map(|(&l, &v)| (l, v))
            .collect();
        for (l, (h, since)) in overlapping {
            self.unknown_since.remove(&l);
            if l < lo {
                self.unknown_since.insert(l, (lo - 1, since));
            }
            if h > hi {
                self.unknown_since.insert(hi + 1, (h, since));
            }
        }
    }

    fn since_of(&self, addr: u64) -> Option<u64> {
        self.unknown_since
            .range(..=addr)
            .next_back()
            .filter(|(_, (h, _))| *h >= addr)
            .map(|(_, (_, s))| *s)
    }

    /// A read saw `value` at `addr`. If the byte was not known, it becomes
    /// known and the fill is returned so the index can back-date it. A read
    /// of a byte already known changes nothing (as in the reference tools).
    pub(crate) fn read_known(&mut self, addr: u64, value: u8) -> Option<Fill> {
        match self.state_of(addr) {
            KNOWN | READ_AT_SPLIT => None,
            NEVER => {
                self.write_known(addr, value);
                if self.split {
                    let p = self.page_mut(addr);
                    p.state[(addr as usize) & (PAGE - 1)] = READ_AT_SPLIT;
                }
                Some(Fill {
                    since: None,
                    addr,
                    value,
                })
            }
            _ => {
                let since = self.since_of(addr);
                self.write_known(addr, value);
                Some(Fill { since, addr, value })
            }
        }
    }

    /// A known write also ends any unknown range it covers.
    pub(crate) fn note_written_range(&mut self, addr: u64, len: u64) {
        if len > 0 && !self.unknown_since.is_empty() {
            self.cut_unknown(addr, addr.saturating_add(len - 1));
        }
    }

    pub(crate) fn encode(&self, e: &mut Enc) {
        e.b(self.split);
        let mut pages: Vec<(u64, u32)> = self.pages.iter().map(|(&k, &i)| (k, i)).collect();
        pages.sort_unstable();
        e.u(pages.len() as u64);
        for (key, i) in pages {
            let p = &self.store[i as usize];
            e.u(key);
            e.raw(&p.bytes);
            e.raw(&p.state);
        }
        e.u(self.unknown_since.len() as u64);
        for (&lo, &(hi, since)) in &self.unknown_since {
            e.u(lo);
            e.u(hi);
            e.u(since);
        }
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Memory> {
        let mut m = Memory {
            split: d.b()?,
            ..Memory::default()
        };
        for _ in 0..d.count()? {
            let key = d.u()?;
            let mut page = Box::new(Page {
                bytes: [0; PAGE],
                state: [NEVER; PAGE],
            });
            page.bytes.copy_from_slice(d.raw(PAGE)?);
            page.state.copy_from_slice(d.raw(PAGE)?);
            m.pages.insert(key, m.store.len() as u32);
            m.store.push(page);
        }
        for _ in 0..d.count()? {
            let (lo, hi, since) = (d.u()?, d.u()?, d.u()?);
            if hi < lo {
                return None;
            }
            m.unknown_since.insert(lo, (hi, since));
        }
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fill_only_unknown_bytes() {
        let mut m = Memory::default();
        assert_eq!(
            m.read_known(0x100, 7),
            Some(Fill {
                since: None,
                addr: 0x100,
                value: 7
            })
        );
        assert_eq!(m.read_known(0x100, 9), None);
        assert_eq!(m.get(0x100), Some(7));
        m.write_unknown(0x100, 4, 42);
        assert_eq!(m.get(0x100), None);
        assert_eq!(
            m.read_known(0x102, 5),
            Some(Fill {
                since: Some(42),
                addr: 0x102,
                value: 5
            })
        );
        m.write_known(0x101, 1);
        m.note_written_range(0x101, 1);
        assert_eq!(m.read_known(0x103, 6).and_then(|f| f.since), Some(42));
        assert_eq!(m.value(0x100, 2, false), None);
    }

    #[test]
    fn values_by_endianness() {
        let mut m = Memory::default();
        for (i, b) in [0x11u8, 0x22, 0x33, 0x44].iter().enumerate() {
            m.write_known(0x2000 + i as u64, *b);
        }
        assert_eq!(m.value(0x2000, 4, false), Some(0x44332211));
        assert_eq!(m.value(0x2000, 4, true), Some(0x11223344));
    }
}
