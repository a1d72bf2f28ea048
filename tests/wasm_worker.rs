//! The wasm tests that run where the app's workers run, one binary in a
//! dedicated worker of headless Chromium: `FileReaderSync`, the
//! origin-private file system's sync access handles and nested workers
//! exist only there. A wasm test binary has one run mode (one
//! `wasm_bindgen_test_configure!`), which is why the tests that need a page
//! are another: `wasm_browser.rs`.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

mod large_offsets;

mod wasm_blob_source;
mod wasm_ep_flow_reports;
mod wasm_http_source;
mod wasm_index_cache;
mod wasm_large_offsets;
mod wasm_reports;
mod wasm_session;
