//! The trace browser's back end, free of any UI: a [`Session`] owns the
//! trace source and its index (growing while indexing runs in steps), the
//! folds of each view and the ELF symbols, and answers [`protocol::Query`]s.
//! In the browser it lives in the Web Worker; natively, tests drive it.

mod condition;
pub mod disassembly;
pub mod events;
mod folds;
mod functions;
pub(crate) mod highlight;
pub mod index_bytes;
mod node;
pub mod protocol;
pub mod question;
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
use crate::parse::{ParseOptions, Parser, RecordKind};
use crate::sniff::{self, FileKind, InstructionSets};
use crate::source::TraceSource;
use crate::stats::{Stats, StatsAccumulator};
use crate::symbols::SymbolTable;

use disassembly::{Disassembly, DisassemblyReply};
use folds::{Folds, RowTarget};
use index_bytes::{EncodedIndex, IndexBytes};
use protocol::*;
use question::{questions, Answerable};

questions! {
    /// A screenful of rows of a view.
    Rows(Rows) -> RowsReply;
    /// A row number.
    RowOfNode(RowOfNode) -> u64;
    /// A step's end.
    Step(Step) -> NodeView;
    /// A node, or `None` when nothing matched.
    Locate(Locate) -> Option<NodeView>;
    /// The nearest node at an address, if any.
    FindPc(FindPc) -> Option<NodeView>;
    /// Register panels.
    Registers(Registers) -> RegistersReply;
    /// Memory bytes.
    Memory(Memory) -> MemoryReply;
    /// The write found, if any.
    Write(Write) -> Option<NodeView>;
    /// A watchpoint's hit, or `None` when there is none that way (boxed:
    /// every reply would otherwise be as big).
    Access(Access) -> Option<Box<AccessView>>;
    /// Part of a watchpoint's list.
    Accesses(Accesses) -> AccessesReply;
    /// A value condition's search, or where it goes on.
    Condition(Condition) -> ConditionReply;
    /// Where a value came from: the tree of writes that made it.
    Why(WhyQuery) -> Box<WhyStep>;
    /// An expression's value.
    Eval(Eval) -> u64;
    /// Folds changed.
    Fold(protocol::Fold) -> Folded;
    /// The calls active at a node, outermost first.
    CallStack(CallStack) -> Vec<CallFrame>;
    /// A node's lines and what each touches.
    NodeLines(NodeLines) -> Vec<LineEffect>;
    /// Names of addresses, in the order asked.
    Symbolize(Symbolize) -> Vec<String>;
    /// Text search, in steps.
    Search(SearchQuery) -> SearchReply;
    /// A page of events.
    Events(Events) -> EventsReply;
    /// A position in the events list.
    EventRank(EventRank) -> u64;
    /// The nearest event's node, if any.
    NextEvent(NextEvent) -> Option<NodeView>;
    /// The timeline.
    Timeline(Timeline) -> TimelineReply;
    /// The source at a node.
    Source(Source) -> SourceReply;
    /// Per-line counts of a file.
    LineCounts(LineCounts) -> FileCountsReply;
    /// A source-level step's end, if any.
    LineStep(LineStep) -> Option<NodeView>;
    /// A source line's nearest execution, if any.
    FindLine(FindLine) -> Option<NodeView>;
    /// Functions of the image.
    Functions(Functions) -> Vec<FunctionHit>;
    /// A page of a line's executions.
    LineHits(LineHits) -> HitsReply;
    /// The function around a position, decoded.
    Disassembly(Disassembly) -> DisassemblyReply;
    /// The finished index, encoded (the page's query engine loads it).
    IndexBytes(IndexBytes) -> EncodedIndex;
}

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
/// and an optional ELF image. [`Session::ask`] answers every question
/// the trace browser asks, each with its own type of answer
/// ([`Question`](crate::protocol::Question)); [`Session::answer`] does it for one off the wire
/// ([`Query`]). A question about a part not indexed yet gets an error.
///
/// # Examples
///
/// The last write of `r0` at or before the last node:
///
/// ```
/// use tarmac_lens_core::protocol::{Locate, Write, WriteTarget};
/// use tarmac_lens_core::{ParseOptions, Session, SliceSource};
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
/// let last = session.ask(Locate::End)?.expect("a node");
/// let target = WriteTarget::Register("r0".into());
/// let writer = session.ask(Write { node: last.node, target, forward: false })?;
/// assert_eq!(writer.map(|w| w.first_line), Some(1));
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

    /// Answers a question (`session.ask(Rows { view: 0, first: 0, count:
    /// 50 })`) with its own type of answer; `Err` when it cannot be
    /// answered (a position beyond the part indexed, a read that failed, a
    /// bad expression). [`Session::answer`] does the same for a [`Query`]
    /// off the wire.
    pub fn ask<Q: Answerable>(&mut self, question: Q) -> Result<Q::Answer> {
        if Q::NEEDS_INDEX && self.index().is_none() {
            return Err(Error::Query("no trace is open".into()));
        }
        question.answer(self)
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
}
