//! The indexer on a whole random trace, then queries on the index: built
//! with tiny checkpoint intervals (so short inputs still exercise
//! checkpoints, snapshots and replay), streamed and from a slice (they must
//! agree), and the browser session's queries over it.
#![no_main]

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::index_trace(data));
