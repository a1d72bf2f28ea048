//! Workers started before they are needed: starting one (its thread, its
//! wasm module instantiated) takes 100-200 ms on this machine's Chromium,
//! which the first screenful (the session's worker) or a range's share of
//! the indexing (the range workers) should not wait for.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, MessageEvent, Worker};

use crate::web::shared::protocol::{decode, ToPage};
use crate::web::shared::role::Role;

/// A started worker, and whether it said it listens.
pub struct SpareWorker {
    url: String,
    worker: Worker,
    ready: Rc<Cell<bool>>,
    /// It failed to start: whoever takes it starts a fresh one instead,
    /// which reports its own error.
    failed: Rc<Cell<bool>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

/// A worker of `url` in `role`: named for it, if the role has a name (the
/// worker bin runs as what its name says, see `worker::start`).
pub fn new_worker(url: &str, role: Role) -> Result<Worker, JsValue> {
    match role.worker_name() {
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
        let worker = new_worker(url, role).ok()?;
        let ready = Rc::new(Cell::new(false));
        let on_message = {
            let ready = ready.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                if matches!(decode::<ToPage>(event.data()), Ok(ToPage::Ready)) {
                    ready.set(true);
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let failed = Rc::new(Cell::new(false));
        let on_error = {
            let failed = failed.clone();
            Closure::<dyn FnMut(Event)>::new(move |_: Event| failed.set(true))
        };
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(SpareWorker {
            url: url.to_string(),
            worker,
            ready,
            failed,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// The worker, for `url`, with whether it is listening already (if not,
    /// its `Ready` is still to come, to the taker's handler). `None`, the
    /// worker stopped, if it failed or runs another URL.
    pub fn take(self, url: &str) -> Option<(Worker, bool)> {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        if self.url != url || self.failed.get() {
            self.worker.terminate();
            return None;
        }
        Some((self.worker, self.ready.get()))
    }
}
