//! The native integration tests, one binary (as ripgrep's): each file
//! beside this one is a module by subject, and they link once instead of
//! once each. `common` holds the fixtures they share (trace cases, the
//! CLI runner, temporary folders) and uses none of them. The wasm tests
//! are `wasm_browser.rs` and `wasm_worker.rs`.

mod common;

// Reading traces: dialects, forms from the wild, damaged input, offsets.
#[cfg(not(target_arch = "wasm32"))]
mod bad_input;
mod conformance;
mod dialects;
mod expr_conformance;
mod field;
#[cfg(not(target_arch = "wasm32"))]
mod fuzz_regressions;
// In wasm32 a module of `wasm_worker.rs`.
#[cfg(not(target_arch = "wasm32"))]
mod large_offsets;
mod published_forms;
mod samples;

// The index and what it answers.
mod find;
mod index;
#[cfg(not(target_arch = "wasm32"))]
mod multicore;
mod parallel_index;
mod watch;
mod why;

// The browse session: what the page's worker answers.
mod browse;
mod browse_ep;
mod browse_events;
mod browse_ranges;
mod search_session;
#[cfg(not(target_arch = "wasm32"))]
mod source_queries;

// Reports, exports and conversions against the reference tools and oracles.
mod convert;
#[cfg(not(target_arch = "wasm32"))]
mod coverage;
mod diff;
#[cfg(not(target_arch = "wasm32"))]
mod ep_explore;
#[cfg(not(target_arch = "wasm32"))]
mod export;
#[cfg(not(target_arch = "wasm32"))]
mod exports_and_sets;
mod flow;
#[cfg(not(target_arch = "wasm32"))]
mod flow_explore;
mod reports;
#[cfg(not(target_arch = "wasm32"))]
mod reports_explore;
mod reports_more;
#[cfg(not(target_arch = "wasm32"))]
mod source_lines;
#[cfg(not(target_arch = "wasm32"))]
mod statistics;

// SQL over the trace tables (crates/sql) and their Parquet export.
#[cfg(not(target_arch = "wasm32"))]
mod sql;

// The command line as a person runs it.
#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod cli_compressed;
#[cfg(not(target_arch = "wasm32"))]
mod cli_diff;
#[cfg(not(target_arch = "wasm32"))]
mod cli_gdb;
#[cfg(not(target_arch = "wasm32"))]
mod cli_serve;

// The page's model, its texts and docs, and the code's shape.
#[cfg(not(target_arch = "wasm32"))]
mod browser_model;
#[cfg(not(target_arch = "wasm32"))]
mod docs;
#[cfg(not(target_arch = "wasm32"))]
mod embed_questions;
#[cfg(not(target_arch = "wasm32"))]
mod i18n_catalogue;
#[cfg(not(target_arch = "wasm32"))]
mod module_graph;
