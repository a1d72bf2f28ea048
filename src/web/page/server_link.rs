//! The page served by `tarmac-lens serve` (`?serve=1`): its questions go to
//! that server instead of a session worker, over HTTP, in the same batches
//! and answered in the same order (`serve_protocol.rs`), so every pane
//! works unchanged. Batches go one at a time, each after the last one's
//! answers: the session's state (folds, searches) follows the order asked,
//! as in a worker, and connections in parallel would not keep it.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestInit, Response};

use crate::serve_protocol::{self, ElfOutcome, Opening};
use tarmac_lens_core::browse::protocol::{Query, Reply};
use tarmac_lens_core::stats::Stats;

/// Whether this page was served by `tarmac-lens serve`.
pub fn is_served() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get(serve_protocol::PARAM))
        .is_some_and(|v| !v.is_empty() && v != "0")
}

/// An absolute URL of the server's, from its path below the page.
pub fn url(path: &str) -> String {
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    web_sys::Url::new_with_base(path, &base).map_or_else(|_| path.to_string(), |u| u.href())
}

/// An HTTP status and body text.
async fn fetch(path: &str, post: Option<JsValue>) -> Result<(u16, String), String> {
    let window = web_sys::window().ok_or("no window")?;
    let target = url(path);
    let promise = match post {
        Some(body) => {
            let init = RequestInit::new();
            init.set_method("POST");
            init.set_body(&body);
            window.fetch_with_str_and_init(&target, &init)
        }
        None => window.fetch_with_str(&target),
    };
    let lost = |e: JsValue| {
        crate::i18n::tf(
            "The tarmac-lens serve process does not answer ({}): is it still running?",
            &[&format!("{e:?}")],
        )
    };
    let response: Response = JsFuture::from(promise)
        .await
        .map_err(lost)?
        .dyn_into()
        .map_err(|_| "fetch gave no Response".to_string())?;
    let status = response.status();
    let text = JsFuture::from(response.text().map_err(lost)?)
        .await
        .map_err(lost)?
        .as_string()
        .unwrap_or_default();
    Ok((status, text))
}

/// What the server opened, asked once at the page's start.
pub async fn opening() -> Result<Opening, String> {
    match fetch(serve_protocol::OPEN, None).await? {
        (200, text) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        (status, text) => Err(format!("HTTP {status}: {}", text.trim())),
    }
}

/// The record statistics: `None` while the server still counts them.
pub async fn stats() -> Result<Option<Stats>, String> {
    match fetch(serve_protocol::STATS, None).await? {
        (200, text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| e.to_string()),
        (204, _) => Ok(None),
        (status, text) => Err(format!("HTTP {status}: {}", text.trim())),
    }
}

/// Waits `ms` milliseconds.
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// The page's end of the server: batches waiting their turn.
pub struct ServerLink {
    /// This client's name to the server, which keeps its views' folds
    /// apart from another page's.
    page: String,
    queue: RefCell<VecDeque<Vec<(u32, Query)>>>,
    /// A batch is on its way.
    busy: Cell<bool>,
}

impl Default for ServerLink {
    fn default() -> Self {
        ServerLink {
            page: format!("{:016x}", (js_sys::Math::random() * 2f64.powi(53)) as u64),
            queue: RefCell::default(),
            busy: Cell::default(),
        }
    }
}

impl ServerLink {
    /// This client's name to the server.
    pub fn page(&self) -> &str {
        &self.page
    }

    /// Queues a batch; true when the caller must start [`ServerLink::next`]
    /// (nothing is on its way).
    pub fn push(&self, asks: Vec<(u32, Query)>) -> bool {
        self.queue.borrow_mut().push_back(asks);
        !self.busy.replace(true)
    }

    /// The next batch to send, or `None` (and not busy any more).
    pub fn next(&self) -> Option<Vec<(u32, Query)>> {
        let next = self.queue.borrow_mut().pop_front();
        if next.is_none() {
            self.busy.set(false);
        }
        next
    }
}

/// Sends one batch and gives its answers, in order.
pub async fn ask(page: &str, asks: &[(u32, Query)]) -> Result<Vec<(u32, Reply)>, String> {
    let body = serde_json::to_string(asks).map_err(|e| e.to_string())?;
    let path = format!("{}?page={page}", serve_protocol::ASK);
    match fetch(&path, Some(JsValue::from_str(&body))).await? {
        (200, text) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        (status, text) => Err(format!("HTTP {status}: {}", text.trim())),
    }
}

/// Sends an ELF image dropped on the served page, for the server's
/// session to load (as a worker loads one).
pub async fn load_elf(file: web_sys::File, load_offset: i64) -> Result<ElfOutcome, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{}: {e:?}", file.name()))?;
    let body = js_sys::Uint8Array::new(&buffer);
    let path = format!(
        "{}?name={}&offset={load_offset}",
        serve_protocol::ELF,
        String::from(js_sys::encode_uri_component(&file.name()))
    );
    match fetch(&path, Some(body.into())).await? {
        (200, text) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        (status, text) => Err(format!("HTTP {status}: {}", text.trim())),
    }
}
