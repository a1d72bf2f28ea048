//! When the session indexes, and how much: the pacer gives each indexing
//! step its budget (the first slice alone, then slices until the task's
//! time is up; nothing while the next bytes are on their way) and is told
//! what the step did (it holds indexing for the first screen after the
//! first slice, and throttles the progress messages).

use std::cell::Cell;

use tarmac_lens_core::{protocol::Progress, Session, TraceSource};

use super::with;
use crate::web::reading::read_ahead::SharedReadAhead;
use crate::web::shared::timing::{self, now};
use crate::web::worker::runtime::SESSION_STEP_BYTES;

/// Time one task indexes for before yielding, so a question waits at most
/// about this long.
const TASK_MS: f64 = 8.0;

/// The first step: a screenful's lines from the first read alone, so the
/// first rows are answered at once.
const FIRST_STEP_BYTES: u64 = 32 << 10;

/// The longest indexing is held after the first step for the page to show
/// the first rows ([`ToWorker::Shown`]): they share two cores with it (a
/// 1 GB trace's first rows, median of 12 drops: 80 ms unheld, 57 held).
///
/// [`ToWorker::Shown`]: crate::web::shared::protocol::ToWorker::Shown
const FIRST_SCREEN_MS: f64 = 100.0;

/// Least time between progress messages: each re-renders the page, whose
/// drawing takes the indexing's cores (4 a second rather than 10: a 1 GB
/// trace indexed 7-40% faster).
pub(super) const PROGRESS_INTERVAL_MS: f64 = 250.0;

type WorkerSession = Session<Box<dyn TraceSource>>;

/// What an indexing step may do now.
pub(super) enum Budget {
    /// Index [`Slices::first_bytes`], then more while [`Slices::more`].
    Index(Slices),
    /// Index nothing: wait for the next read's bytes, on their way from the
    /// file, rather than read them again synchronously (which blocks the
    /// worker and spends the browser's time twice), then ask again.
    Wait(SharedReadAhead, usize),
}

/// One step's slices.
pub(super) struct Slices {
    started: f64,
    first: bool,
    ahead: Option<SharedReadAhead>,
}

impl Slices {
    /// Whether this is the trace's first step (then indexed alone).
    pub(super) fn first(&self) -> bool {
        self.first
    }

    /// The first slice's bytes.
    pub(super) fn first_bytes(&self) -> u64 {
        if self.first {
            FIRST_STEP_BYTES
        } else {
            SESSION_STEP_BYTES
        }
    }

    /// Whether to index another slice of [`SESSION_STEP_BYTES`] in this
    /// task.
    pub(super) fn more(&self, session: &WorkerSession, p: &Progress) -> bool {
        !self.first
            && !p.complete
            && p.stopped.is_none()
            && !session.waiting_for_range()
            && now() - self.started < TASK_MS
            && !would_wait(&self.ahead, session)
    }
}

/// Whether the session's next read would find its bytes still on their way
/// (a short read, the first screenful's, is made at once whatever is).
fn would_wait(ahead: &Option<SharedReadAhead>, session: &WorkerSession) -> bool {
    ahead
        .as_ref()
        .is_some_and(|a| a.would_wait_for(session.next_read_len()))
}

/// The pacing of one worker's indexing.
pub(super) struct Pacer {
    /// Indexing held after the first step: the generation to resume.
    held: Cell<Option<u32>>,
    last_progress: Cell<f64>,
}

impl Pacer {
    pub(super) const fn new() -> Pacer {
        Pacer {
            held: Cell::new(None),
            last_progress: Cell::new(f64::NEG_INFINITY),
        }
    }

    /// A trace is opening: nothing held, its first progress is due.
    pub(super) fn reset(&self) {
        self.held.set(None);
        self.last_progress.set(f64::NEG_INFINITY);
    }

    /// The budget of a step of `session`, read through `ahead`.
    pub(super) fn budget(&self, session: &WorkerSession, ahead: Option<SharedReadAhead>) -> Budget {
        if would_wait(&ahead, session) {
            // Nothing is indexed while waiting, so the next read stays this long.
            let len = session.next_read_len();
            return Budget::Wait(ahead.expect("would wait"), len);
        }
        Budget::Index(Slices {
            started: now(),
            first: session.progress().done_bytes == 0,
            ahead,
        })
    }

    /// Waits for the bytes of a [`Budget::Wait`].
    pub(super) async fn wait(ahead: SharedReadAhead, len: usize) {
        let waited = now();
        ahead.next_read_of_ready(len).await;
        // Indexing idle for want of bytes: the read-ahead not keeping up.
        timing::measure("wait for bytes", waited);
    }

    /// Whether to post `progress` now: a finished one always.
    pub(super) fn progress_due(&self, progress: &Progress) -> bool {
        let t = now();
        let due = t - self.last_progress.get() >= PROGRESS_INTERVAL_MS || progress.complete;
        if due {
            self.last_progress.set(t);
        }
        due
    }

    /// After the first step of `generation`: holds indexing until the page
    /// shows the first rows ([`Pacer::release`]), or [`FIRST_SCREEN_MS`].
    pub(super) fn hold(&self, generation: u32) {
        self.held.set(Some(generation));
        wasm_bindgen_futures::spawn_local(async move {
            timing::sleep(FIRST_SCREEN_MS).await;
            with(|w| {
                if w.pacer.held.get() == Some(generation) {
                    w.resume_held();
                }
            });
        });
    }

    /// Ends the hold: the generation to resume, if one was held.
    pub(super) fn release(&self) -> Option<u32> {
        self.held.take()
    }
}
