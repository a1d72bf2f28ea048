//! Branches and loops: per conditional branch site, how often it was taken
//! and not; per loop (found by its back-edges: a taken branch to an
//! address at or below its own), how often it was entered, its iterations
//! per entry, and the time and instructions inside.
//!
//! A loop is keyed by its header (the back-edge's target) and spans from
//! it to the end of its furthest back-edge. A *visit* starts when its
//! frame's flow enters that span and ends when it leaves it (a call made
//! from the loop does not leave it; the call's return, or an exception,
//! does not enter it) and reaches the header before it leaves (else the
//! flow only passed through code laid out inside the span). Its
//! iterations are the times its header ran in the visit: for the loops compilers make (the test at the bottom, or a jump
//! into the test first) the times the body ran. A loop is known from its
//! first back-edge taken: the visit then running is dated from where its
//! frame's flow last entered the span (the frame's last transfers), so
//! the first visit counts as every later one.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::site::{Frame, Site, Visit};
use super::{Span, Statistics};
use crate::state::fasthash::AddrMap;

/// One loop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Loop {
    /// The header's address, Thumb bit kept.
    pub(crate) header_pc: u64,
    /// The span: header to the end of the furthest back-edge.
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// The back-edges' branch addresses.
    pub(crate) latches: Vec<u64>,
    pub(crate) backedges: u64,
    pub(crate) iterations: Span,
    pub(crate) time: u64,
    pub(crate) instructions: u64,
}

/// Finds the loops through the pass.
#[derive(Default)]
pub(crate) struct LoopTracker {
    pub(crate) loops: Vec<Loop>,
    by_header: AddrMap<u64, u32>,
    /// Loops by where their span starts, to find the spans an arrival
    /// enters.
    by_start: std::collections::BTreeMap<u64, Vec<u32>>,
    /// The longest span so far: a branch can only land in spans that
    /// start at most this far below it.
    longest: u64,
}

/// Spans longer than this are not looked for when a branch lands inside
/// one (a loop of 64 KiB of code is not one a person looks for here).
const MAX_SPAN: u64 = 1 << 16;

impl LoopTracker {
    /// A back-edge was taken from the branch at `latch` (ending at
    /// `latch_end`) to `header`, whose site is `site`; `index` and `t` are
    /// the header's instruction number and time. Called before
    /// [`LoopTracker::arrive`] for the same instruction.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn back_edge(
        &mut self,
        header: u64,
        latch_end: u64,
        latch: u64,
        frame: &mut Frame,
        sites: &mut [Site],
        site: u32,
        index: u64,
        t: u64,
    ) {
        let id = match self.by_header.get(&header) {
            Some(&id) => {
                let l = &mut self.loops[id as usize];
                l.end = l.end.max(latch_end);
                self.longest = self.longest.max(l.end - l.start).min(MAX_SPAN);
                if !l.latches.contains(&latch) && l.latches.len() < 64 {
                    l.latches.push(latch);
                }
                id
            }
            None => {
                let id = self.loops.len() as u32;
                self.loops.push(Loop {
                    header_pc: sites[site as usize].pc,
                    start: header,
                    end: latch_end,
                    latches: vec![latch],
                    ..Loop::default()
                });
                self.by_header.insert(header, id);
                self.by_start.entry(header).or_default().push(id);
                self.longest = self
                    .longest
                    .max(latch_end.saturating_sub(header))
                    .min(MAX_SPAN);
                sites[site as usize].loop_header = id + 1;
                id
            }
        };
        self.loops[id as usize].backedges += 1;
        // Visits of loops this back-edge leaves end here (arrive() does
        // the same for every instruction; the new one must not be closed).
        if let Some(v) = frame.visits.iter_mut().find(|v| v.id == id) {
            v.header_runs += 1;
            return;
        }
        let (start, end) = {
            let l = &self.loops[id as usize];
            (l.start, l.end)
        };
        let inside = |a: u64| a >= start && a < end;
        let h = &sites[site as usize];
        let header_seen = h.last_index != u64::MAX && h.last_index >= frame.start_index;
        let mut visit = None;
        for tr in frame.transfers() {
            if !inside(tr.to) {
                // Out of the span after it, then fallen into the header.
                visit = Some(if header_seen && h.last_index > tr.index {
                    (h.last_index, h.last_time, 1)
                } else {
                    (index, t, 0)
                });
                break;
            }
            if !inside(tr.from) {
                visit = Some((tr.index, tr.time, u64::from(tr.to == start)));
                break;
            }
        }
        let (start_index, start_time, runs) = visit.unwrap_or(if header_seen {
            (h.last_index, h.last_time, 1)
        } else {
            (index, t, 0)
        });
        frame.visits.push(Visit {
            id,
            start_index,
            start_time,
            header_runs: runs + 1,
        });
    }

    /// The instruction at `addr` (site `site`) ran in `frame`; `jumped`:
    /// a branch in the frame led to it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn arrive(
        &mut self,
        addr: u64,
        by_back_edge: bool,
        jumped: bool,
        frame: &mut Frame,
        sites: &mut [Site],
        site: u32,
        index: u64,
        t: u64,
    ) {
        if !frame.visits.is_empty() {
            let loops = &mut self.loops;
            frame.visits.retain(|v| {
                let l = &loops[v.id as usize];
                if addr >= l.start && addr < l.end {
                    return true;
                }
                close(&mut loops[v.id as usize], v, index, t);
                false
            });
        }
        if by_back_edge {
            return;
        }
        let header = sites[site as usize].loop_header;
        if header != 0 {
            let id = header - 1;
            if !frame.visits.iter().any(|v| v.id == id) {
                frame.visits.push(Visit {
                    id,
                    start_index: index,
                    start_time: t,
                    header_runs: 1,
                });
            }
        }
        if jumped && !self.by_start.is_empty() {
            // A branch into the middle of spans enters them too.
            for (_, ids) in self.by_start.range(addr.saturating_sub(self.longest)..addr) {
                for &id in ids {
                    let l = &self.loops[id as usize];
                    if addr < l.end && !frame.visits.iter().any(|v| v.id == id) {
                        frame.visits.push(Visit {
                            id,
                            start_index: index,
                            start_time: t,
                            header_runs: 0,
                        });
                    }
                }
            }
        }
    }

    /// A frame ended (or the trace did) at instruction `index`, time `t`.
    pub(crate) fn close_all(&mut self, visits: Vec<Visit>, index: u64, t: u64) {
        for v in &visits {
            close(&mut self.loops[v.id as usize], v, index, t);
        }
    }
}

fn close(l: &mut Loop, v: &Visit, index: u64, t: u64) {
    // Through the span without reaching the header: not a visit of the
    // loop (code the compiler laid out between its blocks).
    if v.header_runs == 0 {
        return;
    }
    l.iterations.add(v.header_runs);
    l.time += t.saturating_sub(v.start_time);
    l.instructions += index.saturating_sub(v.start_index);
}

/// One conditional branch site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchSite {
    /// Its address (Thumb bit set for Thumb code).
    pub pc: u64,
    /// The function holding it, and the offset (empty without names).
    pub function: String,
    /// Its mnemonic.
    pub mnemonic: String,
    /// Times it branched.
    pub taken: u64,
    /// Times it went on to the next instruction (its condition failed, or
    /// it was not taken).
    pub not_taken: u64,
}

/// One loop, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopRow {
    /// The header (the back-edge's target).
    pub header: u64,
    /// The end of the span (past the furthest back-edge).
    pub end: u64,
    /// The back-edges' branch addresses.
    pub latches: Vec<u64>,
    /// The function holding it.
    pub function: String,
    /// Times it was entered (visits).
    pub entries: u64,
    /// Back-edges taken.
    pub backedges: u64,
    /// Iterations per entry: the header's runs.
    pub iterations: Span,
    /// Time inside, calls and exceptions in it included.
    pub time: u64,
    /// Instructions inside, the same way.
    pub instructions: u64,
}

/// The branches and loops report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopsReport {
    /// Conditional branch sites, by address.
    pub branches: Vec<BranchSite>,
    /// Loops, by header address.
    pub loops: Vec<LoopRow>,
    /// The time unit the trace writes.
    pub time_unit: Option<String>,
}

impl LoopsReport {
    /// From the pass; `name` names an address (`main + 0x10`).
    pub fn build(stats: &Statistics, name: &dyn Fn(u64) -> String) -> LoopsReport {
        let c = &stats.pass.c;
        let mut branches: Vec<BranchSite> = Vec::new();
        let mut by_pc: std::collections::BTreeMap<u64, BranchSite> = Default::default();
        for s in &c.sites {
            if !(s.flow.writes_pc && (s.flow.conditional || s.failed > 0)) {
                continue;
            }
            let e = by_pc.entry(s.pc).or_insert_with(|| BranchSite {
                pc: s.pc,
                function: name(s.pc),
                mnemonic: c.mnemonics[s.mnemonic as usize].clone(),
                taken: 0,
                not_taken: 0,
            });
            let taken = s.taken + s.calls + s.returns;
            e.taken += taken;
            e.not_taken += s.reached().saturating_sub(taken);
        }
        branches.extend(by_pc.into_values());
        // A backward jump to another function (a tail call) is no loop.
        let mut loops: Vec<LoopRow> = c
            .loops
            .loops
            .iter()
            .filter(|l| {
                let f = stats.function_of(l.header_pc);
                l.latches.iter().all(|&a| stats.function_of(a) == f)
            })
            .map(|l| LoopRow {
                header: l.header_pc,
                end: l.end,
                latches: l.latches.clone(),
                function: name(l.header_pc),
                entries: l.iterations.count,
                backedges: l.backedges,
                iterations: l.iterations,
                time: l.time,
                instructions: l.instructions,
            })
            .collect();
        loops.sort_by_key(|l| l.header);
        LoopsReport {
            branches,
            loops,
            time_unit: c.time_unit.map(str::to_string),
        }
    }

    /// The text the CLI prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let unit = self.time_unit.as_deref().unwrap_or("time units");
        let _ = writeln!(out, "Conditional branches: {} site(s)", self.branches.len());
        let _ = writeln!(
            out,
            "{:<18} {:<12} {:>12} {:>12} {:>8}  Function",
            "Address", "Mnemonic", "Taken", "Not taken", "Taken%"
        );
        for b in &self.branches {
            let all = b.taken + b.not_taken;
            let pct = if all == 0 {
                0.0
            } else {
                100.0 * b.taken as f64 / all as f64
            };
            let _ = writeln!(
                out,
                "{:<18} {:<12} {:>12} {:>12} {:>7.1}%  {}",
                format!("0x{:x}", b.pc),
                b.mnemonic,
                b.taken,
                b.not_taken,
                pct,
                b.function
            );
        }
        out.push('\n');
        let _ = writeln!(
            out,
            "Loops: {} (found by their back-edges; times in {unit})",
            self.loops.len()
        );
        let _ = writeln!(
            out,
            "{:<18} {:<18} {:>10} {:>12} {:>26} {:>14} {:>14}  Function",
            "Header",
            "Back-edge at",
            "Entries",
            "Back-edges",
            "Iterations min/mean/max",
            "Time inside",
            "Instrs inside"
        );
        for l in &self.loops {
            let latches: Vec<String> = l.latches.iter().map(|a| format!("0x{a:x}")).collect();
            let _ = writeln!(
                out,
                "{:<18} {:<18} {:>10} {:>12} {:>26} {:>14} {:>14}  {}",
                format!("0x{:x}", l.header),
                latches.join(","),
                l.entries,
                l.backedges,
                l.iterations.text(),
                l.time,
                l.instructions,
                l.function
            );
        }
        out
    }
}
