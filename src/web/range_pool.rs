//! Parallel indexing in the browser, page side: how many workers index a
//! dropped file ([`crate::browse::worker_count`]), and the extra workers
//! themselves. When the session's worker asks for ranges
//! ([`ToPage::IndexRanges`]), each range gets a worker and a
//! `MessageChannel` joining it to the session's worker, so the partial
//! indexes travel between workers and never through the UI thread. A range
//! worker that dies is reported to the session's worker, which then indexes
//! that range itself.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, MessageChannel, MessageEvent, Worker};

use super::protocol::{decode, encode, OpenOptions, ToPage, ToWorker};

/// How many workers index `file` (`options.workers` forces it).
pub fn workers_for(file: &web_sys::File, options: &OpenOptions) -> u32 {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .unwrap_or(1.0) as usize;
    crate::browse::worker_count(file.size() as u64, cores, options.workers) as u32
}

struct RangeWorker {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

/// The extra workers of one session; they stop when it is dropped.
pub struct RangePool {
    url: String,
    file: web_sys::File,
    options: OpenOptions,
    workers: Vec<RangeWorker>,
}

impl RangePool {
    pub fn new(url: &str, file: web_sys::File, options: OpenOptions) -> RangePool {
        RangePool {
            url: url.to_string(),
            file,
            options,
            workers: Vec::new(),
        }
    }

    /// Starts a worker for each raw range (parts 1.. in order), reporting
    /// to `session`'s worker.
    pub fn start(&mut self, session: &Worker, ranges: Vec<(u64, u64)>) -> Result<(), String> {
        for (i, (from, to)) in ranges.into_iter().enumerate() {
            let part = i as u32 + 1;
            let failed = move |session: &Worker| {
                if let Ok(v) = encode(&ToWorker::RangeFailed { part }) {
                    let _ = session.post_message(&v);
                }
            };
            let options = web_sys::WorkerOptions::new();
            options.set_name(super::range_worker::WORKER_NAME);
            let worker = match Worker::new_with_options(&self.url, &options) {
                Ok(w) => w,
                Err(e) => {
                    failed(session);
                    return Err(format!("cannot start a range worker: {e:?}"));
                }
            };
            let channel = MessageChannel::new().map_err(|e| format!("{e:?}"))?;
            let to_session = encode(&ToWorker::RangePort {
                part,
                port: channel.port1(),
            })?;
            session
                .post_message_with_transfer(&to_session, &js_sys::Array::of1(&channel.port1()))
                .map_err(|e| format!("cannot message the worker: {e:?}"))?;
            let job = encode(&ToWorker::IndexRange {
                file: self.file.clone(),
                part,
                from,
                to,
                options: self.options,
                port: channel.port2(),
            })?;
            let done = Rc::new(Cell::new(false));
            // The worker drops what is posted before it says it listens.
            let on_message = {
                let (worker, session, done) = (worker.clone(), session.clone(), done.clone());
                let port = channel.port2();
                Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                    match decode::<ToPage>(e.data()) {
                        Ok(ToPage::Ready) => {
                            let sent =
                                worker.post_message_with_transfer(&job, &js_sys::Array::of1(&port));
                            if sent.is_err() && !done.replace(true) {
                                failed(&session);
                            }
                        }
                        Ok(ToPage::Panicked { .. } | ToPage::Failed { .. })
                            if !done.replace(true) =>
                        {
                            failed(&session);
                        }
                        _ => {}
                    }
                })
            };
            let on_error = {
                let session = session.clone();
                Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                    if !done.replace(true) {
                        failed(&session);
                    }
                })
            };
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            self.workers.push(RangeWorker {
                worker,
                _on_message: on_message,
                _on_error: on_error,
            });
        }
        Ok(())
    }
}

impl Drop for RangePool {
    fn drop(&mut self) {
        for w in &self.workers {
            w.worker.set_onmessage(None);
            w.worker.set_onerror(None);
            w.worker.terminate();
        }
    }
}

/// Shows the finished index's digest as `data-index-digest` on `<body>`,
/// with `data-index-ranges` (`joined/ranges` indexed by other workers):
/// `?digest=1`, for tests comparing indexes built by different worker counts.
pub fn show_digest(digest: &str, ranges: u32, joined: u32) {
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-index-digest", digest);
        let _ = body.set_attribute("data-index-ranges", &format!("{joined}/{ranges}"));
    }
}
