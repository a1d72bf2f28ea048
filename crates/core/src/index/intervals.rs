//! The index's checkpoint intervals as a reader outside the core walks
//! them: where each starts (line, byte offset, node, instructions, time),
//! its lines read again and parsed, and the events the index lists. A
//! table scan (`tarmac-lens-sql`) reads only the intervals a `line` or
//! `time` range touches, each on its own, so ranges of intervals can be
//! read in parallel.

use super::*;
use crate::parse::Record;

/// Where a checkpoint interval starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalStart {
    /// Its first line (1-based).
    pub line: u64,
    /// The byte offset of that line.
    pub offset: u64,
    /// Its first node.
    pub node: u64,
    /// Instructions in the nodes before it.
    pub instructions: u64,
    /// The time of the node before it (node times never decrease, so no
    /// node of the interval is earlier); `None` for the first interval.
    pub time_before: Option<u64>,
}

/// An event of the index's list (exceptions, interrupts, mode changes,
/// aborted accesses, unparsed lines): its line, node and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventAt {
    /// The line (1-based).
    pub line: u64,
    /// The node holding it.
    pub node: u64,
    /// The byte offset of the line.
    pub offset: u64,
    /// What made it an event.
    pub kind: EventKind,
}

impl Index {
    /// Checkpoint intervals so far.
    pub fn interval_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Where interval `k` starts.
    pub fn interval_start(&self, k: usize) -> Option<IntervalStart> {
        let cp = self.checkpoints.get(k)?;
        Some(IntervalStart {
            line: cp.line,
            offset: cp.offset,
            node: cp.resume.node_index,
            instructions: cp.resume.instructions,
            time_before: cp.resume.current_time,
        })
    }

    /// The interval holding line `line` (the last one past the end).
    pub fn interval_of_line(&self, line: u64) -> usize {
        self.checkpoints
            .partition_point(|c| c.line <= line)
            .saturating_sub(1)
    }

    /// The first interval any of whose nodes may have a time of at least
    /// `time`, and the first none of whose nodes has a time of at most
    /// `time` (node times never decrease).
    pub fn intervals_of_time(&self, first: u64, last: u64) -> std::ops::Range<usize> {
        // Checkpoint k+1 holds the time of interval k's last node.
        let start = self.checkpoints[1.min(self.checkpoints.len())..]
            .partition_point(|c| c.resume.current_time.is_some_and(|t| t < first));
        let end = self
            .checkpoints
            .partition_point(|c| c.resume.current_time.is_none_or(|t| t <= last));
        start..end.max(start)
    }

    /// Reads interval `k`'s lines again and parses each as indexing did,
    /// handing `f` the line and its record until `f` says stop. No machine
    /// model runs: what a line says, not the state it leaves.
    pub fn scan_interval_records(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        f: &mut dyn FnMut(&Line<'_>, &Record<'_>) -> bool,
    ) -> Result<()> {
        let cp = self
            .checkpoints
            .get(k)
            .ok_or_else(|| Error::OutOfRange(format!("no checkpoint {k}")))?;
        let end = match self.checkpoints.get(k + 1) {
            Some(next) => next.offset,
            None => self.summary.bytes.min(source.len()),
        };
        let mut parser = Parser::new(self.opts.parse, self.dialect);
        parser.reset(cp.parser_time);
        let mut reader =
            LineReader::with_range(SourceRef(source), cp.offset, end, cp.line, 256 << 10);
        while let Some(line) = reader.next_line().map_err(Error::in_query)? {
            let rec = parser.parse_line(line.text);
            if !f(&line, &rec) {
                break;
            }
        }
        Ok(())
    }

    /// Replays interval `k` through the machine model that built the
    /// index, reporting to `obs` (nodes with their positions, calls).
    pub fn replay_checkpoint_interval(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        obs: &mut dyn Observer,
    ) -> Result<()> {
        self.replay(source, k, obs)
    }

    /// Events the index lists.
    pub fn event_count(&self) -> u64 {
        self.events.len()
    }

    /// Events `first..first + count`, in line order.
    pub fn events_page(&self, first: u64, count: u64) -> Vec<EventAt> {
        self.events
            .page(first, count)
            .into_iter()
            .map(|e| EventAt {
                line: e.line,
                node: e.node,
                offset: e.offset,
                kind: e.kind,
            })
            .collect()
    }

    /// How many events lie in nodes before `node`.
    pub fn events_before_node(&self, node: u64) -> u64 {
        self.events.rank(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SliceSource;

    const TRACE: &str = "\
1 clk IT (1) 00008000 e3a00005 A svc_s : MOV r0,#5
1 clk R r0 00000005
2 clk IT (2) 00008004 e2801001 A svc_s : ADD r1,r0,#1
2 clk R r1 00000006
3 clk IT (3) 00008008 e2801001 A svc_s : ADD r1,r0,#1
3 clk R r1 00000006
";

    fn small_index() -> Index {
        let opts = IndexOptions {
            checkpoint_bytes: 64,
            ..IndexOptions::default()
        };
        Index::build(&mut SliceSource(TRACE.as_bytes()), opts, |_| {}).unwrap()
    }

    #[test]
    fn intervals_cover_every_line_once_in_order() {
        let index = small_index();
        assert!(index.interval_count() > 1);
        let mut lines = Vec::new();
        for k in 0..index.interval_count() {
            let start = index.interval_start(k).unwrap();
            let mut first = None;
            index
                .scan_interval_records(&mut SliceSource(TRACE.as_bytes()), k, &mut |l, _| {
                    first.get_or_insert(l.number);
                    lines.push(l.number);
                    true
                })
                .unwrap();
            // The last interval may hold nothing yet: it starts past the end.
            assert!(first.is_none_or(|f| f == start.line), "interval {k}");
        }
        assert_eq!(lines, (1..=6).collect::<Vec<_>>());
    }

    #[test]
    fn time_ranges_pick_the_intervals_holding_those_times() {
        let index = small_index();
        let n = index.interval_count();
        assert_eq!(index.intervals_of_time(0, u64::MAX), 0..n);
        let r = index.intervals_of_time(3, 3);
        let mut times = Vec::new();
        for k in r {
            index
                .scan_interval_records(&mut SliceSource(TRACE.as_bytes()), k, &mut |_, rec| {
                    times.push(rec.time);
                    true
                })
                .unwrap();
        }
        assert!(times.contains(&3));
        assert!(!times.contains(&1));
    }
}
