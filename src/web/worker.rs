//! The indexing worker: receives a `File`, streams it through the parser and
//! reports progress and the final [`Stats`](crate::stats::Stats).

use std::cell::Cell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::parse::ParseOptions;
use crate::stats::compute;

use super::blob_source::BlobSource;
use super::protocol::{decode, encode, ToPage, ToWorker};

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

/// Installs the message handler and tells the page it may send work.
pub fn start_worker() {
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        match decode::<ToWorker>(event.data()) {
            Ok(ToWorker::Index { file }) => index(file),
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

fn index(file: web_sys::File) {
    let total = file.size() as u64;
    let source = match BlobSource::new(file.into()) {
        Ok(s) => s,
        Err(e) => {
            post(&ToPage::Failed { message: e.0 });
            return;
        }
    };
    let performance = scope().performance();
    let now = move || performance.as_ref().map_or(0.0, |p| p.now());
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
