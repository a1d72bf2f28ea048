//! Rendering a move once, when its answers are all in (the page's trace
//! browser uses it; it is here, UI-free, to be tested natively).
//!
//! A move (a step, a jump) is one answer from the worker followed by
//! several about the new position: the cursor's row, the call stack, each
//! pane's registers or memory. The worker has them all within a few
//! milliseconds, but rendering the first one delays the rest: after a key
//! press Chromium gives the next frame priority over the worker's messages,
//! so each render cost the answers behind it a frame (measured: the pane
//! updated 13–47 ms after the key, though the worker had answered within
//! 4 ms). Held answers are applied as they come and rendered together.

use std::cell::Cell;

/// Longest a run of held answers waits for a render: while the worker is
/// busy (indexing between answers, a key held down) the view still moves.
const MAX_HOLD_MS: f64 = 30.0;

#[derive(Default)]
pub struct RenderHold {
    /// The queries asked now are a move's follow-ups.
    asking: Cell<bool>,
    /// Held answers still on their way.
    outstanding: Cell<u32>,
    /// When the oldest unrendered held answer's wait began.
    since: Cell<Option<f64>>,
}

impl RenderHold {
    /// From now until [`Self::end_asking`], the queries asked are a move's
    /// follow-ups. Returns what to pass to `end_asking` (moves may nest).
    pub fn begin_asking(&self) -> bool {
        self.asking.replace(true)
    }

    pub fn end_asking(&self, was: bool) {
        self.asking.set(was);
    }

    /// Whether the query about to be asked is held (and counts it).
    pub fn take_query(&self, now: f64) -> bool {
        if !self.asking.get() {
            return false;
        }
        self.outstanding.set(self.outstanding.get() + 1);
        if self.since.get().is_none() {
            self.since.set(Some(now));
        }
        true
    }

    /// Whether answers are on their way (a render now would be premature).
    pub fn waiting(&self) -> bool {
        self.outstanding.get() > 0
    }

    /// A held answer arrived: whether to render now.
    pub fn arrived(&self, now: f64) -> bool {
        let left = self.outstanding.get().saturating_sub(1);
        self.outstanding.set(left);
        let overdue = self.since.get().is_some_and(|s| now - s >= MAX_HOLD_MS);
        if left == 0 || overdue {
            self.since.set((left > 0).then_some(now));
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_once_the_last_answer_is_in() {
        let h = RenderHold::default();
        assert!(!h.take_query(0.0), "not asking: not held");
        let was = h.begin_asking();
        assert!(h.take_query(0.0));
        assert!(h.take_query(0.0));
        assert!(h.take_query(0.0));
        h.end_asking(was);
        assert!(!h.take_query(0.0), "done asking");
        assert!(h.waiting());
        assert!(!h.arrived(1.0));
        assert!(!h.arrived(2.0));
        assert!(h.arrived(3.0));
        assert!(!h.waiting());
    }

    #[test]
    fn a_long_wait_renders_what_arrived() {
        let h = RenderHold::default();
        let was = h.begin_asking();
        for _ in 0..4 {
            h.take_query(0.0);
        }
        h.end_asking(was);
        assert!(!h.arrived(5.0));
        assert!(h.arrived(MAX_HOLD_MS + 1.0), "overdue");
        // The clock starts again for the rest.
        assert!(!h.arrived(MAX_HOLD_MS + 2.0));
        assert!(h.arrived(MAX_HOLD_MS + 3.0), "the last");
    }
}
