//! Parallel indexing in the browser, worker side, without SharedArrayBuffer
//! (static hosts cannot make a page cross-origin isolated).
//!
//! A *range worker* (the ordinary worker, sent [`ToWorker::IndexRange`])
//! indexes one byte range of the dropped `File` with a
//! [`RangeJob`] and reports on a `MessagePort` that leads straight to the
//! session's worker (the page only introduces them, so the UI thread never
//! carries the bytes): progress, then the partial index as a transferred
//! `ArrayBuffer` (not copied on the way) with its statistics. The session's
//! worker listens on those ports ([`listen`]) and hands what arrives to its
//! [`tarmac_lens_core::browse::Session`], which adopts ranges in order.
//!
//! Port messages are `[JSON text, ArrayBuffer?]`.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, MessagePort};

use tarmac_lens_core::index::parallel::dialect_of;
use tarmac_lens_core::index::range_job::RangeJob;
use tarmac_lens_core::index::IndexOptions;
use tarmac_lens_core::source::TraceSource;
use tarmac_lens_core::stats::Stats;

use super::blob_source::BlobSource;
use super::protocol::OpenOptions;
use super::timing::now;

/// The name range workers are started with (`new Worker(url, { name })`):
/// they skip the warm-up meant for the first screenful.
pub const WORKER_NAME: &str = "tarmac-lens-range";

/// Range worker -> session worker.
#[derive(Debug, Serialize, Deserialize)]
enum RangeMsg {
    /// Bytes of the range indexed so far.
    Progress {
        done: u64,
    },
    /// The range is indexed: its bytes follow the text.
    Done {
        stats: Box<Stats>,
    },
    Failed {
        message: String,
    },
}

/// Bytes indexed between progress checks.
pub(super) const STEP_BYTES: u64 = 4 << 20;
/// Least time between progress messages.
const PROGRESS_MS: f64 = 50.0;

fn send(port: &MessagePort, msg: &RangeMsg, bytes: Option<&[u8]>) {
    let text = match serde_json::to_string(msg) {
        Ok(t) => t,
        Err(e) => {
            web_sys::console::error_1(&format!("tarmac-lens range worker: {e}").into());
            return;
        }
    };
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let sent = match bytes {
        Some(b) => {
            let buffer = js_sys::Uint8Array::from(b).buffer();
            parts.push(&buffer);
            port.post_message_with_transferable(&parts, &js_sys::Array::of1(&buffer))
        }
        None => port.post_message(&parts),
    };
    if let Err(e) = sent {
        web_sys::console::error_2(&"tarmac-lens range worker: postMessage failed".into(), &e);
    }
}

/// In a range worker: indexes the lines starting in raw `[from, to)` of
/// `file`, reports on `port`, and ends the worker.
pub fn run(file: web_sys::File, from: u64, to: u64, options: OpenOptions, port: MessagePort) {
    wasm_bindgen_futures::spawn_local(run_async(file, from, to, options, port));
}

async fn run_async(
    file: web_sys::File,
    from: u64,
    to: u64,
    options: OpenOptions,
    port: MessagePort,
) {
    let started = now();
    match index_range(file, from, to, options, &port).await {
        Ok((bytes, stats)) => send(
            &port,
            &RangeMsg::Done {
                stats: Box::new(stats),
            },
            Some(&bytes),
        ),
        Err(message) => send(&port, &RangeMsg::Failed { message }, None),
    }
    super::timing::measure("index range", started);
    super::read_ahead::log_totals("range indexed");
    port.close();
    // Its work is done and its memory is better returned now.
    js_sys::global()
        .unchecked_into::<DedicatedWorkerGlobalScope>()
        .close();
}

async fn index_range(
    file: web_sys::File,
    from: u64,
    to: u64,
    options: OpenOptions,
    port: &MessagePort,
) -> Result<(Vec<u8>, Stats), String> {
    let mut source = BlobSource::new(file.into())
        .map_err(|e| e.to_string())?
        .with_read_ahead();
    source.read_ahead_from(from);
    let opts = IndexOptions {
        parse: super::worker::parse_options(options),
        ..IndexOptions::default()
    };
    let dialect = dialect_of(&mut source, &opts).map_err(|e| e.to_string())?;
    let mut job = RangeJob::new(&mut source, opts, dialect, from, to).map_err(|e| e.to_string())?;
    let mut last = now();
    let ahead = source.read_ahead();
    loop {
        if let Some(a) = &ahead {
            a.next_read_of_ready(job.next_read_len()).await;
        }
        if job
            .step(&mut source, STEP_BYTES)
            .map_err(|e| e.to_string())?
        {
            break;
        }
        if options.crash == Some(super::protocol::CrashTest::RangeWorker) {
            panic!("crash test: a panic in a range worker (?crash=range-worker)");
        }
        if now() - last >= PROGRESS_MS {
            last = now();
            send(
                port,
                &RangeMsg::Progress {
                    done: job.done_bytes(),
                },
                None,
            );
        }
    }
    let (index, stats) = job.finish();
    Ok((index.to_bytes(), stats))
}

/// The trace generation to split, and into how many parts.
type Deferred = (u32, usize);

thread_local! {
    /// A split to make once the first answer is out.
    static TO_SPLIT: RefCell<Option<Deferred>> = const { RefCell::new(None) };
}

/// In the session's worker: the trace opened as `generation` is to be
/// indexed in `parts` ranges, the others by other workers. The split and the
/// ask for those workers wait for [`ask_for_ranges`]: once the page shows
/// the first rows, so that finding the split points (a read at each, 5-16
/// ms) and the workers' indexing do not compete with drawing them.
pub fn defer_split(generation: u32, parts: usize) {
    TO_SPLIT.with(|t| *t.borrow_mut() = (parts > 1).then_some((generation, parts)));
}

/// Whether a split waits for [`ask_for_ranges`].
pub fn split_pending() -> bool {
    TO_SPLIT.with(|t| t.borrow().is_some())
}

/// Splits the trace as deferred and asks the page for the ranges' workers,
/// once: when the page shows the first rows, or soon after opening if it
/// does not say. Not
/// from inside a use of the session (it is used here).
pub fn ask_for_ranges() {
    let Some((generation, parts)) = TO_SPLIT.with(|t| t.borrow_mut().take()) else {
        return;
    };
    let started = super::timing::now();
    let mut ranges = Vec::new();
    super::worker::with_session(generation, |s| {
        ranges = s.split_indexing(parts).unwrap_or_default();
    });
    super::timing::measure("split", started);
    if !ranges.is_empty() {
        super::worker::post(&super::protocol::ToPage::IndexRanges { ranges });
    }
}

/// A port the session's worker listens on, and its handler.
type Listener = (MessagePort, Closure<dyn FnMut(MessageEvent)>);

thread_local! {
    /// The session worker's port handlers (of trace generation `.0`),
    /// dropped with the next trace.
    static LISTENING: RefCell<(u32, Vec<Listener>)> = const { RefCell::new((0, Vec::new())) };
}

/// In the session's worker: what arrives on `port` is part `part` of the
/// trace opened as `generation`.
pub fn listen(generation: u32, part: u32, port: MessagePort) {
    let part_no = part as usize;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let parts: js_sys::Array = e.data().unchecked_into();
        let msg = parts
            .get(0)
            .as_string()
            .ok_or_else(|| "not text".to_string())
            .and_then(|t| serde_json::from_str::<RangeMsg>(&t).map_err(|e| e.to_string()));
        super::worker::with_session(generation, |session| match msg {
            Ok(RangeMsg::Progress { done }) => session.range_progress(part_no, done),
            Ok(RangeMsg::Done { stats }) => {
                let bytes = js_sys::Uint8Array::new(&parts.get(1)).to_vec();
                session.take_range(part_no, &bytes, *stats);
            }
            Ok(RangeMsg::Failed { message }) => {
                web_sys::console::warn_1(
                    &format!("tarmac-lens: range {part} indexed here instead: {message}").into(),
                );
                session.range_failed(part_no);
            }
            Err(e) => {
                web_sys::console::warn_1(
                    &format!("tarmac-lens: unreadable message for range {part}: {e}").into(),
                );
                session.range_failed(part_no);
            }
        });
        super::worker::ranges_changed(generation);
    });
    port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    LISTENING.with(|l| {
        let mut l = l.borrow_mut();
        if l.0 != generation {
            for (port, _) in l.1.drain(..) {
                port.set_onmessage(None);
                port.close();
            }
            l.0 = generation;
        }
        l.1.push((port, on_message));
    });
}

/// A digest of a finished session's index and statistics (FNV-1a, 64
/// bits): equal digests for indexes built in one worker or in several.
pub fn digest<S: TraceSource>(session: &tarmac_lens_core::browse::Session<S>) -> Option<String> {
    let bytes = session.save(tarmac_lens_core::index::TraceIdentity { len: 0, mtime: 0 })?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in &bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    Some(format!("{h:016x}-{}", bytes.len()))
}
