//! Tarmac Lens core: parsing, statistics and (later) indexing of Tarmac
//! execution traces. Nothing in this crate root depends on a browser; the
//! same code runs natively (the `tarmac-lens` CLI, tests, benchmarks) and in
//! WebAssembly (the `web` module, compiled only for wasm32).
//!
//! Data flow: [`source::TraceSource`] (file bytes, read in slices) ->
//! [`lines::LineReader`] (lines with number and byte offset) ->
//! [`parse::Parser`] (typed records) -> consumers such as [`stats`] and
//! [`dump`].

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

#[cfg(target_arch = "wasm32")]
pub mod web;
