//! The one pass behind every statistic: the engine runs over the trace
//! (for its calls, as `profile` finds them), and each record is shown to
//! the [`Collector`] here, which keeps
//!
//! - one [`Site`] per instruction address, encoding and mode executed:
//!   counts, time, class and mnemonic, branch outcomes (the program's
//!   size, not the trace's);
//! - the executed edges (non-sequential transfers, per pair of addresses);
//! - per mode, instructions and time, and the changes of mode;
//! - the exceptions taken (`exceptions.rs`'s tracker) and the loops
//!   (`loops.rs`'s tracker), and the translation and cache events
//!   (`memsys.rs`).
//!
//! Flow is followed per *frame*: a call (an instruction that writes the
//! link register, taken) opens one, the return to its return address
//! closes it, and so does an exception's entry and return. So the
//! instruction "after" a call or an interrupted instruction is the one
//! execution comes back to, not the callee's or the handler's first: a
//! branch interrupted before its successor still counts as taken or not,
//! a loop's body is the same with or without an interrupt inside.

use crate::decode::{self, InsnClass};
use crate::engine::{Engine, EngineOptions};
use crate::lines::Line;
use crate::parse::{CoreSelect, Effect, ISet, Instruction, ParseOptions, Record, RecordKind};
use crate::report::explore::Gaps;
use crate::report::CallAnalysis;
use crate::source::TraceSource;
use crate::state::fasthash::AddrMap;
use crate::Result;

use super::context::Context;
use super::exceptions::ExceptionTracker;
use super::loops::LoopTracker;
use super::memsys::MemsysCollector;
use super::site::{Frame, FrameKind, Prev, Site, Transfer, NONE};

/// Most frames kept: a program that calls without returning (a tail of
/// `longjmp`s) loses its oldest, never memory.
const MAX_FRAMES: usize = 4096;
/// How deep below the top a return is looked for.
const RETURN_SEARCH: usize = 64;

/// Everything the pass keeps.
pub(crate) struct Collector {
    pub(crate) sites: Vec<Site>,
    by_pc: AddrMap<u64, u32>,
    /// The site looked up last, tried first.
    last_lookup: u32,
    pub(crate) mnemonics: Vec<String>,
    mnemonic_ids: std::collections::HashMap<Vec<u8>, u32>,
    pub(crate) contexts: Vec<Context>,
    last_mode: Vec<u8>,
    last_ctx: u16,
    /// Per context: instructions reached and time.
    pub(crate) ctx_instructions: Vec<u64>,
    pub(crate) ctx_time: Vec<u64>,
    /// (from, to) context → (count, first line).
    pub(crate) transitions: AddrMap<(u16, u16), (u64, u64)>,
    /// (from, to) address (Thumb bit kept) → count.
    pub(crate) edges: AddrMap<(u64, u64), u64>,
    pub(crate) frames: Vec<Frame>,
    /// Frames dropped for [`MAX_FRAMES`].
    pub(crate) frames_dropped: u64,
    /// Exception frames among `frames` (none: no return to look for).
    exception_frames: usize,
    /// Instructions so far (executed or not).
    pub(crate) index: u64,
    /// The time, clamped never to go back.
    pub(crate) now: u64,
    /// The last instruction's site and time, for durations.
    last_site: u32,
    last_time: u64,
    pub(crate) first_time: Option<u64>,
    pub(crate) time_unit: Option<&'static str>,
    /// Lines whose time went back, held at the latest.
    pub(crate) backwards: u64,
    pub(crate) exceptions: ExceptionTracker,
    pub(crate) loops: LoopTracker,
    pub(crate) memsys: MemsysCollector,
    core: Option<CoreSelect>,
}

impl Collector {
    fn new(core: Option<CoreSelect>) -> Collector {
        Collector {
            sites: Vec::new(),
            by_pc: AddrMap::default(),
            last_lookup: NONE,
            mnemonics: Vec::new(),
            mnemonic_ids: Default::default(),
            contexts: Vec::new(),
            last_mode: Vec::new(),
            last_ctx: u16::MAX,
            ctx_instructions: Vec::new(),
            ctx_time: Vec::new(),
            transitions: AddrMap::default(),
            edges: AddrMap::default(),
            frames: vec![Frame::new(FrameKind::Base, 0)],
            frames_dropped: 0,
            exception_frames: 0,
            index: 0,
            now: 0,
            last_site: NONE,
            last_time: 0,
            first_time: None,
            time_unit: None,
            backwards: 0,
            exceptions: ExceptionTracker::default(),
            loops: LoopTracker::default(),
            memsys: MemsysCollector::default(),
            core,
        }
    }

    fn clock(&mut self, rec: &Record<'_>) -> u64 {
        if rec.has_time {
            if rec.time < self.now {
                self.backwards += 1;
            } else {
                self.now = rec.time;
            }
            if self.time_unit.is_none() {
                self.time_unit = rec.unit.map(|u| u.as_str());
            }
        }
        self.now
    }

    /// One record of the trace, after the engine has taken it.
    pub(crate) fn record(&mut self, line: &Line<'_>, rec: &Record<'_>, engine: &Engine) {
        if let Some(core) = &mut self.core {
            if !core.line(rec.cpu) {
                return;
            }
        }
        match &rec.kind {
            RecordKind::Instruction(i) => {
                let t = self.clock(rec);
                self.instruction(line.number, t, i, engine.open_node_index());
            }
            RecordKind::Exception(e) => {
                let t = self.clock(rec);
                self.exceptions.event(line.number, t, e, self.last_point());
            }
            RecordKind::Register(r) if self.exceptions.capturing() => {
                self.exceptions.register(r);
            }
            RecordKind::RegisterList(l) if self.exceptions.capturing() => {
                for e in l.entries {
                    let name = String::from_utf8_lossy(l.name(e)).into_owned();
                    self.exceptions.register_value(name, e.value);
                }
            }
            RecordKind::Cache(_)
            | RecordKind::CacheMaintenance(_)
            | RecordKind::TableWalk(_)
            | RecordKind::Tlb(_) => {
                let t = self.clock(rec);
                self.memsys.note(line.number, t, &rec.kind);
            }
            _ => {}
        }
    }

    /// Where the last instruction was: the place an exception is taken at.
    fn last_point(&self) -> Option<super::exceptions::Point> {
        let s = self.sites.get(self.last_site as usize)?;
        Some(super::exceptions::Point {
            line: self.exceptions.last_instruction_line,
            pc: s.pc,
            time: self.last_time,
            node: self.exceptions.last_instruction_node,
            index: self.index.saturating_sub(1),
        })
    }

    fn context(&mut self, mode: Option<&[u8]>) -> u16 {
        let mode = mode.unwrap_or(b"");
        if self.last_ctx != u16::MAX && self.last_mode == mode {
            return self.last_ctx;
        }
        self.last_mode.clear();
        self.last_mode.extend_from_slice(mode);
        let found = self
            .contexts
            .iter()
            .position(|c| c.mode.as_bytes() == mode)
            .unwrap_or_else(|| {
                self.contexts.push(Context::of(mode));
                self.ctx_instructions.push(0);
                self.ctx_time.push(0);
                self.contexts.len() - 1
            });
        // More modes than a u16 counts are the same unknown mode.
        found.min(u16::MAX as usize - 1) as u16
    }

    fn mnemonic(&mut self, disassembly: &[u8]) -> u32 {
        let mut words = disassembly
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        let mut word = words.next().unwrap_or(b"");
        if word.eq_ignore_ascii_case(b"CCFAIL") {
            word = words.next().unwrap_or(b"");
        }
        let key = word.to_ascii_uppercase();
        if let Some(&id) = self.mnemonic_ids.get(&key) {
            return id;
        }
        let id = self.mnemonics.len() as u32;
        self.mnemonics.push(if key.is_empty() {
            "(none)".to_string()
        } else {
            String::from_utf8_lossy(&key).into_owned()
        });
        self.mnemonic_ids.insert(key, id);
        id
    }

    /// The site of this instruction, made at its first execution.
    fn site(&mut self, i: &Instruction<'_>, pc: u64, ctx: u16) -> u32 {
        let encoding = i.encoding as u32;
        let matches =
            |s: &Site| s.pc == pc && s.encoding == encoding && s.ctx == ctx && s.iset == i.iset;
        if let Some(s) = self.sites.get(self.last_lookup as usize) {
            if matches(s) {
                return self.last_lookup;
            }
        }
        let first = self.by_pc.get(&pc).copied().unwrap_or(NONE);
        let mut at = first;
        while at != NONE {
            let s = &self.sites[at as usize];
            if matches(s) {
                self.last_lookup = at;
                return at;
            }
            at = s.next_variant;
        }
        let width = (i.width / 8).max(1);
        let classified = if i.effect == Effect::FetchFail {
            decode::Classified {
                class: InsnClass::Undecoded,
                flow: decode::Flow::default(),
            }
        } else {
            decode::classify(i.iset, encoding, width)
        };
        let mnemonic = self.mnemonic(i.disassembly);
        let loop_header = if first == NONE {
            0
        } else {
            self.sites[first as usize].loop_header
        };
        let id = self.sites.len() as u32;
        self.sites.push(Site {
            pc,
            encoding,
            width,
            iset: i.iset,
            ctx,
            class: classified.class,
            flow: classified.flow,
            mnemonic,
            executed: 0,
            failed: 0,
            taken: 0,
            calls: 0,
            returns: 0,
            time: 0,
            interrupted: 0,
            next_variant: first,
            last_index: u64::MAX,
            last_time: 0,
            loop_header,
        });
        self.by_pc.insert(pc, id);
        self.last_lookup = id;
        id
    }

    fn instruction(&mut self, line: u64, t: u64, i: &Instruction<'_>, node: u64) {
        let pc = i.pc | u64::from(i.iset == ISet::Thumb);
        let ctx = self.context(i.mode);
        let site = self.site(i, pc, ctx);
        let executed = i.effect == Effect::Executed;
        self.first_time.get_or_insert(t);
        // The time up to this instruction was the last one's.
        if let Some(last) = self.sites.get_mut(self.last_site as usize) {
            let d = t - self.last_time;
            last.time += d;
            self.ctx_time[last.ctx as usize] += d;
            let from = last.ctx;
            if from != ctx {
                let e = self.transitions.entry((from, ctx)).or_insert((0, line));
                e.0 += 1;
            }
        }
        self.ctx_instructions[ctx as usize] += 1;
        {
            let s = &mut self.sites[site as usize];
            if executed {
                s.executed += 1;
            } else {
                s.failed += 1;
            }
        }
        let point = super::exceptions::Point {
            line,
            pc,
            time: t,
            node,
            index: self.index,
        };
        // An exception entered before this instruction: it is its
        // handler's first; or the last instruction returned from one.
        let from_ctx = self.sites.get(self.last_site as usize).map(|s| s.ctx);
        let mut resumed = false;
        // An exception taken right after a return is taken where that
        // return went: the return first, resumed where the new one's
        // event line says it was taken from.
        let pending = self.exceptions.pending_point(self.index, node);
        if let Some(id) = self.returned_exception(pc, pending.is_some()) {
            let top = self.frames.last().and_then(|f| f.prev);
            self.exceptions
                .returned(id, top, pending.unwrap_or(point), &self.sites);
            self.pop_frames_to_exception(id, t);
            resumed = pending.is_none();
        }
        if let Some(id) = self.exceptions.enter(point, ctx, from_ctx, &self.contexts) {
            if let Some(last) = self.sites.get_mut(self.last_site as usize) {
                last.interrupted += 1;
            }
            self.push_frame(FrameKind::Exception(id));
        }
        self.flow(point, site, executed, resumed);
        self.exceptions.last_instruction_line = line;
        self.exceptions.last_instruction_node = node;
        let s = &mut self.sites[site as usize];
        s.last_index = self.index;
        s.last_time = t;
        self.last_site = site;
        self.last_time = t;
        self.index += 1;
    }

    /// The exception (tracker number) the instruction at `pc` returns
    /// from: the instruction before it in the handler's frame was an
    /// exception return (A-profile), or, in M-profile handler mode, wrote
    /// the pc and `pc` is where the exception was taken from.
    fn returned_exception(&self, pc: u64, before_another: bool) -> Option<u32> {
        if self.exception_frames == 0 {
            return None;
        }
        let id = self.frames.iter().rev().find_map(|f| match f.kind {
            FrameKind::Exception(id) => Some(id),
            _ => None,
        })?;
        let top = self.frames.last()?;
        let prev = top.prev?;
        if !prev.executed || prev.next_addr() == pc & !1 {
            return None;
        }
        let s = &self.sites[prev.site as usize];
        if s.flow.exception_return {
            return Some(id);
        }
        if before_another {
            return None;
        }
        let m_return = s.flow.writes_pc
            && self.exceptions.is_m_profile(id)
            && self.exceptions.return_address(id) == Some(pc & !1);
        // An M-profile handler may return from inside a callee's frame
        // (a handler that tail-calls): the address decides.
        m_return.then_some(id)
    }

    fn push_frame(&mut self, kind: FrameKind) {
        if self.frames.len() >= MAX_FRAMES {
            // The oldest call frame above the base goes.
            let t = self.now;
            let index = self.index;
            let dropped = self.frames.remove(1);
            if matches!(dropped.kind, FrameKind::Exception(_)) {
                self.exception_frames -= 1;
            }
            self.loops.close_all(dropped.visits, index, t);
            self.frames_dropped += 1;
        }
        if matches!(kind, FrameKind::Exception(_)) {
            self.exception_frames += 1;
        }
        self.frames.push(Frame::new(kind, self.index));
    }

    fn pop_frame(&mut self, t: u64) {
        if self.frames.len() > 1 {
            let f = self.frames.pop().expect("more than one frame");
            if matches!(f.kind, FrameKind::Exception(_)) {
                self.exception_frames -= 1;
            }
            self.loops.close_all(f.visits, self.index, t);
        }
    }

    fn pop_frames_to_exception(&mut self, id: u32, t: u64) {
        while self.frames.len() > 1 {
            let kind = self.frames.last().map(|f| f.kind);
            self.pop_frame(t);
            if kind == Some(FrameKind::Exception(id)) {
                break;
            }
        }
    }

    /// Follows the flow into this instruction in its frame. `resumed`:
    /// an exception just returned to it (an instruction executed again
    /// after a fault is no branch).
    fn flow(&mut self, point: super::exceptions::Point, site: u32, executed: bool, resumed: bool) {
        let (pc, t) = (point.pc, point.time);
        let addr = pc & !1;
        let width = self.sites[site as usize].width;
        let mut backedge = None;
        let mut jumped = false;
        let prev = self.frames.last().and_then(|f| f.prev);
        if let Some(p) = prev {
            let again = resumed && p.addr == addr;
            if p.next_addr() != addr && !again {
                let ps_flow = self.sites[p.site as usize].flow;
                let ps_pc = self.sites[p.site as usize].pc;
                if p.executed && ps_flow.call {
                    self.sites[p.site as usize].calls += 1;
                    self.push_frame(FrameKind::Call(p.next_addr()));
                } else if let Some(depth) = self.return_frame(addr) {
                    self.sites[p.site as usize].returns += 1;
                    while self.frames.len() > depth + 1 {
                        self.pop_frame(t);
                    }
                } else {
                    let from_pc = ps_pc;
                    jumped = true;
                    self.sites[p.site as usize].taken += 1;
                    *self.edges.entry((from_pc, pc)).or_insert(0) += 1;
                    let transfer = Transfer {
                        from: p.addr,
                        to: addr,
                        index: self.index,
                        time: t,
                    };
                    if addr <= p.addr && ps_flow.writes_pc {
                        backedge = Some(p.addr.wrapping_add(u64::from(p.width)));
                    }
                    let frame = self.frames.last_mut().expect("a frame");
                    if let Some(latch_end) = backedge {
                        self.loops.back_edge(
                            addr,
                            latch_end,
                            p.addr,
                            frame,
                            &mut self.sites,
                            site,
                            self.index,
                            t,
                        );
                    }
                    frame.log(transfer);
                }
            }
        }
        let frame = self.frames.last_mut().expect("a frame");
        self.loops.arrive(
            addr,
            backedge.is_some(),
            jumped,
            frame,
            &mut self.sites,
            site,
            self.index,
            t,
        );
        frame.prev = Some(Prev {
            addr,
            width,
            site,
            executed,
            line: point.line,
            time: t,
            node: point.node,
            index: point.index,
        });
    }

    /// The depth of the call frame that returns to `addr`, if one near the
    /// top does (not past an exception's frame).
    fn return_frame(&self, addr: u64) -> Option<usize> {
        for (d, f) in self.frames.iter().enumerate().rev().take(RETURN_SEARCH) {
            match f.kind {
                FrameKind::Call(ret) if ret == addr => return d.checked_sub(1),
                FrameKind::Exception(_) | FrameKind::Base => return None,
                _ => {}
            }
        }
        None
    }

    fn finish(&mut self) {
        let (index, t) = (self.index, self.now);
        while let Some(f) = self.frames.pop() {
            self.loops.close_all(f.visits, index, t);
        }
        self.exceptions.finish();
    }
}

/// What one pass over a trace found, for every statistic.
pub struct Pass {
    pub(crate) c: Collector,
    pub(crate) calls: CallAnalysis,
    pub(crate) gaps: Gaps,
}

/// Runs the one pass over `source`.
pub fn run<S: TraceSource>(source: S, parse: ParseOptions, engine: EngineOptions) -> Result<Pass> {
    let mut collector = Collector::new(engine.cpu.map(CoreSelect::new));
    let mut gaps = Gaps::default();
    let calls =
        crate::report::analyse_calls_with(source, parse, engine, &mut gaps, |line, rec, e| {
            collector.record(line, rec, e)
        })?;
    collector.finish();
    Ok(Pass {
        c: collector,
        calls,
        gaps,
    })
}
