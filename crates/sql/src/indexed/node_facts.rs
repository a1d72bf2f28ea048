//! What the calls table needs of nodes the index names only by number:
//! instructions before a node (from the checkpoints, replaying only an
//! interval that holds a node without an instruction), and a node's first
//! line and time (the index keeps neither per call: replayed, interval by
//! interval, only when a query asks for them).

use std::collections::HashMap;

use datafusion::error::Result;
use tarmac_lens_core::{Engine, Node, Observer, TraceSource};

use super::external;
use crate::trace::Trace;

/// Instructions before each node, per interval replayed.
pub(super) struct Instructions<'t> {
    trace: &'t Trace,
    source: Option<Box<dyn TraceSource + Send>>,
    replayed: HashMap<usize, Vec<u64>>,
    /// The interval of the last call's entry: calls come in entry order,
    /// so the next is found from here (a binary search per node was a
    /// sixth of a query reading the calls' counts).
    at: usize,
}

impl<'t> Instructions<'t> {
    pub(super) fn new(trace: &'t Trace) -> Self {
        Instructions {
            trace,
            source: None,
            replayed: HashMap::new(),
            at: 0,
        }
    }

    /// Instructions in the nodes from `entry` up to, not including,
    /// `resume` (the trace's end for none), for calls taken in entry
    /// order.
    pub(super) fn between(&mut self, entry: u64, resume: Option<u64>) -> Result<u64> {
        let (first, k) = self.before(entry, self.at)?;
        self.at = k;
        let end = match resume {
            Some(r) => self.before(r, k)?.0,
            None => self.trace.starts[self.trace.starts.len() - 1].instructions,
        };
        Ok(end.saturating_sub(first))
    }

    /// Instructions in the nodes before `node` (the trace's total for the
    /// node past the last), and the interval holding it, searched from
    /// interval `from` on.
    fn before(&mut self, node: u64, from: usize) -> Result<(u64, usize)> {
        let starts = &self.trace.starts;
        let end = starts[starts.len() - 1];
        if node >= end.node {
            return Ok((end.instructions, from));
        }
        let k = self.interval_from(from, node);
        let (a, b) = (starts[k], starts[k + 1]);
        // Every node of the interval holds an instruction: counted.
        if b.node - a.node == b.instructions - a.instructions {
            return Ok((a.instructions + (node - a.node), k));
        }
        if !self.replayed.contains_key(&k) {
            let mut got = Vec::new();
            struct Each<'v>(&'v mut Vec<u64>);
            impl Observer for Each<'_> {
                fn node(&mut self, n: &Node, _e: &Engine) {
                    self.0.push(n.instructions_before());
                }
            }
            let source = match &mut self.source {
                Some(s) => s,
                None => self
                    .source
                    .insert(self.trace.source.open().map_err(external)?),
            };
            self.trace
                .index
                .replay_checkpoint_interval(&mut **source, k, &mut Each(&mut got))
                .map_err(external)?;
            self.replayed.insert(k, got);
        }
        let got = &self.replayed[&k];
        let counted = got
            .get((node - a.node) as usize)
            .copied()
            .unwrap_or(b.instructions);
        Ok((counted, k))
    }

    /// The interval holding `node` (before the trace's end), galloping
    /// forward from interval `from`.
    fn interval_from(&self, from: usize, node: u64) -> usize {
        let starts = &self.trace.starts;
        let last = starts.len() - 2;
        let mut lo = from.min(last);
        if starts[lo].node > node {
            return self.trace.interval_of_node(node);
        }
        let mut step = 1;
        while lo + step <= last && starts[lo + step].node <= node {
            lo += step;
            step *= 2;
        }
        let hi = (lo + step).min(last + 1);
        lo + starts[lo..hi].partition_point(|s| s.node <= node) - 1
    }
}

/// The first line and time of each of `nodes` (sorted, distinct), by
/// replaying the intervals that hold them, on up to `threads` threads
/// (each with its own reader).
pub(super) fn positions(
    trace: &Trace,
    nodes: &[u64],
    threads: usize,
) -> Result<HashMap<u64, (u64, u64)>> {
    // The nodes of each interval: (interval, first, end) in `nodes`.
    let mut groups = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        let k = trace.interval_of_node(nodes[i]);
        let end = trace.starts[k + 1].node;
        let j = (i + nodes[i..].partition_point(|&n| n < end)).max(i + 1);
        groups.push((k, i, j));
        i = j;
    }
    let threads = if cfg!(target_arch = "wasm32") {
        1
    } else {
        threads.clamp(1, 8)
    };
    let share = groups.len().div_ceil(threads).max(1);
    if threads == 1 || groups.len() < 2 {
        return replay_groups(trace, nodes, &groups);
    }
    std::thread::scope(|s| {
        let parts: Vec<_> = groups
            .chunks(share)
            .map(|g| s.spawn(move || replay_groups(trace, nodes, g)))
            .collect();
        let mut out = HashMap::with_capacity(nodes.len());
        for p in parts {
            let got = p.join().map_err(|_| {
                datafusion::error::DataFusionError::Internal("a replay thread panicked".into())
            })??;
            out.extend(got);
        }
        Ok(out)
    })
}

fn replay_groups(
    trace: &Trace,
    nodes: &[u64],
    groups: &[(usize, usize, usize)],
) -> Result<HashMap<u64, (u64, u64)>> {
    struct Wanted<'w> {
        nodes: &'w [u64],
        out: &'w mut HashMap<u64, (u64, u64)>,
    }
    impl Observer for Wanted<'_> {
        fn node(&mut self, n: &Node, _e: &Engine) {
            if self.nodes.binary_search(&n.at.node).is_ok() {
                self.out.insert(n.at.node, (n.at.line, n.at.time));
            }
        }
    }
    let mut out = HashMap::new();
    let mut source = trace.source.open().map_err(external)?;
    for &(k, i, j) in groups {
        let mut w = Wanted {
            nodes: &nodes[i..j],
            out: &mut out,
        };
        trace
            .index
            .replay_checkpoint_interval(&mut *source, k, &mut w)
            .map_err(external)?;
    }
    Ok(out)
}
