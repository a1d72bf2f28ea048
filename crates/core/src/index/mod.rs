//! The index: what is needed to answer "where", "what state" and "who wrote
//! it" questions about any position of a trace, without keeping the trace.
//!
//! Design (see ARCHITECTURE.md): one streaming pass runs the [`Engine`] and
//! keeps, about every [`IndexOptions::checkpoint_bytes`] bytes, a *checkpoint*
//! (position, time, engine resume state, sparse register snapshot); per
//! checkpoint interval, a bitmap of register groups written and the memory
//! diff ([`memdiff`]); and the confirmed calls. A query restores the nearest
//! checkpoint and replays at most one interval of trace text, read from the
//! [`TraceSource`] on demand. Positions are node indices (the reference
//! tools' unit: one instruction with its register and memory lines); "state
//! at node N" means after node N's lines.

mod calls;
mod depth;
pub mod events;
mod memdiff;
pub mod parallel;
pub mod range_job;
mod serialize;
pub(crate) mod varint;

use crate::engine::{Call, Engine, EngineOptions, Node, Observer, ResumeState};
use crate::lines::{Line, LineReader};
use crate::parse::{Dialect, ParseOptions, Parser, ParserState, RegId};
use crate::source::{SourceError, TraceSource};
use crate::state::memory::Fill;
use crate::state::regfile::{self, RegFile};

pub use calls::{CallInfo, CallTable, Nesting};
pub use depth::{bucket_bounds, bucket_start, TIMELINE_BUCKETS};
pub use events::{Event, EventKind, EventList};
pub use serialize::{IndexEncoder, IndexFileError, TraceIdentity, INDEX_MAGIC};

use memdiff::MemHistory;

/// Index construction options.
#[derive(Clone, Copy, Debug)]
pub struct IndexOptions {
    pub parse: ParseOptions,
    /// Checkpoint spacing in trace bytes, about the most a query replays:
    /// a node ends an interval when the next node starts in a later
    /// multiple of it. Bytes, not a node count, so that where intervals end
    /// depends only on the node itself, which lets ranges of a trace be
    /// indexed in parallel ([`parallel`]).
    pub checkpoint_bytes: u64,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            parse: ParseOptions::default(),
            checkpoint_bytes: 64 << 10,
        }
    }
}

impl IndexOptions {
    fn engine(&self) -> EngineOptions {
        EngineOptions {
            big_endian: self.parse.big_endian,
            debug_calls: false,
            cpu: self.parse.cpu,
        }
    }

    /// Whether `node` is the last of its checkpoint interval.
    fn ends_interval(&self, node: &Node) -> bool {
        let b = self.checkpoint_bytes.max(1);
        (node.offset + node.len) / b > node.offset / b
    }
}

/// Where a checkpoint interval starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    /// First line and byte offset of the interval's first node.
    line: u64,
    offset: u64,
    /// Timestamp the parser carries into the first line.
    parser_time: u64,
    resume: ResumeState,
    /// Start of the register snapshot in `Index::snapshots`.
    snapshot: u64,
}

/// A node as queries return it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    pub index: u64,
    pub first_line: u64,
    pub lines: u64,
    pub offset: u64,
    pub len: u64,
    pub time: u64,
    /// Instruction address with the Thumb bit for Thumb code, or
    /// [`crate::engine::INVALID_PC`].
    pub pc: u64,
    /// Instructions before this node (IT/IS/ES records).
    pub instructions_before: u64,
}

/// Memory contents over a range: `known[i]` tells whether `bytes[i]` is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemView {
    pub addr: u64,
    pub bytes: Vec<u8>,
    pub known: Vec<bool>,
}

/// Errors a query can meet.
#[derive(Debug)]
pub enum QueryError {
    Source(SourceError),
    /// The position is beyond what has been indexed.
    OutOfRange(String),
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::Source(e) => write!(f, "reading trace: {}", e),
            QueryError::OutOfRange(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for QueryError {}

impl From<SourceError> for QueryError {
    fn from(e: SourceError) -> Self {
        QueryError::Source(e)
    }
}

/// Summary figures of an index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexSummary {
    pub bytes: u64,
    pub lines: u64,
    pub nodes: u64,
    pub instructions: u64,
    pub calls: u64,
}

/// The index of one trace.
pub struct Index {
    opts: IndexOptions,
    dialect: Dialect,
    checkpoints: Vec<Checkpoint>,
    /// Sparse register snapshots: per checkpoint, varint count, then
    /// (varint offset delta, varint length, bytes) runs of known bytes.
    snapshots: Vec<u8>,
    /// Per closed interval: register groups written ([`regfile::group_of`]).
    reg_groups: Vec<[u64; 2]>,
    /// Per closed interval: a 256-bit Bloom filter of instruction addresses,
    /// so a PC search skips intervals that never executed it.
    pc_blooms: Vec<[u64; 4]>,
    mem: MemHistory,
    calls: CallTable,
    events: EventList,
    summary: IndexSummary,
    /// Whether the whole trace has been indexed.
    complete: bool,
    aarch64_used: bool,
    /// First line holding an event (the reference tools number from it).
    first_event_line: Option<u64>,
}

/// Known byte runs of a register file, in order, without allocating.
fn for_known_runs(regs: &RegFile, mut f: impl FnMut(usize, &[u8])) {
    let known = &regs.known[..];
    let mut i = 0;
    while i < known.len() {
        if known[i] == 0 {
            // Most of the file (SVE, predicates) is usually unknown: skip
            // it eight bytes at a time.
            if i % 8 == 0 && i + 8 <= known.len() && known[i..i + 8] == [0; 8] {
                i += 8;
            } else {
                i += 1;
            }
            continue;
        }
        let s = i;
        while i < known.len() && known[i] != 0 {
            i += 1;
        }
        f(s, &regs.bytes[s..i]);
    }
}

fn encode_snapshot(out: &mut Vec<u8>, regs: &RegFile) {
    let mut runs = 0u64;
    for_known_runs(regs, |_, _| runs += 1);
    varint::put(out, runs);
    let mut prev = 0usize;
    for_known_runs(regs, |off, bytes| {
        varint::put(out, (off - prev) as u64);
        varint::put(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
        prev = off;
    });
}

/// Writes the known runs of the snapshot at `start` over `rf`.
fn apply_snapshot(buf: &[u8], start: u64, rf: &mut RegFile) {
    let mut pos = start as usize;
    let n = varint::get(buf, &mut pos).unwrap_or(0);
    let mut off = 0usize;
    for _ in 0..n {
        let (Some(d), Some(len)) = (varint::get(buf, &mut pos), varint::get(buf, &mut pos)) else {
            break;
        };
        off += d as usize;
        let len = len as usize;
        let Some(bytes) = buf.get(pos..pos + len) else {
            break;
        };
        if off + len <= regfile::SIZE {
            rf.bytes[off..off + len].copy_from_slice(bytes);
            rf.known[off..off + len].fill(1);
        }
        pos += len;
    }
}

fn decode_snapshot(buf: &[u8], start: u64) -> RegFile {
    let mut rf = RegFile::default();
    apply_snapshot(buf, start, &mut rf);
    rf
}

/// Builds an index while the trace streams past. Feed it every line with
/// [`IndexBuilder::line`]; queries work on the part indexed so far through
/// [`IndexBuilder::index`].
pub struct IndexBuilder {
    parser: Parser,
    engine: Engine,
    acc: Accumulator,
    next_line: u64,
    /// The calls' encoding, once [`IndexBuilder::finish_step`] began.
    finishing: Option<calls::CallsFinish>,
}

/// The observer half of the builder: what the engine reports lands here.
struct Accumulator {
    index: Index,
    /// Parser time before the line being fed (for checkpoints).
    parser_time_before: u64,
    groups: [u64; 2],
    bloom: [u64; 4],
    /// Parser state before the line being fed.
    parser_state_before: ParserState,
    /// Set for a builder that starts inside a trace: it looks for a split
    /// point ([`parallel`]).
    split: Option<SplitSeek>,
    /// The mode field of the last instruction that had one: a change is an
    /// event.
    mode: Option<Mode>,
}

/// An instruction's mode field (`EL3h_s`, `svc_s`), as written; longer
/// ones are cut, which only merges modes no trace has.
pub(crate) type Mode = ([u8; 16], u8);

/// Whether `text` is the mode `(m, n)` (as [`mode_of`] would make it).
fn same_mode(m: &[u8; 16], n: u8, text: &[u8]) -> bool {
    let n = usize::from(n);
    text.len().min(16) == n && m[..n] == text[..n]
}

fn mode_of(text: &[u8]) -> Mode {
    let n = text.len().min(16);
    let mut m = [0u8; 16];
    m[..n].copy_from_slice(&text[..n]);
    (m, n as u8)
}

/// A range builder's split point and what it saw after it.
#[derive(Default)]
pub(crate) struct SplitSeek {
    /// Parser state before the first line after the split.
    parser_state: Option<ParserState>,
    /// Reads since the split of bytes it had not seen, in order: the stitch
    /// decides what they fill from the memory before the split.
    boundary_fills: Vec<(u64, u8)>,
    /// The split was just made: the engine is to start afresh.
    just_split: bool,
    /// The split was made without knowing sp: made again once it is known.
    tentative: bool,
    /// The instruction mode at the split: the stitch joins only if the
    /// sequential pass had the same (a mode change is an event).
    mode: Option<Mode>,
}

/// The two bit positions of a PC in a 256-bit Bloom filter.
fn bloom_bits(pc: u64) -> [usize; 2] {
    let h = (pc & !1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    [(h >> 56) as usize, ((h >> 48) & 0xff) as usize]
}

fn bloom_has(b: &[u64; 4], pc: u64) -> bool {
    bloom_bits(pc)
        .iter()
        .all(|&i| b[i / 64] & (1 << (i % 64)) != 0)
}

impl Observer for Accumulator {
    fn node(&mut self, node: &Node, engine: &Engine) {
        let idx = &mut self.index;
        if idx.first_event_line.is_none() {
            idx.first_event_line = Some(node.first_line);
        }
        idx.summary.nodes = node.index + 1;
        if node.pc != crate::engine::INVALID_PC {
            for i in bloom_bits(node.pc) {
                self.bloom[i / 64] |= 1 << (i % 64);
            }
        }
        if idx.opts.ends_interval(node) {
            // The node that ends an interval: close it and start the next.
            idx.reg_groups.push(self.groups);
            self.groups = [0; 2];
            idx.pc_blooms.push(self.bloom);
            self.bloom = [0; 4];
            idx.mem.close_interval();
            let snapshot = idx.snapshots.len() as u64;
            encode_snapshot(&mut idx.snapshots, engine.regs());
            idx.checkpoints.push(Checkpoint {
                line: node.first_line + node.lines,
                offset: node.offset + node.len,
                parser_time: self.parser_time_before,
                resume: engine.resume_state(),
                snapshot,
            });
            if let Some(seek) = &mut self.split {
                let ready = engine.split_ready();
                let split = match ready {
                    Some(sp_known) => seek.parser_state.is_none() || (seek.tentative && sp_known),
                    None => false,
                };
                if split {
                    seek.tentative = ready == Some(false);
                    seek.mode = self.mode;
                    seek.boundary_fills.clear();
                    seek.parser_state = Some(self.parser_state_before);
                    // Only what follows the split is kept; the stitch redoes
                    // the rest sequentially.
                    let cp = idx.checkpoints.pop().unwrap_or_default();
                    let mut fresh = Index::empty(idx.opts, idx.dialect);
                    fresh.snapshots =
                        std::mem::take(&mut idx.snapshots)[cp.snapshot as usize..].to_vec();
                    fresh.checkpoints.push(Checkpoint { snapshot: 0, ..cp });
                    fresh.summary = idx.summary;
                    *idx = fresh;
                    seek.just_split = true;
                }
            }
        }
    }
    fn split_here(&mut self) -> bool {
        self.split
            .as_mut()
            .is_some_and(|s| std::mem::take(&mut s.just_split))
    }
    fn reg_write(&mut self, _node: u64, offset: usize, bytes: &[u8], _known: &[u8]) {
        // Groups are contiguous byte ranges, so the first and last byte
        // bound the groups touched; the bitmap is a filter, so counting
        // unknown bytes in between does no harm.
        let first = regfile::group_of(offset);
        let last = regfile::group_of(offset + bytes.len().max(1) - 1);
        for g in first..=last {
            self.groups[g / 64] |= 1 << (g % 64);
        }
    }
    fn mem_write(&mut self, _node: u64, addr: u64, bytes: &[u8]) {
        self.index.mem.write_run(addr, bytes);
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        self.index.mem.unknown(addr, len, node);
    }
    fn mem_fill(&mut self, _node: u64, fill: Fill) {
        if let Some(seek) = &mut self.split {
            if fill.since.is_none() && seek.parser_state.is_some() {
                seek.boundary_fills.push((fill.addr, fill.value));
                return;
            }
        }
        self.index.mem.fill(fill.since, fill.addr, fill.value);
    }
    fn call(&mut self, call: &Call) {
        self.index.calls.push(call);
    }
}

/// Records the line as an event if it is one. Every event line opens
/// or joins a node (the engine counts it as an event), so the node
/// holding it is the one open now.
fn note_event(
    acc: &mut Accumulator,
    engine: &Engine,
    line: &Line<'_>,
    rec: &crate::parse::Record<'_>,
) {
    let mut kind = EventKind::of(&rec.kind);
    if let crate::parse::RecordKind::Instruction(i) = &rec.kind {
        // Compared in place: the mode is the same on almost every line, and
        // building a `Mode` per instruction cost 4% of indexing in wasm.
        if let Some(text) = i.mode {
            match &acc.mode {
                Some((m, n)) if same_mode(m, *n, text) => {}
                old => {
                    if old.is_some() {
                        kind = Some(EventKind::ModeChange);
                    }
                    acc.mode = Some(mode_of(text));
                }
            }
        }
    }
    if let Some(kind) = kind {
        acc.index.events.push(Event {
            line: line.number,
            node: engine.next_node_index().saturating_sub(1),
            offset: line.offset,
            kind,
        });
    }
}

impl IndexBuilder {
    /// `sample`: the first bytes of the trace, for dialect detection.
    pub fn new(opts: IndexOptions, sample: &[u8]) -> IndexBuilder {
        let parser = Parser::for_sample(opts.parse, sample);
        let engine = Engine::new(opts.engine());
        let mut index = Index::empty(opts, parser.dialect());
        // Checkpoint 0: the trace start.
        encode_snapshot(&mut index.snapshots, &RegFile::default());
        index.checkpoints.push(Checkpoint {
            line: 1,
            ..Checkpoint::default()
        });
        IndexBuilder {
            parser,
            engine,
            acc: Accumulator {
                index,
                parser_time_before: 0,
                groups: [0; 2],
                bloom: [0; 4],
                parser_state_before: ParserState::default(),
                split: None,
                mode: None,
            },
            next_line: 1,
            finishing: None,
        }
    }

    /// Feeds the next line of the trace.
    pub fn line(&mut self, line: &Line<'_>) {
        self.line_then(line, |_| {});
    }

    /// Feeds the next line, then shows its record to `f` (so other
    /// consumers need not parse it again).
    pub fn line_then(&mut self, line: &Line<'_>, f: impl FnOnce(&crate::parse::Record<'_>)) {
        self.acc.parser_time_before = self.parser.current_time();
        self.acc.parser_state_before = self.parser.state();
        let rec = self.parser.parse_line(line.text);
        self.engine.feed(line, &rec, &mut self.acc);
        note_event(&mut self.acc, &self.engine, line, &rec);
        f(&rec);
        self.next_line = line.number + 1;
        let s = &mut self.acc.index.summary;
        s.lines = line.number;
        s.bytes = line.offset + line.len + 1;
    }

    pub fn dialect(&self) -> Dialect {
        self.parser.dialect()
    }

    /// Whether any AArch64 instruction has been seen so far.
    pub fn aarch64_used(&self) -> bool {
        self.engine.aarch64_used()
    }

    /// The index so far (complete up to the last finished interval).
    pub fn index(&self) -> &Index {
        &self.acc.index
    }

    /// Ends the trace at `total_bytes` and returns the finished index.
    pub fn finish(mut self, total_bytes: u64) -> Index {
        while !self.finish_step(total_bytes, usize::MAX) {}
        self.into_index()
    }

    /// [`IndexBuilder::finish`] in steps, for a thread that answers
    /// questions between them: the first call closes the trace at
    /// `total_bytes` and sorts the calls, each call encodes up to `calls`
    /// of them; true when [`IndexBuilder::into_index`] may be called.
    /// Meanwhile [`IndexBuilder::index`] shows every node, and no calls.
    pub fn finish_step(&mut self, total_bytes: u64, calls: usize) -> bool {
        if self.finishing.is_none() {
            self.engine
                .finish(total_bytes, self.next_line, &mut self.acc);
            let index = &mut self.acc.index;
            // The final partial interval gets its diff and register groups
            // too, so every node belongs to a closed interval.
            index.reg_groups.push(self.acc.groups);
            index.pc_blooms.push(self.acc.bloom);
            index.mem.close_interval();
            index.summary.bytes = total_bytes;
            index.summary.instructions = self.engine.instructions();
            index.aarch64_used = self.engine.aarch64_used();
            index.events.shrink();
            let timeline = depth::bucket_bounds(TIMELINE_BUCKETS, index.summary.nodes);
            self.finishing = Some(
                index
                    .calls
                    .begin_finish(self.engine.pending_calls_list(), timeline),
            );
        }
        self.finishing
            .as_mut()
            .is_some_and(|job| job.step(calls.max(1)))
    }

    /// The finished index, once [`IndexBuilder::finish_step`] said so.
    pub fn into_index(mut self) -> Index {
        debug_assert!(self.finishing.is_some(), "into_index before finish_step");
        let mut index = self.acc.index;
        if let Some(job) = self.finishing.take() {
            job.install(&mut index.calls);
        }
        index.summary.calls = index.calls.len() as u64;
        index.complete = true;
        index
    }
}

impl Index {
    fn empty(opts: IndexOptions, dialect: Dialect) -> Index {
        Index {
            opts,
            dialect,
            checkpoints: Vec::new(),
            snapshots: Vec::new(),
            reg_groups: Vec::new(),
            pc_blooms: Vec::new(),
            mem: MemHistory::default(),
            calls: CallTable::default(),
            events: EventList::default(),
            summary: IndexSummary::default(),
            complete: false,
            aarch64_used: false,
            first_event_line: None,
        }
    }

    /// Indexes a whole source, reporting progress in bytes.
    pub fn build<S: TraceSource>(
        source: &mut S,
        opts: IndexOptions,
        mut progress: impl FnMut(u64),
    ) -> Result<Index, SourceError> {
        let total = source.len();
        let sample = crate::source::read_sample(source)?;
        let mut builder = IndexBuilder::new(opts, &sample);
        let mut reader = LineReader::new(SourceRef(source));
        let mut next_report = 0;
        while let Some(line) = reader.next_line()? {
            if line.offset >= next_report {
                progress(line.offset);
                next_report = line.offset + (8 << 20);
            }
            builder.line(&line);
        }
        progress(total);
        Ok(builder.finish(total))
    }

    /// Indexes a trace held in memory (or memory-mapped), without copying
    /// its lines.
    pub fn build_from_slice(
        data: &[u8],
        opts: IndexOptions,
        mut progress: impl FnMut(u64),
    ) -> Index {
        let sample = &data[..data.len().min(crate::source::SAMPLE_BYTES as usize)];
        let mut builder = IndexBuilder::new(opts, sample);
        let mut next_report = 0;
        for line in crate::lines::SliceLines::new(data) {
            if line.offset >= next_report {
                progress(line.offset);
                next_report = line.offset + (8 << 20);
            }
            builder.line(&line);
        }
        progress(data.len() as u64);
        builder.finish(data.len() as u64)
    }

    pub fn options(&self) -> &IndexOptions {
        &self.opts
    }

    /// The trace's dialect (forced or detected).
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    pub fn summary(&self) -> IndexSummary {
        self.summary
    }

    pub fn is_complete(&self) -> bool {
        self.complete
    }

    pub fn aarch64_used(&self) -> bool {
        self.aarch64_used
    }

    pub fn first_event_line(&self) -> Option<u64> {
        self.first_event_line
    }

    pub fn calls(&self) -> &CallTable {
        &self.calls
    }

    /// Exceptions, interrupts, mode changes, aborts and unparsed lines.
    pub fn events(&self) -> &EventList {
        &self.events
    }

    /// Bytes the index keeps in memory, counted honestly (capacities, not lengths).
    pub fn resident_bytes(&self) -> usize {
        self.checkpoints.capacity() * std::mem::size_of::<Checkpoint>()
            + self.snapshots.capacity()
            + self.reg_groups.capacity() * 16
            + self.pc_blooms.capacity() * 32
            + self.mem.resident_bytes()
            + self.calls.resident_bytes()
            + self.events.resident_bytes()
            + std::mem::size_of::<Index>()
    }

    /// Number of nodes indexed (complete intervals only while building).
    pub fn nodes(&self) -> u64 {
        self.summary.nodes
    }

    fn interval_of(&self, node: u64) -> usize {
        self.checkpoints
            .partition_point(|c| c.resume.node_index <= node)
            .saturating_sub(1)
    }

    /// Replays checkpoint interval `k` from the trace, calling `f` for
    /// every node with the engine state after it, until `f` returns false.
    fn replay(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        obs: &mut dyn ReplayObserver,
    ) -> Result<(), QueryError> {
        let cp = self
            .checkpoints
            .get(k)
            .ok_or_else(|| QueryError::OutOfRange(format!("no checkpoint {}", k)))?;
        let end = match self.checkpoints.get(k + 1) {
            Some(next) => next.offset,
            None => self.summary.bytes.min(source.len()),
        };
        let regs = decode_snapshot(&self.snapshots, cp.snapshot);
        let mut engine = Engine::resume(self.opts.engine(), &cp.resume, regs);
        let mut parser = Parser::new(self.opts.parse, self.dialect);
        parser.reset(cp.parser_time);
        let mut reader =
            LineReader::with_range(SourceRef(source), cp.offset, end, cp.line, 256 << 10);
        let mut adapter = Adapter {
            inner: obs,
            stop: false,
        };
        let mut next_line = cp.line;
        while let Some(line) = reader.next_line()? {
            if !adapter.inner.line(&line) {
                return Ok(());
            }
            let rec = parser.parse_line(line.text);
            engine.feed(&line, &rec, &mut adapter);
            next_line = line.number + 1;
            if adapter.stop {
                return Ok(());
            }
        }
        engine.finish(end, next_line, &mut adapter);
        Ok(())
    }

    /// Calls `f(line, node)` for `count` lines from `first_line`, where
    /// `node` is the node the line belongs to (lines before the first event
    /// belong to node 0). Stops early at the end of the indexed part.
    pub fn scan_lines(
        &self,
        source: &mut dyn TraceSource,
        first_line: u64,
        count: u64,
        f: &mut dyn FnMut(u64, &[u8], u64),
    ) -> Result<(), QueryError> {
        if count == 0 {
            return Ok(());
        }
        let last_line = first_line.saturating_add(count - 1);
        let mut k = self
            .checkpoints
            .partition_point(|c| c.line <= first_line)
            .saturating_sub(1);
        // Lines wait until the node that holds them closes.
        struct Lines<'f> {
            first: u64,
            last: u64,
            pending: Vec<(u64, Vec<u8>)>,
            f: &'f mut dyn FnMut(u64, &[u8], u64),
            done: bool,
        }
        impl Lines<'_> {
            fn flush_until(&mut self, end_line: u64, node: u64) {
                let mut i = 0;
                while i < self.pending.len() && self.pending[i].0 < end_line {
                    let (n, ref t) = self.pending[i];
                    (self.f)(n, t, node);
                    if n >= self.last {
                        self.done = true;
                    }
                    i += 1;
                }
                self.pending.drain(..i);
            }
        }
        impl ReplayObserver for Lines<'_> {
            fn line(&mut self, line: &Line<'_>) -> bool {
                if line.number > self.last + 4096 || self.done {
                    return false;
                }
                if line.number >= self.first && line.number <= self.last {
                    self.pending.push((line.number, line.text.to_vec()));
                }
                true
            }
            fn node(&mut self, n: &NodeInfo, _e: &Engine) -> bool {
                self.flush_until(n.first_line + n.lines, n.index);
                !self.done
            }
        }
        let mut obs = Lines {
            first: first_line,
            last: last_line,
            pending: Vec::new(),
            f,
            done: false,
        };
        while k < self.checkpoints.len() && !obs.done {
            self.replay(source, k, &mut obs)?;
            // Lines after the last node of the indexed part (an open node).
            if k + 1 == self.checkpoints.len() && !obs.pending.is_empty() {
                let node = self.summary.nodes.saturating_sub(1);
                obs.flush_until(u64::MAX, node);
            }
            k += 1;
        }
        Ok(())
    }

    /// The next (or previous) node strictly after (before) `node` whose
    /// instruction address is `pc` (Thumb bit ignored).
    pub fn find_pc(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        pc: u64,
        forward: bool,
    ) -> Result<Option<NodeInfo>, QueryError> {
        let want = pc & !1;
        let start = self.interval_of(node);
        let mut found: Option<NodeInfo> = None;
        let mut k = start as i64;
        while k >= 0 && (k as usize) < self.checkpoints.len() {
            if (k as usize) != start
                && self
                    .pc_blooms
                    .get(k as usize)
                    .is_some_and(|b| !bloom_has(b, want))
            {
                k += if forward { 1 } else { -1 };
                continue;
            }
            let mut scan = |n: &NodeInfo| {
                let hit = n.pc != crate::engine::INVALID_PC && n.pc & !1 == want;
                if forward {
                    if n.index > node && hit {
                        found = Some(*n);
                        return false;
                    }
                } else if n.index < node && hit {
                    found = Some(*n);
                }
                forward || n.index < node
            };
            self.scan_nodes(source, k as usize, &mut scan)?;
            if found.is_some() {
                return Ok(found);
            }
            k += if forward { 1 } else { -1 };
        }
        Ok(None)
    }

    /// The node with the given index.
    pub fn node(&self, source: &mut dyn TraceSource, index: u64) -> Result<NodeInfo, QueryError> {
        self.find_node(source, self.interval_of(index), |n| n.index >= index)?
            .filter(|n| n.index == index)
            .ok_or_else(|| QueryError::OutOfRange(format!("no node {}", index)))
    }

    /// The node containing line `line` (lines before the first node belong to it).
    pub fn node_at_line(
        &self,
        source: &mut dyn TraceSource,
        line: u64,
    ) -> Result<NodeInfo, QueryError> {
        let k = self.checkpoints.partition_point(|c| c.line <= line);
        self.node_from(source, k, |n| n.first_line + n.lines > line, "line", line)
    }

    /// The node containing byte `offset`.
    pub fn node_at_offset(
        &self,
        source: &mut dyn TraceSource,
        offset: u64,
    ) -> Result<NodeInfo, QueryError> {
        let k = self.checkpoints.partition_point(|c| c.offset <= offset);
        self.node_from(source, k, |n| n.offset + n.len > offset, "offset", offset)
    }

    /// The first node satisfying `contains`, searching from the interval
    /// before checkpoint `after` (the first checkpoint past the target).
    fn node_from(
        &self,
        source: &mut dyn TraceSource,
        after: usize,
        contains: impl Fn(&NodeInfo) -> bool,
        what: &str,
        value: u64,
    ) -> Result<NodeInfo, QueryError> {
        self.find_node(source, after.saturating_sub(1), contains)?
            .ok_or_else(|| {
                QueryError::OutOfRange(format!("{what} {value} is beyond the indexed trace"))
            })
    }

    /// The last node whose time is at most `time` (the first node if all are later).
    pub fn node_at_time(
        &self,
        source: &mut dyn TraceSource,
        time: u64,
    ) -> Result<NodeInfo, QueryError> {
        // Node times never decrease. Checkpoint k+1 records the time of the
        // last node of interval k: find the first interval ending after `time`.
        let k = self.checkpoints[1..]
            .partition_point(|c| c.resume.current_time.is_none_or(|t| t <= time));
        let mut best: Option<NodeInfo> = None;
        let mut first: Option<NodeInfo> = None;
        self.scan_nodes(source, k, &mut |n| {
            first.get_or_insert(*n);
            if n.time <= time {
                best = Some(*n);
                true
            } else {
                false
            }
        })?;
        match (best, first) {
            (Some(b), _) => Ok(b),
            (None, _) if k > 0 => self.node(source, self.checkpoints[k].resume.node_index - 1),
            (None, Some(f)) => Ok(f),
            (None, None) => Err(QueryError::OutOfRange("the trace has no nodes".into())),
        }
    }

    /// The node holding instruction number `n` (0-based).
    pub fn node_at_instruction(
        &self,
        source: &mut dyn TraceSource,
        n: u64,
    ) -> Result<NodeInfo, QueryError> {
        let k = self
            .checkpoints
            .partition_point(|c| c.resume.instructions <= n)
            .saturating_sub(1);
        self.find_node(source, k, |node| {
            node.pc != crate::engine::INVALID_PC && node.instructions_before >= n
        })?
        .ok_or_else(|| {
            QueryError::OutOfRange(format!("instruction {} is beyond the indexed trace", n))
        })
    }

    /// First node from interval `k` on satisfying `pred`.
    fn find_node(
        &self,
        source: &mut dyn TraceSource,
        mut k: usize,
        pred: impl Fn(&NodeInfo) -> bool,
    ) -> Result<Option<NodeInfo>, QueryError> {
        while k < self.checkpoints.len() {
            let mut found = None;
            self.scan_nodes(source, k, &mut |n| {
                if pred(n) {
                    found = Some(*n);
                    false
                } else {
                    true
                }
            })?;
            if found.is_some() {
                return Ok(found);
            }
            k += 1;
        }
        Ok(None)
    }

    fn scan_nodes(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        f: &mut dyn FnMut(&NodeInfo) -> bool,
    ) -> Result<(), QueryError> {
        struct Scan<'f> {
            f: &'f mut dyn FnMut(&NodeInfo) -> bool,
        }
        impl ReplayObserver for Scan<'_> {
            fn node(&mut self, n: &NodeInfo, _e: &Engine) -> bool {
                (self.f)(n)
            }
        }
        self.replay(source, k, &mut Scan { f })
    }

    /// Register file after node `node`.
    pub fn registers_after(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
    ) -> Result<RegFile, QueryError> {
        struct Regs {
            target: u64,
            out: Option<RegFile>,
        }
        impl ReplayObserver for Regs {
            fn node(&mut self, n: &NodeInfo, e: &Engine) -> bool {
                if n.index == self.target {
                    self.out = Some(e.regs().clone());
                    return false;
                }
                true
            }
        }
        let mut r = Regs {
            target: node,
            out: None,
        };
        self.replay(source, self.interval_of(node), &mut r)?;
        r.out
            .ok_or_else(|| QueryError::OutOfRange(format!("no node {}", node)))
    }

    /// The register bytes node `node`'s lines write (whatever the value
    /// written): a register file whose known flags are those bytes.
    pub fn registers_written(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
    ) -> Result<RegFile, QueryError> {
        struct Written {
            target: u64,
            mask: RegFile,
            found: bool,
        }
        impl ReplayObserver for Written {
            fn node(&mut self, n: &NodeInfo, _e: &Engine) -> bool {
                if n.index == self.target {
                    self.found = true;
                }
                n.index < self.target
            }
            fn reg_write(&mut self, node: u64, offset: usize, bytes: &[u8], known: &[u8]) {
                // Not the indexer's own bookkeeping of the execution state.
                if node == self.target && offset != regfile::IFLAGS {
                    self.mask.write(offset, bytes, known);
                }
            }
        }
        let mut w = Written {
            target: node,
            mask: RegFile::default(),
            found: false,
        };
        self.replay(source, self.interval_of(node), &mut w)?;
        if !w.found {
            return Err(QueryError::OutOfRange(format!("no node {}", node)));
        }
        Ok(w.mask)
    }

    /// Memory `[addr, addr+len)` after node `node`.
    pub fn memory_after(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        addr: u64,
        len: u64,
    ) -> Result<MemView, QueryError> {
        let len = len.min(1 << 20);
        let k = self.interval_of(node);
        // Bytes written inside the interval up to the node, from the trace.
        struct Window {
            target: u64,
            addr: u64,
            len: u64,
            state: Vec<memdiff::ByteState>,
            reached: bool,
        }
        impl ReplayObserver for Window {
            fn node(&mut self, n: &NodeInfo, _e: &Engine) -> bool {
                if n.index == self.target {
                    self.reached = true;
                    return false;
                }
                true
            }
            fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
                if node > self.target {
                    return;
                }
                for (j, &v) in bytes.iter().enumerate() {
                    let a = addr.wrapping_add(j as u64);
                    // Wrapping: a window may run past the top of memory to 0.
                    let i = a.wrapping_sub(self.addr);
                    if i < self.len {
                        self.state[i as usize] = Some(Ok(v));
                    }
                }
            }
            fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
                if node > self.target {
                    return;
                }
                for i in 0..len {
                    let a = addr.wrapping_add(i);
                    let i = a.wrapping_sub(self.addr);
                    if i < self.len {
                        self.state[i as usize] = Some(Err(node));
                    }
                }
            }
        }
        let mut w = Window {
            target: node,
            addr,
            len,
            state: vec![None; len as usize],
            reached: false,
        };
        self.replay(source, k, &mut w)?;
        if !w.reached {
            return Err(QueryError::OutOfRange(format!("no node {}", node)));
        }
        // Earlier intervals, block by block.
        let mut bytes = vec![0u8; len as usize];
        let mut known = vec![false; len as usize];
        let mut block_cache: Option<(u64, [memdiff::ByteState; 16])> = None;
        for i in 0..len {
            let a = addr.wrapping_add(i);
            let st = match w.state[i as usize] {
                Some(s) => Some(s),
                None => {
                    let block = a >> memdiff::BLOCK_BITS;
                    if block_cache.as_ref().is_none_or(|(b, _)| *b != block) {
                        block_cache = Some((block, self.mem.block_state(block, k)));
                    }
                    block_cache
                        .as_ref()
                        .and_then(|(_, s)| s[(a & (memdiff::BLOCK - 1)) as usize])
                }
            };
            let v = match st {
                Some(Ok(v)) => Some(v),
                Some(Err(since)) => self.mem.fill_value(Some(since), a),
                None => self.mem.fill_value(None, a),
            };
            if let Some(v) = v {
                bytes[i as usize] = v;
                known[i as usize] = true;
            }
        }
        Ok(MemView { addr, bytes, known })
    }

    /// The last node at or before `node` that wrote any byte of `reg`.
    pub fn prev_reg_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        reg: RegId,
    ) -> Result<Option<NodeInfo>, QueryError> {
        self.reg_write_search(source, node, reg, false)
    }

    /// The first node after `node` that writes any byte of `reg`.
    pub fn next_reg_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        reg: RegId,
    ) -> Result<Option<NodeInfo>, QueryError> {
        self.reg_write_search(source, node, reg, true)
    }

    /// Walks intervals away from `node`, replaying only those whose
    /// register-group bitmap says they wrote part of `reg`.
    fn reg_write_search(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        reg: RegId,
        forward: bool,
    ) -> Result<Option<NodeInfo>, QueryError> {
        let aarch64 = self.aarch64_used && !matches!(reg.class, crate::parse::RegClass::R);
        let (off, size) = regfile::location(reg, aarch64);
        let groups: Vec<usize> = (off..off + size).map(regfile::group_of).collect();
        let touches = |g: &[u64; 2]| groups.iter().any(|&x| g[x / 64] & (1 << (x % 64)) != 0);
        let hit = |o: usize, l: usize| o < off + size && off < o + l;
        let start = self.interval_of(node);
        let order: Box<dyn Iterator<Item = usize>> = if forward {
            Box::new(start..self.checkpoints.len())
        } else {
            Box::new((0..=start.min(self.checkpoints.len().saturating_sub(1))).rev())
        };
        let scope = if forward {
            WriteScope::FirstAfter(node)
        } else {
            WriteScope::LastUpTo(node)
        };
        for k in order {
            // Open intervals have no bitmap yet: replay them.
            if k < self.reg_groups.len() && !touches(&self.reg_groups[k]) {
                continue;
            }
            if let Some(n) = self.find_write(source, k, scope, Some(&hit), None)? {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }

    /// The last node at or before `node` that wrote (known or unknown data)
    /// any byte of `[addr, addr+len)`.
    pub fn prev_mem_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        addr: u64,
        len: u64,
    ) -> Result<Option<NodeInfo>, QueryError> {
        let hit = |a: u64, l: u64| a < addr.saturating_add(len) && addr < a.saturating_add(l);
        let k = self.interval_of(node);
        if let Some(n) = self.find_write(source, k, WriteScope::LastUpTo(node), None, Some(&hit))? {
            return Ok(Some(n));
        }
        // Candidate intervals from the memory history, newest first.
        let first_block = addr >> memdiff::BLOCK_BITS;
        let last_block = addr.saturating_add(len.max(1) - 1) >> memdiff::BLOCK_BITS;
        for kk in self.mem.intervals_touching(first_block, last_block, k) {
            if let Some(n) =
                self.find_write(source, kk, WriteScope::LastUpTo(u64::MAX), None, Some(&hit))?
            {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }

    /// The first node after `node` that writes any byte of the range.
    pub fn next_mem_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        addr: u64,
        len: u64,
    ) -> Result<Option<NodeInfo>, QueryError> {
        let hit = |a: u64, l: u64| a < addr.saturating_add(len) && addr < a.saturating_add(l);
        let first_block = addr >> memdiff::BLOCK_BITS;
        let last_block = addr.saturating_add(len.max(1) - 1) >> memdiff::BLOCK_BITS;
        let start = self.interval_of(node);
        for k in start..self.checkpoints.len() {
            // Closed intervals that never touched the blocks can be skipped.
            if k > start
                && k < self.mem.intervals()
                && !self.mem.interval_touches(k, first_block, last_block)
            {
                continue;
            }
            if let Some(n) =
                self.find_write(source, k, WriteScope::FirstAfter(node), None, Some(&hit))?
            {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }

    /// Replays interval `k` looking for nodes that write a register range
    /// (`reg`) or memory range (`mem`): the last at or before `limit`, or
    /// with `after`, the first after it.
    fn find_write(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        scope: WriteScope,
        reg: Option<&dyn Fn(usize, usize) -> bool>,
        mem: Option<&dyn Fn(u64, u64) -> bool>,
    ) -> Result<Option<NodeInfo>, QueryError> {
        let (limit, after, first_only) = match scope {
            WriteScope::LastUpTo(limit) => (limit, None, false),
            WriteScope::FirstAfter(after) => (u64::MAX, Some(after), true),
        };
        let mut w = Writes {
            limit,
            after,
            reg,
            mem,
            last: None,
            pending_hit: None,
            first_only,
        };
        self.replay(source, k, &mut w)?;
        Ok(w.last)
    }
}

#[derive(Clone, Copy)]
enum WriteScope {
    LastUpTo(u64),
    FirstAfter(u64),
}

/// Finds writing nodes during a replay.
struct Writes<'a> {
    /// Only nodes at or before this count.
    limit: u64,
    /// Only nodes after this count.
    after: Option<u64>,
    reg: Option<&'a dyn Fn(usize, usize) -> bool>,
    mem: Option<&'a dyn Fn(u64, u64) -> bool>,
    last: Option<NodeInfo>,
    /// Node index of a write seen in the open node.
    pending_hit: Option<u64>,
    first_only: bool,
}

impl Writes<'_> {
    fn wanted(&self, node: u64) -> bool {
        node <= self.limit && self.after.is_none_or(|a| node > a)
    }
}

impl ReplayObserver for Writes<'_> {
    fn node(&mut self, n: &NodeInfo, _e: &Engine) -> bool {
        if self.pending_hit == Some(n.index) {
            self.last = Some(*n);
            if self.first_only {
                return false;
            }
        }
        n.index < self.limit
    }
    fn reg_write(&mut self, node: u64, offset: usize, _bytes: &[u8], known: &[u8]) {
        if let Some(f) = self.reg {
            // Ignore the indexer's own iflags bookkeeping.
            if offset != regfile::IFLAGS
                && self.wanted(node)
                && known.iter().any(|&k| k != 0)
                && f(offset, known.len())
            {
                self.pending_hit = Some(node);
            }
        }
    }
    fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
        if let Some(f) = self.mem {
            if self.wanted(node) && f(addr, bytes.len() as u64) {
                self.pending_hit = Some(node);
            }
        }
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        if let Some(f) = self.mem {
            if self.wanted(node) && f(addr, len) {
                self.pending_hit = Some(node);
            }
        }
    }
}

/// What a replay reports; `node` and `line` return false to stop.
#[allow(unused_variables)]
trait ReplayObserver {
    fn line(&mut self, line: &Line<'_>) -> bool {
        true
    }
    fn node(&mut self, n: &NodeInfo, e: &Engine) -> bool {
        true
    }
    fn reg_write(&mut self, node: u64, offset: usize, bytes: &[u8], known: &[u8]) {}
    fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {}
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {}
}

struct Adapter<'o> {
    inner: &'o mut dyn ReplayObserver,
    stop: bool,
}

impl Observer for Adapter<'_> {
    fn node(&mut self, node: &Node, engine: &Engine) {
        if self.stop {
            return;
        }
        let info = NodeInfo {
            index: node.index,
            first_line: node.first_line,
            lines: node.lines,
            offset: node.offset,
            len: node.len,
            time: node.time,
            pc: node.pc,
            instructions_before: engine.instructions()
                - u64::from(node.pc != crate::engine::INVALID_PC),
        };
        if !self.inner.node(&info, engine) {
            self.stop = true;
        }
    }
    fn reg_write(&mut self, node: u64, offset: usize, bytes: &[u8], known: &[u8]) {
        if !self.stop {
            self.inner.reg_write(node, offset, bytes, known);
        }
    }
    fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
        if !self.stop {
            self.inner.mem_write(node, addr, bytes);
        }
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        if !self.stop {
            self.inner.mem_unknown(node, addr, len);
        }
    }
}

/// Lets a borrowed `&mut dyn TraceSource` feed a [`LineReader`].
struct SourceRef<'s, S: TraceSource + ?Sized>(&'s mut S);

impl<S: TraceSource + ?Sized> TraceSource for SourceRef<'_, S> {
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        self.0.read_at(offset, buf)
    }
}
