//! Tarmac Lens core: parsing, indexing, browsing and reports of Tarmac
//! execution traces. Nothing here depends on a browser; the same code runs
//! natively (the `tarmac-lens` CLI, tests, benchmarks) and in WebAssembly
//! (the web app's page and workers).
//!
//! Data flow: [`source::TraceSource`] (file bytes, read in slices) ->
//! [`lines::LineReader`] (lines with number and byte offset) ->
//! [`parse::Parser`] (typed records) -> [`engine::Engine`] (the machine
//! model) -> [`index::Index`] and the reports.

pub mod block_cache;
pub mod browse;
pub(crate) mod codec;
pub mod cores;
pub mod diff;
pub mod dump;
pub mod engine;
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
