//! The deepest call nesting per bucket of nodes (the timeline strip's
//! depth), found during [`CallTable::finish`](super::CallTable::finish)'s
//! pass over the calls in entry order, and saved with the index: answered
//! afterwards from the calls alone, it decodes every call, a task that
//! held up the first key after indexing (143 ms for a 10 GB trace).

/// Buckets the timeline strip asks for: the bucket bounds of this count are
/// the ones `finish` answers for ahead.
pub const TIMELINE_BUCKETS: u32 = 1200;

/// First node of bucket `i` of `n` over `nodes` nodes.
pub fn bucket_start(i: u64, n: u64, nodes: u64) -> u64 {
    (u128::from(i) * u128::from(nodes) / u128::from(n.max(1))) as u64
}

/// The bounds of `buckets` buckets over `nodes` nodes (fewer buckets than
/// nodes; at least one).
pub fn bucket_bounds(buckets: u32, nodes: u64) -> Vec<u64> {
    let n = u64::from(buckets.max(1)).min(nodes.max(1));
    (0..=n).map(|i| bucket_start(i, n, nodes)).collect()
}

/// Follows a pass over the calls in entry order that keeps the stack of
/// open calls (each with its resume node; `u64::MAX` for never), popped
/// lazily when a call enters at or after the top's resume: at each call,
/// the stack holds exactly its ancestors.
pub(crate) struct DepthScan {
    bounds: Vec<u64>,
    depth: Vec<u32>,
    /// The next bound not yet passed.
    next: usize,
}

impl DepthScan {
    pub(crate) fn new(bounds: Vec<u64>) -> DepthScan {
        let n = bounds.len().saturating_sub(1);
        DepthScan {
            bounds,
            depth: vec![0; n],
            next: 0,
        }
    }

    fn buckets(&self) -> usize {
        self.depth.len()
    }

    /// Before the call entering at `entry` pops the stack: each bucket
    /// starting at or before it counts the calls open at its start. Every
    /// call on the stack entered before that start (else the bound would
    /// have been passed at it), so open there means resuming after it.
    pub(crate) fn before(&mut self, entry: u64, stack: &[(usize, u64)]) {
        while self.next < self.buckets() && self.bounds[self.next] <= entry {
            let at = self.bounds[self.next];
            let open = stack.iter().filter(|&&(_, resume)| at < resume).count() as u32;
            self.depth[self.next] = self.depth[self.next].max(open);
            self.next += 1;
        }
    }

    /// After the call entering at `entry` was pushed, `depth` deep: its
    /// bucket is the one the bounds have just passed, unless it lies past
    /// the last.
    pub(crate) fn after(&mut self, entry: u64, depth: u32) {
        let past_end = self.next == self.buckets()
            && self.bounds.get(self.next).is_some_and(|&end| end <= entry);
        if let Some(i) = self.next.checked_sub(1).filter(|_| !past_end) {
            self.depth[i] = self.depth[i].max(depth);
        }
    }

    /// After the last call: the buckets past it count the calls still open.
    pub(crate) fn end(mut self, stack: &[(usize, u64)]) -> DepthCache {
        self.before(u64::MAX, stack);
        DepthCache {
            bounds: self.bounds,
            depth: self.depth,
        }
    }
}

/// The deepest nesting per bucket, for one set of bucket bounds.
#[derive(Default)]
pub(crate) struct DepthCache {
    bounds: Vec<u64>,
    depth: Vec<u32>,
}

impl DepthCache {
    /// A cache read back from an index file: `None` unless there is a depth
    /// per bucket, and the bounds never go back.
    pub(crate) fn from_parts(bounds: Vec<u64>, depth: Vec<u32>) -> Option<DepthCache> {
        let sorted = bounds.windows(2).all(|w| w[0] <= w[1]);
        (sorted && (bounds.is_empty() && depth.is_empty() || bounds.len() == depth.len() + 1))
            .then_some(DepthCache { bounds, depth })
    }

    pub(crate) fn parts(&self) -> (&[u64], &[u32]) {
        (&self.bounds, &self.depth)
    }

    pub(crate) fn get(&self, bounds: &[u64]) -> Option<&[u32]> {
        (self.bounds == bounds && !bounds.is_empty()).then_some(&self.depth[..])
    }

    pub(crate) fn resident_bytes(&self) -> usize {
        self.bounds.capacity() * 8 + self.depth.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browse::events::depth_per_bucket;
    use crate::index::{CallTable, Index, IndexOptions, TraceIdentity};

    fn test_index() -> Index {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"
        );
        let trace = std::fs::read(path).expect("test trace");
        Index::build_from_slice(&trace, IndexOptions::default(), |_| {})
    }

    /// The scan as `finish` drives it, replayed over a finished table.
    fn scan(calls: &CallTable, bounds: &[u64]) -> Vec<u32> {
        let mut depth = DepthScan::new(bounds.to_vec());
        let mut stack: Vec<(usize, u64)> = Vec::new();
        for c in calls.nesting() {
            depth.before(c.entry_node, &stack);
            while stack
                .last()
                .is_some_and(|&(_, resume)| c.entry_node >= resume)
            {
                stack.pop();
            }
            stack.push((c.id as usize, c.resume_node.unwrap_or(u64::MAX)));
            depth.after(c.entry_node, stack.len() as u32);
        }
        let found = depth.end(&stack);
        found.get(bounds).expect("its own bounds").to_vec()
    }

    #[test]
    fn the_scan_agrees_with_the_calls_for_any_buckets() {
        let index = test_index();
        let calls = index.calls();
        let nodes = index.summary().nodes;
        assert!(calls.len() > 100);
        for buckets in [1, 2, 7, 64, 1000, TIMELINE_BUCKETS, nodes as u32] {
            let bounds = bucket_bounds(buckets, nodes);
            assert_eq!(
                scan(calls, &bounds),
                depth_per_bucket(calls, &bounds),
                "{buckets} buckets"
            );
        }
        // Buckets over the first half only: calls past the last bucket.
        let short: Vec<u64> = (0..=10).map(|i| bucket_start(i, 10, nodes / 2)).collect();
        assert_eq!(scan(calls, &short), depth_per_bucket(calls, &short));
    }

    #[test]
    fn indexing_answers_the_timeline_buckets_and_only_those() {
        let index = test_index();
        let calls = index.calls();
        let nodes = index.summary().nodes;
        let bounds = bucket_bounds(TIMELINE_BUCKETS, nodes);
        assert_eq!(bounds.len(), TIMELINE_BUCKETS as usize + 1);
        assert_eq!(
            calls.depth_per_bucket(&bounds),
            Some(&depth_per_bucket(calls, &bounds)[..])
        );
        assert!(calls.depth_per_bucket(&bucket_bounds(64, nodes)).is_none());
        // Saved with the index: a restored index has it too.
        let bytes = index.to_bytes(TraceIdentity { len: 0, mtime: 0 });
        let (restored, _) = Index::from_bytes(&bytes).expect("restored");
        assert_eq!(
            restored.calls().depth_per_bucket(&bounds),
            calls.depth_per_bucket(&bounds)
        );
    }
}
