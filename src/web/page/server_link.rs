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
use tarmac_lens_core::{
    protocol::{Query, Reply},
    Stats,
};

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

/// What the page says when a request or the socket finds no server: in
/// words, with what brings it back (docs/serve.md); the browser's own error
/// (a `TypeError` and a wasm stack) tells a person nothing more.
fn not_answering() -> String {
    crate::i18n::t(
        "The tarmac-lens serve process has stopped answering: it was stopped, or the SSH tunnel to it closed. Run tarmac-lens serve again (and the tunnel) and open the URL it prints: each run has a new one.",
    )
    .to_string()
}

/// What the page says when the server refuses its token: another run of
/// `tarmac-lens serve` listens on the same port, under a new URL.
fn another_run() -> String {
    crate::i18n::t(
        "The tarmac-lens serve process that served this page has stopped: another one answers at this address, under a new URL. Open the URL it printed.",
    )
    .to_string()
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
    let lost = |_: JsValue| not_answering();
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

/// Whether the server wrote what it opened into the page.
pub fn has_written_opening() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(serve_protocol::OPENING_ELEMENT))
        .is_some()
}

/// What the server opened, as it wrote it into the page
/// ([`serve_protocol::OPENING_ELEMENT`]); `None` on a page without it.
pub fn written_opening() -> Option<Result<Opening, String>> {
    let text = web_sys::window()?
        .document()?
        .get_element_by_id(serve_protocol::OPENING_ELEMENT)?
        .text_content()?;
    Some(serde_json::from_str(&text).map_err(|e| format!("the page's opening: {e}")))
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

/// A batch's answers, in the order asked.
pub type Answers = Vec<(u32, Reply)>;

/// How batches travel to the server.
enum Way {
    /// By POST, each after the last one's answers: while the socket opens
    /// (at the page's start that took 50-140 ms, the page's first answers
    /// came by POST meanwhile), or when it cannot open (a proxy that passes
    /// no upgrade) or closed.
    Post,
    /// The socket is opening.
    Opening(web_sys::WebSocket),
    /// The socket is open; batches still go by POST until those already
    /// posted are answered, so answers keep the order asked.
    Ready(web_sys::WebSocket),
    /// Batches go at once, each answered by one message, in order.
    Open(web_sys::WebSocket),
}

/// The page's end of the server: its socket, and batches waiting their
/// turn.
pub struct ServerLink {
    /// This client's name to the server, which keeps its views' folds
    /// apart from another page's.
    page: String,
    way: RefCell<Way>,
    queue: RefCell<VecDeque<Vec<(u32, Query)>>>,
    /// The ids of each batch sent on the socket and not answered yet.
    sent: RefCell<VecDeque<Vec<u32>>>,
    /// A batch is on its way by POST.
    busy: Cell<bool>,
    /// The socket's handlers, kept as long as the link.
    handlers: RefCell<Vec<Box<dyn std::any::Any>>>,
}

impl Default for ServerLink {
    fn default() -> Self {
        ServerLink {
            page: format!("{:016x}", (js_sys::Math::random() * 2f64.powi(53)) as u64),
            way: RefCell::new(Way::Post),
            queue: RefCell::default(),
            sent: RefCell::default(),
            busy: Cell::default(),
            handlers: RefCell::default(),
        }
    }
}

impl Drop for ServerLink {
    /// A page that opens another trace drops this link: its socket closes,
    /// and its handlers, about to be freed, are taken off it first.
    fn drop(&mut self) {
        if let Way::Opening(socket) | Way::Ready(socket) | Way::Open(socket) = &*self.way.borrow() {
            socket.set_onopen(None);
            socket.set_onmessage(None);
            socket.set_onclose(None);
            let _ = socket.close();
        }
    }
}

impl ServerLink {
    /// This client's name to the server.
    pub fn page(&self) -> &str {
        &self.page
    }

    /// The socket's URL: the server's, its scheme `ws:` (`wss:` behind
    /// https).
    pub fn socket_url(&self) -> String {
        let http = url(&format!("{}?page={}", serve_protocol::SOCKET, self.page));
        match http.strip_prefix("http") {
            Some(rest) => format!("ws{rest}"),
            None => http,
        }
    }

    /// Batches go by `socket` once it opens; `handlers` live as long as the
    /// link.
    pub fn attach(&self, socket: web_sys::WebSocket, handlers: Vec<Box<dyn std::any::Any>>) {
        *self.way.borrow_mut() = Way::Opening(socket);
        *self.handlers.borrow_mut() = handlers;
    }

    /// Sends or queues a batch; true when the caller must start posting
    /// ([`ServerLink::next`]): nothing else is on its way.
    pub fn push(&self, asks: Vec<(u32, Query)>) -> bool {
        if let Way::Open(socket) = &*self.way.borrow() {
            self.send(socket, asks);
            return false;
        }
        self.queue.borrow_mut().push_back(asks);
        !self.busy.replace(true)
    }

    fn send(&self, socket: &web_sys::WebSocket, asks: Vec<(u32, Query)>) {
        let ids = asks.iter().map(|(id, _)| *id).collect();
        // A socket closing meanwhile drops what is sent: the close fails
        // these questions (`closed`), so none waits for ever. (Questions
        // always serialize; were one not to, the server would refuse the
        // empty batch and close, failing them the same way.)
        let body = serde_json::to_string(&asks).unwrap_or_default();
        let _ = socket.send_with_str(&body);
        self.sent.borrow_mut().push_back(ids);
    }

    /// The socket opened: batches take it once none is posted.
    pub fn opened(&self) {
        let mut way = self.way.borrow_mut();
        if let Way::Opening(socket) = &*way {
            *way = if self.busy.get() {
                Way::Ready(socket.clone())
            } else {
                Way::Open(socket.clone())
            };
        }
    }

    /// A message from the socket: the answers of the oldest batch sent, or
    /// that batch's ids and why it has none.
    pub fn answered(&self, message: Option<String>) -> Result<Answers, (Vec<u32>, String)> {
        let ids = self.sent.borrow_mut().pop_front().unwrap_or_default();
        let Some(text) = message else {
            return Err((ids, "the server sent a message that is not text".into()));
        };
        serde_json::from_str(&text).map_err(|e| (ids, e.to_string()))
    }

    /// The socket closed (`reason` as the close event says; its code adds
    /// nothing a person can act on):
    /// batches go by POST from now on. Gives the questions sent on it and
    /// never answered, and why.
    pub fn closed(&self, _code: u16, reason: &str) -> (Vec<u32>, String) {
        *self.way.borrow_mut() = Way::Post;
        let lost = std::mem::take(&mut *self.sent.borrow_mut())
            .into_iter()
            .flatten()
            .collect();
        // A close the server explains says why; one it does not (1006: the
        // connection dropped) is a server gone.
        let why = if reason.is_empty() {
            not_answering()
        } else {
            crate::i18n::tf(
                "The tarmac-lens serve process closed the connection: {}",
                &[&reason],
            )
        };
        (lost, why)
    }

    /// The next batch to post, or `None` (and not busy any more: an open
    /// socket takes the next).
    pub fn next(&self) -> Option<Vec<(u32, Query)>> {
        let next = self.queue.borrow_mut().pop_front();
        if next.is_none() {
            self.busy.set(false);
            let mut way = self.way.borrow_mut();
            if let Way::Ready(socket) = &*way {
                *way = Way::Open(socket.clone());
            }
        }
        next
    }
}

/// Sends one batch and gives its answers, in order.
pub async fn ask(page: &str, asks: &[(u32, Query)]) -> Result<Answers, String> {
    let body = serde_json::to_string(asks).map_err(|e| e.to_string())?;
    let path = format!("{}?page={page}", serve_protocol::ASK);
    match fetch(&path, Some(JsValue::from_str(&body))).await? {
        (200, text) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        (403, _) => Err(another_run()),
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
