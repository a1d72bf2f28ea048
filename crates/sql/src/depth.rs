//! Call depth by line within one checkpoint interval, from the index's
//! calls (no replay): the calls overlapping the interval, as +1 at the
//! callee's first line and -1 at the line execution returned to.

use crate::trace::Trace;

pub(crate) struct Depth {
    /// (line, change), by line.
    steps: Vec<(u64, i64)>,
    next: usize,
    depth: i64,
}

impl Depth {
    /// For interval `k` of `trace`.
    pub(crate) fn for_interval(trace: &Trace, k: usize) -> Depth {
        let first = trace.starts[k].node;
        let last = trace.starts[k + 1].node.saturating_sub(1).max(first);
        let mut steps = Vec::new();
        for c in trace.index.calls().overlapping(first, last) {
            steps.push((c.entry_line, 1));
            if let Some(r) = c.resume_line {
                steps.push((r, -1));
            }
        }
        steps.sort_unstable();
        Depth {
            steps,
            next: 0,
            depth: 0,
        }
    }

    /// The depth at `line` (lines asked in increasing order).
    pub(crate) fn at(&mut self, line: u64) -> u32 {
        while let Some(&(l, d)) = self.steps.get(self.next) {
            if l > line {
                break;
            }
            self.depth += d;
            self.next += 1;
        }
        self.depth.max(0) as u32
    }
}
