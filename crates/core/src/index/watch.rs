//! Watchpoints that run both ways: the next or previous node that reads or
//! writes a register or a memory range, and every such node in a range.
//! The index says which intervals may hold one (register groups written,
//! memory blocks written, memory lines read); only those are replayed,
//! through the engine that built the index, which confirms each hit. So a
//! search costs one pass over per-interval summaries plus a replay per
//! candidate interval, however far the hit is.

use serde::{Deserialize, Serialize};

use super::memdiff;
use super::reg_reads::read_ranges;
use super::Index;
use crate::engine::{Engine, Node, Observer};
use crate::parse::{Effect, Instruction, RegClass, RegId};
use crate::source::TraceSource;
use crate::state::regfile;
use crate::Result;

/// What a watchpoint watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watched {
    /// A register; any of its bytes.
    Reg(RegId),
    /// Memory bytes `[addr, addr + len)`.
    Mem {
        /// First byte.
        addr: u64,
        /// Bytes watched (0 counts as 1).
        len: u64,
    },
}

/// Which accesses a watchpoint stops at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AccessKind {
    /// Reads only: memory loads, and the registers an executed
    /// instruction reads (decoded from its encoding: the trace does not
    /// say).
    Read,
    /// Writes only: stores, register updates, and writes whose data the
    /// trace does not give.
    Write,
    /// Both.
    Any,
}

impl AccessKind {
    fn reads(self) -> bool {
        self != AccessKind::Write
    }
    fn writes(self) -> bool {
        self != AccessKind::Read
    }
}

/// One memory access of a hit: the access as the trace gives it (all of
/// it, also bytes outside the watched range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemAccessed {
    /// A write (else a read).
    pub write: bool,
    /// Address of `bytes[0]`.
    pub addr: u64,
    /// The values, byte `i` at `addr + i`.
    pub bytes: Vec<u8>,
    /// Whether each value is given (a write without data, `##` bytes).
    pub known: Vec<bool>,
}

/// A node that accessed what is watched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessHit {
    /// The node.
    pub node: Node,
    /// Whether it read what is watched.
    pub read: bool,
    /// Whether it wrote it.
    pub write: bool,
    /// For memory, its accesses that touched the range, in trace order.
    pub mem: Vec<MemAccessed>,
    /// For a register, its value after the node (little-endian bytes and
    /// whether each is known).
    pub reg: Option<(Vec<u8>, Vec<bool>)>,
}

/// Bytes as a value: up to 8 as one number (little-endian unless
/// `big_endian`), longer runs as bytes in address order; `??` for a byte
/// whose value is not given.
pub fn value_text(bytes: &[u8], known: &[bool], big_endian: bool) -> String {
    let digit = |i: usize| {
        if known.get(i).copied().unwrap_or(false) {
            format!("{:02x}", bytes[i])
        } else {
            "??".into()
        }
    };
    if bytes.is_empty() {
        String::new()
    } else if bytes.len() <= 8 {
        let order: Vec<usize> = if big_endian {
            (0..bytes.len()).collect()
        } else {
            (0..bytes.len()).rev().collect()
        };
        format!("0x{}", order.into_iter().map(digit).collect::<String>())
    } else {
        (0..bytes.len()).map(digit).collect::<Vec<_>>().join(" ")
    }
}

impl AccessHit {
    /// `r`, `w` or `rw`.
    pub fn kind_text(&self) -> &'static str {
        match (self.read, self.write) {
            (true, true) => "rw",
            (true, false) => "r",
            _ => "w",
        }
    }

    /// What was accessed: `W [0x3fff60:8]=0x00000000003fffb0 R [...]=...`
    /// for memory, `=0x...` (the value after the node) for a register.
    pub fn detail(&self, big_endian: bool) -> String {
        let mut parts: Vec<String> = (self.mem.iter())
            .map(|a| {
                let v = value_text(&a.bytes, &a.known, big_endian);
                let d = if a.write { "W" } else { "R" };
                format!("{d} [{:#x}:{}]={v}", a.addr, a.bytes.len())
            })
            .collect();
        if let Some((b, k)) = &self.reg {
            // Registers are little-endian in the file; wide ones show their
            // low 8 bytes.
            parts.push(format!("={}", value_text(&b[..b.len().min(8)], k, false)));
        }
        parts.join(" ")
    }
}

/// Which nodes a replay keeps.
#[derive(Clone, Copy)]
enum Scope {
    /// The last at or before.
    LastUpTo(u64),
    /// The first after.
    FirstAfter(u64),
    /// Every one in `lo..=hi`.
    Every(u64, u64),
}

impl Index {
    /// The first node after `node` that accesses `what` as `kind` says.
    pub fn next_access(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        what: Watched,
        kind: AccessKind,
    ) -> Result<Option<AccessHit>> {
        self.search(source, what, kind, Scope::FirstAfter(node))
    }

    /// The last node before `node` that accesses `what` as `kind` says.
    pub fn prev_access(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        what: Watched,
        kind: AccessKind,
    ) -> Result<Option<AccessHit>> {
        match node.checked_sub(1) {
            Some(limit) => self.search(source, what, kind, Scope::LastUpTo(limit)),
            None => Ok(None),
        }
    }

    /// Every node in `nodes` that accesses `what`, in order, given
    /// to `hit` as found; `hit` returns false to stop. `progress` gets the
    /// nodes covered so far after each interval looked at, and returns
    /// false to stop there.
    pub fn accesses(
        &self,
        source: &mut dyn TraceSource,
        what: Watched,
        kind: AccessKind,
        nodes: std::ops::RangeInclusive<u64>,
        hit: &mut dyn FnMut(AccessHit) -> bool,
        progress: &mut dyn FnMut(u64) -> bool,
    ) -> Result<()> {
        let (first, last) = nodes.into_inner();
        if first > last || self.checkpoints.is_empty() {
            return Ok(());
        }
        let lo = self.interval_of(first);
        let hi = self.interval_of(last);
        for k in lo..=hi {
            if self.may_access(k, what, kind) {
                for h in self.replay_accesses(source, k, what, kind, Scope::Every(first, last))? {
                    if !hit(h) {
                        return Ok(());
                    }
                }
            }
            let covered = self
                .checkpoints
                .get(k + 1)
                .map_or(self.summary.nodes, |c| c.resume.node_index);
            if !progress(covered.min(last + 1).saturating_sub(first)) {
                break;
            }
        }
        Ok(())
    }

    /// The last node at or before `node` that wrote any byte of `reg`.
    pub fn prev_reg_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        reg: RegId,
    ) -> Result<Option<Node>> {
        let scope = Scope::LastUpTo(node);
        let hit = self.search(source, Watched::Reg(reg), AccessKind::Write, scope)?;
        Ok(hit.map(|h| h.node))
    }

    /// The first node after `node` that writes any byte of `reg`.
    pub fn next_reg_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        reg: RegId,
    ) -> Result<Option<Node>> {
        let hit = self.next_access(source, node, Watched::Reg(reg), AccessKind::Write)?;
        Ok(hit.map(|h| h.node))
    }

    /// The last node at or before `node` that wrote (known or unknown data)
    /// any byte of `[addr, addr+len)`.
    pub fn prev_mem_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        addr: u64,
        len: u64,
    ) -> Result<Option<Node>> {
        let what = Watched::Mem { addr, len };
        let hit = self.search(source, what, AccessKind::Write, Scope::LastUpTo(node))?;
        Ok(hit.map(|h| h.node))
    }

    /// The first node after `node` that writes any byte of the range.
    pub fn next_mem_write(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        addr: u64,
        len: u64,
    ) -> Result<Option<Node>> {
        let what = Watched::Mem { addr, len };
        let hit = self.next_access(source, node, what, AccessKind::Write)?;
        Ok(hit.map(|h| h.node))
    }

    /// Walks intervals away from the scope's node, replaying those the
    /// index says may hold an access.
    fn search(
        &self,
        source: &mut dyn TraceSource,
        what: Watched,
        kind: AccessKind,
        scope: Scope,
    ) -> Result<Option<AccessHit>> {
        let n = self.checkpoints.len();
        if n == 0 {
            return Ok(None);
        }
        let (order, forward): (Box<dyn Iterator<Item = usize>>, bool) = match scope {
            Scope::FirstAfter(node) => (Box::new(self.interval_of(node)..n), true),
            Scope::LastUpTo(node) => (Box::new((0..=self.interval_of(node)).rev()), false),
            Scope::Every(..) => unreachable!("a list is made by Index::accesses"),
        };
        for k in order {
            if !self.may_access(k, what, kind) {
                continue;
            }
            let mut hits = self.replay_accesses(source, k, what, kind, scope)?;
            let found = if forward {
                hits.drain(..).next()
            } else {
                hits.pop()
            };
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// Whether interval `k` may access `what`: open intervals (no summary
    /// yet) and files without read summaries say yes.
    fn may_access(&self, k: usize, what: Watched, kind: AccessKind) -> bool {
        match what {
            Watched::Reg(reg) => {
                let (off, size) = self.reg_location(reg);
                let names = |g: &[u64; 2]| {
                    (off..off + size)
                        .map(regfile::group_of)
                        .any(|x| g[x / 64] & (1 << (x % 64)) != 0)
                };
                let wrote = kind.writes() && self.reg_groups.get(k).is_none_or(names);
                let read = kind.reads()
                    && (self.reg_reads.as_ref()).is_none_or(|r| r.get(k).is_none_or(names));
                wrote || read
            }
            Watched::Mem { addr, len } => {
                let last = addr.saturating_add(len.max(1) - 1);
                let wrote = kind.writes()
                    && (k >= self.mem.intervals()
                        || self.mem.interval_touches(
                            k,
                            addr >> memdiff::BLOCK_BITS,
                            last >> memdiff::BLOCK_BITS,
                        ));
                let read = kind.reads()
                    && self
                        .reads
                        .as_ref()
                        .is_none_or(|r| k >= r.intervals() || r.interval_reads(k, addr, len));
                wrote || read
            }
        }
    }

    fn reg_location(&self, reg: RegId) -> (usize, usize) {
        // A trace that ever ran AArch64 lays out r0-r15 as x0-x15.
        let aarch64 = self.aarch64_used && !matches!(reg.class, RegClass::R);
        regfile::location(reg, aarch64)
    }

    /// Replays interval `k`, returning its nodes in `scope` that access
    /// `what` (for [`Scope::FirstAfter`], at most the first).
    fn replay_accesses(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        what: Watched,
        kind: AccessKind,
        scope: Scope,
    ) -> Result<Vec<AccessHit>> {
        let (lo, hi) = match scope {
            Scope::LastUpTo(limit) => (0, limit),
            Scope::FirstAfter(after) => match after.checked_add(1) {
                Some(lo) => (lo, u64::MAX),
                None => return Ok(Vec::new()),
            },
            Scope::Every(lo, hi) => (lo, hi),
        };
        let reg = match what {
            Watched::Reg(reg) => Some(self.reg_location(reg)),
            Watched::Mem { .. } => None,
        };
        let mem = match what {
            Watched::Mem { addr, len } => Some((addr, addr.saturating_add(len.max(1)))),
            Watched::Reg(_) => None,
        };
        let mut a = Accesses {
            lo,
            hi,
            reg,
            mem,
            kind,
            open: None,
            hits: Vec::new(),
            first_only: matches!(scope, Scope::FirstAfter(_)),
            stop: false,
        };
        self.replay(source, k, &mut a)?;
        Ok(a.hits)
    }
}

/// Collects the accessing nodes of a replay.
struct Accesses {
    /// Nodes wanted, inclusive.
    lo: u64,
    hi: u64,
    /// Register bytes watched: offset and size in the register file.
    reg: Option<(usize, usize)>,
    /// Memory watched: `[start, end)`.
    mem: Option<(u64, u64)>,
    kind: AccessKind,
    /// The open node's hit so far.
    open: Option<(u64, AccessHit)>,
    hits: Vec<AccessHit>,
    first_only: bool,
    stop: bool,
}

impl Accesses {
    /// The open node's hit, made on its first access.
    fn hit(&mut self, node: u64) -> Option<&mut AccessHit> {
        if self.stop || node < self.lo || node > self.hi {
            return None;
        }
        if self.open.as_ref().is_none_or(|(n, _)| *n != node) {
            let empty = AccessHit {
                node: Node::default(),
                read: false,
                write: false,
                mem: Vec::new(),
                reg: None,
            };
            self.open = Some((node, empty));
        }
        self.open.as_mut().map(|(_, h)| h)
    }

    fn mem_hit(&mut self, node: u64, write: bool, addr: u64, bytes: &[u8], known: &[u8]) {
        let Some((start, end)) = self.mem else {
            return;
        };
        let wanted = if write {
            self.kind.writes()
        } else {
            self.kind.reads()
        };
        let len = bytes.len().max(1) as u64;
        if !wanted || addr >= end || start >= addr.saturating_add(len) {
            return;
        }
        if let Some(h) = self.hit(node) {
            h.read |= !write;
            h.write |= write;
            h.mem.push(MemAccessed {
                write,
                addr,
                bytes: bytes.to_vec(),
                known: known.iter().map(|&k| k != 0).collect(),
            });
        }
    }
}

impl Observer for Accesses {
    fn node(&mut self, n: &Node, e: &Engine) {
        if self.stop {
            return;
        }
        if let Some((node, mut h)) = self.open.take() {
            if node == n.at.node {
                h.node = *n;
                if let Some((off, size)) = self.reg {
                    let regs = e.regs();
                    let bytes = regs.bytes[off..off + size].to_vec();
                    let known = regs.known[off..off + size].iter().map(|&k| k != 0);
                    h.reg = Some((bytes, known.collect()));
                }
                self.hits.push(h);
                self.stop = self.first_only;
            }
        }
        self.stop |= n.at.node >= self.hi;
    }
    fn done(&self) -> bool {
        self.stop
    }
    fn reg_write(&mut self, node: u64, offset: usize, _bytes: &[u8], known: &[u8]) {
        let Some((off, size)) = self.reg else {
            return;
        };
        // The indexer's own iflags bookkeeping is no register write.
        if self.kind.writes()
            && offset != regfile::IFLAGS
            && offset < off + size
            && off < offset + known.len()
            && known.iter().any(|&k| k != 0)
        {
            if let Some(h) = self.hit(node) {
                h.write = true;
            }
        }
    }
    fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
        // Known values: the flags are made only for a write that is a hit.
        if let Some((start, end)) = self.mem {
            if addr < end && start < addr.saturating_add(bytes.len().max(1) as u64) {
                self.mem_hit(node, true, addr, bytes, &vec![1; bytes.len()]);
            }
        }
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        // Cap what is kept: a semihosting call may unknown a big buffer.
        let kept = len.min(64) as usize;
        if let Some((start, end)) = self.mem {
            if addr < end && start < addr.saturating_add(len.max(1)) {
                let at = start.max(addr).min(addr.saturating_add(len - kept as u64));
                self.mem_hit(node, true, at, &vec![0; kept], &vec![0; kept]);
            }
        }
    }
    fn mem_read(&mut self, node: u64, addr: u64, bytes: &[u8], known: &[u8]) {
        self.mem_hit(node, false, addr, bytes, known);
    }
    fn instruction_record(&mut self, node: u64, ins: &Instruction<'_>) {
        let Some((off, size)) = self.reg else {
            return;
        };
        if !self.kind.reads() || ins.effect != Effect::Executed {
            return;
        }
        // An encoding the decoder does not know is no known read.
        let reads = read_ranges(ins).unwrap_or_default();
        if reads.iter().any(|&(o, l)| o < off + size && off < o + l) {
            if let Some(h) = self.hit(node) {
                h.read = true;
            }
        }
    }
}
