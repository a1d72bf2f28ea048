//! Tarmac Lens core: parse, index, browse and report on Tarmac execution
//! traces. It touches no browser API, and files only through the native
//! `FileSource`, so the same code runs natively (the `tarmac-lens` CLI) and
//! in WebAssembly (the web app, which reads a `Blob` through its own
//! [`TraceSource`]).
//!
//! # The trace text is never held
//!
//! Traces run to 10-100 GB. Indexing reads the trace once and keeps a
//! compact [`Index`] (about 1% of the trace's size): every ~256 KiB
//! of trace a *checkpoint* (position, time, the machine model's resume
//! state, a sparse register snapshot), and per interval between checkpoints
//! which registers and memory it wrote, plus the calls and events. Any
//! position is rebuilt by restoring the checkpoint before it and replaying
//! at most one interval of text, read again from the [`TraceSource`],
//! through the same [`Engine`] that built the index. So a question about
//! any line costs one interval's reading, and memory holds the index only.
//!
//! # Data flow
//!
//! ```text
//! TraceSource ──► LineReader ──► Parser ──► Record ──► Engine ──► Observer
//! (read_at)       (numbered      (per       (typed,   (machine   ├─ IndexBuilder ─► Index ─► queries
//!                  lines)        dialect)   borrowed)  model)    └─ report::*, diff
//!                                              └─► Stats, dump, search (no engine)
//! ```
//!
//! [`Session`] wraps all of it for a trace browser: it indexes in steps
//! answers questions ([`protocol::Question`]), each with its own type of
//! small answer (on the wire between threads: a [`Query`] and its [`Reply`]). [`dataflow::why`] asks
//! the index backwards, step by step, where a value came from.
//!
//! Positions are *nodes*: one timestamp with at most one instruction and
//! the register and memory lines that go with it (the reference Tarmac
//! Trace Utilities' unit); "the state at node N" is the state after N's
//! lines. Failures are one [`Error`], by what failed.
//!
//! A `.gz` or `.zst` trace is read in place, at random offsets, through
//! [`compressed`]: a table of decompressor checkpoints, built by the
//! reads' first forward pass, stands in for a decompressed copy.
//!
//! An ELF image gives names: [`SymbolTable`] (functions, as the reference
//! tools name them) and [`DebugInfo`] (DWARF source lines and inlined
//! frames, read lazily; `report::source_lines` counts executions per line).
//!
//! # Getting started
//!
//! Open a trace, index it, then ask questions. Natively a trace is a file
//! (`FileSource`); here it is a string ([`SliceSource`]):
//!
//! ```
//! use tarmac_lens_core::protocol::{Locate, RegMark, Registers};
//! use tarmac_lens_core::{ParseOptions, Session, SliceSource};
//!
//! let trace = "\
//! 1 clk IT (1) 00008000 e3a00005 A svc_s : MOV r0,#5
//! 1 clk R r0 00000005
//! 2 clk IT (2) 00008004 e2801001 A svc_s : ADD r1,r0,#1
//! 2 clk R r1 00000006
//! ";
//! let mut session = Session::open(SliceSource(trace.as_bytes()), ParseOptions::default())?;
//! // Indexing goes in steps (of about this many bytes), so that a browser
//! // can answer questions between them; run it to the end.
//! while !session.index_step(1 << 20)?.complete {}
//!
//! // Line 4 is in the node (instruction and its lines) starting at line 3.
//! let node = session.ask(Locate::Line(4))?.expect("a node at line 4");
//! assert_eq!((node.node, node.first_line, node.pc), (1, 3, Some(0x8004)));
//!
//! // The registers after that node.
//! let registers = session.ask(Registers { node: node.node, mark: RegMark::None })?;
//! let core = &registers.panels[0];
//! let r1 = core.cells.iter().find(|c| c.name == "r1").unwrap();
//! assert_eq!(r1.text, "00000006");
//!
//! // Indexing counted the records too.
//! assert_eq!(session.stats().unwrap().count("instruction"), 2);
//! # Ok::<(), tarmac_lens_core::Error>(())
//! ```
//!
//! Without an index, one pass over the lines gives [`Stats`]
//! ([`compute_stats`]), and [`Engine`] with an [`Observer`] computes any
//! report (see [`Observer`]'s example). One engine pass gives
//! [`Statistics`] too: the instruction mix, time by exception level,
//! exceptions and interrupts, function statistics, loops, a function's
//! executed control-flow graph, translation and cache events
//! ([`report::stats`]).
//!
//! # Examples
//!
//! Runnable programs in `crates/core/examples/`, each run with
//! `cargo run -p tarmac-lens-core --example NAME -- ARGS` (native only):
//!
//! - `registers_at_line.rs`: open, index and query: the core registers
//!   after a line ([`Query::Locate`], [`Query::Registers`]).
//! - `where_written.rs`: the node that last wrote a register or memory
//!   range at a line, its lines, and the call stack there
//!   ([`Query::Write`], [`Query::NodeLines`], [`Query::CallStack`]).
//! - `custom_report.rs`: a report of one's own, an [`Observer`] over one
//!   pass of the [`Engine`]: instructions per function (named by an ELF's
//!   [`SymbolTable`]) and memory writes by size.
//! - `streaming_stats.rs`: record counts in one streaming pass over a file
//!   or standard input, without an index: a [`TraceSource`] over any
//!   `Read`, of length [`UNKNOWN_LEN`]; printed as a table or JSON.
//! - `compressed_bench.rs`: a `.gz` or `.zst` trace read in place
//!   ([`compressed`]): the access-point pass's speed against `gzip -dc`
//!   or `zstd -dc`, the latency of reads at random offsets, the table's
//!   size.

#![deny(missing_docs)]

// What a downstream tool uses is re-exported below, flat; every module is
// private but five namespaces whose names would clash at the top
// (`diff::Step`, `dataflow::Source`, the reports' and coverage's `Target`s,
// the compressed sources), and `protocol` and `record` are re-exported
// whole. `the_core_is_used_through_its_front_door` (tests/module_graph.rs)
// holds the list and refuses a path from outside through two modules.

mod block_cache;
mod browse;
mod codec;
pub mod compressed;
mod condition;
mod convert;
mod cores;
pub mod coverage;
pub mod dataflow;
mod debuginfo;
mod decode;
pub mod diff;
mod dump;
mod engine;
mod error;
mod expr;
mod index;
mod lines;
mod parse;
pub mod report;
mod search;
mod sniff;
mod source;
mod state;
mod stats;
mod sweep;
mod symbols;
#[cfg(test)]
mod testing;

/// The questions a [`Session`] answers and their answers, on the wire
/// between threads as a [`Query`] and its [`Reply`].
pub use browse::protocol;
/// The records a [`Parser`] yields and an [`Observer`] is shown.
pub use parse::record;

pub use block_cache::BlockCache;
pub use browse::disassembly::{Disassembly, DisassemblyReply, DisassemblyRow};
pub use browse::events::{depth_per_bucket, node_at, MAX_EVENTS};
pub use browse::index_bytes::IndexBytes;
pub use browse::search::{
    SearchHitView, SearchQuery, SearchReply, SearchRequest, MAX_HITS_PER_REPLY, MAX_LISTED,
};
pub use browse::{worker_count, RangeReport, Saving, Session};
pub use browse::{Query, Reply};
pub use condition::{Condition, RegRef, Values};
pub use convert::{convert, Style};
pub use cores::{check_single_core, count as count_cores, CoreCount};
pub use debuginfo::DebugInfo;
pub use decode::InsnClass;
pub use decode::{operands, Operands, FLAGS as FLAGS_REGISTER};
pub use dump::{dump, Dumper};
pub use engine::{Engine, EngineOptions, Node, Observer, Site, INVALID_PC};
pub use error::{Error, Result};
pub use expr::{parse_with as parse_expr, ExprContext, NoContext};
#[cfg(not(target_arch = "wasm32"))]
pub use index::parallel::build_parallel_slice;
pub use index::parallel::{
    dialect_of, line_start_at, split_offsets, stitch, RangeIndex, StitchStats,
};
pub use index::range_job::RangeJob;
pub use index::IndexEncoder;
pub use index::{
    bucket_bounds, bucket_start, value_text, AccessHit, AccessKind, EventKind, Index, IndexBuilder,
    IndexOptions, IndexSummary, IntervalStart, MemAccessed, MemByte, PcIntervals, StateBefore,
    TraceIdentity, Watched, TIMELINE_BUCKETS,
};
pub use lines::{Line, LineReader, SliceLines};
pub use parse::{
    detect_dialect, BranchKind, CpuName, Dialect, Effect, ISet, Instruction, InstructionForm,
    MemDirection, ParseOptions, Parser, Record, RecordKind, RegClass, RegId,
};
pub use report::stats::Statistics;
pub use search::{KindFilter, Search, SearchSpec};
pub use sniff::{identify, FileKind, InstructionSets};
#[cfg(not(target_arch = "wasm32"))]
pub use source::FileSource;
pub use source::{read_sample, Prefix, SliceSource, TraceSource, SAMPLE_BYTES, UNKNOWN_LEN};
pub use state::memory::Fill;
pub use state::regfile::{is_register_name, location as register_location, RegFile, IFLAGS, XSP};
pub use stats::{
    compute as compute_stats, Stats, StatsBuilder, UnparsedLine, ValueNote, MAX_LISTED_UNPARSED,
    MAX_UNPARSED_WORDS,
};
pub use symbols::SymbolTable;
