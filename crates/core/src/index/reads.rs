//! Which memory each interval read, so that a watchpoint on reads replays
//! only the intervals that read the watched range. The trace already holds
//! every load; the index keeps, per interval, the 64-byte lines read, as
//! delta-coded runs of consecutive lines: loads cluster (the stack, a
//! buffer walked in order), so an interval costs tens of bytes
//! (docs/performance.md).

use crate::codec::{varint, Dec, Enc};

/// Reads are kept by lines of `1 << LINE_BITS` bytes: finer costs index
/// bytes, coarser only replays an interval that read a neighbour.
const LINE_BITS: u32 = 6;

/// The lines read, per closed interval, and those of the open one.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReadHistory {
    /// Per closed interval, its runs: (gap from the end of the run before,
    /// or from 0; run length - 1), varints.
    arena: Vec<u8>,
    /// Where each closed interval's runs start in `arena`.
    starts: Vec<u64>,
    /// Lines read in the open interval, unsorted, repeats mostly dropped.
    open: Vec<u64>,
}

/// The lines `[addr, addr + len)` covers (`len` 0 counts as 1).
pub(crate) fn lines_of(addr: u64, len: u64) -> (u64, u64) {
    let last = addr.saturating_add(len.max(1) - 1);
    (addr >> LINE_BITS, last >> LINE_BITS)
}

impl ReadHistory {
    /// Notes a read in the open interval.
    pub(crate) fn note(&mut self, addr: u64, len: u64) {
        let (first, last) = lines_of(addr, len);
        for line in first..=last {
            // Consecutive loads mostly hit the line before: cheap to skip.
            if self.open.last() != Some(&line) {
                self.open.push(line);
            }
        }
    }

    /// Ends the open interval.
    pub(crate) fn close_interval(&mut self) {
        self.starts.push(self.arena.len() as u64);
        self.open.sort_unstable();
        self.open.dedup();
        let mut end = 0u64;
        let mut i = 0;
        while i < self.open.len() {
            let start = self.open[i];
            let mut j = i + 1;
            while j < self.open.len() && self.open[j] == self.open[j - 1] + 1 {
                j += 1;
            }
            varint::put(&mut self.arena, start - end);
            varint::put(&mut self.arena, (j - i - 1) as u64);
            end = self.open[j - 1] + 1;
            i = j;
        }
        self.open.clear();
    }

    /// Closed intervals.
    pub(crate) fn intervals(&self) -> usize {
        self.starts.len()
    }

    /// Whether closed interval `k` read any byte of `[addr, addr + len)`
    /// (or of its 64-byte lines: a filter, confirmed by a replay).
    pub(crate) fn interval_reads(&self, k: usize, addr: u64, len: u64) -> bool {
        let (first, last) = lines_of(addr, len);
        let from = self.starts[k] as usize;
        let to = self
            .starts
            .get(k + 1)
            .map_or(self.arena.len(), |&s| s as usize);
        let runs = &self.arena[..to];
        let mut pos = from;
        let mut end = 0u64;
        while pos < to {
            let (Some(gap), Some(extra)) =
                (varint::get(runs, &mut pos), varint::get(runs, &mut pos))
            else {
                return true;
            };
            let start = end + gap;
            if start > last {
                return false;
            }
            end = start + extra + 1;
            if end > first {
                return true;
            }
        }
        false
    }

    /// Appends another history's closed intervals (a later range of the
    /// trace, indexed on its own); its open interval becomes this one's.
    pub(crate) fn append(&mut self, other: &mut ReadHistory) {
        let base = self.arena.len() as u64;
        self.starts.extend(other.starts.iter().map(|s| s + base));
        self.arena.append(&mut other.arena);
        self.open = std::mem::take(&mut other.open);
        other.starts.clear();
    }

    /// Gives back unused room (the index is complete).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.arena.shrink_to_fit();
        self.starts.shrink_to_fit();
    }

    /// Bytes held, by lengths: capacities would differ between a history
    /// built in one pass and one appended from ranges, which must report
    /// the same index.
    pub(crate) fn resident_bytes(&self) -> usize {
        self.arena.len() + 8 * self.starts.len() + 8 * self.open.len()
    }

    /// The open interval, for a range index handed between workers.
    pub(super) fn encode_open(&self, e: &mut Enc) {
        e.u(self.open.len() as u64);
        for &l in &self.open {
            e.u(l);
        }
    }

    /// Reads what [`ReadHistory::encode_open`] wrote.
    pub(super) fn decode_open(&mut self, d: &mut Dec<'_>) -> Option<()> {
        let n = d.count()?;
        self.open = (0..n).map(|_| d.u()).collect::<Option<_>>()?;
        Some(())
    }

    /// The closed intervals' parts, for the index file.
    pub(super) fn parts(&self) -> (&[u8], &[u64]) {
        (&self.arena, &self.starts)
    }

    /// A history from [`ReadHistory::parts`]; `None` when they disagree.
    pub(super) fn from_parts(arena: Vec<u8>, starts: Vec<u64>) -> Option<ReadHistory> {
        let ordered = starts.windows(2).all(|w| w[0] <= w[1]);
        let inside = starts.last().is_none_or(|&s| s <= arena.len() as u64);
        (ordered && inside).then_some(ReadHistory {
            arena,
            starts,
            open: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(intervals: &[&[(u64, u64)]]) -> ReadHistory {
        let mut h = ReadHistory::default();
        for reads in intervals {
            for &(a, l) in *reads {
                h.note(a, l);
            }
            h.close_interval();
        }
        h
    }

    #[test]
    fn an_interval_reads_exactly_the_lines_it_touched() {
        let h = history(&[
            &[(0x1000, 4), (0x1008, 8), (0x2000, 16), (0x203c, 8)],
            &[],
            &[(u64::MAX - 3, 4)],
        ]);
        assert!(h.interval_reads(0, 0x1000, 1));
        assert!(h.interval_reads(0, 0x103f, 1));
        assert!(!h.interval_reads(0, 0x1040, 0x1000 - 0x40));
        assert!(h.interval_reads(0, 0x0f00, 0x101));
        // A read across a line boundary marks both lines.
        assert!(h.interval_reads(0, 0x2040, 1));
        assert!(!h.interval_reads(0, 0x2080, 64));
        assert!(!h.interval_reads(0, 0, 0x1000));
        assert!(!h.interval_reads(1, 0, u64::MAX));
        assert!(h.interval_reads(2, u64::MAX, 1));
        assert!(!h.interval_reads(2, 0, 1 << 40));
    }

    #[test]
    fn appending_and_the_file_parts_keep_every_interval() {
        let mut a = history(&[&[(0x10, 4)]]);
        let mut b = history(&[&[(0x8000, 64)], &[(0x40, 1)]]);
        b.note(0x9000, 1);
        a.append(&mut b);
        assert_eq!(a.intervals(), 3);
        assert!(a.interval_reads(0, 0x10, 1));
        assert!(a.interval_reads(1, 0x8000, 1) && !a.interval_reads(1, 0x10, 1));
        assert!(a.interval_reads(2, 0x40, 1));
        a.close_interval();
        assert!(a.interval_reads(3, 0x9000, 1));
        let (arena, starts) = a.parts();
        let c = ReadHistory::from_parts(arena.to_vec(), starts.to_vec()).unwrap();
        for k in 0..4 {
            for addr in [0x10, 0x40, 0x8000, 0x9000, 0x5000] {
                assert_eq!(c.interval_reads(k, addr, 1), a.interval_reads(k, addr, 1));
            }
        }
        assert!(ReadHistory::from_parts(vec![0], vec![2]).is_none());
    }
}
