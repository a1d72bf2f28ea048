//! The session worker's side of parallel indexing: the split into ranges,
//! deferred until the page shows the first rows, and the ports on which
//! range workers (`worker::range`) report; what arrives goes to the
//! session, which adopts ranges in order.

use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, MessagePort};

use tarmac_lens_core::TraceSource;

use super::{with, SessionWorker};
use crate::web::shared::protocol::ToPage;
use crate::web::shared::timing;
use crate::web::worker::range_port::{self, RangeMsg};
use crate::web::worker::runtime::post;

/// The trace generation to split, and into how many parts.
pub(super) type Deferred = (u32, usize);

/// A port the session's worker listens on, and its handler.
pub(super) type Listener = (MessagePort, Closure<dyn FnMut(MessageEvent)>);

impl SessionWorker {
    /// The trace opened as `generation` is to be indexed in `parts` ranges,
    /// the others by other workers. The split and the ask for those workers
    /// wait for [`Self::ask_for_ranges`]: once the page shows the first
    /// rows, so that finding the split points (a read at each, 5-16 ms) and
    /// the workers' indexing do not compete with drawing them.
    pub(super) fn defer_split(&self, generation: u32, parts: usize) {
        *self.to_split.borrow_mut() = (parts > 1).then_some((generation, parts));
    }

    /// Whether a split waits for [`Self::ask_for_ranges`].
    pub(super) fn split_pending(&self) -> bool {
        self.to_split.borrow().is_some()
    }

    /// Splits the trace as deferred and asks the page for the ranges' workers,
    /// once: when the page shows the first rows, or soon after opening if it
    /// does not say. Not
    /// from inside a use of the session (it is used here).
    pub(super) fn ask_for_ranges(&self) {
        let Some((generation, parts)) = self.to_split.borrow_mut().take() else {
            return;
        };
        let started = timing::now();
        let mut ranges = Vec::new();
        self.with_session(generation, |s| {
            ranges = s.split_indexing(parts).unwrap_or_default();
        });
        timing::measure("split", started);
        if !ranges.is_empty() {
            post(&ToPage::IndexRanges { ranges });
        }
    }

    /// What arrives on `port` is part `part` of the trace opened as
    /// `generation`.
    pub(super) fn listen(&self, generation: u32, part: u32, port: MessagePort) {
        let part_no = part as usize;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let (parts, msg) = range_port::receive(e.data());
            with(|w| {
                w.with_session(generation, |session| match msg {
                    Ok(RangeMsg::Progress { done }) => session.range_progress(part_no, done),
                    Ok(RangeMsg::Done { stats }) => {
                        // Counted as indexed; its bytes wait in their
                        // buffers until the session reaches the range
                        // ([`SessionWorker::adopt_awaited`]).
                        session.range_progress(part_no, u64::MAX);
                        w.arrived
                            .borrow_mut()
                            .push((generation, part_no, parts, stats));
                    }
                    Ok(RangeMsg::Failed { message }) => {
                        web_sys::console::warn_1(
                            &format!("tarmac-lens: range {part} indexed here instead: {message}")
                                .into(),
                        );
                        session.range_failed(part_no);
                    }
                    Err(e) => {
                        web_sys::console::warn_1(
                            &format!("tarmac-lens: unreadable message for range {part}: {e}")
                                .into(),
                        );
                        session.range_failed(part_no);
                    }
                });
                w.ranges_changed(generation);
            });
        });
        port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let mut l = self.listening.borrow_mut();
        if l.0 != generation {
            self.arrived.borrow_mut().clear();
            for (port, _) in l.1.drain(..) {
                port.set_onmessage(None);
                port.close();
            }
            l.0 = generation;
        }
        l.1.push((port, on_message));
    }

    /// Hands the session the range it waits for, if it has arrived: only
    /// then are its bytes copied into wasm memory and decoded, so the range
    /// worker, which ends once it has sent them, has given its own memory
    /// back (copied on arrival, both were held at once: the tab's peak).
    /// Whether it did.
    pub(super) fn adopt_awaited<S: TraceSource>(
        &self,
        generation: u32,
        session: &mut tarmac_lens_core::Session<S>,
    ) -> bool {
        let Some(part) = session.awaited_range() else {
            return false;
        };
        let mut arrived = self.arrived.borrow_mut();
        let Some(i) = arrived
            .iter()
            .position(|a| a.0 == generation && a.1 == part)
        else {
            return false;
        };
        let (_, _, parts, stats) = arrived.swap_remove(i);
        drop(arrived);
        let bytes = range_port::gather(&parts);
        drop(parts);
        session.take_range(part, &bytes, *stats);
        true
    }
}

/// A range's bytes (the message's parts) and statistics, arrived for a
/// trace generation, as (generation, part, parts, statistics).
pub(super) type Arrived = (u32, usize, js_sys::Array, Box<tarmac_lens_core::Stats>);

/// A digest of a finished session's index and statistics (FNV-1a, 64
/// bits): equal digests for indexes built in one worker or in several.
/// It hashes the saved bytes a piece at a time: at 100 GB the whole of
/// them beside the index did not fit in wasm32's memory.
pub fn digest<S: TraceSource>(session: &tarmac_lens_core::Session<S>) -> Option<String> {
    let mut saving = session.save_start(tarmac_lens_core::TraceIdentity { len: 0, mtime: 0 })?;
    let (mut h, mut len) = (0xcbf2_9ce4_8422_2325_u64, 0usize);
    loop {
        let done = session.save_step(&mut saving, 1 << 16)?;
        let piece = saving.take_output();
        len += piece.len();
        for &b in &piece {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        if done {
            return Some(format!("{h:016x}-{len}"));
        }
    }
}
