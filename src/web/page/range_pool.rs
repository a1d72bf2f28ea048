//! Parallel indexing in the browser, page side: how many workers index a
//! dropped file (a URL's: its session's worker says, knowing its length) ([`tarmac_lens_core::worker_count`]), and the extra workers
//! themselves. When the session's worker asks for ranges
//! ([`ToPage::IndexRanges`]), each range gets a worker and a
//! `MessageChannel` joining it to the session's worker, so the partial
//! indexes travel between workers and never through the UI thread. A range
//! worker that dies is reported to the session's worker, which then indexes
//! that range itself. Range workers are started ahead of any drop
//! ([`prewarm`]), so a range's worker starts indexing as soon as the split
//! is made, not a worker's start later.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, MessageChannel, MessageEvent, Worker};

use super::spare::SpareWorker;
use crate::web::shared::protocol::{decode, encode, OpenOptions, ToPage, ToWorker};
use crate::web::shared::role::Role;

pub fn cores() -> usize {
    web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .unwrap_or(1.0) as usize
}

/// How many workers index `file` (`options.workers` forces it).
pub fn workers_for(file: &web_sys::File, options: &OpenOptions) -> u32 {
    tarmac_lens_core::worker_count(file.size() as u64, cores(), options.workers) as u32
}

/// Most range workers kept started ahead: an idle one holds its thread and
/// wasm instance (8-11 MB of the tab's memory, measured); a machine with
/// more cores starts the rest when a big file comes.
const MAX_SPARES: usize = 3;

thread_local! {
    static SPARES: RefCell<Vec<SpareWorker>> = const { RefCell::new(Vec::new()) };
}

/// Starts range workers of `url` ahead of a drop, up to as many as a big
/// file would use besides the session's worker (`?workers=N` counts), at
/// most [`MAX_SPARES`]. Range workers run no warm-up, so these cost
/// little CPU.
pub fn prewarm(url: &str, options: &OpenOptions) {
    let wanted = tarmac_lens_core::worker_count(u64::MAX, cores(), options.workers)
        .saturating_sub(1)
        .min(MAX_SPARES);
    SPARES.with(|s| {
        let mut spares = s.borrow_mut();
        while spares.len() < wanted {
            let Some(spare) = SpareWorker::start(url, Role::Range) else {
                return;
            };
            spares.push(spare);
        }
    });
}

/// A range worker of `url`: a spare if one is left (with whether it is
/// listening already), else a new one.
fn range_worker(url: &str) -> Result<(Worker, bool), String> {
    while let Some(spare) = SPARES.with(|s| s.borrow_mut().pop()) {
        if let Some(taken) = spare.take(url) {
            return Ok(taken);
        }
    }
    super::spare::new_worker(url, Role::Range)
        .map(|w| (w, false))
        .map_err(|e| format!("cannot start a range worker: {e:?}"))
}

struct RangeWorker {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

/// The trace the range workers read.
pub enum RangeInput {
    File(web_sys::File),
    /// On a server that serves byte ranges.
    Url {
        url: String,
        cross_origin: bool,
    },
}

/// The extra workers of one session; they stop when it is dropped.
pub struct RangePool {
    url: String,
    input: RangeInput,
    options: OpenOptions,
    workers: Vec<RangeWorker>,
}

impl RangePool {
    pub fn new(url: &str, input: RangeInput, options: OpenOptions) -> RangePool {
        RangePool {
            url: url.to_string(),
            input,
            options,
            workers: Vec::new(),
        }
    }

    /// The message giving a range worker its range.
    fn job(
        &self,
        part: u32,
        from: u64,
        to: u64,
        port: web_sys::MessagePort,
    ) -> Result<wasm_bindgen::JsValue, String> {
        let options = self.options;
        encode(&match &self.input {
            RangeInput::File(file) => ToWorker::IndexRange {
                file: file.clone(),
                part,
                from,
                to,
                options,
                port,
            },
            RangeInput::Url { url, cross_origin } => ToWorker::IndexRangeUrl {
                url: url.clone(),
                cross_origin: *cross_origin,
                part,
                from,
                to,
                options,
                port,
            },
        })
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
            let (worker, ready) = match range_worker(&self.url) {
                Ok(w) => w,
                Err(e) => {
                    failed(session);
                    return Err(e);
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
            let job = self.job(part, from, to, channel.port2())?;
            let done = Rc::new(Cell::new(false));
            let post_job = {
                let (worker, session, done) = (worker.clone(), session.clone(), done.clone());
                let port = channel.port2();
                move || {
                    let sent = worker.post_message_with_transfer(&job, &js_sys::Array::of1(&port));
                    if sent.is_err() && !done.replace(true) {
                        failed(&session);
                    }
                }
            };
            if ready {
                post_job();
            }
            // The worker drops what is posted before it says it listens (a
            // spare may have said so already).
            let on_message = {
                let (session, done) = (session.clone(), done.clone());
                Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                    match decode::<ToPage>(e.data()) {
                        Ok(ToPage::Ready) => post_job(),
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

/// Shows the finished index's digest (`?digest=1`, for tests comparing
/// indexes built by different worker counts) as `data-index-digest` on
/// `<body>`, and `data-index-ranges` (`joined/ranges` indexed by other
/// workers), for the tests and the benchmark.
pub fn show_digest(digest: Option<&str>, ranges: u32, joined: u32) {
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        if let Some(digest) = digest {
            let _ = body.set_attribute("data-index-digest", digest);
        }
        let _ = body.set_attribute("data-index-ranges", &format!("{joined}/{ranges}"));
    }
}
