//! Calls as indexing finds them, kept until the table's finish sorts and
//! encodes them: every [`RUN`] calls are sealed as varint deltas (about 15
//! bytes a call instead of 56), because while a trace is indexed they were
//! most of the index: 106 of the 133 MB a 3 GB trace's index held before
//! its finish, which bounded the trace a tab can index.
//!
//! Every field is stored as the zigzag of a wrapping difference, a
//! bijection, so any value (a call never returned: `u64::MAX`) reads back
//! exactly; closeness only makes it short.

use crate::codec::varint::{self, unzigzag, zigzag};
use crate::codec::{Dec, Enc};

/// What indexing keeps of a call until `finish` encodes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RawCall {
    pub(super) entry_node: u64,
    pub(super) entry_line: u64,
    pub(super) entry_pc: u64,
    pub(super) call_node: u64,
    pub(super) call_pc: u64,
    /// `u64::MAX` when the call never returned.
    pub(super) resume_node: u64,
    pub(super) resume_line: u64,
}

/// Calls sealed together; deltas restart at each run, so one decodes alone.
const RUN: usize = 32;

/// Bytes per sealed block at most: runs never straddle two, and a block
/// grows to this and no further (one vector of all of them would double
/// into twice its size).
const BLOCK_BYTES: usize = 1 << 20;

/// Decoded runs kept for `get`: the finish reads calls in entry order,
/// which goes back a call's nesting depth from the return order they were
/// pushed in, so it stays within a few recent runs.
const CACHED_RUNS: usize = 8;

/// Calls in the order they returned.
#[derive(Default)]
pub(super) struct RawCalls {
    blocks: Vec<Vec<u8>>,
    /// Where each sealed run starts: block `at / BLOCK_BYTES`, offset
    /// `at % BLOCK_BYTES`.
    runs: Vec<u64>,
    /// The calls after the last sealed run (fewer than [`RUN`]).
    open: Vec<RawCall>,
    len: usize,
    /// Runs decoded by `get`, by run number; replaced round-robin.
    cache: Vec<(usize, Vec<RawCall>)>,
    next_evicted: usize,
}

impl RawCalls {
    pub(super) fn push(&mut self, call: RawCall) {
        self.open.push(call);
        self.len += 1;
        if self.open.len() == RUN {
            self.seal();
        }
    }

    fn seal(&mut self) {
        let mut run = Vec::with_capacity(RUN * 16);
        let mut prev = RawCall::default();
        for c in &self.open {
            let d = |a: u64, b: u64| zigzag(a.wrapping_sub(b) as i64);
            for v in [
                d(c.entry_node, prev.entry_node),
                d(c.entry_line, prev.entry_line),
                d(c.entry_pc, prev.entry_pc),
                d(c.entry_node, c.call_node),
                d(c.call_pc, prev.call_pc),
                d(c.resume_node, c.entry_node),
                d(c.resume_line, c.entry_line),
            ] {
                varint::put(&mut run, v);
            }
            prev = *c;
        }
        self.open.clear();
        let fits = self
            .blocks
            .last()
            .is_some_and(|b| b.len() + run.len() <= BLOCK_BYTES);
        if !fits {
            self.blocks.push(Vec::new());
        }
        let block = self.blocks.len() - 1;
        let last = &mut self.blocks[block];
        self.runs.push((block * BLOCK_BYTES + last.len()) as u64);
        last.extend_from_slice(&run);
    }

    /// Run `r`'s calls.
    fn decode(&self, r: usize, out: &mut Vec<RawCall>) {
        out.clear();
        let at = self.runs[r] as usize;
        let (bytes, mut pos) = (&self.blocks[at / BLOCK_BYTES], at % BLOCK_BYTES);
        let mut prev = RawCall::default();
        for _ in 0..RUN {
            let mut next = || {
                // Sealed here, never read from a file: always whole.
                unzigzag(varint::get(bytes, &mut pos).unwrap_or(0)) as u64
            };
            let entry_node = prev.entry_node.wrapping_add(next());
            let entry_line = prev.entry_line.wrapping_add(next());
            let entry_pc = prev.entry_pc.wrapping_add(next());
            let call_node = entry_node.wrapping_sub(next());
            let call_pc = prev.call_pc.wrapping_add(next());
            let resume_node = entry_node.wrapping_add(next());
            let resume_line = entry_line.wrapping_add(next());
            prev = RawCall {
                entry_node,
                entry_line,
                entry_pc,
                call_node,
                call_pc,
                resume_node,
                resume_line,
            };
            out.push(prev);
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Call `i` (in the order pushed).
    pub(super) fn get(&mut self, i: usize) -> RawCall {
        let (r, k) = (i / RUN, i % RUN);
        if r == self.runs.len() {
            return self.open[k];
        }
        if let Some((_, calls)) = self.cache.iter().find(|(run, _)| *run == r) {
            return calls[k];
        }
        let mut calls = if self.cache.len() < CACHED_RUNS {
            Vec::with_capacity(RUN)
        } else {
            std::mem::take(&mut self.cache[self.next_evicted].1)
        };
        self.decode(r, &mut calls);
        let call = calls[k];
        if self.cache.len() < CACHED_RUNS {
            self.cache.push((r, calls));
        } else {
            self.cache[self.next_evicted] = (r, calls);
            self.next_evicted = (self.next_evicted + 1) % CACHED_RUNS;
        }
        call
    }

    /// The calls in the order pushed.
    pub(super) fn iter(&self) -> impl Iterator<Item = RawCall> + '_ {
        let mut run = Vec::with_capacity(RUN);
        (0..self.runs.len())
            .flat_map(move |r| {
                self.decode(r, &mut run);
                run.clone()
            })
            .chain(self.open.iter().copied())
    }

    /// For a range's part handed between workers: the sealed runs as they
    /// are (each call as seven plain varints took twice the bytes: 0.9 GB
    /// for a 50 GB range, copied four times on its way).
    pub(super) fn encode(&self, e: &mut Enc) {
        e.u(self.blocks.len() as u64);
        for b in &self.blocks {
            e.bytes(b);
        }
        e.u(self.runs.len() as u64);
        let mut last = 0;
        for &r in &self.runs {
            e.u(r - last);
            last = r;
        }
        e.u(self.open.len() as u64);
        for c in &self.open {
            for v in [
                c.entry_node,
                c.entry_line,
                c.entry_pc,
                c.call_node,
                c.call_pc,
                c.resume_node,
                c.resume_line,
            ] {
                e.u(v);
            }
        }
    }

    /// Reads what [`RawCalls::encode`] wrote; `None` if it does not hold
    /// together (a run outside the blocks, a full open run).
    pub(super) fn decode_from(d: &mut Dec<'_>) -> Option<RawCalls> {
        let mut raw = RawCalls::default();
        for _ in 0..d.count()? {
            let b = d.bytes()?;
            if b.len() > BLOCK_BYTES {
                return None;
            }
            raw.blocks.push(b.to_vec());
        }
        let mut at = 0u64;
        for _ in 0..d.count()? {
            at = at.checked_add(d.u()?)?;
            let (block, offset) = (at as usize / BLOCK_BYTES, at as usize % BLOCK_BYTES);
            if raw.blocks.get(block)?.len() <= offset {
                return None;
            }
            raw.runs.push(at);
        }
        let open = d.count()?;
        if open >= RUN {
            return None;
        }
        for _ in 0..open {
            raw.open.push(RawCall {
                entry_node: d.u()?,
                entry_line: d.u()?,
                entry_pc: d.u()?,
                call_node: d.u()?,
                call_pc: d.u()?,
                resume_node: d.u()?,
                resume_line: d.u()?,
            });
        }
        raw.len = raw.runs.len() * RUN + raw.open.len();
        Some(raw)
    }

    pub(super) fn capacity_bytes(&self) -> usize {
        self.blocks.iter().map(Vec::capacity).sum::<usize>()
            + self.runs.capacity() * 8
            + (self.open.capacity() + self.cache.len() * RUN) * std::mem::size_of::<RawCall>()
    }
}

impl Extend<RawCall> for RawCalls {
    fn extend<I: IntoIterator<Item = RawCall>>(&mut self, calls: I) {
        for c in calls {
            self.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// Calls as a trace makes them (near one another, returned inside
    /// out) and ones that are not (never returned, extreme values), pushed
    /// and read back in order, at random and after more pushes.
    #[test]
    fn every_call_reads_back_exactly() {
        let mut rng = Rng(0xca11_5eed);
        let mut want = Vec::new();
        let mut raw = RawCalls::default();
        let mut node = 1000u64;
        for i in 0..5000 {
            node += rng.index(50) as u64;
            let entry_node = node.saturating_sub(rng.index(200) as u64);
            let mut c = RawCall {
                entry_node,
                entry_line: entry_node * 2 + rng.index(9) as u64,
                entry_pc: 0x8000 + 4 * rng.index(4000) as u64,
                call_node: entry_node - 1,
                call_pc: 0x8000 + 4 * rng.index(4000) as u64,
                resume_node: node + 1,
                resume_line: node * 2 + 3,
            };
            match i % 97 {
                0 => {
                    c.resume_node = u64::MAX;
                    c.resume_line = u64::MAX;
                }
                1 => {
                    c.entry_pc = u64::MAX;
                    c.call_node = 0;
                    c.call_pc = rng.next();
                }
                2 => c.entry_line = rng.next(),
                _ => {}
            }
            raw.push(c);
            want.push(c);
        }
        assert_eq!(raw.len(), want.len());
        assert_eq!(raw.iter().collect::<Vec<_>>(), want);
        for _ in 0..3000 {
            let i = rng.index(want.len());
            assert_eq!(raw.get(i), want[i], "call {i}");
        }
        // Far smaller than the calls themselves.
        let held = raw.capacity_bytes() - CACHED_RUNS * RUN * std::mem::size_of::<RawCall>();
        assert!(
            held * 2 < want.len() * std::mem::size_of::<RawCall>(),
            "{held} bytes"
        );
        let more = RawCall {
            entry_node: 7,
            ..RawCall::default()
        };
        raw.push(more);
        want.push(more);
        assert_eq!(raw.get(want.len() - 1), more);
        assert_eq!(raw.iter().collect::<Vec<_>>(), want);

        // Handed between workers as bytes, and back; cut short, refused.
        let mut e = Enc::default();
        raw.encode(&mut e);
        let mut back = RawCalls::decode_from(&mut Dec::new(e.written())).unwrap();
        assert_eq!(back.len(), want.len());
        assert_eq!(back.iter().collect::<Vec<_>>(), want);
        assert_eq!(back.get(1234), want[1234]);
        for cut in [0, 1, e.written().len() / 2, e.written().len() - 1] {
            assert!(
                RawCalls::decode_from(&mut Dec::new(&e.written()[..cut])).is_none(),
                "cut at {cut}"
            );
        }
    }
}
