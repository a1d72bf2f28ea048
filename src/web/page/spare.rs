//! Workers started before they are needed: starting one (its thread, its
//! wasm module instantiated) takes 100-200 ms on this machine's Chromium,
//! which the first screenful (the session's worker) or a range's share of
//! the indexing (the range workers) should not wait for.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, MessageEvent, Worker};

use crate::web::shared::protocol::{decode, ToPage};
use crate::web::shared::role::Role;

/// Where a spare's messages go before it is taken: the rehearsal's client.
type Listener = Rc<RefCell<Option<Box<dyn Fn(ToPage)>>>>;

/// A started worker, and whether it said it listens.
pub struct SpareWorker {
    url: String,
    worker: Worker,
    ready: Rc<Cell<bool>>,
    /// It failed to start: whoever takes it starts a fresh one instead,
    /// which reports its own error.
    failed: Rc<Cell<bool>>,
    /// Messages posted before it listens, sent once it does.
    queued: Rc<RefCell<Vec<JsValue>>>,
    listener: Listener,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

/// A worker of `url` in `role`: named for it, if the role has a name (the
/// worker bin runs as what its name says, see `worker::start`).
pub fn new_worker(url: &str, role: Role) -> Result<Worker, JsValue> {
    named_worker(url, role.worker_name())
}

fn named_worker(url: &str, name: Option<&str>) -> Result<Worker, JsValue> {
    match name {
        Some(name) => {
            let options = web_sys::WorkerOptions::new();
            options.set_name(name);
            Worker::new_with_options(url, &options)
        }
        None => Worker::new(url),
    }
}

impl SpareWorker {
    /// Starts a worker ([`new_worker`]); `None` if the browser refuses,
    /// which the real start will report.
    pub fn start(url: &str, role: Role) -> Option<SpareWorker> {
        Self::start_named(url, role.worker_name())
    }

    /// [`SpareWorker::start`] with the name given (`Role::next_session_name`).
    pub fn start_named(url: &str, name: Option<&str>) -> Option<SpareWorker> {
        let worker = named_worker(url, name).ok()?;
        let ready = Rc::new(Cell::new(false));
        let queued = Rc::new(RefCell::new(Vec::<JsValue>::new()));
        let listener: Listener = Rc::new(RefCell::new(None));
        let on_message = {
            let (ready, queued, listener) = (ready.clone(), queued.clone(), listener.clone());
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let Ok(msg) = decode::<ToPage>(event.data()) else {
                    return;
                };
                if matches!(msg, ToPage::Ready) {
                    ready.set(true);
                    for value in queued.borrow_mut().drain(..) {
                        let _ = worker.post_message(&value);
                    }
                }
                if let Some(listen) = listener.borrow().as_ref() {
                    listen(msg);
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let failed = Rc::new(Cell::new(false));
        let on_error = {
            let (failed, listener) = (failed.clone(), listener.clone());
            Closure::<dyn FnMut(Event)>::new(move |e: Event| {
                // Handled here: `open` says so when a file needs the worker.
                e.prevent_default();
                failed.set(true);
                if let Some(listen) = listener.borrow().as_ref() {
                    listen(ToPage::Failed {
                        message: "the worker failed to start".into(),
                    });
                }
            })
        };
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(SpareWorker {
            url: url.to_string(),
            worker,
            ready,
            failed,
            queued,
            listener,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Whether it listens already.
    pub fn is_ready(&self) -> bool {
        self.ready.get()
    }

    /// Posts `value` to it, once it listens (the rehearsal's questions).
    pub fn post(&self, value: JsValue) -> Result<(), String> {
        if self.failed.get() {
            return Err("the worker failed to start".into());
        }
        if self.ready.get() {
            self.worker
                .post_message(&value)
                .map_err(|e| format!("cannot message the worker: {e:?}"))
        } else {
            self.queued.borrow_mut().push(value);
            Ok(())
        }
    }

    /// Its messages go to `listen` until it is taken, when `listen` is told
    /// [`ToPage::Failed`] (in a task of its own).
    pub fn listen(&self, listen: impl Fn(ToPage) + 'static) {
        *self.listener.borrow_mut() = Some(Box::new(listen));
    }

    /// The worker, for `url`, with whether it is listening already (if not,
    /// its `Ready` is still to come, to the taker's handler). `None`, the
    /// worker stopped, if it failed or runs another URL.
    pub fn take(self, url: &str) -> Option<(Worker, bool)> {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        // The rehearsal's questions not sent yet are dropped; those sent are
        // answered to the taker, who knows none of their ids.
        self.queued.borrow_mut().clear();
        if let Some(listen) = self.listener.borrow_mut().take() {
            wasm_bindgen_futures::spawn_local(async move {
                listen(ToPage::Failed {
                    message: "the worker was taken for a trace".into(),
                });
            });
        }
        if self.url != url || self.failed.get() {
            self.worker.terminate();
            return None;
        }
        Some((self.worker, self.ready.get()))
    }
}
