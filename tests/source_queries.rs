//! The session's source-line questions (the browser's source pane) against
//! brute force: the index's per-PC counts against `dump`'s instructions,
//! per-line counts against the CLI's parse-only count, a line's executions
//! and source steps against every node of the trace replayed by the engine
//! and mapped through the DWARF one by one.

use std::collections::BTreeMap;
use std::sync::Arc;

use tarmac_lens_core::{
    protocol::{
        CallStack, FileCountsReply, FindLine, HitsReply, LineCounts, LineHits, LineStep, NodeView,
        Source, SourceReply, SourceStep,
    },
    report::source_lines::{attribute, count_pcs},
    DebugInfo, Engine, EngineOptions, Index, IndexOptions, LineReader, Node, Observer,
    ParseOptions, Parser, Session, SliceSource, TraceIdentity, INVALID_PC,
};

use crate::common::{data, read};

const TRACES: [&str; 4] = [
    "tracegen/lines/recursion-aarch64-O1-fastmodel",
    "tracegen/lines/recursion-thumb-O1-fastmodel",
    "tracegen/lines/hash-arm-O2-fastmodel",
    "tracegen/lines/hash-aarch64-O2-fastmodel",
];

struct Nodes(Vec<Node>);

impl Observer for Nodes {
    fn node(&mut self, node: &Node, _: &Engine) {
        self.0.push(*node);
    }
}

/// Every node of the trace, by the engine alone.
fn all_nodes(trace: &[u8]) -> Vec<Node> {
    let mut parser = Parser::for_sample(ParseOptions::default(), trace);
    let mut engine = Engine::new(EngineOptions::default());
    let mut nodes = Nodes(Vec::new());
    let mut r = LineReader::new(SliceSource(trace));
    let mut next = 1;
    while let Some(l) = r.next_line().unwrap() {
        let rec = parser.parse_line(l.text);
        engine.feed(&l, &rec, &mut nodes);
        next = l.number + 1;
    }
    engine.finish(trace.len() as u64, next, &mut nodes);
    nodes.0
}

fn session(name: &str) -> (Session<SliceSource<'static>>, &'static [u8], Arc<[u8]>) {
    let trace: &'static [u8] = read(&data(&format!("{name}.tarmac"))).leak();
    let elf: Arc<[u8]> = read(&data(&format!("{name}.elf"))).into();
    let mut s = Session::open(SliceSource(trace), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    assert!(s.load_debug_info(elf.clone(), 0).unwrap());
    (s, trace, elf)
}

/// Each node's innermost `file:line`, by the DWARF, one node at a time.
fn lines_of(nodes: &[Node], info: &DebugInfo) -> Vec<Option<(String, u32)>> {
    let mut cache = BTreeMap::new();
    nodes
        .iter()
        .map(|n| {
            if n.at.pc == INVALID_PC {
                return None;
            }
            cache
                .entry(n.at.pc & !1)
                .or_insert_with(|| {
                    let frames = info.frames(n.at.pc).unwrap();
                    let loc = match frames.first() {
                        Some(f) => f.location.clone(),
                        None => info.location(n.at.pc).unwrap(),
                    };
                    loc.and_then(|l| Some((l.file, l.line?)))
                })
                .clone()
        })
        .collect()
}

fn node_of(answer: tarmac_lens_core::Result<Option<NodeView>>) -> Option<NodeView> {
    answer.unwrap()
}

#[test]
fn the_index_counts_each_pc_as_the_parse_only_pass_does_and_keeps_them_saved() {
    for name in TRACES {
        let trace = read(&data(&format!("{name}.tarmac")));
        let opts = IndexOptions {
            checkpoint_bytes: 4096,
            ..IndexOptions::default()
        };
        let index = Index::build(&mut SliceSource(&trace), opts, |_| {}).unwrap();
        let counted = count_pcs(SliceSource(&trace), ParseOptions::default(), |_| {}).unwrap();
        let kept = index.pc_counts().unwrap();
        assert_eq!(kept, counted.sorted(), "{name}");
        assert!(kept.iter().any(|(_, c)| c.executed > 1));
        let id = TraceIdentity { len: 0, mtime: 0 };
        let (back, _) = Index::from_bytes(&index.to_bytes(id)).unwrap();
        assert_eq!(
            back.pc_counts().unwrap(),
            kept,
            "{name}: saved and read back"
        );
    }
}

#[test]
fn line_counts_are_the_cli_counts_of_the_file() {
    for name in TRACES {
        let (mut s, trace, elf) = session(name);
        let info = DebugInfo::from_elf_bytes(elf, 0).unwrap().unwrap();
        let pcs = count_pcs(SliceSource(trace), ParseOptions::default(), |_| {}).unwrap();
        let cli = attribute(&pcs, &info, None).unwrap();
        assert!(!cli.files.is_empty());
        for file in &cli.files {
            let FileCountsReply {
                lines,
                complete,
                note,
                ..
            } = s
                .ask(LineCounts {
                    file: file.file.clone(),
                })
                .unwrap();
            assert!(complete && note.is_none());
            let want: Vec<(u32, u64, u64)> = file
                .lines
                .iter()
                .map(|l| (l.line, l.counts.executed, l.counts.failed))
                .collect();
            assert_eq!(lines, want, "{name}: {}", file.file);
        }
    }
}

#[test]
fn a_lines_executions_and_finds_are_its_nodes() {
    let name = TRACES[0];
    let (mut s, trace, elf) = session(name);
    let info = DebugInfo::from_elf_bytes(elf, 0).unwrap().unwrap();
    let nodes = all_nodes(trace);
    let lines = lines_of(&nodes, &info);
    // The most executed line, and every node at it.
    let mut by_line: BTreeMap<(String, u32), Vec<u64>> = BTreeMap::new();
    for (n, l) in nodes.iter().zip(&lines) {
        if let Some(l) = l {
            by_line.entry(l.clone()).or_default().push(n.at.node);
        }
    }
    let ((file, line), want) = by_line
        .iter()
        .filter(|(_, v)| v.len() > 3 && v.len() < 400)
        .max_by_key(|(_, v)| v.len())
        .unwrap();
    let mut got = Vec::new();
    let mut after = None;
    loop {
        let HitsReply { hits, more } = s
            .ask(LineHits {
                file: file.clone(),
                line: *line,
                after,
                count: 7,
            })
            .unwrap();
        got.extend(hits.iter().map(|h| h.node.node));
        after = hits.last().map(|h| h.node.node);
        if !more {
            break;
        }
    }
    assert_eq!(&got, want, "{file}:{line}");
    // n / N from the middle.
    let mid = want[want.len() / 2];
    let next = node_of(s.ask(FindLine {
        node: mid,
        file: file.clone(),
        line: *line,
        forward: true,
    }));
    assert_eq!(next.map(|n| n.node), want.get(want.len() / 2 + 1).copied());
    let prev = node_of(s.ask(FindLine {
        node: mid,
        file: file.clone(),
        line: *line,
        forward: false,
    }));
    assert_eq!(prev.map(|n| n.node), Some(want[want.len() / 2 - 1]));
    // The frames at a node are the DWARF's.
    let SourceReply::Frames { frames, .. } = s.ask(Source { node: mid }).unwrap() else {
        panic!("no frames");
    };
    assert_eq!(frames[0].file.as_ref(), Some(file));
    assert_eq!(frames[0].line, Some(*line));
}

#[test]
fn source_steps_go_where_a_brute_force_walk_goes() {
    for name in [TRACES[0], TRACES[1]] {
        let (mut s, trace, elf) = session(name);
        let info = DebugInfo::from_elf_bytes(elf, 0).unwrap().unwrap();
        let nodes = all_nodes(trace);
        let lines = lines_of(&nodes, &info);
        let depth = |s: &mut Session<SliceSource<'static>>, n: u64| {
            s.ask(CallStack { node: n }).unwrap().len()
        };
        let step = nodes.len() / 23;
        let mut checked = 0;
        for start in (1..nodes.len() - 1).step_by(step) {
            let here = &lines[start];
            // Next: the first later node on another line.
            let want = (start + 1..nodes.len())
                .find(|&i| lines[i].is_some() && lines[i] != *here)
                .map(|i| i as u64);
            let got = node_of(s.ask(LineStep {
                node: start as u64,
                step: SourceStep::Next,
            }));
            assert_eq!(got.map(|n| n.node), want, "{name}: next from {start}");
            // Prev: the first node of the run of the line before.
            let before = (0..start)
                .rev()
                .find(|&i| lines[i].is_some() && lines[i] != *here);
            let want = before.map(|b| {
                let mut first = b;
                for i in (0..b).rev() {
                    match &lines[i] {
                        None => continue,
                        l if *l == lines[b] => first = i,
                        _ => break,
                    }
                }
                first as u64
            });
            let got = node_of(s.ask(LineStep {
                node: start as u64,
                step: SourceStep::Prev,
            }));
            assert_eq!(got.map(|n| n.node), want, "{name}: prev from {start}");
            // Over: another line, no deeper in calls; nothing between on
            // another line at that depth.
            let d = depth(&mut s, start as u64);
            let got = node_of(s.ask(LineStep {
                node: start as u64,
                step: SourceStep::Over,
            }));
            if let Some(g) = got {
                let g = g.node as usize;
                assert!(lines[g].is_some() && lines[g] != *here);
                assert!(depth(&mut s, g as u64) <= d, "{name}: over from {start}");
                for (i, l) in lines.iter().enumerate().take(g).skip(start + 1) {
                    if l.is_some() && l != here {
                        assert!(
                            depth(&mut s, i as u64) > d,
                            "{name}: over from {start} passed {i}"
                        );
                    }
                }
            }
            // Out: past the return of the innermost call.
            let got = node_of(s.ask(LineStep {
                node: start as u64,
                step: SourceStep::Out,
            }));
            if let Some(g) = got {
                assert!(depth(&mut s, g.node) < d.max(1), "{name}: out from {start}");
                checked += 1;
            }
        }
        assert!(checked > 3, "{name}: too few steps out checked");
    }
}

#[test]
fn without_dwarf_the_source_says_why() {
    let trace = read(&data(
        "tracegen/lines/recursion-aarch64-O1-fastmodel.tarmac",
    ));
    let mut s = Session::open(SliceSource(&trace), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    assert_eq!(
        s.ask(Source { node: 5 }).unwrap(),
        SourceReply::NoDebugInfo { image: false }
    );
    let c = s
        .ask(LineCounts {
            file: "recursion.c".into(),
        })
        .unwrap();
    assert!(c.note.unwrap().contains("DWARF"));
    assert!(s
        .ask(LineStep {
            node: 5,
            step: SourceStep::Next
        })
        .is_err());
}
