//! Events (exceptions, interrupts, mode changes, aborted accesses, unparsed
//! lines) and the timeline, as the session answers them, against what the
//! trace text says, read here with plain string splitting.

use std::path::Path;

use tarmac_lens_core::{
    bucket_start, node_at, protocol::*, ParseOptions, Session, SliceSource, TraceIdentity,
    MAX_EVENTS,
};

use crate::common;

fn data(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(rel),
    )
    .unwrap()
}

fn open(bytes: &[u8]) -> Session<SliceSource<'_>> {
    let mut s = Session::open(SliceSource(bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    s
}

/// Fast Models traces with `E` lines, aborted accesses and mode changes.
const TRACES: &[&str] = &[
    "ttu/truncate/crash32.tarmac",
    "ttu/truncate/crash32m.tarmac",
    "ttu/truncate/crash64.tarmac",
    "ttu/truncate/nontruncate.tarmac",
    "ttu/quicksort.tarmac",
    "ttu/calltests/calltest64.tarmac",
    "ttu/samples/calculator-aarch32-fastmodel.tarmac",
    "tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac",
];

/// The events of a Fast Models trace from its text: `E` lines by their
/// last word, `(ABORTED)` accesses, and instructions whose mode field
/// differs from the previous instruction's.
fn expected(text: &str) -> Vec<(u64, EventKind)> {
    let mut out = Vec::new();
    let mut mode: Option<String> = None;
    for (i, l) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let words: Vec<&str> = l.split_whitespace().collect();
        let mut k = 2;
        if words.get(k).is_some_and(|w| w.starts_with("cpu")) {
            k += 1;
        }
        match words.get(k).copied() {
            Some("E") => {
                let name = words.last().unwrap().to_ascii_lowercase();
                let kind = if name.contains("irq") || name.contains("fiq") {
                    EventKind::Interrupt
                } else if name.contains("modechange") {
                    EventKind::ModeChange
                } else {
                    EventKind::Exception
                };
                out.push((line, kind));
            }
            Some("IT") | Some("IS") => {
                let colon = words.iter().position(|w| *w == ":").unwrap();
                let m = words[colon - 1];
                if m.len() > 1 {
                    if mode.as_deref().is_some_and(|old| old != m) {
                        out.push((line, EventKind::ModeChange));
                    }
                    mode = Some(m.to_string());
                }
            }
            _ if l.contains("(ABORTED)") => out.push((line, EventKind::Aborted)),
            _ => {}
        }
    }
    out
}

fn all_events(s: &mut Session<SliceSource<'_>>) -> Vec<EventRow> {
    let mut out = Vec::new();
    loop {
        match s.ask(Events {
            first: out.len() as u64,
            count: 7,
        }) {
            Ok(r) => {
                assert_eq!(r.first, out.len() as u64);
                if r.events.is_empty() {
                    assert_eq!(r.total, out.len() as u64);
                    return out;
                }
                out.extend(r.events);
            }
            other => panic!("{other:?}"),
        }
    }
}

fn node_of_line(s: &mut Session<SliceSource<'_>>, line: u64) -> u64 {
    match s.ask(Locate::Line(line)) {
        Ok(Some(n)) => n.node,
        other => panic!("{other:?}"),
    }
}

#[test]
fn events_list_the_e_lines_aborts_and_mode_changes_of_the_text() {
    let mut kinds_seen = std::collections::HashSet::new();
    let mut total = 0;
    for name in TRACES {
        let bytes = data(name);
        let text = std::str::from_utf8(&bytes).unwrap();
        let want = expected(text);
        let mut s = open(&bytes);
        let got = all_events(&mut s);
        assert_eq!(
            got.iter().map(|e| (e.line, e.kind)).collect::<Vec<_>>(),
            want,
            "{name}"
        );
        let lines: Vec<&str> = text.lines().collect();
        total += got.len();
        for e in &got {
            kinds_seen.insert(e.kind);
            assert_eq!(e.text, lines[e.line as usize - 1], "{name} line {}", e.line);
            assert_eq!(
                e.node,
                node_of_line(&mut s, e.line),
                "{name} line {}",
                e.line
            );
        }
    }
    assert!(total > 30, "{total} events");
    for k in [
        EventKind::Exception,
        EventKind::ModeChange,
        EventKind::Aborted,
    ] {
        assert!(kinds_seen.contains(&k), "no {k:?} in the reference traces");
    }
}

/// Unparsed lines are events where the statistics list them, each in the
/// node before it (an unparsed line is no event of the machine model: it
/// opens no node, even one starting with a timestamp).
#[test]
fn unparsed_lines_are_events_as_the_statistics_list_them() {
    let one = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let bytes = common::inserted(&one, 15000, common::GARBAGE);
    let mut s = open(&bytes);
    let unparsed = s.stats().unwrap().unparsed_lines.clone();
    assert_eq!(unparsed, [15001, 15002, 15003, 15004, 15005]);
    let events: Vec<EventRow> = all_events(&mut s)
        .into_iter()
        .filter(|e| e.kind == EventKind::Unparsed)
        .collect();
    let got: Vec<u64> = events.iter().map(|e| e.line).collect();
    assert_eq!(got, unparsed);
    let before = node_of_line(&mut s, 15000);
    assert!(events.iter().all(|e| e.node == before));
}

#[test]
fn next_and_previous_event_visit_each_event_node_in_turn() {
    for name in TRACES {
        let bytes = data(name);
        let mut s = open(&bytes);
        let mut nodes: Vec<u64> = all_events(&mut s).iter().map(|e| e.node).collect();
        nodes.dedup();
        let mut at = 0;
        let mut visited = Vec::new();
        if nodes.first() == Some(&0) {
            visited.push(0);
        }
        while let Ok(Some(n)) = s.ask(NextEvent {
            node: at,
            forward: true,
        }) {
            assert!(n.node > at);
            visited.push(n.node);
            at = n.node;
        }
        assert_eq!(visited, nodes, "{name} forwards");
        let end = match s.ask(Locate::End) {
            Ok(Some(n)) => n.node,
            other => panic!("{other:?}"),
        };
        let mut at = end + 1;
        let mut back = Vec::new();
        while let Ok(Some(n)) = s.ask(NextEvent {
            node: at,
            forward: false,
        }) {
            back.push(n.node);
            at = n.node;
        }
        back.reverse();
        assert_eq!(back, nodes, "{name} backwards");
        // The rank of a node is how many events lie before it.
        let all = all_events(&mut s);
        for e in &all {
            let before = all.iter().filter(|x| x.node < e.node).count() as u64;
            assert_eq!(s.ask(EventRank { node: e.node }).unwrap(), before);
        }
    }
}

#[test]
fn pages_are_bounded_and_events_survive_a_saved_index() {
    let bytes = data("ttu/truncate/crash32.tarmac");
    let mut s = open(&bytes);
    let all = all_events(&mut s);
    assert!(all.len() >= 10);
    match s.ask(Events {
        first: 0,
        count: u32::MAX,
    }) {
        Ok(r) => {
            assert!(r.events.len() as u32 <= MAX_EVENTS);
            assert_eq!(r.events, all);
        }
        other => panic!("{other:?}"),
    }
    let id = TraceIdentity {
        len: bytes.len() as u64,
        mtime: 7,
    };
    let saved = s.save(id).unwrap();
    let mut back =
        Session::restore(SliceSource(&bytes), &saved, id, ParseOptions::default()).unwrap();
    assert_eq!(all_events(&mut back), all);
}

#[test]
fn timeline_depth_and_kinds_match_a_node_by_node_count() {
    for name in [
        "ttu/quicksort.tarmac",
        "ttu/truncate/crash32.tarmac",
        "ttu/calltests/calltest64.tarmac",
    ] {
        let bytes = data(name);
        let mut s = open(&bytes);
        let events = all_events(&mut s);
        for buckets in [1u32, 7, 64, 1000] {
            let t = match s.ask(Timeline { buckets }) {
                Ok(t) => t,
                other => panic!("{other:?}"),
            };
            assert!(t.depth.iter().any(|&d| d > 0), "{name}: no calls seen");
            let n = t.depth.len() as u64;
            assert_eq!(n, u64::from(buckets).min(t.nodes), "{name}");
            assert_eq!(t.kinds.len() as u64, n);
            for i in 0..n {
                let (from, to) = (bucket_start(i, n, t.nodes), bucket_start(i + 1, n, t.nodes));
                let mut depth = 0;
                for node in from..to {
                    let stack = match s.ask(CallStack { node }) {
                        Ok(f) => f.len() as u32,
                        other => panic!("{other:?}"),
                    };
                    depth = depth.max(stack);
                }
                assert_eq!(
                    t.depth[i as usize], depth,
                    "{name} {buckets} buckets, bucket {i}"
                );
                let kinds = events
                    .iter()
                    .filter(|e| e.node >= from && e.node < to)
                    .fold(0u8, |m, e| m | e.kind.bit());
                assert_eq!(t.kinds[i as usize], kinds, "{name} bucket {i}");
            }
        }
    }
}

#[test]
fn timeline_clicks_map_to_nodes_within_the_trace() {
    assert_eq!(node_at(0.0, 100), 0);
    assert_eq!(node_at(0.5, 100), 50);
    assert_eq!(node_at(1.0, 100), 99);
    assert_eq!(node_at(2.0, 100), 99);
    assert_eq!(node_at(-1.0, 100), 0);
    assert_eq!(node_at(f64::NAN, 100), 0);
    assert_eq!(node_at(0.3, 0), 0);
    // Buckets tile the nodes.
    assert_eq!(bucket_start(0, 7, 100), 0);
    assert_eq!(bucket_start(7, 7, 100), 100);
}
