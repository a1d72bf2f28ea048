//! The Tarmac Lens web app (wasm32 only): a Yew page and its Web Workers
//! around the UI-free core (`tarmac-lens-core`). The native build of this
//! package is the `tarmac-lens` command line (`src/main.rs`, `src/cli/`).

#[cfg(target_arch = "wasm32")]
pub mod web;
