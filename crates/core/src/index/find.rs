//! Where a value condition ([`crate::condition`]) becomes true.
//!
//! A condition's value can change only at a node that writes a register it
//! reads, writes memory it reads (at the address it reads there), or
//! changes the execution state; a condition on `pc` can change at every
//! node. So intervals are walked from the start position, and one is
//! replayed only if its register-group bitmap names a register the
//! condition reads, or its memory summary touches a range the condition
//! reads at the interval's start (addresses evaluated with the registers
//! and memory of the checkpoint: if an address register changes inside,
//! the bitmap says so and the interval is replayed). A condition that is a
//! conjunction with `pc == CONSTANT` skips, in addition, the intervals whose
//! PC filter lacks that address (the condition is false all through them).
//! In a replayed interval the condition is evaluated after each node that
//! wrote something it reads.

use super::memdiff::ByteState;
use super::*;
use crate::condition::{BinOp, Cond, Condition, RegRef, Values};
use crate::state::regfile as registers;
use std::collections::HashMap;

mod lean;

/// Nodes of one interval with the condition's truth after them: the first
/// node, then each where it changed.
type Changes = Vec<(Node, bool)>;

/// A node where a condition became true.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CondHit {
    /// The node.
    pub node: Node,
}

/// What [`Index::find_condition_until`] found, and where to go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondPage {
    /// The hits, in the search's order.
    pub hits: Vec<CondHit>,
    /// Where the search stopped before its end: the `from` to go on from.
    pub resume: Option<u64>,
}

/// Where a bounded search asks to go on, and where it stopped.
struct Bounds<'a> {
    keep_going: &'a mut dyn FnMut(u64) -> bool,
    stopped: Option<u64>,
}

/// Values of a register file, a node's `pc` and memory through a closure.
pub(crate) struct StateValues<'a> {
    pub(crate) regs: &'a RegFile,
    pub(crate) aarch64_hint: bool,
    pub(crate) pc: Option<u64>,
    pub(crate) big_endian: bool,
    pub(crate) byte: &'a dyn Fn(u64) -> Option<u8>,
}

impl Values for StateValues<'_> {
    fn register(&self, r: &RegRef) -> Option<u64> {
        let a64 = self.aarch64();
        match if a64 { r.a64 } else { r.a32 } {
            None if r.is_pc() => self.pc,
            None => None,
            Some(reg) => self.regs.reg_value(reg, a64),
        }
    }
    fn memory(&self, addr: u64, len: u64) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..len {
            let j = if self.big_endian { i } else { len - 1 - i };
            v = (v << 8) | u64::from((self.byte)(addr.wrapping_add(j))?);
        }
        Some(v)
    }
    fn aarch64(&self) -> bool {
        registers::is_aarch64(self.regs, self.aarch64_hint)
    }
}

/// Memory as of a node inside interval `k`: the interval's own writes so
/// far, else the history before it (as [`Index::memory_after`] reads it).
struct IntervalMemory<'a> {
    index: &'a Index,
    k: usize,
    written: crate::state::fasthash::AddrMap<u64, ByteState>,
    blocks: std::cell::RefCell<HashMap<u64, [ByteState; 16]>>,
}

impl IntervalMemory<'_> {
    fn byte(&self, a: u64) -> Option<u8> {
        let st = match self.written.get(&a) {
            Some(s) => *s,
            None => {
                let block = a >> memdiff::BLOCK_BITS;
                let mut blocks = self.blocks.borrow_mut();
                let s = blocks
                    .entry(block)
                    .or_insert_with(|| self.index.mem.block_state(block, self.k));
                s[(a & (memdiff::BLOCK - 1)) as usize]
            }
        };
        match st {
            Some(Ok(v)) => Some(v),
            Some(Err(since)) => self.index.mem.fill_value(Some(since), a),
            None => self.index.mem.fill_value(None, a),
        }
    }
}

/// The register byte ranges a condition reads, in both execution states.
fn watched_registers(cond: &Condition) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for r in &cond.registers {
        if let Some(reg) = r.a64 {
            out.push(regfile::location(reg, true));
        }
        if let Some(reg) = r.a32 {
            out.push(regfile::location(reg, false));
        }
    }
    out
}

/// `pc == CONSTANT` conjuncts at the top of the condition.
fn pc_conjuncts(cond: &Condition, c: &Cond, out: &mut Vec<u64>) {
    match c {
        Cond::Bin(BinOp::And, a, b) => {
            pc_conjuncts(cond, a, out);
            pc_conjuncts(cond, b, out);
        }
        Cond::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
            (Cond::Reg(i), Cond::Const(v)) | (Cond::Const(v), Cond::Reg(i))
                if cond.registers[*i].is_pc() =>
            {
                out.push(*v & !1)
            }
            _ => {}
        },
        _ => {}
    }
}

/// Evaluates a condition through one replayed interval.
struct Eval<'a> {
    cond: &'a Condition,
    mem: IntervalMemory<'a>,
    watched: &'a [(usize, usize)],
    aarch64_hint: bool,
    big_endian: bool,
    uses_pc: bool,
    /// Memory ranges read at the last evaluation.
    ranges: Vec<(u64, u64)>,
    dirty: bool,
    /// The value after the last node seen (`None` before the first).
    value: Option<bool>,
    /// Stop after this node.
    last: u64,
    /// Nodes with their value, where the value changed (and the first).
    changes: Vec<(Node, bool)>,
    done: bool,
}

impl Observer for Eval<'_> {
    fn node(&mut self, n: &Node, e: &Engine) {
        if self.done {
            return;
        }
        if self.dirty || self.uses_pc || self.value.is_none() {
            let pc = (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc & !1);
            let mem = &self.mem;
            let byte = |a: u64| mem.byte(a);
            let values = StateValues {
                regs: e.regs(),
                aarch64_hint: self.aarch64_hint,
                pc,
                big_endian: self.big_endian,
                byte: &byte,
            };
            self.ranges.clear();
            let ranges = &mut self.ranges;
            let v = self
                .cond
                .eval_ranges(&values, &mut |a, l| ranges.push((a, l)))
                .is_some_and(|x| x != 0);
            if self.value != Some(v) {
                self.changes.push((*n, v));
                self.value = Some(v);
            }
            self.dirty = false;
        }
        if n.at.node >= self.last {
            self.done = true;
        }
    }
    fn done(&self) -> bool {
        self.done
    }
    fn reg_write(&mut self, _node: u64, offset: usize, _bytes: &[u8], known: &[u8]) {
        let len = known.len();
        if offset == regfile::IFLAGS
            || self
                .watched
                .iter()
                .any(|&(o, s)| offset < o + s && o < offset + len)
        {
            self.dirty = true;
        }
    }
    fn mem_write(&mut self, _node: u64, addr: u64, bytes: &[u8]) {
        if self.cond.memory.is_empty() {
            return;
        }
        for (i, &b) in bytes.iter().enumerate() {
            self.mem
                .written
                .insert(addr.wrapping_add(i as u64), Some(Ok(b)));
        }
        self.touch(addr, bytes.len() as u64);
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        if self.cond.memory.is_empty() {
            return;
        }
        for i in 0..len.min(1 << 20) {
            self.mem
                .written
                .insert(addr.wrapping_add(i), Some(Err(node)));
        }
        self.touch(addr, len);
    }
}

impl Eval<'_> {
    fn touch(&mut self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        if self
            .ranges
            .iter()
            .any(|&(a, l)| addr < a.saturating_add(l) && a < end)
        {
            self.dirty = true;
        }
    }
}

impl Index {
    /// Nodes where `cond` becomes true: holds there and did not hold at the
    /// node before (an unknown value does not hold; before the first node
    /// every value is unknown). Forward: nodes after `from` (`None`: from
    /// the first node) in trace order; backward: nodes before `from`
    /// (`None`: to the last node), nearest first. At most `max`.
    pub fn find_condition(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        from: Option<u64>,
        forward: bool,
        max: usize,
    ) -> Result<Vec<CondHit>> {
        self.find_condition_parallel(source, &mut [], cond, from, forward, max)
    }

    /// [`Index::find_condition`] replaying intervals on as many threads as
    /// `extra` holds sources of the same trace (none or one: in turn, on
    /// `source`), in batches in trace order, so that a first hit stops it
    /// early. Native only: WebAssembly has no threads (pass none).
    pub fn find_condition_parallel(
        &self,
        source: &mut dyn TraceSource,
        extra: &mut [Box<dyn TraceSource + Send>],
        cond: &Condition,
        from: Option<u64>,
        forward: bool,
        max: usize,
    ) -> Result<Vec<CondHit>> {
        let mut bounds = Bounds {
            keep_going: &mut |_| true,
            stopped: None,
        };
        self.find_condition_bounded(source, extra, cond, from, forward, max, &mut bounds)
    }

    /// [`Index::find_condition`] a piece at a time, so that a caller that
    /// cannot be interrupted (a page's worker) can show progress and stop:
    /// between intervals, `keep_going` is told the node the search has
    /// covered (forward: every node up to it; backward: every node from
    /// it on) and says whether to go on. When it says no, the page's
    /// `resume` is `Some(node)`: asking again with `from = Some(node)`, in
    /// the same direction, continues the search without missing or
    /// repeating a hit. `resume` is `None` once the search reached the
    /// trace's end (or start) or found `max` hits.
    pub fn find_condition_until(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        from: Option<u64>,
        forward: bool,
        max: usize,
        keep_going: &mut dyn FnMut(u64) -> bool,
    ) -> Result<CondPage> {
        let mut bounds = Bounds {
            keep_going,
            stopped: None,
        };
        let hits =
            self.find_condition_bounded(source, &mut [], cond, from, forward, max, &mut bounds)?;
        Ok(CondPage {
            hits,
            resume: bounds.stopped,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn find_condition_bounded(
        &self,
        source: &mut dyn TraceSource,
        extra: &mut [Box<dyn TraceSource + Send>],
        cond: &Condition,
        from: Option<u64>,
        forward: bool,
        max: usize,
        bounds: &mut Bounds,
    ) -> Result<Vec<CondHit>> {
        let batch = if extra.len() > 1 { 16 * extra.len() } else { 1 };
        let mut hits = Vec::new();
        let n = self.checkpoints.len();
        if max == 0 || n == 0 || self.summary.nodes == 0 {
            return Ok(hits);
        }
        let watched = watched_registers(cond);
        let mut groups = [0u64; 2];
        for &(o, s) in &watched {
            for g in (o..o + s).map(regfile::group_of) {
                groups[g / 64] |= 1 << (g % 64);
            }
        }
        let g = regfile::group_of(regfile::IFLAGS);
        groups[g / 64] |= 1 << (g % 64);
        let mut pcs = Vec::new();
        pc_conjuncts(cond, &cond.root, &mut pcs);
        let pc_skip = |k: usize| {
            pcs.iter()
                .any(|&pc| self.pc_blooms.get(k).is_some_and(|b| !bloom_has(b, pc)))
        };
        let uses_pc = cond.uses_pc();
        // Whether closed interval k cannot change the value: `Some(v)`,
        // v its value all through (false under a pc conjunct it lacks).
        // Without memory reads and forward, v is not needed (nor computed):
        // it is the value before the interval.
        let skippable = |k: usize, need_value: bool| -> Option<bool> {
            if pc_skip(k) {
                return Some(false);
            }
            if uses_pc || k >= self.reg_groups.len() || k >= self.mem.intervals() {
                return None;
            }
            let rg = &self.reg_groups[k];
            if rg[0] & groups[0] != 0 || rg[1] & groups[1] != 0 {
                return None;
            }
            if cond.memory.is_empty() && !need_value {
                return Some(false);
            }
            let (v, ranges) = self.value_at_checkpoint(cond, k);
            let touched = ranges.iter().any(|&(a, l)| {
                let first = a >> memdiff::BLOCK_BITS;
                let last = a.saturating_add(l.max(1) - 1) >> memdiff::BLOCK_BITS;
                self.mem.interval_touches(k, first, last)
            });
            (!touched).then_some(v)
        };
        if forward {
            let start = from.map_or(0, |f| self.interval_of(f));
            // Before the first node nothing holds; from a node, the start
            // interval's nodes up to it set the value.
            let mut prev = false;
            let mut k = start;
            while k < n {
                // Some(reset): a skipped interval (all false under a pc
                // conjunct; otherwise the value before it); None: replayed.
                let mut steps: Vec<Option<bool>> = Vec::new();
                let mut replays = Vec::new();
                while k < n && replays.len() < batch {
                    match skippable(k, false).filter(|_| k != start) {
                        Some(v) => steps.push(Some(!pcs.is_empty() && !v)),
                        None => {
                            steps.push(None);
                            replays.push((k, u64::MAX));
                        }
                    }
                    k += 1;
                }
                let mut results = self
                    .eval_batch(source, extra, cond, &watched, &replays)?
                    .into_iter();
                for step in steps {
                    let Some(changes) = (match step {
                        Some(reset) => {
                            prev &= !reset;
                            None
                        }
                        None => results.next(),
                    }) else {
                        continue;
                    };
                    for (node, v) in changes {
                        let after = from.is_none_or(|f| node.at.node > f);
                        if after && v && !prev {
                            hits.push(CondHit { node });
                            if hits.len() >= max {
                                return Ok(hits);
                            }
                        }
                        prev = v;
                    }
                }
                // Every node before interval k is covered; from there on,
                // a search from its last node replays it for `prev`.
                if k < n {
                    let covered = self.checkpoints[k].resume.node_index - 1;
                    if from.is_none_or(|f| covered > f) && !(bounds.keep_going)(covered) {
                        bounds.stopped = Some(covered);
                        return Ok(hits);
                    }
                }
            }
        } else {
            let last_node = self.summary.nodes - 1;
            let limit = from.unwrap_or(last_node + 1);
            if limit == 0 {
                return Ok(hits);
            }
            let start = self.interval_of(limit - 1);
            // The first node of the interval after, if it holds: a hit if
            // the node before it does not.
            let mut pending: Option<Node> = None;
            let mut pending_k: Option<usize> = None;
            let mut next = start as i64;
            while next >= 0 {
                // (interval, Some(value) skipped or None replayed).
                let mut steps: Vec<(usize, Option<bool>)> = Vec::new();
                let mut replays = Vec::new();
                while next >= 0 && replays.len() < batch {
                    let k = next as usize;
                    match skippable(k, true).filter(|_| k != start) {
                        Some(v) => steps.push((k, Some(v))),
                        None => {
                            steps.push((k, None));
                            replays.push((k, limit - 1));
                        }
                    }
                    next -= 1;
                }
                let mut results = self
                    .eval_batch(source, extra, cond, &watched, &replays)?
                    .into_iter();
                for (k, step) in steps {
                    if let Some(v) = step {
                        self.resolve(source, &mut pending, &mut pending_k, v, &mut hits)?;
                        if hits.len() >= max {
                            return Ok(hits);
                        }
                        if v {
                            pending_k = Some(k);
                        }
                        continue;
                    }
                    let Some(changes) = results.next() else {
                        continue;
                    };
                    let first = self.checkpoints[k].resume.node_index;
                    let last_value = changes.last().is_some_and(|c| c.1);
                    self.resolve(source, &mut pending, &mut pending_k, last_value, &mut hits)?;
                    if hits.len() >= max {
                        return Ok(hits);
                    }
                    // Changes inside, newest first: a change to true at node
                    // m (not the interval's first) is a hit.
                    for (node, v) in changes.iter().rev() {
                        if node.at.node == first {
                            if *v {
                                pending = Some(*node);
                            }
                            continue;
                        }
                        if *v && node.at.node < limit {
                            hits.push(CondHit { node: *node });
                            if hits.len() >= max {
                                return Ok(hits);
                            }
                        }
                    }
                }
                // Every node after the first of interval k is covered; a
                // search from the node after it finds that first node
                // again if it is a hit (through `pending`).
                if next >= 0 {
                    let covered = self.checkpoints[next as usize + 1].resume.node_index;
                    if covered + 1 < limit && !(bounds.keep_going)(covered) {
                        bounds.stopped = Some(covered + 1);
                        return Ok(hits);
                    }
                }
            }
            // Before the first node nothing holds.
            self.resolve(source, &mut pending, &mut pending_k, false, &mut hits)?;
            hits.truncate(max);
        }
        Ok(hits)
    }

    /// A pending first node of a later interval that holds is a hit if the
    /// value before it (`before`) does not hold.
    fn resolve(
        &self,
        source: &mut dyn TraceSource,
        pending: &mut Option<Node>,
        pending_k: &mut Option<usize>,
        before: bool,
        hits: &mut Vec<CondHit>,
    ) -> Result<()> {
        let node = match (pending.take(), pending_k.take()) {
            (Some(n), _) => Some(n),
            (None, Some(k)) => Some(self.node(source, self.checkpoints[k].resume.node_index)?),
            (None, None) => None,
        };
        if let Some(node) = node {
            if !before {
                hits.push(CondHit { node });
            }
        }
        Ok(())
    }

    /// The condition's truth at checkpoint `k` (before its first node, with
    /// no `pc`), and the memory ranges it reads there.
    fn value_at_checkpoint(&self, cond: &Condition, k: usize) -> (bool, Vec<(u64, u64)>) {
        let regs = self.snapshots.get(k);
        let mem = IntervalMemory {
            index: self,
            k,
            written: Default::default(),
            blocks: Default::default(),
        };
        let byte = |a: u64| mem.byte(a);
        let values = StateValues {
            regs: &regs,
            aarch64_hint: self.aarch64_used,
            pc: None,
            big_endian: self.opts.parse.big_endian,
            byte: &byte,
        };
        let mut ranges = Vec::new();
        let v = cond
            .eval_ranges(&values, &mut |a, l| ranges.push((a, l)))
            .is_some_and(|x| x != 0);
        (v, ranges)
    }

    /// Replays intervals `(k, last)` ([`Index::eval_interval`]): on
    /// `extra`'s sources, one thread each over consecutive intervals, when
    /// there are two or more; else in turn on `source`.
    fn eval_batch(
        &self,
        source: &mut dyn TraceSource,
        extra: &mut [Box<dyn TraceSource + Send>],
        cond: &Condition,
        watched: &[(usize, usize)],
        ks: &[(usize, u64)],
    ) -> Result<Vec<Changes>> {
        if extra.len() < 2 || ks.len() < 2 {
            return ks
                .iter()
                .map(|&(k, last)| self.eval_interval(source, cond, watched, k, last))
                .collect();
        }
        let per = ks.len().div_ceil(extra.len());
        let parts: Vec<Result<Vec<Changes>>> = std::thread::scope(|s| {
            let threads: Vec<_> = ks
                .chunks(per)
                .zip(extra.iter_mut())
                .map(|(chunk, src)| {
                    s.spawn(move || {
                        chunk
                            .iter()
                            .map(|&(k, last)| {
                                self.eval_interval(&mut **src, cond, watched, k, last)
                            })
                            .collect::<Result<Vec<_>>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|t| {
                    t.join()
                        .unwrap_or_else(|_| Err(Error::Read("a find thread failed".into())))
                })
                .collect()
        });
        let mut out = Vec::with_capacity(ks.len());
        for part in parts {
            out.extend(part?);
        }
        Ok(out)
    }

    /// Replays interval `k` up to node `last`: the first node with its
    /// value, then each node where the value changed.
    fn eval_interval(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        watched: &[(usize, usize)],
        k: usize,
        last: u64,
    ) -> Result<Changes> {
        if let Some(changes) = self.lean_changes(source, cond, watched, k)? {
            return Ok(changes);
        }
        self.replay_interval(source, cond, watched, k, last)
    }

    /// [`Index::eval_interval`] by a replay of the whole interval.
    fn replay_interval(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        watched: &[(usize, usize)],
        k: usize,
        last: u64,
    ) -> Result<Changes> {
        let mut e = Eval {
            cond,
            mem: IntervalMemory {
                index: self,
                k,
                written: Default::default(),
                blocks: Default::default(),
            },
            watched,
            aarch64_hint: self.aarch64_used,
            big_endian: self.opts.parse.big_endian,
            uses_pc: cond.uses_pc(),
            ranges: Vec::new(),
            dirty: true,
            value: None,
            last,
            changes: Vec::new(),
            done: false,
        };
        self.replay(source, k, &mut e)?;
        Ok(e.changes)
    }

    /// The values of a condition's operands after node `node` (see
    /// [`Condition::operands`]).
    pub fn condition_operands(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        node: &Node,
    ) -> Result<Vec<(String, Option<u64>)>> {
        let regs = self.registers_after(source, node.at.node)?;
        let pc = (node.at.pc != crate::engine::INVALID_PC).then_some(node.at.pc & !1);
        // Each memory read's bytes, read through `memory_after`.
        let mut cache: HashMap<u64, Option<u8>> = HashMap::new();
        let values_for = |cache: &HashMap<u64, Option<u8>>| -> Vec<(String, Option<u64>)> {
            let byte = |a: u64| cache.get(&a).copied().flatten();
            let values = StateValues {
                regs: &regs,
                aarch64_hint: self.aarch64_used,
                pc,
                big_endian: self.opts.parse.big_endian,
                byte: &byte,
            };
            cond.operands(&values)
        };
        // Addresses may depend on memory: read until no new range appears.
        for _ in 0..=cond.memory.len() {
            let mut ranges = Vec::new();
            {
                let byte = |a: u64| cache.get(&a).copied().flatten();
                let values = StateValues {
                    regs: &regs,
                    aarch64_hint: self.aarch64_used,
                    pc,
                    big_endian: self.opts.parse.big_endian,
                    byte: &byte,
                };
                cond.eval_ranges(&values, &mut |a, l| ranges.push((a, l)));
            }
            let mut new = false;
            for (a, l) in ranges {
                if (0..l).all(|i| cache.contains_key(&a.wrapping_add(i))) {
                    continue;
                }
                new = true;
                let view = self.memory_after(source, node.at.node, a, l)?;
                for i in 0..l as usize {
                    cache.insert(
                        a.wrapping_add(i as u64),
                        view.known[i].then_some(view.bytes[i]),
                    );
                }
            }
            if !new {
                break;
            }
        }
        Ok(values_for(&cache))
    }
}
