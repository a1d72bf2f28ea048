//! Asynchronous read-ahead for a [`super::blob_source::BlobSource`] read
//! from start to end (indexing, search).
//!
//! `FileReaderSync` blocks the worker while the browser fetches the bytes:
//! measured in this machine's Chromium, a 4 MiB slice of a dropped file
//! reads at 260–770 MB/s, so a synchronous read before every 4 MiB of
//! parsing (about 250 MB/s) costs a third of the indexing time. Here the
//! next slices are asked for with `Blob.arrayBuffer()` as soon as a read
//! shows where the reader is going; the browser fetches them while the
//! worker parses, and the next read finds its bytes waiting. A read whose
//! bytes are not there yet (still on the way, failed, or somewhere else) is
//! read synchronously as before: read-ahead changes when bytes arrive, never
//! which bytes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Promise, Uint8Array};
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

/// Reads at least this long are a sequential reader's (the line buffer's
/// slices grow to 4 MiB); shorter ones (queries, through the block cache)
/// neither use nor disturb the read-ahead.
pub const STREAM_MIN: usize = 512 << 10;
/// Size of each slice asked for ahead: each `Blob.slice` costs the worker
/// a round trip to the browser (about 1.5 ms measured), so not too many.
const CHUNK: u64 = 8 << 20;
/// How far past the last read the slices reach: two slices, so one can be
/// in flight while the reader consumes the other.
const DEPTH: u64 = 2 * CHUNK;

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
}

impl ReadAhead {
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

    /// After a read ending at `end`: drops what lies before it and asks for
    /// the slices up to [`DEPTH`] past it (starting over if the reader
    /// jumped away from the slices already asked for).
    pub fn advance(&mut self, blob: &Blob, len: u64, end: u64) {
        while self.chunks.front().is_some_and(|c| c.end <= end) {
            self.chunks.pop_front();
        }
        if self.chunks.front().is_some_and(|c| c.start > end) {
            self.chunks.clear();
        }
        let mut next = self.chunks.back().map_or(end, |c| c.end);
        while next < len && next < end + DEPTH {
            let stop = (next + CHUNK).min(len);
            match ask(blob, next, stop) {
                Some(chunk) => self.chunks.push_back(chunk),
                // Cannot even ask: the synchronous path will say why.
                None => break,
            }
            next = stop;
        }
    }

    /// Waits until the first slice ahead has arrived (or failed): a reader
    /// that can wait (a range worker) calls this before each step rather
    /// than read synchronously bytes already on their way.
    pub async fn settle(&self) {
        let Some(c) = self
            .chunks
            .iter()
            .find(|c| matches!(*c.state.borrow(), State::Pending))
        else {
            return;
        };
        let state = c.state.clone();
        let result = JsFuture::from(c.promise.clone()).await;
        // The arrival callback may not have run yet: record it here too.
        let mut s = state.borrow_mut();
        if matches!(*s, State::Pending) {
            *s = arrived(result, c.end - c.start);
        }
    }
}

/// What a slice's read gave: its bytes, or failure — also when the file
/// changed length since (then `take` would hand out the wrong bytes, and
/// the synchronous read reports the change).
fn arrived(result: Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>, len: u64) -> State {
    match result {
        Ok(buffer) => {
            let bytes = Uint8Array::new(&buffer);
            if u64::from(bytes.length()) == len {
                State::Ready(bytes)
            } else {
                State::Failed
            }
        }
        Err(_) => State::Failed,
    }
}

fn ask(blob: &Blob, start: u64, end: u64) -> Option<Chunk> {
    let promise = blob
        .slice_with_f64_and_f64(start as f64, end as f64)
        .ok()?
        .array_buffer();
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
    Some(Chunk {
        start,
        end,
        promise,
        state,
    })
}
