//! Questions the trace browser asks about an open trace, and the answers.
//! UI-free: the web worker answers them with a [`super::Session`], and the
//! same session answers them natively in tests. Every answer is small (a
//! screenful of rows, one register file, a few hundred bytes of memory), so
//! the UI thread only ever handles little messages.

use serde::{Deserialize, Serialize};

pub use super::question::{Answerable, Example, Question};
pub use super::{Query, Reply};

pub use crate::index::AccessKind;

/// A position in the trace: the index of a node (one instruction with its
/// register and memory lines). "State at node N" is the state after N's lines.
pub type NodeId = u64;

/// How to find a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Locate {
    /// The node containing this 1-based line number.
    Line(u64),
    /// The first node whose time (as its first line gives it) is this; a
    /// time no node has: the last node before it in the trace's clamped,
    /// never-decreasing order ([`crate::Index::node_at_time`]).
    Time(u64),
    /// The node containing this byte offset.
    Offset(u64),
    /// That node itself (checked to exist).
    Node(NodeId),
    /// The first node.
    Start,
    /// The last node indexed so far.
    End,
}

/// Fold operations, as in the reference browser's `-` `+` `[` `]` `{` `}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FoldOp {
    /// Fold the innermost call containing the node (`-`).
    FoldCall,
    /// Unfold a folded call at the node: the node is the call instruction
    /// just before the fold, or a node inside it (`+`).
    UnfoldCall,
    /// Fold every call made directly from the function containing the node (`[`).
    FoldChildren,
    /// Unfold everything inside the function containing the node (`]`).
    UnfoldInside,
    /// Fold every outermost call (`{`).
    FoldAll,
    /// Unfold everything (`}`).
    UnfoldAll,
}

/// What a "previous/next write" query looks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WriteTarget {
    /// A register by name (`x3`, `sp`, `q0`, `psr`).
    Register(String),
    /// Any byte of a memory range.
    Memory {
        /// First address of the range.
        addr: u64,
        /// Length of the range in bytes.
        len: u64,
    },
}

// The questions (see `question.rs`), each with its fields; `browse/mod.rs`
// lists them with their answers. Those of the search, "why?" and
// disassembly panes are further down and in `disassembly.rs`; [`Locate`]
// is a question too.

/// A screenful of rows of a view, folds applied ([`RowsReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rows {
    /// The view whose folds apply.
    pub view: u32,
    /// First row, 0-based.
    pub first: u64,
    /// Rows wanted (at most 1000 are given).
    pub count: u32,
}

/// The row showing the first line of a node, or the fold row hiding it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowOfNode {
    /// The view whose folds apply.
    pub view: u32,
    /// The node looked for.
    pub node: NodeId,
}

/// The node some visible instructions away (a folded call counts as one
/// step), clamped to the ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The view whose folds apply.
    pub view: u32,
    /// Where the step starts.
    pub node: NodeId,
    /// Instructions to move: positive forward, negative back.
    pub delta: i64,
}

/// The nearest node past `node` whose instruction is at an address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindPc {
    /// Where the search starts (the node itself is not a match).
    pub node: NodeId,
    /// Instruction address; the Thumb bit is ignored.
    pub pc: u64,
    /// Search after `node` (true) or before it.
    pub forward: bool,
}

/// The register panels after a node ([`RegistersReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registers {
    /// The position.
    pub node: NodeId,
    /// Which registers the panels mark.
    pub mark: RegMark,
}

/// Memory after a node ([`MemoryReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The position.
    pub node: NodeId,
    /// First address shown.
    pub addr: u64,
    /// Bytes shown; at most 4096 are given.
    pub len: u32,
    /// A node to compare with: bytes that differ there are marked changed.
    pub compare: Option<NodeId>,
}

/// The write that produced a register's or memory's value at a position,
/// or the next one after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    /// The position.
    pub node: NodeId,
    /// The register or memory range.
    pub target: WriteTarget,
    /// The next write after `node` (true), or the last at or before it.
    pub forward: bool,
}

/// A watchpoint from a position: the next (or previous) node that reads
/// or writes a register or memory range ([`AccessView`], `None` when there
/// is none that way).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// The position (the hit is strictly after or before it).
    pub node: NodeId,
    /// The register or memory range.
    pub target: WriteTarget,
    /// Reads, writes or both (registers: writes only).
    pub kind: AccessKind,
    /// After `node` (true) or before it.
    pub forward: bool,
}

/// A watchpoint's list: the nodes from `from` on that access a register
/// or memory range, in order, at most `max` of them and as many as one
/// bounded look at the trace finds ([`AccessesReply`]); the list goes on
/// from the reply's `next`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accesses {
    /// The register or memory range.
    pub target: WriteTarget,
    /// Reads, writes or both.
    pub kind: AccessKind,
    /// The first node looked at.
    pub from: NodeId,
    /// Most hits in one reply (at most 1000 are given).
    pub max: u32,
}

/// A value condition (`x5 == 0`, `[sp+8:4] > 100`, `pc == main && x0 ==
/// 1`; the grammar of `tarmac-lens find`, names resolved through the
/// loaded ELF's symbols): the next (or previous) node where it becomes
/// true, looking at no more than `budget` checkpoint intervals
/// ([`ConditionReply`]), so a page can show progress and stop a long
/// search between pieces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// The condition's text.
    pub text: String,
    /// The hit is strictly after this node (forward) or before it; a
    /// piece's [`ConditionReply::Continue`] says the next piece's.
    pub node: NodeId,
    /// Towards the end of the trace (true) or its start.
    pub forward: bool,
    /// Most checkpoint intervals one reply looks at (at least 1).
    pub budget: u32,
}

/// Evaluates an address expression (`sp+0x100`, `main+4`, `(x0-8)*2`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Eval {
    /// The position whose registers the expression reads.
    pub node: NodeId,
    /// The expression; names are registers, then ELF symbols.
    pub expr: String,
}

/// Changes the folds of a view ([`Folded`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fold {
    /// The view whose folds change.
    pub view: u32,
    /// The position the operation applies at.
    pub node: NodeId,
    /// What to fold or unfold.
    pub op: FoldOp,
}

/// Folds changed ([`Fold`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folded {
    /// Rows the view now has.
    pub total_rows: u64,
    /// The position to show: moved to the call instruction when the old
    /// one was folded away.
    pub cursor: NodeId,
}

/// The calls active at a node, outermost first ([`CallFrame`]s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallStack {
    /// The position.
    pub node: NodeId,
}

/// The lines of a node and what each one reads or writes, for the `a`
/// highlight and its return to the previous write ([`LineEffect`]s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeLines {
    /// The node.
    pub node: NodeId,
}

/// Symbolic names of addresses (`main + 0x10`), empty when unknown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbolize {
    /// The addresses, answered in this order.
    pub addrs: Vec<u64>,
}

/// A page of the events list: exceptions, interrupts, mode changes,
/// aborted accesses and unparsed lines, in trace order ([`EventsReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Events {
    /// First event, 0-based.
    pub first: u64,
    /// Events wanted (at most 500 are given).
    pub count: u32,
}

/// How many events lie before a node: where the events list is at a
/// position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRank {
    /// The position.
    pub node: NodeId,
}

/// The node of the nearest event past a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextEvent {
    /// Where the search starts.
    pub node: NodeId,
    /// After `node` (true) or before it.
    pub forward: bool,
}

/// Call depth and event kinds over the whole indexed part
/// ([`TimelineReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    /// Spans of equally many nodes to summarise the trace in.
    pub buckets: u32,
}

/// The source frames of a node's instruction ([`SourceReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The position.
    pub node: NodeId,
}

/// How often each line of a source file ran, over the part indexed
/// ([`FileCountsReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCounts {
    /// The file as the DWARF names it ([`SourceFrame::file`]).
    pub file: String,
}

/// Source-level stepping, as a debugger steps (`None` when there is no
/// such line).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineStep {
    /// Where the step starts.
    pub node: NodeId,
    /// Which step.
    pub step: SourceStep,
}

/// The nearest execution of a source line past a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindLine {
    /// Where the search starts (the node itself is not a match).
    pub node: NodeId,
    /// The file as the DWARF names it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// After `node` (true) or before it.
    pub forward: bool,
}

/// The ELF image's functions whose name contains `text` (any case), best
/// matches first: the name itself, then names starting with it, then the
/// rest; the most called first within each ([`FunctionHit`]s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Functions {
    /// Part of a name.
    pub text: String,
    /// Most functions given (at most 100).
    pub count: u32,
}

/// The executions of a source line, in trace order, a page at a time
/// ([`HitsReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineHits {
    /// The file as the DWARF names it, or its last path components
    /// (`hash.c`).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// Executions after this node (`None`: from the start).
    pub after: Option<NodeId>,
    /// Most executions given (at most 500).
    pub count: u32,
}
/// A source-level step ([`LineStep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceStep {
    /// The first instruction of the next source line to run, into calls.
    Next,
    /// The first instruction of the source line that ran before.
    Prev,
    /// The next line of this function (or its caller's): calls run over.
    Over,
    /// Out of this call: the caller's next line after it returns.
    Out,
}

/// One frame of the source at an instruction: innermost (the line the
/// instruction was compiled from) first, then the functions it was inlined
/// into, then the function holding the code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFrame {
    /// The function, as DWARF names it (`None`: none described).
    pub function: Option<String>,
    /// The file, as the DWARF line table names it.
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column, where recorded.
    pub column: Option<u32>,
}

/// Where the source at a node is ([`Source`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceReply {
    /// No ELF image with DWARF line information is loaded.
    NoDebugInfo {
        /// Whether an ELF image is loaded (one without DWARF: built
        /// without `-g`, or stripped).
        image: bool,
    },
    /// The node holds no instruction.
    NoInstruction,
    /// The frames at the node's PC (empty: no unit covers it).
    Frames {
        /// The instruction address.
        pc: u64,
        /// Innermost first.
        frames: Vec<SourceFrame>,
    },
}

/// Per-line counts of one file ([`LineCounts`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCountsReply {
    /// The file asked about.
    pub file: String,
    /// Lines with code, ascending: (line, executed, condition failed);
    /// zeros for a line with code that never ran.
    pub lines: Vec<(u32, u64, u64)>,
    /// Whether the counts cover the whole trace (indexing has ended).
    pub complete: bool,
    /// Why there are none, when there are none (no DWARF, an index
    /// without counts).
    pub note: Option<String>,
}

/// One execution of a source line ([`LineHits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineHit {
    /// The node of the instruction.
    pub node: NodeView,
    /// Calls active there (0: outside any call found).
    pub depth: u32,
}

/// A function of the ELF image ([`Functions`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionHit {
    /// As the reports name it (`name#2` for a second of the same name).
    pub name: String,
    /// Its entry address in the trace.
    pub addr: u64,
    /// How often its first instruction ran over the part indexed: its
    /// calls, and its loops back to the entry if any; `None` for an index
    /// without per-address counts.
    pub calls: Option<u64>,
}

/// A page of a line's executions ([`LineHits`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitsReply {
    /// In trace order.
    pub hits: Vec<LineHit>,
    /// Whether more follow the last one.
    pub more: bool,
}

/// Which registers a register panel marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegMark {
    /// Those the node's own lines wrote (whatever the value): what the
    /// instruction at the position did.
    #[default]
    Written,
    /// Those that differ from the state after this node (a previous
    /// position): what changed since.
    ChangedSince(NodeId),
    /// None.
    None,
}

/// A node that accessed what a watchpoint watches, as the watch pane
/// lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessView {
    /// The node.
    pub node: NodeView,
    /// `r`, `w` or `rw`.
    pub kind: String,
    /// The accesses (`W [0x1000:4]=0x0000002a`), or a register's value
    /// after the node (`=0x2a`).
    pub detail: String,
    /// The function of its instruction (`name + 0x10`), with an image.
    pub function: String,
}

/// How far a value condition's search got ([`Condition`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConditionReply {
    /// The nearest node where it becomes true.
    Hit(NodeView),
    /// It becomes true nowhere that way (in the part indexed).
    NotFound,
    /// Not found within the budget: ask again from this node (the same
    /// direction) to go on; every node between the first piece's and it
    /// is searched.
    Continue(NodeId),
    /// The text is not a condition: the column (1-based, in bytes) where
    /// it went wrong, and why.
    Invalid {
        /// Where.
        column: u32,
        /// Why: `expected closing ']'`.
        message: String,
    },
}

/// Part of a watchpoint's list ([`Accesses`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessesReply {
    /// The hits, in order.
    pub hits: Vec<AccessView>,
    /// Where the list goes on: the number of nodes indexed when it
    /// reached the end of what is indexed (ask again from there once more
    /// is).
    pub next: NodeId,
}

/// A node as the UI needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeView {
    /// Its number.
    pub node: NodeId,
    /// Its first line, 1-based.
    pub first_line: u64,
    /// How many lines it spans.
    pub lines: u64,
    /// Its timestamp, in the trace's unit, as its first line gives it (not
    /// clamped where the trace's time went back).
    pub time: u64,
    /// Instruction address (Thumb bit set for Thumb), `None` without one.
    pub pc: Option<u64>,
    /// Byte offset of its first line in the trace.
    pub offset: u64,
    /// 1-based number of the node's instruction among the trace's
    /// instructions, `None` for a node without one.
    #[serde(default)]
    pub instruction: Option<u64>,
}

/// Syntax classes for highlighting (`data-hl` in the page).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hl {
    /// A whole line of another core than the one followed (`--cpu`).
    OtherCore,
    /// The timestamp and its unit.
    Time,
    /// The line's type word (`IT`, `R`, `MW4`, `E`).
    Event,
    /// An instruction's address.
    Pc,
    /// An instruction's encoding.
    Encoding,
    /// The instruction-set letter (`A`, `T`, `O`).
    ISet,
    /// The CPU mode (`EL3h_s`, `svc_s`).
    Mode,
    /// Disassembly of an executed instruction.
    Disassembly,
    /// Disassembly of an instruction that failed its condition.
    NotExecuted,
    /// A register name.
    Register,
    /// A register or memory value.
    Value,
    /// A memory address.
    Address,
    /// Separators (`:`, `(`, `)`).
    Punct,
    /// Other text (event descriptions, header lines).
    Text,
    /// A line the parser did not understand (all of it).
    Error,
}

/// Highlighting of part of a row's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First column, 0-based, in the row's text (tabs expanded).
    pub start: u32,
    /// Column just past the span.
    pub end: u32,
    /// How to show it.
    pub hl: Hl,
}

/// One row of a trace view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Row {
    /// A trace line.
    Line {
        /// Its number, 1-based.
        line: u64,
        /// The node it belongs to (node 0 for lines before the first).
        node: NodeId,
        /// Whether this is the first line of its node (where the node's
        /// instruction usually is).
        first_of_node: bool,
        /// The line, lossily decoded as UTF-8, tabs expanded.
        text: String,
        /// Highlighting, in column order, not overlapping.
        spans: Vec<Span>,
        /// For branch lines with an ELF: the target's symbol (F7).
        branch_symbol: Option<String>,
        /// For instruction lines with an ELF's DWARF: the `file:line` the
        /// instruction was compiled from.
        #[serde(default)]
        source: Option<String>,
        /// For instruction lines with an ELF: the function the instruction
        /// is in (a call's first row: its callee).
        #[serde(default)]
        function: Option<String>,
        /// For an instruction whose address the trace wrote as a
        /// capability (a Morello FVP's): its tag, bounds and permissions.
        #[serde(default)]
        capability: Option<String>,
    },
    /// A folded call: one row for all its lines.
    Fold {
        /// The call's number in the index's call table.
        call: u64,
        /// The node holding the call instruction (just above the fold).
        call_node: NodeId,
        /// The callee's first node (the first hidden).
        entry_node: NodeId,
        /// Lines hidden.
        lines: u64,
        /// Callee address and name (empty without an ELF).
        function: u64,
        /// The callee's symbol, empty without an ELF.
        name: String,
    },
}

/// Rows of a view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowsReply {
    /// The first row's number (as asked, clamped to the rows there are).
    pub first: u64,
    /// The rows, in order.
    pub rows: Vec<Row>,
    /// Rows in the view so far (grows while indexing).
    pub total_rows: u64,
}

/// One register in a panel. `text` is the value in hex, most significant
/// first, with `??` for unknown bytes (empty for a never-written register:
/// all `?`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegCell {
    /// Lower-case name (`x3`, `sp`, `psr`, `s12`, `q0`, `z3`, `p1`).
    pub name: String,
    /// The value, as the type's doc says.
    pub text: String,
    /// Whether every byte is known.
    pub known: bool,
    /// Marked: written by the node, or different from the compared state
    /// (see [`RegMark`]).
    pub changed: bool,
    /// Decimal reading for floating-point registers; flag letters for psr.
    pub decoded: Option<String>,
}

/// One group of registers, shown together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegPanel {
    /// `core`, `single`, `double`, `neon`, `mve`, `sve`.
    pub kind: String,
    /// Heading to show.
    pub title: String,
    /// The registers, in display order.
    pub cells: Vec<RegCell>,
}

/// The registers after a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistersReply {
    /// The position asked about.
    pub node: NodeId,
    /// Whether the AArch64 register set is shown (else AArch32's).
    pub aarch64: bool,
    /// The panels, always these six in this order: `core`, `single`,
    /// `double`, `neon`, `mve`, `sve`.
    pub panels: Vec<RegPanel>,
}

/// Memory after a node; the three vectors have one entry per byte.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryReply {
    /// The position asked about.
    pub node: NodeId,
    /// Address of `bytes[0]`.
    pub addr: u64,
    /// The values; an unknown byte reads 0.
    pub bytes: Vec<u8>,
    /// Whether each byte's value is known at the position.
    pub known: Vec<bool>,
    /// Whether each byte differs from the compared node (all false without
    /// one).
    pub changed: Vec<bool>,
}

/// One active call of a call stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallFrame {
    /// The call's number in the index's call table.
    pub call: u64,
    /// The node holding the call instruction.
    pub call_node: NodeId,
    /// The callee's first node.
    pub entry_node: NodeId,
    /// The caller's node it returned to; `None` if it never did.
    pub resume_node: Option<NodeId>,
    /// The callee's address.
    pub function: u64,
    /// The callee's symbol, empty without an ELF.
    pub name: String,
}

pub use crate::index::EventKind;

/// One event of the events list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    /// Its line, 1-based.
    pub line: u64,
    /// The node holding the line.
    pub node: NodeId,
    /// What kind of event it is.
    pub kind: EventKind,
    /// The line (its first 400 bytes), tabs expanded.
    pub text: String,
}

/// A page of the events list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsReply {
    /// The first event's position in the list, as asked.
    pub first: u64,
    /// Events in the indexed part so far.
    pub total: u64,
    /// The events, in trace order.
    pub events: Vec<EventRow>,
}

/// The timeline: bucket `i` covers nodes `[i*nodes/n, (i+1)*nodes/n)` for
/// `n = depth.len()` buckets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineReply {
    /// Nodes indexed, which the buckets divide.
    pub nodes: u64,
    /// Deepest call nesting in each bucket.
    pub depth: Vec<u32>,
    /// Event kinds in each bucket ([`EventKind::bit`]).
    pub kinds: Vec<u8>,
}

/// What one line of a node reads or writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineEffect {
    /// Its number, 1-based.
    pub line: u64,
    /// The line, tabs expanded.
    pub text: String,
    /// The register or memory this line touches, if any.
    pub target: Option<WriteTarget>,
    /// A read (jump to the write that produced the value) or a write.
    pub read: bool,
}

/// Indexing progress, sent by the worker as it goes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Bytes indexed so far (by this session and the ranges it adopted).
    pub done_bytes: u64,
    /// The trace's length in bytes.
    pub total_bytes: u64,
    /// Lines indexed.
    pub lines: u64,
    /// Nodes indexed.
    pub nodes: u64,
    /// Whether the index is finished (the calls too).
    pub complete: bool,
    /// Memory the index holds so far ([`crate::index::Index::resident_bytes`]).
    #[serde(default)]
    pub index_bytes: u64,
    /// Indexing stopped before the end, and why (the index reached its
    /// memory budget); the part indexed can still be browsed.
    #[serde(default)]
    pub stopped: Option<String>,
}

// The search pane's questions and answers (answered in `search.rs`).

/// What a search question asks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SearchQuery {
    /// Starts a search (dropping any other) and runs its first step.
    Start(SearchRequest),
    /// Runs the next step of a search.
    More {
        /// The search ([`SearchReply::id`]).
        id: u32,
    },
    /// Drops a search.
    Cancel {
        /// The search ([`SearchReply::id`]).
        id: u32,
    },
}

/// What to search for, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchRequest {
    /// Text or regular expression to find in a line.
    pub pattern: String,
    /// Whether `pattern` is a regular expression (bytes, ASCII classes) rather
    /// than plain text.
    pub regex: bool,
    /// Whether letters match regardless of case (ASCII).
    #[serde(default)]
    pub ignore_case: bool,
    /// Only lines of these kinds (empty: every line).
    #[serde(default)]
    pub kinds: Vec<crate::search::KindFilter>,
    /// Only lines `first..=last` (1-based).
    #[serde(default)]
    pub lines: Option<(u64, u64)>,
}

/// One matching line as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHitView {
    /// Its number, 1-based.
    pub line: u64,
    /// The match's columns in the line as the trace view shows it (tabs
    /// expanded), so the row can highlight it.
    pub start: u32,
    /// Column just past the match.
    pub end: u32,
    /// Part of that text around the match (a line may be a megabyte),
    /// beginning at column `text_from`.
    pub text: String,
    /// Column in the line where `text` starts.
    pub text_from: u32,
}

/// What a search step found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchReply {
    /// The search's number, for [`SearchQuery::More`] and
    /// [`SearchQuery::Cancel`].
    pub id: u32,
    /// Hits found since the previous reply, in line order (none once
    /// [`MAX_LISTED`] have been handed out: later ones are only counted).
    pub hits: Vec<SearchHitView>,
    /// Matching lines found so far.
    pub matches: u64,
    /// Bytes searched whose hits have all been handed out.
    pub done_bytes: u64,
    /// The trace's length in bytes.
    pub total_bytes: u64,
    /// Whether the search has read the whole trace (or was cancelled).
    pub done: bool,
}

/// Hits handed out per search; past this, matches are only counted (the
/// page keeps what it was given, and a list that long is not read anyway).
pub const MAX_LISTED: u64 = 10_000;
/// Hits per reply: a reply stays small, and a step stops early when it has
/// this many, so the first hits are shown at once.
pub const MAX_HITS_PER_REPLY: usize = 500;

// The "why?" pane's question and answer (answered in `why.rs`).

/// Deepest tree one question asks for: deeper ones reach
/// [`crate::dataflow::MAX_NODES`] anyway.
pub const MAX_DEPTH: u32 = 16;

/// Where a value came from (a question; [`Reply::Why`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WhyQuery {
    /// The position: the value after this node (a node that writes it is
    /// its own first step).
    pub node: NodeId,
    /// The register or memory range (at most 4096 bytes).
    pub target: WriteTarget,
    /// Levels of inputs expanded below it (at most [`MAX_DEPTH`]).
    pub depth: u32,
    /// For memory below a tree's root: its value as the instruction that
    /// loaded it read it (bytes in address order, and whether each is
    /// known), which is how the tree shows such memory.
    pub loaded: Option<(Vec<u8>, Vec<bool>)>,
}

/// One step of a "why?" tree ([`Reply::Why`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WhyStep {
    /// A register (`x5`, `sp`) or memory (`[0x1000:8]`).
    pub what: String,
    /// Its value (`0x5`, `??` for bytes not known), empty when nothing is
    /// known of it.
    pub value: String,
    /// The node that wrote it, if any did.
    pub writer: Option<crate::dataflow::Writer>,
    /// The writer's disassembly.
    pub instruction: Option<String>,
    /// The function holding the writer (with an image).
    pub function: Option<String>,
    /// Where the value came from, or why the tree stops there.
    pub source: crate::dataflow::Source,
    /// What the writer read that is not the value's data, not followed.
    pub not_followed: Vec<String>,
    /// What made the value.
    pub inputs: Vec<WhyStep>,
    /// For a step not expanded: the question whose tree is this step
    /// expanded (its `depth` that of the question asked).
    pub more: Option<WhyQuery>,
}

impl WhyStep {
    /// Steps in the tree, itself included.
    pub fn count(&self) -> usize {
        1 + self.inputs.iter().map(WhyStep::count).sum::<usize>()
    }
}
