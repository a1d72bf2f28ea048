//! The session worker: owns the dropped `File` and everything computed from it.
//!
//! `Index` computes record statistics (the summary page). `Open` starts a
//! browsing [`Session`]: indexing runs in steps of a few megabytes, each
//! scheduled as its own task, so that queries from the page are answered
//! between steps — the trace can be browsed while it is still indexing.
//!
//! The worker's state is one `SessionWorker`, in one thread-local; its
//! indexing steps are in `indexing`, paced by `pacer`, saving the finished index in
//! `saving`, what it does with range workers in `ranges`, and how it opens
//! a gzip or Zstandard trace in place in `compressed`.

use std::cell::{Cell, RefCell};

use tarmac_lens_core::{
    compute_stats,
    protocol::{Query, Reply},
    BlockCache, ParseOptions, Session, TraceIdentity, TraceSource,
};

use super::runtime::{self, parse_options, post, scope};
use crate::web::reading::blob_source::BlobSource;
use crate::web::reading::compressed::{self as in_place, Shared};
use crate::web::reading::http_source::{self, Fetched, Target};
use crate::web::reading::index_cache;
use crate::web::reading::read_ahead::SharedReadAhead;
use crate::web::reading::session_source;
use crate::web::shared::protocol::{CrashTest, OpenOptions, PageEvent, Reading, ToPage, ToWorker};
use crate::web::shared::timing::{self, now};

mod compressed;
mod indexing;
mod pacer;
mod ranges;
mod saving;

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
    /// The finished index's digest (if asked for) and how its ranges
    /// joined were posted.
    reported: bool,
    /// The read-ahead of the session's source, if it has one: indexing
    /// waits for slices on their way rather than read them again.
    ahead: Option<SharedReadAhead>,
    /// A compressed trace's source, whose decompressor table is saved
    /// with the index.
    table: Option<Shared>,
}

/// Everything the session worker keeps between tasks: the open trace, its
/// indexing's schedule, the questions waiting for it to open, and its range
/// workers. Each part is borrowed on its own, as the tasks need them.
struct SessionWorker {
    open: RefCell<Option<Open>>,
    /// Bumped per opened file, so steps of an abandoned file stop.
    generation: Cell<u32>,
    /// The first-screen hold, read-ahead waits and progress throttling.
    pacer: pacer::Pacer,
    /// The channel `schedule_step` posts to.
    tick: RefCell<Option<web_sys::MessageChannel>>,
    /// While a trace is being opened (the index cache and URLs are
    /// asynchronous), the page's questions wait here, in order.
    waiting: RefCell<Option<Vec<ToWorker>>>,
    /// Indexing waits for a range from another worker: no step is queued.
    paused: Cell<bool>,
    /// When the page last asked a question (`now()`), so that saving the
    /// index waits for a pause in the person's stepping.
    last_ask: Cell<f64>,
    /// When the open trace was installed (`now()`).
    opened_at: Cell<f64>,
    /// A split to make once the first answer is out.
    to_split: RefCell<Option<ranges::Deferred>>,
    /// The port handlers (of trace generation `.0`), dropped with the next
    /// trace.
    listening: RefCell<(u32, Vec<ranges::Listener>)>,
    /// Ranges whose bytes came before the session reached them.
    arrived: RefCell<Vec<ranges::Arrived>>,
}

thread_local! {
    static WORKER: SessionWorker = const { SessionWorker::new() };
}

/// Runs `f` on this worker's [`SessionWorker`] (for tasks and handlers
/// that start outside it).
fn with<R>(f: impl FnOnce(&SessionWorker) -> R) -> R {
    WORKER.with(f)
}

/// Handles a message of the page's for the session (any but another
/// role's).
pub fn handle(msg: ToWorker) {
    with(|w| w.handle(msg))
}

/// Keeps the warm-up's session over the sample open until a trace comes:
/// the page's hidden rehearsal asks it (`components::rehearsal`).
pub fn keep_sample(session: Session<Box<dyn TraceSource>>) {
    with(|w| {
        let mut open = w.open.borrow_mut();
        if open.is_none() && w.waiting.borrow().is_none() {
            *open = Some(Open {
                session,
                big_endian: false,
                cache: None,
                crash: None,
                digest: false,
                reported: false,
                ahead: None,
                table: None,
            });
        }
    })
}

impl SessionWorker {
    const fn new() -> SessionWorker {
        SessionWorker {
            open: RefCell::new(None),
            generation: Cell::new(0),
            pacer: pacer::Pacer::new(),
            tick: RefCell::new(None),
            waiting: RefCell::new(None),
            paused: Cell::new(false),
            last_ask: Cell::new(f64::NEG_INFINITY),
            opened_at: Cell::new(0.0),
            to_split: RefCell::new(None),
            listening: RefCell::new((0, Vec::new())),
            arrived: RefCell::new(Vec::new()),
        }
    }

    fn handle(&self, msg: ToWorker) {
        match msg {
            ToWorker::Index { file } => index(file),
            ToWorker::Open { file, options } => self.open(file, options),
            ToWorker::OpenUrl {
                url,
                cross_origin,
                options,
            } => self.open_url(Target { url, cross_origin }, options),
            // Questions about a trace still opening wait for it.
            other => {
                let now = match self.waiting.borrow_mut().as_mut() {
                    Some(queue) => {
                        queue.push(other);
                        None
                    }
                    None => Some(other),
                };
                if let Some(msg) = now {
                    self.answer(msg);
                }
            }
        }
    }

    /// Handles a message about the open trace.
    fn answer(&self, msg: ToWorker) {
        match msg {
            ToWorker::LoadElf { file, load_offset } => self.load_elf(file, load_offset),
            ToWorker::LoadElfUrl {
                url,
                cross_origin,
                load_offset,
            } => self.load_elf_url(Target { url, cross_origin }, load_offset),
            ToWorker::RangePort { part, port } => self.listen(self.generation.get(), part, port),
            ToWorker::RangeFailed { part } => {
                // As a range's own failure says (`ranges::listen`): the
                // range costs a worker's time again, which a person should
                // be able to find out. (Part 0 is the warm-up's.)
                if part > 0 {
                    web_sys::console::warn_1(
                        &format!("tarmac-lens: range {part}'s worker stopped; the range is indexed here instead")
                            .into(),
                    );
                }
                let generation = self.generation.get();
                self.with_session(generation, |s| s.range_failed(part as usize));
                self.ranges_changed(generation);
            }
            ToWorker::Shown => {
                timing::measure("first rows shown", now());
                self.ask_for_ranges();
                self.resume_held();
            }
            ToWorker::Ask { asks } => {
                self.last_ask.set(now());
                let mut answers = Vec::with_capacity(asks.len());
                for (id, query) in asks {
                    let started = now();
                    let name = query_name(&query);
                    // Still borrowed: an earlier call trapped (a failed allocation)
                    // inside it, and the page has been told.
                    let Some(reply) =
                        self.open
                            .try_borrow_mut()
                            .ok()
                            .map(|mut open| match open.as_mut() {
                                Some(open) => open.session.answer(query),
                                None => Reply::Error("no trace is open".into()),
                            })
                    else {
                        return;
                    };
                    answers.push((id, reply));
                    timing::measure(name, started);
                }
                post(&ToPage::Answer { answers });
            }
            other => runtime::dispatch(other),
        }
    }

    /// Starts opening a trace: questions wait until it is open. Returns the
    /// new trace's generation.
    fn begin_opening(&self) -> u32 {
        self.waiting
            .borrow_mut()
            .get_or_insert_with(Vec::new)
            .clear();
        *self.open.borrow_mut() = None;
        self.pacer.reset();
        self.generation.set(self.generation.get() + 1);
        self.generation.get()
    }

    fn is_current(&self, generation: u32) -> bool {
        self.generation.get() == generation
    }

    /// The trace is open (or could not be): answer what waited.
    fn finish_opening(&self) {
        let waiting = self.waiting.borrow_mut().take().unwrap_or_default();
        for msg in waiting {
            self.answer(msg);
        }
    }

    fn fail_opening(&self, message: String) {
        post(&ToPage::Failed { message });
        self.finish_opening();
    }

    fn install(
        &self,
        generation: u32,
        (mut session, ahead): (Session<Box<dyn TraceSource>>, Option<SharedReadAhead>),
        options: OpenOptions,
        cache: Option<(String, TraceIdentity)>,
        reading: Reading,
        table: Option<Shared>,
    ) {
        post(&ToPage::Event(PageEvent::Opened {
            bytes: session.progress().total_bytes,
            reading,
            kind: session.file_kind().clone(),
        }));
        if let Some(budget) = options.index_budget {
            session.set_index_budget(usize::try_from(budget).unwrap_or(usize::MAX));
        }
        *self.open.borrow_mut() = Some(Open {
            session,
            big_endian: options.big_endian,
            cache,
            crash: options.crash,
            digest: options.digest,
            reported: false,
            ahead,
            table,
        });
        self.paused.set(false);
        self.pacer.reset();
        self.opened_at.set(now());
        // The first step runs now, so the first screenful is there at once
        // (a restored index is complete at once); then the questions that
        // waited, which it may have made answerable.
        self.step(generation);
        self.finish_opening();
    }

    fn open(&self, file: web_sys::File, options: OpenOptions) {
        let generation = self.begin_opening();
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
            timing::measure("index cache lookup", started);
            let cached = match lookup {
                Ok(c) => c,
                Err(e) => {
                    // No cache (private mode, no OPFS): index as always.
                    web_sys::console::warn_1(&format!("tarmac-lens: index cache: {e}").into());
                    None
                }
            };
            if !with(|w| w.is_current(generation)) {
                return;
            }
            let format =
                BlobSource::new(file.clone().into()).and_then(|mut s| in_place::format_of(&mut s));
            match format {
                Ok(None) => {}
                Ok(Some(_)) => {
                    let cache = cacheable.then_some((key, id.mtime));
                    return compressed::open(generation, file.into(), options, cache, cached).await;
                }
                Err(e) => return with(|w| w.fail_opening(e.to_string())),
            }
            if let Some(bytes) = cached {
                let started = now();
                let restored = session_source(file.clone().into(), false)
                    .and_then(|(s, ahead)| Ok((Session::restore(s, &bytes, id, parse)?, ahead)))
                    .map_err(|e| e.to_string());
                timing::measure("restore session", started);
                match restored {
                    Ok(opened) => {
                        return with(|w| {
                            w.install(
                                generation,
                                opened,
                                options,
                                None,
                                Reading::CachedIndex,
                                None,
                            )
                        })
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
            let opened = session_source(file.into(), true)
                .and_then(|(s, ahead)| Ok((Session::open(s, parse)?, ahead)));
            timing::measure("open session", started);
            match opened {
                Ok(opened) => with(|w| {
                    // Other workers index the rest, if the page has them.
                    w.defer_split(generation, options.workers as usize);
                    w.install(
                        generation,
                        opened,
                        options,
                        cacheable.then_some((key, id)),
                        Reading::File,
                        None,
                    );
                }),
                Err(e) => with(|w| w.fail_opening(e.to_string())),
            }
        });
    }

    fn open_url(&self, target: Target, options: OpenOptions) {
        let generation = self.begin_opening();
        let parse = parse_options(options);
        wasm_bindgen_futures::spawn_local(async move {
            let fetched = http_source::fetch(&target, move |done, total| {
                if with(|w| w.is_current(generation)) {
                    post(&ToPage::Event(PageEvent::Downloading { done, total }));
                }
            })
            .await;
            if !with(|w| w.is_current(generation)) {
                return;
            }
            let fail_opening = |message: String| with(|w| w.fail_opening(message));
            let ((source, ahead), reading) = match fetched {
                // Each short read is a request: the questions of one step,
                // which replay the same interval, share the blocks read for
                // the first. Indexing reads slices ahead, but not through
                // a decompressor, which reads in steps of its own that would
                // find the slices' bytes still on their way and read them
                // again.
                Ok(Fetched::Ranges(mut s)) => {
                    let plain =
                        matches!(crate::web::reading::compressed::format_of(&mut s), Ok(None));
                    let s = if plain { s.with_read_ahead(0) } else { s };
                    let ahead = s.read_ahead();
                    (
                        (Box::new(BlockCache::new(s)) as Box<dyn TraceSource>, ahead),
                        Reading::Ranges,
                    )
                }
                Ok(Fetched::Whole(blob)) => {
                    // The page hands it to the report worker, which would
                    // otherwise download the trace again.
                    if let Err(e) = scope().post_message(&blob) {
                        web_sys::console::error_2(
                            &"tarmac-lens worker: postMessage failed".into(),
                            &e,
                        );
                    }
                    match session_source(blob, true) {
                        Ok(s) => (s, Reading::Downloaded),
                        Err(e) => return fail_opening(e.to_string()),
                    }
                }
                Err(e) => return fail_opening(e),
            };
            // A gzip or Zstandard trace is read in place, by ranges too.
            let (mut source, table) = match compressed::over(source, generation).await {
                Ok(Some(opened)) => opened,
                Ok(None) => return,
                Err(e) => return fail_opening(format!("{}: {e}", target.url)),
            };
            // The read-ahead is of compressed offsets, the session's reads
            // are not.
            let ahead = if table.is_some() { None } else { ahead };
            // A server may answer with anything (an HTML page for a wrong
            // path): refuse what is not a trace rather than list every line
            // as unparsed.
            match tarmac_lens_core::read_sample(&mut source) {
                Ok(sample) => {
                    let kind = tarmac_lens_core::identify(&sample, source.len(), parse);
                    if let Some(problem) = kind.problem(&target.url) {
                        return fail_opening(problem);
                    }
                }
                Err(e) => return fail_opening(e.to_string()),
            }
            // Other workers index ranges of a plain trace read by ranges
            // (each asks the server for its own).
            let parts = match (reading, &table) {
                (Reading::Ranges, None) => tarmac_lens_core::worker_count(
                    source.len(),
                    options.cores as usize,
                    options.workers,
                ),
                _ => 1,
            };
            match Session::open(source, parse) {
                Ok(session) => with(|w| {
                    w.defer_split(generation, parts);
                    w.install(generation, (session, ahead), options, None, reading, table)
                }),
                Err(e) => fail_opening(e.to_string()),
            }
        });
    }

    /// Runs `f` on the session of the trace opened as `generation`, if open.
    fn with_session(&self, generation: u32, f: impl FnOnce(&mut Session<Box<dyn TraceSource>>)) {
        if !self.is_current(generation) {
            return;
        }
        if let Ok(mut open) = self.open.try_borrow_mut() {
            if let Some(open) = open.as_mut() {
                f(&mut open.session);
            }
        }
    }

    fn load_elf(&self, file: web_sys::File, load_offset: i64) {
        let name = file.name();
        match BlobSource::read_whole(file.into()) {
            Ok(b) => self.load_elf_bytes(&name, &b, load_offset),
            Err(e) => post(&ToPage::Event(PageEvent::ElfFailed(format!(
                "{name}: {}",
                e
            )))),
        }
    }

    fn load_elf_url(&self, target: Target, load_offset: i64) {
        match http_source::get_all(&target) {
            Ok(b) => self.load_elf_bytes(&target.url, &b, load_offset),
            Err(e) => post(&ToPage::Event(PageEvent::ElfFailed(e))),
        }
    }

    fn load_elf_bytes(&self, name: &str, bytes: &[u8], load_offset: i64) {
        let result = match self.open.borrow_mut().as_mut() {
            Some(open) => {
                let be = open.big_endian;
                let loaded = open.session.load_elf(bytes, load_offset, be);
                // Unit headers only: line tables are read at a pane's
                // first question, so the rows never wait for DWARF.
                loaded.map(|(symbols, warning)| {
                    match open.session.load_debug_info(bytes.into(), load_offset) {
                        Ok(_) => (symbols, warning),
                        Err(e) => {
                            let dwarf = format!("no source lines: {e}");
                            let both = warning.map_or(dwarf.clone(), |w| format!("{w}; {dwarf}"));
                            (symbols, Some(both))
                        }
                    }
                })
            }
            None => Err(tarmac_lens_core::Error::Elf(
                "open a trace before its ELF image".into(),
            )),
        };
        match result {
            Ok((symbols, warning)) => {
                post(&ToPage::Event(PageEvent::ElfLoaded { symbols, warning }))
            }
            Err(e) => post(&ToPage::Event(PageEvent::ElfFailed(format!("{name}: {e}")))),
        }
    }
}

/// The span name of a query, for [`timing::measure`].
fn query_name(query: &Query) -> &'static str {
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
    let result = compute_stats(source, ParseOptions::default(), |done| {
        let t = now();
        if t - last.get() >= pacer::PROGRESS_INTERVAL_MS || done == total {
            last.set(t);
            post(&ToPage::Progress { done, total });
        }
    });
    match result {
        Ok(stats) => post(&ToPage::Event(PageEvent::Stats(Box::new(stats)))),
        Err(e) => post(&ToPage::Failed {
            message: e.to_string(),
        }),
    }
}

/// Fails the way a bug or an exhausted tab would (the `?crash=` test hooks).
fn crash_on_purpose(crash: CrashTest) {
    match crash {
        CrashTest::Panic => panic!("crash test: a panic in the worker (?crash=worker)"),
        // Range workers fail (`worker/range.rs`); the session carries on.
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
