//! The page's side (the UI thread) besides its components: the clients of
//! the workers, the page's URL and embedding, key and view logic, texts.
//!
//! - Workers: [`client`] (the browsing session's worker, started ahead of
//!   the drop; questions with callbacks), [`worker_link`] (the page's end of
//!   any worker), [`spare`] (workers started before they are needed),
//!   [`range_pool`] (the extra workers indexing ranges of a dropped file),
//!   [`report_client`] (the Reports panel's worker), [`diff_client`] (a
//!   trace comparison's worker), [`assets`] (where the worker's file is).
//! - The page's URL and embedding: [`page_params`] (`?url=`, `&elf=`,
//!   `?embed=1`, `&panes=`, `&src=`), [`source_fetch`] (source files from
//!   `&src=`), [`source_folder`] (source files picked or dropped),
//!   [`url_options`] (`?index-budget=`, `?crash=`,
//!   `?workers=` test hooks), [`embed`] (the `postMessage` API). The
//!   browser's logic (keys, `#line=`, scrolling) is UI-free, in
//!   `crate::model`.
//! - Kept per browser: [`local_store`] (the language, the layout),
//!   [`bookmark_store`] (each trace's bookmarks).
//! - Texts: [`i18n`] (translations), [`format`] (numbers and sizes as the
//!   page writes them), [`panic_overlay`] (the crash overlay).

pub mod assets;
pub mod bookmark_store;
pub mod client;
pub mod diff_client;
pub mod embed;
pub mod format;
pub mod i18n;
pub mod local_store;
pub mod page_params;
pub mod panic_overlay;
pub mod range_pool;
pub mod report_client;
pub mod server_link;
pub mod source_fetch;
pub mod source_folder;
pub mod spare;
pub mod sql_client;
pub mod url_options;
pub mod worker_link;
