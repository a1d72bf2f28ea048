//! The worker bin's side. The page starts every worker from the same file
//! and names its role ([`Role`]); [`start`] reads it once and sets the
//! worker up for it. The roles: [`session`] (browses one trace: owns the
//! `File` and a `browse::Session`, indexes in steps, answers questions),
//! [`range`] (indexes a byte range for a session worker), [`report`] (the
//! Reports panel's reports), [`diff`] (a trace comparison).
//!
//! Layers: this module starts a worker and routes the page's messages to
//! the roles; the roles use [`runtime`] (scope, `post`, the message loop,
//! what roles share) and [`range_port`] (the range → session messages),
//! never each other; [`warmup`] runs the indexing and answering paths once
//! at start.

use crate::web::reading::{index_cache, read_ahead};
use crate::web::shared::protocol::{ToPage, ToWorker};
use crate::web::shared::role::Role;
use crate::web::shared::timing::{measure, now};

pub mod diff;
pub mod range;
pub mod range_port;
pub mod report;
pub mod runtime;
pub mod session;
pub mod warmup;

/// Installs the message handler, prepares the worker for its role and
/// tells the page it may send work.
pub fn start() {
    runtime::install_panic_hook();
    crate::web::shared::csp::watch();
    runtime::listen(route);
    let name = runtime::scope().name();
    let role = Role::of_worker_name(&name);
    // Session and range workers read their file ahead through a nested
    // reader: started now, it is ready when a file comes; a session's also
    // makes its buffers now, unless it waits for the next trace (range
    // workers, one per core, only index files of 128 MiB and more, whose
    // reading reuses its buffers anyway).
    if matches!(role, Role::Session | Role::Range) {
        read_ahead::start_spare_reader(Role::prefaults_reader(&name));
    }
    // A range worker answers no query and keeps no index.
    if matches!(role, Role::Session | Role::Report) {
        // First, so V8's optimising compile of the indexing loops (in the
        // background, 100-200 ms) starts as early as it can.
        let started = now();
        if let Err(e) = warmup::tier_up() {
            web_sys::console::warn_1(&format!("tarmac-lens worker: tier-up failed: {e}").into());
        }
        measure("tier-up", started);
        let started = now();
        let sample = warmup::warm_up();
        measure("warm-up", started);
        // V8 compiles the message handler on its first call (10-17 ms, the
        // drop's `Open`): a message that does nothing without a trace open.
        runtime::dispatch(ToWorker::RangeFailed { part: 0 });
        match sample {
            // The page's rehearsal asks it next (`components::rehearsal`).
            Ok(sample) if role == Role::Session => session::keep_sample(sample),
            Ok(_) => {}
            Err(e) => {
                web_sys::console::warn_1(&format!("tarmac-lens worker: warm-up failed: {e}").into())
            }
        }
        wasm_bindgen_futures::spawn_local(index_cache::prepare());
    }
    runtime::post(&ToPage::Ready);
}

/// Each of the page's messages to the role it is for (whatever this
/// worker's role: the page sends each role only its own).
fn route(msg: ToWorker) {
    match msg {
        ToWorker::IndexRange {
            file,
            from,
            to,
            options,
            port,
            ..
        } => range::run(range::Input::File(file), from, to, options, port),
        ToWorker::IndexRangeUrl {
            url,
            cross_origin,
            from,
            to,
            options,
            port,
            ..
        } => range::run(
            range::Input::Url(crate::web::reading::url::Target { url, cross_origin }),
            from,
            to,
            options,
            port,
        ),
        ToWorker::Report(request) => report::handle(request),
        ToWorker::Diff { a, b, options, max } => diff::run(a, b, options, max),
        other => session::handle(other),
    }
}
