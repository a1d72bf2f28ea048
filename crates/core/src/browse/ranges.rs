//! A session that indexes only the first byte range itself and adopts the
//! others, indexed elsewhere (browser workers, each running an
//! [`crate::index::range_job::RangeJob`]), in order, when its own indexing
//! reaches them: it parses each range's prefix up to the range's split
//! point (a few KB) and adopts the rest, exactly as the native stitch does.
//! A range that cannot be adopted — no split point, a state that
//! disagrees, bytes that do not decode, a worker that failed — is indexed
//! by the session itself, in steps like the first: slower, never different.
//! Rows become browsable as ranges are adopted; the progress counts the
//! bytes the other workers have indexed too.

use crate::index::parallel::{line_start_at, split_offsets, RangeIndex};
use crate::index::range_job::adopt;
use crate::lines::LineBuffer;
use crate::source::TraceSource;
use crate::stats::Stats;
use crate::Result;

use super::{Session, READ_CHUNK};

/// One range handed to another worker.
enum Slot {
    /// Not here yet; bytes indexed so far, as reported.
    Waiting(u64),
    Arrived(Box<(RangeIndex, Stats)>),
    /// Indexed by the session itself.
    Sequential,
}

/// Where the session's own lines stop next.
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    /// At the start of range `next`: adopt it, or index it, or wait for it.
    ToStart,
    /// At range `next`'s split point: adopt the rest.
    ToSplit,
    /// Indexing range `next` itself, to its end.
    Alone,
    /// Past the last range: to the end of the trace.
    Last,
}

pub(super) struct Ranges {
    /// Line-aligned `[start, end)` of the ranges after the first.
    bounds: Vec<(u64, u64)>,
    slots: Vec<Slot>,
    next: usize,
    phase: Phase,
    /// Where the session's line buffer ends.
    limit: u64,
    joined: usize,
    alone: usize,
}

/// How the ranges went, for tests and figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeReport {
    /// Ranges handed to other workers.
    pub ranges: usize,
    /// Ranges whose work was adopted.
    pub joined: usize,
    /// Ranges the session indexed itself.
    pub alone: usize,
}

impl<S: TraceSource> Session<S> {
    /// Splits indexing into `parts` byte ranges: the session indexes the
    /// first, and returns the raw `[from, to)` of the others, to be indexed
    /// elsewhere and handed in with [`Session::take_range`] (numbered from
    /// 1). Only while the session has read nothing past where its own range
    /// will end (its first steps may have run); returns nothing then, for
    /// one part, a restored session, or a trace too small to split.
    pub fn split_indexing(&mut self, parts: usize) -> Result<Vec<(u64, u64)>> {
        let total = self.total;
        let Some(b) = self.building.as_mut() else {
            return Ok(Vec::new());
        };
        if parts <= 1 || self.ranges.is_some() || total / parts as u64 == 0 {
            return Ok(Vec::new());
        }
        let raw = split_offsets(total, parts);
        let mut raw_ranges = Vec::new();
        let mut bounds = Vec::new();
        for (i, &from) in raw.iter().enumerate().skip(1) {
            let to = raw.get(i + 1).copied().unwrap_or(total);
            raw_ranges.push((from, to));
            bounds.push((
                line_start_at(&mut self.source, from)?,
                line_start_at(&mut self.source, to)?,
            ));
        }
        let limit = bounds[0].0;
        // The session may have begun (the browser's worker splits after its
        // first answer, the split's reads kept off the first screenful's
        // path): it must not have read past its own range.
        if b.lines.position() == 0 {
            b.lines = LineBuffer::new(0, limit, 1, READ_CHUNK);
        } else if !b.lines.limit_to(limit) {
            return Ok(Vec::new());
        }
        self.ranges = Some(Ranges {
            slots: bounds.iter().map(|_| Slot::Waiting(0)).collect(),
            bounds,
            next: 0,
            phase: Phase::ToStart,
            limit,
            joined: 0,
            alone: 0,
        });
        Ok(raw_ranges)
    }

    /// Range `part` (1-based), as [`crate::index::parallel::RangeIndex::to_bytes`]
    /// wrote it, with its statistics. Bytes that do not decode or describe
    /// another range make the session index the range itself.
    pub fn take_range(&mut self, part: usize, bytes: &[u8], stats: Stats) {
        let Some(r) = self.ranges.as_mut() else {
            return;
        };
        let Some(i) = part.checked_sub(1).filter(|&i| i < r.slots.len()) else {
            return;
        };
        if !matches!(r.slots[i], Slot::Waiting(_)) {
            return;
        }
        r.slots[i] = match RangeIndex::from_bytes(bytes) {
            Ok(index) if index.range() == r.bounds[i] => Slot::Arrived(Box::new((index, stats))),
            _ => Slot::Sequential,
        };
    }

    /// The worker indexing range `part` failed: the session indexes it.
    pub fn range_failed(&mut self, part: usize) {
        if let Some(slot) = self
            .ranges
            .as_mut()
            .and_then(|r| r.slots.get_mut(part.wrapping_sub(1)))
        {
            if matches!(slot, Slot::Waiting(_)) {
                *slot = Slot::Sequential;
            }
        }
    }

    /// The worker indexing range `part` has indexed `done` bytes of it.
    pub fn range_progress(&mut self, part: usize, done: u64) {
        if let Some(Slot::Waiting(d)) = self
            .ranges
            .as_mut()
            .and_then(|r| r.slots.get_mut(part.wrapping_sub(1)))
        {
            *d = done;
        }
    }

    /// Whether indexing waits for a range from another worker (steps do
    /// nothing until one arrives or fails).
    pub fn waiting_for_range(&self) -> bool {
        self.awaited_range().is_some()
    }

    /// The range (1-based) indexing waits for, if it does: a caller that
    /// holds a range's bytes until then hands them in here
    /// ([`Session::take_range`]).
    pub fn awaited_range(&self) -> Option<usize> {
        let (r, b) = (self.ranges.as_ref()?, self.building.as_ref()?);
        (r.phase == Phase::ToStart
            && b.lines.position() >= r.limit
            && matches!(r.slots.get(r.next), Some(Slot::Waiting(_))))
        .then_some(r.next + 1)
    }

    /// How the split indexing went, once [`Session::split_indexing`] has been
    /// called.
    pub fn range_report(&self) -> Option<RangeReport> {
        self.ranges.as_ref().map(|r| RangeReport {
            ranges: r.slots.len(),
            joined: r.joined,
            alone: r.alone,
        })
    }

    /// Bytes indexed by other workers that the session's position has not
    /// passed: ranges not reached, and the rest of one whose prefix it is
    /// parsing. (Work found unusable stops counting: the session redoes it.)
    pub(super) fn bytes_ahead(&self) -> u64 {
        let (Some(r), Some(b)) = (&self.ranges, &self.building) else {
            return 0;
        };
        let pos = b.lines.position();
        r.slots
            .iter()
            .zip(&r.bounds)
            .enumerate()
            .skip(r.next)
            // A range the session indexes itself counts as it goes.
            .filter(|&(i, _)| !(i == r.next && r.phase == Phase::Alone))
            .map(|(_, (slot, &(start, end)))| match slot {
                Slot::Waiting(done) => (*done).min(end - start),
                Slot::Arrived(_) => end.saturating_sub(start.max(pos)),
                Slot::Sequential => 0,
            })
            .sum()
    }

    /// Whether the session's lines running out at `pos` end the trace: not
    /// at a range boundary, where other ranges follow (a source shorter
    /// than its length ends it anywhere, as it ends a one-pass session).
    pub(super) fn ends_here(&self, pos: u64) -> bool {
        self.ranges
            .as_ref()
            .is_none_or(|r| r.phase == Phase::Last || pos < r.limit)
    }

    /// At the end of the session's line buffer: moves on to what comes
    /// next (adopting a range, or lines to index), unless waiting.
    pub(super) fn at_range_boundary(&mut self) -> Result<()> {
        let (Some(r), Some(b)) = (self.ranges.as_mut(), self.building.as_mut()) else {
            return Ok(());
        };
        loop {
            let pos = b.lines.position();
            if pos < r.limit || r.phase == Phase::Last {
                return Ok(());
            }
            let (start, end) = r.bounds[r.next];
            debug_assert!(start <= pos);
            // Where the session's lines continue: here, or past an adopted range.
            let (phase, limit, from) = match r.phase {
                Phase::ToStart => match &r.slots[r.next] {
                    Slot::Waiting(_) => return Ok(()),
                    Slot::Arrived(part) => match part.0.split_offset() {
                        Some(c) => (Phase::ToSplit, c, pos),
                        None => (Phase::Alone, end, pos),
                    },
                    Slot::Sequential => (Phase::Alone, end, pos),
                },
                Phase::ToSplit => {
                    // Only an arrived range is split (`Waiting` alone changes).
                    let slot = std::mem::replace(&mut r.slots[r.next], Slot::Sequential);
                    let adopted = match slot {
                        Slot::Arrived(part) => {
                            let (index, stats) = *part;
                            adopt(&mut b.builder, index).map(|offset| (offset, stats))
                        }
                        _ => None,
                    };
                    match adopted {
                        Some((line_offset, stats)) => {
                            b.stats.append(&stats, line_offset);
                            r.joined += 1;
                            let (phase, limit) = r.next_range(end, self.total);
                            (phase, limit, end)
                        }
                        None => (Phase::Alone, end, pos),
                    }
                }
                Phase::Alone => {
                    let (phase, limit) = r.next_range(end, self.total);
                    (phase, limit, pos)
                }
                Phase::Last => unreachable!("returned above"),
            };
            if phase == Phase::Alone {
                r.alone += 1;
            }
            r.phase = phase;
            r.limit = limit;
            let number = b.builder.next_line();
            b.lines = LineBuffer::new(from, limit, number, READ_CHUNK);
        }
    }
}

impl Ranges {
    /// Done with range `next`, which ends at `end`: on to the next one.
    fn next_range(&mut self, end: u64, total: u64) -> (Phase, u64) {
        self.next += 1;
        match self.bounds.get(self.next) {
            Some(&(start, _)) => {
                debug_assert_eq!(start, end);
                (Phase::ToStart, start)
            }
            None => (Phase::Last, total),
        }
    }
}

/// Fewest bytes per range for another worker to pay its start (loading
/// the wasm module, reading its own slices) and the prefix the session
/// parses again.
pub(crate) const MIN_RANGE_BYTES: u64 = 64 << 20;
/// Most workers indexing one trace (each holds its range's partial index).
pub(crate) const MAX_WORKERS: usize = 8;

/// How many workers index a trace of `bytes` on a machine with `cores`:
/// `forced` if set (`?workers=N`), else one per core, at most
/// 8, and no more than one per 64 MiB of trace.
pub fn worker_count(bytes: u64, cores: usize, forced: u32) -> usize {
    if forced > 0 {
        return (forced as usize).min(2 * MAX_WORKERS);
    }
    let by_size = usize::try_from(bytes / MIN_RANGE_BYTES).unwrap_or(usize::MAX);
    cores.clamp(1, MAX_WORKERS).min(by_size).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_only_for_big_traces() {
        assert_eq!(worker_count(10 << 20, 8, 0), 1);
        assert_eq!(worker_count(100 << 20, 8, 0), 1);
        assert_eq!(worker_count(128 << 20, 8, 0), 2);
        assert_eq!(worker_count(1 << 30, 2, 0), 2);
        assert_eq!(worker_count(10 << 30, 64, 0), MAX_WORKERS);
        assert_eq!(worker_count(1 << 30, 0, 0), 1);
        assert_eq!(worker_count(1 << 20, 2, 3), 3);
        assert_eq!(worker_count(1 << 20, 2, 1000), 2 * MAX_WORKERS);
    }
}
