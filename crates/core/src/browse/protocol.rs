//! Questions the trace browser asks about an open trace, and the answers.
//! UI-free: the web worker answers them with a [`super::Session`], and the
//! same session answers them natively in tests. Every answer is small (a
//! screenful of rows, one register file, a few hundred bytes of memory), so
//! the UI thread only ever handles little messages.

use serde::{Deserialize, Serialize};

/// A position in the trace: the index of a node (one instruction with its
/// register and memory lines). "State at node N" is the state after N's lines.
pub type NodeId = u64;

/// How to find a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Locate {
    /// The node containing this 1-based line number.
    Line(u64),
    /// The last node at or before this timestamp.
    Time(u64),
    /// The node containing this byte offset.
    Offset(u64),
    Node(NodeId),
    /// First and last node.
    Start,
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
    /// Any byte of `[addr, addr + len)`.
    Memory { addr: u64, len: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Query {
    /// Rows `first..first+count` of view `view` (folds applied).
    Rows { view: u32, first: u64, count: u32 },
    /// The row showing the first line of `node` in view `view` (or the fold
    /// row hiding it).
    RowOfNode { view: u32, node: NodeId },
    /// The node `delta` visible instructions away from `node` in view `view`
    /// (a folded call counts as one step). Clamped to the ends.
    Step { view: u32, node: NodeId, delta: i64 },
    /// The node at a position.
    Locate(Locate),
    /// Next (`forward`) or previous node, strictly after/before `node`,
    /// whose instruction is at `pc` (Thumb bit ignored).
    FindPc {
        node: NodeId,
        pc: u64,
        forward: bool,
    },
    /// Registers after `node`, marked as `mark` says.
    Registers { node: NodeId, mark: RegMark },
    /// Memory `[addr, addr+len)` after `node`, `len` at most 4096.
    Memory {
        node: NodeId,
        addr: u64,
        len: u32,
        compare: Option<NodeId>,
    },
    /// The previous (at or before `node`) or next (after `node`) write.
    Write {
        node: NodeId,
        target: WriteTarget,
        forward: bool,
    },
    /// Evaluates an address expression (`sp+0x100`, `main+4`, `(x0-8)*2`)
    /// with the registers after `node` and the ELF symbols.
    Eval { node: NodeId, expr: String },
    /// Changes the folds of view `view`.
    Fold { view: u32, node: NodeId, op: FoldOp },
    /// The calls active at `node`, outermost first.
    CallStack { node: NodeId },
    /// The lines of `node` and what each one reads or writes (for the `a`
    /// highlight and its Return-to-previous-write).
    NodeLines { node: NodeId },
    /// Symbolic names of addresses (`main + 0x10`), empty when unknown.
    Symbolize { addrs: Vec<u64> },
    /// Text search, in steps (`search.rs`).
    Search(super::search::SearchQuery),
    /// Events `first..first+count` (exceptions, interrupts, mode changes,
    /// aborted accesses, unparsed lines), in trace order.
    Events { first: u64, count: u32 },
    /// How many events lie before `node` (`Reply::Row`): where the events
    /// list is at a position.
    EventRank { node: NodeId },
    /// The node of the next event after `node` (or previous before it).
    NextEvent { node: NodeId, forward: bool },
    /// Call depth and event kinds over the whole indexed part, in about
    /// `buckets` equal spans of nodes.
    Timeline { buckets: u32 },
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
    None,
}

/// A node as the UI needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeView {
    pub node: NodeId,
    pub first_line: u64,
    pub lines: u64,
    pub time: u64,
    /// Instruction address (Thumb bit set for Thumb), `None` without one.
    pub pc: Option<u64>,
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
    Time,
    Event,
    Pc,
    Encoding,
    ISet,
    Mode,
    Disassembly,
    /// Disassembly of an instruction that failed its condition.
    NotExecuted,
    Register,
    Value,
    Address,
    Punct,
    Text,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub hl: Hl,
}

/// One row of a trace view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Row {
    Line {
        line: u64,
        node: NodeId,
        /// Whether this is the first line of its node (where the node's
        /// instruction usually is).
        first_of_node: bool,
        /// The line, lossily decoded as UTF-8, tabs expanded.
        text: String,
        spans: Vec<Span>,
        /// For branch lines with an ELF: the target's symbol (F7).
        branch_symbol: Option<String>,
    },
    /// A folded call: one row for all its lines.
    Fold {
        call: u64,
        /// The node holding the call instruction (just above the fold).
        call_node: NodeId,
        entry_node: NodeId,
        /// Lines hidden.
        lines: u64,
        /// Callee address and name (empty without an ELF).
        function: u64,
        name: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowsReply {
    pub first: u64,
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
    pub text: String,
    pub known: bool,
    /// Differs from the compared state.
    pub changed: bool,
    /// Decimal reading for floating-point registers; flag letters for psr.
    pub decoded: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegPanel {
    /// `core`, `single`, `double`, `neon`, `mve`, `sve`.
    pub kind: String,
    pub title: String,
    pub cells: Vec<RegCell>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistersReply {
    pub node: NodeId,
    pub aarch64: bool,
    pub panels: Vec<RegPanel>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryReply {
    pub node: NodeId,
    pub addr: u64,
    pub bytes: Vec<u8>,
    pub known: Vec<bool>,
    pub changed: Vec<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallFrame {
    pub call: u64,
    pub call_node: NodeId,
    pub entry_node: NodeId,
    pub resume_node: Option<NodeId>,
    pub function: u64,
    pub name: String,
}

pub use crate::index::EventKind;

/// One event of the events list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    pub line: u64,
    pub node: NodeId,
    pub kind: EventKind,
    /// The line (its first 400 bytes), tabs expanded.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsReply {
    pub first: u64,
    /// Events in the indexed part so far.
    pub total: u64,
    pub events: Vec<EventRow>,
}

/// The timeline: bucket `i` covers nodes `[i*nodes/n, (i+1)*nodes/n)` for
/// `n = depth.len()` buckets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineReply {
    pub nodes: u64,
    /// Deepest call nesting in each bucket.
    pub depth: Vec<u32>,
    /// Event kinds in each bucket ([`EventKind::bit`]).
    pub kinds: Vec<u8>,
}

/// What one line of a node reads or writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineEffect {
    pub line: u64,
    pub text: String,
    /// The register or memory this line touches, if any.
    pub target: Option<WriteTarget>,
    /// A read (jump to the write that produced the value) or a write.
    pub read: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    Rows(RowsReply),
    Row(u64),
    /// A node, or `None` when nothing matched.
    Node(Option<NodeView>),
    Registers(RegistersReply),
    Memory(MemoryReply),
    Value(u64),
    /// Folds changed; the view now has this many rows, and `cursor` is the
    /// position to show (moved to the call instruction when the old one
    /// was folded away).
    Folded {
        total_rows: u64,
        cursor: NodeId,
    },
    Stack(Vec<CallFrame>),
    NodeLines(Vec<LineEffect>),
    Symbols(Vec<String>),
    Search(super::search::SearchReply),
    Events(EventsReply),
    Timeline(TimelineReply),
    /// The query could not be answered (bad expression, beyond the indexed
    /// part, read error): a message for the person.
    Error(String),
}

/// Indexing progress, sent by the worker as it goes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub lines: u64,
    pub nodes: u64,
    pub complete: bool,
    /// Memory the index holds so far ([`crate::index::Index::resident_bytes`]).
    #[serde(default)]
    pub index_bytes: u64,
    /// Indexing stopped before the end, and why (the index reached its
    /// memory budget); the part indexed can still be browsed.
    #[serde(default)]
    pub stopped: Option<String>,
}
