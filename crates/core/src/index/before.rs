//! The machine state just before a node, kept to answer many reads: what a
//! debugger stopped at an instruction shows (its registers, then memory a
//! few bytes at a time). One replay of the interval up to the node makes
//! it; each read after that costs the index's per-block memory history,
//! not another replay.

use std::collections::BTreeMap;

use super::memdiff::{self, ByteState};
use super::*;
use crate::codec::varint;
use crate::parse::CoreSelect;
use crate::parse::RecordKind;

/// What the trace shows of one memory byte at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemByte {
    /// Written, or revealed by a read, with this value.
    Value(u8),
    /// Written with a value the trace does not give (`##` data, a
    /// semihosting buffer).
    Unknown,
    /// Never written or read in the trace up to here (nor read later
    /// while still unwritten).
    NeverSeen,
}

/// The registers and memory just before node `node` ran: after the node
/// before it, or the trace's starting state for node 0.
pub struct StateBefore {
    node: u64,
    interval: usize,
    regs: RegFile,
    /// The bytes written inside the interval before `node`, by 16-byte block.
    written: BTreeMap<u64, [ByteState; 16]>,
}

impl StateBefore {
    /// The node it is the state before.
    pub fn node(&self) -> u64 {
        self.node
    }

    /// The register file.
    pub fn registers(&self) -> &RegFile {
        &self.regs
    }

    /// Memory `[addr, addr + out.len())`, one [`MemByte`] per byte; the
    /// index must be the one that made this state.
    pub fn memory(&self, index: &Index, addr: u64, out: &mut [MemByte]) {
        let mut block_cache: Option<(u64, [ByteState; 16])> = None;
        for (i, slot) in out.iter_mut().enumerate() {
            let a = addr.wrapping_add(i as u64);
            let block = a >> memdiff::BLOCK_BITS;
            let at = (a & (memdiff::BLOCK - 1)) as usize;
            let state = match self.written.get(&block).and_then(|b| b[at]) {
                Some(s) => Some(s),
                None => {
                    if block_cache.as_ref().is_none_or(|(b, _)| *b != block) {
                        block_cache = Some((block, index.mem.block_state(block, self.interval)));
                    }
                    block_cache.as_ref().and_then(|(_, s)| s[at])
                }
            };
            *slot = match state {
                Some(Ok(v)) => MemByte::Value(v),
                Some(Err(since)) => match index.mem.fill_value(Some(since), a) {
                    Some(v) => MemByte::Value(v),
                    None => MemByte::Unknown,
                },
                None => match index.mem.fill_value(None, a) {
                    Some(v) => MemByte::Value(v),
                    None => MemByte::NeverSeen,
                },
            };
        }
    }
}

impl Index {
    /// The state just before node `node` ran (after node `node - 1`),
    /// replaying at most its interval up to it.
    pub fn state_before(&self, source: &mut dyn TraceSource, node: u64) -> Result<StateBefore> {
        if node >= self.summary.nodes {
            return Err(Error::OutOfRange(format!("no node {}", node)));
        }
        let k = self.interval_of(node);
        let first = self.checkpoints.get(k).map(|c| c.resume.node_index);
        if first == Some(node) || self.checkpoints.is_empty() {
            // The checkpoint is the state there: nothing to replay.
            let regs = if self.checkpoints.is_empty() {
                RegFile::default()
            } else {
                self.snapshots.get(k)
            };
            return Ok(StateBefore {
                node,
                interval: k,
                regs,
                written: BTreeMap::new(),
            });
        }
        struct Before {
            target: u64,
            regs: Option<RegFile>,
            written: BTreeMap<u64, [ByteState; 16]>,
        }
        impl Before {
            fn set(&mut self, addr: u64, state: ByteState) {
                let block = self.written.entry(addr >> memdiff::BLOCK_BITS);
                block.or_insert([None; 16])[(addr & (memdiff::BLOCK - 1)) as usize] = state;
            }
        }
        impl Observer for Before {
            fn node(&mut self, n: &Node, e: &Engine) {
                if n.at.node + 1 == self.target {
                    self.regs = Some(e.regs().clone());
                }
            }
            fn done(&self) -> bool {
                self.regs.is_some()
            }
            fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
                if node < self.target {
                    for (j, &v) in bytes.iter().enumerate() {
                        self.set(addr.wrapping_add(j as u64), Some(Ok(v)));
                    }
                }
            }
            fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
                if node < self.target {
                    // A semihosting call may unknown a big buffer: bounded.
                    for j in 0..len.min(1 << 20) {
                        self.set(addr.wrapping_add(j), Some(Err(node)));
                    }
                }
            }
        }
        let mut b = Before {
            target: node,
            regs: None,
            written: BTreeMap::new(),
        };
        self.replay(source, k, &mut b)?;
        let regs = b
            .regs
            .ok_or_else(|| Error::OutOfRange(format!("no node {}", node)))?;
        Ok(StateBefore {
            node,
            interval: k,
            regs,
            written: b.written,
        })
    }

    /// The nearest instruction node after (`forward`) or before `from`,
    /// with the state just before it: what a debugger's step needs, in
    /// one replay of `from`'s interval where the destination is in it
    /// (else a walk and [`Index::state_before`]). `None` past either end.
    pub fn step_instruction(
        &self,
        source: &mut dyn TraceSource,
        from: u64,
        forward: bool,
    ) -> Result<Option<(Node, StateBefore)>> {
        /// Register files kept before the start, for a step back.
        const BACK: u64 = 8;
        struct Step {
            from: u64,
            forward: bool,
            /// Forward: the registers after the last node closed (from
            /// `from` on). Back: after each of the last `BACK` nodes.
            kept: Vec<(u64, RegFile)>,
            /// Every memory byte written, with its node, in order.
            writes: Vec<(u64, u64, ByteState)>,
            /// Back: the last instruction node before `from` so far.
            last: Option<Node>,
            found: Option<Node>,
            done: bool,
        }
        impl Observer for Step {
            fn node(&mut self, n: &Node, e: &Engine) {
                let i = n.at.node;
                if self.forward {
                    if i > self.from && n.has_instruction() {
                        self.found = Some(*n);
                        self.done = true;
                        return;
                    }
                    if i >= self.from {
                        self.kept.clear();
                        self.kept.push((i, e.regs().clone()));
                    }
                } else {
                    if i >= self.from {
                        self.done = true;
                        return;
                    }
                    if n.has_instruction() {
                        self.last = Some(*n);
                    }
                    if i + BACK + 1 >= self.from {
                        self.kept.push((i, e.regs().clone()));
                    }
                    if i + 1 == self.from {
                        self.found = self.last;
                        self.done = true;
                    }
                }
            }
            fn done(&self) -> bool {
                self.done
            }
            fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
                for (j, &v) in bytes.iter().enumerate() {
                    self.writes
                        .push((node, addr.wrapping_add(j as u64), Some(Ok(v))));
                }
            }
            fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
                for j in 0..len.min(1 << 20) {
                    self.writes
                        .push((node, addr.wrapping_add(j), Some(Err(node))));
                }
            }
        }
        if self.checkpoints.is_empty() || (!forward && from == 0) {
            return Ok(None);
        }
        let k = self.interval_of(from);
        let mut s = Step {
            from,
            forward,
            kept: Vec::new(),
            writes: Vec::new(),
            last: None,
            found: None,
            done: false,
        };
        self.replay(source, k, &mut s)?;
        let first = self.checkpoints[k].resume.node_index;
        if let Some(dest) = s.found {
            let target = dest.at.node;
            let regs = s.kept.iter().find(|(i, _)| i + 1 == target);
            if let Some((_, regs)) = regs.filter(|_| target > first) {
                let mut written: BTreeMap<u64, [ByteState; 16]> = BTreeMap::new();
                for &(node, addr, state) in &s.writes {
                    if node < target {
                        let block = written.entry(addr >> memdiff::BLOCK_BITS);
                        block.or_insert([None; 16])[(addr & (memdiff::BLOCK - 1)) as usize] = state;
                    }
                }
                let state = StateBefore {
                    node: target,
                    interval: k,
                    regs: regs.clone(),
                    written,
                };
                return Ok(Some((dest, state)));
            }
        }
        // Elsewhere (another interval, or too far back): two queries.
        let dest = match s.found {
            Some(d) => Some(d),
            None => self.walk_nodes(source, from, forward, &mut |n| n.has_instruction())?,
        };
        match dest {
            Some(d) => Ok(Some((d, self.state_before(source, d.at.node)?))),
            None => Ok(None),
        }
    }

    /// The nearest node strictly after (`forward`) or before `from` that
    /// `wanted` takes, visiting nodes outward from `from` in order, one
    /// interval replay at a time; `None` past either end.
    pub fn walk_nodes(
        &self,
        source: &mut dyn TraceSource,
        from: u64,
        forward: bool,
        wanted: &mut dyn FnMut(&Node) -> bool,
    ) -> Result<Option<Node>> {
        if self.checkpoints.is_empty() {
            return Ok(None);
        }
        let mut k = self.interval_of(from) as i64;
        while k >= 0 && (k as usize) < self.checkpoints.len() {
            let mut found = None;
            if forward {
                self.scan_nodes(source, k as usize, &mut |n| {
                    if n.at.node > from && wanted(n) {
                        found = Some(*n);
                        return false;
                    }
                    true
                })?;
            } else {
                let mut nodes = Vec::new();
                self.scan_nodes(source, k as usize, &mut |n| {
                    if n.at.node < from {
                        nodes.push(*n);
                        true
                    } else {
                        false
                    }
                })?;
                found = nodes.into_iter().rev().find(|n| wanted(n));
            }
            if found.is_some() {
                return Ok(found);
            }
            k += if forward { 1 } else { -1 };
        }
        Ok(None)
    }

    /// The nearest node strictly after (`forward`) or before `node` whose
    /// instruction address (Thumb bit cleared) is one of `pcs`. `where_ran`,
    /// when given, names the intervals each address ran in, so only those
    /// are replayed; without it the index's per-interval PC filters choose.
    pub fn find_any_pc(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        pcs: &std::collections::HashSet<u64>,
        forward: bool,
        where_ran: Option<&PcIntervals>,
    ) -> Result<Option<Node>> {
        let Some(table) = where_ran else {
            return self.find_pcs(source, node, pcs, forward, |_| true);
        };
        let start = self.interval_of(node);
        let mut k = start;
        loop {
            // The nearest interval (from `k` on, outward) any address ran in.
            let next = pcs
                .iter()
                .filter_map(|&pc| table.nearest(pc & !1, k, forward))
                .reduce(|a, b| if forward { a.min(b) } else { a.max(b) });
            let Some(at) = next else {
                return Ok(None);
            };
            let mut found: Option<Node> = None;
            self.scan_nodes(source, at, &mut |n| {
                let hit = n.has_instruction()
                    && pcs.contains(&(n.at.pc & !1))
                    && if forward {
                        n.at.node > node
                    } else {
                        n.at.node < node
                    };
                if hit {
                    found = Some(*n);
                    return !forward;
                }
                forward || n.at.node < node
            })?;
            if found.is_some() {
                return Ok(found);
            }
            // The interval holding `node` may run the address only on
            // the wrong side of it.
            if forward {
                k = at + 1;
            } else if at == 0 {
                return Ok(None);
            } else {
                k = at - 1;
            }
        }
    }
}

/// Per instruction address, the checkpoint intervals it ran in, as runs
/// of consecutive intervals: what makes a breakpoint search replay only
/// intervals that hold a hit (the index's 256-bit per-interval filters
/// pass most intervals of a big loop-heavy trace). Made by one
/// parser-only pass over the trace ([`PcIntervals::build`]).
#[derive(Default)]
pub struct PcIntervals {
    /// Address → sorted, disjoint runs `(first, last)` of intervals.
    runs: crate::state::fasthash::AddrMap<u64, Vec<(u32, u32)>>,
}

/// The first bytes of a [`PcIntervals`] file.
const MAGIC: &[u8] = b"TLPCINT1";

impl PcIntervals {
    /// Reads the trace's instruction lines once (no machine model; the
    /// followed core's only), noting each instruction address's
    /// intervals. `keep_going` is asked after each interval with the
    /// number done; false abandons the pass (`None`).
    pub fn build(
        index: &Index,
        source: &mut dyn TraceSource,
        keep_going: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<PcIntervals>> {
        let mut table = PcIntervals::default();
        let mut parser = Parser::new(index.opts.parse, index.dialect);
        let end_all = index.summary.bytes.min(source.len());
        for (k, cp) in index.checkpoints.iter().enumerate() {
            let end = index.checkpoints.get(k + 1).map_or(end_all, |c| c.offset);
            parser.reset(cp.parser_time);
            let mut core = index.opts.parse.cpu.map(CoreSelect::new);
            let mut reader =
                LineReader::with_range(SourceRef(source), cp.offset, end, cp.line, 1 << 20);
            let mut last = u64::MAX;
            while let Some(line) = reader.next_line().map_err(Error::in_query)? {
                let rec = parser.parse_line(line.text);
                if let Some(core) = &mut core {
                    if !core.line(rec.cpu) {
                        continue;
                    }
                }
                if let RecordKind::Instruction(ins) = &rec.kind {
                    let pc = ins.pc & !1;
                    if pc != last {
                        table.note(pc, k as u32);
                        last = pc;
                    }
                }
            }
            if !keep_going(k + 1) {
                return Ok(None);
            }
        }
        Ok(Some(table))
    }

    fn note(&mut self, pc: u64, k: u32) {
        let runs = self.runs.entry(pc).or_default();
        match runs.last_mut() {
            Some((_, last)) if *last == k => {}
            Some((_, last)) if *last + 1 == k => *last = k,
            _ => runs.push((k, k)),
        }
    }

    /// The nearest interval at or after (`forward`) or at or before `k`
    /// that `pc` ran in.
    fn nearest(&self, pc: u64, k: usize, forward: bool) -> Option<usize> {
        let runs = self.runs.get(&pc)?;
        let k = u32::try_from(k).ok()?;
        if forward {
            let i = runs.partition_point(|&(_, last)| last < k);
            runs.get(i).map(|&(first, _)| first.max(k) as usize)
        } else {
            let i = runs.partition_point(|&(first, _)| first <= k);
            i.checked_sub(1).map(|i| runs[i].1.min(k) as usize)
        }
    }

    /// The table as bytes, for a file beside the index; it holds the
    /// index's size figures, so [`PcIntervals::from_bytes`] refuses it
    /// for another index.
    pub fn to_bytes(&self, index: &Index) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for v in Self::identity(index) {
            varint::put(&mut out, v);
        }
        varint::put(&mut out, self.runs.len() as u64);
        let mut pcs: Vec<_> = self.runs.iter().collect();
        pcs.sort_by_key(|(pc, _)| **pc);
        let mut last_pc = 0;
        for (&pc, runs) in pcs {
            varint::put(&mut out, pc - last_pc);
            last_pc = pc;
            varint::put(&mut out, runs.len() as u64);
            let mut at = 0u32;
            for &(first, last) in runs {
                varint::put(&mut out, u64::from(first - at));
                varint::put(&mut out, u64::from(last - first));
                at = last;
            }
        }
        out
    }

    /// A table written by [`PcIntervals::to_bytes`] for this index, or
    /// `None` (another index, a damaged file).
    pub fn from_bytes(bytes: &[u8], index: &Index) -> Option<PcIntervals> {
        let mut pos = bytes.strip_prefix(MAGIC).map(|_| MAGIC.len())?;
        for v in Self::identity(index) {
            if varint::get(bytes, &mut pos)? != v {
                return None;
            }
        }
        let n = varint::get(bytes, &mut pos)?;
        let mut table = PcIntervals::default();
        let mut pc = 0u64;
        for _ in 0..n {
            pc = pc.checked_add(varint::get(bytes, &mut pos)?)?;
            let count = varint::get(bytes, &mut pos)?;
            let mut runs = Vec::with_capacity(count.min(1 << 16) as usize);
            let mut at = 0u32;
            for _ in 0..count {
                let first = at.checked_add(u32::try_from(varint::get(bytes, &mut pos)?).ok()?)?;
                let last = first.checked_add(u32::try_from(varint::get(bytes, &mut pos)?).ok()?)?;
                runs.push((first, last));
                at = last;
            }
            table.runs.insert(pc, runs);
        }
        (pos == bytes.len()).then_some(table)
    }

    fn identity(index: &Index) -> [u64; 4] {
        let s = index.summary;
        [
            s.bytes,
            s.nodes,
            s.instructions,
            index.checkpoints.len() as u64,
        ]
    }

    /// Bytes it holds.
    pub fn resident_bytes(&self) -> usize {
        self.runs.capacity() * 40 + self.runs.values().map(|r| r.capacity() * 8).sum::<usize>()
    }
}
