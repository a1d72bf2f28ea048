//! The embedded viewer's `postMessage` API (`?embed=1`, in an `<iframe>`).
//!
//! Handshake, as the Perfetto UI's: the host posts `"PING"` until the
//! viewer answers `"PONG"` (the viewer's wasm may still be loading when the
//! iframe's load event fires). Then, host → viewer:
//!
//! - `{type: "open", trace, name?, elf?, line | time | pc | source?}`:
//!   `trace` is an `ArrayBuffer`, a `Blob`/`File` or a URL string; `elf`
//!   likewise (symbols); a position as a `goto`'s is where the trace
//!   starts, so what the panes show first (`&panes=mem:sp`) is read there.
//! - `{type: "goto", line | time | pc | source}`: move to a line, a time, the
//!   first execution of a source line (`source: "hash.c:42"`), or the
//!   first visit of a PC (a number or an expression such as `main+4`).
//! - `{type: "watch", id?, target, …}`, `{type: "find", id?, condition,
//!   …}`, `{type: "why", id?, target, …}`: questions, each answered
//!   `{type: "answer", id, question, result}` or `{type: "error", id,
//!   question, message}` (fields and answers: `model::embed_questions`,
//!   docs/embedding.md).
//!
//! Viewer → host: `{type: "state", state: "idle"|"indexing"|"ready"|"error",
//! name?, message?}`, `{type: "position", view, line, time, pc, node,
//! instruction, asked?}` on every move (`asked`: the line a goto asked
//! for, when the position is at another: a line is shown as part of its
//! instruction, and lines before the first instruction as the trace's
//! start), and `{type: "error", message}` for a message it could not use
//! or a goto that found no position (a line past the end), and
//! `{type: "ignored", origin, count}` when it ignored a message.
//!
//! Only the parent window is heard, and only from the origins
//! [`HostOrigins`] trusts (its own, and those `?origins=` lists, which may
//! not make it fetch URLs); answers go to the origin that said PING.
//! Anything else is ignored, counted (`data-ignored-messages` on `<body>`)
//! and named once in the console. The viewer takes no drops: a file
//! dropped on it is neither opened nor let through to replace the page.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use tarmac_lens_core::protocol::{NodeId, NodeView};

use super::client::{TraceClient, WeakTraceClient};
use crate::model::embed_questions::{Asking, Step, QUESTIONS};
use crate::model::host_origins::{HostOrigins, HostTrust};

/// A trace or image the host sent.
pub enum Payload {
    File(web_sys::File),
    Url(String),
}

/// An `open` request.
pub struct OpenRequest {
    pub trace: Payload,
    pub elf: Option<Payload>,
}

thread_local! {
    /// The host's origin once it has said PING, and what it may do.
    static HOST: RefCell<Option<(String, HostTrust)>> = const { RefCell::new(None) };
    /// Messages ignored, and the origins already named in the console.
    static IGNORED: RefCell<(u32, Vec<String>)> = const { RefCell::new((0, Vec::new())) };
    static EMBEDDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The last state message, repeated after a PONG: the host may say
    /// PING after the viewer has already changed state.
    static LAST_STATE: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// The open trace's session, which answers the host's questions.
    static SESSION: RefCell<Option<WeakTraceClient>> = const { RefCell::new(None) };
    /// Where the trace an `open` asked for starts (a URL fragment), until
    /// its browser takes it.
    static START: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The last position reported: where a question without `line` looks from.
    static HERE: std::cell::Cell<Option<NodeId>> = const { std::cell::Cell::new(None) };
}

/// The session that answers the host's questions from now on.
pub fn set_session(client: &TraceClient) {
    SESSION.with(|s| *s.borrow_mut() = Some(client.downgrade()));
    HERE.with(|h| h.set(None));
}

/// Answers a `watch`, `find` or `why` (see `model::embed_questions`):
/// `{type: "answer", id, question, result}` or `{type: "error", id,
/// question, message}`; `id` is the host's, given back as it came.
fn ask(data: &JsValue, question: &str) {
    let id = field(data, "id");
    let fail = |message: &str| {
        send(&object(&[
            ("type", "error".into()),
            ("id", id.clone()),
            ("question", question.into()),
            ("message", message.into()),
        ]))
    };
    let Some(client) = SESSION.with(|s| s.borrow().as_ref().and_then(WeakTraceClient::upgrade))
    else {
        return fail(&format!("{question}: no trace is open"));
    };
    let json = js_sys::JSON::stringify(data)
        .ok()
        .and_then(|s| s.as_string())
        .and_then(|s| serde_json::from_str(&s).ok());
    let Some(json) = json else {
        return fail(&format!("{question}: the message is not JSON"));
    };
    match Asking::new(&json, HERE.with(|h| h.get())) {
        Ok(mut asking) => {
            let first = asking.start();
            drive(client, asking, first, id, question.to_string());
        }
        Err(e) => fail(&format!("{question}: {e}")),
    }
}

/// Feeds a question its replies until it is answered.
fn drive(client: TraceClient, mut asking: Asking, step: Step, id: JsValue, question: String) {
    let answer = match step {
        Step::Ask(query) => {
            let again = client.clone();
            client.query(query, move |reply| {
                let next = asking.reply(reply);
                drive(again, asking, next, id, question);
            });
            return;
        }
        Step::Done(Ok(result)) => object(&[
            ("type", "answer".into()),
            ("id", id),
            ("question", question.as_str().into()),
            (
                "result",
                js_sys::JSON::parse(&result.to_string()).unwrap_or(JsValue::NULL),
            ),
        ]),
        Step::Done(Err(message)) => object(&[
            ("type", "error".into()),
            ("id", id),
            ("question", question.as_str().into()),
            ("message", format!("{question}: {message}").into()),
        ]),
    };
    send(&answer);
}

fn parent() -> Option<web_sys::Window> {
    let w = web_sys::window()?;
    let parent = w.parent().ok().flatten()?;
    // A page that is not in a frame is its own parent.
    (!js_sys::Object::is(&parent, &w)).then_some(parent)
}

/// Posts to the host, once it has said PING.
fn send(msg: &JsValue) {
    let Some((origin, _)) = HOST.with(|h| h.borrow().clone()) else {
        return;
    };
    if let Some(p) = parent() {
        let _ = p.post_message(msg, HostOrigins::target(&origin));
    }
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}

fn report_error(message: &str) {
    send(&object(&[
        ("type", "error".into()),
        ("message", message.into()),
    ]));
}

/// A `goto` (or a move) that found no position: the host hears why.
pub fn goto_failed(message: &str) {
    if EMBEDDED.with(|e| e.get()) {
        report_error(message);
    }
}

/// Tells the host where a view is (called on every move); `asked` is the
/// line a go-to-line asked for, when the position is at another (a line
/// shown as part of its instruction, or before the first one).
pub fn position_changed(view: u32, node: &NodeView, asked: Option<u64>) {
    if !EMBEDDED.with(|e| e.get()) {
        return;
    }
    HERE.with(|h| h.set(Some(node.node)));
    send(&object(&[
        ("type", "position".into()),
        (
            "asked",
            asked.map_or(JsValue::UNDEFINED, |l| (l as f64).into()),
        ),
        ("view", view.into()),
        ("line", (node.first_line as f64).into()),
        ("time", (node.time as f64).into()),
        (
            "pc",
            node.pc
                .map_or(JsValue::NULL, |pc| format!("{pc:#x}").into()),
        ),
        ("node", (node.node as f64).into()),
        (
            "instruction",
            node.instruction
                .map_or(JsValue::NULL, |n| (n as f64).into()),
        ),
    ]));
}

/// Tells the host the page's state (`Phase::name`).
pub fn state_changed(state: &str, name: Option<&str>, message: Option<&str>) {
    if !EMBEDDED.with(|e| e.get()) {
        return;
    }
    let mut fields = vec![("type", JsValue::from("state")), ("state", state.into())];
    if let Some(n) = name {
        fields.push(("name", n.into()));
    }
    if let Some(m) = message {
        fields.push(("message", m.into()));
    }
    let msg = object(&fields);
    send(&msg);
    LAST_STATE.with(|s| *s.borrow_mut() = Some(msg));
}

/// A trace or image from a message field.
fn payload(value: &JsValue, name: &str) -> Result<Payload, String> {
    if let Some(url) = value.as_string() {
        return Ok(Payload::Url(url));
    }
    if let Some(file) = value.dyn_ref::<web_sys::File>() {
        return Ok(Payload::File(file.clone()));
    }
    // A file without a modification time is never put in the index cache:
    // another buffer of the same name and size would find its index.
    let bag = web_sys::FilePropertyBag::new();
    bag.set_last_modified(0.0);
    let parts = Array::of1(value);
    let made = if value.is_instance_of::<web_sys::Blob>() {
        web_sys::File::new_with_blob_sequence_and_options(&parts, name, &bag)
    } else if value.is_instance_of::<js_sys::ArrayBuffer>() || js_sys::ArrayBuffer::is_view(value) {
        web_sys::File::new_with_buffer_source_sequence_and_options(&parts, name, &bag)
    } else {
        return Err("expected an ArrayBuffer, a Blob or a URL string".into());
    };
    made.map(Payload::File)
        .map_err(|e| format!("cannot make a file: {e:?}"))
}

fn field(msg: &JsValue, key: &str) -> JsValue {
    Reflect::get(msg, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// Where the trace last opened by the host starts, as a URL fragment, once:
/// its browser starts there as at a URL's `#line=` (and reads the panes
/// the URL names there, not at the trace's first line).
pub fn take_start() -> Option<String> {
    START.with(|s| s.borrow_mut().take())
}

/// Where an `open` says the trace starts (a `goto`'s fields), as a URL
/// fragment; `None` when it names no position.
fn start_fragment(msg: &JsValue) -> Result<Option<String>, String> {
    let given = ["line", "time", "pc", "source"].iter().any(|key| {
        let v = field(msg, key);
        !v.is_undefined() && !v.is_null()
    });
    if !given {
        return Ok(None);
    }
    goto_fragment(msg)
        .map(Some)
        .map_err(|e| e.replacen("goto", "open", 1))
}

/// Where a `goto` asks to go, as a URL fragment the browser follows.
fn goto_fragment(msg: &JsValue) -> Result<String, String> {
    let number = |key: &str| -> Result<Option<u64>, String> {
        let v = field(msg, key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9.007_199_254_740_991e15 => {
                Ok(Some(n as u64))
            }
            _ => Err(format!("goto: {key} must be a non-negative integer")),
        }
    };
    if let Some(line) = number("line")? {
        return Ok(format!("#line={line}"));
    }
    if let Some(t) = number("time")? {
        return Ok(format!("#t={t}"));
    }
    let pc = field(msg, "pc");
    if let Some(n) = pc.as_f64() {
        if n >= 0.0 && n.fract() == 0.0 {
            return Ok(format!("#pc={:#x}", n as u64));
        }
    }
    if let Some(expr) = pc.as_string().filter(|s| !s.trim().is_empty()) {
        return Ok(format!(
            "#pc={}",
            String::from(js_sys::encode_uri_component(expr.trim()))
        ));
    }
    if let Some(src) = field(msg, "source")
        .as_string()
        .filter(|s| !s.trim().is_empty())
    {
        return Ok(format!(
            "#src={}",
            String::from(js_sys::encode_uri_component(src.trim()))
        ));
    }
    Err("goto needs line, time, pc or source".into())
}

/// Counts a message not heard, says so in `<body data-ignored-messages>`,
/// names its origin once in the console, and tells the host, if any.
fn ignore(origin: &str, why: &str) {
    let (count, first) = IGNORED.with(|i| {
        let mut i = i.borrow_mut();
        i.0 += 1;
        let first = !i.1.iter().any(|o| o == origin);
        if first {
            i.1.push(origin.to_string());
        }
        (i.0, first)
    });
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-ignored-messages", &count.to_string());
    }
    if first {
        web_sys::console::warn_1(
            &format!("Tarmac Lens: ignored a message from {origin}: {why}").into(),
        );
    }
    send(&object(&[
        ("type", "ignored".into()),
        ("origin", origin.into()),
        ("count", count.into()),
    ]));
}

/// A drop on the viewer would replace it with the file (the browser's
/// default): refuse drops, so a file missing the host's drop zone is
/// simply not taken.
fn refuse_drops(window: &web_sys::Window) {
    for kind in ["dragover", "drop"] {
        let refuse = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
            e.prevent_default();
            if let Some(t) = e.data_transfer() {
                t.set_drop_effect("none");
            }
        });
        let _ = window.add_event_listener_with_callback(kind, refuse.as_ref().unchecked_ref());
        refuse.forget();
    }
}

/// Starts listening to the host; `on_open` opens what it sends. `origins`
/// is the page's `?origins=`; `own_trace`, whether it was given a `?url=`.
pub fn listen(origins: Option<&str>, own_trace: bool, on_open: impl Fn(OpenRequest) + 'static) {
    EMBEDDED.with(|e| e.set(true));
    let Some(window) = web_sys::window() else {
        return;
    };
    refuse_drops(&window);
    let own = window.location().origin().unwrap_or_else(|_| "null".into());
    let (policy, bad) = HostOrigins::new(&own, origins, own_trace);
    if !bad.is_empty() {
        web_sys::console::warn_1(
            &format!(
                "Tarmac Lens: ?origins= entries that are not origins (scheme://host[:port], or null) were left out: {}",
                bad.join(", ")
            )
            .into(),
        );
    }
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let origin = e.origin();
        let origin = if origin.is_empty() {
            "null".to_string()
        } else {
            origin
        };
        let from_parent = match (e.source(), parent()) {
            (Some(source), Some(p)) => Object::is(&source, &p),
            _ => false,
        };
        if !from_parent {
            return ignore(&origin, "only the page embedding the viewer is heard");
        }
        let trust = policy.trust(&origin);
        if trust == HostTrust::Refused {
            return ignore(
                &origin,
                "its origin is not in the viewer's ?origins= (the <tarmac-lens-viewer> element passes its own)",
            );
        }
        let data = e.data();
        if data.as_string().as_deref() == Some("PING") {
            HOST.with(|h| *h.borrow_mut() = Some((origin, trust)));
            send(&"PONG".into());
            if let Some(state) = LAST_STATE.with(|s| s.borrow().clone()) {
                send(&state);
            }
            return;
        }
        if HOST.with(|h| {
            h.borrow()
                .as_ref()
                .map(|(o, _)| o != &origin)
                .unwrap_or(true)
        }) {
            // Before the handshake there is nobody to answer; after it,
            // only the origin that made it is.
            return ignore(&origin, "it did not say PING first");
        }
        let kind = field(&data, "type").as_string();
        match kind.as_deref() {
            Some("open") => {
                let name = field(&data, "name")
                    .as_string()
                    .unwrap_or_else(|| "trace".into());
                let trace = match payload(&field(&data, "trace"), &name) {
                    Ok(t) => t,
                    Err(err) => return report_error(&format!("open: trace: {err}")),
                };
                let elf_value = field(&data, "elf");
                let elf = if elf_value.is_undefined() || elf_value.is_null() {
                    None
                } else {
                    match payload(&elf_value, &format!("{name}.elf")) {
                        Ok(p) => Some(p),
                        Err(err) => return report_error(&format!("open: elf: {err}")),
                    }
                };
                let sends_url =
                    matches!(trace, Payload::Url(_)) || matches!(elf, Some(Payload::Url(_)));
                if trust != HostTrust::Own && sends_url {
                    return report_error(
                        "open: a host on another origin sends the trace's bytes (an ArrayBuffer or a Blob), not a URL: the viewer would fetch it as its own origin",
                    );
                }
                let start = match start_fragment(&data) {
                    Ok(start) => start,
                    Err(err) => return report_error(&err),
                };
                START.with(|s| *s.borrow_mut() = start);
                on_open(OpenRequest { trace, elf });
            }
            Some("goto") => match goto_fragment(&data) {
                Ok(fragment) => {
                    // Later than the open's start: it goes here instead.
                    START.with(|s| s.borrow_mut().take());
                    if let Some(w) = web_sys::window() {
                        let _ = w.location().set_hash(&fragment);
                    }
                }
                Err(err) => report_error(&err),
            },
            Some(q) if QUESTIONS.contains(&q) => ask(&data, q),
            Some(other) => report_error(&format!("unknown message type \"{other}\"")),
            None => report_error("a message must be \"PING\" or an object with a type"),
        }
    });
    let _ = window.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref());
    // Lives as long as the page.
    handler.forget();
}
