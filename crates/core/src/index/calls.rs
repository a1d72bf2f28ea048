//! Confirmed calls, and calls still open at the end of the trace, sorted by
//! entry and stored as varint deltas in blocks, so that a trace with
//! millions of calls keeps them in a few bytes each. A call names its
//! (call address, function) pair by its number in a table of the pairs
//! seen: programs make millions of calls from a few hundred sites, and
//! the number takes one byte where the two addresses took about four.
//!
//! Invariants: calls are sorted by entry node; a call's parent is the
//! innermost earlier call whose span contains its entry; unreturned calls
//! have no resume and span to the end of the trace.

use crate::engine::{Call, Site};
use crate::state::fasthash::AddrMap;

use super::depth::{DepthCache, DepthScan};
use super::raw_calls::{RawCall, RawCalls};
use crate::codec::varint::{self, unzigzag, zigzag};

const BLOCK: usize = 128;

/// A call as queries return it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallInfo {
    /// Position in the table (sorted by entry).
    pub id: u64,
    /// The node holding the call instruction.
    pub call_node: u64,
    /// Address of the call instruction.
    pub call_pc: u64,
    /// The callee's first node and its address (the function).
    pub entry_node: u64,
    /// The first line of the callee's first node.
    pub entry_line: u64,
    /// The callee's address.
    pub function: u64,
    /// The caller's node the call returned to; `None` if it never did.
    pub resume_node: Option<u64>,
    /// The first line of the node resumed; `None` if it never returned.
    pub resume_line: Option<u64>,
    /// The innermost call it was made within (`id` of that call), `None` at the
    /// outermost level.
    pub parent: Option<u64>,
    /// Calls it was made within (0 at the outermost level). Filled by
    /// [`CallTable::get`] and [`CallTable::stack_at`], 0 elsewhere.
    pub depth: u32,
}

impl CallInfo {
    /// Whether node `n` lies inside the callee (entry up to, not including, resume).
    pub fn contains(&self, n: u64) -> bool {
        n >= self.entry_node && self.resume_node.is_none_or(|r| n < r)
    }
}

/// What the nesting of calls needs of one ([`CallTable::nesting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Nesting {
    pub(crate) id: u64,
    pub(crate) entry_node: u64,
    pub(crate) resume_node: Option<u64>,
    pub(crate) parent: Option<u64>,
}

impl Nesting {
    /// As [`CallInfo::contains`].
    pub(crate) fn contains(&self, n: u64) -> bool {
        n >= self.entry_node && self.resume_node.is_none_or(|r| n < r)
    }
}

const NEVER: u64 = u64::MAX;

/// About what a call takes encoded (7.3 bytes on the page benchmark's
/// trace); the table gives back what it did not use.
const ENCODED_CALL_BYTES: usize = 8;

/// Indices of `raw` in entry order: sorting (entry, index) pairs took 20 ms
/// of the 45 that ended indexing a 1 GB trace's 662k calls, so the pair is
/// packed into one `u64` and sorted by radix (entry nodes are unique, so
/// the index bits never decide the order).
#[cfg(test)]
fn entry_order(raw: &RawCalls) -> Vec<usize> {
    let mut job = EntryOrder::begin(raw);
    loop {
        if let Some(order) = job.step() {
            return order;
        }
    }
}

/// [`entry_order`] a step at a time (15.7 million calls, a 32 GB trace's,
/// sort in 150 ms natively, in steps of at most 24 ms).
enum EntryOrder {
    Sorted(Vec<usize>),
    Radix { keys: RadixSort, index_bits: u32 },
}

impl EntryOrder {
    fn begin(raw: &RawCalls) -> EntryOrder {
        // The sealed calls are decoded once, not once per pass; the
        // entries become the keys in place.
        // Exactly as many: collected, the keys grew by doubling into up to
        // twice their size, the moved copy beside them.
        let mut keys = Vec::with_capacity(raw.len());
        keys.extend(raw.iter().map(|r| r.entry_node));
        let index_bits = usize::BITS - keys.len().leading_zeros();
        let max_entry = keys.iter().copied().max().unwrap_or(0);
        let entry_bits = u64::BITS - max_entry.leading_zeros();
        if entry_bits + index_bits > u64::BITS {
            let mut order: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
            order.sort_unstable();
            return EntryOrder::Sorted(order.into_iter().map(|(_, i)| i).collect());
        }
        for (i, k) in keys.iter_mut().enumerate() {
            *k = *k << index_bits | i as u64;
        }
        EntryOrder::Radix {
            keys: RadixSort::new(keys, index_bits + entry_bits),
            index_bits,
        }
    }

    /// One pass; the order once it is sorted.
    fn step(&mut self) -> Option<Vec<usize>> {
        match self {
            EntryOrder::Sorted(order) => Some(std::mem::take(order)),
            EntryOrder::Radix { keys, index_bits } => {
                if !keys.pass() {
                    return None;
                }
                let mask = (1u64 << *index_bits) - 1;
                Some(
                    std::mem::take(&mut keys.keys)
                        .into_iter()
                        .map(|k| (k & mask) as usize)
                        .collect(),
                )
            }
        }
    }
}

/// Sorts keys below `1 << to` in place: their top digit's buckets made by
/// swapping (American flag sort), then each bucket sorted alone, some
/// buckets a step. The least-significant-digit sort it replaced needed a
/// second array as large as the keys: 126 MB of a 32 GB trace's finish,
/// where the tab's memory peaks.
struct RadixSort {
    keys: Vec<u64>,
    /// Where each bucket ends (empty until the buckets are made).
    ends: Vec<usize>,
    /// Buckets sorted so far.
    sorted: usize,
    to: u32,
}

/// Bits of the digit the buckets are made by.
const DIGIT: u32 = 11;

impl RadixSort {
    fn new(keys: Vec<u64>, to: u32) -> RadixSort {
        RadixSort {
            keys,
            ends: Vec::new(),
            sorted: 0,
            to,
        }
    }

    /// One step (the buckets, or about a quarter of the keys sorted
    /// within theirs); whether the keys are sorted.
    fn pass(&mut self) -> bool {
        let n = self.keys.len();
        if n < 1 << 12 {
            self.keys.sort_unstable();
            self.sorted = self.ends.len();
            return true;
        }
        if self.ends.is_empty() {
            self.make_buckets();
            return false;
        }
        let mut start = self.sorted.checked_sub(1).map_or(0, |b| self.ends[b]);
        let stop = start + n.div_ceil(4);
        while self.sorted < self.ends.len() && start < stop {
            let end = self.ends[self.sorted];
            self.keys[start..end].sort_unstable();
            (start, self.sorted) = (end, self.sorted + 1);
        }
        self.sorted == self.ends.len()
    }

    fn make_buckets(&mut self) {
        let digit = DIGIT.min(self.to);
        let shift = self.to - digit;
        let bucket = |k: u64| ((k >> shift) & ((1 << digit) - 1)) as usize;
        let mut heads = vec![0usize; 1 << digit];
        for &k in &self.keys {
            heads[bucket(k)] += 1;
        }
        let mut at = 0;
        self.ends = heads
            .iter_mut()
            .map(|c| {
                (*c, at) = (at, at + *c);
                at
            })
            .collect();
        let keys = &mut self.keys;
        for b in 0..heads.len() {
            while heads[b] < self.ends[b] {
                // Carry the key at the bucket's head to where it belongs,
                // and the key found there on, until one belongs here.
                let mut k = keys[heads[b]];
                let mut d = bucket(k);
                while d != b {
                    std::mem::swap(&mut k, &mut keys[heads[d]]);
                    heads[d] += 1;
                    d = bucket(k);
                }
                keys[heads[b]] = k;
                heads[b] += 1;
            }
        }
    }
}

#[cfg(test)]
fn radix_sort(keys: &mut Vec<u64>, to: u32) {
    let mut sort = RadixSort::new(std::mem::take(keys), to);
    while !sort.pass() {}
    *keys = sort.keys;
}

impl RawCall {
    fn new(call_site: &Site, entry: &Site, resume: Option<&Site>) -> RawCall {
        RawCall {
            entry_node: entry.node,
            entry_line: entry.line,
            entry_pc: entry.pc,
            call_node: call_site.node,
            call_pc: call_site.pc,
            resume_node: resume.map_or(NEVER, |r| r.node),
            resume_line: resume.map_or(NEVER, |r| r.line),
        }
    }
}

/// The confirmed calls of a trace, plus calls never returned, sorted by entry
/// and encoded compactly (in blocks of 128, with parent links).
#[derive(Default)]
pub struct CallTable {
    /// Calls collected while indexing, before `finish` encodes them.
    raw: RawCalls,
    encoded: Vec<u8>,
    /// Per block: first entry node, byte offset in `encoded`.
    dir: Vec<(u64, u64)>,
    count: usize,
    /// (call address, function) by the number `encoded` names them with.
    sites: Vec<(u64, u64)>,
    /// The timeline's depth per bucket, found by `finish` and saved with
    /// the index (an index file of format 5 has none: the question is
    /// answered from the calls).
    depth: DepthCache,
}

impl CallTable {
    pub(crate) fn push(&mut self, call: &Call) {
        self.raw.push(RawCall::new(
            &call.call_site,
            &call.entry,
            Some(&call.resume),
        ));
    }

    /// Appends the calls of a range indexed from a split point, whose node
    /// and line numbers are short by the offsets (before `finish`).
    pub(crate) fn append_shifted(&mut self, other: &CallTable, node_off: u64, line_off: u64) {
        let shift = |v: u64, off: u64| if v == NEVER { v } else { v + off };
        self.raw.extend(other.raw.iter().map(|r| RawCall {
            entry_node: r.entry_node + node_off,
            entry_line: r.entry_line + line_off,
            entry_pc: r.entry_pc,
            call_node: r.call_node + node_off,
            call_pc: r.call_pc,
            resume_node: shift(r.resume_node, node_off),
            resume_line: shift(r.resume_line, line_off),
        }));
    }

    /// Calls collected so far (before `finish`).
    pub(super) fn encode_raw(&self, e: &mut crate::codec::Enc) {
        self.raw.encode(e);
    }

    /// Reads what [`CallTable::encode_raw`] wrote into an empty table.
    pub(super) fn decode_raw(&mut self, d: &mut crate::codec::Dec<'_>) -> Option<()> {
        self.raw = RawCalls::decode_from(d)?;
        Some(())
    }

    /// Sorts and encodes everything at once (the builder steps through
    /// [`CallTable::begin_finish`] instead); `open` are calls that never
    /// returned. On the way, finds the deepest nesting in each bucket of
    /// `depth_bounds` (see [`CallTable::depth_per_bucket`]).
    #[cfg(test)]
    pub(crate) fn finish(&mut self, open: Vec<(Site, Site)>, depth_bounds: Vec<u64>) {
        let mut job = self.begin_finish(open, depth_bounds);
        while !job.step(usize::MAX) {}
        job.install(self);
    }

    /// [`CallTable::finish`] in steps: takes the calls and starts their
    /// sort into entry order; [`CallsFinish::step`] sorts a radix pass at a
    /// time, then encodes. The table shows no calls until
    /// [`CallsFinish::install`].
    pub(crate) fn begin_finish(
        &mut self,
        open: Vec<(Site, Site)>,
        depth_bounds: Vec<u64>,
    ) -> CallsFinish {
        let mut raw = std::mem::take(&mut self.raw);
        raw.extend(open.iter().map(|(c, e)| RawCall::new(c, e, None)));
        CallsFinish {
            sorting: Some(EntryOrder::begin(&raw)),
            raw,
            order: Vec::new(),
            next: 0,
            stack: Vec::new(),
            prev: (0, 0),
            encoded: Vec::new(),
            dir: Vec::new(),
            numbers: SiteNumbers::default(),
            depth: DepthScan::new(depth_bounds),
        }
    }

    /// The deepest nesting within each bucket `[bounds[i], bounds[i+1])`,
    /// if `finish` found it for these bounds.
    pub fn depth_per_bucket(&self, bounds: &[u64]) -> Option<&[u32]> {
        self.depth.get(bounds)
    }

    /// Calls in the table.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the trace has no calls.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn block(&self, b: usize) -> Vec<CallInfo> {
        let mut out = Vec::with_capacity(BLOCK);
        let Some(&(_, start)) = self.dir.get(b) else {
            return out;
        };
        let buf = &self.encoded;
        let mut pos = start as usize;
        let (mut entry, mut line) = (0u64, 0u64);
        let first = b * BLOCK;
        for i in first..(first + BLOCK).min(self.count) {
            let g = |pos: &mut usize| varint::get(buf, pos).unwrap_or(0);
            entry += g(&mut pos);
            line = line.wrapping_add(g(&mut pos));
            let call_node = entry - g(&mut pos).min(entry);
            let site = usize::try_from(g(&mut pos)).unwrap_or(usize::MAX);
            let (call_pc, func) = self.sites.get(site).copied().unwrap_or_default();
            let r = g(&mut pos);
            let (resume_node, resume_line) = if r == 0 {
                (None, None)
            } else {
                (Some(entry + r - 1), Some(line + g(&mut pos)))
            };
            let p = g(&mut pos);
            out.push(CallInfo {
                id: i as u64,
                call_node,
                call_pc,
                entry_node: entry,
                entry_line: line,
                function: func,
                resume_node,
                resume_line,
                parent: (p != 0).then(|| (i as u64) - p),
                depth: 0,
            });
        }
        out
    }

    /// Call number `id`.
    pub fn get(&self, id: u64) -> Option<CallInfo> {
        let id = id as usize;
        if id >= self.count {
            return None;
        }
        let mut c = self.block(id / BLOCK).into_iter().nth(id % BLOCK)?;
        c.depth = self.depth_of(&c);
        Some(c)
    }

    fn depth_of(&self, c: &CallInfo) -> u32 {
        let mut d = 0;
        let mut p = c.parent;
        while let Some(id) = p {
            d += 1;
            p = self
                .block(id as usize / BLOCK)
                .into_iter()
                .nth(id as usize % BLOCK)
                .and_then(|x| x.parent);
        }
        d
    }

    /// Every call's place in the nesting, in entry order: decoded as
    /// [`CallTable::iter`] does, without building each whole call (a 10 GB
    /// trace's 6.6 million calls, for the timeline strip).
    pub(crate) fn nesting(&self) -> impl Iterator<Item = Nesting> + '_ {
        let buf = &self.encoded;
        let (mut pos, mut entry) = (0usize, 0u64);
        (0..self.count).map_while(move |i| {
            if i % BLOCK == 0 {
                pos = self.dir.get(i / BLOCK)?.1 as usize;
                entry = 0;
            }
            let mut g = || varint::get(buf, &mut pos).unwrap_or(0);
            entry += g();
            // Entry line, call node, site: not needed.
            for _ in 0..3 {
                g();
            }
            let r = g();
            let resume_node = if r == 0 {
                None
            } else {
                g(); // resume line
                Some(entry + r - 1)
            };
            let p = g();
            Some(Nesting {
                id: i as u64,
                entry_node: entry,
                resume_node,
                parent: (p != 0).then(|| i as u64 - p),
            })
        })
    }

    /// Every call, in entry order.
    pub fn iter(&self) -> impl Iterator<Item = CallInfo> + '_ {
        (0..self.dir.len()).flat_map(move |b| self.block(b))
    }

    /// The calls active at node `n`, outermost first.
    pub fn stack_at(&self, n: u64) -> Vec<CallInfo> {
        // Last call entered at or before n, then up its parents until one
        // contains n: that is the innermost active call.
        let b = self.dir.partition_point(|(e, _)| *e <= n);
        if b == 0 {
            return Vec::new();
        }
        let block = self.block(b - 1);
        let mut cur = block.into_iter().rev().find(|c| c.entry_node <= n);
        let mut stack = Vec::new();
        while let Some(c) = cur {
            if c.contains(n) {
                stack.push(c);
            }
            cur = c.parent.and_then(|p| self.get_raw(p));
        }
        stack.reverse();
        for (d, c) in stack.iter_mut().enumerate() {
            c.depth = d as u32;
        }
        stack
    }

    fn get_raw(&self, id: u64) -> Option<CallInfo> {
        self.block(id as usize / BLOCK)
            .into_iter()
            .nth(id as usize % BLOCK)
    }

    /// Calls whose span overlaps nodes `[first, last]`, in entry order.
    pub fn overlapping(&self, first: u64, last: u64) -> Vec<CallInfo> {
        let mut out = self.stack_at(first);
        let b0 = self
            .dir
            .partition_point(|(e, _)| *e <= first)
            .saturating_sub(1);
        for b in b0..self.dir.len() {
            if self.dir[b].0 > last {
                break;
            }
            for c in self.block(b) {
                if c.entry_node > first && c.entry_node <= last {
                    out.push(c);
                }
            }
        }
        out
    }

    /// Gives back unused room (the table is complete).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.encoded.shrink_to_fit();
        self.dir.shrink_to_fit();
        self.sites.shrink_to_fit();
    }

    pub(crate) fn resident_bytes(&self) -> usize {
        self.encoded.capacity()
            + self.dir.capacity() * 16
            + self.sites.capacity() * 16
            + self.raw.capacity_bytes()
            + self.depth.resident_bytes()
    }

    pub(super) fn parts(&self) -> CallParts<'_> {
        CallParts {
            encoded: &self.encoded,
            dir: &self.dir,
            count: self.count,
            sites: &self.sites,
        }
    }

    pub(super) fn from_parts(
        encoded: Vec<u8>,
        dir: Vec<(u64, u64)>,
        count: usize,
        sites: Vec<(u64, u64)>,
        depth: DepthCache,
    ) -> CallTable {
        CallTable {
            raw: RawCalls::default(),
            encoded,
            dir,
            count,
            sites,
            depth,
        }
    }

    /// The calls and their block directory as an index file of format 9
    /// or older holds them, for the tests that such files load.
    pub(super) fn to_unnumbered_parts(&self) -> Unnumbered {
        let (mut out, mut dir) = (Vec::new(), Vec::new());
        let mut prev = (0u64, 0u64, 0u64);
        for (i, c) in self.iter().enumerate() {
            if i % BLOCK == 0 {
                dir.push((c.entry_node, out.len() as u64));
                prev = (0, 0, 0);
            }
            varint::put(&mut out, c.entry_node - prev.0);
            varint::put(&mut out, c.entry_line.wrapping_sub(prev.1));
            varint::put(&mut out, c.entry_node - c.call_node);
            varint::put(&mut out, zigzag(c.call_pc.wrapping_sub(c.function) as i64));
            varint::put(&mut out, zigzag(c.function.wrapping_sub(prev.2) as i64));
            match (c.resume_node, c.resume_line) {
                (Some(n), Some(l)) => {
                    varint::put(&mut out, n - c.entry_node + 1);
                    varint::put(&mut out, l - c.entry_line);
                }
                _ => varint::put(&mut out, 0),
            }
            varint::put(&mut out, c.parent.map_or(0, |p| c.id - p));
            prev = (c.entry_node, c.entry_line, c.function);
        }
        Unnumbered { encoded: out, dir }
    }

    /// A table read from an index file of format 9 or older, whose calls
    /// held their call address and function as deltas: numbered here as
    /// [`CallsFinish`] numbers them.
    pub(super) fn from_unnumbered_parts(
        old: &[u8],
        dir: &[(u64, u64)],
        count: usize,
        depth: DepthCache,
    ) -> Option<CallTable> {
        let mut t = CallTable {
            depth,
            count,
            ..CallTable::default()
        };
        let mut numbers = SiteNumbers::default();
        let g = |pos: &mut usize| varint::get(old, pos);
        for (b, &(first_entry, start)) in dir.iter().enumerate() {
            let mut pos = usize::try_from(start).ok()?;
            t.dir.push((first_entry, t.encoded.len() as u64));
            let mut func = 0u64;
            for _ in b * BLOCK..((b + 1) * BLOCK).min(count) {
                let (entry, line, call_gap) = (g(&mut pos)?, g(&mut pos)?, g(&mut pos)?);
                let call_delta = unzigzag(g(&mut pos)?);
                func = func.wrapping_add(unzigzag(g(&mut pos)?) as u64);
                let site = numbers.of(func.wrapping_add(call_delta as u64), func);
                let r = g(&mut pos)?;
                let resume_line = if r == 0 { None } else { Some(g(&mut pos)?) };
                let parent = g(&mut pos)?;
                let out = &mut t.encoded;
                for v in [entry, line, call_gap, site, r] {
                    varint::put(out, v);
                }
                if let Some(l) = resume_line {
                    varint::put(out, l);
                }
                varint::put(out, parent);
            }
        }
        t.sites = numbers.sites;
        Some(t)
    }

    pub(super) fn depth_parts(&self) -> (&[u64], &[u32]) {
        self.depth.parts()
    }
}

/// The encoding pass of [`CallTable::finish`], a slice of calls at a time
/// (a 10 GB trace's 6.6 million calls took 200 ms in one task).
pub(crate) struct CallsFinish {
    raw: RawCalls,
    /// The entry order while it is being sorted (a step a radix pass).
    sorting: Option<EntryOrder>,
    order: Vec<usize>,
    /// Calls encoded so far (in entry order).
    next: usize,
    /// One pass in entry order: each call's parent is the innermost call
    /// still open at its entry, found by a stack of (position, resume).
    stack: Vec<(usize, u64)>,
    /// The previous call's entry node and entry line (deltas).
    prev: (u64, u64),
    encoded: Vec<u8>,
    dir: Vec<(u64, u64)>,
    numbers: SiteNumbers,
    depth: DepthScan,
}

impl CallsFinish {
    /// Sorts by one more radix digit, or encodes up to `calls` more calls;
    /// whether all are done.
    pub(crate) fn step(&mut self, calls: usize) -> bool {
        if let Some(sorting) = &mut self.sorting {
            match sorting.step() {
                Some(order) => {
                    self.order = order;
                    self.sorting = None;
                    // Room for about all (once the sort's keys are gone):
                    // grown by doubling, the encoding took up to twice its
                    // size, with the moved copy beside it.
                    self.encoded
                        .reserve_exact(self.raw.len() * ENCODED_CALL_BYTES);
                }
                None => return false,
            }
        }
        let end = self.next.saturating_add(calls).min(self.order.len());
        let (mut prev_entry, mut prev_line) = self.prev;
        let stack = &mut self.stack;
        for i in self.next..end {
            let r = self.raw.get(self.order[i]);
            self.depth.before(r.entry_node, stack);
            while stack
                .last()
                .is_some_and(|&(_, resume)| resume != NEVER && r.entry_node >= resume)
            {
                stack.pop();
            }
            let parent = stack.last().map(|&(p, _)| p);
            stack.push((i, r.resume_node));
            self.depth.after(r.entry_node, stack.len() as u32);
            if i % BLOCK == 0 {
                self.dir.push((r.entry_node, self.encoded.len() as u64));
                prev_entry = 0;
                prev_line = 0;
            }
            let out = &mut self.encoded;
            varint::put(out, r.entry_node - prev_entry);
            varint::put(out, r.entry_line.wrapping_sub(prev_line));
            varint::put(out, r.entry_node.saturating_sub(r.call_node));
            varint::put(out, self.numbers.of(r.call_pc, r.entry_pc));
            if r.resume_node == NEVER {
                varint::put(out, 0);
            } else {
                varint::put(out, r.resume_node - r.entry_node + 1);
                varint::put(out, r.resume_line - r.entry_line);
            }
            varint::put(out, parent.map_or(0, |p| (i - p) as u64));
            prev_entry = r.entry_node;
            prev_line = r.entry_line;
        }
        self.prev = (prev_entry, prev_line);
        self.next = end;
        end == self.order.len()
    }

    /// Hands the encoded calls to `table` (after the last step).
    pub(crate) fn install(self, table: &mut CallTable) {
        debug_assert!(
            self.sorting.is_none() && self.next == self.order.len(),
            "calls left to sort or encode"
        );
        table.encoded = self.encoded;
        table.dir = self.dir;
        table.count = self.raw.len();
        table.sites = self.numbers.sites;
        table.depth = self.depth.end(&self.stack);
    }
}

/// Borrowed parts of a [`CallTable`], for serialization.
pub(super) struct CallParts<'a> {
    pub(super) encoded: &'a [u8],
    pub(super) dir: &'a [(u64, u64)],
    pub(super) count: usize,
    pub(super) sites: &'a [(u64, u64)],
}

/// Calls encoded as index files of format 9 and older hold them (each
/// call's addresses as deltas), with their block directory.
pub(super) struct Unnumbered {
    pub(super) encoded: Vec<u8>,
    pub(super) dir: Vec<(u64, u64)>,
}

/// Numbers (call address, function) pairs in the order first seen.
#[derive(Default)]
struct SiteNumbers {
    sites: Vec<(u64, u64)>,
    numbers: AddrMap<(u64, u64), u64>,
}

impl SiteNumbers {
    fn of(&mut self, call_pc: u64, function: u64) -> u64 {
        let next = self.sites.len() as u64;
        let n = *self.numbers.entry((call_pc, function)).or_insert(next);
        if n == next {
            self.sites.push((call_pc, function));
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::bucket_bounds;

    fn raw(entry_node: u64) -> RawCall {
        RawCall {
            entry_node,
            entry_line: 0,
            entry_pc: 0,
            call_node: 0,
            call_pc: 0,
            resume_node: NEVER,
            resume_line: NEVER,
        }
    }

    /// Entry nodes in a scrambled order (a multiplicative permutation), of
    /// which the sorted order is known.
    fn scrambled(n: u64, scale: u64) -> RawCalls {
        let mut calls = RawCalls::default();
        calls.extend((0..n).map(|i| raw((i * 7919 % n) * scale + 3)));
        calls
    }

    /// Finished in steps (radix passes, then a few calls at a time), the
    /// table is the one finished at once.
    #[test]
    fn a_table_finished_in_steps_is_the_same() {
        for (n, scale, per_step) in [
            (0, 1, 1),
            (70_000, 977, 1),
            (70_000, 977, 4096),
            (9000, 1 << 50, 100),
        ] {
            let mut whole = CallTable {
                raw: scrambled(n, scale),
                ..CallTable::default()
            };
            let bounds = bucket_bounds(16, n * scale + 4);
            whole.finish(Vec::new(), bounds.clone());
            let mut stepped = CallTable {
                raw: scrambled(n, scale),
                ..CallTable::default()
            };
            let mut job = stepped.begin_finish(Vec::new(), bounds.clone());
            let mut steps = 1;
            while !job.step(per_step) {
                steps += 1;
            }
            job.install(&mut stepped);
            assert!(steps >= (n as usize).div_ceil(per_step), "{steps} steps");
            let what = format!("{n} calls, {per_step} a step");
            assert_eq!(stepped.encoded, whole.encoded, "{what}");
            assert_eq!(stepped.dir, whole.dir, "{what}");
            assert_eq!(stepped.count, whole.count, "{what}");
            assert_eq!(
                stepped.depth_per_bucket(&bounds),
                whole.depth_per_bucket(&bounds),
                "{what}"
            );
        }
    }

    /// A table of format 9 or older (addresses as deltas) reads back as
    /// the table it was written from, its sites numbered alike.
    #[test]
    fn unnumbered_calls_read_back_numbered() {
        let mut raw = RawCalls::default();
        raw.extend((0..1000u64).map(|i| RawCall {
            entry_node: i * 10 + 1,
            entry_line: i * 31 + 2,
            entry_pc: 0x8000 + (i * 7 % 13) * 0x40,
            call_node: i * 10,
            call_pc: 0x9000 + (i * 5 % 17) * 4,
            resume_node: if i % 97 == 0 { NEVER } else { i * 10 + 5 },
            resume_line: if i % 97 == 0 { NEVER } else { i * 31 + 9 },
        }));
        let mut t = CallTable {
            raw,
            ..CallTable::default()
        };
        t.finish(Vec::new(), Vec::new());
        assert_eq!(t.sites.len(), 13 * 17);
        let Unnumbered { encoded: old, dir } = t.to_unnumbered_parts();
        let back =
            CallTable::from_unnumbered_parts(&old, &dir, t.len(), DepthCache::default()).unwrap();
        assert_eq!(back.encoded, t.encoded);
        assert_eq!(back.dir, t.dir);
        assert_eq!(back.sites, t.sites);
        let calls: Vec<CallInfo> = back.iter().collect();
        assert_eq!(calls, t.iter().collect::<Vec<_>>());
        assert_eq!(
            (calls[3].call_pc, calls[3].function),
            (0x9000 + 15 * 4, 0x8000 + 8 * 0x40)
        );
        assert!(CallTable::from_unnumbered_parts(
            &old[..old.len() - 1],
            &dir,
            t.len(),
            DepthCache::default()
        )
        .is_none());
    }

    #[test]
    fn entry_order_is_the_sorted_order_of_the_entries() {
        // Small (plain sort), radix with one and several digits, and
        // entries too wide to pack with the index (the pair sort).
        for (n, scale) in [
            (0, 1),
            (1, 1),
            (100, 5),
            (5000, 1),
            (70_000, 977),
            (9000, 1 << 50),
        ] {
            let calls = scrambled(n, scale);
            let order = entry_order(&calls);
            let entries: Vec<u64> = calls.iter().map(|c| c.entry_node).collect();
            let mut want: Vec<usize> = (0..calls.len()).collect();
            want.sort_by_key(|&i| entries[i]);
            assert_eq!(order, want, "{n} calls, entries scaled by {scale}");
        }
    }

    /// Keys crowded into a few buckets, or spread over all, and more than
    /// a step sorts: sorted as a plain sort sorts them.
    #[test]
    fn radix_sort_sorts_skewed_keys_in_steps() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for (n, to, spread) in [
            (50_000, 40, 40),
            (50_000, 40, 12),
            (50_000, 40, 3),
            (20_000, 9, 9),
            (5000, 64, 64),
        ] {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    let low = next() >> (64 - spread);
                    let top = next() % 3;
                    (top << (to - 2)) | (low & ((1u64 << (to - 2)) - 1))
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            let mut sort = RadixSort::new(keys, to);
            let mut steps = 1;
            while !sort.pass() {
                steps += 1;
            }
            assert_eq!(
                sort.keys, want,
                "{n} keys below 2^{to}, {spread} bits spread"
            );
            assert!(steps >= 3, "{steps} steps for {n} keys");
        }
    }

    #[test]
    fn radix_sort_orders_by_the_bits_asked_for() {
        let mut keys: Vec<u64> = (0..10_000u64)
            .map(|i| (i * 7919 % 10_000) << 14 | i)
            .collect();
        let mut want = keys.clone();
        want.sort_unstable();
        radix_sort(&mut keys, 14 + 14);
        assert_eq!(keys, want);
    }
}
