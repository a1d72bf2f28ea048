//! The wasm tests that need a page (a DOM, the page's components and
//! logic), one binary run in headless Chromium's page. A wasm test binary
//! has one run mode (one `wasm_bindgen_test_configure!`), which is why the
//! tests that need a worker's APIs are another: `wasm_worker.rs`.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod dom;

mod wasm_browser_logic;
mod wasm_browser_panes;
mod wasm_components;
mod wasm_i18n;
mod wasm_page_params;
mod wasm_protocol;
