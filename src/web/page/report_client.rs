//! Page side of `report_protocol`: starts a report worker on demand, sends
//! it the trace (and the ELF image, if one is loaded) as a `Blob` or a URL,
//! and routes its answers to the callbacks that asked. Texts arrive in chunks that
//! are gathered as JS strings into a `Blob`, never into wasm memory.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, MessageEvent};

use crate::web::shared::protocol::{decode, encode, OpenOptions, ToPage, ToWorker};
use crate::web::shared::report_protocol::{
    ReportEvent, ReportFile, ReportQuery, ReportQuestion, ReportReply, ReportRequest, ReportStatus,
};
use crate::web::shared::role::Role;
use tarmac_lens_core::report::TextKind;

type ReplyFn = Box<dyn FnOnce(ReportReply)>;
/// The worker's handlers, kept alive as long as the client.
type Handler<E> = RefCell<Option<Closure<dyn FnMut(E)>>>;

struct Inner {
    link: super::worker_link::WorkerLink,
    next_id: Cell<u32>,
    pending: RefCell<HashMap<u32, ReplyFn>>,
    /// Chunks of texts being received, by query id.
    texts: RefCell<HashMap<u32, js_sys::Array>>,
    on_message: Handler<MessageEvent>,
    on_error: Handler<Event>,
}

impl Inner {
    fn send(&self, msg: &ToWorker) -> Result<(), String> {
        self.link.post(encode(msg)?)
    }
}

/// A report worker; it stops when the last clone is dropped.
#[derive(Clone)]
pub struct ReportClient {
    inner: Rc<Inner>,
}

impl PartialEq for ReportClient {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

/// A downloadable text: an object URL of its `Blob`, revoked on drop.
#[derive(Debug, PartialEq)]
pub struct Download {
    pub url: String,
    pub bytes: u64,
}

impl Download {
    /// A text the page already holds, as a plain-text download.
    pub fn of_text(text: &str) -> Result<Download, String> {
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        let url = blob_url(&parts, TextKind::Profile)?;
        Ok(Download {
            url,
            bytes: text.len() as u64,
        })
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        let _ = web_sys::Url::revoke_object_url(&self.url);
    }
}

impl ReportClient {
    pub fn start(
        trace: ReportFile,
        elf: Option<(ReportFile, i64)>,
        options: OpenOptions,
        on_status: impl Fn(ReportStatus) + 'static,
    ) -> Result<ReportClient, String> {
        let url = super::client::worker_url();
        let worker = super::spare::new_worker(&url, Role::Report)
            .map_err(|e| format!("cannot start the report worker ({url}): {e:?}"))?;
        let inner = Rc::new(Inner {
            link: super::worker_link::WorkerLink::new(worker.clone(), false),
            next_id: Cell::new(0),
            pending: RefCell::new(HashMap::new()),
            texts: RefCell::new(HashMap::new()),
            on_message: RefCell::new(None),
            on_error: RefCell::new(None),
        });
        let (elf, load_offset) = match elf {
            Some((f, o)) => (Some(f), o),
            None => (None, 0),
        };
        inner.send(&ToWorker::Report(ReportRequest::Start {
            trace,
            elf,
            load_offset,
            options,
        }))?;
        let on_status = Rc::new(on_status);
        let weak = Rc::downgrade(&inner);
        let status = on_status.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(inner) = weak.upgrade() else { return };
            // A binary export's chunk: `[id, Uint8Array]`.
            if let Some(pair) = event.data().dyn_ref::<js_sys::Array>() {
                if let Some(parts) = pair
                    .get(0)
                    .as_f64()
                    .and_then(|id| inner.texts.borrow().get(&(id as u32)).cloned())
                {
                    parts.push(&pair.get(1));
                }
                return;
            }
            let msg = match decode::<ToPage>(event.data()) {
                Ok(m) => m,
                Err(e) => return status(ReportStatus::Failed(e)),
            };
            match msg {
                ToPage::Ready => {
                    if let Err(e) = inner.link.set_ready() {
                        status(ReportStatus::Failed(e));
                    }
                }
                ToPage::Report(ReportEvent::Status(s)) => status(s),
                ToPage::Report(ReportEvent::Text { id, chunk }) => {
                    if let Some(parts) = inner.texts.borrow().get(&id) {
                        parts.push(&JsValue::from_str(&chunk));
                    }
                }
                ToPage::Report(ReportEvent::Answer { id, reply }) => {
                    let cb = inner.pending.borrow_mut().remove(&id);
                    if let Some(cb) = cb {
                        cb(reply);
                    }
                }
                ToPage::Panicked { message } | ToPage::Failed { message } => {
                    status(ReportStatus::Failed(message))
                }
                // The browsing worker's messages; this one sends none of them.
                _ => {}
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let status = on_status;
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let message = event
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .unwrap_or_default();
            status(ReportStatus::Failed(format!(
                "the report worker stopped ({message}): it most likely ran out of memory"
            )));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        *inner.on_message.borrow_mut() = Some(on_message);
        *inner.on_error.borrow_mut() = Some(on_error);
        Ok(ReportClient { inner })
    }

    fn ask_id(&self, query: ReportQuery, on_reply: ReplyFn) -> u32 {
        let id = self.inner.next_id.get();
        self.inner.next_id.set(id.wrapping_add(1));
        self.inner.pending.borrow_mut().insert(id, on_reply);
        if let Err(e) = self
            .inner
            .send(&ToWorker::Report(ReportRequest::Ask { id, query }))
        {
            if let Some(cb) = self.inner.pending.borrow_mut().remove(&id) {
                cb(ReportReply::Error(e));
            }
        }
        id
    }

    /// Asks the report worker; `on_answer` gets the question's own
    /// answer, or the worker's message why there is none.
    pub fn ask<Q: ReportQuestion + 'static>(
        &self,
        question: Q,
        on_answer: impl FnOnce(Result<Q::Answer, String>) + 'static,
    ) {
        self.ask_id(
            question.into(),
            Box::new(move |reply| on_answer(Q::answer_of(reply))),
        );
    }

    /// Fetches a report's text as a `Blob` and gives its object URL.
    pub fn download(
        &self,
        kind: TextKind,
        on_done: impl FnOnce(Result<Download, String>) + 'static,
    ) {
        let id = self.inner.next_id.get();
        self.inner
            .texts
            .borrow_mut()
            .insert(id, js_sys::Array::new());
        let weak = Rc::downgrade(&self.inner);
        let asked = self.ask_id(
            ReportQuery::Text(kind),
            Box::new(move |reply| {
                let parts = weak
                    .upgrade()
                    .and_then(|i| i.texts.borrow_mut().remove(&id));
                let result = match (TextKind::answer_of(reply), parts) {
                    (Ok(done), Some(parts)) => blob_url(&parts, kind).map(|url| Download {
                        url,
                        bytes: done.bytes,
                    }),
                    (Err(e), _) => Err(e),
                    // The client went away meanwhile: nobody waits.
                    (Ok(_), None) => Err("the Reports panel was closed".into()),
                };
                on_done(result);
            }),
        );
        debug_assert_eq!(asked, id);
    }
}

fn blob_url(parts: &js_sys::Array, kind: TextKind) -> Result<String, String> {
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type(match kind {
        TextKind::Vcd => "text/x-vcd",
        TextKind::Chrome => "application/json",
        TextKind::Perfetto => "application/octet-stream",
        _ => "text/plain;charset=utf-8",
    });
    let blob = web_sys::Blob::new_with_str_sequence_and_options(parts, &bag)
        .map_err(|e| format!("cannot make the download: {e:?}"))?;
    web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|e| format!("cannot make the download: {e:?}"))
}
