//! The browser front end (wasm32 only): a Yew page on the main thread and a
//! Web Worker that runs the parser, so the page never blocks on a big trace.
//!
//! Page side: [`start_app`] mounts [`components::App`]; [`client`] owns the
//! worker. Worker side: [`worker::start_worker`] answers [`protocol`]
//! messages, reading the dropped file through [`blob_source::BlobSource`]
//! or a URL through [`http_source`], and keeping finished indexes in
//! [`index_cache`]. [`page_params`] and [`embed`] are the query string
//! (`?url=`, `?embed=1`) and the embedded viewer's `postMessage` API.

pub mod assets;
pub mod blob_source;
pub mod client;
pub mod components;
pub mod csp;
pub mod diff_client;
pub mod diff_worker;
pub mod embed;
pub mod format;
pub mod hash;
pub mod http_source;
pub mod i18n;
pub mod index_cache;
pub mod keys;
pub mod page_params;
pub mod panic_hook;
pub mod protocol;
pub mod range_pool;
pub mod range_worker;
pub mod read_ahead;
pub mod report_client;
pub mod report_protocol;
pub mod report_worker;
pub mod spare;
pub mod timing;
pub mod url_options;
pub mod view_state;
pub mod warmup;
pub mod worker;
pub mod worker_link;

/// Entry point of the page (the wasm32 `main` of the `tarmac-lens` binary).
pub fn start_app() {
    panic_hook::install_for_page();
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("tarmac-lens must run in a browser window");
    // Mount into a dedicated element so the panic overlay, which is appended
    // to <body>, survives Yew re-rendering.
    let root = document
        .get_element_by_id("app")
        .or_else(|| document.body().map(Into::into))
        .expect("page has neither #app nor <body>");
    yew::Renderer::<components::App>::with_root(root).render();
}

/// Entry point of the worker (the wasm32 `main` of `tarmac-lens-worker`).
pub fn start_worker() {
    panic_hook::install_for_worker();
    worker::start_worker();
}
