//! The sequential machine model: feed it every line's record in order and it
//! keeps the register file, memory, instruction blocks ("nodes") and call
//! detection exactly as the reference tools' indexer does, reporting what
//! happens to an [`Observer`]. The indexer, the batch reports and query-time
//! replay all run this one model.
//!
//! A node is the unit the reference tools index: consecutive lines with one
//! timestamp and at most one instruction. A new node starts at a line whose
//! event has a later time than the current node, or at a second instruction
//! with the same time. Lines without events (headers, unmodelled registers,
//! blank lines, lines the parser did not understand) stay in the node they
//! follow; lines before the first event belong to no node. Timestamps are
//! clamped to be non-decreasing for that grouping (the node's [`Site`]
//! time); [`Node::own_time`] is the time its first line gives.

pub(crate) mod calls;
mod position;
mod stitch;
mod transfer_log;

use stitch::SplitInfo;

use crate::codec::{Dec, Enc};
use crate::lines::Line;
use crate::parse::*;
use crate::state::memory::{Fill, Memory};
use crate::state::regfile::{self, RegFile};

pub use calls::Call;
use calls::{CallDetector, Transfer};
pub use position::{Node, Site, INVALID_PC};

/// The register bytes the model reads back: x0..x30 (r0..r15 alias their
/// low halves) and the stack pointer.
const CORE_BYTES: usize = regfile::Z_BASE;

struct CoreRegs {
    bytes: [u8; CORE_BYTES],
    known: [u8; CORE_BYTES],
}

impl Default for CoreRegs {
    fn default() -> Self {
        CoreRegs {
            bytes: [0; CORE_BYTES],
            known: [0; CORE_BYTES],
        }
    }
}

impl CoreRegs {
    fn copy_from(&mut self, rf: &RegFile) {
        self.bytes.copy_from_slice(&rf.bytes[..CORE_BYTES]);
        self.known.copy_from_slice(&rf.known[..CORE_BYTES]);
    }

    /// Copies the 8-byte slots set in `slots` (bit i: bytes 8i..8i+8).
    fn copy_slots(&mut self, rf: &RegFile, mut slots: u32) {
        while slots != 0 {
            let o = slots.trailing_zeros() as usize * 8;
            slots &= slots - 1;
            self.bytes[o..o + 8].copy_from_slice(&rf.bytes[o..o + 8]);
            self.known[o..o + 8].copy_from_slice(&rf.known[o..o + 8]);
        }
    }

    /// Whether these differ from `rf`'s core registers.
    fn differs(&self, rf: &RegFile) -> bool {
        self.bytes[..] != rf.bytes[..CORE_BYTES] || self.known[..] != rf.known[..CORE_BYTES]
    }

    fn reg_value(&self, reg: RegId, aarch64: bool) -> Option<u64> {
        let (o, s) = regfile::location(reg, aarch64);
        if o + s > CORE_BYTES || s > 8 {
            return None;
        }
        let mut v = 0u64;
        for i in (0..s).rev() {
            if self.known[o + i] == 0 {
                return None;
            }
            v = (v << 8) | u64::from(self.bytes[o + i]);
        }
        Some(v)
    }
}

/// The 8-byte slots of the core registers that `len` bytes written at
/// `offset` touch, as a [`CoreRegs::copy_slots`] mask.
fn core_slots(offset: usize, len: usize) -> u32 {
    let end = (offset + len.max(1)).min(CORE_BYTES);
    if offset >= end {
        return 0;
    }
    let (first, last) = (offset / 8, (end - 1) / 8);
    ((1u64 << (last + 1)) - (1u64 << first)) as u32
}

/// Receives what the engine sees. Every method has an empty default, so an
/// observer implements only what it wants. The index builder is one; so is
/// every report, and so can a report of one's own be.
///
/// # Examples
///
/// Counting the instructions that failed their condition, in one pass of
/// the [`Engine`] over a trace (the crate's `custom_report` example does
/// more):
///
/// ```
/// use tarmac_lens_core::EngineOptions;
/// use tarmac_lens_core::Effect;
/// use tarmac_lens_core::read_sample;
/// use tarmac_lens_core::{Engine, LineReader, Observer, ParseOptions, Parser, SliceSource};
///
/// #[derive(Default)]
/// struct Failed(Vec<u64>);
///
/// impl Observer for Failed {
///     fn instruction(&mut self, pc: u64, effect: Effect) {
///         if effect == Effect::CondFail {
///             self.0.push(pc);
///         }
///     }
/// }
///
/// let trace = "\
/// 1 clk IT (1) 00008000 e3500000 A svc_s : CMP r0,#0
/// 2 clk IS (2) 00008004 0a000001 A svc_s : BEQ {pc}+0xc
/// 3 clk IT (3) 00008008 e3a00001 A svc_s : MOV r0,#1
/// ";
/// let mut source = SliceSource(trace.as_bytes());
/// let mut parser = Parser::for_sample(ParseOptions::default(), &read_sample(&mut source)?);
/// let mut engine = Engine::new(EngineOptions::default());
/// let mut lines = LineReader::new(source);
/// let mut observer = Failed::default();
/// let mut next_line = 1;
/// while let Some(line) = lines.next_line()? {
///     let record = parser.parse_line(line.text);
///     engine.feed(&line, &record, &mut observer);
///     next_line = line.number + 1;
/// }
/// engine.finish(lines.position(), next_line, &mut observer);
/// assert_eq!(observer.0, [0x8004]);
/// # Ok::<(), tarmac_lens_core::Error>(())
/// ```
#[allow(unused_variables)]
pub trait Observer {
    /// A node ended; `engine` holds the state after it.
    fn node(&mut self, node: &Node, engine: &Engine) {}
    /// An instruction of the selected core was fed (executed or not).
    fn instruction(&mut self, pc: u64, effect: Effect) {}
    /// The same instruction's record, in the open node (its encoding, for
    /// what it reads).
    fn instruction_record(&mut self, node: u64, ins: &Instruction<'_>) {}
    /// Register bytes written (`known[i] == 0` bytes untouched) in the open node.
    fn reg_write(&mut self, node: u64, offset: usize, bytes: &[u8], known: &[u8]) {}
    /// A run of memory bytes written with known values in the open node
    /// (`bytes[i]` is the byte at `addr + i`).
    fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {}
    /// Memory made unknown in the open node (a write without data, or a
    /// semihosting call that may have written it).
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {}
    /// A read revealed a byte that was not known; it held that value since
    /// `fill.since` (a node index, or the start of the trace).
    fn mem_fill(&mut self, node: u64, fill: Fill) {}
    /// Memory read in the open node (a load, or the read half of an atomic
    /// update): `bytes[i]` at `addr + i`, its value given where `known[i]`
    /// is nonzero. A diagram's first to last byte accessed.
    fn mem_read(&mut self, node: u64, addr: u64, bytes: &[u8], known: &[u8]) {}
    /// A call was confirmed by its return.
    fn call(&mut self, call: &Call) {}
    /// Call-heuristic diagnostics (`--debug=call_heuristics`).
    fn debug(&mut self, text: &str) {}
    /// Asked right after [`Observer::node`]: whether the engine should start
    /// afresh from here as a parallel-indexing split point (it does only
    /// where its control state no longer depends on the past).
    fn split_here(&mut self) -> bool {
        false
    }
    /// Replays of the index only (the engine never calls it): a line is
    /// about to be parsed and fed; false ends the replay before it.
    fn line(&mut self, line: &Line<'_>) -> bool {
        true
    }
    /// Replays of the index only: whether the observer has what it wanted,
    /// asked after each line, so the rest of the interval is not read.
    fn done(&self) -> bool {
        false
    }
}

/// Observer that ignores everything.
pub(crate) struct NoObserver;
impl Observer for NoObserver {}

/// How the engine reads the trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineOptions {
    /// The traced CPU is big-endian (as the parser was told): words the
    /// engine reads from memory, such as semihosting parameter blocks, are
    /// big-endian.
    pub big_endian: bool,
    /// Produce call-heuristic diagnostics.
    pub debug_calls: bool,
    /// Follow this core of a multi-core trace: only its lines drive
    /// registers, nodes and calls (a line without a `<cpu>` field belongs
    /// to the core of the line before); the other cores' memory writes still
    /// update memory.
    pub cpu: Option<CpuName>,
}

/// What a record means to the node structure.
enum EventClass {
    None,
    Other,
    Instruction,
}

fn classify(kind: &RecordKind<'_>) -> EventClass {
    match kind {
        RecordKind::Instruction(_) => EventClass::Instruction,
        RecordKind::Register(r) => {
            if r.reg.is_some() && r.known.iter().any(|&k| k != 0) {
                EventClass::Other
            } else {
                EventClass::None
            }
        }
        RecordKind::RegisterList(l) => {
            if l.entries.iter().any(|e| e.reg.is_some()) {
                EventClass::Other
            } else {
                EventClass::None
            }
        }
        RecordKind::Memory(m) => {
            if m.accessed.iter().any(|&a| a != 0) {
                EventClass::Other
            } else {
                EventClass::None
            }
        }
        // A line not understood is no event: its timestamp (garbage may
        // start with digits) neither opens a node nor moves the clamp; it
        // stays in the node before it, as a blank line does.
        RecordKind::Blank
        | RecordKind::Comment
        | RecordKind::Header(_)
        | RecordKind::SystemOp(_)
        | RecordKind::CoprocTransfer(_)
        | RecordKind::Unparsed(_) => EventClass::None,
        _ => EventClass::Other,
    }
}

/// The machine model: registers, memory, node boundaries and call detection,
/// fed one record at a time.
///
/// Feed it every line of a trace in order ([`Engine::feed`], with the
/// record a [`Parser`] made of it), then [`Engine::finish`]; it tells an
/// [`Observer`] what happens (see its example). Between lines,
/// [`Engine::regs`] and [`Engine::memory`] hold the state so far.
pub struct Engine {
    opts: EngineOptions,
    regs: RegFile,
    /// Core registers as they stood at the end of the previous node: the
    /// reference indexer reads sp, lr, r0 and r1 from its last committed
    /// state, so call detection and semihosting must too.
    committed: CoreRegs,
    /// The core register slots written in the open node (see
    /// [`core_slots`]): closing a node copies only these to `committed`,
    /// not all 512 bytes, which cost 5% of indexing when done per node.
    core_dirty: u32,
    /// `committed` may differ from `regs` outside `core_dirty` (after a
    /// decode or a rebase): the next commit copies everything, as it did
    /// when commits always copied everything.
    core_stale: bool,
    mem: Memory,
    calls: CallDetector,

    current_time: Option<u64>,
    seen_instruction: bool,
    seen_any_event: bool,
    node_index: u64,
    node_first_line: u64,
    node_offset: u64,
    node_pc: u64,
    /// The open node's time as its first line gives it (not clamped).
    node_own_time: u64,
    /// Where the node before the open one is (call detection's
    /// "previous"): a `Site`, not the `Node`, so closing a node copies
    /// less (1% of indexing's instructions).
    prev_site: Option<Site>,

    expected_next_pc: u64,
    expected_next_lr: u64,
    insns_since_lr_update: u64,
    iflags: u32,
    aarch64_used: bool,
    instructions: u64,

    /// lr was written or a transfer of control seen: from here on
    /// `insns_since_lr_update` no longer depends on what came before.
    synced: bool,
    /// Running from a split point ([`Engine::split_ready`]).
    split: Option<SplitInfo>,
    /// Whose lines this engine follows, in a multi-core trace.
    core: Option<CoreSelect>,
}

/// Everything needed to restart the model at a node boundary (register file
/// aside, memory is not restored: queries rebuild what they need).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ResumeState {
    /// Index the next node will get.
    pub(crate) node_index: u64,
    /// Time of the previous node (timestamps are clamped to it).
    pub(crate) current_time: Option<u64>,
    pub(crate) expected_next_pc: u64,
    pub(crate) expected_next_lr: u64,
    pub(crate) insns_since_lr_update: u64,
    pub(crate) instructions: u64,
}

impl Engine {
    /// The state to save at a node boundary, to resume from with
    /// [`Engine::resume`]. Only meaningful between nodes (in
    /// [`Observer::node`]), where the open node is the next one.
    pub(crate) fn resume_state(&self) -> ResumeState {
        ResumeState {
            node_index: self.node_index,
            current_time: self.current_time,
            expected_next_pc: self.expected_next_pc,
            expected_next_lr: self.expected_next_lr,
            insns_since_lr_update: self.insns_since_lr_update,
            instructions: self.instructions,
        }
    }

    /// An engine restarted at a node boundary with the given registers.
    pub(crate) fn resume(opts: EngineOptions, state: &ResumeState, regs: RegFile) -> Engine {
        let mut e = Engine::new(opts);
        e.iflags = regs.iflags();
        e.committed.copy_from(&regs);
        e.regs = regs;
        e.node_index = state.node_index;
        e.current_time = state.current_time;
        e.expected_next_pc = state.expected_next_pc;
        e.expected_next_lr = state.expected_next_lr;
        e.insns_since_lr_update = state.insns_since_lr_update;
        e.instructions = state.instructions;
        e
    }

    /// A model at the start of a trace: no registers or memory known.
    pub fn new(opts: EngineOptions) -> Engine {
        Engine {
            opts,
            regs: RegFile::default(),
            committed: CoreRegs::default(),
            core_dirty: 0,
            core_stale: false,
            mem: Memory::default(),
            calls: CallDetector::default(),
            current_time: None,
            seen_instruction: false,
            seen_any_event: false,
            node_index: 0,
            node_first_line: 0,
            node_offset: 0,
            node_pc: INVALID_PC,
            node_own_time: 0,
            prev_site: None,
            expected_next_pc: INVALID_PC,
            expected_next_lr: 0,
            insns_since_lr_update: 0,
            iflags: 0,
            aarch64_used: false,
            instructions: 0,
            synced: false,
            split: None,
            core: opts.cpu.map(CoreSelect::new),
        }
    }

    /// The register file as it stands (after the lines fed so far).
    pub fn regs(&self) -> &RegFile {
        &self.regs
    }

    /// Memory as it stands.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    pub(crate) fn aarch64_used(&self) -> bool {
        self.aarch64_used
    }

    /// Instruction records seen so far.
    pub(crate) fn instructions(&self) -> u64 {
        self.instructions
    }

    /// Index of the node the last line fed is in (or opens).
    pub(crate) fn open_node_index(&self) -> u64 {
        self.node_index
    }

    /// Index the next node will get.
    pub(crate) fn next_node_index(&self) -> u64 {
        self.node_index + u64::from(self.seen_any_event)
    }

    /// Potential calls still waiting for a return: at the end of a trace,
    /// the calls that never returned (their frames are still live: sp never
    /// rose above them).
    pub(crate) fn pending_calls_list(&self) -> Vec<(Site, Site)> {
        self.calls.pending_list()
    }

    fn aarch64(&self) -> bool {
        self.iflags & regfile::IFLAG_AARCH64 != 0
    }

    fn sp_reg(&self) -> RegId {
        if self.aarch64() {
            RegId::new(RegClass::Xsp, 0)
        } else {
            RegId::new(RegClass::R, 13)
        }
    }

    fn lr_reg(&self) -> RegId {
        if self.aarch64() {
            RegId::new(RegClass::X, 30)
        } else {
            RegId::new(RegClass::R, 14)
        }
    }

    fn current_site(&self) -> Site {
        Site {
            time: self.current_time.unwrap_or(0),
            line: self.node_first_line,
            pc: self.node_pc,
            offset: self.node_offset,
            node: self.node_index,
        }
    }

    /// Closes the open node at `end_offset` (the start of the line that opens
    /// the next one, or the end of the trace).
    fn close_node(&mut self, end_offset: u64, line: u64, obs: &mut dyn Observer) {
        if self.seen_any_event && end_offset != self.node_offset {
            let node = Node {
                at: self.current_site(),
                lines: line - self.node_first_line,
                len: end_offset - self.node_offset,
                instructions_before: self.instructions - u64::from(self.node_pc != INVALID_PC),
                own_time: self.node_own_time,
            };
            self.node_index += 1;
            self.prev_site = Some(node.at);
            obs.node(&node, self);
            let split = obs.split_here();
            self.commit_core();
            if split {
                self.begin_split();
            }
            return;
        }
        self.commit_core();
    }

    /// Makes `committed` the registers as they stand, if a core register
    /// was written since it last was.
    fn commit_core(&mut self) {
        if self.core_dirty == 0 {
            return;
        }
        if self.core_stale {
            self.committed.copy_from(&self.regs);
            self.core_stale = false;
        } else {
            self.committed.copy_slots(&self.regs, self.core_dirty);
        }
        self.core_dirty = 0;
    }

    /// Processes one line: `rec` is what the trace's [`Parser`] made of
    /// `line`. Lines must come in order, each once; a node that ends is
    /// reported to `obs` when the line that starts the next one arrives.
    pub fn feed(&mut self, line: &Line<'_>, rec: &Record<'_>, obs: &mut dyn Observer) {
        if let Some(core) = &mut self.core {
            if !core.line(rec.cpu) {
                self.other_core(rec, obs);
                return;
            }
        }
        let class = classify(&rec.kind);
        let is_instruction = match class {
            EventClass::None => return,
            EventClass::Instruction => true,
            EventClass::Other => false,
        };
        let ev_time = match self.current_time {
            Some(t) if rec.time <= t => t,
            _ => rec.time,
        };
        let was_event = self.seen_any_event;
        let boundary = !self.seen_any_event
            || Some(ev_time) != self.current_time
            || (self.seen_instruction && is_instruction);
        if boundary {
            self.close_node(line.offset, line.number, obs);
            if self.current_time != Some(ev_time) {
                self.current_time = Some(ev_time);
                self.seen_instruction = false;
            }
            self.node_pc = INVALID_PC;
            self.node_offset = line.offset;
            self.node_first_line = line.number;
            self.node_own_time = rec.time;
            self.seen_any_event = true;
        }
        if is_instruction {
            self.seen_instruction = true;
        }
        if let Some(s) = &mut self.split {
            s.shadow(rec.time, boundary, was_event, is_instruction);
        }
        let node = self.node_index;
        match &rec.kind {
            RecordKind::Instruction(i) => self.instruction(i, obs),
            RecordKind::Register(r) => {
                if let Some(reg) = r.reg {
                    self.register(reg, r.bytes, r.known, obs);
                }
            }
            RecordKind::RegisterList(l) => {
                for e in l.entries {
                    if let Some(reg) = e.reg {
                        let width = (usize::from(e.digits).div_ceil(2))
                            .clamp(1, 8)
                            .min(reg.size());
                        let bytes = e.value.to_le_bytes();
                        self.register(reg, &bytes[..width], &[1u8; 8][..width], obs);
                    }
                }
            }
            RecordKind::Memory(m) => self.memory_access(node, m, obs),
            _ => {}
        }
    }

    /// Another core's line: memory is shared, so its writes land in the
    /// current node (they happened no later than the next line of this
    /// core); its registers, instructions and reads are not this core's.
    fn other_core(&mut self, rec: &Record<'_>, obs: &mut dyn Observer) {
        if let RecordKind::Memory(m) = &rec.kind {
            if m.direction != MemDirection::Read {
                self.memory_access(self.node_index, m, obs);
            }
        }
    }

    /// Ends the trace: closes the last node. `end_offset` is where the last
    /// line ended (`LineReader::position`), `next_line` the number the
    /// next line would have had.
    pub fn finish(&mut self, end_offset: u64, next_line: u64, obs: &mut dyn Observer) {
        self.close_node(end_offset, next_line, obs);
        self.seen_any_event = false;
    }

    fn register(&mut self, reg: RegId, bytes: &[u8], known: &[u8], obs: &mut dyn Observer) {
        let (offset, _) = regfile::location(reg, self.aarch64());
        if !self.regs.write(offset, bytes, known) {
            return;
        }
        self.core_dirty |= core_slots(offset, bytes.len());
        obs.reg_write(self.node_index, offset, bytes, known);
        let len = bytes.len();
        let aarch64 = self.aarch64();
        if RegFile::overlaps(self.sp_reg(), aarch64, offset, len) {
            // The committed value, as the reference indexer reads it.
            let sp = self.committed.reg_value(self.sp_reg(), aarch64);
            if sp.is_none() {
                self.assume_unknown(self.sp_reg());
            }
            if let Some(sp) = sp {
                self.calls.sp_changed(sp);
            }
        }
        if RegFile::overlaps(self.lr_reg(), aarch64, offset, len) {
            self.insns_since_lr_update = 0;
            // Before the first instruction, that instruction may yet be a
            // transfer of control for a pass that saw the one before.
            self.synced |= self.expected_next_pc != INVALID_PC;
        }
    }

    fn memory_access(&mut self, node: u64, m: &MemoryAccess<'_>, obs: &mut dyn Observer) {
        let read = m.direction == MemDirection::Read;
        let n = m.bytes.len();
        if m.direction != MemDirection::Write {
            // Diagrams mark the bytes accessed; the span from the first to
            // the last is what a read watchpoint matches.
            if let (Some(first), Some(last)) = (
                m.accessed.iter().position(|&a| a != 0),
                m.accessed.iter().rposition(|&a| a != 0),
            ) {
                let addr = m.addr.wrapping_add(first as u64);
                let known = m.known.get(first..=last).unwrap_or(&[]);
                obs.mem_read(node, addr, &m.bytes[first..=last], known);
            }
        }
        if read {
            for i in 0..n {
                if m.accessed[i] != 0 && m.known[i] != 0 {
                    let addr = m.addr.wrapping_add(i as u64);
                    if let Some(fill) = self.mem.read_known(addr, m.bytes[i]) {
                        obs.mem_fill(node, fill);
                    }
                }
            }
            return;
        }
        // Writes go by runs: known runs set bytes and end unknown ranges;
        // unknown runs start new ones.
        let mut i = 0;
        while i < n {
            if m.accessed[i] == 0 {
                i += 1;
                continue;
            }
            let known = m.known[i] != 0;
            let s = i;
            while i < n && m.accessed[i] != 0 && (m.known[i] != 0) == known {
                i += 1;
            }
            let addr = m.addr.wrapping_add(s as u64);
            let len = (i - s) as u64;
            if known {
                for (j, &b) in m.bytes[s..i].iter().enumerate() {
                    self.mem.write_known(addr.wrapping_add(j as u64), b);
                }
                self.mem.note_written_range(addr, len);
                obs.mem_write(node, addr, &m.bytes[s..i]);
            } else {
                self.mem.write_unknown(addr, len, node);
                obs.mem_unknown(node, addr, len);
            }
        }
    }

    fn instruction(&mut self, ins: &Instruction<'_>, obs: &mut dyn Observer) {
        self.instructions += 1;
        self.insns_since_lr_update += 1;
        let thumb = ins.iset == ISet::Thumb;
        let adjusted_pc = ins.pc | u64::from(thumb);

        obs.instruction(ins.pc, ins.effect);
        obs.instruction_record(self.node_index, ins);
        if ins.effect == Effect::Executed {
            self.semihosting(ins, obs);
        }

        let mut iflags = 0;
        if ins.iset.is_aarch64() {
            iflags |= regfile::IFLAG_AARCH64;
            self.aarch64_used = true;
        }
        if self.opts.big_endian {
            iflags |= regfile::IFLAG_BIGEND;
        }
        // sp and lr live elsewhere in the other execution state: a range
        // that started at a split reads them as the sequential pass does
        // where it knows them, and notes where it does not
        // (`assume_unknown`).
        self.iflags = iflags;
        if self.regs.value(regfile::IFLAGS, 4) != Some(u64::from(iflags)) {
            let b = iflags.to_le_bytes();
            self.regs.write(regfile::IFLAGS, &b, &[1; 4]);
            obs.reg_write(self.node_index, regfile::IFLAGS, &b, &[1; 4]);
        }

        let next_pc = adjusted_pc.wrapping_add(u64::from(ins.width / 8));
        self.update_pc(adjusted_pc, next_pc, thumb, obs);
    }

    fn update_pc(&mut self, pc: u64, next_pc: u64, thumb: bool, obs: &mut dyn Observer) {
        if self.expected_next_pc != INVALID_PC && (pc ^ self.expected_next_pc) & !1 != 0 {
            let aarch64 = self.aarch64();
            let sp = self.committed.reg_value(self.sp_reg(), aarch64);
            // An sp not written since a range's split is the one the
            // sequential pass held there: the transfer is logged with where
            // to read it (`unknown` makes every transfer logged) and the
            // stitch replays it with that value (`sp_from_split`).
            let sp_from_split = if sp.is_none() {
                self.sp_from_split()
            } else {
                None
            };
            if sp.is_none() && sp_from_split.is_none() {
                self.assume_unknown(self.sp_reg());
            }
            let sp = sp.unwrap_or(u64::MAX);
            let lr = self.committed.reg_value(self.lr_reg(), aarch64);
            if lr.is_none() && self.insns_since_lr_update < 8 {
                // Not (all) written since a split: the rest may be known
                // before it.
                self.assume_unknown(self.lr_reg());
            }
            if self.opts.debug_calls {
                obs.debug(&format!(
                    "transfer of control @ {}, sp={:x}, pc={:x}",
                    self.node_first_line, sp, pc
                ));
            }
            let lr_candidate = lr.filter(|&lr| {
                self.insns_since_lr_update < 8 && lr.abs_diff(self.expected_next_lr) < 64
            });
            let previous = self.prev_site.unwrap_or_default();
            let mut current = self.current_site();
            current.pc = pc;
            match self
                .calls
                .transfer(sp, sp_from_split, pc, lr_candidate, previous, current)
            {
                Transfer::Return(call) => {
                    if self.opts.debug_calls {
                        obs.debug(&format!(
                            "  looks like return for call @ {}",
                            call.entry.line
                        ));
                    }
                    obs.call(&call);
                }
                Transfer::PotentialCall { sp, lr } => {
                    if self.opts.debug_calls {
                        obs.debug(&format!(
                            "  inserting as pending call with sp={:x} lr={:x}",
                            sp, lr
                        ));
                    }
                }
                Transfer::Neither => {}
            }
            // An lr write qualifies only the first transfer of control after
            // it.
            self.insns_since_lr_update = u64::MAX / 2;
            self.synced = true;
        }
        self.node_pc = pc;
        self.expected_next_pc = next_pc;
        self.expected_next_lr = next_pc | u64::from(thumb);
    }

    /// Whether a semihosting call's region is the same whatever the state
    /// before the split: its operands were written since.
    fn semihosting_determined(&self, op: Option<u64>, block: Option<u64>, w: u64) -> bool {
        let words: &[u64] = match op {
            None => return false,
            Some(0x06) => &[1, 2],
            Some(0x0d) => &[0, 2],
            Some(0x15) => &[0, 1],
            Some(0x16) => &[0],
            Some(0x30) => &[],
            Some(_) => return true,
        };
        let Some(b) = block else {
            return false;
        };
        words
            .iter()
            .all(|&i| self.mem.determined(b.wrapping_add(i * w), w))
    }

    /// Semihosting calls write memory the trace does not show: mark the
    /// region they may write unknown, so a later read back-dates its
    /// contents to the call (manual, appendix on semihosting).
    fn semihosting(&mut self, ins: &Instruction<'_>, obs: &mut dyn Observer) {
        let e = ins.encoding;
        let is_call = match ins.iset {
            ISet::Thumb => e == 0xbeab || e == 0xdfab || e == 0xbabc,
            ISet::Arm => (e & 0x0fff_ffff) == 0x0f12_3456 || (e & 0x0fff_ffff) == 0x010f_0070,
            ISet::A64 | ISet::C64 => e == 0xd45e_0000,
            ISet::ThumbEE => false,
        };
        if !is_call {
            return;
        }
        let a64 = ins.iset.is_aarch64();
        let (op_reg, blk_reg, word) = if a64 {
            (
                RegId::new(RegClass::X, 0),
                RegId::new(RegClass::X, 1),
                8usize,
            )
        } else {
            (
                RegId::new(RegClass::R, 0),
                RegId::new(RegClass::R, 1),
                4usize,
            )
        };
        let aarch64 = self.aarch64();
        let op = self.committed.reg_value(op_reg, aarch64);
        let be = self.opts.big_endian;
        let w = word as u64;
        let block = self.committed.reg_value(blk_reg, aarch64);
        if self.split.is_some() && !self.semihosting_determined(op, block, w) {
            if let Some(s) = &mut self.split {
                s.undetermined = true;
            }
        }
        let op = op.unwrap_or(0);
        let mem = &self.mem;
        let read = |addr: u64| mem.value(addr, word, be);
        let region = match (op, block) {
            (0x06, Some(b)) => read(b.wrapping_add(w)).zip(read(b.wrapping_add(2 * w))),
            (0x0d, Some(b)) => read(b).zip(read(b.wrapping_add(2 * w))),
            (0x15, Some(b)) => read(b).zip(read(b.wrapping_add(w))),
            (0x16, Some(b)) => read(b).map(|s| (s, 4 * w)),
            (0x30, Some(b)) => Some((b, 2 * w)),
            _ => None,
        };
        if let Some((start, len)) = region {
            if len > 0 {
                let node = self.node_index;
                self.mem.write_unknown(start, len, node);
                obs.mem_unknown(node, start, len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_slots_cover_the_bytes_written() {
        assert_eq!(core_slots(0, 4), 1);
        assert_eq!(core_slots(0, 8), 1);
        assert_eq!(core_slots(4, 8), 0b11);
        assert_eq!(core_slots(regfile::XSP, 8), 1 << 31);
        assert_eq!(core_slots(regfile::XSP + 4, 16), 1 << 31);
        assert_eq!(core_slots(0, CORE_BYTES), u32::MAX);
        assert_eq!(core_slots(CORE_BYTES, 8), 0);
        assert_eq!(core_slots(regfile::PSR, 4), 0);
    }

    #[test]
    fn committing_slots_gives_what_copying_everything_gives() {
        let mut regs = RegFile::default();
        let mut whole = CoreRegs::default();
        let mut slotted = CoreRegs::default();
        for (i, (offset, len)) in [(0, 8), (12, 4), (40, 16), (248, 8), (250, 2), (100, 1)]
            .into_iter()
            .enumerate()
        {
            let bytes = vec![i as u8 + 1; len];
            regs.write(offset, &bytes, &vec![1; len]);
            whole.copy_from(&regs);
            slotted.copy_slots(&regs, core_slots(offset, len));
            assert!(
                !slotted.differs(&regs),
                "after writing {len} bytes at {offset}"
            );
            assert_eq!(whole.bytes, slotted.bytes);
        }
    }
}
