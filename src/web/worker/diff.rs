//! Trace comparison in the browser, worker side: a worker of its own
//! ([`Role::Diff`](crate::web::shared::role::Role::Diff), so it skips the
//! first-screen warm-up) reads both dropped `File`s in slices and runs
//! [`tarmac_lens_core::diff::diff_with_progress`], posting progress and then
//! the divergences found ([`DiffMsg`]). It holds no index: a comparison is
//! one pass, and the page browses the two traces with their own sessions.

use std::cell::RefCell;

use tarmac_lens_core::{diff::diff_with_progress, TraceSource};

use super::runtime::{parse_options, scope};
use crate::model::comparison::DiffMsg;
use crate::web::reading::blob_source::BlobSource;
use crate::web::reading::compressed::decompressed;
use crate::web::shared::protocol::OpenOptions;
use crate::web::shared::timing::now;

/// Least time between progress messages.
const PROGRESS_MS: f64 = 50.0;

fn post(msg: &DiffMsg) {
    match serde_json::to_string(msg) {
        Ok(text) => {
            if let Err(e) = scope().post_message(&text.into()) {
                web_sys::console::error_2(
                    &"tarmac-lens diff worker: postMessage failed".into(),
                    &e,
                );
            }
        }
        Err(e) => web_sys::console::error_1(&format!("tarmac-lens diff worker: {e}").into()),
    }
}

/// Compares `a` with `b` and reports to the page. The page ends the worker
/// when it no longer wants the answer, so this runs to the end in one task.
pub fn run(a: web_sys::File, b: web_sys::File, options: OpenOptions, max: u32) {
    let parse = parse_options(options);
    // A gzip or Zstandard trace is compared by its text.
    let open = |f: web_sys::File| -> tarmac_lens_core::Result<Box<dyn TraceSource>> {
        decompressed(Box::new(BlobSource::new(f.into())?), &RefCell::new(None))
    };
    let sources = open(a).and_then(|a| Ok((a, open(b)?)));
    let (a, b) = match sources {
        Ok(s) => s,
        Err(e) => {
            post(&DiffMsg::Failed {
                message: e.to_string(),
            });
            return;
        }
    };
    let max = max.max(1) as usize;
    let mut last = f64::NEG_INFINITY;
    let result = diff_with_progress(a, parse, b, parse, max, |done, total| {
        let t = now();
        if t - last >= PROGRESS_MS || done == total {
            last = t;
            post(&DiffMsg::Progress { done, total });
        }
    });
    match result {
        Ok(report) => post(&DiffMsg::Done {
            compared: report.compared,
            capped: report.divergences.len() >= max,
            divergences: report.divergences,
        }),
        Err(e) => post(&DiffMsg::Failed {
            message: e.to_string(),
        }),
    }
}
