//! Watchpoints (`Index::next_access`, `prev_access`, `accesses`) against a
//! brute-force oracle built from the parsed records alone: the engine is
//! used only for where nodes start, and every memory and register line is
//! matched against the watched range by the test itself, so a read the
//! index forgot, or a candidate interval it skipped, shows as a difference.

use std::collections::{BTreeMap, HashMap};

use tarmac_lens_core::{
    operands, register_location, AccessKind, Effect, Engine, EngineOptions, ISet, Index,
    IndexOptions, Instruction, LineReader, MemDirection, Node, Observer, ParseOptions, Parser,
    RecordKind, RegClass, RegId, SliceSource, Watched,
};

use crate::common::{data, Rng};

/// Node boundaries only.
struct Nodes(Vec<Node>);
impl Observer for Nodes {
    fn node(&mut self, n: &Node, _: &Engine) {
        self.0.push(*n);
    }
}

/// One access the trace text shows: (node, write, first byte, bytes).
#[derive(Clone, Copy, Debug)]
struct Seen {
    node: u64,
    write: bool,
    addr: u64,
    len: u64,
}

/// Register accesses: (node, register file offset, bytes).
type RegSeen = (u64, usize, usize);

struct Oracle {
    nodes: Vec<Node>,
    mem: Vec<Seen>,
    /// Written, as the trace's register lines say.
    regs: Vec<RegSeen>,
    /// Read, as the executed instructions' encodings decode.
    reg_reads: Vec<RegSeen>,
}

fn oracle(trace: &[u8], aarch64: bool) -> Oracle {
    let mut nodes = Nodes(Vec::new());
    let mut engine = Engine::new(EngineOptions::default());
    let mut parser = Parser::for_sample(ParseOptions::default(), trace);
    let mut r = LineReader::new(SliceSource(trace));
    let mut next = 1;
    let mut lines = Vec::new();
    while let Some(l) = r.next_line().unwrap() {
        let rec = parser.parse_line(l.text);
        engine.feed(&l, &rec, &mut nodes);
        next = l.number + 1;
        lines.push((l.number, l.offset, l.text.len()));
    }
    engine.finish(trace.len() as u64, next, &mut nodes);
    let nodes = nodes.0;
    let node_of = |line: u64| {
        let i = nodes.partition_point(|n| n.at.line <= line);
        nodes[i.saturating_sub(1)].at.node
    };
    // Parse again, on its own, for the accesses.
    let mut parser = Parser::for_sample(ParseOptions::default(), trace);
    let (mut mem, mut regs, mut reg_reads) = (Vec::new(), Vec::new(), Vec::new());
    // For semihosting calls: r0/r1 (x0/x1) and the memory values seen.
    let mut args = [None::<u64>; 2];
    let mut values: HashMap<u64, u8> = HashMap::new();
    for (number, offset, len) in lines {
        let text = &trace[offset as usize..offset as usize + len];
        let rec = parser.parse_line(text);
        let node = node_of(number);
        match &rec.kind {
            RecordKind::Instruction(i) if i.effect == Effect::Executed => {
                let width = (i.width / 8).max(2);
                if let Ok(ops) = operands(i.iset, i.encoding as u32, width) {
                    for &r in ops.reads() {
                        let (off, size) = register_location(r, i.iset.is_aarch64());
                        reg_reads.push((node, off, size));
                    }
                }
                if let Some((addr, len)) = semihosting_write(i, args, &values) {
                    mem.push(Seen {
                        node,
                        write: true,
                        addr,
                        len,
                    });
                }
            }
            RecordKind::Memory(m) => {
                for (i, &b) in m.bytes.iter().enumerate() {
                    if m.known.get(i).is_some_and(|&k| k != 0) {
                        values.insert(m.addr + i as u64, b);
                    }
                }
                let first = m.accessed.iter().position(|&a| a != 0);
                let last = m.accessed.iter().rposition(|&a| a != 0);
                if let (Some(f), Some(l)) = (first, last) {
                    let addr = m.addr + f as u64;
                    let len = (l - f + 1) as u64;
                    if m.direction != MemDirection::Write {
                        mem.push(Seen {
                            node,
                            write: false,
                            addr,
                            len,
                        });
                    }
                    if m.direction != MemDirection::Read {
                        mem.push(Seen {
                            node,
                            write: true,
                            addr,
                            len,
                        });
                    }
                }
            }
            RecordKind::Register(w) => {
                if let Some(reg) = w.reg {
                    let arg = (0..2).find(|&k| {
                        [RegClass::R, RegClass::X, RegClass::W]
                            .iter()
                            .any(|&c| reg == RegId::new(c, k))
                    });
                    if let Some(k) = arg.filter(|_| w.known.iter().all(|&k| k != 0)) {
                        let mut v = [0u8; 8];
                        let n = w.bytes.len().min(8);
                        v[..n].copy_from_slice(&w.bytes[..n]);
                        args[usize::from(k)] = Some(u64::from_le_bytes(v));
                    }
                    if w.known.iter().any(|&k| k != 0) {
                        let (off, _) = register_location(reg, aarch64);
                        regs.push((node, off, w.bytes.len()));
                    }
                }
            }
            _ => {}
        }
    }
    Oracle {
        nodes,
        mem,
        regs,
        reg_reads,
    }
}

/// The memory a semihosting call writes without the trace showing it
/// (the Arm semihosting specification: SYS_READ, SYS_TMPNAM, SYS_GET_CMDLINE,
/// SYS_HEAPINFO, SYS_ELAPSED), from its operation in r0 and parameter
/// block at r1.
fn semihosting_write(
    i: &Instruction<'_>,
    [op, block]: [Option<u64>; 2],
    values: &HashMap<u64, u8>,
) -> Option<(u64, u64)> {
    let e = i.encoding;
    let call = match i.iset {
        ISet::Thumb => e == 0xbeab || e == 0xdfab || e == 0xbabc,
        ISet::Arm => e & 0x0fff_ffff == 0x0f12_3456 || e & 0x0fff_ffff == 0x010f_0070,
        ISet::A64 | ISet::C64 => e == 0xd45e_0000,
        ISet::ThumbEE => false,
    };
    if !call {
        return None;
    }
    let w = if i.iset.is_aarch64() { 8 } else { 4 };
    let word = |a: u64| -> Option<u64> {
        let mut v = 0u64;
        for k in (0..w).rev() {
            v = v << 8 | u64::from(*values.get(&(a + k))?);
        }
        Some(v)
    };
    let b = block?;
    let (start, len) = match op? {
        0x06 => (word(b + w)?, word(b + 2 * w)?),
        0x0d => (word(b)?, word(b + 2 * w)?),
        0x15 => (word(b)?, word(b + w)?),
        0x16 => (word(b)?, 4 * w),
        0x30 => (b, 2 * w),
        _ => return None,
    };
    (len > 0).then_some((start, len))
}

impl Oracle {
    /// Nodes that access `[addr, addr+len)` as `kind`, with (read, write).
    fn mem_hits(&self, addr: u64, len: u64, kind: AccessKind) -> BTreeMap<u64, (bool, bool)> {
        let mut out = BTreeMap::new();
        for s in &self.mem {
            let wanted = match kind {
                AccessKind::Read => !s.write,
                AccessKind::Write => s.write,
                AccessKind::Any => true,
            };
            if wanted && s.addr < addr + len.max(1) && addr < s.addr + s.len {
                let e = out.entry(s.node).or_insert((false, false));
                e.0 |= !s.write;
                e.1 |= s.write;
            }
        }
        out
    }

    fn reg_hits(&self, off: usize, size: usize, kind: AccessKind) -> Vec<u64> {
        let touches = |&&(_, o, l): &&RegSeen| o < off + size && off < o + l;
        let mut out: Vec<u64> = Vec::new();
        if kind != AccessKind::Read {
            out.extend(self.regs.iter().filter(touches).map(|&(n, _, _)| n));
        }
        if kind != AccessKind::Write {
            out.extend(self.reg_reads.iter().filter(touches).map(|&(n, _, _)| n));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn index(trace: &[u8]) -> Index {
    let opts = IndexOptions {
        checkpoint_bytes: 16 << 10,
        ..IndexOptions::default()
    };
    Index::build(&mut SliceSource(trace), opts, |_| {}).unwrap()
}

const TRACES: [&str; 5] = [
    "tracegen/quicksort-aarch64-O2-es-2M.tarmac",
    "tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac",
    "tracegen/quicksort-aarch64-O2-gem5-2M.tarmac",
    "ttu/samples/calculator-aarch32-fastmodel.tarmac",
    "tracegen/lines/hash-arm-O2-fastmodel.tarmac",
];

#[test]
fn memory_watchpoints_agree_with_the_trace_text() {
    for name in TRACES {
        let trace = std::fs::read(data(name)).unwrap();
        let o = oracle(&trace, name.contains("aarch64"));
        let idx = index(&trace);
        let mut src = SliceSource(&trace);
        let n = o.nodes.len() as u64;
        assert_eq!(idx.summary().nodes, n, "{name}");
        assert!(o.mem.iter().any(|s| !s.write), "{name}: no reads to test");
        let mut rng = Rng(0x5eed ^ trace.len() as u64);
        let mut checked = 0;
        for _ in 0..12 {
            let s = o.mem[(rng.next() % o.mem.len() as u64) as usize];
            let ranges = [
                (s.addr, 1),
                (s.addr & !3, 4),
                (s.addr & !63, 0x40),
                (s.addr & !0xfff, 0x1000),
                (0x7654_3210_0000, 16),
            ];
            for (addr, len) in ranges {
                let what = Watched::Mem { addr, len };
                for kind in [AccessKind::Read, AccessKind::Write, AccessKind::Any] {
                    let hits = o.mem_hits(addr, len, kind);
                    for q in [0, n - 1, rng.next() % n, s.node, rng.next() % n] {
                        let next = hits.range(q + 1..).next().map(|(&k, _)| k);
                        let prev = hits.range(..q).next_back().map(|(&k, _)| k);
                        let got = idx.next_access(&mut src, q, what, kind).unwrap();
                        let ctx = format!("{name}: {kind:?} [{addr:#x}:{len}] after node {q}");
                        assert_eq!(got.as_ref().map(|h| h.node.at.node), next, "{ctx}");
                        if let Some(h) = got {
                            assert_eq!((h.read, h.write), hits[&h.node.at.node], "{ctx}");
                            assert!(!h.mem.is_empty(), "{ctx}");
                            assert_eq!(h.node, o.nodes[h.node.at.node as usize], "{ctx}");
                        }
                        let got = idx.prev_access(&mut src, q, what, kind).unwrap();
                        let ctx = format!("{name}: {kind:?} [{addr:#x}:{len}] before node {q}");
                        assert_eq!(got.map(|h| h.node.at.node), prev, "{ctx}");
                        checked += 1;
                    }
                    // The list over a middle stretch, in order, flags and all.
                    let (a, b) = (n / 4, n / 2);
                    let mut list = Vec::new();
                    let mut last_progress = 0;
                    idx.accesses(
                        &mut src,
                        what,
                        kind,
                        a..=b,
                        &mut |h| {
                            list.push((h.node.at.node, (h.read, h.write)));
                            true
                        },
                        &mut |p| {
                            assert!(p >= last_progress);
                            last_progress = p;
                            true
                        },
                    )
                    .unwrap();
                    let want: Vec<_> = hits.range(a..=b).map(|(&k, &v)| (k, v)).collect();
                    assert_eq!(list, want, "{name}: {kind:?} [{addr:#x}:{len}] list");
                    assert_eq!(last_progress, b - a + 1, "{name}");
                }
            }
        }
        assert!(checked > 500, "{name}");
    }
}

#[test]
fn register_watchpoints_agree_with_the_trace_text() {
    for name in TRACES {
        let trace = std::fs::read(data(name)).unwrap();
        let aarch64 = name.contains("aarch64");
        let o = oracle(&trace, aarch64);
        let idx = index(&trace);
        let mut src = SliceSource(&trace);
        let n = o.nodes.len() as u64;
        let regs: Vec<RegId> = if aarch64 {
            let mut r: Vec<_> = (0..31).map(|i| RegId::new(RegClass::X, i)).collect();
            r.push(RegId::new(RegClass::Xsp, 0));
            r
        } else {
            (0..15).map(|i| RegId::new(RegClass::R, i)).collect()
        };
        let mut rng = Rng(0xfeed ^ trace.len() as u64);
        let mut reads_seen = 0;
        for reg in regs {
            let (off, size) = register_location(reg, aarch64);
            let what = Watched::Reg(reg);
            for kind in [AccessKind::Write, AccessKind::Read, AccessKind::Any] {
                let hits = o.reg_hits(off, size, kind);
                if kind == AccessKind::Read {
                    reads_seen += hits.len();
                }
                for q in [0, n - 1, rng.next() % n, rng.next() % n] {
                    let next = hits.iter().find(|&&h| h > q).copied();
                    let prev = hits.iter().rev().find(|&&h| h < q).copied();
                    let got = idx.next_access(&mut src, q, what, kind).unwrap();
                    let ctx = format!("{name}: {reg:?} {kind:?} after {q}");
                    assert_eq!(got.as_ref().map(|h| h.node.at.node), next, "{ctx}");
                    if let Some(h) = got {
                        let (bytes, known) = h.reg.unwrap();
                        assert_eq!((bytes.len(), known.len()), (size, size), "{ctx}");
                        assert!(h.read || h.write, "{ctx}");
                        assert!(kind != AccessKind::Read || h.read, "{ctx}");
                    }
                    let got = idx.prev_access(&mut src, q, what, kind).unwrap();
                    assert_eq!(
                        got.map(|h| h.node.at.node),
                        prev,
                        "{name}: {reg:?} {kind:?} before {q}"
                    );
                }
            }
        }
        assert!(reads_seen > 1000, "{name}: registers read {reads_seen}");
    }
}

/// The index file keeps the reads: a loaded index answers as the built one.
#[test]
fn read_watchpoints_survive_the_index_file() {
    let trace = std::fs::read(data(TRACES[0])).unwrap();
    let built = index(&trace);
    let id = tarmac_lens_core::TraceIdentity { len: 0, mtime: 0 };
    let (loaded, _) = Index::from_bytes(&built.to_bytes(id)).unwrap();
    let o = oracle(&trace, true);
    let mut src = SliceSource(&trace);
    let reads: Vec<_> = o.mem.iter().filter(|s| !s.write).step_by(97).collect();
    for s in reads {
        let what = Watched::Mem {
            addr: s.addr,
            len: s.len,
        };
        let a = built
            .next_access(&mut src, 0, what, AccessKind::Read)
            .unwrap();
        let b = loaded
            .next_access(&mut src, 0, what, AccessKind::Read)
            .unwrap();
        assert_eq!(a, b);
    }
    for r in ["x0", "x19", "sp", "x30"] {
        let what = Watched::Reg(built.register_named(r).unwrap());
        for node in [0, built.nodes() / 2] {
            let a = built.next_access(&mut src, node, what, AccessKind::Read);
            let b = loaded.next_access(&mut src, node, what, AccessKind::Read);
            assert_eq!(a.unwrap(), b.unwrap(), "{r} read after {node}");
        }
    }
    // The summaries are in the file: it reads back to the same bytes.
    let bytes = built.to_bytes(id);
    assert_eq!(loaded.to_bytes(id), bytes);
}
