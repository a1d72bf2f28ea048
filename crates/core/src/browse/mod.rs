//! The trace browser's back end, free of any UI: a [`Session`] owns the
//! trace source and its index (growing while indexing runs in steps), the
//! folds of each view and the ELF symbols, and answers [`protocol::Query`]s.
//! In the browser it lives in the Web Worker; natively, tests drive it.

pub mod events;
mod folds;
pub mod highlight;
pub mod protocol;
mod ranges;
pub mod registers;
pub mod saved;
pub mod search;

pub use ranges::{worker_count, RangeReport};

use std::collections::HashMap;

use crate::engine::Node;
use crate::expr::{self, ExprContext};
use crate::index::{Index, IndexBuilder, IndexOptions, QueryError};
use crate::lines::LineBuffer;
use crate::parse::{Effect, MemDirection, ParseOptions, Parser, RecordKind};
use crate::sniff::{self, FileKind, InstructionSets};
use crate::source::{SourceError, TraceSource};
use crate::state::regfile::RegFile;
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

/// An open trace.
pub struct Session<S: TraceSource> {
    source: S,
    total: u64,
    building: Option<Building>,
    index: Option<Index>,
    stats: Option<Stats>,
    folds: HashMap<u32, Folds>,
    image: Option<SymbolTable>,
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

/// Default index budget: far below what a browser tab can hold (wasm32
/// memory ends at 4 GiB, and tabs are often stopped sooner), and about a
/// 30 GB trace at the index's usual 0.03 bytes per trace byte.
pub const DEFAULT_INDEX_BUDGET: usize = 1 << 30;

fn view(n: &Node) -> NodeView {
    NodeView {
        node: n.at.node,
        first_line: n.at.line,
        lines: n.lines,
        time: n.at.time,
        pc: (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc),
        offset: n.at.offset,
        instruction: (n.at.pc != crate::engine::INVALID_PC).then_some(n.instructions_before + 1),
    }
}

fn err(e: QueryError) -> Reply {
    Reply::Error(e.to_string())
}

/// Expands tabs so columns line up in the page.
fn display_text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let s = s.trim_end_matches(['\r', '\n']);
    if !s.contains('\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\t' {
            let n = 8 - out.chars().count() % 8;
            out.extend(std::iter::repeat_n(' ', n));
        } else {
            out.push(c);
        }
    }
    out
}

/// Byte offsets of spans into the tab-expanded text (tabs only move later
/// columns; the common case has none).
fn remap_spans(bytes: &[u8], spans: Vec<Span>) -> Vec<Span> {
    if !bytes.contains(&b'\t') {
        return spans;
    }
    let mut map = Vec::with_capacity(bytes.len() + 1);
    let mut col = 0u32;
    for &b in bytes {
        map.push(col);
        col += if b == b'\t' { 8 - col % 8 } else { 1 };
    }
    map.push(col);
    spans
        .into_iter()
        .map(|s| Span {
            start: map[(s.start as usize).min(bytes.len())],
            end: map[(s.end as usize).min(bytes.len())],
            hl: s.hl,
        })
        .collect()
}

/// Branch target of a disassembly, for symbolic display: the address after
/// `; ` (Fast Models style) or the operand of a branch mnemonic (gem5 style).
fn branch_target(dis: &str) -> Option<u64> {
    let mnemonic = dis.split_whitespace().next()?.to_ascii_uppercase();
    let is_branch =
        mnemonic.starts_with('B') && !mnemonic.starts_with("BIC") && !mnemonic.starts_with("BFI")
            || mnemonic.starts_with("CB")
            || mnemonic.starts_with("TB");
    if !is_branch {
        return None;
    }
    let text = match dis.rfind(';') {
        Some(i) => &dis[i + 1..],
        None => dis.split_whitespace().last()?,
    };
    let t = text.trim().trim_start_matches('#');
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    u64::from_str_radix(hex.split(|c: char| !c.is_ascii_hexdigit()).next()?, 16).ok()
}

struct Ctx<'a> {
    regs: &'a RegFile,
    aarch64: bool,
    pc: Option<u64>,
    image: Option<&'a SymbolTable>,
}

impl ExprContext for Ctx<'_> {
    fn register(&self, name: &str) -> Option<u64> {
        if name.eq_ignore_ascii_case("pc") {
            return self.pc.map(|p| p & !1);
        }
        let reg = registers::lookup(name, self.aarch64)?;
        self.regs.reg_value(reg, self.aarch64)
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.image?.address_of(name)
    }
    fn is_register_name(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("pc") || registers::lookup(name, self.aarch64).is_some()
    }
}

impl<S: TraceSource> Session<S> {
    /// Opens a trace; indexing then proceeds through [`Session::index_step`].
    pub fn open(mut source: S, parse: ParseOptions) -> Result<Session<S>, SourceError> {
        let total = source.len();
        let sample = crate::source::read_sample(&mut source)?;
        let opts = IndexOptions {
            parse,
            ..IndexOptions::default()
        };
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
        mut source: S,
        saved: &[u8],
        trace: crate::index::TraceIdentity,
        parse: ParseOptions,
    ) -> Result<Session<S>, String> {
        let (index, stats, built_for) = saved::load(saved)?;
        if built_for != trace || source.len() != trace.len {
            return Err("the saved index is for another version of the trace".into());
        }
        let o = index.options().parse;
        if o.big_endian != parse.big_endian
            || o.implicit_thumb != parse.implicit_thumb
            || o.cpu != parse.cpu
        {
            return Err("the saved index was built with other options".into());
        }
        let sample = crate::source::read_sample(&mut source).map_err(|e| e.0)?;
        Ok(Session {
            kind: sniff::identify(&sample, source.len(), parse),
            sets: InstructionSets::of_sample(&sample, parse),
            total: source.len(),
            source,
            building: None,
            index: Some(index),
            stats: Some(stats),
            folds: HashMap::new(),
            image: None,
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

    /// Indexes about `budget` more bytes (whole lines). Returns the progress.
    pub fn index_step(&mut self, budget: u64) -> Result<Progress, SourceError> {
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
    /// once indexing has ended): see [`crate::lines::LineBuffer::next_read_len`].
    pub fn next_read_len(&self) -> usize {
        self.building
            .as_ref()
            .map_or(0, |b| b.lines.next_read_len())
    }

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
    ) -> Result<(usize, Option<String>), String> {
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
        Ok((n, warning))
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

    /// Answers one query.
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

    fn try_answer(&mut self, query: Query) -> Result<Reply, QueryError> {
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
            Query::Eval { node, expr } => self.eval(node, &expr),
            Query::Fold { view, node, op } => self.fold(view, node, op),
            Query::CallStack { node } => {
                let idx = self
                    .index()
                    .ok_or_else(|| QueryError::OutOfRange("no trace".into()))?;
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

    fn node(&mut self, node: u64) -> Result<Node, QueryError> {
        let (idx, src) = self.parts();
        idx.node(src, node)
    }

    fn view_folds(&mut self, view: u32) -> &Folds {
        self.folds.entry(view).or_default()
    }

    fn locate(&mut self, l: Locate) -> Result<Reply, QueryError> {
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
            Err(QueryError::OutOfRange(_)) => Ok(Reply::Node(None)),
            Err(e) => Err(e),
        }
    }

    fn rows(&mut self, v: u32, first: u64, count: u32) -> Result<Reply, QueryError> {
        let lines = self.lines();
        let folds = self.folds.entry(v).or_default().clone();
        let total_rows = folds.total_rows(lines);
        let mut rows = Vec::new();
        let mut r = first;
        let end_row = first.saturating_add(u64::from(count)).min(total_rows);
        while r < end_row {
            match folds.at_row(r) {
                RowTarget::Fold(i) => {
                    let f = &folds.folds()[i];
                    rows.push(Row::Fold {
                        call: f.call,
                        call_node: f.call_node,
                        entry_node: f.entry_node,
                        lines: f.end - f.first,
                        function: f.function,
                        name: self.name_of(f.function),
                    });
                    r += 1;
                }
                RowTarget::Line(line) => {
                    // A run of visible lines up to the next fold or the end.
                    let next_fold = folds
                        .folds()
                        .iter()
                        .find(|f| f.first > line)
                        .map_or(u64::MAX, |f| f.first);
                    let n = (end_row - r).min(next_fold - line);
                    let mut got = 0;
                    let image = self.image.as_ref();
                    let (idx, src) = match (&self.index, &self.building) {
                        (Some(i), _) => (i, &mut self.source as &mut dyn TraceSource),
                        (None, Some(b)) => {
                            (b.builder.index(), &mut self.source as &mut dyn TraceSource)
                        }
                        (None, None) => break,
                    };
                    let mut out: Vec<Row> = Vec::new();
                    let mut prev_node = None;
                    idx.scan_lines(src, line, n, &mut |number, text, node| {
                        let first_of_node = prev_node != Some(node);
                        prev_node = Some(node);
                        out.push(line_row(
                            number,
                            text,
                            node,
                            first_of_node,
                            image,
                            idx.options().parse,
                            idx.dialect(),
                        ));
                        got += 1;
                    })?;
                    rows.append(&mut out);
                    if got == 0 {
                        break;
                    }
                    r += got;
                }
            }
        }
        Ok(Reply::Rows(RowsReply {
            first,
            rows,
            total_rows,
        }))
    }

    fn step(&mut self, v: u32, node: u64, delta: i64) -> Result<Node, QueryError> {
        let nodes = self.nodes();
        let folds = self.folds.entry(v).or_default().clone();
        let mut cur = node.min(nodes.saturating_sub(1));
        let (idx, src) = self.parts();
        let mut info = idx.node(src, cur)?;
        for _ in 0..delta.unsigned_abs() {
            let next = if delta > 0 {
                if cur + 1 >= nodes {
                    break;
                }
                cur + 1
            } else {
                if cur == 0 {
                    break;
                }
                cur - 1
            };
            let mut n = idx.node(src, next)?;
            if let Some(i) = folds.hiding(n.at.line) {
                let f = &folds.folds()[i];
                let target = if delta > 0 {
                    f.resume_node
                } else {
                    Some(f.call_node)
                };
                match target {
                    Some(t) if t < nodes => n = idx.node(src, t)?,
                    _ => break,
                }
            }
            cur = n.at.node;
            info = n;
        }
        Ok(info)
    }

    fn eval(&mut self, node: u64, text: &str) -> Result<Reply, QueryError> {
        let hint = self.aarch64_hint();
        let image = self.image.as_ref();
        let (idx, src) = match (&self.index, &self.building) {
            (Some(i), _) => (i, &mut self.source as &mut dyn TraceSource),
            (None, Some(b)) => (b.builder.index(), &mut self.source as &mut dyn TraceSource),
            (None, None) => return Ok(Reply::Error("no trace is open".into())),
        };
        let regs = idx.registers_after(src, node)?;
        let n = idx.node(src, node)?;
        let ctx = Ctx {
            aarch64: registers::is_aarch64(&regs, hint),
            regs: &regs,
            pc: (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc),
            image,
        };
        let parsed = match expr::parse_with(text, &ctx) {
            Ok(e) => e,
            Err(e) => return Ok(Reply::Error(format!("{}: {}", text, e.message))),
        };
        Ok(match parsed.eval(&ctx) {
            Ok(v) => Reply::Value(v),
            Err(e) => Reply::Error(format!("{}: {} has no known value here", text, e)),
        })
    }

    fn fold(&mut self, v: u32, node: u64, op: FoldOp) -> Result<Reply, QueryError> {
        if self.index.is_none() {
            return Ok(Reply::Error(
                "calls are known once indexing completes".into(),
            ));
        }
        let lines = self.lines();
        let nodes = self.nodes();
        let idx = self.index.as_ref().expect("checked above");
        let calls = idx.calls();
        let fold_of = |c: &crate::index::CallInfo| Fold {
            call: c.id,
            call_node: c.call_node,
            entry_node: c.entry_node,
            resume_node: c.resume_node,
            function: c.function,
            first: c.entry_line,
            end: c.resume_line.unwrap_or(lines + 1),
        };
        // The position is after `node`: the function it is in is the one
        // containing the next node.
        let inside = (node + 1).min(nodes.saturating_sub(1));
        let stack = calls.stack_at(inside);
        let folds = self.folds.entry(v).or_default();
        match op {
            FoldOp::FoldCall => {
                if let Some(c) = stack.last() {
                    folds.add(fold_of(c));
                }
            }
            FoldOp::UnfoldCall => {
                folds.retain(|f| {
                    !(f.call_node == node
                        || (f.entry_node <= inside && f.resume_node.is_none_or(|r| inside < r)))
                });
            }
            FoldOp::FoldChildren => {
                let parent = stack.last().map(|c| c.id);
                let (from, to) = stack.last().map_or((0, u64::MAX), |c| {
                    (c.entry_node, c.resume_node.unwrap_or(u64::MAX))
                });
                for c in calls.overlapping(from, to.saturating_sub(1)) {
                    if c.parent == parent
                        && c.entry_node >= from
                        && c.entry_node < to
                        && Some(c.id) != parent
                    {
                        folds.add(fold_of(&c));
                    }
                }
            }
            FoldOp::UnfoldInside => {
                let (first, end) = stack.last().map_or((0, u64::MAX), |c| {
                    (c.entry_line, c.resume_line.unwrap_or(u64::MAX))
                });
                folds.retain(|f| !(f.first >= first && f.end <= end));
            }
            FoldOp::FoldAll => {
                for c in calls.iter() {
                    if c.parent.is_none() {
                        folds.add(fold_of(&c));
                    }
                }
            }
            FoldOp::UnfoldAll => folds.retain(|_| false),
        }
        let total_rows = folds.total_rows(lines);
        // Keep the cursor visible: a folded-away position moves to the call.
        let folds = folds.clone();
        let (idx, src) = self.parts();
        let n = idx.node(src, node)?;
        let cursor = match folds.hiding(n.at.line) {
            Some(i) => folds.folds()[i].call_node,
            None => node,
        };
        Ok(Reply::Folded { total_rows, cursor })
    }

    fn node_lines(&mut self, node: u64) -> Result<Reply, QueryError> {
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

fn line_row(
    number: u64,
    text: &[u8],
    node: u64,
    first_of_node: bool,
    image: Option<&SymbolTable>,
    parse: ParseOptions,
    dialect: crate::parse::Dialect,
) -> Row {
    // Each row is highlighted on its own: a fresh parser per line keeps rows
    // independent of what was fetched before (only LD/ST continuation
    // lines lose their type, and they still highlight as memory words).
    let mut parser = Parser::new(parse, dialect);
    let rec = parser.parse_line(text);
    // While one core is followed, the others' lines are shown dimmed: they
    // sit among its nodes but change none of its registers.
    let other_core = matches!((parse.cpu, rec.cpu), (Some(want), Some(c)) if c != want.as_bytes());
    let spans = if other_core {
        vec![protocol::Span {
            start: 0,
            end: text.len() as u32,
            hl: Hl::OtherCore,
        }]
    } else {
        highlight::spans(text, &rec)
    };
    let spans = remap_spans(text, spans);
    let branch_symbol = match (&rec.kind, image) {
        (RecordKind::Instruction(i), Some(img)) => {
            branch_target(&String::from_utf8_lossy(i.disassembly))
                .map(|t| img.symbolic_address(t, false))
                .filter(|s| !s.is_empty())
        }
        _ => None,
    };
    Row::Line {
        line: number,
        node,
        first_of_node,
        text: display_text(text),
        spans,
        branch_symbol,
    }
}
