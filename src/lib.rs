//! The Tarmac Lens app around the UI-free core (`tarmac-lens-core`): the
//! `tarmac-lens` command line (`src/main.rs`, `src/cli/`, native) and the
//! web page with its Web Workers ([`web`], wasm32 only). The trace
//! browser's model ([`model`]) and the page's texts ([`i18n`]) build for
//! both, so the browser's logic is tested natively.

pub mod i18n;
pub mod model;
#[cfg(target_arch = "wasm32")]
pub mod web;
