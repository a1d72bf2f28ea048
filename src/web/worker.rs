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

use tarmac_lens_core::browse::Session;
use tarmac_lens_core::index::TraceIdentity;
use tarmac_lens_core::parse::ParseOptions;
use tarmac_lens_core::source::TraceSource;
use tarmac_lens_core::stats::compute;
use tarmac_lens_core::Error;

use super::blob_source::BlobSource;
use super::http_source::{self, Fetched, Target};
use super::index_cache;
use super::protocol::{decode, encode, CrashTest, OpenOptions, Reading, ToPage, ToWorker};
use super::read_ahead::SharedReadAhead;
use tarmac_lens_core::block_cache::BlockCache;

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
pub(super) const STEP_BYTES: u64 = 256 << 10;
/// Time one task indexes for before yielding, so a query waits at most
/// about this long (and the first screenful comes after the first slice).
const TASK_MS: f64 = 8.0;
/// The first step: enough lines for a screenful, from the first read alone,
/// so the first rows are answered as soon as possible.
const FIRST_STEP_BYTES: u64 = 32 << 10;

struct Open {
    session: Session<Box<dyn TraceSource>>,
    big_endian: bool,
    /// Where to save the finished index (dropped files only: a URL has no
    /// trustworthy modification time).
    cache: Option<(String, TraceIdentity)>,
    /// A `?crash=` test hook: fail this way at the next indexing step.
    crash: Option<CrashTest>,
    /// Post the finished index's digest (`?digest=1`).
    digest: bool,
    /// The read-ahead of the session's source, if it has one: indexing
    /// waits for slices on their way rather than read them again.
    ahead: Option<SharedReadAhead>,
}

thread_local! {
    static OPEN: RefCell<Option<Open>> = const { RefCell::new(None) };
    /// Bumped per opened file, so steps of an abandoned file stop.
    static GENERATION: Cell<u32> = const { Cell::new(0) };
    static LAST_PROGRESS: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
    /// The channel `schedule_step` posts to.
    static TICK: RefCell<Option<web_sys::MessageChannel>> = const { RefCell::new(None) };
    /// While a trace is being opened (the index cache and URLs are
    /// asynchronous), the page's questions wait here, in order.
    static WAITING: RefCell<Option<Vec<ToWorker>>> = const { RefCell::new(None) };
    /// Indexing waits for a range from another worker: no step is queued.
    static PAUSED: Cell<bool> = const { Cell::new(false) };
    /// When the page last asked a question (`now()`), so that saving the
    /// index waits for a pause in the person's stepping.
    static LAST_ASK: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
    /// When the open trace was installed (`now()`).
    static OPENED_AT: Cell<f64> = const { Cell::new(0.0) };
    /// Indexing held after the first step for the first screen (see
    /// [`FIRST_SCREEN_MS`]): the generation to resume.
    static HELD: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The longest indexing is held, after the first step, for the page to
/// show the first rows ([`ToWorker::Shown`]). On two cores the page's
/// thread that draws them shares the machine with this worker, its file
/// reader and the browser reading the file: with indexing going on, the
/// first rows of a 1 GB trace came 40-127 ms after the drop (median 80 of
/// 12 drops); held, 47-66 (median 57 of 8), and with a range worker too
/// (whose split waits as well) 48-60 (Chromium trace spans). Held once per
/// trace, so a page that never says (no view) loses this much indexing
/// time once.
const FIRST_SCREEN_MS: f64 = 100.0;

/// How long a deferred split waits for the page to show the first rows: at the
/// fastest indexing this is some tens of megabytes, and ranges are at least
/// 64 MiB.
const SPLIT_BY_MS: f64 = 150.0;

/// How long the page must have asked nothing before the index is saved or
/// the next piece of it written. Saving a 1 GB trace's index (encoding
/// 28 MB, then writing it) right at `ready` took the second core from the
/// first keys, whose answers then waited: 30-50 ms for the first step.
const QUIET_MS: f64 = 400.0;

/// Entries of the index encoded per task when saving it: a few
/// milliseconds' work (a 10 GB trace's index took a quarter of a second
/// in one).
const SAVE_STEP: usize = 200_000;

/// Resolves once the page has been quiet for [`QUIET_MS`], and never in
/// the task it was called from.
async fn quiet() {
    loop {
        let since = now() - LAST_ASK.with(Cell::get);
        let wait = if since >= QUIET_MS {
            0.0
        } else {
            QUIET_MS - since
        };
        super::timing::sleep(wait).await;
        if now() - LAST_ASK.with(Cell::get) >= QUIET_MS {
            return;
        }
    }
}

/// Installs the message handler and tells the page it may send work.
pub fn start_worker() {
    super::csp::watch();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        match decode::<ToWorker>(event.data()) {
            Ok(msg) => handle(msg),
            Err(e) => post(&ToPage::Failed {
                message: format!("unexpected message from the page: {e}"),
            }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let name = scope().name();
    // Session and range workers read their file ahead through a nested
    // reader: started now, it is ready when a file comes; a session's also
    // makes its buffers now (range workers, one per core, only index files
    // of 128 MiB and more, whose reading reuses its buffers anyway).
    if name != super::diff_worker::WORKER_NAME && name != super::report_worker::WORKER_NAME {
        super::read_ahead::start_spare_reader(name != super::range_worker::WORKER_NAME);
    }
    // A range worker answers no query and keeps no index.
    if name != super::range_worker::WORKER_NAME && name != super::diff_worker::WORKER_NAME {
        // First, so V8's optimising compile of the indexing loops (in the
        // background, 100-200 ms) starts as early as it can.
        let started = now();
        if let Err(e) = super::warmup::tier_up() {
            web_sys::console::warn_1(&format!("tarmac-lens worker: tier-up failed: {e}").into());
        }
        super::timing::measure("tier-up", started);
        let started = now();
        if let Err(e) = super::warmup::warm_up() {
            web_sys::console::warn_1(&format!("tarmac-lens worker: warm-up failed: {e}").into());
        }
        super::timing::measure("warm-up", started);
        // V8 compiles `handle` (with what it inlines) on its first call,
        // which took 10-17 ms here and was the drop's `Open`: a message that
        // does nothing without a trace open compiles it now.
        handle(ToWorker::RangeFailed { part: 0 });
        wasm_bindgen_futures::spawn_local(index_cache::prepare());
    }
    post(&ToPage::Ready);
}

fn handle(msg: ToWorker) {
    match msg {
        ToWorker::Index { file } => index(file),
        ToWorker::Open { file, options } => open(file, options),
        ToWorker::OpenUrl {
            url,
            cross_origin,
            options,
        } => open_url(Target { url, cross_origin }, options),
        ToWorker::IndexRange {
            file,
            from,
            to,
            options,
            port,
            ..
        } => super::range_worker::run(file, from, to, options, port),
        ToWorker::Report(request) => super::report_worker::handle(request),
        ToWorker::Diff { a, b, options, max } => super::diff_worker::run(a, b, options, max),
        // Questions about a trace still opening wait for it.
        other => {
            let now = WAITING.with(|w| match w.borrow_mut().as_mut() {
                Some(queue) => {
                    queue.push(other);
                    None
                }
                None => Some(other),
            });
            if let Some(msg) = now {
                answer(msg);
            }
        }
    }
}

/// Handles a message about the open trace.
fn answer(msg: ToWorker) {
    match msg {
        ToWorker::LoadElf { file, load_offset } => load_elf(file, load_offset),
        ToWorker::LoadElfUrl {
            url,
            cross_origin,
            load_offset,
        } => load_elf_url(Target { url, cross_origin }, load_offset),
        ToWorker::RangePort { part, port } => {
            super::range_worker::listen(GENERATION.with(Cell::get), part, port)
        }
        ToWorker::RangeFailed { part } => {
            let generation = GENERATION.with(Cell::get);
            with_session(generation, |s| s.range_failed(part as usize));
            ranges_changed(generation);
        }
        ToWorker::Shown => {
            super::timing::measure("first rows shown", now());
            super::range_worker::ask_for_ranges();
            resume_held();
        }
        ToWorker::Ask { asks } => {
            LAST_ASK.with(|l| l.set(now()));
            let mut answers = Vec::with_capacity(asks.len());
            for (id, query) in asks {
                let started = now();
                let name = query_name(&query);
                // Still borrowed: an earlier call trapped (a failed allocation)
                // inside it, and the page has been told.
                let Some(reply) = OPEN.with(|o| {
                    let mut open = o.try_borrow_mut().ok()?;
                    Some(match open.as_mut() {
                        Some(open) => open.session.answer(query),
                        None => tarmac_lens_core::browse::protocol::Reply::Error(
                            "no trace is open".into(),
                        ),
                    })
                }) else {
                    return;
                };
                answers.push((id, reply));
                super::timing::measure(name, started);
            }
            post(&ToPage::Answer { answers });
        }
        other => handle(other),
    }
}

/// Minimum gap between progress messages. Each one re-renders the page (the
/// scrollbar grows with the indexed lines), and the page's rendering,
/// compositing and painting compete with indexing for the cores: at 20 a
/// second they took 15% of a core on a two-core machine (Chrome trace of the
/// first 3 s of a 1 GB trace); going from 10 to 4 a second made one worker
/// index a 1 GB trace 7-40% faster in three alternated pairs of runs, with
/// 7-34% less CPU over all of Chromium.
const PROGRESS_INTERVAL_MS: f64 = 250.0;

use super::timing::now;

/// The span name of a query, for [`super::timing::measure`].
fn query_name(query: &tarmac_lens_core::browse::protocol::Query) -> &'static str {
    use tarmac_lens_core::browse::protocol::Query;
    match query {
        Query::Rows { .. } => "answer rows",
        Query::Locate(_) => "answer locate",
        Query::Registers { .. } => "answer registers",
        Query::Memory { .. } => "answer memory",
        Query::Step { .. } => "answer step",
        Query::Timeline { .. } => "answer timeline",
        Query::Events { .. } | Query::EventRank { .. } | Query::NextEvent { .. } => "answer events",
        Query::CallStack { .. } => "answer stack",
        Query::Search(_) => "answer search",
        _ => "answer query",
    }
}

fn index(file: web_sys::File) {
    let total = file.size() as u64;
    let source = match BlobSource::new(file.into()) {
        Ok(s) => BlockCache::new(s),
        Err(e) => {
            post(&ToPage::Failed {
                message: e.to_string(),
            });
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
        Err(e) => post(&ToPage::Failed {
            message: e.to_string(),
        }),
    }
}

pub(super) fn parse_options(options: OpenOptions) -> ParseOptions {
    ParseOptions {
        implicit_thumb: options.implicit_thumb,
        big_endian: options.big_endian,
        cpu: options.cpu,
        ..ParseOptions::default()
    }
}

/// Starts opening a trace: questions wait until it is open. Returns the
/// new trace's generation.
fn begin_opening() -> u32 {
    WAITING.with(|w| w.borrow_mut().get_or_insert_with(Vec::new).clear());
    OPEN.with(|o| *o.borrow_mut() = None);
    HELD.with(|h| h.set(None));
    GENERATION.with(|g| {
        g.set(g.get() + 1);
        g.get()
    })
}

pub(super) fn is_current(generation: u32) -> bool {
    GENERATION.with(|g| g.get()) == generation
}

/// The trace is open (or could not be): answer what waited.
fn finish_opening() {
    let waiting = WAITING.with(|w| w.borrow_mut().take()).unwrap_or_default();
    for msg in waiting {
        answer(msg);
    }
}

fn fail_opening(message: String) {
    post(&ToPage::Failed { message });
    finish_opening();
}

/// A session's source over a `Blob`: read through a block cache (for
/// queries), with read-ahead (for indexing and search); `indexing`: about
/// to be indexed from its start, so the first slice is asked for at once.
fn blob_source(
    blob: web_sys::Blob,
    indexing: bool,
) -> Result<(Box<dyn TraceSource>, Option<SharedReadAhead>), Error> {
    let source = BlobSource::new(blob)?.with_read_ahead();
    if indexing {
        source.read_ahead_from(0);
    }
    let ahead = source.read_ahead();
    Ok((Box::new(BlockCache::new(source)), ahead))
}

fn install(
    generation: u32,
    (mut session, ahead): (Session<Box<dyn TraceSource>>, Option<SharedReadAhead>),
    options: OpenOptions,
    cache: Option<(String, TraceIdentity)>,
    reading: Reading,
) {
    post(&ToPage::Opened {
        bytes: session.progress().total_bytes,
        reading,
        kind: session.file_kind().clone(),
    });
    if let Some(budget) = options.index_budget {
        session.set_index_budget(usize::try_from(budget).unwrap_or(usize::MAX));
    }
    OPEN.with(|o| {
        *o.borrow_mut() = Some(Open {
            session,
            big_endian: options.big_endian,
            cache,
            crash: options.crash,
            digest: options.digest,
            ahead,
        })
    });
    PAUSED.with(|p| p.set(false));
    LAST_PROGRESS.with(|l| l.set(f64::NEG_INFINITY));
    OPENED_AT.with(|o| o.set(now()));
    // The first step runs now, so the first screenful is there at once
    // (a restored index is complete at once); then the questions that
    // waited, which it may have made answerable.
    step(generation);
    finish_opening();
}

fn open(file: web_sys::File, options: OpenOptions) {
    let generation = begin_opening();
    let parse = parse_options(options);
    let id = TraceIdentity {
        len: file.size() as u64,
        mtime: file.last_modified() as u64,
    };
    let mut key = index_cache::key(&file.name(), id.len, id.mtime);
    // Each core of a multi-core trace has an index of its own.
    if let Some(cpu) = parse.cpu {
        key = format!("{}.{}", cpu, key);
    }
    // A file without a modification time (made from a buffer) cannot be
    // told from another of the same name and size: it is never cached.
    let cacheable = id.mtime != 0;
    wasm_bindgen_futures::spawn_local(async move {
        let started = now();
        let lookup = if cacheable {
            index_cache::read(&key).await
        } else {
            Ok(None)
        };
        super::timing::measure("index cache lookup", started);
        let cached = match lookup {
            Ok(c) => c,
            Err(e) => {
                // No cache (private mode, no OPFS): index as always.
                web_sys::console::warn_1(&format!("tarmac-lens: index cache: {e}").into());
                None
            }
        };
        if !is_current(generation) {
            return;
        }
        if let Some(bytes) = cached {
            let started = now();
            let restored = blob_source(file.clone().into(), false)
                .map_err(|e| e.to_string())
                .and_then(|(s, ahead)| {
                    let restored = Session::restore(s, &bytes, id, parse);
                    Ok((restored.map_err(|e| e.to_string())?, ahead))
                });
            super::timing::measure("restore session", started);
            match restored {
                Ok(opened) => {
                    return install(generation, opened, options, None, Reading::CachedIndex)
                }
                Err(e) => {
                    web_sys::console::warn_1(
                        &format!("tarmac-lens: cached index not used: {e}").into(),
                    );
                    let _ = index_cache::remove(&key).await;
                }
            }
        }
        let started = now();
        let opened = blob_source(file.into(), true)
            .and_then(|(s, ahead)| Ok((Session::open(s, parse)?, ahead)));
        super::timing::measure("open session", started);
        match opened {
            Ok(opened) => {
                // Other workers index the rest, if the page has them.
                super::range_worker::defer_split(generation, options.workers as usize);
                install(
                    generation,
                    opened,
                    options,
                    cacheable.then_some((key, id)),
                    Reading::File,
                );
            }
            Err(e) => fail_opening(e.to_string()),
        }
    });
}

fn open_url(target: Target, options: OpenOptions) {
    let generation = begin_opening();
    let parse = parse_options(options);
    wasm_bindgen_futures::spawn_local(async move {
        let fetched = http_source::fetch(&target, move |done, total| {
            if is_current(generation) {
                post(&ToPage::Downloading { done, total });
            }
        })
        .await;
        if !is_current(generation) {
            return;
        }
        let ((mut source, ahead), reading) = match fetched {
            // Each read is a request: the questions of one step, which
            // replay the same interval, share the blocks read for the first.
            Ok(Fetched::Ranges(s)) => (
                (Box::new(BlockCache::new(s)) as Box<dyn TraceSource>, None),
                Reading::Ranges,
            ),
            Ok(Fetched::Whole(blob)) => {
                // The page hands it to the report worker, which would
                // otherwise download the trace again.
                if let Err(e) = scope().post_message(&blob) {
                    web_sys::console::error_2(&"tarmac-lens worker: postMessage failed".into(), &e);
                }
                match blob_source(blob, true) {
                    Ok(s) => (s, Reading::Downloaded),
                    Err(e) => return fail_opening(e.to_string()),
                }
            }
            Err(e) => return fail_opening(e),
        };
        // A server may answer with anything (an HTML page for a wrong
        // path): refuse what is not a trace rather than list every line
        // as unparsed.
        match tarmac_lens_core::source::read_sample(&mut source) {
            Ok(sample) => {
                let kind = tarmac_lens_core::sniff::identify(&sample, source.len(), parse);
                if let Some(problem) = kind.problem(&target.url) {
                    return fail_opening(problem);
                }
            }
            Err(e) => return fail_opening(e.to_string()),
        }
        match Session::open(source, parse) {
            Ok(session) => install(generation, (session, ahead), options, None, reading),
            Err(e) => fail_opening(e.to_string()),
        }
    });
}

/// Resumes indexing held for the first screen, if it is.
fn resume_held() {
    if let Some(generation) = HELD.with(Cell::take) {
        if is_current(generation) {
            if let Err(e) = schedule_step(generation) {
                post(&ToPage::Failed {
                    message: format!("cannot schedule indexing in the worker: {e}"),
                });
            }
        }
    }
}

/// Holds indexing until the page shows the first rows, or for
/// [`FIRST_SCREEN_MS`] at most.
fn hold_for_first_screen(generation: u32) {
    HELD.with(|h| h.set(Some(generation)));
    wasm_bindgen_futures::spawn_local(async move {
        super::timing::sleep(FIRST_SCREEN_MS).await;
        if HELD.with(Cell::get) == Some(generation) {
            resume_held();
        }
    });
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
    // Bytes still on their way from the file: wait for them, answering
    // questions meanwhile, rather than read them again synchronously (which
    // blocks this worker and spends the browser's time twice).
    let ahead = OPEN.with(|o| o.borrow().as_ref().and_then(|open| open.ahead.clone()));
    // The next read's length: a short one (the first screenful's) is read
    // at once, whatever is on its way.
    let would_wait = |session: &Session<Box<dyn TraceSource>>| {
        ahead
            .as_ref()
            .is_some_and(|a| a.would_wait_for(session.next_read_len()))
    };
    // Nothing is indexed while waiting, so the next read stays this long.
    let waiting_for = OPEN.with(|o| {
        o.borrow()
            .as_ref()
            .filter(|open| would_wait(&open.session))
            .map(|open| open.session.next_read_len())
    });
    if let Some((a, len)) = ahead.clone().zip(waiting_for) {
        wasm_bindgen_futures::spawn_local(async move {
            let waited = now();
            a.next_read_of_ready(len).await;
            // Indexing idle for want of bytes: the read-ahead not keeping up.
            super::timing::measure("wait for bytes", waited);
            if let Err(e) = schedule_step(generation) {
                post(&ToPage::Failed {
                    message: format!("cannot schedule indexing in the worker: {e}"),
                });
            }
        });
        return;
    }
    let started = now();
    let mut first = false;
    let result = OPEN.with(|o| {
        o.borrow_mut().as_mut().map(|open| {
            // The first slice alone, so the first screenful can be asked for
            // at once; then slices until the task's time is up.
            first = open.session.progress().done_bytes == 0;
            let mut p =
                open.session
                    .index_step(if first { FIRST_STEP_BYTES } else { STEP_BYTES })?;
            if let Some(crash) = open.crash {
                crash_on_purpose(crash);
            }
            while !first
                && !p.complete
                && p.stopped.is_none()
                && !open.session.waiting_for_range()
                && now() - started < TASK_MS
                && !would_wait(&open.session)
            {
                p = open.session.index_step(STEP_BYTES)?;
            }
            if p.complete && open.digest {
                open.digest = false;
                if let Some(digest) = super::range_worker::digest(&open.session) {
                    let r = open.session.range_report().unwrap_or_default();
                    post(&ToPage::IndexDigest {
                        digest,
                        ranges: r.ranges as u32,
                        joined: r.joined as u32,
                    });
                }
            }
            if open.session.waiting_for_range() {
                // The ranges were asked for when split.
                PAUSED.with(|p| p.set(true));
            }
            let cache = if p.complete { open.cache.take() } else { None };
            if p.complete || p.stopped.is_some() {
                // Indexing's reading is over (done, or stopped at the
                // memory budget): the readers' buffers are not needed to
                // browse.
                if let Some(ahead) = &open.ahead {
                    ahead.borrow_mut().stop_reader();
                }
                super::read_ahead::stop_spare_reader();
            }
            Ok::<_, Error>((p, open.session.stats().cloned(), cache))
        })
    });
    super::timing::measure("index step", started);
    // The page has not said it shows the first rows (no view): split anyway,
    // well before the session could pass the first split point.
    if super::range_worker::split_pending() && now() - OPENED_AT.with(Cell::get) > SPLIT_BY_MS {
        super::range_worker::ask_for_ranges();
    }
    let Some(result) = result else { return };
    match result {
        Ok((progress, stats, cache)) => {
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
                super::read_ahead::log_totals("indexed");
                if let Some(stats) = stats {
                    post(&ToPage::Finished {
                        stats: Box::new(stats),
                    });
                }
                if let Some((key, id)) = cache {
                    wasm_bindgen_futures::spawn_local(save_index(generation, key, id));
                }
                return;
            }
            if PAUSED.with(Cell::get) {
                // Resumed by `ranges_changed` when a range arrives.
                return;
            }
            if first {
                // Resumed by `ToWorker::Shown`, or after a while.
                hold_for_first_screen(generation);
                return;
            }
            if let Err(e) = schedule_step(generation) {
                post(&ToPage::Failed {
                    message: format!("cannot schedule indexing in the worker: {e}"),
                });
            }
        }
        Err(e) => post(&ToPage::Failed {
            message: e.to_string(),
        }),
    }
}

/// Saves the finished index of the trace opened as `generation` in the
/// index cache, while the page is not asking questions: each piece encoded
/// and each 1 MiB written waits for [`quiet`]. The pieces go to the file as
/// they are encoded, so the whole encoding (470 MB for a 10 GB trace) is
/// never in memory beside the index.
async fn save_index(generation: u32, key: String, id: TraceIdentity) {
    quiet().await;
    let mut saving = None;
    with_session(generation, |s| saving = s.save_start(id));
    let Some(mut saving) = saving else { return };
    let mut file = match index_cache::create(&key).await {
        Ok(f) => f,
        Err(e) => return warn_not_cached(&e),
    };
    // `Ok(false)`: the trace was closed or replaced meanwhile.
    let saved: Result<bool, String> = async {
        loop {
            let mut done = None;
            let started = now();
            with_session(generation, |s| done = s.save_step(&mut saving, SAVE_STEP));
            super::timing::measure("encode index piece", started);
            let Some(done) = done else { return Ok(false) };
            file.append(&saving.take_output(), quiet).await?;
            if done {
                return Ok(true);
            }
            quiet().await;
        }
    }
    .await;
    match saved {
        Ok(true) => match file.finish().await {
            Ok(()) => {
                if let Err(e) = index_cache::trim().await {
                    web_sys::console::warn_1(&format!("tarmac-lens: index cache: {e}").into());
                }
                post(&ToPage::IndexCached)
            }
            Err(e) => warn_not_cached(&e),
        },
        Ok(false) => file.abandon().await,
        Err(e) => {
            file.abandon().await;
            warn_not_cached(&e)
        }
    }
}

/// Not fatal: the trace is indexed; only the next opening will index it
/// again.
fn warn_not_cached(e: &str) {
    web_sys::console::warn_1(&format!("tarmac-lens: cannot cache the index: {e}").into())
}

/// Runs `f` on the session of the trace opened as `generation`, if open.
pub(super) fn with_session(generation: u32, f: impl FnOnce(&mut Session<Box<dyn TraceSource>>)) {
    if !is_current(generation) {
        return;
    }
    OPEN.with(|o| {
        if let Ok(mut open) = o.try_borrow_mut() {
            if let Some(open) = open.as_mut() {
                f(&mut open.session);
            }
        }
    });
}

/// A range arrived, failed or progressed: indexing resumes if it waited
/// (the step also posts the progress).
pub(super) fn ranges_changed(generation: u32) {
    if is_current(generation) && PAUSED.with(|p| p.replace(false)) {
        if let Err(e) = schedule_step(generation) {
            post(&ToPage::Failed {
                message: format!("cannot schedule indexing in the worker: {e}"),
            });
        }
    }
}

fn load_elf(file: web_sys::File, load_offset: i64) {
    let name = file.name();
    match BlobSource::read_whole(file.into()) {
        Ok(b) => load_elf_bytes(&name, &b, load_offset),
        Err(e) => post(&ToPage::ElfFailed {
            message: format!("{name}: {e}"),
        }),
    }
}

fn load_elf_url(target: Target, load_offset: i64) {
    match http_source::get_all(&target) {
        Ok(b) => load_elf_bytes(&target.url, &b, load_offset),
        Err(e) => post(&ToPage::ElfFailed { message: e }),
    }
}

fn load_elf_bytes(name: &str, bytes: &[u8], load_offset: i64) {
    let result = OPEN.with(|o| match o.borrow_mut().as_mut() {
        Some(open) => {
            let be = open.big_endian;
            open.session
                .load_elf(bytes, load_offset, be)
                .map_err(|e| e.to_string())
        }
        None => Err("open a trace before its ELF image".into()),
    });
    match result {
        Ok((symbols, warning)) => post(&ToPage::ElfLoaded { symbols, warning }),
        Err(e) => post(&ToPage::ElfFailed {
            message: format!("{name}: {e}"),
        }),
    }
}

/// Fails the way a bug or an exhausted tab would (the `?crash=` test hooks).
fn crash_on_purpose(crash: CrashTest) {
    match crash {
        CrashTest::Panic => panic!("crash test: a panic in the worker (?crash=worker)"),
        // Range workers fail (`range_worker.rs`); the session carries on.
        CrashTest::RangeWorker => {}
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
