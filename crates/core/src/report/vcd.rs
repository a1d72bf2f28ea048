//! `vcd`: a Value Change Dump of the trace for waveform viewers: per node a
//! cycle counter, the instruction, the registers it wrote, its memory
//! accesses and the current function, in the reference tool's layout.

use crate::{Error, Result};
use std::io::{self, Write};

use super::calltree::Activation;
use crate::engine::{Engine, EngineOptions, Node, Observer};
use crate::lines::LineReader;
use crate::parse::{
    CoreSelect, Effect, MemDirection, MemForm, ParseOptions, Parser, RecordKind, RegClass, RegId,
};
use crate::source::TraceSource;
use crate::state::regfile::{self, IFLAG_AARCH64};

/// What a VCD dump looks like beyond the trace.
#[derive(Clone, Debug, Default)]
pub struct VcdOptions {
    /// The `$date` text (the reference tool's `asctime` form), or `None`
    /// for `--no-date`.
    pub date: Option<String>,
    /// Number VCD time from the trace's timestamps rather than per node.
    pub use_tarmac_timestamps: bool,
}

/// A line whose timestamp is earlier than one before it. The VCD cannot go
/// back in time, so its node is held at the latest time written so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackwardsTime {
    /// The line, 1-based.
    pub line: u64,
    /// Its timestamp.
    pub time: u64,
    /// The latest timestamp before it, where it is held.
    pub held_at: u64,
}

/// Most [`BackwardsTime`] lines [`write()`] lists; it counts them all.
pub const MAX_LISTED_BACKWARDS: usize = 100;

/// The latest timestamp seen, for outputs whose time cannot go back: a
/// line earlier than it is listed (the first [`MAX_LISTED_BACKWARDS`]) and
/// counted, and held there by the writer.
#[derive(Default)]
pub(crate) struct HeldTime {
    latest: Option<u64>,
}

impl HeldTime {
    pub(crate) fn see(
        &mut self,
        line: u64,
        time: u64,
        backwards: &mut Vec<BackwardsTime>,
        count: &mut u64,
    ) {
        match self.latest {
            Some(held_at) if time < held_at => {
                *count += 1;
                if backwards.len() < MAX_LISTED_BACKWARDS {
                    backwards.push(BackwardsTime {
                        line,
                        time,
                        held_at,
                    });
                }
            }
            _ => self.latest = Some(time),
        }
    }
}

/// What [`write()`] has to say besides the dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VcdReport {
    /// Lines whose timestamp went backwards (the first
    /// [`MAX_LISTED_BACKWARDS`]); only with `use_tarmac_timestamps`.
    pub backwards: Vec<BackwardsTime>,
    /// How many lines went backwards in all.
    pub backwards_count: u64,
}

/// A function change: at `time`, the current function becomes `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionChange {
    pub(crate) time: u64,
    pub(crate) name: String,
}

/// Function changes in chronological order: each activation's entry, and
/// each return into an activation. `name` names an activation by its entry
/// address.
pub fn function_changes(root: Activation<'_>, name: &dyn Fn(u64) -> String) -> Vec<FunctionChange> {
    enum Step<'a> {
        Enter(Activation<'a>),
        /// Return into `.1` at time `.0`.
        Resume(u64, Activation<'a>),
    }
    let mut out = Vec::new();
    // An explicit work list rather than recursion: call trees of long
    // traces can be deeper than the native stack allows.
    let mut todo = vec![Step::Enter(root)];
    while let Some(step) = todo.pop() {
        match step {
            Step::Enter(act) => {
                out.push(FunctionChange {
                    time: act.entry.time,
                    name: name(act.entry.pc),
                });
                for (_, resume, callee) in act.calls.iter().rev() {
                    todo.push(Step::Resume(resume.time, act));
                    todo.push(Step::Enter(callee));
                }
            }
            Step::Resume(time, act) => out.push(FunctionChange {
                time,
                name: name(act.entry.pc),
            }),
        }
    }
    out
}

/// Signal kinds and their `$var` type words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int(u32),
    Text,
    Bit,
}

/// VCD identifiers: base-94 over `!`..`~`, least significant digit first.
fn ident(mut n: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((b'!' + (n % 94) as u8) as char);
        n /= 94;
        if n == 0 {
            return s;
        }
    }
}

/// The reference tool's string escaping: C escapes for the usual
/// characters, printable ASCII as is, anything else as three octal digits
/// computed from the *signed* char.
fn escape(text: &[u8], out: &mut Vec<u8>) {
    for &b in text {
        match b {
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'?' => out.extend_from_slice(b"\\?"),
            0x21..=0x7e => out.push(b),
            _ => {
                let mut c = b as i8;
                out.push(b'\\');
                out.push((b'0' as i8).wrapping_add(c / 64) as u8);
                c &= 63;
                out.push(b'0' + (c / 8) as u8);
                c &= 7;
                out.push(b'0' + c as u8);
            }
        }
    }
}

/// Drops a `;` comment and trailing blanks, and squeezes runs of blanks to
/// their first character.
fn trim_disassembly(text: &[u8]) -> Vec<u8> {
    let text = match text.iter().position(|&c| c == b';') {
        Some(i) => &text[..i],
        None => text,
    };
    let end = text
        .iter()
        .rposition(|&c| c != b' ' && c != b'\t')
        .map_or(0, |i| i + 1);
    let mut out = Vec::with_capacity(end);
    for &c in &text[..end] {
        let blank = |x: u8| x == b' ' || x == b'\t';
        if blank(c) && out.last().is_some_and(|&p| blank(p)) {
            continue;
        }
        out.push(c);
    }
    out
}

struct Register {
    reg: RegId,
    id: String,
}

#[derive(Clone)]
struct InstrEvent {
    executed: bool,
    pc: u64,
    encoding: u32,
    disassembly: Vec<u8>,
}

#[derive(Clone, Copy)]
struct MemEvent {
    addr: u64,
    data: u64,
    read: bool,
}

/// Memory events of one access as the reference parser splits them:
/// contiguous accesses in 8-byte pieces, diagram accesses in known runs.
fn memory_events(m: &crate::parse::MemoryAccess<'_>, big_endian: bool, out: &mut Vec<MemEvent>) {
    let read = m.direction == MemDirection::Read;
    let value_of = |bytes: &[u8]| crate::parse::bytes_value(bytes, big_endian);
    match m.form {
        MemForm::Contiguous if m.size <= 8 => {
            let size = usize::from(m.size);
            let known = m.known.iter().all(|&k| k != 0);
            let mut data = 0u64;
            if known {
                for &c in m.value_text {
                    if let Some(d) = (c as char).to_digit(16) {
                        data = (data << 4) | u64::from(d);
                    }
                }
                if m.memory_order && !big_endian {
                    let mut v = 0u64;
                    for i in 0..size {
                        v |= ((data >> (8 * i)) & 0xff) << (8 * (size - 1 - i));
                    }
                    data = v;
                }
            }
            out.push(MemEvent {
                addr: m.addr,
                data,
                read,
            });
        }
        MemForm::Contiguous => {
            let size = usize::from(m.size).min(m.bytes.len());
            let mut off = 0;
            while off < size {
                let n = (size - off).min(8);
                let known = (off..off + n).all(|i| m.known.get(i).is_some_and(|&k| k != 0));
                out.push(MemEvent {
                    addr: m.addr.wrapping_add(off as u64),
                    data: if known {
                        value_of(&m.bytes[off..off + n])
                    } else {
                        0
                    },
                    read,
                });
                off += n;
            }
        }
        MemForm::Diagram => {
            if m.accessed.len() < 16 || m.known.len() < 16 || m.bytes.len() < 16 {
                return;
            }
            for (lo, len, known) in m.diagram_runs() {
                let data = if known {
                    value_of(&m.bytes[lo..lo + len])
                } else {
                    0
                };
                out.push(MemEvent {
                    addr: m.addr.wrapping_add(lo as u64),
                    data,
                    read,
                });
            }
        }
    }
}

struct Writer<'w> {
    out: &'w mut dyn Write,
    opts: VcdOptions,
    core: Vec<Register>,
    single: Vec<Register>,
    double: Vec<Register>,
    bus_bits: u32,
    ids: Ids,
    functions: Vec<FunctionChange>,
    next_function: usize,
    /// Events of the lines of the open node.
    instrs: Vec<InstrEvent>,
    mems: Vec<MemEvent>,
    /// Register-file byte ranges written, with the node they were written in.
    writes: Vec<(u64, usize, usize)>,
    prev_executed: bool,
    prev_pc: u64,
    prev_inst: u32,
    had_memory: bool,
    /// Next VCD time unit (per-node numbering), or the last one used.
    tick: u64,
    error: Option<io::Error>,
    time_error: bool,
    /// The last `#` time written.
    last_time: Option<u64>,
}

#[derive(Default)]
struct Ids {
    cycle: String,
    function: String,
    inst: String,
    inst_asm: String,
    executed: String,
    pc: String,
    mem_rw: String,
    mem_addr: String,
    mem_data: String,
}

impl Writer<'_> {
    fn line(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self
                .out
                .write_all(bytes)
                .and_then(|_| self.out.write_all(b"\n"))
            {
                self.error = Some(e);
            }
        }
    }

    fn bits(&mut self, width: u32, value: &dyn Fn(u32) -> bool, id: &str) {
        let mut s = Vec::with_capacity(width as usize + id.len() + 2);
        s.push(b'b');
        for i in (0..width).rev() {
            s.push(if value(i) { b'1' } else { b'0' });
        }
        s.push(b' ');
        s.extend_from_slice(id.as_bytes());
        self.line(&s);
    }

    fn int(&mut self, width: u32, v: u64, id: &str) {
        self.bits(width, &|i| i < 64 && (v >> i) & 1 != 0, id);
    }

    fn text(&mut self, text: &[u8], id: &str) {
        let mut s = vec![b's'];
        escape(text, &mut s);
        s.push(b' ');
        s.extend_from_slice(id.as_bytes());
        self.line(&s);
    }

    /// Writes `#t`. VCD time must not go back: a time before the last one
    /// written is held at it, and a time already written is not repeated.
    fn time(&mut self, t: u64) {
        if let Some(last) = self.last_time {
            if t <= last {
                return;
            }
        }
        self.last_time = Some(t);
        self.line(format!("#{}", t).as_bytes());
    }

    /// VCD time of a node: the reference tool counts in nanoseconds on a
    /// picosecond timescale, so sub-steps (second and later memory accesses
    /// of a node) fit between nodes.
    fn node_time(&mut self, node_time: u64) -> u64 {
        if self.opts.use_tarmac_timestamps {
            if self.tick > node_time {
                self.time_error = true;
            }
            self.tick = node_time;
            node_time
        } else {
            let t = self.tick;
            self.tick += 1;
            t
        }
    }

    fn header(&mut self, aarch64: bool) {
        let mut defs: Vec<(Kind, String)> = Vec::new();
        let mut add = |kind: Kind, name: String| -> String {
            let id = ident(defs.len());
            defs.push((kind, name));
            id
        };
        let regs = |class: RegClass, n: u8, add: &mut dyn FnMut(Kind, String) -> String| {
            (0..n)
                .map(|index| {
                    let reg = RegId { class, index };
                    let size = regfile::location(reg, aarch64).1 as u32;
                    let id = add(Kind::Int(8 * size), reg.to_string());
                    Register { reg, id }
                })
                .collect::<Vec<_>>()
        };
        let (core, double, single, bus) = if aarch64 {
            let mut core = regs(RegClass::X, 31, &mut add);
            core.extend(regs(RegClass::Xsp, 1, &mut add));
            core.extend(regs(RegClass::Psr, 1, &mut add));
            let double = regs(RegClass::D, 32, &mut add);
            let single = regs(RegClass::S, 32, &mut add);
            (core, double, single, 64)
        } else {
            let mut core = regs(RegClass::R, 15, &mut add);
            core.extend(regs(RegClass::Psr, 1, &mut add));
            let double = regs(RegClass::D, 16, &mut add);
            let single = regs(RegClass::S, 32, &mut add);
            (core, double, single, 32)
        };
        self.ids = Ids {
            cycle: add(Kind::Int(32), "Cycle".into()),
            function: add(Kind::Text, "Function".into()),
            inst: add(Kind::Int(32), "Inst".into()),
            inst_asm: add(Kind::Text, "InstAsm".into()),
            executed: add(Kind::Bit, "InstExecuted".into()),
            pc: add(Kind::Int(bus), "PC".into()),
            mem_rw: add(Kind::Text, "MemRW".into()),
            mem_addr: add(Kind::Int(bus), "MemAddr".into()),
            mem_data: add(Kind::Int(bus), "MemData".into()),
        };
        self.core = core;
        self.double = double;
        self.single = single;
        self.bus_bits = bus;
        if let Some(date) = self.opts.date.clone() {
            self.line(format!("$date\n{}\n$end", date).as_bytes());
        }
        self.line(b"$version\ntarmac-vcd 0.0\n$end");
        self.line(b"$comment\nGenerated by tarmac-vcd.\n$end");
        self.line(b"$timescale 1ps $end");
        self.line(b"$scope module CPU $end");
        for (i, (kind, name)) in defs.iter().enumerate() {
            let (word, width) = match kind {
                Kind::Int(w) => ("integer", *w),
                Kind::Text => ("string", 1),
                Kind::Bit => ("bit", 1),
            };
            let l = format!("$var {} {} {} {} $end", word, width, ident(i), name);
            self.line(l.as_bytes());
        }
        self.line(b"$upscope $end");
        self.line(b"$enddefinitions $end");
        self.line(b"$dumpvars");
    }

    fn register_changes(
        &self,
        bank: &[Register],
        node: u64,
        engine: &Engine,
    ) -> Vec<(u32, u64, String)> {
        let regs = engine.regs();
        let aarch64 = regs.iflags() & IFLAG_AARCH64 != 0;
        let mut changes = Vec::new();
        for r in bank {
            let (o, s) = regfile::location(r.reg, aarch64);
            let written = self
                .writes
                .iter()
                .any(|&(n, wo, wl)| n == node && wo < o + s && o < wo + wl);
            if written {
                if let Some(v) = regs.value(o, s) {
                    changes.push((8 * s as u32, v, r.id.clone()));
                }
            }
        }
        changes
    }
}

impl Observer for Writer<'_> {
    fn reg_write(&mut self, node: u64, offset: usize, bytes: &[u8], known: &[u8]) {
        let _ = known;
        self.writes.push((node, offset, bytes.len()));
    }

    fn node(&mut self, node: &Node, engine: &Engine) {
        let base = self.node_time(node.at.time);
        self.time(base.wrapping_mul(1000));
        let cycle = self.ids.cycle.clone();
        self.int(32, node.at.time, &cycle);
        for ev in std::mem::take(&mut self.instrs) {
            if self.prev_executed != ev.executed {
                let id = self.ids.executed.clone();
                self.line(format!("{}{}", if ev.executed { 1 } else { 0 }, id).as_bytes());
                self.prev_executed = ev.executed;
            }
            if self.prev_pc != ev.pc {
                let id = self.ids.pc.clone();
                self.int(self.bus_bits, ev.pc, &id);
                self.prev_pc = ev.pc;
            }
            if self.prev_inst != ev.encoding {
                let id = self.ids.inst.clone();
                self.int(32, u64::from(ev.encoding), &id);
                let id = self.ids.inst_asm.clone();
                self.text(&trim_disassembly(&ev.disassembly), &id);
                self.prev_inst = ev.encoding;
            }
        }
        // One change at most per node, and only when its time is exactly
        // this node's: the reference tool's behaviour.
        if let Some(f) = self.functions.get(self.next_function) {
            if f.time == node.at.time {
                let name = f.name.clone();
                let id = self.ids.function.clone();
                self.text(name.as_bytes(), &id);
                self.next_function += 1;
            }
        }
        let mut changes = Vec::new();
        for bank in [&self.core, &self.single, &self.double] {
            changes.extend(self.register_changes(bank, node.at.node, engine));
        }
        for (w, v, id) in changes {
            self.int(w, v, &id);
        }
        self.writes.retain(|&(n, _, _)| n > node.at.node);

        let mems = std::mem::take(&mut self.mems);
        let (rw, addr, data) = (
            self.ids.mem_rw.clone(),
            self.ids.mem_addr.clone(),
            self.ids.mem_data.clone(),
        );
        if self.had_memory && mems.is_empty() {
            self.text(b"", &rw);
            let z = "z".repeat(self.bus_bits as usize);
            self.line(format!("b{} {}", z, addr).as_bytes());
            self.line(format!("b{} {}", z, data).as_bytes());
        }
        self.had_memory = !mems.is_empty();
        let n = mems.len() as u64;
        for (k, m) in mems.iter().enumerate() {
            if k > 0 {
                self.time(base.wrapping_mul(1000).wrapping_add(1000 * k as u64 / n));
            }
            self.text(if m.read { b"R" } else { b"W" }, &rw);
            self.int(self.bus_bits, m.addr, &addr);
            self.int(self.bus_bits, m.data, &data);
        }
    }
}

/// Whether the trace has any AArch64 instruction (which selects the
/// AArch64 register set).
pub fn is_aarch64<S: TraceSource>(mut source: S, parse_opts: ParseOptions) -> Result<bool> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut core = parse_opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        let mine = core.as_mut().is_none_or(|c| c.line(rec.cpu));
        if let (true, RecordKind::Instruction(i)) = (mine, rec.kind) {
            if i.iset.is_aarch64() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Writes the dump. `functions` comes from [`function_changes`]; `aarch64`
/// from [`is_aarch64`]. With `use_tarmac_timestamps`, a node whose
/// timestamp is earlier than the one before is held at the latest time (the
/// engine clamps node times so), and the report lists its line.
pub fn write<S: TraceSource>(
    mut source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    aarch64: bool,
    functions: Vec<FunctionChange>,
    opts: VcdOptions,
    out: &mut dyn Write,
) -> Result<VcdReport> {
    let mut w = Writer {
        out,
        opts,
        core: Vec::new(),
        single: Vec::new(),
        double: Vec::new(),
        bus_bits: 32,
        ids: Ids::default(),
        functions,
        next_function: 0,
        instrs: Vec::new(),
        mems: Vec::new(),
        writes: Vec::new(),
        prev_executed: false,
        prev_pc: u64::MAX,
        prev_inst: u32::MAX,
        had_memory: false,
        tick: 0,
        error: None,
        time_error: false,
        last_time: None,
    };
    let mut report = VcdReport::default();
    let mut held = HeldTime::default();
    w.header(aarch64);

    let total = source.len();
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut engine = Engine::new(engine_opts);
    let mut core = engine_opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    let mut next_line = 1;
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        if w.opts.use_tarmac_timestamps && rec.has_time {
            held.see(
                line.number,
                rec.time,
                &mut report.backwards,
                &mut report.backwards_count,
            );
        }
        // Feeding first closes the previous node, so the events gathered
        // below belong to the node this line is in.
        engine.feed(&line, &rec, &mut w);
        let mine = core.as_mut().is_none_or(|c| c.line(rec.cpu));
        match &rec.kind {
            _ if !mine => {}
            RecordKind::Instruction(i) => w.instrs.push(InstrEvent {
                executed: i.effect == Effect::Executed,
                pc: i.pc,
                encoding: i.encoding as u32,
                disassembly: i.disassembly.to_vec(),
            }),
            RecordKind::Memory(m) => memory_events(m, parse_opts.big_endian, &mut w.mems),
            _ => {}
        }
        next_line = line.number + 1;
        if w.time_error {
            return Err(Error::TimestampsBackwards);
        }
    }
    engine.finish(total, next_line, &mut w);
    if w.time_error {
        return Err(Error::TimestampsBackwards);
    }
    let end = if w.opts.use_tarmac_timestamps {
        w.tick.wrapping_add(1)
    } else {
        w.tick
    };
    w.time(end.wrapping_mul(1000));
    w.line(b"$end");
    match w.error.take() {
        Some(e) => Err(Error::Write(e)),
        None => Ok(report),
    }
}
