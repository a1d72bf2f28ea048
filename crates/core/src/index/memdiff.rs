//! Memory history, compactly: for each checkpoint interval, the final state
//! of every 16-byte block the interval wrote (values, or "unknown since node
//! N"); for each segment of intervals, which intervals touched each block;
//! and the values reads revealed for bytes that were not known ("fills"),
//! back-dated to when those bytes became unknown.
//!
//! Invariants: an interval's entries are sorted by block and describe only
//! bytes written in that interval; a block's bit in a segment table is set
//! exactly when the interval's diff has an entry for it; a fill exists for a
//! byte and `since` only if no earlier fill for that pair did.

use std::collections::{BTreeMap, HashMap};

use crate::state::fasthash::AddrMap;

use crate::codec::varint;

pub(crate) const BLOCK_BITS: u32 = 4;
pub(crate) const BLOCK: u64 = 1 << BLOCK_BITS;
/// Intervals per segment: one u64 bitmap per block.
pub(crate) const SEGMENT: usize = 64;

/// The entries of a segment table (sorted by block) for blocks `first..=last`.
fn table_range(table: &[(u64, u64)], first: u64, last: u64) -> &[(u64, u64)] {
    let lo = table.partition_point(|(b, _)| *b < first);
    let hi = table.partition_point(|(b, _)| *b <= last);
    &table[lo..hi.max(lo)]
}

#[derive(Clone, Copy, Default)]
struct BlockDiff {
    written: u16,
    unknown: u16,
    since: u64,
    data: [u8; 16],
}

/// What is known of one byte at some point: its value, unknown since a node,
/// or (`None`) never written.
pub(crate) type ByteState = Option<Result<u8, u64>>;

/// Fills keyed by (since + 1, or 0 for the trace start; block): mask and data.
pub(crate) type Fills = BTreeMap<(u64, u64), (u16, [u8; 16])>;

/// Borrowed parts of a [`MemHistory`], for serialization.
pub(crate) struct Parts<'a> {
    pub(crate) arena: &'a [u8],
    pub(crate) interval_start: &'a [u64],
    pub(crate) segments: &'a [Vec<(u64, u64)>],
    pub(crate) fills: &'a Fills,
}

/// One decoded diff entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) block: u64,
    pub(crate) written: u16,
    pub(crate) unknown: u16,
    pub(crate) since: u64,
    pub(crate) data: [u8; 16],
}

#[derive(Default)]
pub(crate) struct MemHistory {
    /// Encoded entries of all closed intervals.
    arena: Vec<u8>,
    /// Per closed interval: start of its entries in `arena`.
    interval_start: Vec<u64>,
    /// Per complete segment: (block, bitmap of intervals) sorted by block.
    segments: Vec<Vec<(u64, u64)>>,
    /// Blocks written in the open interval.
    open: AddrMap<u64, BlockDiff>,
    /// Fills keyed by (since + 1, or 0 for the trace start; block).
    fills: Fills,
}

fn bit(a: u64) -> u16 {
    1 << (a & (BLOCK - 1))
}

impl MemHistory {
    /// Bytes written at `addr..`: one block lookup per 16-byte block.
    pub(crate) fn write_run(&mut self, addr: u64, bytes: &[u8]) {
        let mut a = addr;
        let mut rest = bytes;
        while !rest.is_empty() {
            let d = self.open.entry(a >> BLOCK_BITS).or_default();
            let start = (a & (BLOCK - 1)) as usize;
            let n = rest.len().min(16 - start);
            for (j, &v) in rest[..n].iter().enumerate() {
                let b = 1u16 << (start + j);
                d.written |= b;
                d.unknown &= !b;
                d.data[start + j] = v;
            }
            rest = &rest[n..];
            a = a.wrapping_add(n as u64);
        }
    }

    pub(crate) fn unknown(&mut self, addr: u64, len: u64, since: u64) {
        let mut a = addr;
        let end = addr.saturating_add(len);
        while a < end {
            let d = self.open.entry(a >> BLOCK_BITS).or_default();
            let b = bit(a);
            d.unknown |= b;
            d.written &= !b;
            d.since = since;
            a += 1;
        }
    }

    pub(crate) fn fill(&mut self, since: Option<u64>, addr: u64, value: u8) {
        let key = (since.map_or(0, |s| s + 1), addr >> BLOCK_BITS);
        let e = self.fills.entry(key).or_insert((0, [0; 16]));
        let b = bit(addr);
        if e.0 & b == 0 {
            e.0 |= b;
            e.1[(addr & (BLOCK - 1)) as usize] = value;
        }
    }

    /// Closes the open interval.
    pub(crate) fn close_interval(&mut self) {
        let mut blocks: Vec<(u64, BlockDiff)> = self.open.drain().collect();
        blocks.sort_unstable_by_key(|(b, _)| *b);
        self.push_interval(&blocks);
    }

    /// Appends a closed interval of sorted blocks.
    fn push_interval(&mut self, blocks: &[(u64, BlockDiff)]) {
        let k = self.interval_start.len();
        self.interval_start.push(self.arena.len() as u64);
        let mut prev = 0u64;
        varint::put(&mut self.arena, blocks.len() as u64);
        for (block, d) in blocks {
            varint::put(&mut self.arena, block - prev);
            prev = *block;
            self.arena.extend_from_slice(&d.written.to_le_bytes());
            self.arena.extend_from_slice(&d.unknown.to_le_bytes());
            if d.unknown != 0 {
                varint::put(&mut self.arena, d.since);
            }
            for i in 0..16 {
                if d.written & (1 << i) != 0 {
                    self.arena.push(d.data[i]);
                }
            }
        }
        // Segment tables are built when a segment completes.
        if (k + 1).is_multiple_of(SEGMENT) {
            let first = k + 1 - SEGMENT;
            let mut map: HashMap<u64, u64> = HashMap::new();
            for j in first..=k {
                for e in self.entries(j) {
                    *map.entry(e.block).or_default() |= 1 << (j - first);
                }
            }
            let mut table: Vec<(u64, u64)> = map.into_iter().collect();
            table.sort_unstable();
            self.segments.push(table);
        }
    }

    /// Appends the history of a range indexed from a split point (node
    /// indices short by `node_off`), its open interval included, after this
    /// history's last closed interval. Fills merge keeping the first per
    /// byte, as they would have arrived.
    pub(crate) fn append_shifted(&mut self, other: &mut MemHistory, node_off: u64) {
        // Room for about all of it at once (a shifted `since` may take a
        // byte more): grown by doubling, a 32 GB trace's arena went 64 →
        // 128 MiB, the moved copy beside it, where the finish's sort could
        // not fit.
        self.arena
            .reserve_exact(other.arena.len() + other.arena.len() / 32);
        self.interval_start.reserve_exact(other.intervals());
        let mut blocks = Vec::new();
        for k in 0..other.intervals() {
            blocks.clear();
            blocks.extend(other.entries(k).into_iter().map(|e| {
                (
                    e.block,
                    BlockDiff {
                        written: e.written,
                        unknown: e.unknown,
                        since: if e.unknown != 0 {
                            e.since + node_off
                        } else {
                            0
                        },
                        data: e.data,
                    },
                )
            }));
            self.push_interval(&blocks);
        }
        for (b, mut d) in other.open.drain() {
            if d.unknown != 0 {
                d.since += node_off;
            }
            self.open.insert(b, d);
        }
        for (&(key, block), &(mask, data)) in &other.fills {
            let key = if key == 0 { 0 } else { key + node_off };
            let e = self.fills.entry((key, block)).or_insert((0, [0; 16]));
            let new = mask & !e.0;
            for (i, (slot, &v)) in e.1.iter_mut().zip(&data).enumerate() {
                if new & (1 << i) != 0 {
                    *slot = v;
                }
            }
            e.0 |= new;
        }
    }

    pub(crate) fn intervals(&self) -> usize {
        self.interval_start.len()
    }

    /// Decoded entries of closed interval `k`.
    pub(crate) fn entries(&self, k: usize) -> Vec<Entry> {
        let mut out = Vec::new();
        let Some(&start) = self.interval_start.get(k) else {
            return out;
        };
        let mut pos = start as usize;
        let buf = &self.arena;
        let Some(n) = varint::get(buf, &mut pos) else {
            return out;
        };
        let mut block = 0u64;
        for _ in 0..n {
            let (Some(delta), Some(w), Some(u)) = (
                varint::get(buf, &mut pos),
                buf.get(pos..pos + 2),
                buf.get(pos + 2..pos + 4),
            ) else {
                break;
            };
            block += delta;
            let written = u16::from_le_bytes([w[0], w[1]]);
            let unknown = u16::from_le_bytes([u[0], u[1]]);
            pos += 4;
            let since = if unknown != 0 {
                varint::get(buf, &mut pos).unwrap_or(0)
            } else {
                0
            };
            let mut data = [0u8; 16];
            for (i, slot) in data.iter_mut().enumerate() {
                if written & (1 << i) != 0 {
                    *slot = buf.get(pos).copied().unwrap_or(0);
                    pos += 1;
                }
            }
            out.push(Entry {
                block,
                written,
                unknown,
                since,
                data,
            });
        }
        out
    }

    /// Whether closed interval `k` wrote anything in blocks `first..=last`.
    /// Costs what the interval or its segment holds, not the range's width
    /// (a query may name all of memory).
    pub(crate) fn interval_touches(&self, k: usize, first: u64, last: u64) -> bool {
        let seg = k / SEGMENT;
        match self.segments.get(seg) {
            Some(table) => table_range(table, first, last)
                .iter()
                .any(|(_, bits)| bits & (1 << (k % SEGMENT)) != 0),
            None => self
                .entries(k)
                .iter()
                .any(|e| (first..=last).contains(&e.block)),
        }
    }

    /// Interval `k`'s entry for `block`: its entries decoded in block order
    /// up to it, none kept.
    fn entry(&self, k: usize, block: u64) -> Option<Entry> {
        let &start = self.interval_start.get(k)?;
        let mut pos = start as usize;
        let buf = &self.arena;
        let n = varint::get(buf, &mut pos)?;
        let mut b = 0u64;
        for _ in 0..n {
            b += varint::get(buf, &mut pos)?;
            let w = u16::from_le_bytes([*buf.get(pos)?, *buf.get(pos + 1)?]);
            let unknown = u16::from_le_bytes([*buf.get(pos + 2)?, *buf.get(pos + 3)?]);
            pos += 4;
            let since = if unknown != 0 {
                varint::get(buf, &mut pos)?
            } else {
                0
            };
            if b > block {
                return None;
            }
            if b < block {
                pos += w.count_ones() as usize;
                continue;
            }
            let mut data = [0u8; 16];
            for (i, slot) in data.iter_mut().enumerate() {
                if w & (1 << i) != 0 {
                    *slot = buf.get(pos).copied().unwrap_or(0);
                    pos += 1;
                }
            }
            return Some(Entry {
                block,
                written: w,
                unknown,
                since,
                data,
            });
        }
        None
    }

    /// Closed intervals before `before` that touched any of blocks
    /// `first..=last`, newest first (in time bounded by the history, not by
    /// the range).
    #[cfg(test)]
    pub(crate) fn intervals_touching(&self, first: u64, last: u64, before: usize) -> Vec<usize> {
        let mut out = Vec::new();
        self.each_interval_touching(first, last, before, &mut |k| {
            out.push(k);
            true
        });
        out
    }

    /// [`MemHistory::intervals_touching`] one at a time to `f`, until it
    /// returns false: a block's state is most often settled by the newest
    /// few, and a stack block is touched all through a trace.
    fn each_interval_touching(
        &self,
        first: u64,
        last: u64,
        before: usize,
        f: &mut dyn FnMut(usize) -> bool,
    ) {
        let before = before.min(self.intervals());
        // The incomplete tail segment has no table: scan its diffs.
        let complete = self.segments.len() * SEGMENT;
        let mut k = before;
        while k > complete {
            k -= 1;
            if self.interval_touches(k, first, last) && !f(k) {
                return;
            }
        }
        // Segments wholly or partly before k, masking intervals from k on.
        let mut seg = k.div_ceil(SEGMENT);
        while seg > 0 {
            seg -= 1;
            let mut bits = table_range(&self.segments[seg], first, last)
                .iter()
                .fold(0, |acc, (_, b)| acc | b);
            let limit = k.saturating_sub(seg * SEGMENT);
            if limit < 64 {
                bits &= (1u64 << limit) - 1;
            }
            while bits != 0 {
                let j = 63 - bits.leading_zeros() as usize;
                if !f(seg * SEGMENT + j) {
                    return;
                }
                bits &= !(1u64 << j);
            }
        }
    }

    /// State of block `block` at the start of interval `before`: per byte,
    /// `Some(Ok(v))` known, `Some(Err(since))` unknown since that node (or
    /// `None` never written).
    pub(crate) fn block_state(&self, block: u64, before: usize) -> [ByteState; 16] {
        let mut out = [None; 16];
        let mut resolved = 0u16;
        self.each_interval_touching(block, block, before, &mut |k| {
            if let Some(e) = self.entry(k, block) {
                for (i, slot) in out.iter_mut().enumerate() {
                    let b = 1u16 << i;
                    if resolved & b != 0 {
                        continue;
                    }
                    if e.written & b != 0 {
                        *slot = Some(Ok(e.data[i]));
                        resolved |= b;
                    } else if e.unknown & b != 0 {
                        *slot = Some(Err(e.since));
                        resolved |= b;
                    }
                }
            }
            resolved != u16::MAX
        });
        out
    }

    /// Value a read revealed for a byte unknown since `since` (`None`: the
    /// trace start).
    pub(crate) fn fill_value(&self, since: Option<u64>, addr: u64) -> Option<u8> {
        let key = (since.map_or(0, |s| s + 1), addr >> BLOCK_BITS);
        let (mask, data) = self.fills.get(&key)?;
        let i = (addr & (BLOCK - 1)) as usize;
        (mask & (1 << i) != 0).then_some(data[i])
    }

    /// Gives back unused room (the index is complete).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.arena.shrink_to_fit();
        self.interval_start.shrink_to_fit();
        self.segments.shrink_to_fit();
        for s in &mut self.segments {
            s.shrink_to_fit();
        }
    }

    pub(crate) fn resident_bytes(&self) -> usize {
        self.arena.capacity()
            + self.interval_start.capacity() * 8
            + self.segments.iter().map(|s| s.capacity() * 16 + 24).sum::<usize>()
            + self.open.capacity() * 48
            // BTreeMap nodes: key + value + per-entry share of node overhead.
            + self.fills.len() * (16 + 18 + 16)
    }

    /// The open interval's blocks, sorted (the rest is in [`Parts`]).
    pub(super) fn encode_open(&self, e: &mut crate::codec::Enc) {
        let mut blocks: Vec<(&u64, &BlockDiff)> = self.open.iter().collect();
        blocks.sort_unstable_by_key(|(b, _)| **b);
        e.u(blocks.len() as u64);
        for (&b, d) in blocks {
            e.u(b);
            e.u(u64::from(d.written));
            e.u(u64::from(d.unknown));
            e.u(d.since);
            e.raw(&d.data);
        }
    }

    pub(super) fn decode_open(&mut self, d: &mut crate::codec::Dec<'_>) -> Option<()> {
        for _ in 0..d.count()? {
            let b = d.u()?;
            let mut diff = BlockDiff {
                written: u16::try_from(d.u()?).ok()?,
                unknown: u16::try_from(d.u()?).ok()?,
                since: d.u()?,
                data: [0; 16],
            };
            diff.data.copy_from_slice(d.raw(16)?);
            self.open.insert(b, diff);
        }
        Some(())
    }

    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            arena: &self.arena,
            interval_start: &self.interval_start,
            segments: &self.segments,
            fills: &self.fills,
        }
    }

    pub(super) fn from_parts(
        arena: Vec<u8>,
        interval_start: Vec<u64>,
        segments: Vec<Vec<(u64, u64)>>,
        fills: Fills,
    ) -> MemHistory {
        MemHistory {
            arena,
            interval_start,
            segments,
            open: AddrMap::default(),
            fills,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_state_walks_back_through_intervals() {
        let mut h = MemHistory::default();
        h.write_run(0x100, &[1]);
        h.write_run(0x101, &[2]);
        h.close_interval(); // 0
        h.write_run(0x101, &[3]);
        h.unknown(0x102, 2, 77);
        h.close_interval(); // 1
        for _ in 0..70 {
            h.close_interval();
        }
        h.write_run(0x10f, &[9]);
        h.close_interval(); // 72
        let s = h.block_state(0x10, 73);
        assert_eq!(s[0], Some(Ok(1)));
        assert_eq!(s[1], Some(Ok(3)));
        assert_eq!(s[2], Some(Err(77)));
        assert_eq!(s[3], Some(Err(77)));
        assert_eq!(s[4], None);
        assert_eq!(s[15], Some(Ok(9)));
        let s = h.block_state(0x10, 1);
        assert_eq!(s[1], Some(Ok(2)));
        assert_eq!(s[2], None);
        assert_eq!(h.intervals_touching(0x10, 0x10, 73), vec![72, 1, 0]);
        h.write_run(0x5, &[1, 2]);
        h.write_run(0x300, &[4]);
        h.unknown(0x2ff, 1, 9);
        h.close_interval(); // 73
        for k in [0, 1, 72, 73] {
            let entries = h.entries(k);
            for e in &entries {
                assert_eq!(h.entry(k, e.block), Some(*e), "interval {k}");
            }
            for block in [0x1, 0x11, 0x2e, 0x31] {
                assert!(entries.iter().all(|e| e.block != block));
                assert_eq!(h.entry(k, block), None);
            }
        }
        h.fill(Some(77), 0x102, 0xaa);
        h.fill(Some(77), 0x102, 0xbb);
        assert_eq!(h.fill_value(Some(77), 0x102), Some(0xaa));
        assert_eq!(h.fill_value(None, 0x102), None);
    }
}
