//! Index answers against hand-checked expectations: the reference tools'
//! `indextest` (node boundaries, memory and registers after each node, with
//! little- and big-endian interpretation), plus cross-checks of every query
//! against a straight sequential replay on real traces.

use tarmac_lens_core::{
    register_location, Engine, EngineOptions, Index, IndexBuilder, IndexOptions, LineReader, Node,
    Observer, ParseOptions, Parser, RegClass, RegFile, RegId, SliceLines, SliceSource,
    TraceIdentity, IFLAGS, SAMPLE_BYTES, XSP,
};

use crate::common::{data, retimed};

fn build(bytes: &[u8], big_endian: bool, k: u64) -> Index {
    let opts = IndexOptions {
        parse: ParseOptions {
            big_endian,
            ..ParseOptions::default()
        },
        checkpoint_bytes: k,
    };
    Index::build(&mut SliceSource(bytes), opts, |_| {}).unwrap()
}

struct RefNode {
    first_line: u64,
    lines: u64,
    offset: u64,
    len: u64,
    time: u64,
    pc: u64,
    /// (address, bytes) rows of known memory, and the line they were last modified at.
    memory: Vec<(u64, Vec<Option<u8>>, u64)>,
    /// (register name, bytes little-endian, last modified line).
    regs: Vec<(String, Vec<u8>, u64)>,
}

fn parse_ref(text: &str) -> Vec<RefNode> {
    let mut nodes: Vec<RefNode> = Vec::new();
    let mut mem_line = 0;
    let num = |s: &str| -> u64 {
        let s = s.trim().trim_end_matches(',');
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).unwrap(),
            None => s.parse().unwrap(),
        }
    };
    for line in text.lines() {
        let t = line.trim();
        if t == "Node:" {
            nodes.push(RefNode {
                first_line: 0,
                lines: 0,
                offset: 0,
                len: 0,
                time: 0,
                pc: 0,
                memory: Vec::new(),
                regs: Vec::new(),
            });
            continue;
        }
        let n = nodes.last_mut().expect("a node first");
        if let Some(r) = t.strip_prefix("Line range: start ") {
            let (a, b) = r.split_once(", extent ").unwrap();
            n.first_line = num(a);
            n.lines = num(b);
        } else if let Some(r) = t.strip_prefix("Byte range: start ") {
            let (a, b) = r.split_once(", extent ").unwrap();
            n.offset = num(a);
            n.len = num(b);
        } else if let Some(r) = t.strip_prefix("Modification time: ") {
            n.time = num(r);
        } else if let Some(r) = t.strip_prefix("PC: ") {
            n.pc = num(r);
        } else if let Some(r) = t.strip_prefix("Memory last modified at line ") {
            mem_line = num(r.trim_end_matches(':'));
        } else if t.len() > 17
            && t.as_bytes()[16] == b' '
            && u64::from_str_radix(&t[..16], 16).is_ok()
        {
            // "0000000000010400 ef cd ..." : 16 columns of 3 chars after the address.
            let addr = u64::from_str_radix(&t[..16], 16).unwrap();
            let cols = &line[line.find(&t[..16]).unwrap() + 17..];
            let mut bytes = Vec::new();
            for i in 0..16 {
                let cell = cols.get(i * 3..i * 3 + 2).unwrap_or("  ");
                bytes.push(u8::from_str_radix(cell, 16).ok());
            }
            n.memory.push((addr, bytes, mem_line));
        } else if let Some((name, rest)) = t.split_once(", last modified at line ") {
            let (l, bytes) = rest.split_once(": ").unwrap();
            let b = bytes
                .split(' ')
                .map(|x| u8::from_str_radix(x, 16).unwrap())
                .collect();
            n.regs.push((name.to_string(), b, num(l)));
        }
    }
    nodes
}

fn check_indextest(big_endian: bool, reference: &str) {
    let trace = std::fs::read(data("ttu/indextest.tarmac")).unwrap();
    let want = parse_ref(&std::fs::read_to_string(data(reference)).unwrap());
    for k in [1, 2, 512] {
        let index = build(&trace, big_endian, k);
        let mut src = SliceSource(&trace);
        assert_eq!(index.summary().nodes, want.len() as u64);
        for (i, w) in want.iter().enumerate() {
            let n = index.node(&mut src, i as u64).unwrap();
            assert_eq!(
                (n.at.line, n.lines, n.at.offset, n.len, n.at.time, n.at.pc),
                (w.first_line, w.lines, w.offset, w.len, w.time, w.pc),
                "node {} (k={})",
                i,
                k
            );
            assert_eq!(
                index.node_at_line(&mut src, w.first_line).unwrap().at.node,
                i as u64
            );
            assert_eq!(
                index
                    .node_at_offset(&mut src, w.offset + w.len - 1)
                    .unwrap()
                    .at
                    .node,
                i as u64
            );
            for (addr, bytes, last) in &w.memory {
                let view = index.memory_after(&mut src, i as u64, *addr, 16).unwrap();
                for (j, b) in bytes.iter().enumerate() {
                    if let Some(b) = b {
                        assert!(view.known[j], "node {} byte {:x} known", i, addr + j as u64);
                        assert_eq!(view.bytes[j], *b, "node {} byte {:x}", i, addr + j as u64);
                        let prev = index
                            .prev_mem_write(&mut src, i as u64, addr + j as u64, 1)
                            .unwrap();
                        assert_eq!(
                            prev.map_or(0, |p| p.at.line),
                            *last,
                            "node {} last write of {:x}",
                            i,
                            addr + j as u64
                        );
                    }
                }
            }
            let regs = index.registers_after(&mut src, i as u64).unwrap();
            for (name, bytes, last) in &w.regs {
                if name == "internal_flags" {
                    assert_eq!(regs.value(IFLAGS, 4), Some(u64::from(bytes[0])), "iflags");
                    continue;
                }
                let reg = RegId::lookup(name.as_bytes()).unwrap();
                let (off, size) = register_location(reg, true);
                assert_eq!(
                    &regs.bytes[off..off + size],
                    &bytes[..],
                    "node {} {}",
                    i,
                    name
                );
                let prev = index.prev_reg_write(&mut src, i as u64, reg).unwrap();
                assert_eq!(
                    prev.map(|p| p.at.line),
                    Some(*last),
                    "node {} last write of {}",
                    i,
                    name
                );
            }
        }
        // Unknown memory stays unknown.
        let view = index.memory_after(&mut src, 0, 0x20000, 8).unwrap();
        assert!(view.known.iter().all(|k| !k));
    }
}

#[test]
fn indextest_little_endian() {
    check_indextest(false, "ttu/indextest-li.ref");
}

#[test]
fn indextest_big_endian() {
    check_indextest(true, "ttu/indextest-bi.ref");
}

/// Sequential ground truth: every node with the registers after it, and a
/// window of memory around the stack pointer at sampled nodes.
struct Truth {
    nodes: Vec<(Node, RegFile)>,
    mem: Vec<(u64, u64, Vec<Option<u8>>)>,
}

impl Observer for Truth {
    fn node(&mut self, node: &Node, engine: &Engine) {
        self.nodes.push((*node, engine.regs().clone()));
        if node.at.node % 101 == 7 {
            let r = engine.regs();
            let sp = r.value(XSP, 8).or_else(|| r.value(13 * 8, 4));
            if let Some(sp) = sp {
                let base = sp.saturating_sub(64);
                let bytes = (0..192).map(|i| engine.memory().get(base + i)).collect();
                self.mem.push((node.at.node, base, bytes));
            }
        }
    }
}

fn truth(trace: &[u8]) -> Truth {
    let mut parser = Parser::for_sample(ParseOptions::default(), trace);
    let mut engine = Engine::new(EngineOptions::default());
    let mut t = Truth {
        nodes: Vec::new(),
        mem: Vec::new(),
    };
    let mut r = LineReader::new(SliceSource(trace));
    let mut next = 1;
    while let Some(l) = r.next_line().unwrap() {
        let rec = parser.parse_line(l.text);
        engine.feed(&l, &rec, &mut t);
        next = l.number + 1;
    }
    engine.finish(trace.len() as u64, next, &mut t);
    t
}

fn same(n: &Node, t: &Node) -> bool {
    (
        n.at.node,
        n.at.line,
        n.lines,
        n.at.offset,
        n.len,
        n.at.time,
        n.at.pc,
        n.own_time,
    ) == (
        t.at.node,
        t.at.line,
        t.lines,
        t.at.offset,
        t.len,
        t.at.time,
        t.at.pc,
        t.own_time,
    )
}

#[test]
fn queries_agree_with_sequential_replay_on_real_traces() {
    for name in [
        "tracegen/quicksort-aarch64-O2-es-2M.tarmac",
        "tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac",
        "ttu/samples/calculator-aarch32-fastmodel.tarmac",
    ] {
        let trace = std::fs::read(data(name)).unwrap();
        let t = truth(&trace);
        let index = build(&trace, false, 32 << 10);
        let mut src = SliceSource(&trace);
        assert_eq!(index.summary().nodes, t.nodes.len() as u64, "{}", name);
        let step = (t.nodes.len() / 97).max(1);
        for (node, regs) in t.nodes.iter().step_by(step) {
            let n = index.node(&mut src, node.at.node).unwrap();
            assert!(same(&n, node), "{} node {}", name, node.at.node);
            let by_line = index
                .node_at_line(&mut src, node.at.line + node.lines - 1)
                .unwrap();
            assert!(same(&by_line, node));
            // A time is found at its first node.
            let by_time = index.node_at_time(&mut src, node.own_time).unwrap();
            let first = t.nodes.iter().find(|(n, _)| n.own_time == node.own_time);
            assert!(
                first.is_some_and(|(f, _)| same(&by_time, f)),
                "{} time {}",
                name,
                node.own_time
            );
            let r = index.registers_after(&mut src, node.at.node).unwrap();
            assert_eq!(
                &r.bytes[..],
                &regs.bytes[..],
                "{} regs after {}",
                name,
                node.at.node
            );
            assert_eq!(&r.known[..], &regs.known[..]);
        }
        // PC search, both ways, against a linear scan.
        for q in [t.nodes.len() / 5, t.nodes.len() / 2] {
            let pc = t.nodes[q].0.at.pc;
            if pc == tarmac_lens_core::INVALID_PC {
                continue;
            }
            let same = |n: &Node| n.at.pc & !1 == pc & !1;
            let next = t.nodes[q + 1..]
                .iter()
                .find(|(n, _)| same(n))
                .map(|(n, _)| n.at.node);
            let prev = t.nodes[..q]
                .iter()
                .rev()
                .find(|(n, _)| same(n))
                .map(|(n, _)| n.at.node);
            assert_eq!(
                index
                    .find_pc(&mut src, q as u64, pc, true)
                    .unwrap()
                    .map(|n| n.at.node),
                next,
                "{}",
                name
            );
            assert_eq!(
                index
                    .find_pc(&mut src, q as u64, pc, false)
                    .unwrap()
                    .map(|n| n.at.node),
                prev,
                "{}",
                name
            );
        }
        // Memory: wherever the sequential model knows a byte, the index
        // agrees (the index may know more, from reads back-dated).
        assert!(!t.mem.is_empty(), "{}", name);
        for (node, base, bytes) in t.mem.iter().step_by(7) {
            let view = index
                .memory_after(&mut src, *node, *base, bytes.len() as u64)
                .unwrap();
            for (i, b) in bytes.iter().enumerate() {
                if let Some(b) = b {
                    assert!(
                        view.known[i],
                        "{} node {} byte {:x}",
                        name,
                        node,
                        base + i as u64
                    );
                    assert_eq!(
                        view.bytes[i],
                        *b,
                        "{} node {} byte {:x}",
                        name,
                        node,
                        base + i as u64
                    );
                }
            }
        }
        // Previous write of x/r registers: the answer's node wrote it, and
        // no node between it and the query did.
        let sp = if name.contains("aarch64") {
            RegId::new(RegClass::Xsp, 0)
        } else {
            RegId::new(RegClass::R, 13)
        };
        let q = t.nodes.len() as u64 * 3 / 4;
        if let Some(p) = index.prev_reg_write(&mut src, q, sp).unwrap() {
            let (off, size) = register_location(sp, name.contains("aarch64"));
            let before = &t.nodes[p.at.node as usize - 1].1;
            let after = &t.nodes[p.at.node as usize].1;
            let _ = (before, after, off, size);
            let at_q = &t.nodes[q as usize].1;
            assert_eq!(&after.bytes[off..off + size], &at_q.bytes[off..off + size]);
            let next = index.next_reg_write(&mut src, p.at.node, sp).unwrap();
            assert!(next.is_none_or(|n| n.at.node > q), "{}", name);
        }
    }
}

/// A debugger's queries: the state before a node is the sequential
/// model's after the node before (memory as `memory_after` has it);
/// walking to the next or previous instruction node, and a breakpoint
/// search through the per-address interval table, equal a linear scan.
#[test]
fn the_state_before_a_node_and_the_walks_agree_with_sequential_replay() {
    use tarmac_lens_core::{MemByte, PcIntervals};
    for name in [
        "tracegen/quicksort-aarch64-O2-es-2M.tarmac",
        "tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac",
    ] {
        let trace = std::fs::read(data(name)).unwrap();
        let t = truth(&trace);
        let index = build(&trace, false, 32 << 10);
        let mut src = SliceSource(&trace);
        let step = (t.nodes.len() / 89).max(1);
        for q in (1..t.nodes.len()).step_by(step) {
            let state = index.state_before(&mut src, q as u64).unwrap();
            let regs = &t.nodes[q - 1].1;
            assert_eq!(
                &state.registers().bytes[..],
                &regs.bytes[..],
                "{name} before {q}"
            );
            assert_eq!(
                &state.registers().known[..],
                &regs.known[..],
                "{name} before {q}"
            );
            let sp = regs.value(XSP, 8).or_else(|| regs.value(13 * 8, 4));
            if let Some(sp) = sp {
                let base = sp.saturating_sub(48);
                let view = index
                    .memory_after(&mut src, q as u64 - 1, base, 128)
                    .unwrap();
                let mut got = vec![MemByte::NeverSeen; 128];
                state.memory(&index, base, &mut got);
                for (i, g) in got.iter().enumerate() {
                    let want = view.known[i].then_some(view.bytes[i]);
                    let have = match *g {
                        MemByte::Value(v) => Some(v),
                        _ => None,
                    };
                    assert_eq!(have, want, "{name} before {q} byte {:#x}", base + i as u64);
                }
            }
            // The instruction nodes on either side.
            let instr = |n: &&(Node, RegFile)| n.0.has_instruction();
            let next = t.nodes[q + 1..].iter().find(instr).map(|n| n.0.at.node);
            let prev = t.nodes[..q].iter().rev().find(instr).map(|n| n.0.at.node);
            let walk = |forward| {
                index
                    .walk_nodes(&mut SliceSource(&trace), q as u64, forward, &mut |n| {
                        n.has_instruction()
                    })
                    .unwrap()
                    .map(|n| n.at.node)
            };
            assert_eq!(walk(true), next, "{name} after {q}");
            assert_eq!(walk(false), prev, "{name} before {q}");
            // A step: the same node, and the state before it.
            for (forward, want) in [(true, next), (false, prev)] {
                let step = index
                    .step_instruction(&mut SliceSource(&trace), q as u64, forward)
                    .unwrap();
                assert_eq!(
                    step.as_ref().map(|s| s.0.at.node),
                    want,
                    "{name} step from {q}"
                );
                if let Some((n, state)) = step.filter(|s| s.0.at.node > 0) {
                    let regs = &t.nodes[n.at.node as usize - 1].1;
                    assert_eq!(state.node(), n.at.node);
                    assert_eq!(
                        &state.registers().bytes[..],
                        &regs.bytes[..],
                        "{name} step to {}",
                        n.at.node
                    );
                    assert_eq!(&state.registers().known[..], &regs.known[..]);
                    let sp = regs.value(XSP, 8).or_else(|| regs.value(13 * 8, 4));
                    if let Some(sp) = sp {
                        let view = index.memory_after(&mut src, n.at.node - 1, sp, 64).unwrap();
                        let mut got = vec![MemByte::NeverSeen; 64];
                        state.memory(&index, sp, &mut got);
                        for (i, g) in got.iter().enumerate() {
                            let have = match *g {
                                MemByte::Value(v) => Some(v),
                                _ => None,
                            };
                            assert_eq!(
                                have,
                                view.known[i].then_some(view.bytes[i]),
                                "{name} step to {}",
                                n.at.node
                            );
                        }
                    }
                }
            }
        }
        assert!(index.state_before(&mut src, t.nodes.len() as u64).is_err());
        let table = PcIntervals::build(&index, &mut src, &mut |_| true)
            .unwrap()
            .unwrap();
        // Through its file, and refused for another index.
        let table = PcIntervals::from_bytes(&table.to_bytes(&index), &index).unwrap();
        let other = build(&trace[..trace.len() / 2], false, 32 << 10);
        assert!(PcIntervals::from_bytes(&table.to_bytes(&index), &other).is_none());
        for q in [t.nodes.len() / 7, t.nodes.len() / 3, t.nodes.len() * 5 / 6] {
            let pcs: std::collections::HashSet<u64> = [q, q + 3, q + 40]
                .iter()
                .map(|&i| t.nodes[i].0.at.pc & !1)
                .filter(|&pc| pc != tarmac_lens_core::INVALID_PC)
                .collect();
            let hit =
                |n: &&(Node, RegFile)| n.0.has_instruction() && pcs.contains(&(n.0.at.pc & !1));
            let next = t.nodes[q + 1..].iter().find(hit).map(|n| n.0.at.node);
            let prev = t.nodes[..q].iter().rev().find(hit).map(|n| n.0.at.node);
            for (table, how) in [(Some(&table), "table"), (None, "filters")] {
                let find = |forward| {
                    index
                        .find_any_pc(&mut SliceSource(&trace), q as u64, &pcs, forward, table)
                        .unwrap()
                        .map(|n| n.at.node)
                };
                assert_eq!(find(true), next, "{name} {how} after {q}");
                assert_eq!(find(false), prev, "{name} {how} before {q}");
            }
        }
    }
}

/// The Arm quicksort trace, its index and the identity it is saved with.
fn saved_quicksort() -> (Vec<u8>, Index, TraceIdentity) {
    let trace = std::fs::read(data("tracegen/quicksort-arm-O2-fastmodel-2M.tarmac")).unwrap();
    let index = build(&trace, false, 16 << 10);
    let id = TraceIdentity {
        len: trace.len() as u64,
        mtime: 42,
    };
    (trace, index, id)
}

#[test]
fn index_round_trips_through_bytes() {
    let (trace, index, id) = saved_quicksort();
    let bytes = index.to_bytes(id);
    let (back, id2) = Index::from_bytes(&bytes).unwrap();
    assert_eq!(id, id2);
    assert_eq!(back.summary(), index.summary());
    assert_eq!(back.calls().len(), index.calls().len());
    let mut src = SliceSource(&trace);
    for n in [0u64, 1000, 5000, index.summary().nodes - 1] {
        assert_eq!(
            back.node(&mut src, n).unwrap(),
            index.node(&mut src, n).unwrap()
        );
        let a = back.memory_after(&mut src, n, 0x3ffe00, 256).unwrap();
        let b = index.memory_after(&mut src, n, 0x3ffe00, 256).unwrap();
        assert_eq!(a, b);
    }
    // The timeline strip's depth per bucket comes back with it, not to be
    // found again from every call.
    let nodes = index.summary().nodes;
    let timeline = tarmac_lens_core::bucket_bounds(tarmac_lens_core::TIMELINE_BUCKETS, nodes);
    let depth = index
        .calls()
        .depth_per_bucket(&timeline)
        .expect("found by finish");
    assert!(depth.iter().any(|&d| d > 1));
    assert_eq!(back.calls().depth_per_bucket(&timeline), Some(depth));
    // Corruption is an error, never a panic.
    for cut in [0, 7, 8, 20, bytes.len() / 2, bytes.len() - 1] {
        assert!(Index::from_bytes(&bytes[..cut]).is_err(), "cut at {}", cut);
    }
    let mut bad = bytes.clone();
    for i in (9..bad.len()).step_by(97) {
        bad[i] ^= 0x5a;
        let _ = Index::from_bytes(&bad);
    }
}

/// Index files of formats 5 and 6 (the browser's cache may hold some) end
/// before the per-PC counts, and format 5 before the timeline's depth per
/// bucket; they still load, the depth found from the calls, the same, and
/// the counts said to be missing.
#[test]
fn an_index_file_without_the_timeline_depth_still_loads() {
    let (trace, index, id) = saved_quicksort();
    let nodes = index.summary().nodes;
    let timeline = tarmac_lens_core::bucket_bounds(tarmac_lens_core::TIMELINE_BUCKETS, nodes);
    let depth = index.calls().depth_per_bucket(&timeline).unwrap().to_vec();
    // The depth section: the bounds' count, their differences, the depths,
    // each a LEB128 varint.
    let varint_len = |v: u64| (64 - v.leading_zeros()).div_ceil(7).max(1) as usize;
    let section = varint_len(timeline.len() as u64)
        + timeline
            .iter()
            .scan(0, |last, &b| {
                Some(varint_len(b - std::mem::replace(last, b)))
            })
            .sum::<usize>()
        + depth
            .iter()
            .map(|&d| varint_len(u64::from(d)))
            .sum::<usize>();
    // Format 7 adds the per-PC counts after it: (1 + count), then each
    // PC's difference from the last and its two counts, LEB128 varints.
    let counts = index.pc_counts().expect("a fresh index counts PCs");
    let mut counts_bytes = Vec::new();
    let mut put = |mut v: u64| loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            counts_bytes.push(b);
            break;
        }
        counts_bytes.push(b | 0x80);
    };
    put(1 + counts.len() as u64);
    let mut last = 0;
    for (pc, c) in &counts {
        put(pc - std::mem::replace(&mut last, *pc));
        put(c.executed);
        put(c.failed);
    }
    let counts_section = counts_bytes.len();
    let mut bytes = index.to_bytes_format_8(id);
    assert_eq!(bytes[8], 8, "the format's version");
    // Format 8 adds what each interval read (memory lines, registers)
    // after the counts; format 7 ends with them. It loads, and answers
    // watchpoints on reads as the full index (by replaying every interval).
    let end = bytes
        .windows(counts_section)
        .rposition(|w| w == &counts_bytes[..])
        .expect("the counts section")
        + counts_section;
    bytes.truncate(end);
    bytes[8] = 7;
    let (v7, _) = Index::from_bytes(&bytes).expect("a format 7 file loads");
    assert_eq!(v7.summary(), index.summary());
    let mut src = tarmac_lens_core::SliceSource(&trace);
    let r0 = tarmac_lens_core::Watched::Reg(index.register_named("r0").unwrap());
    let read = tarmac_lens_core::AccessKind::Read;
    assert_eq!(
        v7.next_access(&mut src, 100, r0, read).unwrap(),
        index.next_access(&mut src, 100, r0, read).unwrap()
    );
    bytes.truncate(bytes.len() - counts_section);
    // Format 6: no per-PC counts; it loads, and says it has none.
    bytes[8] = 6;
    let (v6, _) = Index::from_bytes(&bytes).expect("a format 6 file loads");
    assert_eq!(v6.summary(), index.summary());
    assert_eq!(v6.pc_counts(), None);
    assert_eq!(v6.calls().depth_per_bucket(&timeline), Some(&depth[..]));
    bytes[8] = 5;
    bytes.truncate(bytes.len() - section);
    let (old, _) = Index::from_bytes(&bytes).expect("a format 5 file loads");
    assert_eq!(old.summary(), index.summary());
    assert_eq!(old.calls().depth_per_bucket(&timeline), None);
    assert_eq!(
        tarmac_lens_core::depth_per_bucket(old.calls(), &timeline),
        depth
    );
    // Left at format 6, the same bytes lack a section: an error.
    bytes[8] = 6;
    assert!(Index::from_bytes(&bytes).is_err());
}

/// Format 8 held every checkpoint's register snapshot whole (format 9
/// delta-codes them) and each call's addresses (format 10 numbers the
/// pairs). A format 8 file (the page's cache, a saved session) loads,
/// answers as the index it was saved from at every checkpoint, and saved
/// again is the current file of that index.
#[test]
fn an_index_file_with_whole_snapshots_still_loads() {
    let (trace, index, id) = saved_quicksort();
    let new = index.to_bytes(id);
    assert_eq!(new[8], 11, "the format's version");
    let old = index.to_bytes_format_8(id);
    assert_eq!(old[8], 8);
    assert!(old.len() > new.len(), "whole snapshots take more room");
    let (v8, id8) = Index::from_bytes(&old).expect("a format 8 file loads");
    assert_eq!(id8, id);
    // Re-encoded, the same bytes but for the last section, the intervals'
    // own times, which format 8 lacks: it says none (0 and a count of 0).
    let again = v8.to_bytes(id);
    let kept = again.len() - 2;
    assert_eq!(&again[kept..], [0, 0]);
    assert!(again[..kept] == new[..kept], "re-encoded, the same bytes");
    assert_eq!(new[kept], 1, "the current file has them");
    let mut src = SliceSource(&trace);
    let nodes = index.summary().nodes;
    for node in (0..nodes).step_by((nodes / 97).max(1) as usize) {
        let a = v8.registers_after(&mut src, node).unwrap();
        let b = index.registers_after(&mut src, node).unwrap();
        assert!(a.bytes == b.bytes && a.known == b.known, "node {node}");
    }
}

/// The browser saves an index a piece at a time: any budget per piece gives
/// the bytes of one whole `to_bytes`, however the pieces fall on the parts
/// (a budget of 1 stops inside every part; larger ones at its ends).
#[test]
fn an_index_encoded_piece_by_piece_is_the_same_bytes() {
    let (_, index, id) = saved_quicksort();
    let whole = index.to_bytes(id);
    for budget in [1, 2, 3, 16, 97, 1000, 65_536] {
        let mut encoder = index.encoder(id, b"prefix".to_vec());
        let mut steps = 1;
        while !encoder.step(&index, budget) {
            steps += 1;
        }
        let bytes = encoder.finish();
        assert_eq!(&bytes[..6], b"prefix");
        assert!(bytes[6..] == whole[..], "budget {budget}: the bytes differ");
        if budget == 1 {
            assert!(steps > 1000, "budget {budget}: only {steps} steps");
        }
    }
}

/// The browser writes each piece's bytes to the cache file as they come
/// (`take_output`), never holding the whole encoding: the pieces, in order,
/// are the bytes of one `to_bytes`.
#[test]
fn an_index_taken_piece_by_piece_is_the_same_bytes() {
    let (_, index, id) = saved_quicksort();
    let whole = index.to_bytes(id);
    for budget in [1, 7, 1000, 65_536] {
        let mut encoder = index.encoder(id, Vec::new());
        let mut taken = Vec::new();
        let mut pieces = 0;
        loop {
            let done = encoder.step(&index, budget);
            let piece = encoder.take_output();
            pieces += usize::from(!piece.is_empty());
            taken.extend_from_slice(&piece);
            if done {
                break;
            }
        }
        taken.extend_from_slice(&encoder.finish());
        assert!(taken == whole, "budget {budget}: the bytes differ");
        if budget <= 1000 {
            assert!(pieces > 1, "budget {budget}: one piece");
        }
    }
}

/// Semihosting SYS_READ: memory the call may write is unknown after it, and
/// a later read back-dates its value to the call (manual, appendix).
/// The calls encoded a few at a time (the worker answers questions between
/// steps) make the same index as one finish; meanwhile every node shows
/// and no call does.
#[test]
fn an_index_finished_in_steps_is_the_same_bytes() {
    let (trace, whole, id) = saved_quicksort();
    let want = whole.to_bytes(id);
    let calls = whole.calls().len();
    assert!(calls > 1000, "{calls} calls");
    for per_step in [1, 7, 1000, usize::MAX] {
        let opts = IndexOptions {
            checkpoint_bytes: 16 << 10,
            ..IndexOptions::default()
        };
        let sample = &trace[..trace.len().min(SAMPLE_BYTES as usize)];
        let mut builder = IndexBuilder::new(opts, sample);
        for line in SliceLines::new(&trace) {
            builder.line(&line);
        }
        let mut steps = 1;
        while !builder.finish_step(trace.len() as u64, per_step) {
            steps += 1;
            let so_far = builder.index();
            assert_eq!(so_far.summary().nodes, whole.summary().nodes);
            assert!(so_far.calls().is_empty());
        }
        assert_eq!(steps, calls.div_ceil(per_step), "{per_step} a step");
        let index = builder.into_index();
        assert_eq!(index.summary().calls, calls as u64);
        assert!(
            index.to_bytes(id) == want,
            "{per_step} calls a step: other bytes"
        );
    }
}

#[test]
fn semihosting_read_back_dates_to_the_call() {
    let trace = b"\
1 clk IT (1) 00001000 d28000c0 O EL3h_s : MOV      x0,#6
1 clk R X0 0000000000000006
2 clk IT (2) 00001004 d2840001 O EL3h_s : MOV      x1,#0x2000
2 clk R X1 0000000000002000
3 clk IT (3) 00001008 f9000422 O EL3h_s : STR      x2,[x1,#8]
3 clk MW8 00002008 00000000_00003000
3 clk MW8 00002010 00000000_00000010
3 clk MW8 00003000 aaaaaaaa_aaaaaaaa
4 clk IT (4) 0000100c d45e0000 O EL3h_s : HLT      #0xf000
5 clk IT (5) 00001010 f9400023 O EL3h_s : LDR      x3,[x1,#0]
5 clk MR8 00003000 11223344_55667788
5 clk R X3 1122334455667788
";
    // Nodes 0-3 in one interval (replay does not restore memory, so the
    // call's parameter block must be written in its interval), node 4 in
    // the next.
    let index = build(trace, false, 360);
    let mut src = SliceSource(trace);
    let before = index.memory_after(&mut src, 2, 0x3000, 16).unwrap();
    assert_eq!(&before.bytes[..8], &[0xaa; 8]);
    assert!(before.known[..8].iter().all(|&k| k) && before.known[8..].iter().all(|&k| !k));
    let after_call = index.memory_after(&mut src, 3, 0x3000, 16).unwrap();
    assert_eq!(
        &after_call.bytes[..8],
        &[0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
    );
    assert!(
        after_call.known[..8].iter().all(|&k| k),
        "back-dated to the call"
    );
    assert!(
        after_call.known[8..].iter().all(|&k| !k),
        "never read: unknown after the call"
    );
    // The call is the last write of that memory, for the browser's jump.
    let w = index
        .prev_mem_write(&mut src, 4, 0x3000, 8)
        .unwrap()
        .unwrap();
    assert_eq!(w.at.line, 9);
}

#[test]
fn call_stack_matches_the_call_tree() {
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let index = build(&trace, false, 64 << 10);
    let calls = index.calls();
    assert!(calls.len() > 1000);
    let mut checked = 0;
    for c in calls.iter().step_by(37) {
        let stack = calls.stack_at(c.entry_node);
        let inner = stack.last().expect("a call is active at its own entry");
        assert_eq!(inner.id, c.id);
        assert_eq!(stack.len() as u32, inner.depth + 1);
        // Every outer call contains the node, and they nest.
        for w in stack.windows(2) {
            assert!(w[0].contains(c.entry_node) && w[0].entry_node <= w[1].entry_node);
            assert_eq!(w[1].parent, Some(w[0].id));
        }
        if let Some(r) = c.resume_node {
            assert!(
                calls.stack_at(r).iter().all(|s| s.id != c.id),
                "returned by its resume node"
            );
        }
        checked += 1;
    }
    assert!(checked > 20);
    // The outermost call (tg_main from _start) spans almost everything.
    let top = calls.stack_at(index.summary().nodes / 2);
    assert!(!top.is_empty());
    let overlapping = calls.overlapping(1000, 1100);
    assert!(overlapping
        .iter()
        .all(|c| c.entry_node <= 1100 && c.resume_node.is_none_or(|r| r > 1000)));
}

#[test]
fn calls_never_returned_stay_open_to_the_end() {
    // A call whose return is cut off by the end of the trace.
    let trace = b"\
1 clk IT (1) 00001000 94000010 O EL3h_s : BL       {pc}+0x40 ; 0x1040
1 clk R X30 0000000000001004
2 clk IT (2) 00001040 d503201f O EL3h_s : NOP
3 clk IT (3) 00001044 d503201f O EL3h_s : NOP
";
    let index = build(trace, false, 64 << 10);
    let calls = index.calls();
    assert_eq!(calls.len(), 1);
    let c = calls.get(0).unwrap();
    assert_eq!(
        (c.entry_node, c.resume_node, c.function, c.call_pc),
        (1, None, 0x1040, 0x1000)
    );
    assert_eq!(calls.stack_at(2).len(), 1);
    assert!(calls.stack_at(0).is_empty());
}

#[test]
fn slice_and_streamed_builds_are_identical() {
    for name in [
        "ttu/quicksort.tarmac",
        "tracegen/quicksort-thumb-O2-gem5-2M.tarmac",
    ] {
        let trace = std::fs::read(data(name)).unwrap();
        let id = TraceIdentity {
            len: trace.len() as u64,
            mtime: 0,
        };
        let k = IndexOptions::default().checkpoint_bytes;
        let streamed = build(&trace, false, k).to_bytes(id);
        let sliced = Index::build_from_slice(&trace, IndexOptions::default(), |_| {}).to_bytes(id);
        assert_eq!(streamed, sliced, "{}", name);
    }
}

/// A trace whose time goes back (one run at even times, then another at
/// odd ones from the start): nodes are grouped and ordered by the clamped
/// time, as the reference indexer does, but each node's own time is the
/// one its line gives, and a time is found where the trace wrote it, the
/// first time it did.
#[test]
fn times_that_go_back_are_kept_and_found_where_written() {
    let one = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let mut trace = retimed(&one, |n| 2 * n);
    let first_half_lines = one.iter().filter(|&&b| b == b'\n').count() as u64;
    trace.extend_from_slice(&retimed(&one, |n| 2 * n + 1));
    let t = truth(&trace);
    let index = build(&trace, false, 16 << 10);
    let mut src = SliceSource(&trace);
    let clamp = t
        .nodes
        .iter()
        .take_while(|(n, _)| n.at.line <= first_half_lines)
        .map(|(n, _)| n.at.time)
        .max()
        .unwrap();
    let second: Vec<&Node> = t
        .nodes
        .iter()
        .map(|(n, _)| n)
        .filter(|n| n.at.line > first_half_lines)
        .collect();
    assert!(second.len() > 1000);
    for n in second.iter().step_by(second.len() / 50) {
        assert_eq!(n.own_time % 2, 1, "line {}", n.at.line);
        assert!(n.at.time >= clamp, "clamped to the first run's end");
        let found = index.node_at_time(&mut src, n.own_time).unwrap();
        assert!(
            same(&found, n),
            "time {} found at line {}",
            n.own_time,
            found.at.line
        );
        let by_line = index.node_at_line(&mut src, n.at.line).unwrap();
        assert_eq!(by_line.own_time, n.own_time);
    }
    // An even time is in the first run; a time no line has goes where the
    // clamped order puts it.
    let even = index.node_at_time(&mut src, 2000).unwrap();
    assert!(even.at.line <= first_half_lines && even.own_time == 2000);
    let none = index.node_at_time(&mut src, u64::MAX).unwrap();
    assert_eq!(none.at.node, index.summary().nodes - 1);
    // Saved and loaded, the same answers.
    let id = TraceIdentity {
        len: trace.len() as u64,
        mtime: 1,
    };
    let (back, _) = Index::from_bytes(&index.to_bytes(id)).unwrap();
    let n = second[second.len() / 3];
    assert!(same(&back.node_at_time(&mut src, n.own_time).unwrap(), n));
}

/// An index file of format 10 lacks the intervals' own times: it loads
/// (times then found by the clamped order alone) unless it lists an
/// unparsed line, whose node that format grouped otherwise.
#[test]
fn an_index_file_without_own_times_loads_unless_it_lists_unparsed_lines() {
    let (trace, index, id) = saved_quicksort();
    let v10 = index.to_bytes_format_10(id);
    assert_eq!(v10[8], 10);
    let (old, _) = Index::from_bytes(&v10).expect("a format 10 file loads");
    assert!(old.to_bytes_format_10(id) == v10);
    let mut src = SliceSource(&trace);
    let n = index.node(&mut src, 5000).unwrap();
    assert!(same(&old.node_at_time(&mut src, n.own_time).unwrap(), &n));

    let mut garbled = trace.clone();
    let at = garbled.iter().position(|&b| b == b'\n').unwrap() + 1;
    garbled.splice(at..at, b"999 clk not a line\n".iter().copied());
    let index = build(&garbled, false, 16 << 10);
    assert!(Index::from_bytes(&index.to_bytes(id)).is_ok());
    let v10 = index.to_bytes_format_10(id);
    let err = Index::from_bytes(&v10).err().expect("refused").to_string();
    assert!(err.contains("unparsed"), "{err}");
}
