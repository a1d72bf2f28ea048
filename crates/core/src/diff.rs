//! Semantic comparison of two traces of the same program: the first
//! instructions whose address, encoding, outcome, register results or memory
//! accesses differ.
//!
//! The traces may come from different tools (an RTL simulation against a
//! model), so nothing textual is compared: each trace goes through its own
//! parser and [`Engine`], and instruction `n` of one is compared with
//! instruction `n` of the other. Tools differ in what they report, not only
//! in how: one writes `cpsr` after every compare even when unchanged,
//! another only when it changes; one shows a 16-byte `LD` diagram where
//! another shows two `MR8` lines. So registers and memory are compared as
//! *state*: after each instruction, every register byte and memory byte that
//! either trace wrote since the previous instruction must hold the same value
//! in both (where both know it). Reads are compared byte by byte where both
//! traces report them. Timestamps are never compared, and neither is how a
//! tool labels a not-taken conditional instruction (Fast Models writes `IS`
//! for a conditional branch not taken, ES-style traces do not): what it did
//! shows in the next instruction's address and in registers and memory.

use crate::Result;
use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::engine::{Engine, EngineOptions, Node, Observer, INVALID_PC};
use crate::lines::LineReader;
use crate::parse::{Effect, MemDirection, ParseOptions, Parser, RecordKind};
use crate::report::run::UnparsedLines;
use crate::source::TraceSource;
use crate::state::memory::Memory;
use crate::state::regfile::{self, RegFile};

/// One instruction of one trace, as a divergence report shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based line of the instruction.
    pub line: u64,
    pub(crate) time: u64,
    /// Thumb bit set for Thumb.
    pub pc: u64,
    /// Encoding width in bits (16 or 32) and value; width 0 without one.
    pub width: u8,
    /// The encoding's value.
    pub encoding: u64,
    pub(crate) effect: Effect,
    pub(crate) disassembly: String,
}

/// One way two instructions differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Difference {
    /// The instructions' addresses differ.
    Pc,
    /// The encodings differ.
    Encoding,
    /// Register bytes at this offset of the register file (see
    /// [`regfile::location`]) after the instruction; `None` for unknown.
    Register {
        /// Register name.
        name: String,
        /// Trace `a`'s bytes, most significant first.
        a: Vec<Option<u8>>,
        /// Trace `b`'s bytes.
        b: Vec<Option<u8>>,
    },
    /// Memory after the instruction, from `addr`, for bytes either wrote.
    Memory {
        /// Address of `a[0]` and `b[0]`.
        addr: u64,
        /// Trace `a`'s bytes.
        a: Vec<Option<u8>>,
        /// Trace `b`'s bytes.
        b: Vec<Option<u8>>,
    },
    /// Bytes the instruction read, from `addr`.
    Read {
        /// Address of `a[0]` and `b[0]`.
        addr: u64,
        /// What trace `a`'s instruction read.
        a: Vec<u8>,
        /// What trace `b`'s instruction read.
        b: Vec<u8>,
    },
    /// One trace has no instruction `n`: it ended.
    Ended,
}

/// An instruction after which the two traces disagree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// 0-based instruction number (the same in both traces).
    pub instruction: u64,
    /// Trace `a`'s instruction (`None` if it has ended).
    pub a: Option<Step>,
    /// Trace `b`'s instruction (`None` if it has ended).
    pub b: Option<Step>,
    /// Every way the two differ.
    pub differences: Vec<Difference>,
}

/// The outcome of comparing two traces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffReport {
    /// Instructions compared (pairs; the longer trace's extra ones count once
    /// as the `Ended` divergence).
    pub compared: u64,
    /// The divergent instructions, in order.
    pub divergences: Vec<Divergence>,
    /// Whether the comparison stopped at the most divergences asked for,
    /// before the traces' ends.
    pub stopped_at_max: bool,
    /// Lines of trace `a` the parser did not understand.
    pub unparsed_a: UnparsedLines,
    /// Lines of trace `b` the parser did not understand.
    pub unparsed_b: UnparsedLines,
}

/// Differences known to be benign (a timer register, a status word a
/// model and an RTL simulation fill differently): not reported, so they
/// neither count as a divergence nor stop the comparison.
#[derive(Clone, Debug, Default)]
pub struct Ignore {
    /// Register-file byte ranges `(start, len)` for AArch64 traces, then
    /// for AArch32 ones: an alias's bytes depend on the state (`d1` is half
    /// of `q0` in AArch32, the low half of `q1` in AArch64).
    regs: [Vec<(usize, usize)>; 2],
    /// Memory ranges, start and end (exclusive).
    mem: Vec<(u64, u64)>,
}

impl Ignore {
    /// Ignores a register named as a trace writes it (`x3`, `W3`, `cpsr`,
    /// `d1`, `lr`, `sp`), in any case. An error names what is unknown.
    pub fn register(&mut self, name: &str) -> std::result::Result<(), String> {
        use crate::parse::{RegClass, RegId};
        let name = name.trim();
        // `sp` and `sp_el3`, `sp_svc` are not in the parser's table: the
        // value's width picks r13 or the AArch64 stack pointer there. Both
        // are meant here.
        let sp = name.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("sp_"));
        let regs = if name.eq_ignore_ascii_case("sp") || sp {
            vec![RegId::new(RegClass::Xsp, 0), RegId::new(RegClass::R, 13)]
        } else {
            match RegId::lookup(name.as_bytes()) {
                Some(r) => vec![r],
                None => {
                    return Err(format!(
                        "unknown register '{name}' (names as the trace writes them: x0, w0, r0, sp, lr, cpsr, q0, d0, s0, fpscr, ...)"
                    ))
                }
            }
        };
        for reg in regs {
            for (i, aarch64) in [(0, true), (1, false)] {
                self.regs[i].push(regfile::location(reg, aarch64));
            }
        }
        Ok(())
    }

    /// Ignores memory from `start`, `len` bytes (to the end of the address
    /// space if it would wrap).
    pub fn memory(&mut self, start: u64, len: u64) {
        self.mem.push((start, start.saturating_add(len)));
    }

    fn reg(&self, offset: usize, aarch64: bool) -> bool {
        self.regs[usize::from(!aarch64)]
            .iter()
            .any(|&(s, l)| (s..s + l).contains(&offset))
    }

    fn mem(&self, addr: u64) -> bool {
        self.mem.iter().any(|&(s, e)| (s..e).contains(&addr))
    }
}

/// What one instruction (with the nodes without one before it) did.
#[derive(Debug, Default)]
struct Digest {
    step: Option<Step>,
    /// Register-file offsets written, with the bytes and known flags.
    regs: Vec<(usize, u8, bool)>,
    /// Memory bytes written (`None`: made unknown).
    mem: Vec<(u64, Option<u8>)>,
    /// Memory bytes read, as the trace reported them.
    reads: BTreeMap<u64, u8>,
}

/// Collects what the engine reports, digest by digest.
#[derive(Default)]
struct Collector {
    open: Digest,
    done: VecDeque<Digest>,
    /// Instructions and reads parsed but not yet assigned to a node, by line.
    pending_steps: VecDeque<Step>,
    pending_reads: VecDeque<(u64, u64, u8)>,
}

/// Memory made unknown in one go beyond this (a semihosting call may make
/// all of memory unknown) is not compared byte by byte.
const MAX_UNKNOWN_SPAN: u64 = 4096;

impl Observer for Collector {
    fn node(&mut self, node: &Node, _engine: &Engine) {
        let end = node.at.line + node.lines;
        while self.pending_reads.front().is_some_and(|r| r.0 < end) {
            let (_, addr, byte) = self.pending_reads.pop_front().expect("checked");
            self.open.reads.insert(addr, byte);
        }
        let mut step = None;
        while self.pending_steps.front().is_some_and(|s| s.line < end) {
            step = self.pending_steps.pop_front();
        }
        if node.at.pc == INVALID_PC {
            // No instruction: its effects go with the next instruction's.
            return;
        }
        let mut digest = std::mem::take(&mut self.open);
        digest.step = step.map(|mut s| {
            s.pc = node.at.pc;
            s
        });
        if digest.step.is_some() {
            self.done.push_back(digest);
        }
    }

    fn reg_write(&mut self, _node: u64, offset: usize, bytes: &[u8], known: &[u8]) {
        for (i, (&b, &k)) in bytes.iter().zip(known).enumerate() {
            // The execution-state flags are the indexer's, not a register.
            if k != 0 && offset + i < regfile::IFLAGS {
                self.open.regs.push((offset + i, b, true));
            }
        }
    }

    fn mem_write(&mut self, _node: u64, addr: u64, bytes: &[u8]) {
        for (i, &b) in bytes.iter().enumerate() {
            self.open.mem.push((addr.wrapping_add(i as u64), Some(b)));
        }
    }

    fn mem_unknown(&mut self, _node: u64, addr: u64, len: u64) {
        for i in 0..len.min(MAX_UNKNOWN_SPAN) {
            self.open.mem.push((addr.wrapping_add(i), None));
        }
    }
}

/// One trace, read instruction by instruction.
struct Side<S: TraceSource> {
    reader: LineReader<S>,
    parser: Parser,
    engine: Engine,
    collector: Collector,
    total: u64,
    next_line: u64,
    /// Bytes read up to the end of the last line (progress).
    done: u64,
    finished: bool,
    unparsed: UnparsedLines,
    /// State after the instructions compared so far.
    regs: RegFile,
    mem: Memory,
    aarch64: bool,
}

impl<S: TraceSource> Side<S> {
    fn open(mut source: S, parse: ParseOptions) -> Result<Self> {
        let total = source.len();
        let sample = crate::source::read_sample(&mut source)?;
        Ok(Side {
            parser: Parser::for_sample(parse, &sample),
            engine: Engine::new(EngineOptions {
                big_endian: parse.big_endian,
                debug_calls: false,
                cpu: parse.cpu,
            }),
            reader: LineReader::new(source),
            collector: Collector::default(),
            total,
            next_line: 1,
            done: 0,
            finished: false,
            unparsed: UnparsedLines::default(),
            regs: RegFile::default(),
            mem: Memory::default(),
            aarch64: false,
        })
    }

    /// The next instruction's digest, `None` at the end of the trace.
    fn next(&mut self) -> Result<Option<Digest>> {
        loop {
            if let Some(d) = self.collector.done.pop_front() {
                self.apply(&d);
                return Ok(Some(d));
            }
            if self.finished {
                return Ok(None);
            }
            let Some(line) = self.reader.next_line()? else {
                // Where the lines end, not `total`: a stream's length is
                // known only now.
                let end = self.reader.position();
                self.engine.finish(end, self.next_line, &mut self.collector);
                self.finished = true;
                continue;
            };
            let rec = self.parser.parse_line(line.text);
            match &rec.kind {
                RecordKind::Instruction(ins) => {
                    self.collector.pending_steps.push_back(Step {
                        line: line.number,
                        time: rec.time,
                        pc: ins.pc,
                        width: ins.width,
                        encoding: ins.encoding,
                        effect: ins.effect,
                        disassembly: String::from_utf8_lossy(ins.disassembly.trim_ascii())
                            .into_owned(),
                    });
                }
                RecordKind::Memory(m) if m.direction == MemDirection::Read => {
                    for i in 0..m.bytes.len() {
                        if m.accessed[i] != 0 && m.known[i] != 0 {
                            let addr = m.addr.wrapping_add(i as u64);
                            self.collector
                                .pending_reads
                                .push_back((line.number, addr, m.bytes[i]));
                        }
                    }
                }
                RecordKind::Unparsed(u) => {
                    self.unparsed.note(line.number, u.reason);
                }
                _ => {}
            }
            self.engine.feed(&line, &rec, &mut self.collector);
            self.next_line = line.number + 1;
            self.done = (line.offset + line.len + 1).min(self.total);
        }
    }

    fn apply(&mut self, d: &Digest) {
        for &(offset, byte, _) in &d.regs {
            self.regs.write(offset, &[byte], &[1]);
        }
        for &(addr, byte) in &d.mem {
            match byte {
                Some(b) => self.mem.write_known(addr, b),
                None => self.mem.write_unknown(addr, 1, 0),
            }
        }
        self.aarch64 = self.engine.aarch64_used();
    }

    fn reg_byte(&self, offset: usize) -> Option<u8> {
        (self.regs.known[offset] != 0).then(|| self.regs.bytes[offset])
    }

    fn mem_byte(&self, addr: u64) -> Option<u8> {
        self.mem.get(addr)
    }
}

/// Compares two traces; stops after `max` divergences (at least one).
pub fn diff<A: TraceSource, B: TraceSource>(
    a: A,
    parse_a: ParseOptions,
    b: B,
    parse_b: ParseOptions,
    max: usize,
) -> Result<DiffReport> {
    diff_with_progress(a, parse_a, b, parse_b, max, |_, _| {})
}

/// Instructions compared between progress reports.
const PROGRESS_EVERY: u64 = 4096;

/// [`diff`], reporting bytes read of both traces together (and their total
/// size) every few thousand instructions and at the end, for a progress bar.
pub fn diff_with_progress<A: TraceSource, B: TraceSource>(
    a: A,
    parse_a: ParseOptions,
    b: B,
    parse_b: ParseOptions,
    max: usize,
    progress: impl FnMut(u64, u64),
) -> Result<DiffReport> {
    diff_ignoring(a, parse_a, b, parse_b, max, &Ignore::default(), progress)
}

/// [`diff_with_progress`], leaving out the differences `ignore` names.
pub fn diff_ignoring<A: TraceSource, B: TraceSource>(
    a: A,
    parse_a: ParseOptions,
    b: B,
    parse_b: ParseOptions,
    max: usize,
    ignore: &Ignore,
    mut progress: impl FnMut(u64, u64),
) -> Result<DiffReport> {
    let mut a = Side::open(a, parse_a)?;
    let mut b = Side::open(b, parse_b)?;
    let mut report = DiffReport::default();
    let max = max.max(1);
    let mut n = 0u64;
    let total = a.total.saturating_add(b.total);
    loop {
        if n.is_multiple_of(PROGRESS_EVERY) {
            progress(a.done + b.done, total);
        }
        let (da, db) = (a.next()?, b.next()?);
        if da.is_none() && db.is_none() {
            break;
        }
        let (da, db) = match (da, db) {
            (Some(da), Some(db)) => (da, db),
            (da, db) => {
                report.divergences.push(Divergence {
                    instruction: n,
                    a: da.and_then(|d| d.step),
                    b: db.and_then(|d| d.step),
                    differences: vec![Difference::Ended],
                });
                break;
            }
        };
        report.compared += 1;
        let differences = compare(&a, &da, &b, &db, ignore);
        if !differences.is_empty() {
            report.divergences.push(Divergence {
                instruction: n,
                a: da.step,
                b: db.step,
                differences,
            });
            if report.divergences.len() >= max {
                report.stopped_at_max = true;
                break;
            }
        }
        n += 1;
    }
    progress(a.done + b.done, total);
    report.unparsed_a = a.unparsed;
    report.unparsed_b = b.unparsed;
    Ok(report)
}

fn compare<A: TraceSource, B: TraceSource>(
    a: &Side<A>,
    da: &Digest,
    b: &Side<B>,
    db: &Digest,
    ignore: &Ignore,
) -> Vec<Difference> {
    let mut out = Vec::new();
    let (Some(sa), Some(sb)) = (&da.step, &db.step) else {
        return out;
    };
    if sa.pc != sb.pc {
        out.push(Difference::Pc);
    }
    if sa.width != 0 && sb.width != 0 && (sa.width, sa.encoding) != (sb.width, sb.encoding) {
        out.push(Difference::Encoding);
    }
    // Registers: every byte either wrote, in whole registers as named.
    let mut offsets: Vec<usize> = da.regs.iter().chain(&db.regs).map(|r| r.0).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let aarch64 = a.aarch64 || b.aarch64;
    offsets.retain(|&o| !ignore.reg(o, aarch64));
    let mut reported = Vec::new();
    for &o in &offsets {
        let (x, y) = (a.reg_byte(o), b.reg_byte(o));
        if x.is_some() && y.is_some() && x != y {
            let (start, len, name) = register_at(o, aarch64);
            if reported.contains(&start) {
                continue;
            }
            reported.push(start);
            out.push(Difference::Register {
                name,
                a: (start..start + len).rev().map(|i| a.reg_byte(i)).collect(),
                b: (start..start + len).rev().map(|i| b.reg_byte(i)).collect(),
            });
        }
    }
    // Memory: bytes either wrote, as runs of differing bytes.
    let mut addrs: Vec<u64> = da.mem.iter().chain(&db.mem).map(|m| m.0).collect();
    addrs.sort_unstable();
    addrs.dedup();
    addrs.retain(|&addr| !ignore.mem(addr));
    let differing: Vec<u64> = addrs
        .into_iter()
        .filter(|&addr| {
            let (x, y) = (a.mem_byte(addr), b.mem_byte(addr));
            x.is_some() && y.is_some() && x != y
        })
        .collect();
    for run in runs(&differing) {
        out.push(Difference::Memory {
            addr: run.0,
            a: (run.0..run.0 + run.1).map(|x| a.mem_byte(x)).collect(),
            b: (run.0..run.0 + run.1).map(|x| b.mem_byte(x)).collect(),
        });
    }
    // Reads both traces reported.
    let differing: Vec<u64> = da
        .reads
        .iter()
        .filter(|(addr, v)| !ignore.mem(**addr) && db.reads.get(addr).is_some_and(|w| w != *v))
        .map(|(&addr, _)| addr)
        .collect();
    for run in runs(&differing) {
        out.push(Difference::Read {
            addr: run.0,
            a: (run.0..run.0 + run.1).map(|x| da.reads[&x]).collect(),
            b: (run.0..run.0 + run.1).map(|x| db.reads[&x]).collect(),
        });
    }
    out
}

/// Consecutive addresses grouped as (start, length).
fn runs(addrs: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &a in addrs {
        match out.last_mut() {
            Some((s, l)) if s.wrapping_add(*l) == a => *l += 1,
            _ => out.push((a, 1)),
        }
    }
    out
}

/// The register holding a register-file byte: its first byte, size and
/// name (`x3`, `sp`, `q1`, `psr`).
fn register_at(offset: usize, aarch64: bool) -> (usize, usize, String) {
    use regfile::*;
    let core = if aarch64 { ("x", 8) } else { ("r", 4) };
    if offset < XSP {
        let i = offset / 8;
        return (8 * i, core.1, format!("{}{i}", core.0));
    }
    if offset < Z_BASE {
        return (XSP, core.1, "sp".into());
    }
    if offset < P_BASE {
        let i = (offset - Z_BASE) / Z_STRIDE;
        let start = Z_BASE + Z_STRIDE * i;
        return if offset - start < 16 {
            (start, 16, format!("q{i}"))
        } else {
            (start, Z_STRIDE, format!("z{i}"))
        };
    }
    if offset < PSR {
        let i = (offset - P_BASE) / P_STRIDE;
        return (P_BASE + P_STRIDE * i, P_STRIDE, format!("p{i}"));
    }
    let names = ["psr", "fpscr", "fpcr", "fpsr", "vpr"];
    let i = (offset - PSR) / 4;
    (PSR + 4 * i, 4, names.get(i).unwrap_or(&"?").to_string())
}

/// Bytes, most significant first, `??` for unknown ones.
pub fn hex(bytes: &[Option<u8>]) -> String {
    bytes
        .iter()
        .map(|b| b.map_or_else(|| "??".to_string(), |b| format!("{b:02x}")))
        .collect()
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} time {} pc 0x{:x}",
            self.line, self.time, self.pc
        )?;
        if self.width != 0 {
            let digits = usize::from(self.width / 4);
            write!(f, " {:0digits$x}", self.encoding)?;
        }
        match self.effect {
            Effect::Executed => {}
            Effect::CondFail => f.write_str(" (condition failed)")?,
            Effect::FetchFail => f.write_str(" (fetch failed)")?,
        }
        if !self.disassembly.is_empty() {
            write!(f, " {}", self.disassembly)?;
        }
        Ok(())
    }
}

/// The report as `tarmac-lens diff` prints it.
pub fn render(report: &DiffReport, name_a: &str, name_b: &str) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for d in &report.divergences {
        let _ = writeln!(out, "divergence at instruction {}:", d.instruction + 1);
        for (name, step) in [(name_a, &d.a), (name_b, &d.b)] {
            match step {
                Some(s) => {
                    let _ = writeln!(out, "  {name}: {s}");
                }
                None => {
                    let _ = writeln!(out, "  {name}: (trace ended)");
                }
            }
        }
        for diff in &d.differences {
            let _ = match diff {
                Difference::Pc => writeln!(out, "  pc differs"),
                Difference::Encoding => writeln!(out, "  encoding differs"),
                Difference::Register { name, a, b } => {
                    writeln!(out, "  {name}: {} vs {}", hex(a), hex(b))
                }
                Difference::Memory { addr, a, b } => writeln!(
                    out,
                    "  memory 0x{addr:x} (written): {} vs {}",
                    hex(a),
                    hex(b)
                ),
                Difference::Read { addr, a, b } => {
                    let some = |v: &Vec<u8>| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
                    writeln!(
                        out,
                        "  memory 0x{addr:x} (read): {} vs {}",
                        hex(&some(a)),
                        hex(&some(b))
                    )
                }
                Difference::Ended => writeln!(
                    out,
                    "  {} ends after {} instructions",
                    if d.a.is_none() { name_a } else { name_b },
                    d.instruction
                ),
            };
        }
    }
    if report.divergences.is_empty() {
        let _ = writeln!(out, "no divergence in {} instructions", report.compared);
    }
    out
}

/// The report as one JSON document (`tarmac-lens diff --json`; its schema
/// is in docs/cli.md). Addresses, encodings and values are hex text: a
/// 64-bit address does not fit a JSON number's exact range.
pub fn render_json(report: &DiffReport, name_a: &str, name_b: &str) -> String {
    use serde_json::{json, Value};
    let step = |s: &Option<Step>| -> Value {
        let Some(s) = s else { return Value::Null };
        json!({
            "line": s.line,
            "time": s.time,
            "pc": format!("0x{:x}", s.pc),
            "width": s.width,
            "encoding": (s.width != 0).then(|| format!("{:0w$x}", s.encoding, w = usize::from(s.width / 4))),
            "effect": match s.effect {
                Effect::Executed => "executed",
                Effect::CondFail => "condition-failed",
                Effect::FetchFail => "fetch-failed",
            },
            "disassembly": s.disassembly,
        })
    };
    let known = |v: &[u8]| hex(&v.iter().map(|&x| Some(x)).collect::<Vec<_>>());
    let divergences: Vec<Value> = report
        .divergences
        .iter()
        .map(|d| {
            let field = |f: fn(&Step) -> String| {
                json!([d.a.as_ref().map(f), d.b.as_ref().map(f)])
            };
            let differences: Vec<Value> = d
                .differences
                .iter()
                .map(|x| match x {
                    Difference::Pc => {
                        let v = field(|s| format!("0x{:x}", s.pc));
                        json!({"kind": "pc", "a": v[0], "b": v[1]})
                    }
                    Difference::Encoding => {
                        let v = field(|s| format!("{:0w$x}", s.encoding, w = usize::from(s.width / 4)));
                        json!({"kind": "encoding", "a": v[0], "b": v[1]})
                    }
                    Difference::Register { name, a, b } => {
                        json!({"kind": "register", "name": name, "a": hex(a), "b": hex(b)})
                    }
                    Difference::Memory { addr, a, b } => json!({
                        "kind": "memory", "address": format!("0x{addr:x}"), "a": hex(a), "b": hex(b)
                    }),
                    Difference::Read { addr, a, b } => json!({
                        "kind": "read", "address": format!("0x{addr:x}"), "a": known(a), "b": known(b)
                    }),
                    Difference::Ended => json!({
                        "kind": "ended",
                        "trace": if d.a.is_none() { "a" } else { "b" },
                        "instructions": d.instruction,
                    }),
                })
                .collect();
            json!({
                "instruction": d.instruction + 1,
                "a": step(&d.a),
                "b": step(&d.b),
                "differences": differences,
            })
        })
        .collect();
    let doc = json!({
        "a": name_a,
        "b": name_b,
        "diverged": !report.divergences.is_empty(),
        "compared": report.compared,
        "stopped_at_max": report.stopped_at_max,
        "divergences": divergences,
        "unparsed": {"a": report.unparsed_a.count, "b": report.unparsed_b.count},
    });
    format!("{doc}\n")
}
