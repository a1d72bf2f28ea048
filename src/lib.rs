//! The Tarmac Lens app around the UI-free core (`tarmac-lens-core`): the
//! `tarmac-lens` command line (`src/main.rs`, `src/cli/`, native) and the
//! web page with its Web Workers (`web`, wasm32 only). The trace
//! browser's model ([`model`]), the page's texts ([`i18n`]) and the first
//! screen's sample trace and questions ([`sample`]) and what `serve` and
//! its page say to each other ([`serve_protocol`]) build for both, so
//! they are tested natively.

pub mod i18n;
pub mod model;
pub mod panes;
pub mod sample;
pub mod serve_protocol;
#[cfg(target_arch = "wasm32")]
pub mod web;
