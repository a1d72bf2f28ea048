//! Where the debugger stands in the recorded run and how it moves: the
//! protocol-free half of `gdbserver`. A position is an instruction node,
//! "about to run" it (gdb's convention): its registers and memory are the
//! state before it ([`Index::state_before`]). Stepping walks to the next
//! or previous instruction node; continuing asks the index for the nearest
//! breakpoint address ([`Index::find_any_pc`], through the per-address
//! interval table once it is built) and watchpoint access
//! ([`Index::accesses`], [`Index::prev_access`]), never replaying the
//! trace between.
//!
//! Watchpoints stop as on Arm hardware, where gdb treats them as
//! non-steppable: forward, before the accessing instruction (gdb then
//! steps over it and shows the old and new values); backward, just after
//! it (gdb then steps back over it), so either way gdb ends at the access.
//!
//! Multi-core traces: one index per core; the other cores stand just
//! before their next instruction after the current core's line.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use gdbstub::target::ext::breakpoints::WatchKind;
use tarmac_lens_core::{
    dataflow::ImageMemory, AccessKind, Index, MemByte, Node, PcIntervals, StateBefore, TraceSource,
    Watched,
};

use super::regs::{self, Profile};

/// One core of the trace and its index.
pub struct Core {
    /// Its `<cpu>` name on a multi-core trace.
    pub name: Option<String>,
    pub index: Arc<Index>,
    /// Where each instruction address ran, once a background pass has
    /// made it; until then the index's per-interval filters stand in.
    pub pcs: Arc<OnceLock<PcIntervals>>,
}

/// Why the debuggee stopped (cores by number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A step or a range step ended.
    Step(usize),
    /// At a breakpoint address (`hw`: set as a hardware breakpoint).
    Break(usize, bool),
    /// An access a watchpoint asked for.
    Watch(usize, WatchKind, u64),
    /// The start of the trace: nothing to go back to.
    Begin(usize),
    /// The end of the trace: nothing more was recorded.
    End(usize),
}

/// What a resume asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    Step,
    Continue,
    /// Forward while the pc is in `[start, end)` (gdb's range stepping).
    Range(u64, u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Watch {
    addr: u64,
    len: u64,
    kind: WatchKind,
}

impl Watch {
    fn what(&self) -> Watched {
        Watched::Mem {
            addr: self.addr,
            len: self.len,
        }
    }
    fn access(&self) -> AccessKind {
        match self.kind {
            WatchKind::Write => AccessKind::Write,
            WatchKind::Read => AccessKind::Read,
            WatchKind::ReadWrite => AccessKind::Any,
        }
    }
}

/// A stop found by a search: the node to stand at and why.
#[derive(Clone, Copy)]
struct Candidate {
    at: Node,
    stop: Stop,
    /// Breakpoints before watchpoints at one position: the breakpoint
    /// fires on arriving, the watchpoint while the instruction runs.
    rank: u8,
}

pub struct Timeline {
    pub cores: Vec<Core>,
    source: Box<dyn TraceSource>,
    image: Option<ImageMemory>,
    pub profile: Profile,
    current: usize,
    /// Per core: where it stands (`None`: to be found from `line`).
    at: Vec<Option<Node>>,
    /// The current core's position's first line.
    line: u64,
    states: Vec<Option<StateBefore>>,
    /// Per core: first and last instruction nodes.
    ends: Vec<(Node, Node)>,
    /// Breakpoint addresses, each with how many times set (sw, hw).
    breaks: BTreeMap<u64, (u32, u32)>,
    watches: Vec<Watch>,
}

pub type Result<T> = std::result::Result<T, String>;

fn err(e: tarmac_lens_core::Error) -> String {
    e.to_string()
}

impl Timeline {
    /// A timeline standing at the first instruction of the trace.
    pub fn new(
        cores: Vec<Core>,
        mut source: Box<dyn TraceSource>,
        image: Option<ImageMemory>,
        profile: Profile,
    ) -> Result<Timeline> {
        let mut ends = Vec::new();
        for core in &cores {
            let index = &core.index;
            let instr = |n: &Node| n.has_instruction();
            let first = match index.node(&mut *source, 0) {
                Ok(n) if n.has_instruction() => Some(n),
                Ok(_) => index
                    .walk_nodes(&mut *source, 0, true, &mut |n| instr(n))
                    .map_err(err)?,
                Err(_) => None,
            };
            let n = index.nodes();
            let last = match n.checked_sub(1).map(|l| index.node(&mut *source, l)) {
                Some(Ok(l)) if l.has_instruction() => Some(l),
                Some(Ok(l)) => index
                    .walk_nodes(&mut *source, l.at.node, false, &mut |n| instr(n))
                    .map_err(err)?,
                _ => None,
            };
            match (first, last) {
                (Some(f), Some(l)) => ends.push((f, l)),
                _ => {
                    let who = core
                        .name
                        .as_deref()
                        .map_or(String::new(), |c| format!(" of {c}"));
                    return Err(format!(
                        "no instruction{who} in the trace: nothing to debug"
                    ));
                }
            }
        }
        let current = (0..cores.len())
            .min_by_key(|&c| ends[c].0.at.line)
            .unwrap_or(0);
        let n = cores.len();
        let mut t = Timeline {
            cores,
            source,
            image,
            profile,
            current,
            at: vec![None; n],
            line: 0,
            states: (0..n).map(|_| None).collect(),
            ends,
            breaks: BTreeMap::new(),
            watches: Vec::new(),
        };
        let first = t.ends[current].0;
        t.stand(current, first);
        Ok(t)
    }

    /// The trace source, for the next session.
    pub fn into_source(self) -> Box<dyn TraceSource> {
        self.source
    }

    pub fn current(&self) -> usize {
        self.current
    }

    /// Makes `core` current at `node`; the others follow its line.
    fn stand(&mut self, core: usize, node: Node) {
        self.current = core;
        self.line = node.at.line;
        for c in 0..self.at.len() {
            if c == core {
                if self.at[c] != Some(node) {
                    self.at[c] = Some(node);
                    self.states[c] = None;
                }
            } else {
                self.at[c] = None;
                self.states[c] = None;
            }
        }
    }

    /// Where `core` stands.
    pub fn position(&mut self, core: usize) -> Result<Node> {
        if let Some(n) = self.at[core] {
            return Ok(n);
        }
        // Another core: just before its next instruction after `line`.
        let index = self.cores[core].index.clone();
        let (first, last) = self.ends[core];
        let node = if self.line <= first.at.line {
            first
        } else if self.line > last.at.line {
            last
        } else {
            let n = index
                .node_at_line(&mut *self.source, self.line)
                .map_err(err)?;
            if n.has_instruction() && n.at.line >= self.line {
                n
            } else {
                index
                    .walk_nodes(&mut *self.source, n.at.node, true, &mut |n| {
                        n.has_instruction()
                    })
                    .map_err(err)?
                    .unwrap_or(last)
            }
        };
        self.at[core] = Some(node);
        Ok(node)
    }

    fn state(&mut self, core: usize) -> Result<&StateBefore> {
        let node = self.position(core)?;
        if self.states[core]
            .as_ref()
            .is_none_or(|s| s.node() != node.at.node)
        {
            let s = self.cores[core]
                .index
                .state_before(&mut *self.source, node.at.node)
                .map_err(err)?;
            self.states[core] = Some(s);
        }
        Ok(self.states[core].as_ref().expect("just made"))
    }

    /// gdb's register set for `core`.
    pub fn registers(&mut self, core: usize) -> Result<Vec<Option<u8>>> {
        let pc = self.position(core)?.at.pc;
        let profile = self.profile;
        let state = self.state(core)?;
        Ok(regs::fill(profile, state.registers(), pc))
    }

    /// The pc of `core`'s position (Thumb bit cleared).
    pub fn pc(&mut self, core: usize) -> Result<u64> {
        Ok(self.position(core)?.at.pc & !1)
    }

    /// Reads memory as `core` sees it: the bytes known up to the first
    /// unreadable one (`Ok(0)` when the first is). A byte the trace never
    /// showed reads from the image's loaded segments when there is one.
    pub fn read_memory(&mut self, core: usize, addr: u64, buf: &mut [u8]) -> Result<usize> {
        let mut bytes = vec![MemByte::NeverSeen; buf.len()];
        let index = self.cores[core].index.clone();
        self.state(core)?.memory(&index, addr, &mut bytes);
        for (i, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u64);
            let v = match b {
                MemByte::Value(v) => Some(*v),
                MemByte::Unknown => None,
                MemByte::NeverSeen => (self.image.as_ref())
                    .and_then(|m| m.read(a, 1))
                    .map(|s| s[0]),
            };
            match v {
                Some(v) => buf[i] = v,
                None => return Ok(i),
            }
        }
        Ok(buf.len())
    }

    pub fn add_break(&mut self, addr: u64, hw: bool) {
        let e = self.breaks.entry(addr & !1).or_default();
        if hw {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }

    /// Whether there was one to remove.
    pub fn remove_break(&mut self, addr: u64, hw: bool) -> bool {
        let Some(e) = self.breaks.get_mut(&(addr & !1)) else {
            return false;
        };
        let n = if hw { &mut e.1 } else { &mut e.0 };
        if *n == 0 {
            return false;
        }
        *n -= 1;
        if *e == (0, 0) {
            self.breaks.remove(&(addr & !1));
        }
        true
    }

    pub fn add_watch(&mut self, addr: u64, len: u64, kind: WatchKind) {
        self.watches.push(Watch {
            addr,
            len: len.max(1),
            kind,
        });
    }

    pub fn remove_watch(&mut self, addr: u64, len: u64, kind: WatchKind) -> bool {
        let w = Watch {
            addr,
            len: len.max(1),
            kind,
        };
        match self.watches.iter().position(|x| *x == w) {
            Some(i) => {
                self.watches.remove(i);
                true
            }
            None => false,
        }
    }

    /// Moves `core` (every core for a continue) as asked; where it stops.
    pub fn resume(&mut self, core: usize, motion: Motion, forward: bool) -> Result<Stop> {
        match motion {
            Motion::Step => self.step(core, forward),
            Motion::Continue => self.run(None, forward),
            Motion::Range(s, e) => self.run(Some((core, s, e)), forward),
        }
    }

    fn step(&mut self, core: usize, forward: bool) -> Result<Stop> {
        let from = self.position(core)?;
        let index = self.cores[core].index.clone();
        let next = index
            .step_instruction(&mut *self.source, from.at.node, forward)
            .map_err(err)?;
        let Some((to, state)) = next else {
            self.stand(core, from);
            return Ok(if forward {
                Stop::End(core)
            } else {
                Stop::Begin(core)
            });
        };
        // The nodes crossed: forward `from` up to `to`, back `to` up to `from`.
        let (lo, hi) = if forward {
            (from.at.node, to.at.node - 1)
        } else {
            (to.at.node, from.at.node - 1)
        };
        for w in self.watches.clone() {
            let mut hit = false;
            index
                .accesses(
                    &mut *self.source,
                    w.what(),
                    w.access(),
                    lo..=hi,
                    &mut |_| {
                        hit = true;
                        false
                    },
                    &mut |_| true,
                )
                .map_err(err)?;
            if hit {
                self.stand(core, from);
                return Ok(Stop::Watch(core, w.kind, w.addr));
            }
        }
        self.stand(core, to);
        self.states[core] = Some(state);
        Ok(Stop::Step(core))
    }

    /// Continue (or range-step `core`) in one direction: the nearest stop
    /// over every core (a range step moves its core only).
    fn run(&mut self, range: Option<(usize, u64, u64)>, forward: bool) -> Result<Stop> {
        let cores: Vec<usize> = match range {
            Some((c, _, _)) => vec![c],
            None => (0..self.cores.len()).collect(),
        };
        let mut best: Option<Candidate> = None;
        for &c in &cores {
            let from = self.position(c)?;
            if let Some(found) = self.nearest_stop(c, from, range, forward)? {
                let better = best.as_ref().is_none_or(|b| {
                    let (x, y) = (found.at.at.line, b.at.at.line);
                    if x == y {
                        found.rank < b.rank
                    } else {
                        (x < y) == forward
                    }
                });
                if better {
                    best = Some(found);
                }
            }
        }
        match best {
            Some(found) => {
                let core = match found.stop {
                    Stop::Step(c)
                    | Stop::Break(c, _)
                    | Stop::Watch(c, _, _)
                    | Stop::Begin(c)
                    | Stop::End(c) => c,
                };
                self.stand(core, found.at);
                Ok(found.stop)
            }
            None => {
                // Past every stop: the end (or start) of the recording.
                let c = cores
                    .iter()
                    .copied()
                    .max_by_key(|&c| {
                        let (f, l) = self.ends[c];
                        if forward {
                            l.at.line
                        } else {
                            u64::MAX - f.at.line
                        }
                    })
                    .unwrap_or(self.current);
                let (f, l) = self.ends[c];
                self.stand(c, if forward { l } else { f });
                Ok(if forward {
                    Stop::End(c)
                } else {
                    Stop::Begin(c)
                })
            }
        }
    }

    /// The nearest stop for `core` from `from`.
    fn nearest_stop(
        &mut self,
        core: usize,
        from: Node,
        range: Option<(usize, u64, u64)>,
        forward: bool,
    ) -> Result<Option<Candidate>> {
        let index = self.cores[core].index.clone();
        let mut best: Option<Candidate> = None;
        let closer = |best: &Option<Candidate>, n: u64| {
            best.as_ref().is_none_or(|b| {
                if forward {
                    n < b.at.at.node
                } else {
                    n > b.at.at.node
                }
            })
        };
        if !self.breaks.is_empty() {
            let pcs: std::collections::HashSet<u64> = self.breaks.keys().copied().collect();
            let table = self.cores[core].pcs.get();
            if let Some(n) = index
                .find_any_pc(&mut *self.source, from.at.node, &pcs, forward, table)
                .map_err(err)?
            {
                let hw = self.breaks.get(&(n.at.pc & !1)).is_some_and(|e| e.0 == 0);
                best = Some(Candidate {
                    at: n,
                    stop: Stop::Break(core, hw),
                    rank: 0,
                });
            }
        }
        if let Some((_, start, end)) = range {
            if forward {
                let outside = |n: &Node| {
                    let pc = n.at.pc & !1;
                    n.has_instruction() && (pc < start || pc >= end)
                };
                let limit = best.map(|b| b.at.at.node);
                let mut past = false;
                let found = index
                    .walk_nodes(&mut *self.source, from.at.node, true, &mut |n| {
                        if limit.is_some_and(|l| n.at.node >= l) {
                            past = true;
                            return true;
                        }
                        outside(n)
                    })
                    .map_err(err)?;
                if let Some(n) = found.filter(|_| !past) {
                    best = Some(Candidate {
                        at: n,
                        stop: Stop::Step(core),
                        rank: 0,
                    });
                }
            }
        }
        for w in self.watches.clone() {
            let hit = if forward {
                // The position's own instruction first: it has not run.
                let hi = best.map_or(u64::MAX, |b| b.at.at.node.saturating_sub(1));
                let hi = hi.min(index.nodes().saturating_sub(1));
                let mut first = None;
                if from.at.node <= hi {
                    index
                        .accesses(
                            &mut *self.source,
                            w.what(),
                            w.access(),
                            from.at.node..=hi,
                            &mut |h| {
                                first = Some(h.node);
                                false
                            },
                            &mut |_| true,
                        )
                        .map_err(err)?;
                }
                first
            } else {
                index
                    .prev_access(&mut *self.source, from.at.node, w.what(), w.access())
                    .map_err(err)?
                    .map(|h| h.node)
            };
            let Some(hit) = hit else { continue };
            // Forward: the instruction that accesses (or the last one
            // before a node without one); back: the one after it.
            let at = if forward {
                if hit.has_instruction() {
                    Some(hit)
                } else {
                    index
                        .walk_nodes(&mut *self.source, hit.at.node, false, &mut |n| {
                            n.has_instruction()
                        })
                        .map_err(err)?
                        .filter(|n| n.at.node >= from.at.node)
                        .or(Some(from))
                }
            } else {
                index
                    .walk_nodes(&mut *self.source, hit.at.node, true, &mut |n| {
                        n.has_instruction()
                    })
                    .map_err(err)?
                    .filter(|n| n.at.node <= from.at.node)
                    .or(Some(from))
            };
            let Some(at) = at else { continue };
            let same = best.as_ref().is_some_and(|b| b.at.at.node == at.at.node);
            if !same && closer(&best, at.at.node) {
                best = Some(Candidate {
                    at,
                    stop: Stop::Watch(core, w.kind, w.addr),
                    rank: 1,
                });
            }
        }
        Ok(best)
    }

    /// Stands at the instruction of trace line `line` (or the next one),
    /// on the core whose node holds it.
    pub fn go_to_line(&mut self, line: u64) -> Result<Node> {
        let mut best: Option<(usize, Node)> = None;
        for c in 0..self.cores.len() {
            let index = self.cores[c].index.clone();
            let Ok(n) = index.node_at_line(&mut *self.source, line) else {
                continue;
            };
            if best.is_none_or(|(_, b)| n.at.line > b.at.line) {
                best = Some((c, n));
            }
        }
        let (c, n) = best.ok_or_else(|| format!("line {line} is beyond the trace"))?;
        self.go_to_node(c, n)
    }

    /// Stands at the first instruction at or after time `time`.
    pub fn go_to_time(&mut self, time: u64) -> Result<Node> {
        let c = self.current;
        let index = self.cores[c].index.clone();
        let mut n = index.node_at_time(&mut *self.source, time).map_err(err)?;
        if n.at.time < time {
            if let Some(next) = index
                .walk_nodes(&mut *self.source, n.at.node, true, &mut |n| {
                    n.has_instruction()
                })
                .map_err(err)?
            {
                n = next;
            }
        }
        self.go_to_node(c, n)
    }

    fn go_to_node(&mut self, core: usize, n: Node) -> Result<Node> {
        let index = self.cores[core].index.clone();
        let n = if n.has_instruction() {
            n
        } else {
            index
                .walk_nodes(&mut *self.source, n.at.node, true, &mut |n| {
                    n.has_instruction()
                })
                .map_err(err)?
                .unwrap_or(self.ends[core].1)
        };
        self.stand(core, n);
        Ok(n)
    }

    /// The core's name for messages.
    pub fn core_name(&self, core: usize) -> String {
        self.cores[core]
            .name
            .clone()
            .unwrap_or_else(|| format!("core {}", core + 1))
    }
}
