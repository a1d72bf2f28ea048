//! The browser front end (wasm32 only): a Yew page on the main thread and
//! Web Workers that run the parser, so the page never blocks on a big trace.
//!
//! - [`page`]: the page's side besides its components: the clients that
//!   start and talk to workers ([`page::client`] for the browsing session),
//!   the query string and the embedded viewer's `postMessage` API
//!   ([`page::page_params`], [`page::embed`]), keys, `#line=` and view
//!   arithmetic, texts and numbers ([`page::i18n`], [`page::format`]) and the
//!   crash overlay.
//! - [`components`]: the page's UI (Yew components); [`start_app`] mounts
//!   [`components::App`].
//! - [`worker`]: the worker bin's side: [`start_worker`] runs one role
//!   (session, range, report or comparison worker) answering
//!   [`shared::protocol`] messages.
//! - [`reading`]: how bytes are read: a dropped file through
//!   [`reading::blob_source::BlobSource`] (with read-ahead), a URL through
//!   [`reading::http_source`], finished indexes kept in
//!   [`reading::index_cache`] (the page lists and clears it too).
//! - [`shared`]: what both sides use: the messages between them, the
//!   workers' roles ([`shared::role::Role`], which the page starts a worker
//!   with), User Timing spans, the Content-Security-Policy checks.

pub mod components;
pub mod page;
pub mod reading;
pub mod shared;
pub mod worker;

// The browser components (`components/browser/`) name these modules by
// their former paths inside function bodies; kept reachable there until
// those lines are next edited.
pub use page::{embed, format};

/// Entry point of the page (the wasm32 `main` of the `tarmac-lens` binary).
pub fn start_app() {
    page::panic_overlay::install_for_page();
    page::i18n::init();
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
    worker::start();
}
