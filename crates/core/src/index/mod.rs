//! The index: what is needed to answer "where", "what state" and "who wrote
//! it" questions about any position of a trace, without keeping the trace.
//!
//! Design (see ARCHITECTURE.md): one streaming pass runs the [`Engine`] and
//! keeps, about every [`IndexOptions::checkpoint_bytes`] bytes, a *checkpoint*
//! (position, time, engine resume state, delta-coded register snapshot); per
//! checkpoint interval, a bitmap of register groups written and the memory
//! diff; and the confirmed calls. A query restores the nearest
//! checkpoint and replays at most one interval of trace text, read from the
//! [`TraceSource`] on demand. Positions are node indices (the reference
//! tools' unit: one instruction with its register and memory lines); "state
//! at node N" means after node N's lines.

mod before;
mod builder;
mod calls;
mod depth;
mod eval;
pub(crate) mod events;
mod find;
mod intervals;
mod memdiff;
pub mod parallel;
mod pc_counts;
mod queries;
pub mod range_job;
mod raw_calls;
mod reads;
mod reg_reads;
mod replay;
mod serialize;
mod snapshot;
mod watch;

use crate::codec::varint;
use crate::engine::{Call, Engine, EngineOptions, Node, Observer, ResumeState};
use crate::lines::{Line, LineReader};
use crate::parse::{Dialect, ParseOptions, Parser, ParserState};
use crate::source::TraceSource;
use crate::state::memory::Fill;
use crate::state::regfile::{self, RegFile};
use crate::{Error, Result};

pub use before::{MemByte, PcIntervals, StateBefore};
pub use builder::IndexBuilder;
use builder::{bloom_has, mode_of, Accumulator, Mode, SplitSeek};
pub(crate) use calls::Nesting;
pub use calls::{CallInfo, CallTable};
pub use depth::{bucket_bounds, bucket_start, TIMELINE_BUCKETS};
pub use events::EventKind;
pub(crate) use events::{Event, EventList};
pub use intervals::IntervalStart;
pub use pc_counts::Counts;
use pc_counts::PcCountMap;
use replay::SourceRef;
pub use serialize::{IndexEncoder, TraceIdentity};
use snapshot::Snapshots;
pub use watch::{value_text, AccessHit, AccessKind, MemAccessed, Watched};

use memdiff::MemHistory;
use reads::ReadHistory;

/// Index construction options.
#[derive(Clone, Copy, Debug)]
pub struct IndexOptions {
    /// How the trace's lines are parsed.
    pub parse: ParseOptions,
    /// Checkpoint spacing in trace bytes, about the most a query replays:
    /// a node ends an interval when the next node starts in a later
    /// multiple of it. Bytes, not a node count, so that where intervals end
    /// depends only on the node itself, which lets ranges of a trace be
    /// indexed in parallel ([`parallel::split_offsets`]).
    pub checkpoint_bytes: u64,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            parse: ParseOptions::default(),
            checkpoint_bytes: 256 << 10,
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
        (node.at.offset + node.len) / b > node.at.offset / b
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
}

/// Memory contents over a range: `known[i]` tells whether `bytes[i]` is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemView {
    pub(crate) addr: u64,
    /// The values; an unknown byte reads 0.
    pub bytes: Vec<u8>,
    /// Whether each byte's value is known.
    pub known: Vec<bool>,
}

/// Summary figures of an index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexSummary {
    /// Trace bytes indexed.
    pub bytes: u64,
    /// Lines indexed.
    pub lines: u64,
    /// Nodes indexed.
    pub nodes: u64,
    /// Nodes holding an instruction.
    pub instructions: u64,
    /// Calls found (known once the index is complete).
    pub calls: u64,
}

/// The index of one trace.
pub struct Index {
    opts: IndexOptions,
    dialect: Dialect,
    checkpoints: Vec<Checkpoint>,
    /// The register file at each checkpoint, delta-coded.
    snapshots: Snapshots,
    /// Per closed interval: register groups written ([`regfile::group_of`]).
    reg_groups: Vec<[u64; 2]>,
    /// Per closed interval: register groups its executed instructions
    /// read (decoded); `None` in an index file written before they were
    /// kept.
    reg_reads: Option<Vec<[u64; 2]>>,
    /// Per closed interval: a 256-bit Bloom filter of instruction addresses,
    /// so a PC search skips intervals that never executed it.
    pc_blooms: Vec<[u64; 4]>,
    /// Per closed interval: the least and the greatest time its nodes'
    /// first lines give ([`Node::own_time`]), so that a time is found where
    /// the trace wrote it even where time went back; `None` in an index
    /// file written before they were kept.
    own_times: Option<Vec<[u64; 2]>>,
    /// Instructions run per address; `None` in an index file written
    /// before it was kept.
    pc_counts: Option<PcCountMap>,
    mem: MemHistory,
    /// Memory read per interval; `None` in an index file written before
    /// reads were kept (every interval may then have read anything).
    reads: Option<ReadHistory>,
    calls: CallTable,
    events: EventList,
    summary: IndexSummary,
    /// Whether the whole trace has been indexed.
    complete: bool,
    aarch64_used: bool,
    /// First line holding an event (the reference tools number from it).
    first_event_line: Option<u64>,
}

impl Index {
    /// The options it was built with.
    pub fn options(&self) -> &IndexOptions {
        &self.opts
    }

    /// The trace's dialect (forced or detected).
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// What it covers so far.
    pub fn summary(&self) -> IndexSummary {
        self.summary
    }

    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }

    /// Whether the trace ever ran in AArch64 state.
    pub fn aarch64_used(&self) -> bool {
        self.aarch64_used
    }

    /// The calls found (empty until the index is complete).
    pub fn calls(&self) -> &CallTable {
        &self.calls
    }

    /// Exceptions, interrupts, mode changes, aborts and unparsed lines.
    pub(crate) fn events(&self) -> &EventList {
        &self.events
    }

    /// Gives back the room its vectors grew into while it was built: on a
    /// 1 GB trace, 7 of the 25 MB a finished index held.
    fn shrink_to_fit(&mut self) {
        self.checkpoints.shrink_to_fit();
        self.snapshots.shrink_to_fit();
        self.reg_groups.shrink_to_fit();
        if let Some(r) = &mut self.reg_reads {
            r.shrink_to_fit();
        }
        self.pc_blooms.shrink_to_fit();
        if let Some(t) = &mut self.own_times {
            t.shrink_to_fit();
        }
        self.mem.shrink_to_fit();
        if let Some(r) = &mut self.reads {
            r.shrink_to_fit();
        }
        self.calls.shrink_to_fit();
    }

    /// Bytes the index keeps in memory, counted honestly (capacities, not lengths).
    pub fn resident_bytes(&self) -> usize {
        self.resident_parts().iter().map(|&(_, n)| n).sum()
    }

    /// [`Index::resident_bytes`] by part, for figures (`index -v`).
    pub fn resident_parts(&self) -> [(&'static str, usize); 12] {
        [
            (
                "checkpoints",
                self.checkpoints.capacity() * std::mem::size_of::<Checkpoint>(),
            ),
            ("snapshots", self.snapshots.resident_bytes()),
            ("register_groups", self.reg_groups.capacity() * 16),
            (
                "register_reads",
                self.reg_reads.as_ref().map_or(0, |r| r.len() * 16),
            ),
            ("pc_blooms", self.pc_blooms.capacity() * 32),
            (
                "own_times",
                self.own_times.as_ref().map_or(0, |t| t.capacity() * 16),
            ),
            (
                "pc_counts",
                self.pc_counts
                    .as_ref()
                    .map_or(0, PcCountMap::resident_bytes),
            ),
            ("memory", self.mem.resident_bytes()),
            (
                "memory_reads",
                self.reads.as_ref().map_or(0, ReadHistory::resident_bytes),
            ),
            ("calls", self.calls.resident_bytes()),
            ("events", self.events.resident_bytes()),
            ("fixed", std::mem::size_of::<Index>()),
        ]
    }

    /// How many times each instruction address ran (Thumb bit cleared), in
    /// ascending address order; `None` for an index file written before
    /// the index kept them.
    pub fn pc_counts(&self) -> Option<Vec<(u64, Counts)>> {
        self.pc_counts.as_ref().map(PcCountMap::sorted)
    }

    /// How often the instruction at `pc` ran (and failed its condition);
    /// `None` for an index without counts (format 6 and older).
    pub fn pc_count(&self, pc: u64) -> Option<Counts> {
        self.pc_counts
            .as_ref()
            .map(|m| m.get(pc).unwrap_or_default())
    }

    /// Number of nodes indexed (complete intervals only while building).
    pub fn nodes(&self) -> u64 {
        self.summary.nodes
    }
}
