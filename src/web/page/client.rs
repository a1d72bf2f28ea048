//! Page side of a browsing session: starts the worker, sends it the `File`
//! once it is listening, and routes its answers to the callbacks that asked.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};

use super::spare::SpareWorker;
use crate::web::shared::protocol::{decode, encode, PageEvent, ToPage, ToWorker};
pub use crate::web::shared::protocol::{OpenOptions, Reading};
use crate::web::shared::report_protocol::ReportFile;
use crate::web::shared::role::Role;
use tarmac_lens_core::protocol::{Query, Reply};

/// Where Trunk puts the worker's loader (see index.html, `data-loader-shim`).
pub const WORKER_URL: &str = "./tarmac-lens-worker_loader.js";

/// The worker to start: [`WORKER_URL`] unless the page carries its own
/// (the single-file build, see `assets`).
pub fn worker_url() -> String {
    super::assets::url("worker", WORKER_URL)
}

/// Where a trace comes from.
#[derive(Clone)]
pub enum TraceInput {
    File(web_sys::File),
    /// An absolute URL, whether it is on another origin than the page, and
    /// the name to show.
    Url {
        url: String,
        cross_origin: bool,
        name: String,
    },
    /// The trace `tarmac-lens serve` opened, answered by that server
    /// (`server_link.rs`).
    Served(Rc<crate::serve_protocol::Opening>),
}

type ReplyFn = Box<dyn FnOnce(Reply)>;
/// The worker's handlers, kept alive as long as the session.
type Handler<E> = RefCell<Option<Closure<dyn FnMut(E)>>>;

/// Who answers the questions.
enum Link {
    Worker(super::worker_link::WorkerLink),
    /// The spare session worker, before a trace takes it: its session over
    /// the sample answers the browser rehearsed hidden while the page loads
    /// (`components::rehearsal`). Only questions are sent.
    Spare,
    /// `tarmac-lens serve`: questions go to it over HTTP.
    Server(super::server_link::ServerLink),
}

struct Inner {
    link: Link,
    /// The worker reported a panic; its dying error event adds nothing.
    crashed: Cell<bool>,
    next_id: Cell<u32>,
    pending: RefCell<HashMap<u32, ReplyFn>>,
    /// Questions asked in this task, sent together at its end.
    outbox: RefCell<Vec<(u32, Query)>>,
    /// The trace and the ELF image last sent, for the report worker, which
    /// reads them again (`report_client.rs`): a URL's trace becomes the
    /// worker's download once it posts it (a server without ranges).
    trace: RefCell<ReportFile>,
    elf: RefCell<Option<(ReportFile, i64)>>,
    options: OpenOptions,
    _on_message: Handler<MessageEvent>,
    _on_error: Handler<Event>,
    /// Workers indexing ranges of a dropped file for this one.
    ranges: RefCell<Option<super::range_pool::RangePool>>,
    /// A served trace's event handler, for what the page asks of the
    /// server beside questions.
    on_event: Option<Rc<dyn Fn(PageEvent)>>,
}

impl Inner {
    fn send(&self, msg: &ToWorker) -> Result<(), String> {
        match &self.link {
            Link::Worker(link) => link.post(encode(msg)?),
            Link::Spare => match msg {
                ToWorker::Ask { .. } => SPARE.with(|s| match s.borrow().as_ref() {
                    Some(spare) => spare.post(encode(msg)?),
                    None => Err("the worker was taken for a trace".into()),
                }),
                _ => Ok(()),
            },
            Link::Server(_) => Ok(()),
        }
    }

    /// Hands each answer to the callback that asked (ids nobody here asked
    /// are the rehearsal's, answered after a trace took its worker).
    fn apply(&self, answers: Vec<(u32, Reply)>) {
        let started = crate::web::shared::timing::now();
        for (id, reply) in answers {
            let cb = self.pending.borrow_mut().remove(&id);
            if let Some(cb) = cb {
                cb(reply);
            }
        }
        crate::web::shared::timing::measure("apply answers", started);
    }

    /// Answers the questions `ids` with `message`.
    fn fail(&self, ids: impl IntoIterator<Item = u32>, message: &str) {
        for id in ids {
            let cb = self.pending.borrow_mut().remove(&id);
            if let Some(cb) = cb {
                cb(Reply::Error(message.to_string()));
            }
        }
    }

    /// Answers every question still waiting with `message`.
    fn fail_pending(&self, message: &str) {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        for (_, cb) in pending {
            cb(Reply::Error(message.to_string()));
        }
    }

    fn worker_link(&self) -> Option<&super::worker_link::WorkerLink> {
        match &self.link {
            Link::Worker(link) => Some(link),
            Link::Spare | Link::Server(_) => None,
        }
    }

    /// Sends the questions asked since the last flush as one message. A
    /// message apiece got as many answer messages, each applied in a task
    /// of its own, and Chromium drew a frame between them: a move's panes
    /// came a frame or two after its row.
    fn flush(self: &Rc<Self>) {
        let asks = std::mem::take(&mut *self.outbox.borrow_mut());
        if asks.is_empty() {
            return;
        }
        if let Link::Server(server) = &self.link {
            if server.push(asks) {
                send_to_server(Rc::downgrade(self));
            }
            return;
        }
        let ids: Vec<u32> = asks.iter().map(|(id, _)| *id).collect();
        if let Err(e) = self.send(&ToWorker::Ask { asks }) {
            self.fail(ids, &e);
        }
    }
}

/// A served trace as the report worker reads it: by ranges from the server.
fn served_trace(name: &str) -> ReportFile {
    ReportFile::Url {
        url: super::server_link::url(crate::serve_protocol::TRACE),
        cross_origin: false,
        name: name.to_string(),
    }
}

/// Opens the served page's socket to `tarmac-lens serve`; batches go by
/// POST until it opens, and if it cannot, or once it closes.
fn open_socket(inner: &Rc<Inner>) {
    let Link::Server(server) = &inner.link else {
        return;
    };
    let Ok(socket) = web_sys::WebSocket::new(&server.socket_url()) else {
        return;
    };
    fn with_server(
        weak: &std::rc::Weak<Inner>,
        f: impl FnOnce(&Rc<Inner>, &super::server_link::ServerLink),
    ) {
        if let Some(inner) = weak.upgrade() {
            if let Link::Server(server) = &inner.link {
                f(&inner, server);
            }
        }
    }
    let weak = Rc::downgrade(inner);
    let on_open = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
        with_server(&weak, |_, server| server.opened());
    });
    let weak = Rc::downgrade(inner);
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        with_server(&weak, |inner, server| {
            match server.answered(e.data().as_string()) {
                Ok(answers) => inner.apply(answers),
                Err((ids, why)) => inner.fail(ids, &why),
            }
        });
    });
    let weak = Rc::downgrade(inner);
    let on_close = Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |e: web_sys::CloseEvent| {
        with_server(&weak, |inner, server| {
            let (lost, why) = server.closed(e.code(), &e.reason());
            inner.fail(lost, &why);
        });
    });
    socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    server.attach(
        socket,
        vec![Box::new(on_open), Box::new(on_message), Box::new(on_close)],
    );
}

/// Sends the batches queued for `tarmac-lens serve` by POST, one after
/// another's answers, until none waits.
fn send_to_server(weak: std::rc::Weak<Inner>) {
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            // Not held across the request: a client dropped meanwhile stops.
            let batch = match weak.upgrade() {
                Some(inner) => match &inner.link {
                    Link::Server(server) => server.next().map(|b| (server.page().to_string(), b)),
                    _ => None,
                },
                None => None,
            };
            let Some((page, batch)) = batch else { return };
            let answered = super::server_link::ask(&page, &batch).await;
            let Some(inner) = weak.upgrade() else { return };
            match answered {
                Ok(answers) => inner.apply(answers),
                Err(e) => inner.fail(batch.into_iter().map(|(id, _)| id), &e),
            }
        }
    });
}

/// How many times the served page asks again for statistics that failed.
const STATS_TRIES: u32 = 3;

/// Tells the page what `tarmac-lens serve` opened, as a worker's messages
/// would, then asks for the record statistics until they are counted.
fn tell_served(
    weak: std::rc::Weak<Inner>,
    opening: Rc<crate::serve_protocol::Opening>,
    on_event: Rc<dyn Fn(PageEvent)>,
) {
    use crate::serve_protocol::ElfOutcome;
    wasm_bindgen_futures::spawn_local(async move {
        on_event(PageEvent::Opened {
            bytes: opening.bytes,
            reading: Reading::Served,
            kind: opening.kind.clone(),
        });
        on_event(PageEvent::Progress(opening.progress.clone()));
        match opening.elf.as_ref().map(|e| &e.outcome) {
            Some(ElfOutcome::Loaded { symbols, warning }) => on_event(PageEvent::ElfLoaded {
                symbols: *symbols,
                warning: warning.clone(),
            }),
            Some(ElfOutcome::Failed(message)) => on_event(PageEvent::ElfFailed(message.clone())),
            None => {}
        }
        // Counting takes about as long as indexing took: a big trace's
        // statistics come a while after its rows. A request that fails is
        // asked again (a connection the browser reused can be reset under
        // it); one failing each time is said, not left as a page that
        // never says it is ready.
        let mut wait = 100;
        let mut failed = 0;
        loop {
            if weak.upgrade().is_none() {
                return;
            }
            match super::server_link::stats().await {
                Ok(Some(stats)) => {
                    if weak.upgrade().is_some() {
                        on_event(PageEvent::Stats(Box::new(stats)));
                    }
                    return;
                }
                Ok(None) => {}
                Err(e) if failed < STATS_TRIES => {
                    failed += 1;
                    web_sys::console::warn_1(&format!("tarmac-lens: statistics: {e}").into());
                }
                Err(e) => {
                    if weak.upgrade().is_some() {
                        on_event(PageEvent::Failed(e));
                    }
                    return;
                }
            }
            super::server_link::sleep(wait).await;
            wait = (wait * 2).min(2000);
        }
    });
}

/// The rehearsal's first question id: far from a real client's.
const REHEARSAL_IDS: u32 = 1 << 31;

thread_local! {
    static SPARE: RefCell<Option<SpareWorker>> = const { RefCell::new(None) };
    /// A trace was opened on this page: a spare started now waits for the
    /// next one, while this one is browsed.
    static OPENED: Cell<bool> = const { Cell::new(false) };
    /// When the page last asked a trace's worker anything
    /// ([`TraceClient::query`], `timing::now`).
    static LAST_QUERY: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
}

/// Milliseconds since the page last asked a trace's worker anything: a
/// person stepping or scrolling asks on every key.
pub fn since_last_query_ms() -> f64 {
    crate::web::shared::timing::now() - LAST_QUERY.with(Cell::get)
}

fn take_spare(url: &str) -> Option<(Worker, bool)> {
    SPARE.with(|s| s.borrow_mut().take())?.take(url)
}

/// A browsing session in a worker. Cheap to clone; the worker stops when the
/// last clone is dropped.
#[derive(Clone)]
pub struct TraceClient {
    inner: Rc<Inner>,
}

/// A session that does not keep its worker running.
#[derive(Clone)]
pub struct WeakTraceClient(std::rc::Weak<Inner>);

impl WeakTraceClient {
    /// The session, while something else keeps it open.
    pub fn upgrade(&self) -> Option<TraceClient> {
        self.0.upgrade().map(|inner| TraceClient { inner })
    }
}

impl PartialEq for TraceClient {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

impl TraceClient {
    pub fn open(
        file: web_sys::File,
        opts: OpenOptions,
        on_event: impl Fn(PageEvent) + 'static,
    ) -> Result<TraceClient, String> {
        Self::open_with_url(&worker_url(), file, opts, on_event)
    }

    pub fn open_with_url(
        url: &str,
        file: web_sys::File,
        opts: OpenOptions,
        on_event: impl Fn(PageEvent) + 'static,
    ) -> Result<TraceClient, String> {
        Self::open_input(url, TraceInput::File(file), opts, on_event)
    }

    /// Opens a dropped file or a URL.
    pub fn open_input(
        url: &str,
        input: TraceInput,
        mut opts: OpenOptions,
        on_event: impl Fn(PageEvent) + 'static,
    ) -> Result<TraceClient, String> {
        use super::range_pool::{RangeInput, RangePool};
        if let TraceInput::Served(opening) = input {
            return Ok(Self::open_served(opening, opts, Rc::new(on_event)));
        }
        let ranges = match &input {
            TraceInput::File(file) => {
                opts.workers = super::range_pool::workers_for(file, &opts);
                (opts.workers > 1)
                    .then(|| RangePool::new(url, RangeInput::File(file.clone()), opts))
            }
            TraceInput::Url {
                url: trace,
                cross_origin,
                ..
            } => {
                opts.cores = super::range_pool::cores() as u32;
                Some(RangePool::new(
                    url,
                    RangeInput::Url {
                        url: trace.clone(),
                        cross_origin: *cross_origin,
                    },
                    opts,
                ))
            }
            TraceInput::Served(_) => None,
        };
        // A worker started ahead of time (see `prewarm`) has already loaded
        // its wasm: the first screenful does not wait for that.
        OPENED.with(|o| o.set(true));
        let (worker, ready) = match take_spare(url) {
            Some(spare) => spare,
            None => (
                super::spare::new_worker(url, Role::Session)
                    .map_err(|e| format!("cannot start the worker ({url}): {e:?}"))?,
                false,
            ),
        };
        let inner = Rc::new(Inner {
            link: Link::Worker(super::worker_link::WorkerLink::new(worker.clone(), ready)),
            crashed: Cell::new(false),
            next_id: Cell::new(0),
            pending: RefCell::new(HashMap::new()),
            outbox: RefCell::new(Vec::new()),
            trace: RefCell::new(match &input {
                TraceInput::File(f) => ReportFile::of_file(f),
                TraceInput::Url {
                    url,
                    cross_origin,
                    name,
                } => ReportFile::Url {
                    url: url.clone(),
                    cross_origin: *cross_origin,
                    name: name.clone(),
                },
                TraceInput::Served(o) => served_trace(&o.name),
            }),
            elf: RefCell::new(None),
            options: opts,
            _on_message: RefCell::new(None),
            _on_error: RefCell::new(None),
            ranges: RefCell::new(ranges),
            on_event: None,
        });
        inner.send(&match input {
            TraceInput::File(file) => ToWorker::Open {
                file,
                options: opts,
            },
            TraceInput::Url {
                url, cross_origin, ..
            } => ToWorker::OpenUrl {
                url,
                cross_origin,
                options: opts,
            },
            // Taken by `open_served` above.
            TraceInput::Served(_) => return Err("a served trace has no worker".into()),
        })?;
        let on_event = Rc::new(on_event);
        // Weak: the closures must not keep the worker alive by themselves.
        let weak = Rc::downgrade(&inner);
        let on_message = {
            let on_event = on_event.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let Some(inner) = weak.upgrade() else { return };
                // The only message that is not JSON: a URL's trace the
                // worker downloaded whole, for the reports to read.
                if let Some(blob) = event.data().dyn_ref::<web_sys::Blob>() {
                    let name = inner.trace.borrow().name().to_string();
                    *inner.trace.borrow_mut() = ReportFile::Blob {
                        blob: blob.clone(),
                        name,
                    };
                    return;
                }
                let msg = match decode::<ToPage>(event.data()) {
                    Ok(m) => m,
                    Err(e) => {
                        on_event(PageEvent::Failed(format!(
                            "unreadable message from the worker: {e}"
                        )));
                        return;
                    }
                };
                match msg {
                    ToPage::Ready => {
                        let ready = inner.worker_link().map(|l| l.set_ready());
                        if let Some(Err(e)) = ready {
                            on_event(PageEvent::Failed(e));
                        }
                    }
                    ToPage::Event(e) => on_event(e),
                    ToPage::Answer { answers } => inner.apply(answers),
                    ToPage::Progress { .. } => {}
                    ToPage::IndexRanges { ranges } => {
                        if let Some(pool) = inner.ranges.borrow_mut().as_mut() {
                            let Some(link) = inner.worker_link() else {
                                return;
                            };
                            if let Err(e) = pool.start(link.worker(), ranges) {
                                web_sys::console::warn_1(&format!("tarmac-lens: {e}").into());
                            }
                        }
                    }
                    ToPage::IndexDigest {
                        digest,
                        ranges,
                        joined,
                    } => super::range_pool::show_digest(digest.as_deref(), ranges, joined),
                    // Only report workers send these.
                    ToPage::Report(_) => {}
                    ToPage::Failed { message } => on_event(PageEvent::Failed(message)),
                    ToPage::Panicked { message } => {
                        if inner.crashed.replace(true) {
                            // Only the first crash says what went wrong.
                            return;
                        }
                        super::panic_overlay::show_panic(&format!("in the worker: {message}"));
                        on_event(PageEvent::Failed(format!("the worker crashed: {message}")));
                    }
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let on_error = {
            let url = url.to_string();
            let weak = Rc::downgrade(&inner);
            Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                let message = event
                    .dyn_ref::<ErrorEvent>()
                    .map(|e| e.message())
                    .unwrap_or_default();
                let (ran, crashed) = weak.upgrade().map_or((false, false), |i| {
                    let ran = i.worker_link().is_some_and(|l| l.is_ready());
                    (ran, i.crashed.replace(true))
                });
                if crashed {
                    return;
                }
                if ran {
                    // A worker that was running and dies without a panic
                    // message trapped: an allocation failed (the tab's
                    // memory is exhausted) or the wasm aborted.
                    let message =
                        format!("the worker stopped ({message}): it most likely ran out of memory");
                    super::panic_overlay::show_panic(&format!("in the worker: {message}"));
                    on_event(PageEvent::Failed(message));
                    return;
                }
                on_event(PageEvent::Failed(if message.is_empty() {
                    format!("the worker failed to start (is {url} served?)")
                } else {
                    format!("the worker failed: {message}")
                }));
            })
        };
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        *inner._on_message.borrow_mut() = Some(on_message);
        *inner._on_error.borrow_mut() = Some(on_error);
        Ok(TraceClient { inner })
    }

    /// The trace `tarmac-lens serve` opened: no worker, the server answers.
    fn open_served(
        opening: Rc<crate::serve_protocol::Opening>,
        options: OpenOptions,
        on_event: Rc<dyn Fn(PageEvent)>,
    ) -> TraceClient {
        use crate::serve_protocol::{ElfOutcome, ELF};
        let elf = opening.elf.as_ref().and_then(|e| {
            matches!(e.outcome, ElfOutcome::Loaded { .. }).then(|| {
                let file = ReportFile::Url {
                    url: super::server_link::url(ELF),
                    cross_origin: false,
                    name: e.name.clone(),
                };
                (file, e.load_offset)
            })
        });
        // Reports read the trace as the server does, whatever the page's
        // own options say.
        let options = OpenOptions {
            implicit_thumb: opening.implicit_thumb,
            big_endian: opening.big_endian,
            cpu: opening.cpu,
            ..options
        };
        let inner = Rc::new(Inner {
            link: Link::Server(Default::default()),
            crashed: Cell::new(false),
            next_id: Cell::new(0),
            pending: RefCell::new(HashMap::new()),
            outbox: RefCell::new(Vec::new()),
            trace: RefCell::new(served_trace(&opening.name)),
            elf: RefCell::new(elf),
            options,
            _on_message: RefCell::new(None),
            _on_error: RefCell::new(None),
            ranges: RefCell::new(None),
            on_event: Some(on_event.clone()),
        });
        open_socket(&inner);
        tell_served(Rc::downgrade(&inner), opening, on_event);
        TraceClient { inner }
    }

    /// A client of the spare session worker, for the browser's hidden
    /// rehearsal at load: answered by the worker's session over the sample
    /// until a trace takes the worker. `on_ready(true)` once the worker
    /// listens; `on_ready(false)` if it cannot start or was taken, and
    /// `None` without a spare. Its ids are apart from a real client's, whose
    /// worker may still answer some of them.
    pub fn rehearsal(on_ready: impl Fn(bool) + 'static) -> Option<TraceClient> {
        Self::prewarm_url(&worker_url());
        let inner = Rc::new(Inner {
            link: Link::Spare,
            crashed: Cell::new(false),
            next_id: Cell::new(REHEARSAL_IDS),
            pending: RefCell::new(HashMap::new()),
            outbox: RefCell::new(Vec::new()),
            trace: RefCell::new(ReportFile::Url {
                url: String::new(),
                cross_origin: false,
                name: "rehearsal".into(),
            }),
            elf: RefCell::new(None),
            options: OpenOptions::default(),
            _on_message: RefCell::new(None),
            _on_error: RefCell::new(None),
            ranges: RefCell::new(None),
            on_event: None,
        });
        let on_ready: Rc<dyn Fn(bool)> = Rc::new(on_ready);
        let weak = Rc::downgrade(&inner);
        let told = on_ready.clone();
        let listen = move |msg: ToPage| {
            let on_ready = &told;
            let Some(inner) = weak.upgrade() else { return };
            match msg {
                ToPage::Ready => on_ready(true),
                ToPage::Answer { answers } => inner.apply(answers),
                ToPage::Failed { message } | ToPage::Panicked { message } => {
                    inner.fail_pending(&message);
                    on_ready(false);
                }
                _ => {}
            }
        };
        let ready = SPARE.with(|s| {
            let spare = s.borrow();
            let spare = spare.as_ref()?;
            spare.listen(listen);
            Some(spare.is_ready())
        })?;
        if ready {
            // As the worker's `Ready` would come: not from inside this call.
            wasm_bindgen_futures::spawn_local(async move { on_ready(true) });
        }
        Some(TraceClient { inner })
    }

    /// Starts a worker now, so that the next `open` finds its wasm loaded
    /// (starting one takes tens of milliseconds), and the range workers a
    /// big file would use (see `range_pool::prewarm`). Does nothing for
    /// those already waiting.
    pub fn prewarm() {
        let url = worker_url();
        Self::prewarm_url(&url);
        super::range_pool::prewarm(&url, &super::url_options::open_options());
    }

    pub fn prewarm_url(url: &str) {
        if SPARE.with(|s| s.borrow().is_some()) {
            return;
        }
        // `open` reports a worker that cannot start, when a file needs it.
        // One started while a trace is browsed makes no read buffers ahead
        // (`Role::prefaults_reader`).
        let name = OPENED
            .with(Cell::get)
            .then(Role::next_session_name)
            .or(Role::Session.worker_name());
        let spare = SpareWorker::start_named(url, name);
        SPARE.with(|s| *s.borrow_mut() = spare);
    }

    /// A handle that does not keep the worker running.
    pub fn downgrade(&self) -> WeakTraceClient {
        WeakTraceClient(Rc::downgrade(&self.inner))
    }

    /// Asks the worker; `on_reply` gets the answer (answers come in the
    /// order asked). Questions asked in one task travel in one message,
    /// sent once the task's synchronous work is done. A message that cannot
    /// be sent answers `Reply::Error`.
    pub fn query(&self, query: Query, on_reply: impl FnOnce(Reply) + 'static) {
        // The rehearsal's questions at load are not a person browsing.
        if !matches!(self.inner.link, Link::Spare) {
            LAST_QUERY.with(|l| l.set(crate::web::shared::timing::now()));
        }
        let id = self.inner.next_id.get();
        self.inner.next_id.set(id.wrapping_add(1));
        self.inner
            .pending
            .borrow_mut()
            .insert(id, Box::new(on_reply));
        let first = {
            let mut outbox = self.inner.outbox.borrow_mut();
            outbox.push((id, query));
            outbox.len() == 1
        };
        if first {
            // Weak: a client dropped meanwhile sends nothing.
            let weak = Rc::downgrade(&self.inner);
            wasm_bindgen_futures::spawn_local(async move {
                if let Some(inner) = weak.upgrade() {
                    inner.flush();
                }
            });
        }
    }

    /// A number one higher with each question asked.
    pub fn asked(&self) -> u32 {
        self.inner.next_id.get()
    }

    /// Sends the questions asked so far now rather than at the end of the
    /// task (a component about to render sends them first).
    pub fn flush(&self) {
        self.inner.flush();
    }

    /// Tells the worker the first rows are on the page: indexing, held so
    /// the page had a core to draw them, goes on.
    pub fn shown(&self) {
        let _ = self.inner.send(&ToWorker::Shown);
    }

    /// Loads an ELF image's symbols into the session.
    pub fn load_elf(&self, file: web_sys::File, load_offset: i64) {
        *self.inner.elf.borrow_mut() = Some((ReportFile::of_file(&file), load_offset));
        if let (Link::Server(_), Some(on_event)) = (&self.inner.link, &self.inner.on_event) {
            let on_event = on_event.clone();
            wasm_bindgen_futures::spawn_local(async move {
                use crate::serve_protocol::ElfOutcome;
                let name = file.name();
                on_event(
                    match super::server_link::load_elf(file, load_offset).await {
                        Ok(ElfOutcome::Loaded { symbols, warning }) => {
                            PageEvent::ElfLoaded { symbols, warning }
                        }
                        Ok(ElfOutcome::Failed(message)) | Err(message) => {
                            PageEvent::ElfFailed(format!("{name}: {message}"))
                        }
                    },
                );
            });
            return;
        }
        let _ = self.inner.send(&ToWorker::LoadElf { file, load_offset });
    }

    /// Loads into this session the ELF image `other` loaded last, at the
    /// same offset (the comparison names the compared trace's functions
    /// with the open trace's image); false if `other` has none.
    pub fn load_elf_of(&self, other: &TraceClient) -> bool {
        let Some((elf, load_offset)) = other.inner.elf.borrow().clone() else {
            return false;
        };
        match elf {
            ReportFile::Blob { blob, name } => {
                let file = match blob.dyn_into::<web_sys::File>() {
                    Ok(file) => file,
                    Err(blob) => {
                        match web_sys::File::new_with_blob_sequence(
                            &js_sys::Array::of1(&blob),
                            &name,
                        ) {
                            Ok(file) => file,
                            Err(_) => return false,
                        }
                    }
                };
                self.load_elf(file, load_offset);
            }
            ReportFile::Url {
                url,
                cross_origin,
                name,
            } => {
                *self.inner.elf.borrow_mut() = Some((
                    ReportFile::Url {
                        url: url.clone(),
                        cross_origin,
                        name,
                    },
                    load_offset,
                ));
                let _ = self.inner.send(&ToWorker::LoadElfUrl {
                    url,
                    cross_origin,
                    load_offset,
                });
            }
        }
        true
    }

    /// The trace, the ELF image last loaded, and how the trace is read.
    pub fn report_inputs(&self) -> (ReportFile, Option<(ReportFile, i64)>, OpenOptions) {
        (
            self.inner.trace.borrow().clone(),
            self.inner.elf.borrow().clone(),
            self.inner.options,
        )
    }

    /// Loads an ELF image's symbols from a URL (absolute; as
    /// `page_params::resolve` gives it, with its file name).
    pub fn load_elf_url(&self, url: String, cross_origin: bool, name: String) {
        let elf = ReportFile::Url {
            url: url.clone(),
            cross_origin,
            name,
        };
        if let (Link::Server(_), Some(on_event)) = (&self.inner.link, &self.inner.on_event) {
            on_event(PageEvent::ElfFailed(
                crate::i18n::t(
                    "A page served by tarmac-lens serve takes its ELF image from the command (--image) or dropped here, not from a URL.",
                )
                .to_string(),
            ));
            return;
        }
        *self.inner.elf.borrow_mut() = Some((elf, 0));
        let _ = self.inner.send(&ToWorker::LoadElfUrl {
            url,
            cross_origin,
            load_offset: 0,
        });
    }
}
