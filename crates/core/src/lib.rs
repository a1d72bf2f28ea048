//! Tarmac Lens core: parse, index, browse and report on Tarmac execution
//! traces. It touches no browser API, and files only through the native
//! `FileSource`, so the same code runs natively (the `tarmac-lens` CLI) and
//! in WebAssembly (the web app, which reads a `Blob` through its own
//! [`TraceSource`]).
//!
//! # The trace text is never held
//!
//! Traces run to 10-100 GB. Indexing reads the trace once and keeps a
//! compact [`Index`] (about 3% of the trace's size): every ~64 KiB
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
//! and answers [`Query`]s with small [`Reply`]s. A first program is
//! `examples/registers_at_line.rs`: it opens a trace, indexes it and prints
//! the core registers after a line.
//!
//! Positions are *nodes*: one timestamp with at most one instruction and
//! the register and memory lines that go with it (the reference Tarmac
//! Trace Utilities' unit); "the state at node N" is the state after N's
//! lines. Failures are one [`Error`], by what failed.
//!
//! An ELF image gives names: [`SymbolTable`] (functions, as the reference
//! tools name them) and [`DebugInfo`] (DWARF source lines and inlined
//! frames, read lazily; `report::source_lines` counts executions per line).

#![deny(missing_docs)]

pub mod block_cache;
pub mod browse;
pub(crate) mod codec;
pub mod convert;
pub mod cores;
pub mod coverage;
pub mod debuginfo;
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
pub mod symbols;

pub use browse::protocol::{Query, Reply};
pub use browse::Session;
pub use debuginfo::DebugInfo;
pub use engine::{Engine, Node, Observer};
pub use error::{Error, Result};
pub use index::{Index, IndexBuilder, IndexOptions};
pub use lines::{Line, LineReader};
pub use parse::{ParseOptions, Parser, Record, RecordKind};
#[cfg(not(target_arch = "wasm32"))]
pub use source::FileSource;
pub use source::{SliceSource, TraceSource};
pub use state::regfile::RegFile;
pub use stats::Stats;
pub use symbols::SymbolTable;
