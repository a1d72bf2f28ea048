//! Exceptions and interrupts: each one taken (its event line, where it was
//! taken from, its handler's first instruction, its return and where
//! execution resumed, time and instructions inside, nesting, the entry
//! registers in words), and per vector their count, time inside and, for
//! interrupts, the latency from the event line to the handler's first
//! instruction.
//!
//! An exception is an event line (`E ... CoreEvent_IRQ`, `EXC [0x280]
//! ...`) other than a reset, a mode change or a debug event; the next
//! instruction is its handler's first. It returns at the instruction after
//! an exception return (`ERET`, `SUBS pc, lr`, `LDM ...^`, `RFE`) in its
//! handler, or, on an M-profile core (which returns by loading a magic
//! `EXC_RETURN` into the pc), at the first instruction after a write of
//! the pc that lands where the exception was taken from (the event line's
//! value).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::context::{Context, Profile};
use super::site::{Prev, Site};
use super::syndrome;
use super::{Span, Statistics};
use crate::parse::{Exception, ExceptionForm, RegisterWrite};

/// Most taken exceptions listed one by one (all are counted).
pub const MAX_LISTED: usize = 100_000;

/// A place in the trace: an instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// Its line.
    pub line: u64,
    /// Its address (Thumb bit set for Thumb code).
    pub pc: u64,
    /// Its time.
    pub time: u64,
    /// Its node.
    pub node: u64,
    /// Instructions before it in the trace.
    pub index: u64,
}

/// One exception taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taken {
    /// Its number in the trace's order of entry (0 first).
    pub id: u32,
    /// Its name as the trace gives it (`IRQ`, `CURRENT_SPx_SYNC`, `SVCALL`).
    pub name: String,
    /// The event line's number field (vector or exception number).
    pub number: Option<u64>,
    /// The event line's value (usually an address).
    pub value: Option<u64>,
    /// The vector in words (`Current EL with SPx, IRQ, +0x280`).
    pub vector: String,
    /// An interrupt (asynchronous), not a synchronous exception.
    pub interrupt: bool,
    /// The event line.
    pub line: u64,
    /// Its time.
    pub time: u64,
    /// The last instruction before it.
    pub from: Option<Point>,
    /// The mode it was taken from.
    pub from_mode: Option<String>,
    /// The handler's first instruction; `None` if the trace ended, or
    /// another exception came, before any.
    pub handler: Option<Point>,
    /// The handler's mode.
    pub handler_mode: Option<String>,
    /// The instruction that returned.
    pub return_instruction: Option<Point>,
    /// Where execution resumed.
    pub resume: Option<Point>,
    /// Exceptions it was taken inside (0: none).
    pub depth: u32,
    /// The exception it was taken inside.
    pub parent: Option<u32>,
    /// Registers written between the event line and the handler's first
    /// instruction, with their meaning in words where known.
    pub registers: Vec<EntryRegister>,
}

impl Taken {
    /// Time from the handler's first instruction to the resumed one.
    pub fn time_inside(&self) -> Option<u64> {
        Some(self.resume?.time - self.handler?.time)
    }

    /// Instructions from the handler's first to the return, nested
    /// exceptions' included.
    pub fn instructions_inside(&self) -> Option<u64> {
        Some(self.resume?.index - self.handler?.index)
    }

    /// Time from the event line to the handler's first instruction.
    pub fn latency(&self) -> Option<u64> {
        Some(self.handler?.time.saturating_sub(self.time))
    }
}

/// A register written on an exception's entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRegister {
    /// Its name as written.
    pub name: String,
    /// Its value.
    pub value: u64,
    /// Its meaning, where a rule reads it.
    pub meaning: Option<String>,
}

/// An outermost exception's span, for leaving handlers out of calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Interval {
    /// Handler's first node, and the node execution resumed at (the end,
    /// for one that never returned: `u64::MAX`).
    pub(crate) first_node: u64,
    pub(crate) resume_node: u64,
    pub(crate) time: u64,
    pub(crate) instructions: u64,
    /// Its name, in [`ExceptionTracker::interval_names`].
    pub(crate) vector: u16,
}

/// Per vector: how often, how long.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorStats {
    /// The name as the trace gives it.
    pub name: String,
    /// The vector in words.
    pub vector: String,
    /// An interrupt.
    pub interrupt: bool,
    /// Taken.
    pub count: u64,
    /// Taken inside another exception.
    pub nested: u64,
    /// Of them, returned (the spans below are over these).
    pub returned: u64,
    /// Time inside.
    pub time: Span,
    /// Instructions inside.
    pub instructions: Span,
    /// Interrupts: event line to the handler's first instruction.
    pub latency: Span,
}

/// Follows exceptions through the pass.
#[derive(Default)]
pub(crate) struct ExceptionTracker {
    /// Event lines since the last instruction, waiting for a handler.
    pending: Vec<Taken>,
    /// Entered, not yet returned, innermost last.
    open: Vec<Taken>,
    pub(crate) done: Vec<Taken>,
    pub(crate) taken: u64,
    next_id: u32,
    pub(crate) vectors: BTreeMap<String, VectorStats>,
    pub(crate) resets: Vec<u64>,
    pub(crate) reset_count: u64,
    /// Other event lines (debug events, signals), not exceptions.
    pub(crate) other_events: u64,
    pub(crate) mode_changes: u64,
    pub(crate) intervals: Vec<Interval>,
    /// The names intervals refer to.
    pub(crate) interval_names: Vec<String>,
    /// Exceptions that left their handler without a return seen (an
    /// outer one returned first).
    pub(crate) unreturned_inner: u64,
    pub(crate) last_instruction_line: u64,
    pub(crate) last_instruction_node: u64,
    profile_m: bool,
}

/// The name without Fast Models' `CoreEvent_` prefix.
fn short_name(e: &Exception<'_>) -> String {
    let name = String::from_utf8_lossy(e.name).into_owned();
    let name = name.trim();
    name.strip_prefix("CoreEvent_").unwrap_or(name).to_string()
}

/// Whether an event line's name is an interrupt's.
fn is_interrupt(name: &str, number: Option<u64>, m_profile: bool) -> bool {
    let up = name.to_ascii_uppercase();
    if ["IRQ", "FIQ", "INTERRUPT", "SYSTICK", "PENDSV", "NMI"]
        .iter()
        .any(|w| up.contains(w))
    {
        return true;
    }
    m_profile && matches!(number, Some(2 | 14 | 15 | 16..))
}

/// Names that only M-profile cores give their exceptions.
fn is_m_name(name: &str) -> bool {
    matches!(
        name.to_ascii_uppercase().as_str(),
        "SVCALL"
            | "HARDFAULT"
            | "MEMMANAGE"
            | "BUSFAULT"
            | "USAGEFAULT"
            | "SECUREFAULT"
            | "SYSTICK"
            | "PENDSV"
            | "DEBUGMONITOR"
            | "NMI"
    ) || name.to_ascii_uppercase().starts_with("EXTERNAL")
}

/// The vector in words, from the event's number.
fn vector_words(name: &str, number: Option<u64>, m_profile: bool) -> String {
    let Some(n) = number else {
        return String::new();
    };
    if m_profile || is_m_name(name) {
        return format!("exception {n} ({})", syndrome::m_exception_name(n));
    }
    if (0x80..0x90).contains(&n) {
        let k = n - 0x80;
        let from = [
            "Current EL with SP0",
            "Current EL with SPx",
            "Lower EL using AArch64",
            "Lower EL using AArch32",
        ][(k / 4) as usize];
        let kind = ["Synchronous", "IRQ", "FIQ", "SError"][(k % 4) as usize];
        return format!("{from}, {kind}, +0x{:x}", k * 0x80);
    }
    if n >= 0x80 && n % 0x80 == 0 && n < 0x800 {
        // ES-style `EXC [0x200]`: the offset itself.
        return format!("vector +0x{n:x}");
    }
    match n {
        1 => "Reset, +0x0".into(),
        2 => "Undefined Instruction, +0x4".into(),
        3 => "Supervisor Call, +0x8".into(),
        4 => "Prefetch Abort, +0xc".into(),
        5 => "Data Abort, +0x10".into(),
        7 => "IRQ, +0x18".into(),
        8 => "FIQ, +0x1c".into(),
        n => format!("event number 0x{n:x}"),
    }
}

impl ExceptionTracker {
    pub(crate) fn capturing(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Where the first exception waiting for its handler was taken from,
    /// as a point: its event line, value (the return address) and time;
    /// `index` and `node` the next instruction's.
    pub(crate) fn pending_point(&self, index: u64, node: u64) -> Option<Point> {
        let t = self.pending.first()?;
        Some(Point {
            line: t.line,
            pc: t.value.unwrap_or(0),
            time: t.time,
            node,
            index,
        })
    }

    /// An event line.
    pub(crate) fn event(&mut self, line: u64, time: u64, e: &Exception<'_>, from: Option<Point>) {
        let name = short_name(e);
        let lower = name.to_ascii_lowercase();
        if lower.contains("modechange") {
            self.mode_changes += 1;
            if let Some(mode) = e.mode {
                let m = mode.to_ascii_lowercase();
                if m.starts_with(b"thr")
                    || m.starts_with(b"han")
                    || m.starts_with(b"hndl")
                    || m == b"lockup"
                {
                    self.profile_m = true;
                }
            }
            return;
        }
        if lower.contains("reset") {
            self.reset_count += 1;
            if self.resets.len() < 100 {
                self.resets.push(line);
            }
            return;
        }
        if e.form == ExceptionForm::Signal || lower.starts_with("debugevent") || name.is_empty() {
            self.other_events += 1;
            return;
        }
        if is_m_name(&name) {
            self.profile_m = true;
        }
        let interrupt = is_interrupt(&name, e.number, self.profile_m);
        let id = self.next_id;
        self.next_id = self.next_id.saturating_add(1);
        self.taken += 1;
        self.pending.push(Taken {
            id,
            vector: vector_words(&name, e.number, self.profile_m),
            name,
            number: e.number,
            value: e.value,
            interrupt,
            line,
            time,
            from,
            from_mode: None,
            handler: None,
            handler_mode: None,
            return_instruction: None,
            resume: None,
            depth: 0,
            parent: None,
            registers: Vec::new(),
        });
    }

    pub(crate) fn register(&mut self, r: &RegisterWrite<'_>) {
        if r.known.iter().all(|&k| k == 0) {
            return;
        }
        let mut v = 0u64;
        for (i, &b) in r.bytes.iter().enumerate().take(8) {
            v |= u64::from(b) << (8 * i);
        }
        self.register_value(String::from_utf8_lossy(r.name).into_owned(), v);
    }

    pub(crate) fn register_value(&mut self, name: String, value: u64) {
        if let Some(t) = self.pending.last_mut() {
            if let Some(r) = t.registers.iter_mut().find(|r| r.name == name) {
                r.value = value;
            } else if t.registers.len() < 32 {
                t.registers.push(EntryRegister {
                    name,
                    value,
                    meaning: None,
                });
            }
        }
    }

    /// The instruction at `point` ran: if event lines came before it, it
    /// is the last one's handler's first instruction; its number.
    pub(crate) fn enter(
        &mut self,
        point: Point,
        ctx: u16,
        from_ctx: Option<u16>,
        contexts: &[Context],
    ) -> Option<u32> {
        if self.pending.is_empty() {
            return None;
        }
        let handler_ctx = contexts.get(ctx as usize);
        if handler_ctx.is_some_and(|c| c.profile == Profile::M) {
            self.profile_m = true;
        }
        let mut pending = std::mem::take(&mut self.pending);
        let mut last = pending.pop().expect("pending");
        // Exceptions whose handler never ran: another came first (an
        // escalation), so their spans are empty.
        for t in pending {
            self.finish_one(t);
        }
        last.handler = Some(point);
        last.handler_mode = handler_ctx.map(|c| c.mode.clone());
        last.from_mode = from_ctx
            .and_then(|c| contexts.get(c as usize))
            .map(|c| c.mode.clone());
        last.depth = self.open.len() as u32;
        last.parent = self.open.last().map(|p| p.id);
        let profile = handler_ctx.map_or(Profile::Unknown, |c| c.profile);
        for r in &mut last.registers {
            r.meaning = syndrome::describe(&r.name, r.value, profile);
        }
        if self.profile_m && !last.vector.starts_with("exception") {
            last.vector = vector_words(&last.name, last.number, true);
            last.interrupt = is_interrupt(&last.name, last.number, true);
        }
        let id = last.id;
        self.open.push(last);
        Some(id)
    }

    pub(crate) fn is_m_profile(&self, id: u32) -> bool {
        self.profile_m
            || self
                .open
                .iter()
                .rev()
                .find(|t| t.id == id)
                .is_some_and(|t| is_m_name(&t.name))
    }

    /// Where an open exception was taken from, without the Thumb bit: its
    /// event line's value.
    pub(crate) fn return_address(&self, id: u32) -> Option<u64> {
        self.open
            .iter()
            .rev()
            .find(|t| t.id == id)
            .and_then(|t| t.value)
            .map(|v| v & !1)
    }

    /// Exception `id` returned: `ret` was its last instruction, execution
    /// resumed at `resume`.
    pub(crate) fn returned(&mut self, id: u32, ret: Option<Prev>, resume: Point, sites: &[Site]) {
        while let Some(mut t) = self.open.pop() {
            if t.id != id {
                self.unreturned_inner += 1;
                self.finish_one(t);
                continue;
            }
            t.return_instruction = ret.map(|p| Point {
                line: p.line,
                pc: sites[p.site as usize].pc,
                time: p.time,
                node: p.node,
                index: p.index,
            });
            t.resume = Some(resume);
            self.finish_one(t);
            return;
        }
    }

    fn finish_one(&mut self, t: Taken) {
        let v = self
            .vectors
            .entry(t.name.clone())
            .or_insert_with(|| VectorStats {
                name: t.name.clone(),
                vector: t.vector.clone(),
                interrupt: t.interrupt,
                ..VectorStats::default()
            });
        v.count += 1;
        if t.depth > 0 {
            v.nested += 1;
        }
        if let (Some(time), Some(n)) = (t.time_inside(), t.instructions_inside()) {
            v.returned += 1;
            v.time.add(time);
            v.instructions.add(n);
        }
        if t.interrupt {
            if let Some(l) = t.latency() {
                v.latency.add(l);
            }
        }
        if t.depth == 0 {
            if let Some(h) = t.handler {
                let vector = match self.interval_names.iter().position(|n| *n == t.name) {
                    Some(i) => i,
                    None => {
                        self.interval_names.push(t.name.clone());
                        self.interval_names.len() - 1
                    }
                }
                .min(u16::MAX as usize) as u16;
                self.intervals.push(Interval {
                    vector,
                    first_node: h.node,
                    resume_node: t.resume.map_or(u64::MAX, |r| r.node),
                    time: t.time_inside().unwrap_or(0),
                    instructions: t.instructions_inside().unwrap_or(0),
                });
            }
        }
        if self.done.len() < MAX_LISTED {
            self.done.push(t);
        }
    }

    pub(crate) fn finish(&mut self) {
        for t in std::mem::take(&mut self.pending) {
            self.finish_one(t);
        }
        while let Some(t) = self.open.pop() {
            self.finish_one(t);
        }
        self.done.sort_by_key(|t| t.id);
        self.intervals.sort_by_key(|i| i.first_node);
    }
}

/// The exceptions report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionsReport {
    /// Exceptions taken.
    pub taken: u64,
    /// Of them, listed (the first [`MAX_LISTED`]).
    pub list: Vec<Taken>,
    /// Per vector, by name.
    pub vectors: Vec<VectorStats>,
    /// Resets seen (not exceptions taken: nothing returns from one).
    pub resets: u64,
    /// Their lines (the first 100).
    pub reset_lines: Vec<u64>,
    /// Mode-change event lines.
    pub mode_changes: u64,
    /// Other event lines (debug events, signals).
    pub other_events: u64,
    /// Exceptions whose return was not seen though an exception they were
    /// taken inside returned.
    pub unreturned_inner: u64,
    /// The time unit the trace writes.
    pub time_unit: Option<String>,
}

impl ExceptionsReport {
    /// From the pass.
    pub fn build(stats: &Statistics) -> ExceptionsReport {
        let t = &stats.pass.c.exceptions;
        ExceptionsReport {
            taken: t.taken,
            list: t.done.clone(),
            vectors: t.vectors.values().cloned().collect(),
            resets: t.reset_count,
            reset_lines: t.resets.clone(),
            mode_changes: t.mode_changes,
            other_events: t.other_events,
            unreturned_inner: t.unreturned_inner,
            time_unit: stats.pass.c.time_unit.map(str::to_string),
        }
    }

    /// The text the CLI prints. `name` names an address (`main + 0x10`).
    pub fn render(&self, name: &dyn Fn(u64) -> String) -> String {
        let mut out = String::new();
        let unit = self.time_unit.as_deref().unwrap_or("time units");
        if self.taken == 0 {
            let _ = writeln!(
                out,
                "No exceptions or interrupts taken in this trace (no exception event lines{})",
                if self.resets > 0 {
                    format!("; {} reset(s)", self.resets)
                } else {
                    String::new()
                }
            );
            return out;
        }
        let _ = writeln!(
            out,
            "Exceptions taken: {}; resets: {}; mode-change events: {}; times in {unit}",
            self.taken, self.resets, self.mode_changes
        );
        out.push('\n');
        let _ = writeln!(
            out,
            "{:<24} {:<40} {:>8} {:>7} {:>8}  {:>26}  {:>26}  {:>26}",
            "Vector",
            "",
            "Count",
            "Nested",
            "Returned",
            "Time inside min/mean/max",
            "Instrs inside min/mean/max",
            "Latency min/mean/max"
        );
        for v in &self.vectors {
            let latency = if v.interrupt {
                v.latency.text()
            } else {
                "-".to_string()
            };
            let _ = writeln!(
                out,
                "{:<24} {:<40} {:>8} {:>7} {:>8}  {:>26}  {:>26}  {:>26}",
                v.name,
                v.vector,
                v.count,
                v.nested,
                v.returned,
                v.time.text(),
                v.instructions.text(),
                latency
            );
        }
        out.push('\n');
        let listed = self.list.len() as u64;
        if listed < self.taken {
            let _ = writeln!(
                out,
                "Each exception (the first {listed} of {}):",
                self.taken
            );
        } else {
            let _ = writeln!(out, "Each exception:");
        }
        for t in &self.list {
            let indent = "  ".repeat(t.depth as usize);
            let _ = writeln!(
                out,
                "{indent}#{} {} ({}) at line {}, t={}{}",
                t.id,
                t.name,
                if t.interrupt {
                    "interrupt"
                } else {
                    "synchronous"
                },
                t.line,
                t.time,
                if t.vector.is_empty() {
                    String::new()
                } else {
                    format!(": {}", t.vector)
                }
            );
            let at = |p: &Point| {
                let n = name(p.pc);
                format!(
                    "line {} pc 0x{:x}{} t={}",
                    p.line,
                    p.pc,
                    if n.is_empty() {
                        String::new()
                    } else {
                        format!(" <{n}>")
                    },
                    p.time
                )
            };
            if let Some(f) = &t.from {
                let _ = writeln!(
                    out,
                    "{indent}    taken after {}{}",
                    at(f),
                    t.from_mode
                        .as_ref()
                        .map_or(String::new(), |m| format!(" in {m}"))
                );
            }
            match &t.handler {
                Some(h) => {
                    let _ = writeln!(
                        out,
                        "{indent}    handler from {}{}",
                        at(h),
                        t.handler_mode
                            .as_ref()
                            .map_or(String::new(), |m| format!(" in {m}"))
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "{indent}    no handler instruction before the next exception or the end"
                    );
                }
            }
            match (&t.return_instruction, &t.resume) {
                (Some(r), Some(s)) => {
                    let _ = writeln!(out, "{indent}    returned by {}", at(r));
                    let _ = writeln!(out, "{indent}    resumed at {}", at(s));
                }
                (None, Some(s)) => {
                    let _ = writeln!(out, "{indent}    resumed at {}", at(s));
                }
                _ if t.handler.is_some() => {
                    let _ = writeln!(out, "{indent}    no return seen");
                }
                _ => {}
            }
            if let (Some(time), Some(n)) = (t.time_inside(), t.instructions_inside()) {
                let latency = if t.interrupt {
                    t.latency()
                        .map_or(String::new(), |l| format!(", latency {l}"))
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "{indent}    inside: {time} {unit}, {n} instructions{latency}"
                );
            }
            for r in &t.registers {
                match &r.meaning {
                    Some(m) => {
                        let _ = writeln!(out, "{indent}    {} = 0x{:x}: {m}", r.name, r.value);
                    }
                    None => {
                        let _ = writeln!(out, "{indent}    {} = 0x{:x}", r.name, r.value);
                    }
                }
            }
        }
        if self.unreturned_inner > 0 {
            let _ = writeln!(
                out,
                "\n{} exception(s) left their handler without a return seen (an exception they were taken inside returned first)",
                self.unreturned_inner
            );
        }
        out
    }
}
