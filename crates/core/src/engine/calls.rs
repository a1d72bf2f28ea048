//! Function-call detection by the reference tools' heuristic (manual,
//! appendix on call detection), reproduced exactly so that call trees match
//! theirs: a transfer of control is a *potential* call when lr was written
//! within the last 8 instructions and holds an address within 64 bytes of
//! the natural return address; it becomes a call when a later transfer goes
//! to that lr value with the same sp, sp never having been higher between.

use std::collections::BTreeMap;

use super::transfer_log::{TopTransfer, TransferLog};
use super::Site;
use crate::codec::{Dec, Enc};

/// A confirmed call: the node holding the call instruction, the callee's
/// first node, its last node and the caller's node it returned to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// The node holding the call instruction.
    pub call_site: Site,
    /// The callee's first node.
    pub entry: Site,
    /// The callee's last node.
    pub exit: Site,
    /// The caller's node execution returned to.
    pub resume: Site,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    call_site: Site,
    entry: Site,
}

/// Tracks potential calls until their returns.
#[derive(Default)]
pub(crate) struct CallDetector {
    /// Keyed by (sp, return address); ordered by sp so that a rising sp can
    /// discard every potential call made deeper in the stack.
    pending: BTreeMap<(u64, u64), Pending>,
    deferred: Option<Deferred>,
}

/// Deferred mode: the potential calls pending at the split are unknown.
/// A pending call with stack pointer `s` survives exactly while every sp
/// reported since is at most `s`, so a transfer whose sp is below the
/// highest sp seen since the split cannot meet one of them, nor a call
/// recorded by a transfer that could; only transfers at or above that mark
/// need the calls from before the split, and they are logged for the stitch
/// to replay in order.
#[derive(Default)]
struct Deferred {
    max_sp: Option<u64>,
    log: TransferLog,
}

pub(crate) enum Transfer {
    /// The transfer returned from `call`.
    Return(Call),
    /// The transfer was recorded as a potential call with this sp and lr.
    PotentialCall {
        sp: u64,
        lr: u64,
    },
    Neither,
}

impl CallDetector {
    /// sp changed: potential calls made with a lower sp can no longer return.
    pub(crate) fn sp_changed(&mut self, sp: u64) {
        if let Some(d) = &mut self.deferred {
            d.max_sp = Some(d.max_sp.map_or(sp, |m| m.max(sp)));
        }
        // Usually nothing is below sp: look at the lowest entry only.
        // `split_off` built a new map and dropped the old at every sp
        // change, allocating in the per-line path.
        while let Some(lowest) = self.pending.first_entry() {
            if lowest.key().0 >= sp {
                break;
            }
            lowest.remove();
        }
    }

    /// Starts deferred mode with nothing pending (at a split point).
    pub(crate) fn defer(&mut self) {
        self.pending.clear();
        self.deferred = Some(Deferred::default());
    }

    /// The logged transfers and the highest sp seen, ending deferred mode.
    pub(crate) fn take_deferred(&mut self) -> (TransferLog, Option<u64>) {
        let d = self.deferred.take().unwrap_or_default();
        (d.log, d.max_sp)
    }

    /// The transfers logged since the split (none outside deferred mode).
    pub(crate) fn deferred_log(&self) -> impl Iterator<Item = TopTransfer> + '_ {
        self.deferred.iter().flat_map(|d| d.log.iter())
    }

    /// Replays transfers logged by a deferred detector on this one (the
    /// state at the split), mapping their sites and reading the sp of those
    /// made with sp from before the split through `sp_at_split`; returns
    /// confirmed calls.
    pub(crate) fn replay(
        &mut self,
        log: &TransferLog,
        max_sp_end: Option<u64>,
        map: impl Fn(Site) -> Site,
        sp_at_split: impl Fn((u16, u8)) -> Option<u64>,
        out: &mut dyn FnMut(&Call),
    ) {
        for t in log.iter() {
            if let Some(m) = t.max_sp {
                self.sp_changed(m);
            }
            let sp = t
                .sp_from_split
                .map_or(t.sp, |at| sp_at_split(at).unwrap_or(u64::MAX));
            let r = self.transfer(
                sp,
                None,
                t.pc,
                t.lr_candidate,
                map(t.previous),
                map(t.current),
            );
            if let Transfer::Return(call) = r {
                out(&call);
            }
        }
        if let Some(m) = max_sp_end {
            self.sp_changed(m);
        }
    }

    /// Adds the potential calls of a detector that ran after the split
    /// (none can share a key with this one's: see [`Deferred`]).
    pub(crate) fn absorb(&mut self, other: CallDetector, map: impl Fn(Site) -> Site) {
        for (k, p) in other.pending {
            self.pending.entry(k).or_insert(Pending {
                call_site: map(p.call_site),
                entry: map(p.entry),
            });
        }
    }

    /// A transfer of control to `pc` (Thumb bit set for Thumb) at node
    /// `current`, whose predecessor is `previous`. `sp` is `u64::MAX` when
    /// unknown (`sp_from_split`: where it is, when it is unknown because
    /// it was not written since a range started); `lr_candidate` is lr
    /// when it qualifies as a return address.
    pub(crate) fn transfer(
        &mut self,
        sp: u64,
        sp_from_split: Option<(u16, u8)>,
        pc: u64,
        lr_candidate: Option<u64>,
        previous: Site,
        current: Site,
    ) -> Transfer {
        if let Some(d) = &mut self.deferred {
            if d.max_sp.is_none_or(|m| sp >= m) {
                d.log.push(TopTransfer {
                    max_sp: d.max_sp,
                    sp,
                    sp_from_split,
                    pc,
                    lr_candidate,
                    previous,
                    current,
                });
                return Transfer::Neither;
            }
        }
        if let Some(p) = self.pending.remove(&(sp, pc)) {
            return Transfer::Return(Call {
                call_site: p.call_site,
                entry: p.entry,
                exit: previous,
                resume: current,
            });
        }
        if let Some(lr) = lr_candidate {
            // A set in the reference implementation: an existing entry wins.
            self.pending.entry((sp, lr)).or_insert(Pending {
                call_site: previous,
                entry: current,
            });
            return Transfer::PotentialCall { sp, lr };
        }
        Transfer::Neither
    }

    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u(self.pending.len() as u64);
        for (&(sp, lr), p) in &self.pending {
            e.u(sp);
            e.u(lr);
            p.call_site.encode(e);
            p.entry.encode(e);
        }
        e.b(self.deferred.is_some());
        if let Some(d) = &self.deferred {
            e.opt(d.max_sp);
            d.log.encode(e);
        }
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<CallDetector> {
        let mut pending = BTreeMap::new();
        for _ in 0..d.count()? {
            let key = (d.u()?, d.u()?);
            let p = Pending {
                call_site: Site::decode(d)?,
                entry: Site::decode(d)?,
            };
            pending.insert(key, p);
        }
        let deferred = if d.b()? {
            let max_sp = d.opt()?;
            let log = TransferLog::decode(d)?;
            Some(Deferred { max_sp, log })
        } else {
            None
        };
        Some(CallDetector { pending, deferred })
    }

    /// (call site, entry) of every pending potential call.
    pub(crate) fn pending_list(&self) -> Vec<(Site, Site)> {
        self.pending
            .values()
            .map(|p| (p.call_site, p.entry))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(node: u64) -> Site {
        Site {
            node,
            ..Site::default()
        }
    }

    /// Records a potential call made with `sp` returning to `lr`.
    fn call(d: &mut CallDetector, sp: u64, lr: u64, node: u64) {
        let t = d.transfer(
            sp,
            None,
            0x8000 + node,
            Some(lr),
            site(node),
            site(node + 1),
        );
        assert!(matches!(t, Transfer::PotentialCall { .. }));
    }

    #[test]
    fn a_rise_of_sp_drops_exactly_the_potential_calls_made_below_it() {
        let mut d = CallDetector::default();
        call(&mut d, 0x100, 0x10, 1);
        call(&mut d, 0x200, 0x20, 3);
        call(&mut d, 0x200, 0x24, 5);
        call(&mut d, 0x300, 0x30, 7);
        d.sp_changed(0x200);
        let left: Vec<u64> = d.pending_list().iter().map(|(s, _)| s.node).collect();
        assert_eq!(left, [3, 5, 7]);
        // Nothing below: nothing dropped.
        d.sp_changed(0x80);
        assert_eq!(d.pending_list().len(), 3);
        // The call made at the same sp still returns; the one below cannot.
        assert!(matches!(
            d.transfer(0x200, None, 0x20, None, site(9), site(10)),
            Transfer::Return(Call { call_site, .. }) if call_site.node == 3
        ));
        assert!(matches!(
            d.transfer(0x100, None, 0x10, None, site(11), site(12)),
            Transfer::Neither
        ));
        d.sp_changed(u64::MAX);
        assert!(d.pending_list().is_empty());
    }
}
