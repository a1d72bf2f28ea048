//! The session's list of the ELF image's functions by part of their name,
//! with how often each was entered: what a "go to a function" search (the
//! page's command palette) offers. The counts come from the index's
//! per-address counts, so the list costs no pass over the trace.

use super::protocol::{FunctionHit, Functions};
use super::question::{Answerable, Example};
use super::Session;
use crate::source::TraceSource;
use crate::Result;

/// Most functions one answer holds.
pub const MAX_FUNCTIONS: u32 = 100;

impl Answerable for Functions {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Vec<FunctionHit>> {
        Ok(session.functions(&self.text, self.count))
    }

    /// The palette's.
    fn examples(_: &Example) -> Vec<Functions> {
        vec![Functions {
            text: "a".into(),
            count: 20,
        }]
    }
}

impl<S: TraceSource> Session<S> {
    fn functions(&self, text: &str, count: u32) -> Vec<FunctionHit> {
        let Some(image) = &self.image else {
            return Vec::new();
        };
        let text = text.trim().to_lowercase();
        let index = self.index();
        // 0: the name itself, 1: starts with it, 2: contains it.
        let mut found: Vec<(u8, FunctionHit)> = image
            .symbols()
            .iter()
            .filter(|s| s.is_function())
            .filter_map(|s| {
                let name = s.display_name();
                let lower = name.to_lowercase();
                let rank = if lower == text {
                    0
                } else if lower.starts_with(&text) {
                    1
                } else if lower.contains(&text) {
                    2
                } else {
                    return None;
                };
                // The Thumb bit is not part of the address that runs.
                let addr = s.addr & !1;
                let calls = index.and_then(|i| i.pc_count(addr)).map(|c| c.executed);
                Some((rank, FunctionHit { name, addr, calls }))
            })
            .collect();
        found.sort_by(|(ra, a), (rb, b)| {
            ra.cmp(rb)
                .then(b.calls.cmp(&a.calls))
                .then_with(|| a.name.cmp(&b.name))
        });
        found.truncate(count.min(MAX_FUNCTIONS) as usize);
        found.into_iter().map(|(_, f)| f).collect()
    }
}
