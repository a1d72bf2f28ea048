//! Per instruction address, how often the trace ran it: kept by the index
//! so per-line execution counts (the source pane's gutter) need no second
//! pass over the trace. One map update per instruction with a multiply
//! hash is within indexing's noise (V8: 36.0 → 32.3 ms, ±4; the rest in
//! docs/performance.md, "Source lines"); one entry per distinct PC: the
//! program's size, not the trace's.

use crate::parse::Effect;
use crate::state::fasthash::AddrMap;

/// Instructions that ran and instructions that failed their condition
/// (`IS`, `CCFAIL`); the second are not in the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Executed.
    pub executed: u64,
    /// Reached but not executed: the condition failed.
    pub failed: u64,
}

impl Counts {
    /// Adds `other` in.
    pub fn add(&mut self, other: Counts) {
        self.executed += other.executed;
        self.failed += other.failed;
    }
}

/// Counts by instruction address (Thumb bit cleared).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PcCountMap {
    map: AddrMap<u64, Counts>,
}

impl PcCountMap {
    pub(crate) fn note(&mut self, pc: u64, effect: Effect) {
        let c = self.map.entry(pc & !1).or_default();
        match effect {
            Effect::Executed => c.executed += 1,
            Effect::CondFail => c.failed += 1,
            // Nothing was decoded, so nothing ran or failed.
            Effect::FetchFail => {}
        }
    }

    pub(crate) fn add(&mut self, pc: u64, counts: Counts) {
        self.map.entry(pc).or_default().add(counts);
    }

    /// Adds another part of the trace's counts in (the parallel stitch).
    pub(crate) fn merge(&mut self, other: &PcCountMap) {
        for (&pc, &c) in &other.map {
            self.add(pc, c);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The counts of one address (Thumb bit cleared).
    pub(crate) fn get(&self, pc: u64) -> Option<Counts> {
        self.map.get(&(pc & !1)).copied()
    }

    /// Every address with its counts, in ascending order.
    pub(crate) fn sorted(&self) -> Vec<(u64, Counts)> {
        let mut v: Vec<(u64, Counts)> = self.map.iter().map(|(p, c)| (*p, *c)).collect();
        v.sort_unstable_by_key(|(p, _)| *p);
        v
    }

    pub(crate) fn resident_bytes(&self) -> usize {
        self.map.capacity() * (8 + std::mem::size_of::<Counts>() + 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_by_address_without_the_thumb_bit() {
        let mut m = PcCountMap::default();
        m.note(0x8001, Effect::Executed);
        m.note(0x8000, Effect::Executed);
        m.note(0x8000, Effect::CondFail);
        m.note(0x8004, Effect::FetchFail);
        let mut other = PcCountMap::default();
        other.note(0x8000, Effect::Executed);
        m.merge(&other);
        assert_eq!(
            m.sorted(),
            vec![
                (
                    0x8000,
                    Counts {
                        executed: 3,
                        failed: 1
                    }
                ),
                (0x8004, Counts::default()),
            ]
        );
    }
}
