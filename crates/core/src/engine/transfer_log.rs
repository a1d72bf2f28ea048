//! The transfers a parallel-indexing range logs for the stitch
//! ([`TopTransfer`]), kept as varint deltas from the entry before.
//!
//! A range that never sees sp written (gem5's AArch64 traces) logs every
//! jump and call: 136 bytes each as structs made 2 jobs need 206 MB where
//! 1 needs 75 on a 1 GB trace; as deltas an entry takes about 25 bytes.

use super::position::Site;
use crate::codec::varint::{self, unzigzag as unzigzag_delta, zigzag as zigzag_delta};
use crate::codec::{Dec, Enc};

/// A transfer of control whose outcome depends on potential calls made
/// before a parallel-indexing split point (see
/// [`CallDetector::defer`](super::calls::CallDetector::defer)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TopTransfer {
    /// Highest sp reported since the split, before this transfer.
    pub(crate) max_sp: Option<u64>,
    pub(crate) sp: u64,
    /// sp had not been written since the range started (`sp` is
    /// `u64::MAX`): the sequential pass read the value it held at the
    /// split, at this (offset, size) of the register file.
    pub(crate) sp_from_split: Option<(u16, u8)>,
    pub(crate) pc: u64,
    pub(crate) lr_candidate: Option<u64>,
    pub(crate) previous: Site,
    pub(crate) current: Site,
}

/// Transfers in the order logged.
#[derive(Clone, Debug, Default)]
pub(crate) struct TransferLog {
    bytes: Vec<u8>,
    len: usize,
    /// The last entry pushed: the next one is coded against it.
    last: Option<TopTransfer>,
}

const MAX_SP: u8 = 1;
const SP_FROM_SPLIT: u8 = 2;
const LR: u8 = 4;

fn zigzag(v: u64, base: u64) -> u64 {
    zigzag_delta(v.wrapping_sub(base) as i64)
}

fn unzigzag(z: u64, base: u64) -> u64 {
    base.wrapping_add(unzigzag_delta(z) as u64)
}

fn fields(s: &Site) -> [u64; 5] {
    [s.time, s.line, s.pc, s.offset, s.node]
}

fn site(f: [u64; 5]) -> Site {
    let [time, line, pc, offset, node] = f;
    Site {
        time,
        line,
        pc,
        offset,
        node,
    }
}

/// The entry an empty log's first one is coded against.
fn origin() -> TopTransfer {
    TopTransfer {
        max_sp: None,
        sp: 0,
        sp_from_split: None,
        pc: 0,
        lr_candidate: None,
        previous: Site::default(),
        current: Site::default(),
    }
}

impl TransferLog {
    pub(crate) fn push(&mut self, t: TopTransfer) {
        let base = self.last.unwrap_or_else(origin);
        let out = &mut self.bytes;
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        let flags = flag(t.max_sp.is_some(), MAX_SP)
            | flag(t.sp_from_split.is_some(), SP_FROM_SPLIT)
            | flag(t.lr_candidate.is_some(), LR);
        out.push(flags);
        if let Some(m) = t.max_sp {
            varint::put(out, zigzag(m, base.max_sp.unwrap_or(0)));
        }
        varint::put(out, zigzag(t.sp, base.sp));
        if let Some((offset, size)) = t.sp_from_split {
            varint::put(out, u64::from(offset) << 8 | u64::from(size));
        }
        varint::put(out, zigzag(t.pc, base.pc));
        if let Some(lr) = t.lr_candidate {
            varint::put(out, zigzag(lr, t.pc));
        }
        // Sites move forward: the previous from the last entry's current,
        // the current from this previous.
        for (v, b) in fields(&t.previous).into_iter().zip(fields(&base.current)) {
            varint::put(out, zigzag(v, b));
        }
        for (v, b) in fields(&t.current).into_iter().zip(fields(&t.previous)) {
            varint::put(out, zigzag(v, b));
        }
        self.len += 1;
        self.last = Some(t);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The entries in the order pushed.
    pub(crate) fn iter(&self) -> impl Iterator<Item = TopTransfer> + '_ {
        let mut pos = 0;
        let mut base = origin();
        std::iter::from_fn(move || {
            if pos >= self.bytes.len() {
                return None;
            }
            // Only `push` (or `decode`, which checked them) wrote these
            // bytes: a short read is a bug.
            base = entry(&self.bytes, &mut pos, &base).expect("a whole entry");
            Some(base)
        })
    }

    /// Writes the log as it is kept (about 25 bytes an entry; each field
    /// on its own took three times that: a 53 GB range's log of gem5's
    /// transfers 1.1 GB).
    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u(self.len as u64);
        e.bytes(&self.bytes);
    }

    /// Reads what [`TransferLog::encode`] wrote, every entry checked whole.
    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<TransferLog> {
        let len = d.count()?;
        let bytes = d.bytes()?;
        let (mut pos, mut last, mut n) = (0, None, 0);
        while pos < bytes.len() {
            last = Some(entry(bytes, &mut pos, &last.unwrap_or_else(origin))?);
            n += 1;
        }
        (n == len).then(|| TransferLog {
            bytes: bytes.to_vec(),
            len,
            last,
        })
    }

    /// Heap bytes held.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
    }
}

/// The entry at `pos`, coded against `base`; `None` if the bytes end
/// within it.
fn entry(buf: &[u8], pos: &mut usize, base: &TopTransfer) -> Option<TopTransfer> {
    let flags = *buf.get(*pos)?;
    *pos += 1;
    let mut next = || varint::get(buf, pos);
    let max_sp = match flags & MAX_SP {
        0 => None,
        _ => Some(unzigzag(next()?, base.max_sp.unwrap_or(0))),
    };
    let sp = unzigzag(next()?, base.sp);
    let sp_from_split = match flags & SP_FROM_SPLIT {
        0 => None,
        _ => {
            let v = next()?;
            Some(((v >> 8) as u16, v as u8))
        }
    };
    let pc = unzigzag(next()?, base.pc);
    let lr_candidate = match flags & LR {
        0 => None,
        _ => Some(unzigzag(next()?, pc)),
    };
    let mut previous = fields(&base.current);
    for f in &mut previous {
        *f = unzigzag(next()?, *f);
    }
    let mut current = previous;
    for f in &mut current {
        *f = unzigzag(next()?, *f);
    }
    Some(TopTransfer {
        max_sp,
        sp,
        sp_from_split,
        pc,
        lr_candidate,
        previous: site(previous),
        current: site(current),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rand(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn entries_come_back_as_pushed_and_small() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut log = TransferLog::default();
        let mut want = Vec::new();
        let mut at = Site {
            time: 100,
            line: 1,
            pc: 0x8000,
            offset: 0,
            node: 0,
        };
        for i in 0..5000u64 {
            let r = rand(&mut state);
            let step = |at: Site, r: u64| Site {
                time: at.time + r % 3,
                line: at.line + 1 + r % 5,
                pc: if r.is_multiple_of(7) {
                    u64::MAX
                } else {
                    0x8000 + (r >> 20) % 0x4000
                },
                offset: at.offset + 30 + r % 200,
                node: at.node + 1 + r % 4,
            };
            let previous = step(at, r);
            let current = step(previous, r >> 8);
            at = current;
            let t = TopTransfer {
                max_sp: (!i.is_multiple_of(3)).then_some(0xffff_0000 + (r >> 40) % 0x1000),
                sp: if r.is_multiple_of(5) {
                    u64::MAX
                } else {
                    0xfff0_0000 + (r >> 30) % 0x100
                },
                sp_from_split: (r.is_multiple_of(4)).then_some(((r >> 8) as u16, r as u8)),
                pc: if r.is_multiple_of(11) {
                    0
                } else {
                    0x8000 + (r >> 12) % 0x4000
                },
                lr_candidate: (r % 3 == 1).then_some(if r.is_multiple_of(13) {
                    u64::MAX
                } else {
                    0x8004
                }),
                previous,
                current,
            };
            log.push(t);
            want.push(t);
        }
        assert_eq!(log.len(), want.len());
        let got: Vec<_> = log.iter().collect();
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        let per_entry = log.heap_bytes() / want.len();
        assert!(per_entry < 45, "{per_entry} bytes per entry");

        // Through another worker: the same entries, and a push after them
        // coded against the last.
        let mut e = Enc::default();
        log.encode(&mut e);
        let mut back = TransferLog::decode(&mut Dec::new(e.written())).expect("decodes");
        let extra = want[want.len() / 2];
        back.push(extra);
        log.push(extra);
        assert_eq!(back.bytes, log.bytes);
        assert_eq!(
            format!("{:?}", back.iter().collect::<Vec<_>>()),
            format!("{:?}", log.iter().collect::<Vec<_>>())
        );
    }

    #[test]
    fn a_cut_or_miscounted_log_does_not_decode() {
        let mut log = TransferLog::default();
        for node in 1..=3 {
            log.push(TopTransfer {
                current: Site {
                    node,
                    ..Site::default()
                },
                ..origin()
            });
        }
        let mut e = Enc::default();
        log.encode(&mut e);
        assert!(TransferLog::decode(&mut Dec::new(e.written())).is_some());
        // The byte run one shorter: its last entry cut.
        let mut cut = Enc::default();
        cut.u(3);
        cut.bytes(&log.bytes[..log.bytes.len() - 1]);
        assert!(TransferLog::decode(&mut Dec::new(cut.written())).is_none());
        let mut miscounted = Enc::default();
        miscounted.u(4);
        miscounted.bytes(&log.bytes);
        assert!(TransferLog::decode(&mut Dec::new(miscounted.written())).is_none());
    }
}
