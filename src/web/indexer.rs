//! Page side of the indexing worker: starts one worker per file, hands it the
//! `File` and turns its messages into [`IndexEvent`]s.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};

use super::protocol::{decode, encode, ToPage, ToWorker};
use crate::stats::Stats;

/// Where Trunk puts the worker's loader (see index.html, `data-loader-shim`).
/// Worker files are not content-hashed, so the name is fixed.
pub const WORKER_URL: &str = "./tarmac-lens-worker_loader.js";

/// What the page learns about a running job.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexEvent {
    Progress { done: u64, total: u64 },
    Finished(Rc<Stats>),
    Failed(String),
}

/// A running (or finished) indexing job. Dropping it stops the worker, so
/// starting a new file abandons the old one instead of racing it.
pub struct IndexJob {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl IndexJob {
    pub fn start(
        file: web_sys::File,
        on_event: impl Fn(IndexEvent) + 'static,
    ) -> Result<IndexJob, String> {
        Self::start_with_url(WORKER_URL, file, on_event)
    }

    pub fn start_with_url(
        url: &str,
        file: web_sys::File,
        on_event: impl Fn(IndexEvent) + 'static,
    ) -> Result<IndexJob, String> {
        let worker = Worker::new(url)
            .map_err(|e| format!("cannot start the indexing worker ({url}): {e:?}"))?;
        let on_event = Rc::new(on_event);
        // The file waits here until the worker says it is listening.
        let pending = Rc::new(RefCell::new(Some(file)));

        let on_message = {
            let worker = worker.clone();
            let on_event = on_event.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let msg = match decode::<ToPage>(event.data()) {
                    Ok(m) => m,
                    Err(e) => {
                        on_event(IndexEvent::Failed(format!(
                            "unreadable message from the worker: {e}"
                        )));
                        return;
                    }
                };
                match msg {
                    ToPage::Ready => {
                        if let Some(file) = pending.borrow_mut().take() {
                            let sent = encode(&ToWorker::Index { file }).and_then(|v| {
                                worker.post_message(&v).map_err(|e| format!("{e:?}"))
                            });
                            if let Err(e) = sent {
                                on_event(IndexEvent::Failed(format!(
                                    "cannot send the file to the worker: {e}"
                                )));
                            }
                        }
                    }
                    // Browsing-session messages; this job only counts records.
                    ToPage::Indexing(_) | ToPage::Answer { .. } | ToPage::ElfLoaded { .. } => {}
                    ToPage::Progress { done, total } => {
                        on_event(IndexEvent::Progress { done, total })
                    }
                    ToPage::Finished { stats } => on_event(IndexEvent::Finished(Rc::new(*stats))),
                    ToPage::Failed { message } => on_event(IndexEvent::Failed(message)),
                    ToPage::Panicked { message } => {
                        super::panic_hook::show_panic(&format!(
                            "in the indexing worker: {message}"
                        ));
                        on_event(IndexEvent::Failed(format!(
                            "the indexing worker crashed: {message}"
                        )));
                    }
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));

        let on_error = {
            let on_event = on_event.clone();
            let url = url.to_string();
            Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                // Fires when the worker script cannot load (a plain Event) or
                // throws outside Rust (an ErrorEvent; a Rust panic arrives as
                // ToPage::Panicked first).
                let message = event
                    .dyn_ref::<ErrorEvent>()
                    .map(|e| e.message())
                    .unwrap_or_default();
                on_event(IndexEvent::Failed(if message.is_empty() {
                    format!("the indexing worker failed to start (is {url} served?)")
                } else {
                    format!("the indexing worker failed: {message}")
                }));
            })
        };
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

        Ok(IndexJob {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

impl Drop for IndexJob {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
