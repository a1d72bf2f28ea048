//! The session's indexing, in steps: each a task of its own (about
//! [`TASK_MS`]), so the page's questions are answered between them; the
//! first step alone and then held for the first screen; waits for bytes on
//! their way and for ranges from other workers without queuing steps.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use tarmac_lens_core::browse::Session;
use tarmac_lens_core::source::TraceSource;

use super::{crash_on_purpose, ranges, saving, with, SessionWorker};
use crate::web::reading::read_ahead;
use crate::web::shared::protocol::ToPage;
use crate::web::shared::timing::{self, now};
use crate::web::worker::runtime::{post, SESSION_STEP_BYTES};

/// Time one task indexes for before yielding, so a query waits at most
/// about this long (and the first screenful comes after the first slice).
const TASK_MS: f64 = 8.0;
/// The first step: enough lines for a screenful, from the first read alone,
/// so the first rows are answered as soon as possible.
const FIRST_STEP_BYTES: u64 = 32 << 10;

/// The longest indexing is held, after the first step, for the page to
/// show the first rows ([`ToWorker::Shown`]). On two cores the page's
/// thread that draws them shares the machine with this worker, its file
/// reader and the browser reading the file: with indexing going on, the
/// first rows of a 1 GB trace came 40-127 ms after the drop (median 80 of
/// 12 drops); held, 47-66 (median 57 of 8), and with a range worker too
/// (whose split waits as well) 48-60 (Chromium trace spans). Held once per
/// trace, so a page that never says (no view) loses this much indexing
/// time once.
///
/// [`ToWorker::Shown`]: crate::web::shared::protocol::ToWorker::Shown
const FIRST_SCREEN_MS: f64 = 100.0;

/// How long a deferred split waits for the page to show the first rows: at the
/// fastest indexing this is some tens of megabytes, and ranges are at least
/// 64 MiB.
const SPLIT_BY_MS: f64 = 150.0;

/// Minimum gap between progress messages. Each one re-renders the page (the
/// scrollbar grows with the indexed lines), and the page's rendering,
/// compositing and painting compete with indexing for the cores: at 20 a
/// second they took 15% of a core on a two-core machine (Chrome trace of the
/// first 3 s of a 1 GB trace); going from 10 to 4 a second made one worker
/// index a 1 GB trace 7-40% faster in three alternated pairs of runs, with
/// 7-34% less CPU over all of Chromium.
pub(super) const PROGRESS_INTERVAL_MS: f64 = 250.0;

impl SessionWorker {
    /// Resumes indexing held for the first screen, if it is.
    pub(super) fn resume_held(&self) {
        if let Some(generation) = self.held.take() {
            if self.is_current(generation) {
                if let Err(e) = self.schedule_step(generation) {
                    post(&ToPage::Failed {
                        message: format!("cannot schedule indexing in the worker: {e}"),
                    });
                }
            }
        }
    }

    /// Holds indexing until the page shows the first rows, or for
    /// [`FIRST_SCREEN_MS`] at most.
    fn hold_for_first_screen(&self, generation: u32) {
        self.held.set(Some(generation));
        wasm_bindgen_futures::spawn_local(async move {
            timing::sleep(FIRST_SCREEN_MS).await;
            with(|w| {
                if w.held.get() == Some(generation) {
                    w.resume_held();
                }
            });
        });
    }

    /// Queues the next indexing task. A message to ourselves, not a timeout:
    /// timeouts chained this way are clamped to 4 ms each, a third of the time.
    fn schedule_step(&self, generation: u32) -> Result<(), String> {
        let mut t = self.tick.borrow_mut();
        if t.is_none() {
            let channel = web_sys::MessageChannel::new().map_err(|e| format!("{e:?}"))?;
            // The tick carries its file's generation: a tick queued for an
            // abandoned file must not start a second chain for the new one.
            let on_tick = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
                if let Some(generation) = e.data().as_f64() {
                    with(|w| w.step(generation as u32));
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
    }

    /// Indexes one step and schedules the next as a separate task.
    pub(super) fn step(&self, generation: u32) {
        if self.generation.get() != generation {
            return;
        }
        // Bytes still on their way from the file: wait for them, answering
        // questions meanwhile, rather than read them again synchronously (which
        // blocks this worker and spends the browser's time twice).
        let ahead = self
            .open
            .borrow()
            .as_ref()
            .and_then(|open| open.ahead.clone());
        // The next read's length: a short one (the first screenful's) is read
        // at once, whatever is on its way.
        let would_wait = |session: &Session<Box<dyn TraceSource>>| {
            ahead
                .as_ref()
                .is_some_and(|a| a.would_wait_for(session.next_read_len()))
        };
        // Nothing is indexed while waiting, so the next read stays this long.
        let waiting_for = self
            .open
            .borrow()
            .as_ref()
            .filter(|open| would_wait(&open.session))
            .map(|open| open.session.next_read_len());
        if let Some((a, len)) = ahead.clone().zip(waiting_for) {
            wasm_bindgen_futures::spawn_local(async move {
                let waited = now();
                a.next_read_of_ready(len).await;
                // Indexing idle for want of bytes: the read-ahead not keeping up.
                timing::measure("wait for bytes", waited);
                if let Err(e) = with(|w| w.schedule_step(generation)) {
                    post(&ToPage::Failed {
                        message: format!("cannot schedule indexing in the worker: {e}"),
                    });
                }
            });
            return;
        }
        let started = now();
        let mut first = false;
        let result = self.open.borrow_mut().as_mut().map(|open| {
            // The first slice alone, so the first screenful can be asked for
            // at once; then slices until the task's time is up.
            first = open.session.progress().done_bytes == 0;
            let mut p = open.session.index_step(if first {
                FIRST_STEP_BYTES
            } else {
                SESSION_STEP_BYTES
            })?;
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
                p = open.session.index_step(SESSION_STEP_BYTES)?;
            }
            if p.complete && open.digest {
                open.digest = false;
                if let Some(digest) = ranges::digest(&open.session) {
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
                self.paused.set(true);
            }
            let cache = if p.complete { open.cache.take() } else { None };
            if p.complete || p.stopped.is_some() {
                // Indexing's reading is over (done, or stopped at the
                // memory budget): the readers' buffers are not needed to
                // browse.
                if let Some(ahead) = &open.ahead {
                    ahead.borrow_mut().stop_reader();
                }
                read_ahead::stop_spare_reader();
            }
            Ok::<_, tarmac_lens_core::Error>((p, open.session.stats().cloned(), cache))
        });
        timing::measure("index step", started);
        // The page has not said it shows the first rows (no view): split anyway,
        // well before the session could pass the first split point.
        if self.split_pending() && now() - self.opened_at.get() > SPLIT_BY_MS {
            self.ask_for_ranges();
        }
        let Some(result) = result else { return };
        match result {
            Ok((progress, stats, cache)) => {
                let t = now();
                let due = t - self.last_progress.get() >= PROGRESS_INTERVAL_MS;
                if due || progress.complete {
                    self.last_progress.set(t);
                    post(&ToPage::Indexing(progress.clone()));
                }
                if progress.stopped.is_some() {
                    // Over the memory budget: what is indexed stays browsable.
                    post(&ToPage::Indexing(progress));
                    return;
                }
                if progress.complete {
                    read_ahead::log_totals("indexed");
                    if let Some(stats) = stats {
                        post(&ToPage::Finished {
                            stats: Box::new(stats),
                        });
                    }
                    if let Some((key, id)) = cache {
                        wasm_bindgen_futures::spawn_local(saving::save_index(generation, key, id));
                    }
                    return;
                }
                if self.paused.get() {
                    // Resumed by `ranges_changed` when a range arrives.
                    return;
                }
                if first {
                    // Resumed by `ToWorker::Shown`, or after a while.
                    self.hold_for_first_screen(generation);
                    return;
                }
                if let Err(e) = self.schedule_step(generation) {
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

    /// A range arrived, failed or progressed: indexing resumes if it waited
    /// (the step also posts the progress).
    pub(super) fn ranges_changed(&self, generation: u32) {
        if self.is_current(generation) && self.paused.replace(false) {
            if let Err(e) = self.schedule_step(generation) {
                post(&ToPage::Failed {
                    message: format!("cannot schedule indexing in the worker: {e}"),
                });
            }
        }
    }
}
