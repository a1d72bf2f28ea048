//! The trace browser's back end, free of any UI: a [`Session`] owns the
//! trace source and its index (growing while indexing runs in steps), the
//! folds of each view and the ELF symbols, and answers [`protocol::Query`]s.
//! In the browser it lives in the Web Worker; natively, tests drive it.

mod condition;
mod disassembly;
pub mod events;
mod folds;
mod functions;
pub(crate) mod highlight;
pub mod protocol;
mod ranges;
mod rows;
mod source;
mod watch;
pub mod why;

use crate::{Error, Result};
use rows::{display_text, remap_spans};
pub(crate) mod registers;
pub(crate) mod saved;
pub mod search;

pub use ranges::{worker_count, RangeReport};
pub use saved::Saving;

use std::collections::HashMap;

use crate::engine::Node;
use crate::index::{Index, IndexBuilder, IndexOptions};
use crate::lines::LineBuffer;
use crate::parse::{Effect, MemDirection, ParseOptions, Parser, RecordKind};
use crate::sniff::{self, FileKind, InstructionSets};
use crate::source::TraceSource;
use crate::stats::{Stats, StatsAccumulator};
use crate::symbols::SymbolTable;

use folds::{Fold, Folds, RowTarget};
use protocol::*;

/// Largest memory range one query returns.
const MAX_MEMORY: u32 = 4096;
/// Most rows one query returns.
const MAX_ROWS: u32 = 1000;

struct Building {
    builder: IndexBuilder,
    stats: StatsAccumulator,
    /// Where indexing has got to. Reads are large (each read costs a fixed
    /// overhead in the browser, about 2 ms), steps small.
    lines: LineBuffer,
}

/// Calls encoded by an indexing step of `budget` bytes once the lines have
/// ended: about as long as indexing that many bytes (a call is 20-odd ns
/// to encode, a byte about 4).
fn finish_calls(budget: u64) -> usize {
    usize::try_from(budget / 4).unwrap_or(usize::MAX).max(1)
}

/// Bytes read from the trace at a time while indexing.
const READ_CHUNK: usize = 4 << 20;

/// An open trace: the source, its index (built in steps by
/// [`Session::index_step`], usable while it grows), the folds of each view
/// and an optional ELF image. [`Session::answer`] answers every question
/// the trace browser asks ([`Query`]); a question about a part not indexed
/// yet gets a [`Reply::Error`].
///
/// # Examples
///
/// The last write of `r0` at or before the last node:
///
/// ```
/// use tarmac_lens_core::browse::protocol::{Locate, WriteTarget};
/// use tarmac_lens_core::{ParseOptions, Query, Reply, Session, SliceSource};
///
/// let trace = b"\
/// 1 clk IT (1) 00008000 e3a00005 A svc_s : MOV r0,#5
/// 1 clk R r0 00000005
/// 2 clk IT (2) 00008004 e2801001 A svc_s : ADD r1,r0,#1
/// 2 clk R r1 00000006
/// ";
/// let mut session = Session::open(SliceSource(trace), ParseOptions::default())?;
/// while !session.index_step(1 << 20)?.complete {}
///
/// let Reply::Node(Some(last)) = session.answer(Query::Locate(Locate::End)) else {
///     panic!()
/// };
/// let target = WriteTarget::Register("r0".into());
/// match session.answer(Query::Write { node: last.node, target, forward: false }) {
///     Reply::Node(Some(writer)) => assert_eq!(writer.first_line, 1),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), tarmac_lens_core::Error>(())
/// ```
pub struct Session<S: TraceSource> {
    source: S,
    total: u64,
    building: Option<Building>,
    index: Option<Index>,
    stats: Option<Stats>,
    folds: HashMap<u32, Folds>,
    image: Option<SymbolTable>,
    /// The image's loaded bytes: the value of memory the trace never
    /// wrote, for "why?" trees.
    image_memory: Option<crate::dataflow::ImageMemory>,
    /// The image's DWARF, when it has some (see [`Session::load_debug_info`]).
    debug_info: Option<crate::DebugInfo>,
    /// The index's PCs mapped to source lines (`source.rs`).
    source_map: Option<source::SourceMap>,
    /// Most bytes the index may hold (see [`Session::set_index_budget`]).
    index_budget: usize,
    /// Why indexing stopped before the end, if it did.
    stopped: Option<String>,
    /// Byte ranges indexed by other workers (`ranges.rs`).
    ranges: Option<ranges::Ranges>,
    searches: search::Searches,
    /// What the file is, from its first bytes: a file that is no trace is
    /// still opened (its lines listed as unparsed), and said to be none.
    kind: FileKind,
    /// The instruction sets of its first instructions, which an ELF image
    /// is checked against.
    sets: InstructionSets,
}

/// Default index budget: well below what a worker's wasm32 memory can hold
/// (4 GiB, with the room the index's vectors take to grow, the range
/// workers' parts waiting to be joined and the finish's sort of the
/// calls), and far above a 100 GB trace's index (0.008 bytes per trace
/// byte; docs/performance.md).
pub(crate) const DEFAULT_INDEX_BUDGET: usize = 3 << 29;

fn view(n: &Node) -> NodeView {
    NodeView {
        node: n.at.node,
        first_line: n.at.line,
        lines: n.lines,
        time: n.own_time,
        pc: (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc),
        offset: n.at.offset,
        instruction: (n.at.pc != crate::engine::INVALID_PC).then_some(n.instructions_before + 1),
    }
}

fn err(e: Error) -> Reply {
    Reply::Error(e.to_string())
}

impl<S: TraceSource> Session<S> {
    /// Opens a trace; indexing then proceeds through [`Session::index_step`].
    /// Reads only the first bytes, to tell the dialect (unless `parse`
    /// forces one) and what the file is ([`Session::file_kind`]); fails only
    /// if they cannot be read.
    pub fn open(source: S, parse: ParseOptions) -> Result<Session<S>> {
        Self::open_with(
            source,
            IndexOptions {
                parse,
                ..IndexOptions::default()
            },
        )
    }

    /// [`Session::open`] with the index's options whole: checkpoints
    /// closer than the default, where a test splits a small trace into
    /// ranges that must each find a split point.
    pub fn open_with(mut source: S, opts: IndexOptions) -> Result<Session<S>> {
        let parse = opts.parse;
        let total = source.len();
        let sample = crate::source::read_sample(&mut source)?;
        let builder = IndexBuilder::new(opts, &sample);
        let stats = StatsAccumulator::new(builder.dialect().name());
        Ok(Session {
            kind: sniff::identify(&sample, total, parse),
            sets: InstructionSets::of_sample(&sample, parse),
            source,
            total,
            building: Some(Building {
                builder,
                stats,
                lines: LineBuffer::new(0, total, 1, READ_CHUNK),
            }),
            index: None,
            stats: None,
            folds: HashMap::new(),
            image: None,
            image_memory: None,
            debug_info: None,
            source_map: None,
            index_budget: DEFAULT_INDEX_BUDGET,
            stopped: None,
            ranges: None,
            searches: Default::default(),
        })
    }

    /// Opens a trace with an index saved by [`Session::save`] instead of
    /// indexing it. Refused if the save is for another trace (length or
    /// modification time differ) or other parse options.
    pub fn restore(
        source: S,
        saved: &[u8],
        trace: crate::index::TraceIdentity,
        parse: ParseOptions,
    ) -> Result<Session<S>> {
        let (index, stats, built_for) = saved::load(saved)?;
        if built_for != trace || source.len() != trace.len {
            return Err(Error::IndexFile(
                "the saved index is for another version of the trace".into(),
            ));
        }
        let o = index.options().parse;
        if o.big_endian != parse.big_endian
            || o.implicit_thumb != parse.implicit_thumb
            || o.cpu != parse.cpu
        {
            return Err(Error::IndexFile(
                "the saved index was built with other options".into(),
            ));
        }
        let mut session = Session::from_index(source, index, parse)?;
        session.stats = Some(stats);
        Ok(session)
    }

    /// Opens a trace with a finished index built elsewhere (the CLI's
    /// index file, `index::parallel`): it answers at once. [`Session::stats`]
    /// stays `None`, as the index holds no record statistics. `parse` must
    /// be the options the index was built with; a source of another length
    /// than the index covers is refused.
    pub fn from_index(mut source: S, index: Index, parse: ParseOptions) -> Result<Session<S>> {
        if !index.is_complete() {
            return Err(Error::IndexFile("the index is incomplete".into()));
        }
        if source.len() != index.summary().bytes {
            return Err(Error::IndexFile(
                "the index is for another version of the trace".into(),
            ));
        }
        let sample = crate::source::read_sample(&mut source)?;
        Ok(Session {
            kind: sniff::identify(&sample, source.len(), parse),
            sets: InstructionSets::of_sample(&sample, parse),
            total: source.len(),
            source,
            building: None,
            index: Some(index),
            stats: None,
            folds: HashMap::new(),
            image: None,
            image_memory: None,
            debug_info: None,
            source_map: None,
            index_budget: DEFAULT_INDEX_BUDGET,
            stopped: None,
            ranges: None,
            searches: Default::default(),
        })
    }

    /// The finished index and statistics, serialized for [`Session::restore`];
    /// `None` while indexing.
    pub fn save(&self, trace: crate::index::TraceIdentity) -> Option<Vec<u8>> {
        Some(saved::save(
            self.index.as_ref()?,
            self.stats.as_ref()?,
            trace,
        ))
    }

    /// [`Session::save`] a piece at a time: this starts it...
    pub fn save_start(&self, trace: crate::index::TraceIdentity) -> Option<saved::Saving> {
        Some(saved::start(
            self.index.as_ref()?,
            self.stats.as_ref()?,
            trace,
        ))
    }

    /// ...and this goes on with it, about `budget` entries of the index at
    /// a time (see [`crate::index::IndexEncoder`]). True once done; `None`
    /// if the session has no index any more.
    pub fn save_step(&self, saving: &mut saved::Saving, budget: usize) -> Option<bool> {
        Some(saving.step(self.index.as_ref()?, budget))
    }

    /// Caps the memory the index may hold: when it passes `bytes`, indexing
    /// stops there, the part indexed stays browsable and the progress says
    /// why (a tab that ran out of memory would lose everything).
    pub fn set_index_budget(&mut self, bytes: usize) {
        self.index_budget = bytes;
    }

    /// Indexes about `budget` more bytes (whole lines). Returns the progress;
    /// call it until [`Progress::complete`] (or [`Progress::stopped`], when
    /// the index reached its budget). Queries may be answered between
    /// steps, about the part indexed so far.
    pub fn index_step(&mut self, budget: u64) -> Result<Progress> {
        if self.stopped.is_some() {
            return Ok(self.progress());
        }
        self.at_range_boundary()?;
        if let Some(mut b) = self.building.take() {
            let stop_at = b.lines.position().saturating_add(budget.max(1));
            let mut finished = true;
            while let Some(line) = b.lines.next_line(&mut self.source)? {
                let stats = &mut b.stats;
                b.builder
                    .line_then(&line, |rec| stats.add_record(&line, rec));
                if line.offset + line.len + 1 >= stop_at {
                    finished = false;
                    break;
                }
            }
            if (finished && self.ends_here(b.lines.position())) || b.lines.position() >= self.total
            {
                // The finish (sorting and encoding the calls: 200 ms in one
                // task for a 10 GB trace) goes in steps too, so questions
                // are answered between them.
                if b.builder.finish_step(self.total, finish_calls(budget)) {
                    self.stats = Some(b.stats.snapshot(self.total));
                    self.index = Some(b.builder.into_index());
                } else {
                    self.building = Some(b);
                }
            } else {
                let held = b.builder.index().resident_bytes();
                if held > self.index_budget {
                    self.stopped = Some(format!(
                        "indexing stopped at line {}: the index reached its memory budget \
                         ({:.1} MB, budget {:.1} MB); the part indexed can be browsed",
                        b.lines.next_number().saturating_sub(1),
                        held as f64 / 1e6,
                        self.index_budget as f64 / 1e6,
                    ));
                }
                self.building = Some(b);
            }
        }
        Ok(self.progress())
    }

    /// The most indexing's next read from the source will ask for (none
    /// once indexing has ended): small for the first reads (they grow from
    /// 64 KiB, so the first lines come soon), then 4 MiB. A read-ahead uses
    /// it to tell whether the next read would wait for it.
    pub fn next_read_len(&self) -> usize {
        self.building
            .as_ref()
            .map_or(0, |b| b.lines.next_read_len())
    }

    /// How far indexing has got (done once the index is complete).
    pub fn progress(&self) -> Progress {
        match (&self.building, &self.index) {
            (Some(b), _) => {
                let s = b.builder.index().summary();
                Progress {
                    done_bytes: b.lines.position() + self.bytes_ahead(),
                    total_bytes: self.total,
                    lines: s.lines,
                    nodes: s.nodes,
                    complete: false,
                    index_bytes: b.builder.index().resident_bytes() as u64,
                    stopped: self.stopped.clone(),
                }
            }
            (None, Some(i)) => {
                let s = i.summary();
                Progress {
                    done_bytes: self.total,
                    total_bytes: self.total,
                    lines: s.lines,
                    nodes: s.nodes,
                    complete: true,
                    index_bytes: i.resident_bytes() as u64,
                    stopped: None,
                }
            }
            (None, None) => Progress {
                done_bytes: 0,
                total_bytes: self.total,
                lines: 0,
                nodes: 0,
                complete: false,
                index_bytes: 0,
                stopped: None,
            },
        }
    }

    /// Whether the index is finished, calls included.
    pub fn is_complete(&self) -> bool {
        self.index.is_some()
    }

    /// Record statistics, once indexing is complete.
    pub fn stats(&self) -> Option<&Stats> {
        self.stats.as_ref()
    }

    /// What the file is, judged from its first bytes when it was opened.
    pub fn file_kind(&self) -> &FileKind {
        &self.kind
    }

    /// Loads ELF symbols; returns how many, and why the image looks like
    /// another program's (an architecture the trace does not run), if it
    /// does: such an image is still used, as the reference tools do.
    pub fn load_elf(
        &mut self,
        bytes: &[u8],
        load_offset: i64,
        big_endian: bool,
    ) -> Result<(usize, Option<String>)> {
        let table = SymbolTable::from_elf_bytes(bytes, load_offset)?;
        table.check_endianness(big_endian)?;
        let n = table.symbols().len();
        let mut sets = self.sets;
        // A trace whose first bytes hold no instruction: what indexing has
        // seen so far says whether it runs AArch64 code.
        if sets.total() == 0 && self.aarch64_hint() {
            sets.a64 = 1;
        }
        let warning = table.architecture_mismatch(&sets);
        self.image = Some(table);
        // Symbols without segments (an odd file) still name functions.
        self.image_memory = crate::dataflow::ImageMemory::from_elf_bytes(bytes, load_offset).ok();
        Ok((n, warning))
    }

    /// Reads the source-line information of an ELF image (its DWARF);
    /// returns whether it has any. Only unit headers are read here, a
    /// unit's line table at its first lookup, so a page can call it once
    /// the image arrives without delaying rows. Independent of
    /// [`Session::load_elf`]: symbols do not need DWARF, nor it them.
    pub fn load_debug_info(
        &mut self,
        bytes: std::sync::Arc<[u8]>,
        load_offset: i64,
    ) -> Result<bool> {
        self.source_map = None;
        self.debug_info = crate::DebugInfo::from_elf_bytes(bytes, load_offset)?;
        Ok(self.debug_info.is_some())
    }

    /// The source frames at trace address `pc`, innermost first (see
    /// [`crate::DebugInfo::frames`]); `None` without DWARF loaded, so a
    /// page can say there is none where source would appear.
    pub fn source_frames(&self, pc: u64) -> Option<Result<Vec<crate::debuginfo::Frame>>> {
        self.debug_info.as_ref().map(|d| d.frames(pc))
    }

    fn index(&self) -> Option<&Index> {
        self.index
            .as_ref()
            .or_else(|| self.building.as_ref().map(|b| b.builder.index()))
    }

    /// Lines indexed so far.
    fn lines(&self) -> u64 {
        self.index().map_or(0, |i| i.summary().lines)
    }

    fn nodes(&self) -> u64 {
        self.index().map_or(0, |i| i.summary().nodes)
    }

    /// Whether the trace runs AArch64 code (for registers shown before the
    /// first instruction says so).
    fn aarch64_hint(&self) -> bool {
        match (&self.index, &self.building) {
            (Some(i), _) => i.aarch64_used(),
            (None, Some(b)) => b.builder.aarch64_used(),
            (None, None) => false,
        }
    }

    fn name_of(&self, addr: u64) -> String {
        self.image
            .as_ref()
            .map_or(String::new(), |i| i.symbolic_address(addr, false))
    }

    /// Answers one query. Each [`Query`] variant says which [`Reply`] it
    /// gets; any may get [`Reply::Error`] instead (a position beyond the
    /// part indexed, a read that failed, a bad expression).
    pub fn answer(&mut self, query: Query) -> Reply {
        // Text search reads the trace itself: it needs no index.
        if let Query::Search(q) = query {
            return self.answer_search(q);
        }
        match self.try_answer(query) {
            Ok(r) => r,
            Err(e) => err(e),
        }
    }

    fn try_answer(&mut self, query: Query) -> Result<Reply> {
        let Some(index) = self.index() else {
            return Ok(Reply::Error("no trace is open".into()));
        };
        let _ = index;
        match query {
            Query::Rows { view, first, count } => self.rows(view, first, count.min(MAX_ROWS)),
            Query::RowOfNode { view, node } => {
                let n = self.node(node)?;
                // Lines before the first node (an EP trace's banner, a
                // header) are listed as its rows, so its rows start there.
                let line = if node == 0 { 1 } else { n.at.line };
                Ok(Reply::Row(self.view_folds(view).row_of_line(line)))
            }
            Query::Step { view, node, delta } => self
                .step(view, node, delta)
                .map(|n| Reply::Node(Some(view_of(&n)))),
            Query::Locate(l) => self.locate(l),
            Query::FindPc { node, pc, forward } => {
                let (idx, src) = self.parts();
                Ok(Reply::Node(
                    idx.find_pc(src, node, pc, forward)?.as_ref().map(view),
                ))
            }
            Query::Registers { node, mark } => {
                let hint = self.aarch64_hint();
                let (idx, src) = self.parts();
                let rf = idx.registers_after(src, node)?;
                let other = match mark {
                    RegMark::Written => Some(idx.registers_written(src, node)?),
                    RegMark::ChangedSince(c) if c != node => Some(idx.registers_after(src, c)?),
                    RegMark::ChangedSince(_) | RegMark::None => None,
                };
                let marks = match (mark, &other) {
                    (RegMark::Written, Some(w)) => registers::Marks::Written(w),
                    (RegMark::ChangedSince(_), Some(c)) => registers::Marks::Differs(c),
                    _ => registers::Marks::None,
                };
                let n = idx.node(src, node)?;
                let pc = (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc);
                Ok(Reply::Registers(registers::panels(
                    &rf, marks, node, pc, hint,
                )))
            }
            Query::Memory {
                node,
                addr,
                len,
                compare,
            } => {
                let len = len.min(MAX_MEMORY);
                let (idx, src) = self.parts();
                let m = idx.memory_after(src, node, addr, u64::from(len))?;
                let changed = match compare {
                    Some(c) if c != node => {
                        let o = idx.memory_after(src, c, addr, u64::from(len))?;
                        (0..m.bytes.len())
                            .map(|i| {
                                m.known[i] != o.known[i] || (m.known[i] && m.bytes[i] != o.bytes[i])
                            })
                            .collect()
                    }
                    _ => vec![false; m.bytes.len()],
                };
                Ok(Reply::Memory(MemoryReply {
                    node,
                    addr,
                    bytes: m.bytes,
                    known: m.known,
                    changed,
                }))
            }
            Query::Write {
                node,
                target,
                forward,
            } => {
                let hint = self.aarch64_hint();
                let (idx, src) = self.parts();
                let found = match target {
                    WriteTarget::Register(name) => {
                        let rf = idx.registers_after(src, node)?;
                        let aarch64 = registers::is_aarch64(&rf, hint);
                        let Some(reg) = registers::lookup(&name, aarch64) else {
                            return Ok(Reply::Error(format!("unknown register '{}'", name)));
                        };
                        if forward {
                            idx.next_reg_write(src, node, reg)?
                        } else {
                            idx.prev_reg_write(src, node, reg)?
                        }
                    }
                    WriteTarget::Memory { addr, len } => {
                        if forward {
                            idx.next_mem_write(src, node, addr, len)?
                        } else {
                            idx.prev_mem_write(src, node, addr, len)?
                        }
                    }
                };
                Ok(Reply::Node(found.as_ref().map(view)))
            }
            Query::Access {
                node,
                target,
                kind,
                forward,
            } => self.access(node, target, kind, forward),
            Query::Accesses {
                target,
                kind,
                from,
                max,
            } => self.accesses(target, kind, from, max),
            Query::Condition {
                text,
                node,
                forward,
                budget,
            } => self.condition(&text, node, forward, budget),
            Query::Why(q) => self.why(*q),
            Query::Eval { node, expr } => self.eval(node, &expr),
            Query::Fold { view, node, op } => self.fold(view, node, op),
            Query::CallStack { node } => {
                let idx = self
                    .index()
                    .ok_or_else(|| Error::OutOfRange("no trace".into()))?;
                let frames = idx
                    .calls()
                    .stack_at(node)
                    .into_iter()
                    .map(|c| CallFrame {
                        call: c.id,
                        call_node: c.call_node,
                        entry_node: c.entry_node,
                        resume_node: c.resume_node,
                        function: c.function,
                        name: self.name_of(c.function),
                    })
                    .collect();
                Ok(Reply::Stack(frames))
            }
            Query::NodeLines { node } => self.node_lines(node),
            Query::Symbolize { addrs } => Ok(Reply::Symbols(
                addrs.iter().map(|&a| self.name_of(a)).collect(),
            )),
            Query::Search(q) => Ok(self.answer_search(q)),
            Query::Events { first, count } => self.events_page(first, count),
            Query::EventRank { node } => Ok(self.event_rank(node)),
            Query::NextEvent { node, forward } => self.next_event(node, forward),
            Query::Timeline { buckets } => Ok(self.timeline(buckets)),
            Query::Source { node } => self.source_at(node),
            Query::Functions { text, count } => Ok(self.functions(&text, count)),
            Query::LineCounts { file } => self.line_counts(&file),
            Query::SourceStep { node, step } => self.source_step(node, step),
            Query::FindLine {
                node,
                file,
                line,
                forward,
            } => self.find_line(node, &file, line, forward),
            Query::LineHits {
                file,
                line,
                after,
                count,
            } => self.line_hits(&file, line, after, count),
            Query::Disassembly { node } => self.disassembly(node),
        }
    }

    fn parts(&mut self) -> (&Index, &mut dyn TraceSource) {
        let idx = match (&self.index, &self.building) {
            (Some(i), _) => i,
            (None, Some(b)) => b.builder.index(),
            (None, None) => unreachable!("checked by try_answer"),
        };
        (idx, &mut self.source)
    }

    fn node(&mut self, node: u64) -> Result<Node> {
        let (idx, src) = self.parts();
        idx.node(src, node)
    }

    fn view_folds(&mut self, view: u32) -> &Folds {
        self.folds.entry(view).or_default()
    }

    fn locate(&mut self, l: Locate) -> Result<Reply> {
        let nodes = self.nodes();
        let (idx, src) = self.parts();
        let n = match l {
            Locate::Line(line) => idx.node_at_line(src, line.max(1)),
            Locate::Time(t) => idx.node_at_time(src, t),
            Locate::Offset(o) => idx.node_at_offset(src, o),
            Locate::Node(n) => idx.node(src, n.min(nodes.saturating_sub(1))),
            Locate::Start => idx.node(src, 0),
            Locate::End => idx.node(src, nodes.saturating_sub(1)),
        };
        match n {
            Ok(n) => Ok(Reply::Node(Some(view(&n)))),
            Err(Error::OutOfRange(_)) => Ok(Reply::Node(None)),
            Err(e) => Err(e),
        }
    }

    fn eval(&mut self, node: u64, text: &str) -> Result<Reply> {
        let hint = self.aarch64_hint();
        let image = self.image.as_ref();
        let (idx, src) = match (&self.index, &self.building) {
            (Some(i), _) => (i, &mut self.source as &mut dyn TraceSource),
            (None, Some(b)) => (b.builder.index(), &mut self.source as &mut dyn TraceSource),
            (None, None) => return Ok(Reply::Error("no trace is open".into())),
        };
        match idx.eval_with_hint(src, node, text, image, hint) {
            Ok(v) => Ok(Reply::Value(v)),
            Err(Error::Expression(e)) => Ok(Reply::Error(e)),
            Err(e) => Err(e),
        }
    }

    fn node_lines(&mut self, node: u64) -> Result<Reply> {
        let n = self.node(node)?;
        let (idx, src) = self.parts();
        let opts = idx.options().parse;
        let mut texts: Vec<(u64, Vec<u8>)> = Vec::new();
        idx.scan_lines(src, n.at.line, n.lines, &mut |line, text, _| {
            texts.push((line, text.to_vec()))
        })?;
        let mut parser = Parser::new(opts, idx_dialect(idx));
        let mut out = Vec::new();
        for (line, text) in texts {
            let rec = parser.parse_line(&text);
            let (target, read) = match &rec.kind {
                RecordKind::Register(r) if r.reg.is_some() => (
                    Some(WriteTarget::Register(
                        r.reg.map(|g| g.to_string()).unwrap_or_default(),
                    )),
                    false,
                ),
                RecordKind::Memory(m) => {
                    let first = m.accessed.iter().position(|&a| a != 0).unwrap_or(0) as u64;
                    let last = m.accessed.iter().rposition(|&a| a != 0).unwrap_or(0) as u64;
                    (
                        Some(WriteTarget::Memory {
                            addr: m.addr.wrapping_add(first),
                            len: last - first + 1,
                        }),
                        m.direction == MemDirection::Read,
                    )
                }
                RecordKind::Instruction(i) => (None, i.effect != Effect::Executed),
                _ => (None, false),
            };
            out.push(LineEffect {
                line,
                text: display_text(&text),
                target,
                read,
            });
        }
        Ok(Reply::NodeLines(out))
    }
}

fn view_of(n: &Node) -> NodeView {
    view(n)
}

fn idx_dialect(idx: &Index) -> crate::parse::Dialect {
    idx.dialect()
}
