//! The session's answers about events (exceptions, interrupts, mode
//! changes, aborted accesses, unparsed lines) and the timeline: a page of
//! events with their text, the next or previous event from a position, and
//! per-bucket call depth and event kinds over the whole trace.

use super::protocol::{
    EventRank, EventRow, Events, EventsReply, NextEvent, NodeId, NodeView, Timeline, TimelineReply,
};
use super::question::{Answerable, Example};
use super::{display_text, view, Session};
use crate::index::{bucket_bounds, CallTable, Event};
use crate::source::TraceSource;
use crate::{Error, Result};

/// Most events one page holds.
pub const MAX_EVENTS: u32 = 500;
/// Most buckets a timeline has (more pixels than any screen).
pub(crate) const MAX_BUCKETS: u32 = 4096;
/// Most of a line an event row shows.
const EVENT_TEXT: usize = 400;

impl Answerable for Events {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<EventsReply> {
        session.events_page(self.first, self.count)
    }

    fn examples(_: &Example) -> Vec<Events> {
        vec![Events {
            first: 0,
            count: 50,
        }]
    }
}

impl Answerable for EventRank {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<u64> {
        Ok(session.event_rank(self.node))
    }

    fn examples(at: &Example) -> Vec<EventRank> {
        vec![EventRank { node: at.node }]
    }
}

impl Answerable for NextEvent {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<NodeView>> {
        session.next_event(self.node, self.forward)
    }

    fn examples(at: &Example) -> Vec<NextEvent> {
        [true, false]
            .map(|forward| NextEvent {
                node: at.node,
                forward,
            })
            .into()
    }
}

impl Answerable for Timeline {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<TimelineReply> {
        session.timeline(self.buckets)
    }

    /// The timeline is asked for as soon as a trace opens.
    fn examples(_: &Example) -> Vec<Timeline> {
        vec![Timeline { buckets: 1200 }]
    }
}

impl<S: TraceSource> Session<S> {
    /// Events only in nodes indexed so far count (the open node's events
    /// are still moving).
    fn events_indexed(&self) -> u64 {
        self.index()
            .map_or(0, |i| i.events().rank(i.summary().nodes))
    }

    fn events_page(&mut self, first: u64, count: u32) -> Result<EventsReply> {
        let total = self.events_indexed();
        let count = u64::from(count.min(MAX_EVENTS)).min(total.saturating_sub(first));
        let (idx, src) = self.parts();
        let page = idx.events().page(first, count);
        let mut events = Vec::with_capacity(page.len());
        let mut buf = vec![0u8; EVENT_TEXT];
        for e in page {
            let n = src.read_at(e.offset, &mut buf).map_err(Error::in_query)?;
            let text = &buf[..n];
            let end = memchr::memchr(b'\n', text).unwrap_or(n);
            events.push(EventRow {
                line: e.line,
                node: e.node,
                kind: e.kind,
                text: display_text(&text[..end]),
            });
        }
        Ok(EventsReply {
            first,
            total,
            events,
        })
    }

    /// The position in the event list of the first event at or after `node`.
    fn event_rank(&self, node: NodeId) -> u64 {
        let total = self.events_indexed();
        self.index().map_or(0, |i| i.events().rank(node)).min(total)
    }

    fn next_event(&mut self, node: NodeId, forward: bool) -> Result<Option<NodeView>> {
        let nodes = self.nodes();
        let (idx, src) = self.parts();
        let found: Option<Event> = if forward {
            idx.events().next_after(node)
        } else {
            idx.events().prev_before(node.min(nodes))
        };
        match found.filter(|e| e.node < nodes) {
            Some(e) => Ok(Some(view(&idx.node(src, e.node)?))),
            None => Ok(None),
        }
    }

    fn timeline(&self, buckets: u32) -> Result<TimelineReply> {
        let Some(idx) = self.index() else {
            return Err(Error::Query("no trace is open".into()));
        };
        let nodes = idx.summary().nodes;
        let bounds = bucket_bounds(buckets.clamp(1, MAX_BUCKETS), nodes);
        let depth = match idx.calls().depth_per_bucket(&bounds) {
            Some(found) => found.to_vec(),
            None => depth_per_bucket(idx.calls(), &bounds),
        };
        Ok(TimelineReply {
            nodes,
            depth,
            kinds: idx.events().kinds_per_bucket(&bounds),
        })
    }
}

/// The node at `fraction` (0..1) of a strip over `nodes` nodes (a click
/// on the timeline).
pub fn node_at(fraction: f64, nodes: u64) -> NodeId {
    if nodes == 0 {
        return 0;
    }
    ((fraction.clamp(0.0, 1.0) * nodes as f64) as u64).min(nodes - 1)
}

/// The deepest call nesting within each bucket (`[bounds[i], bounds[i+1])`):
/// the calls active at its start, or a call entered inside it with its
/// ancestors. One pass over the calls in entry order, keeping the chain of
/// ancestors of the last one.
pub fn depth_per_bucket(calls: &CallTable, bounds: &[u64]) -> Vec<u32> {
    let n = bounds.len().saturating_sub(1);
    let mut out = vec![0u32; n];
    let mut chain: Vec<crate::index::Nesting> = Vec::new();
    let mut b = 0;
    let active = |chain: &[crate::index::Nesting], at: u64| {
        chain.iter().filter(|c| c.contains(at)).count() as u32
    };
    for c in calls.nesting() {
        while b < n && bounds[b] <= c.entry_node {
            out[b] = out[b].max(active(&chain, bounds[b]));
            b += 1;
        }
        while chain.last().is_some_and(|top| Some(top.id) != c.parent) {
            chain.pop();
        }
        let depth = chain.len() as u32 + 1;
        chain.push(c);
        // Calls come in entry order, so the bucket is the one `b` has just
        // moved past (a search per call was two thirds of the time), unless
        // the call lies past the last bucket.
        let past_end = b == n && bounds.get(n).is_some_and(|&end| end <= c.entry_node);
        if let Some(i) = b.checked_sub(1).filter(|_| !past_end) {
            out[i] = out[i].max(depth);
        }
    }
    while b < n {
        out[b] = out[b].max(active(&chain, bounds[b]));
        b += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::bucket_start;
    use crate::index::{Index, IndexOptions};

    /// The deepest nesting in each bucket, counted call by call from each
    /// call's depth and the calls active at each bucket's start.
    fn brute_force(calls: &CallTable, bounds: &[u64]) -> Vec<u32> {
        let all: Vec<crate::index::CallInfo> = calls.iter().collect();
        let depth = |c: &crate::index::CallInfo| {
            let mut d = 1;
            let mut p = c.parent;
            while let Some(id) = p {
                d += 1;
                p = all[id as usize].parent;
            }
            d
        };
        (0..bounds.len() - 1)
            .map(|b| {
                let (from, to) = (bounds[b], bounds[b + 1]);
                let at_start = all.iter().filter(|c| c.contains(from)).count() as u32;
                let inside = all
                    .iter()
                    .filter(|c| c.entry_node >= from && c.entry_node < to)
                    .map(depth)
                    .max()
                    .unwrap_or(0);
                at_start.max(inside)
            })
            .collect()
    }

    #[test]
    fn depth_per_bucket_is_the_deepest_nesting_in_each_bucket() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"
        );
        let trace = std::fs::read(path).expect("test trace");
        let index = Index::build_from_slice(&trace, IndexOptions::default(), |_| {});
        let calls = index.calls();
        assert!(calls.len() > 100);
        let nesting: Vec<_> = calls.nesting().collect();
        let whole: Vec<_> = calls.iter().collect();
        assert_eq!(nesting.len(), whole.len());
        for (n, c) in nesting.iter().zip(&whole) {
            assert_eq!(
                (n.id, n.entry_node, n.resume_node, n.parent),
                (c.id, c.entry_node, c.resume_node, c.parent)
            );
        }
        let nodes = index.summary().nodes;
        for buckets in [1, 7, 64, 1000, nodes] {
            let bounds = bucket_bounds(buckets as u32, nodes);
            assert_eq!(
                depth_per_bucket(calls, &bounds),
                brute_force(calls, &bounds),
                "{buckets} buckets"
            );
        }
        // Buckets ending before the last call: it falls in none of them.
        let short: Vec<u64> = (0..=10).map(|i| bucket_start(i, 10, nodes / 2)).collect();
        assert_eq!(depth_per_bucket(calls, &short), brute_force(calls, &short));
    }
}
