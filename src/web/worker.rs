//! The worker: owns the dropped `File` and everything computed from it.
//!
//! `Index` computes record statistics (the summary page). `Open` starts a
//! browsing [`Session`]: indexing runs in steps of a few megabytes, each
//! scheduled as its own task, so that queries from the page are answered
//! between steps — the trace can be browsed while it is still indexing.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::browse::Session;
use crate::parse::ParseOptions;
use crate::stats::compute;

use super::blob_source::BlobSource;
use super::protocol::{decode, encode, CrashTest, OpenOptions, ToPage, ToWorker};

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Sends a message to the page. A failure here means the page is gone, so
/// there is nobody left to tell; the console is the last resort.
pub fn post(msg: &ToPage) {
    match encode(msg) {
        Ok(value) => {
            if let Err(e) = scope().post_message(&value) {
                web_sys::console::error_2(&"tarmac-lens worker: postMessage failed".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&format!("tarmac-lens worker: {e}").into()),
    }
}

/// Bytes indexed between clock checks.
const STEP_BYTES: u64 = 256 << 10;
/// Time one task indexes for before yielding, so a query waits at most
/// about this long (and the first screenful comes after the first slice).
const TASK_MS: f64 = 8.0;

struct Open {
    session: Session<BlobSource>,
    big_endian: bool,
    crash: Option<CrashTest>,
}

thread_local! {
    static OPEN: RefCell<Option<Open>> = const { RefCell::new(None) };
    /// Bumped per opened file, so steps of an abandoned file stop.
    static GENERATION: Cell<u32> = const { Cell::new(0) };
    static LAST_PROGRESS: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
    /// The channel `schedule_step` posts to.
    static TICK: RefCell<Option<web_sys::MessageChannel>> = const { RefCell::new(None) };
}

/// Installs the message handler and tells the page it may send work.
pub fn start_worker() {
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        match decode::<ToWorker>(event.data()) {
            Ok(ToWorker::Index { file }) => index(file),
            Ok(ToWorker::Open { file, options }) => open(file, options),
            Ok(ToWorker::LoadElf { file, load_offset }) => load_elf(file, load_offset),
            Ok(ToWorker::Ask { id, query }) => {
                // Still borrowed: an earlier call trapped (a failed
                // allocation) inside it, and the page has been told.
                let Some(reply) = OPEN.with(|o| {
                    let mut open = o.try_borrow_mut().ok()?;
                    Some(match open.as_mut() {
                        Some(open) => open.session.answer(query),
                        None => crate::browse::protocol::Reply::Error("no trace is open".into()),
                    })
                }) else {
                    return;
                };
                post(&ToPage::Answer {
                    id,
                    reply: Box::new(reply),
                });
            }
            Err(e) => post(&ToPage::Failed {
                message: format!("unexpected message from the page: {e}"),
            }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&ToPage::Ready);
}

/// Minimum gap between progress messages: often enough for a smooth bar,
/// rare enough not to flood the page's event loop.
const PROGRESS_INTERVAL_MS: f64 = 50.0;

fn now() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}

fn index(file: web_sys::File) {
    let total = file.size() as u64;
    let source = match BlobSource::new(file.into()) {
        Ok(s) => s,
        Err(e) => {
            post(&ToPage::Failed { message: e.0 });
            return;
        }
    };
    let last = Cell::new(f64::NEG_INFINITY);
    let result = compute(source, ParseOptions::default(), |done| {
        let t = now();
        if t - last.get() >= PROGRESS_INTERVAL_MS || done == total {
            last.set(t);
            post(&ToPage::Progress { done, total });
        }
    });
    match result {
        Ok(stats) => post(&ToPage::Finished {
            stats: Box::new(stats),
        }),
        Err(e) => post(&ToPage::Failed { message: e.0 }),
    }
}

fn open(file: web_sys::File, options: OpenOptions) {
    let source = match BlobSource::new(file.into()) {
        Ok(s) => s,
        Err(e) => {
            post(&ToPage::Failed { message: e.0 });
            return;
        }
    };
    let parse = ParseOptions {
        implicit_thumb: options.implicit_thumb,
        big_endian: options.big_endian,
        dialect: None,
    };
    match Session::open(source, parse) {
        Ok(mut session) => {
            if let Some(budget) = options.index_budget {
                session.set_index_budget(usize::try_from(budget).unwrap_or(usize::MAX));
            }
            OPEN.with(|o| {
                *o.borrow_mut() = Some(Open {
                    session,
                    big_endian: options.big_endian,
                    crash: options.crash,
                })
            });
            let generation = GENERATION.with(|g| {
                g.set(g.get() + 1);
                g.get()
            });
            LAST_PROGRESS.with(|l| l.set(f64::NEG_INFINITY));
            // The first step runs now, so the first screenful is there at once.
            step(generation);
        }
        Err(e) => post(&ToPage::Failed { message: e.0 }),
    }
}

/// Queues the next indexing task. A message to ourselves, not a timeout:
/// timeouts chained this way are clamped to 4 ms each, a third of the time.
fn schedule_step(generation: u32) -> Result<(), String> {
    TICK.with(|t| {
        let mut t = t.borrow_mut();
        if t.is_none() {
            let channel = web_sys::MessageChannel::new().map_err(|e| format!("{e:?}"))?;
            // The tick carries its file's generation: a tick queued for an
            // abandoned file must not start a second chain for the new one.
            let on_tick = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
                if let Some(generation) = e.data().as_f64() {
                    step(generation as u32);
                }
            });
            channel
                .port1()
                .set_onmessage(Some(on_tick.as_ref().unchecked_ref()));
            on_tick.forget();
            *t = Some(channel);
        }
        let channel = t.as_ref().expect("created above");
        channel
            .port2()
            .post_message(&JsValue::from(generation))
            .map_err(|e| format!("{e:?}"))
    })
}

/// Indexes one step and schedules the next as a separate task.
fn step(generation: u32) {
    if GENERATION.with(|g| g.get()) != generation {
        return;
    }
    let started = now();
    let result = OPEN.with(|o| {
        o.borrow_mut().as_mut().map(|open| {
            // The first slice alone, so the first screenful can be asked for
            // at once; then slices until the task's time is up.
            let mut p = open.session.index_step(STEP_BYTES)?;
            if let Some(crash) = open.crash {
                crash_on_purpose(crash);
            }
            while p.done_bytes > STEP_BYTES
                && !p.complete
                && p.stopped.is_none()
                && now() - started < TASK_MS
            {
                p = open.session.index_step(STEP_BYTES)?;
            }
            Ok::<_, crate::source::SourceError>((p, open.session.stats().cloned()))
        })
    });
    let Some(result) = result else { return };
    match result {
        Ok((progress, stats)) => {
            let t = now();
            let due = LAST_PROGRESS.with(|l| t - l.get() >= PROGRESS_INTERVAL_MS);
            if due || progress.complete {
                LAST_PROGRESS.with(|l| l.set(t));
                post(&ToPage::Indexing(progress.clone()));
            }
            if progress.stopped.is_some() {
                // Over the memory budget: what is indexed stays browsable.
                post(&ToPage::Indexing(progress));
                return;
            }
            if progress.complete {
                if let Some(stats) = stats {
                    post(&ToPage::Finished {
                        stats: Box::new(stats),
                    });
                }
                return;
            }
            if let Err(e) = schedule_step(generation) {
                post(&ToPage::Failed {
                    message: format!("cannot schedule indexing in the worker: {e}"),
                });
            }
        }
        Err(e) => post(&ToPage::Failed { message: e.0 }),
    }
}

fn load_elf(file: web_sys::File, load_offset: i64) {
    let name = file.name();
    let bytes = match BlobSource::new(file.into()).and_then(|mut src| {
        let len = crate::source::TraceSource::len(&src) as usize;
        let mut buf = vec![0u8; len];
        crate::source::TraceSource::read_at(&mut src, 0, &mut buf).map(|_| buf)
    }) {
        Ok(b) => b,
        Err(e) => {
            post(&ToPage::ElfFailed {
                message: format!("{name}: {}", e.0),
            });
            return;
        }
    };
    let result = OPEN.with(|o| match o.borrow_mut().as_mut() {
        Some(open) => {
            let be = open.big_endian;
            open.session.load_elf(&bytes, load_offset, be)
        }
        None => Err("open a trace before its ELF image".into()),
    });
    match result {
        Ok(symbols) => post(&ToPage::ElfLoaded { symbols }),
        Err(e) => post(&ToPage::ElfFailed {
            message: format!("{name}: {e}"),
        }),
    }
}

/// Fails the way a bug or an exhausted tab would (the `?crash=` test hooks).
fn crash_on_purpose(crash: CrashTest) {
    match crash {
        CrashTest::Panic => panic!("crash test: a panic in the worker (?crash=worker)"),
        CrashTest::OutOfMemory => {
            // Untouched 256 MiB blocks until wasm32's 4 GiB runs out; the
            // failed allocation aborts the worker as a real one would.
            let mut held: Vec<Vec<u8>> = Vec::new();
            loop {
                held.push(Vec::with_capacity(256 << 20));
                // Kept observable, so the allocations cannot be elided.
                std::hint::black_box(&mut held);
            }
        }
    }
}
