//! The Query pane's engine: a module worker of its own (`www/sql-worker.js`
//! over crates/sql's wasm, `scripts/build-sql-wasm.sh`), started the first
//! time the pane runs a query, given the trace file (the browsing worker's
//! `Blob` or URL, never a copy), the session's finished index (asked once,
//! `browse::index_bytes`) and the ELF image. A query cannot be interrupted
//! inside single-threaded wasm: stopping one ends the worker, and the
//! next query starts another. The single-file build leaves the engine
//! out ([`SqlClient::available`]).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::web::shared::report_protocol::ReportFile;

/// The engine's URL, beside the page.
const URL: &str = "./sql-worker.js";

/// What the engine says.
#[derive(Debug)]
pub enum SqlEvent {
    /// It has the trace: its tables (`SqlEngine.tables()`'s JSON).
    Ready(String),
    /// It could not start, or stopped.
    Failed(String),
    Done {
        id: u32,
        rows: u64,
        kept: u64,
        columns: String,
        ms: f64,
    },
    Error {
        id: u32,
        message: String,
    },
    Rows {
        id: u32,
        offset: u64,
        json: String,
    },
}

type Handler<E> = Closure<dyn FnMut(E)>;

/// A running engine worker; it ends when dropped.
pub struct SqlClient {
    worker: Worker,
    _on_message: Handler<MessageEvent>,
    _on_error: Handler<Event>,
}

impl Drop for SqlClient {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn text(value: &JsValue, key: &str) -> String {
    get(value, key).as_string().unwrap_or_default()
}

fn number(value: &JsValue, key: &str) -> f64 {
    get(value, key).as_f64().unwrap_or(0.0)
}

/// A message of the engine as an event.
fn event_of(data: &JsValue) -> Option<SqlEvent> {
    let id = |v: &JsValue| number(v, "id") as u32;
    let ready = get(data, "ready");
    if let Some(tables) = ready.as_string() {
        return Some(SqlEvent::Ready(tables));
    }
    let failed = get(data, "failed");
    if let Some(message) = failed.as_string() {
        return Some(SqlEvent::Failed(message));
    }
    let done = get(data, "done");
    if done.is_object() {
        return Some(SqlEvent::Done {
            id: id(&done),
            rows: number(&done, "rows") as u64,
            kept: number(&done, "kept") as u64,
            columns: text(&done, "columns"),
            ms: number(&done, "ms"),
        });
    }
    let error = get(data, "error");
    if error.is_object() {
        return Some(SqlEvent::Error {
            id: id(&error),
            message: text(&error, "message"),
        });
    }
    let rows = get(data, "rows");
    if rows.is_object() {
        return Some(SqlEvent::Rows {
            id: id(&rows),
            offset: number(&rows, "offset") as u64,
            json: text(&rows, "json"),
        });
    }
    None
}

fn set(target: &Object, key: &str, value: &JsValue) -> Result<(), String> {
    Reflect::set(target, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
}

/// A file as the engine reads it: `{blob}` or `{url}`.
fn file_of(file: &ReportFile) -> Result<JsValue, String> {
    let out = Object::new();
    match file {
        ReportFile::Blob { blob, .. } => set(&out, "blob", blob)?,
        ReportFile::Url { url, .. } => set(&out, "url", &JsValue::from_str(url))?,
    }
    Ok(out.into())
}

impl SqlClient {
    /// Whether this page can fetch the engine: the single-file build
    /// carries no files beside it, and leaves the engine out.
    pub fn available() -> bool {
        !Reflect::has(&js_sys::global(), &JsValue::from_str("tarmacLensAssets")).unwrap_or(false)
    }

    /// Starts the engine over `trace` with the session's `index` (and the
    /// ELF image); `on_event` hears all it says.
    pub fn start(
        trace: &ReportFile,
        elf: Option<&ReportFile>,
        index: &Uint8Array,
        on_event: impl Fn(SqlEvent) + 'static,
    ) -> Result<SqlClient, String> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        options.set_name("tarmac-lens-sql");
        let worker = Worker::new_with_options(URL, &options)
            .map_err(|e| format!("cannot start the query engine ({URL}): {e:?}"))?;
        let on_event = Rc::new(on_event);
        let on_message = {
            let on_event = on_event.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                if let Some(event) = event_of(&e.data()) {
                    on_event(event);
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let on_error = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
            let message = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "it could not be loaded, or ran out of memory".into());
            on_event(SqlEvent::Failed(format!(
                "the query engine stopped: {message}"
            )));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let open = Object::new();
        set(&open, "name", &JsValue::from_str(trace.name()))?;
        set(&open, "trace", &file_of(trace)?)?;
        // Copied, not transferred: a stopped engine's successor gets it too.
        set(&open, "index", index)?;
        if let Some(elf) = elf {
            set(&open, "elf", &file_of(elf)?)?;
        }
        let message = Object::new();
        set(&message, "open", &open)?;
        worker
            .post_message(&message)
            .map_err(|e| format!("cannot start the query engine: {e:?}"))?;
        Ok(SqlClient {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    fn post(&self, key: &str, fields: &[(&str, JsValue)]) {
        let inner = Object::new();
        for (k, v) in fields {
            let _ = set(&inner, k, v);
        }
        let message = Object::new();
        let _ = set(&message, key, &inner);
        let _ = self.worker.post_message(&message);
    }

    /// Runs `sql` as run `id`.
    pub fn query(&self, id: u32, sql: &str) {
        self.post(
            "query",
            &[("id", id.into()), ("sql", JsValue::from_str(sql))],
        );
    }

    /// Rows `offset..offset + count` of run `id`'s result.
    pub fn rows(&self, id: u32, offset: u64, count: u64) {
        self.post(
            "rows",
            &[
                ("id", id.into()),
                ("offset", (offset as f64).into()),
                ("count", (count as f64).into()),
            ],
        );
    }
}

thread_local! {
    /// The Query pane's state and engine, kept while the pane is closed or
    /// moved to the other area (its component is made again then), for the
    /// trace it was opened on.
    static KEPT: RefCell<Option<Box<dyn std::any::Any>>> = const { RefCell::new(None) };
}

/// Keeps `value` for the next pane ([`take_kept`]).
pub fn keep<T: 'static>(value: T) {
    KEPT.with(|k| *k.borrow_mut() = Some(Box::new(value)));
}

/// What the last pane kept, if it is a `T`.
pub fn take_kept<T: 'static>() -> Option<T> {
    KEPT.with(|k| k.borrow_mut().take())
        .and_then(|b| b.downcast::<T>().ok())
        .map(|b| *b)
}
