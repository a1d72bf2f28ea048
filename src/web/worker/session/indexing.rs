//! The session's indexing, in steps: each a task of its own, so the
//! page's questions are answered between them. Each step asks the pacer
//! (`pacer`) for its budget, indexes that much and tells the pacer.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use super::pacer::{Budget, Pacer};
use super::{crash_on_purpose, ranges, saving, with, SessionWorker};
use crate::web::reading::read_ahead;
use crate::web::shared::protocol::{PageEvent, ToPage};
use crate::web::shared::timing::{self, now};
use crate::web::worker::runtime::{post, SESSION_STEP_BYTES};

/// How long a deferred split waits for the page to show the first rows: at the
/// fastest indexing this is some tens of megabytes, and ranges are at least
/// 64 MiB.
const SPLIT_BY_MS: f64 = 150.0;

impl SessionWorker {
    /// Resumes indexing held for the first screen, if it is.
    pub(super) fn resume_held(&self) {
        if let Some(generation) = self.pacer.release() {
            if self.is_current(generation) {
                self.schedule_or_fail(generation);
            }
        }
    }

    fn schedule_or_fail(&self, generation: u32) {
        if let Err(e) = self.schedule_step(generation) {
            post(&ToPage::Failed {
                message: format!("cannot schedule indexing in the worker: {e}"),
            });
        }
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
        let budget = self
            .open
            .borrow()
            .as_ref()
            .map(|open| self.pacer.budget(&open.session, open.ahead.clone()));
        let slices = match budget {
            None => return,
            Some(Budget::Wait(ahead, len)) => {
                wasm_bindgen_futures::spawn_local(async move {
                    Pacer::wait(ahead, len).await;
                    with(|w| w.schedule_or_fail(generation));
                });
                return;
            }
            Some(Budget::Index(slices)) => slices,
        };
        let started = now();
        let first = slices.first();
        let result = self.open.borrow_mut().as_mut().map(|open| {
            self.adopt_awaited(generation, &mut open.session);
            let mut p = open.session.index_step(slices.first_bytes())?;
            if let Some(crash) = open.crash {
                crash_on_purpose(crash);
            }
            while slices.more(&open.session, &p) {
                p = open.session.index_step(SESSION_STEP_BYTES)?;
            }
            if p.complete && !open.reported {
                open.reported = true;
                let digest = if open.digest {
                    ranges::digest(&open.session)
                } else {
                    None
                };
                let r = open.session.range_report();
                if let Some(r) = r.filter(|r| r.joined < r.ranges) {
                    // Indexing then took longer than it could have: say so
                    // where a person looking into it would find it.
                    web_sys::console::warn_1(
                        &format!(
                            "tarmac-lens: {} of {} ranges indexed by other workers were indexed again here",
                            r.ranges - r.joined,
                            r.ranges
                        )
                        .into(),
                    );
                }
                if digest.is_some() || r.is_some() {
                    let r = r.unwrap_or_default();
                    post(&ToPage::IndexDigest {
                        digest,
                        ranges: r.ranges as u32,
                        joined: r.joined as u32,
                    });
                }
            }
            if open.session.waiting_for_range() && !self.adopt_awaited(generation, &mut open.session)
            {
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
                if self.pacer.progress_due(&progress) {
                    post(&ToPage::Event(PageEvent::Progress(progress.clone())));
                }
                if progress.stopped.is_some() {
                    // Over the memory budget: what is indexed stays browsable.
                    post(&ToPage::Event(PageEvent::Progress(progress)));
                    return;
                }
                if progress.complete {
                    read_ahead::log_totals("indexed");
                    if let Some(stats) = stats {
                        post(&ToPage::Event(PageEvent::Stats(Box::new(stats))));
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
                    self.pacer.hold(generation);
                    return;
                }
                self.schedule_or_fail(generation);
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
            self.schedule_or_fail(generation);
        }
    }
}
