//! Function statistics as TRACE32 shows them: per function (by entry
//! address, the calls `profile` finds), its calls, inclusive and own time
//! and instructions with min/mean/max per call, and the same split by
//! caller.
//!
//! Exceptions taken inside a call are counted in it by default (the time
//! passed while the call was open); with `exceptions_in_calls` off, each
//! outermost exception's time and instructions are taken out of every
//! call it happened inside, and a call made by a handler is reported
//! with the exception as its caller. The report says which.
//!
//! Totals per function count a recursive function's outermost calls
//! only (as the page's profile does), so they add up; min/mean/max are
//! over every call.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::{Span, Statistics};
use crate::engine::Site;
use crate::report::calltree::Activation;

/// One function's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionRow {
    /// Entry address (Thumb bit set for Thumb code).
    pub addr: u64,
    /// Its name, or its address in hex.
    pub name: String,
    /// Calls (activations).
    pub calls: u64,
    /// Of them, still running at the trace's end.
    pub open: u64,
    /// Inclusive time per call.
    pub time: Span,
    /// Own time per call (callees' taken out).
    pub own_time: Span,
    /// Inclusive instructions per call.
    pub instructions: Span,
    /// Own instructions per call.
    pub own_instructions: Span,
    /// Inclusive time over its outermost calls.
    pub total_time: u64,
    /// Inclusive instructions over its outermost calls.
    pub total_instructions: u64,
}

/// One (function, caller) pair.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallerRow {
    /// The function called (entry address).
    pub addr: u64,
    /// Its name.
    pub name: String,
    /// The caller: a function's name, or `[exception NAME]` for a call a
    /// handler made (only with exceptions not counted in calls), or
    /// `(trace start)` for the outermost.
    pub caller: String,
    /// Calls.
    pub calls: u64,
    /// Inclusive time per call.
    pub time: Span,
    /// Inclusive instructions per call.
    pub instructions: Span,
}

/// The function statistics report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionsReport {
    /// Whether time and instructions inside exceptions count in calls.
    pub exceptions_in_calls: bool,
    /// Outermost exceptions taken inside calls, and their time and
    /// instructions (taken out, or not, as the switch says).
    pub exceptions: u64,
    /// Their time.
    pub exception_time: u64,
    /// Their instructions.
    pub exception_instructions: u64,
    /// Per function, most inclusive time first.
    pub functions: Vec<FunctionRow>,
    /// Per (function, caller), in the functions' order.
    pub callers: Vec<CallerRow>,
    /// The time unit the trace writes.
    pub time_unit: Option<String>,
}

/// Prefix sums over the outermost exceptions, to take the ones inside a
/// span of nodes out of it.
struct Outside<'a> {
    intervals: &'a [super::exceptions::Interval],
    time: Vec<u64>,
    instructions: Vec<u64>,
}

impl<'a> Outside<'a> {
    fn new(intervals: &'a [super::exceptions::Interval]) -> Outside<'a> {
        let mut time = vec![0];
        let mut instructions = vec![0];
        for i in intervals {
            time.push(time.last().unwrap_or(&0) + i.time);
            instructions.push(instructions.last().unwrap_or(&0) + i.instructions);
        }
        Outside {
            intervals,
            time,
            instructions,
        }
    }

    /// Exceptions starting in nodes `first..=last` and over by then:
    /// (count, time, instructions).
    fn inside(&self, first: u64, last: u64) -> (u64, u64, u64) {
        let a = self.intervals.partition_point(|i| i.first_node < first);
        let mut b = self.intervals.partition_point(|i| i.first_node <= last);
        if b > a && self.intervals[b - 1].resume_node > last.saturating_add(1) {
            b -= 1;
        }
        if b <= a {
            return (0, 0, 0);
        }
        (
            (b - a) as u64,
            self.time[b] - self.time[a],
            self.instructions[b] - self.instructions[a],
        )
    }

    /// The exception a node is inside, if one started after `after`.
    fn holding(&self, node: u64, after: u64) -> Option<&super::exceptions::Interval> {
        let b = self.intervals.partition_point(|i| i.first_node <= node);
        let i = self.intervals.get(b.checked_sub(1)?)?;
        (i.first_node > after && node < i.resume_node).then_some(i)
    }
}

impl FunctionsReport {
    /// From the pass; `name` names a function by its entry address.
    pub fn build(
        stats: &Statistics,
        exceptions_in_calls: bool,
        name: &dyn Fn(u64) -> String,
    ) -> FunctionsReport {
        let pass = &stats.pass;
        let tracker = &pass.c.exceptions;
        let outside = Outside::new(&tracker.intervals);
        let mut r = FunctionsReport {
            exceptions_in_calls,
            time_unit: pass.c.time_unit.map(str::to_string),
            ..FunctionsReport::default()
        };
        for i in &tracker.intervals {
            r.exceptions += 1;
            r.exception_time += i.time;
            r.exception_instructions += i.instructions;
        }
        let Some(tree) = stats.tree() else {
            return r;
        };
        let last = pass.calls.last_node.unwrap_or_default();
        let end = |a: Activation<'_>| -> (Site, bool) {
            if *a.exit == Site::default() {
                (last, true)
            } else {
                (*a.exit, false)
            }
        };
        // Inclusive (time, instructions) of an activation, exceptions
        // taken out if asked.
        let inclusive = |a: Activation<'_>| -> (u64, u64, bool) {
            let (exit, open) = end(a);
            let mut time = exit.time.saturating_sub(a.entry.time);
            let mut n = pass.gaps.instructions(a.entry.node, exit.node);
            if !exceptions_in_calls {
                let (_, t, i) = outside.inside(a.entry.node, exit.node);
                time = time.saturating_sub(t);
                n = n.saturating_sub(i);
            }
            (time, n, open)
        };
        let mut rows: BTreeMap<u64, FunctionRow> = BTreeMap::new();
        let mut callers: BTreeMap<(u64, String), CallerRow> = BTreeMap::new();
        let mut active: BTreeMap<u64, u32> = BTreeMap::new();
        let mut names: BTreeMap<u64, String> = BTreeMap::new();
        let mut name_of = |pc: u64| -> String {
            names
                .entry(pc)
                .or_insert_with(|| {
                    let n = name(pc);
                    if n.is_empty() {
                        format!("0x{pc:x}")
                    } else {
                        n
                    }
                })
                .clone()
        };
        // (activation, its caller's activation, whether its callees were pushed).
        let mut stack: Vec<(Activation<'_>, Option<Activation<'_>>, bool)> =
            vec![(tree.root(), None, false)];
        while let Some((act, parent, expanded)) = stack.pop() {
            let pc = act.entry.pc;
            if expanded {
                if let Some(n) = active.get_mut(&pc) {
                    *n -= 1;
                }
                continue;
            }
            let (time, n, open) = inclusive(act);
            let (mut callee_time, mut callee_n) = (0u64, 0u64);
            for (_, _, c) in act.calls.iter() {
                // A handler's calls are not the function's own callees
                // when exceptions are left out: their time is gone already.
                if !exceptions_in_calls && outside.holding(c.entry.node, act.entry.node).is_some() {
                    continue;
                }
                let (t, i, _) = inclusive(c);
                callee_time += t;
                callee_n += i;
            }
            let fname = name_of(pc);
            let row = rows.entry(pc).or_insert_with(|| FunctionRow {
                addr: pc,
                name: fname.clone(),
                ..FunctionRow::default()
            });
            row.calls += 1;
            row.open += u64::from(open);
            row.time.add(time);
            row.own_time.add(time.saturating_sub(callee_time));
            row.instructions.add(n);
            row.own_instructions.add(n.saturating_sub(callee_n));
            let depth = active.entry(pc).or_default();
            if *depth == 0 {
                row.total_time += time;
                row.total_instructions += n;
            }
            *depth += 1;
            let caller = match parent {
                None => "(trace start)".to_string(),
                Some(p) => {
                    let held = if exceptions_in_calls {
                        None
                    } else {
                        outside.holding(act.entry.node, p.entry.node)
                    };
                    match held {
                        Some(i) => format!(
                            "[exception {}]",
                            tracker
                                .interval_names
                                .get(i.vector as usize)
                                .map_or("?", String::as_str)
                        ),
                        None => name_of(p.entry.pc),
                    }
                }
            };
            let cr = callers
                .entry((pc, caller.clone()))
                .or_insert_with(|| CallerRow {
                    addr: pc,
                    name: fname,
                    caller,
                    ..CallerRow::default()
                });
            cr.calls += 1;
            cr.time.add(time);
            cr.instructions.add(n);
            stack.push((act, parent, true));
            for (_, _, callee) in act.calls.iter().rev() {
                stack.push((callee, Some(act), false));
            }
        }
        r.functions = rows.into_values().collect();
        r.functions.sort_by(|a, b| {
            b.total_time
                .cmp(&a.total_time)
                .then_with(|| a.addr.cmp(&b.addr))
        });
        let order: BTreeMap<u64, usize> = r
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.addr, i))
            .collect();
        r.callers = callers.into_values().collect();
        r.callers.sort_by(|a, b| {
            order[&a.addr]
                .cmp(&order[&b.addr])
                .then_with(|| b.time.total.cmp(&a.time.total))
                .then_with(|| a.caller.cmp(&b.caller))
        });
        r
    }

    /// The text the CLI prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let unit = self.time_unit.as_deref().unwrap_or("time units");
        let _ = writeln!(
            out,
            "Function statistics; times in {unit}. Exceptions inside calls: {} ({} outermost exception(s), {} {unit}, {} instructions)",
            if self.exceptions_in_calls {
                "counted in them"
            } else {
                "taken out of them"
            },
            self.exceptions,
            self.exception_time,
            self.exception_instructions
        );
        out.push('\n');
        let _ = writeln!(
            out,
            "{:<32} {:>8} {:>14} {:>30} {:>14} {:>30} {:>14} {:>30} {:>14}",
            "Function",
            "Calls",
            "Time",
            "per call min/mean/max",
            "Own time",
            "per call min/mean/max",
            "Instructions",
            "per call min/mean/max",
            "Own instrs"
        );
        for f in &self.functions {
            let _ = writeln!(
                out,
                "{:<32} {:>8} {:>14} {:>30} {:>14} {:>30} {:>14} {:>30} {:>14}{}",
                f.name,
                f.calls,
                f.total_time,
                f.time.text(),
                f.own_time.total,
                f.own_time.text(),
                f.total_instructions,
                f.instructions.text(),
                f.own_instructions.total,
                if f.open > 0 {
                    format!("  ({} still running at the end)", f.open)
                } else {
                    String::new()
                }
            );
        }
        out.push('\n');
        let _ = writeln!(out, "By caller:");
        let _ = writeln!(
            out,
            "{:<32} {:<32} {:>8} {:>14} {:>30} {:>14} {:>30}",
            "Function",
            "Caller",
            "Calls",
            "Time",
            "per call min/mean/max",
            "Instructions",
            "per call min/mean/max"
        );
        for c in &self.callers {
            let _ = writeln!(
                out,
                "{:<32} {:<32} {:>8} {:>14} {:>30} {:>14} {:>30}",
                c.name,
                c.caller,
                c.calls,
                c.time.total,
                c.time.text(),
                c.instructions.total,
                c.instructions.text()
            );
        }
        out
    }
}
