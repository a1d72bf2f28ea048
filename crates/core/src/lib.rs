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
//! answers questions ([`browse::question`]), each with its own type of
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
//! use tarmac_lens_core::browse::protocol::{Locate, RegMark, Registers};
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
//! ([`stats::compute`]), and [`Engine`] with an [`Observer`] computes any
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
//!   `Read`, of length [`source::UNKNOWN_LEN`]; printed as a table or JSON.
//! - `compressed_bench.rs`: a `.gz` or `.zst` trace read in place
//!   ([`compressed`]): the access-point pass's speed against `gzip -dc`
//!   or `zstd -dc`, the latency of reads at random offsets, the table's
//!   size.

#![deny(missing_docs)]

pub mod block_cache;
pub mod browse;
pub(crate) mod codec;
pub mod compressed;
pub mod condition;
pub mod convert;
pub mod cores;
pub mod coverage;
pub mod dataflow;
pub mod debuginfo;
pub mod decode;
pub mod diff;
pub mod dump;
pub mod engine;
mod error;
pub mod expr;
pub mod index;
pub mod lines;
pub mod parse;
pub mod report;
pub mod search;
pub mod sniff;
pub mod source;
pub mod state;
pub mod stats;
pub(crate) mod sweep;
pub mod symbols;
#[cfg(test)]
mod testing;

pub use browse::protocol::{Query, Reply};
pub use browse::Session;
pub use debuginfo::DebugInfo;
pub use engine::{Engine, Node, Observer};
pub use error::{Error, Result};
pub use index::{Index, IndexBuilder, IndexOptions};
pub use lines::{Line, LineReader};
pub use parse::{ParseOptions, Parser, Record, RecordKind};
pub use report::stats::Statistics;
#[cfg(not(target_arch = "wasm32"))]
pub use source::FileSource;
pub use source::{SliceSource, TraceSource};
pub use state::regfile::RegFile;
pub use stats::Stats;
pub use symbols::SymbolTable;
