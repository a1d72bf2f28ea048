//! The page's end of a Web Worker: what the page posts before the worker
//! says it listens would be lost, so it waits here until then; dropping the
//! link stops the worker. Shared by the browsing and report clients.

use std::cell::{Cell, RefCell};

use wasm_bindgen::JsValue;
use web_sys::Worker;

pub struct WorkerLink {
    worker: Worker,
    ready: Cell<bool>,
    queued: RefCell<Vec<JsValue>>,
}

impl WorkerLink {
    /// `ready`: the worker already said it listens (a spare one).
    pub fn new(worker: Worker, ready: bool) -> WorkerLink {
        WorkerLink {
            worker,
            ready: Cell::new(ready),
            queued: RefCell::new(Vec::new()),
        }
    }

    pub fn worker(&self) -> &Worker {
        &self.worker
    }

    pub fn is_ready(&self) -> bool {
        self.ready.get()
    }

    /// Posts `value`, or keeps it until the worker listens.
    pub fn post(&self, value: JsValue) -> Result<(), String> {
        if self.ready.get() {
            self.worker
                .post_message(&value)
                .map_err(|e| format!("cannot message the worker: {e:?}"))
        } else {
            self.queued.borrow_mut().push(value);
            Ok(())
        }
    }

    /// The worker listens: what waited goes now, in order.
    pub fn set_ready(&self) -> Result<(), String> {
        self.ready.set(true);
        for value in self.queued.borrow_mut().drain(..) {
            self.worker
                .post_message(&value)
                .map_err(|e| format!("cannot message the worker: {e:?}"))?;
        }
        Ok(())
    }
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
