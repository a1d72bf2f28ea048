//! Asynchronous read-ahead for a [`super::blob_source::BlobSource`] or an
//! [`super::http_source::HttpSource`] read from start to end (indexing,
//! search).
//!
//! A synchronous read per 4 MiB cost a third of indexing, so the next
//! slices are asked for while the worker parses; a read whose bytes are not
//! there is read synchronously: read-ahead changes when bytes arrive, never
//! which. A nested worker (`read_ahead_reader.js`) reads one stream into
//! buffers handed back and transfers them, so the browser's copies run
//! beside the parser; where none starts, slices are read here. The figures
//! behind each choice: docs/performance.md, "Reading a dropped file".

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, MessageEvent, Worker};

/// Reads at least this long are a sequential reader's (the line buffer's
/// slices grow to 4 MiB); shorter ones (queries, through the block cache)
/// neither use nor disturb the read-ahead.
pub const STREAM_MIN: usize = 512 << 10;
/// Size of each slice asked for ahead where each is a read of its own (a
/// URL's range request, `Blob.slice().arrayBuffer()`): each costs the
/// browser CPU of its own, and 32 MiB was cheapest (1.6-1.7 CPU s/GB
/// against 3.4-3.6 in 2 MiB).
const CHUNK: u64 = 32 << 20;
/// The same for a dropped file's one stream, read into buffers handed
/// back: the browser's cost no longer depends on the size (1.4-1.9 CPU
/// s/GB in 1, 8 or 32 MiB), but the reader holds three of them from
/// before the drop to the end of indexing: 48 MiB, not 96 (8 MiB slices
/// held 24, but the first row came 10 ms later).
const STREAM_CHUNK: u64 = 16 << 20;
/// The first slice when nothing is on its way (a start, a jump): a 32 MiB
/// one takes 30-110 ms to come; each next one doubles up to [`CHUNK`].
const FIRST_CHUNK: u64 = 8 << 20;
/// The longest sequential read (the line buffers' 4 MiB slices): what
/// [`ReadAhead::would_wait`] looks at past the last read.
const NEXT_READ: u64 = 4 << 20;

/// What the slices are read from.
#[derive(Clone)]
pub enum Origin {
    Blob(Blob),
    /// A server that serves byte ranges.
    Url(super::url::Target),
}

enum State {
    Pending,
    Ready(Uint8Array),
    Failed,
}

struct Chunk {
    start: u64,
    end: u64,
    promise: Promise,
    state: Rc<RefCell<State>>,
}

/// Bytes served from the read-ahead and read synchronously, for the
/// benchmark and the tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadCounts {
    pub ahead: u64,
    pub sync: u64,
}

impl ReadCounts {
    pub fn add(&mut self, ahead: u64, sync: u64) {
        self.ahead += ahead;
        self.sync += sync;
        THREAD.with(|t| {
            let mut t = t.borrow_mut();
            t.ahead += ahead;
            t.sync += sync;
        });
    }
}

thread_local! {
    /// All of this worker's read-ahead sources together.
    static THREAD: RefCell<ReadCounts> = const { RefCell::new(ReadCounts { ahead: 0, sync: 0 }) };
}

/// Logs (at debug level) how this worker's long reads were served: the
/// fraction that came ahead is what read-ahead saved.
pub fn log_totals(what: &str) {
    let t = THREAD.with(|t| std::mem::take(&mut *t.borrow_mut()));
    if t.ahead + t.sync > 0 {
        web_sys::console::debug_1(
            &format!(
                "tarmac-lens: {what}: {:.1} MB read ahead, {:.1} MB read waiting",
                t.ahead as f64 / 1e6,
                t.sync as f64 / 1e6
            )
            .into(),
        );
    }
}

#[derive(Default)]
pub struct ReadAhead {
    /// Contiguous slices in file order.
    chunks: VecDeque<Chunk>,
    pub counts: ReadCounts,
    reader: ReaderState,
    /// Where the last long read ended.
    last_end: u64,
    /// The nested worker reads each slice on its own, not from one stream
    /// (as where the browser's streams take no BYOB reader).
    without_streams: bool,
    /// The slices come from a URL (set by [`ReadAhead::advance`]).
    from_url: bool,
}

#[derive(Default)]
enum ReaderState {
    #[default]
    Untried,
    Running(Reader),
    /// No nested worker here: slices are read by this thread.
    Unavailable,
}

impl ReadAhead {
    /// Read-ahead whose slices this thread reads itself (as where no
    /// nested worker can start).
    pub fn here() -> ReadAhead {
        ReadAhead {
            reader: ReaderState::Unavailable,
            ..ReadAhead::default()
        }
    }

    /// Read-ahead whose nested worker reads each slice on its own, as it
    /// does where the browser's streams take no BYOB reader (tests that
    /// path).
    pub fn without_streams() -> ReadAhead {
        ReadAhead {
            without_streams: true,
            ..ReadAhead::default()
        }
    }

    /// Whether the slices are read by a nested worker.
    pub fn in_a_worker(&self) -> bool {
        matches!(&self.reader, ReaderState::Running(r) if !r.failed.get())
    }

    /// Copies into `buf` the bytes from `offset` that arrived ahead,
    /// returning how many (a prefix of `buf`; the caller reads the rest).
    pub fn take(&mut self, offset: u64, buf: &mut [u8]) -> usize {
        let mut done = 0;
        for c in &self.chunks {
            let at = offset + done as u64;
            if done == buf.len() || c.start > at {
                break;
            }
            if c.end <= at {
                continue;
            }
            let State::Ready(bytes) = &*c.state.borrow() else {
                break;
            };
            let from = (at - c.start) as u32;
            let n = ((c.end - at) as usize).min(buf.len() - done);
            bytes
                .subarray(from, from + n as u32)
                .copy_to(&mut buf[done..done + n]);
            done += n;
        }
        self.counts.add(done as u64, 0);
        done
    }

    /// The largest slice asked for: [`STREAM_CHUNK`] where a nested reader
    /// streams a `Blob`, [`CHUNK`] where each slice is a read of its own.
    fn max_slice(&self, origin: &Origin) -> u64 {
        let streamed = matches!(origin, Origin::Blob(_))
            && !self.without_streams
            && matches!(self.reader, ReaderState::Running(_));
        if streamed {
            STREAM_CHUNK
        } else {
            CHUNK
        }
    }

    /// After a read ending at `end`: drops what lies before it and asks for
    /// two of the largest slices past it (starting over if the reader
    /// jumped away from the slices already asked for).
    pub fn advance(&mut self, origin: &Origin, len: u64, end: u64) {
        self.last_end = end;
        self.from_url = matches!(origin, Origin::Url(_));
        // Whether the slice this read ended in had come (looked at before
        // the slices read to their end are dropped).
        let arrived = self
            .chunks
            .iter()
            .any(|c| c.start < end && end <= c.end && matches!(*c.state.borrow(), State::Ready(_)));
        while let Some(passed) = self.chunks.pop_front_if(|c| c.end <= end) {
            self.give_back(passed);
        }
        if self.chunks.front().is_some_and(|c| c.start > end) {
            for passed in std::mem::take(&mut self.chunks) {
                self.give_back(passed);
            }
        }
        let mut next = self.chunks.back().map_or(end, |c| c.end);
        if matches!(&self.reader, ReaderState::Running(r) if r.failed.get()) {
            self.reader = ReaderState::Unavailable;
        }
        if next < len && next < end + 2 * CHUNK && matches!(self.reader, ReaderState::Untried) {
            self.reader = match Reader::start(origin, !self.without_streams) {
                Some(r) => ReaderState::Running(r),
                None => ReaderState::Unavailable,
            };
        }
        let most = self.max_slice(origin);
        // Two slices, so one can be in flight while the reader consumes
        // the other.
        let depth = 2 * most;
        let mut size = self
            .chunks
            .back()
            .map_or(FIRST_CHUNK, |c| (2 * (c.end - c.start)).max(FIRST_CHUNK))
            .min(most);
        // One slice at a time until one has come: slices asked for together
        // share the browser's reading (first 8 MiB: 85 ms against 65 alone).
        while next < len && next < end + depth && (arrived || self.chunks.is_empty()) {
            let stop = (next + size).min(len);
            size = (2 * size).min(most);
            let promise = match &mut self.reader {
                ReaderState::Running(r) => r.read(next, stop),
                _ => read_here(origin, next, stop),
            };
            match promise.map(|p| chunk(p, next, stop)) {
                Some(chunk) => self.chunks.push_back(chunk),
                // Cannot even ask: the synchronous path will say why.
                None => break,
            }
            next = stop;
        }
    }

    /// Hands a passed slice's buffer back to the nested worker, which
    /// fills it again rather than a fresh one.
    fn give_back(&self, passed: Chunk) {
        let ReaderState::Running(r) = &self.reader else {
            return;
        };
        let state = passed.state.borrow();
        if let State::Ready(bytes) = &*state {
            r.give_back(&bytes.buffer());
        }
    }

    /// Stops the nested reader, freeing the buffers it keeps (48 MiB after
    /// a large file, 96 from a URL), once the reading it was for has
    /// ended: a later sequential reader (a search) starts another. Slices on their way
    /// are dropped; what was counted stays.
    pub fn stop_reader(&mut self) {
        self.chunks.clear();
        if matches!(self.reader, ReaderState::Running(_)) {
            self.reader = ReaderState::Untried;
        }
    }

    /// Stops reading ahead in a worker about to close, leaving its nested
    /// reader to end with it: a worker that terminated its nested reader
    /// and closed in the same task never ended (Chromium 156), and its
    /// memory stayed taken (528 MB of a 32 GB drop's range worker).
    pub fn leave_reader_to_close(&mut self) {
        self.chunks.clear();
        if let ReaderState::Running(r) =
            std::mem::replace(&mut self.reader, ReaderState::Unavailable)
        {
            std::mem::forget(r);
        }
    }

    /// How many slices the nested worker read into a buffer of its own
    /// making rather than one given back (none reads here).
    pub fn fresh_buffers(&self) -> Option<u32> {
        match &self.reader {
            ReaderState::Running(r) => Some(r.fresh.get()),
            _ => None,
        }
    }

    /// The `[start, end)` of the slices asked for and not yet passed.
    pub fn slices(&self) -> Vec<(u64, u64)> {
        self.chunks.iter().map(|c| (c.start, c.end)).collect()
    }

    /// Whether the next read, if it continues from the last, would find
    /// bytes still on their way (and read them again, synchronously).
    pub fn would_wait(&self) -> bool {
        self.chunks.iter().any(|c| {
            c.end > self.last_end
                && c.start < self.last_end + NEXT_READ
                && matches!(*c.state.borrow(), State::Pending)
        })
    }

    /// [`ReadAhead::would_wait`] for a next read of `len` bytes: one too
    /// short to use the read-ahead (a line buffer's first reads, for the
    /// first screenful) is read at once, whatever is on its way.
    pub fn would_wait_for(&self, len: usize) -> bool {
        len >= STREAM_MIN && self.would_wait()
    }

    fn first_pending(&self) -> Option<PendingChunk> {
        self.chunks
            .iter()
            .find(|c| matches!(*c.state.borrow(), State::Pending))
            .map(|c| PendingChunk {
                promise: c.promise.clone(),
                wait_ms: if self.from_url { URL_WAIT_MS } else { WAIT_MS },
                state: c.state.clone(),
                len: c.end - c.start,
            })
    }
}

/// A source's read of `buf.len()` bytes at `offset` (of `len`): a long one
/// takes what arrived ahead and reads the rest with `sync`, then asks for
/// the next slices; a short one (queries) is `sync` alone.
pub fn read_through(
    ahead: Option<&SharedReadAhead>,
    origin: &Origin,
    len: u64,
    offset: u64,
    buf: &mut [u8],
    sync: impl FnOnce(u64, &mut [u8]) -> Result<usize, tarmac_lens_core::Error>,
) -> Result<usize, tarmac_lens_core::Error> {
    let end = offset.saturating_add(buf.len() as u64).min(len);
    if offset >= end {
        return Ok(0);
    }
    let want = (end - offset) as usize;
    let Some(ahead) = ahead.filter(|_| want >= STREAM_MIN) else {
        return sync(offset, &mut buf[..want]);
    };
    let mut done = ahead.borrow_mut().take(offset, &mut buf[..want]);
    if done < want {
        let n = sync(offset + done as u64, &mut buf[done..want])?;
        done += n;
        ahead.borrow_mut().counts.add(0, n as u64);
    }
    ahead
        .borrow_mut()
        .advance(origin, len, offset + done as u64);
    Ok(done)
}

/// A slice on its way, to wait for without holding its [`ReadAhead`].
struct PendingChunk {
    promise: Promise,
    wait_ms: f64,
    state: Rc<RefCell<State>>,
    len: u64,
}

/// How long a step waits for a slice before reading it itself: a slice
/// of a file takes milliseconds, so this is only for one that never comes.
const WAIT_MS: f64 = 2000.0;
/// The same for a slice of a URL, which takes as long as the network does
/// (32 MiB at 12.5 MB/s: 2.7 s); one given up on is read again.
const URL_WAIT_MS: f64 = 60_000.0;

impl PendingChunk {
    async fn wait(self) {
        let timeout = crate::web::shared::timing::timer(self.wait_ms);
        let first = Promise::race(&js_sys::Array::of2(&self.promise, &timeout));
        let result = JsFuture::from(first).await;
        let came = matches!(&result, Ok(v) if v.is_instance_of::<js_sys::ArrayBuffer>());
        // The arrival callback may not have run yet: record it here too. A
        // slice that did not come in time is given up (read synchronously),
        // so the step that waited goes on.
        let mut s = self.state.borrow_mut();
        if matches!(*s, State::Pending) {
            *s = if came {
                arrived(result, self.len)
            } else {
                State::Failed
            };
        }
    }
}

/// A [`ReadAhead`] shared between its source and the task loop that reads
/// through it (the session worker, whose source sits inside the session):
/// the loop asks before each step whether the step would wait for bytes on
/// their way, and if so waits for them with the event loop running.
#[derive(Clone)]
pub struct SharedReadAhead(Rc<RefCell<ReadAhead>>);

impl SharedReadAhead {
    pub fn new(ahead: ReadAhead) -> SharedReadAhead {
        SharedReadAhead(Rc::new(RefCell::new(ahead)))
    }

    pub fn borrow_mut(&self) -> std::cell::RefMut<'_, ReadAhead> {
        self.0.borrow_mut()
    }

    pub fn borrow(&self) -> std::cell::Ref<'_, ReadAhead> {
        self.0.borrow()
    }

    pub fn would_wait(&self) -> bool {
        self.0.borrow().would_wait()
    }

    pub fn would_wait_for(&self, len: usize) -> bool {
        self.0.borrow().would_wait_for(len)
    }

    /// Waits until the first slice ahead has arrived (or failed). The
    /// read-ahead is not held meanwhile.
    pub async fn settle(&self) {
        let pending = self.0.borrow().first_pending();
        if let Some(p) = pending {
            p.wait().await;
        }
    }

    /// Waits until a next read of `len` bytes would not wait
    /// ([`ReadAhead::would_wait_for`]): a reader that can yield calls this
    /// before a step rather than read synchronously bytes already on their
    /// way, and only then (a slice further ahead still coming is no reason
    /// to stop).
    pub async fn next_read_of_ready(&self, len: usize) {
        while self.would_wait_for(len) {
            self.settle().await;
        }
    }
}

/// What a slice's read gave: its bytes (the first `len` of the buffer: the
/// nested reader fills the smallest spare buffer that holds them), or
/// failure — also when the file changed length since (then `take` would
/// hand out the wrong bytes, and the synchronous read reports the change).
fn arrived(result: Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>, len: u64) -> State {
    match result {
        Ok(buffer) => {
            let bytes = Uint8Array::new(&buffer);
            if u64::from(bytes.length()) >= len {
                State::Ready(bytes.subarray(0, len as u32))
            } else {
                State::Failed
            }
        }
        Err(_) => State::Failed,
    }
}

/// `Blob.slice(start, end).arrayBuffer()`, or the server's bytes
/// `[start, end)`, read by this thread.
fn read_here(origin: &Origin, start: u64, end: u64) -> Option<Promise> {
    match origin {
        Origin::Blob(blob) => Some(
            blob.slice_with_f64_and_f64(start as f64, end as f64)
                .ok()?
                .array_buffer(),
        ),
        Origin::Url(target) => {
            let init = web_sys::RequestInit::new();
            let headers = Object::new();
            let range = format!("bytes={start}-{}", end - 1);
            Reflect::set(&headers, &"Range".into(), &range.into()).ok()?;
            init.set_headers(&headers);
            let global: web_sys::WorkerGlobalScope = js_sys::global().dyn_into().ok()?;
            let response = global.fetch_with_str_and_init(&target.url, &init);
            Some(wasm_bindgen_futures::future_to_promise(async move {
                let response: web_sys::Response = JsFuture::from(response).await?.dyn_into()?;
                // Anything but the range fails: the synchronous read says why.
                if response.status() != 206 {
                    return Err(JsValue::from_str("no range"));
                }
                JsFuture::from(response.array_buffer()?).await
            }))
        }
    }
}

/// A slice on its way, its arrival recorded when the promise settles.
fn chunk(promise: Promise, start: u64, end: u64) -> Chunk {
    let state = Rc::new(RefCell::new(State::Pending));
    let shared = state.clone();
    let future = JsFuture::from(promise.clone());
    // Records the arrival even if the slice has been dropped meanwhile
    // (only this task still holds the state then).
    wasm_bindgen_futures::spawn_local(async move {
        let result = future.await;
        let mut s = shared.borrow_mut();
        if matches!(*s, State::Pending) {
            *s = arrived(result, end - start);
        }
    });
    Chunk {
        start,
        end,
        promise,
        state,
    }
}

/// The nested worker's script: keeps the `Blob` (or URL) it is given and
/// answers `{id, start, end}` with the slice's bytes, transferred, read
/// from one stream into the buffers given back.
const READER_JS: &str = include_str!("read_ahead_reader.js");

type Settle = (Function, Function);

/// The nested worker reading slices for one [`ReadAhead`]; stopped, and
/// its pending reads failed, when dropped.
struct Reader {
    worker: Worker,
    url: String,
    next_id: u32,
    pending: Rc<RefCell<HashMap<u32, Settle>>>,
    /// The worker failed to start or died: its reads were failed.
    failed: Rc<Cell<bool>>,
    /// Slices that came in a fresh buffer.
    fresh: Rc<Cell<u32>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// A nested reader started before it is needed (see [`start_spare_reader`]),
/// with what its start has shown so far.
struct SpareReader {
    worker: Worker,
    url: String,
    failed: Rc<Cell<bool>>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static SPARE_READER: RefCell<Option<SpareReader>> = const { RefCell::new(None) };
}

/// Starts this worker's first nested reader now, before any read, so a
/// drop's first slice does not also wait for a worker's start (a thread, a
/// JavaScript context, its script). The first [`ReadAhead`] to need a
/// reader takes it.
///
/// `prefault`: the reader also makes its buffers (`MAX_SPARES` in
/// [`READER_JS`] of [`STREAM_CHUNK`] bytes, a dropped file's) and touches
/// every page now, so the kernel's zeroing is not paid on a drop's cores
/// (106 MB: 249 against 233 MB/s), at 48 MiB held by the idle page: only
/// the session's reader does it, stopped once indexed.
pub fn start_spare_reader(prefault: bool) {
    if SPARE_READER.with(|s| s.borrow().is_some()) {
        return;
    }
    let Some((worker, url)) = spawn_reader() else {
        return;
    };
    if prefault {
        let _ = post_prefault(&worker);
    }
    // An error before it is taken (a policy forbids the worker) is kept
    // for the taker, which then starts one of its own (and so learns why).
    let failed = Rc::new(Cell::new(false));
    let dead = failed.clone();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        dead.set(true);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    SPARE_READER.with(|s| {
        *s.borrow_mut() = Some(SpareReader {
            worker,
            url,
            failed,
            _on_error: on_error,
        })
    });
}

/// Stops the nested reader started ahead if nothing took it (a session
/// restored from the index cache reads no file through it), freeing the
/// buffers it made.
pub fn stop_spare_reader() {
    if let Some(spare) = SPARE_READER.with(|s| s.borrow_mut().take()) {
        spare.worker.terminate();
        let _ = web_sys::Url::revoke_object_url(&spare.url);
    }
}

/// Whether a nested reader started ahead waits to be taken.
pub fn spare_reader_waiting() -> bool {
    SPARE_READER.with(|s| s.borrow().is_some())
}

fn post_prefault(worker: &Worker) -> Option<()> {
    let message = Object::new();
    Reflect::set(&message, &"prefault".into(), &(STREAM_CHUNK as f64).into()).ok()?;
    worker.post_message(&message).ok()
}

/// A nested worker running [`READER_JS`], and its script's URL.
fn spawn_reader() -> Option<(Worker, String)> {
    // `Worker` is missing from some browsers' workers (no nested workers).
    Reflect::get(&js_sys::global(), &"Worker".into())
        .ok()
        .filter(|w| w.is_function())?;
    let parts = js_sys::Array::of1(&JsValue::from_str(READER_JS));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let script = Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&script).ok()?;
    match Worker::new(&url) {
        Ok(worker) => Some((worker, url)),
        Err(_) => {
            let _ = web_sys::Url::revoke_object_url(&url);
            None
        }
    }
}

impl Reader {
    fn start(origin: &Origin, streams: bool) -> Option<Reader> {
        let spare = SPARE_READER.with(|s| s.borrow_mut().take());
        let (worker, url) = match spare {
            Some(s) if !s.failed.get() => (s.worker, s.url),
            dead => {
                if let Some(s) = dead {
                    s.worker.terminate();
                    let _ = web_sys::Url::revoke_object_url(&s.url);
                }
                spawn_reader()?
            }
        };
        let pending: Rc<RefCell<HashMap<u32, Settle>>> = Rc::default();
        let answers = pending.clone();
        let fresh = Rc::new(Cell::new(0));
        let made = fresh.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let Some(id) = Reflect::get(&data, &"id".into())
                .ok()
                .and_then(|v| v.as_f64())
            else {
                return;
            };
            let Some((resolve, reject)) = answers.borrow_mut().remove(&(id as u32)) else {
                return;
            };
            match Reflect::get(&data, &"b".into()) {
                Ok(b) if b.is_instance_of::<js_sys::ArrayBuffer>() => {
                    if Reflect::get(&data, &"fresh".into()).is_ok_and(|f| f.is_truthy()) {
                        made.set(made.get() + 1);
                    }
                    let _ = resolve.call1(&JsValue::UNDEFINED, &b);
                }
                _ => {
                    let _ = reject.call1(&JsValue::UNDEFINED, &data);
                }
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // A worker that cannot start (a policy forbids it) or dies: fail
        // what it was asked, so nobody waits for it, and read here after.
        let failed = Rc::new(Cell::new(false));
        let (dead, asked) = (failed.clone(), pending.clone());
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            dead.set(true);
            fail_all(&asked);
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let hello = Object::new();
        match origin {
            Origin::Blob(blob) => Reflect::set(&hello, &"blob".into(), blob).ok()?,
            Origin::Url(target) => {
                Reflect::set(&hello, &"url".into(), &target.url.as_str().into()).ok()?
            }
        };
        Reflect::set(&hello, &"byob".into(), &streams.into()).ok()?;
        worker.post_message(&hello).ok()?;
        Some(Reader {
            worker,
            url,
            next_id: 0,
            pending,
            failed,
            fresh,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    fn read(&mut self, start: u64, end: u64) -> Option<Promise> {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let pending = self.pending.clone();
        let promise = Promise::new(&mut |resolve, reject| {
            pending.borrow_mut().insert(id, (resolve, reject));
        });
        let ask = Object::new();
        for (key, value) in [
            ("id", f64::from(id)),
            ("start", start as f64),
            ("end", end as f64),
        ] {
            Reflect::set(&ask, &key.into(), &value.into()).ok()?;
        }
        if self.worker.post_message(&ask).is_err() {
            self.pending.borrow_mut().remove(&id);
            return None;
        }
        Some(promise)
    }

    fn give_back(&self, buffer: &js_sys::ArrayBuffer) {
        let spare = Object::new();
        if Reflect::set(&spare, &"spare".into(), buffer).is_ok() {
            let transfer = js_sys::Array::of1(buffer);
            // Not given back, the nested worker makes a fresh buffer.
            let _ = self.worker.post_message_with_transfer(&spare, &transfer);
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.worker.terminate();
        let _ = web_sys::Url::revoke_object_url(&self.url);
        fail_all(&self.pending);
    }
}

fn fail_all(pending: &RefCell<HashMap<u32, Settle>>) {
    let asked: Vec<Settle> = pending.borrow_mut().drain().map(|(_, s)| s).collect();
    for (_, reject) in asked {
        let _ = reject.call1(&JsValue::UNDEFINED, &"read-ahead stopped".into());
    }
}
