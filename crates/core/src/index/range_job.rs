//! One byte range of a trace indexed in steps, with its record statistics,
//! for a browser worker that indexes a range for the session worker (which
//! adopts it). The steps let the worker report progress; the
//! statistics count only the lines from the range's split point on, since
//! the session counts those before it while re-parsing them.

use crate::lines::{Line, LineBuffer};
use crate::parse::Dialect;
use crate::source::{read_sample, TraceSource};
use crate::stats::{Stats, StatsAccumulator};
use crate::Result;

use super::parallel::{join, line_start_at, RangeIndex};
use super::{IndexBuilder, IndexOptions, SourceRef};

/// Bytes read at a time (browser reads have a fixed cost of milliseconds).
const READ_CHUNK: usize = 4 << 20;

/// A range being indexed.
pub struct RangeJob {
    part: RangeIndex,
    stats: StatsAccumulator,
    lines: LineBuffer,
}

/// What a line's record says for the statistics, kept until the builder
/// has said whether the line starts the range's split.
struct Seen {
    kind: usize,
    unparsed: Option<(usize, &'static str)>,
    /// [`crate::stats::record_note`]'s bits.
    note: u8,
}

impl RangeJob {
    /// The lines starting in `[from, to)` (raw offsets, moved to the next
    /// line starts, as [`RangeIndex::build`] does).
    pub fn new(
        source: &mut dyn TraceSource,
        opts: IndexOptions,
        dialect: Dialect,
        from: u64,
        to: u64,
    ) -> Result<RangeJob> {
        let start = line_start_at(source, from)?;
        let end = line_start_at(source, to)?;
        let sample = read_sample(&mut SourceRef(source))?;
        Ok(RangeJob {
            part: RangeIndex::new(opts, dialect, &sample, start, end),
            stats: StatsAccumulator::new(dialect.name()),
            lines: LineBuffer::new(start, end, 1, READ_CHUNK),
        })
    }

    /// The line-aligned range.
    pub fn range(&self) -> (u64, u64) {
        self.part.range()
    }

    /// Bytes of the range indexed so far.
    pub fn done_bytes(&self) -> u64 {
        self.lines.position() - self.part.start
    }

    pub(crate) fn is_done(&self) -> bool {
        self.lines.position() >= self.part.end
    }

    /// The most the next read from the source will ask for: small for the
    /// first reads, then the slice size.
    pub fn next_read_len(&self) -> usize {
        self.lines.next_read_len()
    }

    /// Indexes about `budget` more bytes (whole lines); true once done.
    // Never inlined: in wasm this loop is the range worker's hot function,
    // and V8 optimises a function once it has run enough; on its own, the
    // page's warm-up runs it enough before any drop (`web::warmup::tier_up`),
    // which it could not do for the range worker's message loop around it.
    #[inline(never)]
    pub fn step(&mut self, source: &mut dyn TraceSource, budget: u64) -> Result<bool> {
        let stop_at = self.lines.position().saturating_add(budget.max(1));
        while let Some(line) = self.lines.next_line(source)? {
            let mut seen = None;
            self.part.builder.line_then(&line, |rec| {
                seen = Some(Seen {
                    kind: rec.kind.index(),
                    unparsed: match &rec.kind {
                        crate::parse::RecordKind::Unparsed(u) => Some((u.column, u.reason)),
                        _ => None,
                    },
                    note: crate::stats::record_note(&rec.kind),
                })
            });
            if split_at(&self.part, &line) {
                // What precedes the split is counted by the session.
                self.stats = StatsAccumulator::new(self.part.builder.dialect().name());
            }
            if let Some(s) = seen {
                self.stats.add_kind(&line, s.kind, s.unparsed, s.note);
            }
            if line.offset + line.len + 1 >= stop_at {
                break;
            }
        }
        Ok(self.is_done())
    }

    /// The partial index and the statistics of its lines from the split on
    /// (numbered from 1 at the range start).
    pub fn finish(self) -> (RangeIndex, Stats) {
        let end = self.part.end;
        (self.part, self.stats.snapshot(end))
    }
}

/// Whether feeding `line` made the range's split there: a split drops all
/// but the checkpoint it makes, at the start of the line that closed the
/// node before it.
fn split_at(part: &RangeIndex, line: &Line<'_>) -> bool {
    let acc = &part.builder.acc;
    acc.split.as_ref().is_some_and(|s| s.parser_state.is_some())
        && acc.index.checkpoints.len() == 1
        && acc.index.checkpoints[0].offset == line.offset
}

impl IndexBuilder {
    /// Number of the next line to feed.
    pub(crate) fn next_line(&self) -> u64 {
        self.next_line
    }
}

/// Adopts `part` into `g`, which has been fed every line before the part's
/// split point. Returns how much the part's line numbers are short by (for
/// its statistics), or `None` — leaving `g` untouched — when the part has
/// no split point or its state there disagrees with `g`'s: then its lines
/// are to be fed to `g` instead.
pub(crate) fn adopt(g: &mut IndexBuilder, part: RangeIndex) -> Option<u64> {
    let c = part.split_offset()?;
    let split_line = part.builder.acc.index.checkpoints.first()?.line;
    let line_offset = g.next_line.checked_sub(split_line)?;
    join(g, part.builder, c).then_some(line_offset)
}
