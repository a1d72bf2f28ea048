//! Parallel indexing in the browser, worker side, without SharedArrayBuffer
//! (static hosts cannot make a page cross-origin isolated).
//!
//! A *range worker* ([`Role::Range`](crate::web::shared::role::Role::Range),
//! sent [`ToWorker::IndexRange`](crate::web::shared::protocol::ToWorker::IndexRange))
//! indexes one byte range of the dropped `File` (or of a URL's trace, by
//! byte ranges: `ToWorker::IndexRangeUrl`) with a [`RangeJob`] and
//! reports on a `MessagePort` that leads straight to the session's worker
//! ([`super::range_port`]): progress, then the partial index as
//! transferred `ArrayBuffer`s with its statistics. The session's worker
//! listens on those ports (`session::ranges`) and hands what arrives to its
//! [`tarmac_lens_core::Session`], which adopts ranges in order.

use web_sys::MessagePort;

use tarmac_lens_core::{dialect_of, IndexOptions, RangeJob, Stats};

use super::range_port::{send, RangeMsg};
use super::runtime::{parse_options, scope, RANGE_STEP_BYTES};
use crate::web::reading::blob_source::BlobSource;
use crate::web::reading::http_source::{self, Fetched, Target};
use crate::web::shared::protocol::{CrashTest, OpenOptions};
use crate::web::shared::timing::now;

/// Least time between progress messages.
const PROGRESS_MS: f64 = 50.0;

/// The trace a range worker reads.
pub enum Input {
    File(web_sys::File),
    /// On a server that serves byte ranges.
    Url(Target),
}

/// In a range worker: indexes the lines starting in raw `[from, to)` of
/// `input`, reports on `port`, and ends the worker.
pub fn run(input: Input, from: u64, to: u64, options: OpenOptions, port: MessagePort) {
    wasm_bindgen_futures::spawn_local(run_async(input, from, to, options, port));
}

async fn run_async(input: Input, from: u64, to: u64, options: OpenOptions, port: MessagePort) {
    let started = now();
    match index_range(input, from, to, options, &port).await {
        Ok((chunks, stats)) => send(
            &port,
            &RangeMsg::Done {
                stats: Box::new(stats),
            },
            &chunks,
        ),
        Err(message) => send(&port, &RangeMsg::Failed { message }, &js_sys::Array::new()),
    }
    crate::web::shared::timing::measure("index range", started);
    crate::web::reading::read_ahead::log_totals("range indexed");
    port.close();
    // Its work is done and its memory is better returned now.
    scope().close();
}

async fn index_range(
    input: Input,
    from: u64,
    to: u64,
    options: OpenOptions,
    port: &MessagePort,
) -> Result<(js_sys::Array, Stats), String> {
    match input {
        Input::File(file) => {
            let mut source = BlobSource::new(file.into())
                .map_err(|e| e.to_string())?
                .with_read_ahead();
            source.read_ahead_from(from);
            let ahead = source.read_ahead();
            index_source(&mut source, ahead, from, to, options, port).await
        }
        Input::Url(target) => match http_source::fetch(&target, |_, _| {}).await? {
            Fetched::Ranges(source) => {
                let mut source = source.with_read_ahead(from);
                let ahead = source.read_ahead();
                index_source(&mut source, ahead, from, to, options, port).await
            }
            Fetched::Whole(_) => Err(format!(
                "{}: the server no longer serves byte ranges",
                target.url
            )),
        },
    }
}

async fn index_source(
    source: &mut dyn tarmac_lens_core::TraceSource,
    ahead: Option<crate::web::reading::read_ahead::SharedReadAhead>,
    from: u64,
    to: u64,
    options: OpenOptions,
    port: &MessagePort,
) -> Result<(js_sys::Array, Stats), String> {
    let indexed = index_through(source, ahead.as_ref(), from, to, options, port).await;
    // The worker closes next, whatever happened: its nested reader ends
    // with it (stopped first, it kept the worker and its memory alive).
    if let Some(a) = &ahead {
        a.borrow_mut().leave_reader_to_close();
    }
    indexed
}

async fn index_through(
    source: &mut dyn tarmac_lens_core::TraceSource,
    ahead: Option<&crate::web::reading::read_ahead::SharedReadAhead>,
    from: u64,
    to: u64,
    options: OpenOptions,
    port: &MessagePort,
) -> Result<(js_sys::Array, Stats), String> {
    let opts = IndexOptions {
        parse: parse_options(options),
        ..IndexOptions::default()
    };
    let dialect = dialect_of(&mut *source, &opts).map_err(|e| e.to_string())?;
    let mut job =
        RangeJob::new(&mut *source, opts, dialect, from, to).map_err(|e| e.to_string())?;
    let mut last = now();
    loop {
        if let Some(a) = ahead {
            a.next_read_of_ready(job.next_read_len()).await;
        }
        if job
            .step(&mut *source, RANGE_STEP_BYTES)
            .map_err(|e| e.to_string())?
        {
            break;
        }
        if options.crash == Some(CrashTest::RangeWorker) {
            panic!("crash test: a panic in a range worker (?crash=range-worker)");
        }
        if now() - last >= PROGRESS_MS {
            last = now();
            send(
                port,
                &RangeMsg::Progress {
                    done: job.done_bytes(),
                },
                &js_sys::Array::new(),
            );
        }
    }
    let (index, stats) = job.finish();
    // Each piece the encoder hands on (a MiB, or a long run whole) becomes
    // a buffer of its own: the range never sits whole in wasm memory.
    let chunks = js_sys::Array::new();
    index.write(&mut |b| {
        chunks.push(&js_sys::Uint8Array::from(b).buffer());
    });
    Ok((chunks, stats))
}
