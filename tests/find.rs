//! Value conditions (`Index::find_condition`) against a brute-force
//! oracle: one sequential pass of the engine over the whole trace that
//! evaluates every condition after every node, with its own model of
//! memory (writes, unknowns, and values reads revealed, back-dated to when
//! the byte last changed, as the index keeps them).

use std::collections::{BTreeSet, HashMap};

use tarmac_lens_core::{
    parse_expr, register_location, Condition, Engine, EngineOptions, ExprContext, Fill, Index,
    IndexOptions, LineReader, Node, Observer, ParseOptions, Parser, RegFile, RegRef, SliceSource,
    TraceSource, Values, IFLAGS,
};

use crate::common::{data, read};

/// Registers only: symbols are not needed.
struct Names;
impl ExprContext for Names {
    fn register(&self, _: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, _: &str) -> Option<u64> {
        None
    }
}

/// Byte state of the oracle's memory: known value, or unknown since a
/// node (`None`: since the trace started).
type Byte = Result<u8, Option<u64>>;

struct Pass<'a> {
    conds: &'a [Condition],
    /// Values reads revealed: (unknown since, address) -> value.
    fills: HashMap<(Option<u64>, u64), u8>,
    mem: HashMap<u64, Byte>,
    aarch64_hint: bool,
    /// Per node, per condition: whether it holds.
    truth: Vec<Vec<bool>>,
    nodes: Vec<Node>,
    /// First pass: what the trace writes (for making conditions).
    written_addrs: Vec<u64>,
    aarch64_seen: bool,
    pcs: Vec<u64>,
    reg_samples: Vec<RegFile>,
}

struct State<'a> {
    regs: &'a RegFile,
    pass: &'a Pass<'a>,
    pc: Option<u64>,
}

impl Values for State<'_> {
    fn register(&self, r: &RegRef) -> Option<u64> {
        let a64 = self.aarch64();
        match r.reg(a64) {
            None if r.is_pc() => self.pc,
            None => None,
            Some(reg) => {
                let (o, s) = register_location(reg, a64);
                if s > 8 {
                    None
                } else {
                    self.regs.value(o, s)
                }
            }
        }
    }
    fn memory(&self, addr: u64, len: u64) -> Option<u64> {
        let mut v = 0;
        for i in (0..len).rev() {
            let a = addr.wrapping_add(i);
            let b = match self.pass.mem.get(&a).copied().unwrap_or(Err(None)) {
                Ok(b) => b,
                Err(since) => *self.pass.fills.get(&(since, a))?,
            };
            v = (v << 8) | u64::from(b);
        }
        Some(v)
    }
    fn aarch64(&self) -> bool {
        if self.regs.known[IFLAGS] != 0 {
            self.regs.value(IFLAGS, 4).unwrap() & 1 != 0
        } else {
            self.pass.aarch64_hint
        }
    }
}

impl Observer for Pass<'_> {
    fn node(&mut self, n: &Node, e: &Engine) {
        let pc = (n.at.pc != tarmac_lens_core::INVALID_PC).then_some(n.at.pc & !1);
        if let Some(pc) = pc {
            if n.at.node.is_multiple_of(37) {
                self.pcs.push(pc);
            }
        }
        if n.at.node.is_multiple_of(97) {
            self.reg_samples.push(e.regs().clone());
        }
        let s = State {
            regs: e.regs(),
            pass: self,
            pc,
        };
        let row = self.conds.iter().map(|c| c.holds(&s)).collect();
        self.truth.push(row);
        self.nodes.push(*n);
    }
    fn reg_write(&mut self, _: u64, offset: usize, bytes: &[u8], _: &[u8]) {
        if offset == IFLAGS && bytes[0] & 1 != 0 {
            self.aarch64_seen = true;
        }
    }
    fn mem_write(&mut self, _: u64, addr: u64, bytes: &[u8]) {
        if self.written_addrs.len() < 100_000 {
            self.written_addrs.push(addr);
        }
        for (i, &b) in bytes.iter().enumerate() {
            self.mem.insert(addr.wrapping_add(i as u64), Ok(b));
        }
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        for i in 0..len.min(1 << 20) {
            self.mem.insert(addr.wrapping_add(i), Err(Some(node)));
        }
    }
    fn mem_fill(&mut self, _: u64, fill: Fill) {
        self.fills.insert((fill.since, fill.addr), fill.value);
    }
}

fn run<'a>(
    trace: &[u8],
    conds: &'a [Condition],
    fills: HashMap<(Option<u64>, u64), u8>,
    hint: bool,
) -> Pass<'a> {
    let mut parser = Parser::for_sample(ParseOptions::default(), trace);
    let mut engine = Engine::new(EngineOptions::default());
    let mut p = Pass {
        conds,
        fills,
        mem: HashMap::new(),
        aarch64_hint: hint,
        truth: Vec::new(),
        nodes: Vec::new(),
        written_addrs: Vec::new(),
        aarch64_seen: false,
        pcs: Vec::new(),
        reg_samples: Vec::new(),
    };
    let mut r = LineReader::new(SliceSource(trace));
    let mut next = 1;
    while let Some(l) = r.next_line().unwrap() {
        let rec = parser.parse_line(l.text);
        engine.feed(&l, &rec, &mut p);
        next = l.number + 1;
    }
    engine.finish(trace.len() as u64, next, &mut p);
    p
}

/// Conditions over what the trace holds: for every register a value it
/// takes, written memory, the stack, `pc`, combinations.
fn conditions(first: &Pass, full: bool) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if first.aarch64_seen {
        names.extend((0..31).map(|i| format!("x{i}")));
        names.extend(["w3", "sp", "lr"].map(String::from));
    } else {
        names.extend((0..15).map(|i| format!("r{i}")));
        names.extend(["sp", "lr"].map(String::from));
    }
    names.push("cpsr".into());
    if !full {
        names.retain(|n| ["x0", "x1", "x19", "r0", "r3", "sp", "lr", "cpsr"].contains(&n.as_str()));
    }
    let mut out = Vec::new();
    let mut seed = 12345u64;
    let mut rand = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n.max(1)
    };
    for name in &names {
        // A value it takes (at a sampled node where it is known).
        let c = Condition::parse(name, &Names).unwrap();
        let vals: Vec<u64> = first
            .reg_samples
            .iter()
            .filter_map(|r| {
                let s = State {
                    regs: r,
                    pass: first,
                    pc: None,
                };
                c.eval(&s)
            })
            .collect();
        let v = if vals.is_empty() {
            0
        } else {
            vals[rand(vals.len())]
        };
        out.push(format!("{name} == {v:#x}"));
        out.push(format!("{name} != 0"));
    }
    let addrs: BTreeSet<u64> = first.written_addrs.iter().copied().collect();
    let addrs: Vec<u64> = addrs.into_iter().collect();
    for _ in 0..if full { 8 } else { 3 } {
        let a = addrs[rand(addrs.len())];
        out.push(format!("[{a:#x}:4] == {:#x}", rand(4)));
        out.push(format!("[{a:#x}:1] != 0"));
        out.push(format!("[{:#x}:8] > 0x10", a & !7));
    }
    let pc = first.pcs[rand(first.pcs.len())];
    let (r0, r1) = if first.aarch64_seen {
        ("x0", "x1")
    } else {
        ("r0", "r1")
    };
    out.extend([
        "[sp+8:8] > 0".to_string(),
        "[sp]".to_string(),
        "[sp + 4:4] < [sp:4]".to_string(),
        format!("pc == {pc:#x}"),
        format!("pc == {pc:#x} && {r0} != 0"),
        format!("{r0} == 0 && {r1} != 0"),
        format!("{r0} < 0x10 || [sp:2] == 0"),
        format!("!({r1} > 0x100)"),
        "cpsr & 0x20000000".to_string(),
        format!("{r0} - 1 >= {r1}"),
        // A narrower view of a register; an address read from memory.
        format!("{} < 0x10", if first.aarch64_seen { "w1" } else { "r1" }),
        "[[sp:4]:1] != 0".to_string(),
    ]);
    out
}

/// The oracle's answer: nodes where condition `c` becomes true.
fn oracle(p: &Pass, c: usize, from: Option<u64>, forward: bool, max: usize) -> Vec<u64> {
    let becomes = |n: usize| p.truth[n][c] && (n == 0 || !p.truth[n - 1][c]);
    let nodes = p.truth.len() as u64;
    let mut out: Vec<u64> = if forward {
        let start = from.map_or(0, |f| f + 1);
        (start..nodes).filter(|&n| becomes(n as usize)).collect()
    } else {
        let end = from.unwrap_or(nodes);
        (0..end).rev().filter(|&n| becomes(n as usize)).collect()
    };
    out.truncate(max);
    out
}

fn check(rel: &str, checkpoint_bytes: u64, full: bool) {
    let trace: &'static [u8] = Box::leak(read(&data(rel)).into_boxed_slice());
    let first = run(trace, &[], HashMap::new(), false);
    let texts = conditions(&first, full);
    let conds: Vec<Condition> = texts
        .iter()
        .map(|t| Condition::parse(t, &Names).unwrap_or_else(|e| panic!("{t}: {e}")))
        .collect();
    let pass = run(trace, &conds, first.fills.clone(), first.aarch64_seen);
    let opts = IndexOptions {
        parse: ParseOptions::default(),
        checkpoint_bytes,
    };
    let index = Index::build(&mut SliceSource(trace), opts, |_| {}).unwrap();
    assert_eq!(index.nodes(), pass.nodes.len() as u64, "{rel}");
    let nodes = index.nodes();
    let mut src = SliceSource(trace);
    let starts = [
        None,
        Some(0),
        Some(nodes / 3),
        Some(nodes / 2 + 7),
        Some(nodes - 1),
    ];
    let mut any_hits = 0;
    for (c, cond) in conds.iter().enumerate() {
        for &from in &starts {
            for forward in [true, false] {
                for max in [1, usize::MAX] {
                    let got: Vec<u64> = index
                        .find_condition(&mut src, cond, from, forward, max)
                        .unwrap()
                        .iter()
                        .map(|h| h.node.at.node)
                        .collect();
                    let want = oracle(&pass, c, from, forward, max);
                    assert_eq!(
                        got, want,
                        "{rel}: `{}` from {from:?} forward {forward} max {max}",
                        cond.text
                    );
                    any_hits += usize::from(!want.is_empty());
                    // On three threads, in batches: the same (from two
                    // starts: the threads change how intervals are handed
                    // out, not what a start means).
                    if max != usize::MAX || !(from.is_none() || from == Some(nodes / 3)) {
                        continue;
                    }
                    let mut extra: Vec<Box<dyn TraceSource + Send>> = (0..3)
                        .map(|_| Box::new(SliceSource(trace)) as Box<dyn TraceSource + Send>)
                        .collect();
                    let parallel: Vec<u64> = index
                        .find_condition_parallel(&mut src, &mut extra, cond, from, forward, max)
                        .unwrap()
                        .iter()
                        .map(|h| h.node.at.node)
                        .collect();
                    assert_eq!(parallel, want, "{rel}: `{}` on threads", cond.text);
                }
            }
        }
    }
    assert!(
        any_hits > conds.len(),
        "{rel}: too few conditions hold anywhere"
    );
    // The hits' nodes are the trace's own (line, time, pc).
    let all = index
        .find_condition(&mut src, &conds[0], None, true, usize::MAX)
        .unwrap();
    for h in all {
        assert_eq!(h.node, pass.nodes[h.node.at.node as usize]);
    }
}

#[test]
fn quicksort_aarch64_every_register() {
    check("ttu/quicksort.tarmac", 2048, true);
}

#[test]
fn calculator_aarch32_every_register() {
    check(
        "ttu/samples/calculator-aarch32-fastmodel.tarmac",
        8192,
        true,
    );
}

#[test]
fn thumb_tracegen() {
    check(
        "tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac",
        16384,
        false,
    );
}

/// Every address expression of the reference tools' test input that
/// evaluates is a condition with the same value.
#[test]
fn address_expressions_are_conditions() {
    struct Ctx;
    impl ExprContext for Ctx {
        fn register(&self, _: &str) -> Option<u64> {
            Some(12345)
        }
        fn symbol(&self, name: &str) -> Option<u64> {
            (name != "nonexistent").then_some(54321)
        }
    }
    struct V;
    impl Values for V {
        fn register(&self, _: &RegRef) -> Option<u64> {
            Some(12345)
        }
        fn memory(&self, _: u64, _: u64) -> Option<u64> {
            None
        }
        fn aarch64(&self) -> bool {
            true
        }
    }
    let text = String::from_utf8(read(&data("ttu/exprtest.txt"))).unwrap();
    let mut compared = 0;
    let extra = [
        "1 + 2 * 3 << 1 - -4 >> 1",
        "x0*4+8",
        "(x1 - 3) * -2",
        "+-+5",
        "010 + 0X1f",
    ];
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .chain(extra)
    {
        let Ok(e) = parse_expr(line, &Ctx) else {
            continue;
        };
        // Only names that are registers here (the test context says every
        // name is one; a condition knows the real register names).
        let Ok(c) = Condition::parse(line, &Ctx) else {
            assert!(
                line.chars()
                    .any(|ch| ch.is_ascii_alphabetic() && ch != 'x' && ch != 'X'),
                "{line}"
            );
            continue;
        };
        assert_eq!(c.eval(&V), e.eval(&Ctx).ok(), "{line}");
        compared += 1;
    }
    assert!(compared >= 15, "{compared}");
}

/// `find_condition_until` stopped at every chance and asked again from
/// where it stopped finds the same hits as one unbounded search, both
/// ways, from several starts: the pieces neither miss nor repeat one.
#[test]
fn a_search_in_pieces_finds_what_one_search_finds() {
    let trace: &'static [u8] = Box::leak(read(&data("ttu/quicksort.tarmac")).into_boxed_slice());
    let first = run(trace, &[], HashMap::new(), false);
    let texts = conditions(&first, false);
    let opts = IndexOptions {
        parse: ParseOptions::default(),
        checkpoint_bytes: 2048,
    };
    let index = Index::build(&mut SliceSource(trace), opts, |_| {}).unwrap();
    let nodes = index.nodes();
    let mut src = SliceSource(trace);
    let mut pieces = 0;
    for text in texts.iter().step_by(2) {
        let cond = Condition::parse(text, &Names).unwrap();
        for from in [None, Some(nodes / 3), Some(nodes - 1)] {
            for forward in [true, false] {
                let want: Vec<u64> = index
                    .find_condition(&mut src, &cond, from, forward, usize::MAX)
                    .unwrap()
                    .iter()
                    .map(|h| h.node.at.node)
                    .collect();
                let mut got = Vec::new();
                let mut at = from;
                loop {
                    let mut told = Vec::new();
                    let page = index
                        .find_condition_until(&mut src, &cond, at, forward, usize::MAX, &mut |n| {
                            told.push(n);
                            false
                        })
                        .unwrap();
                    got.extend(page.hits.iter().map(|h| h.node.at.node));
                    let Some(resume) = page.resume else {
                        break;
                    };
                    pieces += 1;
                    // It moved on, and says where it got to.
                    assert!(at.is_none_or(|a| if forward { resume > a } else { resume < a }));
                    assert_eq!(
                        told.last().copied(),
                        Some(if forward { resume } else { resume - 1 })
                    );
                    at = Some(resume);
                }
                assert_eq!(got, want, "`{text}` from {from:?} forward {forward}");
                // One hit at a time, each from the last: the same.
                let mut one = Vec::new();
                let mut at = from;
                while let Some(h) = index
                    .find_condition(&mut src, &cond, at, forward, 1)
                    .unwrap()
                    .first()
                {
                    one.push(h.node.at.node);
                    at = Some(h.node.at.node);
                }
                assert_eq!(one, want, "`{text}` one at a time");
            }
        }
    }
    assert!(pieces > 50, "{pieces} pieces");
}
