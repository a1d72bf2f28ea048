//! The core's integration tests, one binary (as the workspace's own
//! `tests/tests.rs`), a module by subject each. `export_memory.rs` is a
//! binary of its own: it counts the process's heap.

mod decode_traces;
#[cfg(not(target_arch = "wasm32"))]
mod example;
