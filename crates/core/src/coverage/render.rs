//! The figures each output shows, derived from the instructions' counts
//! (never stored, so a merge cannot make them disagree), and the lcov and
//! text outputs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use super::{Coverage, Insn, Kind};
use crate::{Error, Result};

/// Covered of total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ratio {
    pub(crate) hit: u64,
    pub(crate) total: u64,
}

impl Ratio {
    fn count(&mut self, hit: bool) {
        self.total += 1;
        self.hit += u64::from(hit);
    }

    fn add(&mut self, o: Ratio) {
        self.hit += o.hit;
        self.total += o.total;
    }

    fn percent(self) -> String {
        if self.total == 0 {
            "-".into()
        } else {
            format!("{:.1}%", self.hit as f64 * 100.0 / self.total as f64)
        }
    }
}

/// Lines, functions, branch outcomes, instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) lines: Ratio,
    pub(crate) functions: Ratio,
    pub(crate) branches: Ratio,
    pub(crate) instructions: Ratio,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.lines.add(o.lines);
        self.functions.add(o.functions);
        self.branches.add(o.branches);
        self.instructions.add(o.instructions);
    }
}

pub(crate) struct LineView {
    pub(crate) line: u32,
    pub(crate) executed: u64,
    pub(crate) failed: u64,
    pub(crate) traces: Vec<u32>,
}

pub(crate) struct BranchView {
    pub(crate) pc: u64,
    pub(crate) line: u32,
    pub(crate) kind: Kind,
    /// Taken and not taken (a branch), or executed and failed.
    pub(crate) outcomes: [u64; 2],
    pub(crate) reached: bool,
}

pub(crate) struct FunctionView {
    pub(crate) name: Arc<str>,
    /// The line of its first instruction that has one.
    pub(crate) line: Option<(Arc<str>, u32)>,
    /// Times its first instruction ran; at least 1 when any of its code
    /// ran (an inlined copy has no entry of its own).
    pub(crate) entries: u64,
    pub(crate) executed: u64,
    pub(crate) traces: Vec<u32>,
}

/// A row of the summary: a source file, or without DWARF a function.
pub(crate) struct Group {
    pub(crate) name: String,
    pub(crate) tally: Tally,
    pub(crate) lines: Vec<LineView>,
    pub(crate) branches: Vec<BranchView>,
    /// Indices into [`View::functions`].
    pub(crate) functions: Vec<usize>,
}

pub(crate) struct View {
    pub(crate) groups: Vec<Group>,
    pub(crate) functions: Vec<FunctionView>,
    pub(crate) totals: Tally,
    /// Addresses reached outside the image's code, and their executions.
    pub(crate) outside: (u64, u64),
}

/// The group of code with no source line, when the image has DWARF.
pub(crate) const NO_LINE: &str = "(no source line)";

fn outcomes(i: &Insn) -> [u64; 2] {
    let c = i.counts;
    match i.kind {
        Kind::Branch => [c.taken, c.fallthrough + c.failed],
        _ => [c.executed, c.failed],
    }
}

impl Coverage {
    /// Trace positions as indices into the list of traces the outputs
    /// give, sorted, each once.
    pub(crate) fn trace_indices(&self, positions: &[u32], index: &HashMap<u32, u32>) -> Vec<u32> {
        let mut v: Vec<u32> = positions
            .iter()
            .filter_map(|p| index.get(p).copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub(crate) fn position_index(&self) -> HashMap<u32, u32> {
        self.traces
            .keys()
            .enumerate()
            .map(|(i, &p)| (p, i as u32))
            .collect()
    }

    pub(crate) fn view(&self) -> View {
        let index = self.position_index();
        let dwarf = self.image.dwarf;
        let group_of = |i: &Insn| -> String {
            if dwarf {
                i.line
                    .as_ref()
                    .map_or(NO_LINE.to_string(), |(f, _)| f.to_string())
            } else {
                i.function.as_deref().unwrap_or("??").to_string()
            }
        };
        let mut groups: BTreeMap<String, Group> = BTreeMap::new();
        // Lines: every line with code, summed over its instructions.
        let mut line_sums: BTreeMap<(&str, u32), (u64, u64)> = BTreeMap::new();
        let mut functions: BTreeMap<&str, FunctionView> = BTreeMap::new();
        for (name, traces) in &self.functions {
            functions.insert(
                name,
                FunctionView {
                    name: name.clone(),
                    line: None,
                    entries: 0,
                    executed: 0,
                    traces: self.trace_indices(traces, &index),
                },
            );
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut outside = (0, 0);
        for (&pc, i) in &self.insns {
            if let Some((f, n)) = &i.line {
                let s = line_sums.entry((f, *n)).or_default();
                s.0 += i.counts.executed;
                s.1 += i.counts.failed;
            }
            if let Some((name, fv)) = i
                .function
                .as_deref()
                .and_then(|f| Some((f, functions.get_mut(f)?)))
            {
                fv.executed += i.counts.executed;
                // Instructions come by address: the first is its entry.
                if seen.insert(name) {
                    fv.entries = i.counts.executed;
                }
                if fv.line.is_none() {
                    fv.line = i.line.clone();
                }
            }
            if !i.in_image {
                outside.0 += 1;
                outside.1 += i.counts.executed;
                continue;
            }
            let g = groups
                .entry(group_of(i))
                .or_insert_with_key(|k| new_group(k));
            // Reached counts: a condition-failed instruction was evaluated,
            // and Fast Models lists a branch not taken as failed (`IS`).
            g.tally
                .instructions
                .count(i.counts.executed + i.counts.failed > 0);
            if i.kind != Kind::Plain {
                let o = outcomes(i);
                g.tally.branches.count(o[0] > 0);
                g.tally.branches.count(o[1] > 0);
                g.branches.push(BranchView {
                    pc,
                    line: i.line.as_ref().map_or(0, |l| l.1),
                    kind: i.kind,
                    outcomes: o,
                    reached: i.counts.executed + i.counts.failed > 0,
                });
            }
        }
        for ((file, line), traces) in &self.lines {
            let (executed, failed) = line_sums
                .get(&(&**file, *line))
                .copied()
                .unwrap_or_default();
            let g = groups
                .entry(file.to_string())
                .or_insert_with_key(|k| new_group(k));
            g.tally.lines.count(executed > 0);
            g.lines.push(LineView {
                line: *line,
                executed,
                failed,
                traces: self.trace_indices(traces, &index),
            });
        }
        let functions: Vec<FunctionView> = functions
            .into_values()
            .map(|mut f| {
                if f.executed > 0 {
                    f.entries = f.entries.max(1);
                }
                f
            })
            .collect();
        for (n, f) in functions.iter().enumerate() {
            let name = if dwarf {
                f.line
                    .as_ref()
                    .map_or(NO_LINE.to_string(), |l| l.0.to_string())
            } else {
                f.name.to_string()
            };
            let g = groups.entry(name).or_insert_with_key(|k| new_group(k));
            g.tally.functions.count(f.executed > 0);
            g.functions.push(n);
        }
        let mut totals = Tally::default();
        for g in groups.values_mut() {
            g.branches.sort_by_key(|b| (b.line, b.pc));
            totals.add(&g.tally);
        }
        View {
            groups: groups.into_values().collect(),
            functions,
            totals,
            outside,
        }
    }
}

fn new_group(name: &str) -> Group {
    Group {
        name: name.to_string(),
        tally: Tally::default(),
        lines: Vec::new(),
        branches: Vec::new(),
        functions: Vec::new(),
    }
}

pub(crate) fn lcov(cov: &Coverage) -> Result<String> {
    if !cov.image.dwarf {
        return Err(Error::Coverage(format!(
            "{}: no DWARF line information, so no source lines for an lcov tracefile \
             (built without -g, or stripped); the summary and --json give instruction addresses",
            cov.image.name
        )));
    }
    let view = cov.view();
    let mut out = String::new();
    for g in view.groups.iter().filter(|g| g.name != NO_LINE) {
        let _ = writeln!(out, "TN:\nSF:{}", g.name);
        let mut fns: Vec<&FunctionView> = g.functions.iter().map(|&n| &view.functions[n]).collect();
        fns.sort_by(|a, b| {
            (a.line.as_ref().map(|l| l.1), &a.name).cmp(&(b.line.as_ref().map(|l| l.1), &b.name))
        });
        for f in &fns {
            let line = f.line.as_ref().map_or(0, |l| l.1);
            let _ = writeln!(out, "FN:{line},{}", f.name);
        }
        for f in &fns {
            let _ = writeln!(out, "FNDA:{},{}", f.entries, f.name);
        }
        let _ = writeln!(
            out,
            "FNF:{}\nFNH:{}",
            g.tally.functions.total, g.tally.functions.hit
        );
        let mut block = 0u32;
        let mut last_line = None;
        for b in &g.branches {
            // Blocks number a line's conditional instructions in address order.
            block = if last_line == Some(b.line) {
                block + 1
            } else {
                0
            };
            last_line = Some(b.line);
            for (n, count) in b.outcomes.iter().enumerate() {
                if b.reached {
                    let _ = writeln!(out, "BRDA:{},{block},{n},{count}", b.line);
                } else {
                    let _ = writeln!(out, "BRDA:{},{block},{n},-", b.line);
                }
            }
        }
        let _ = writeln!(
            out,
            "BRF:{}\nBRH:{}",
            g.tally.branches.total, g.tally.branches.hit
        );
        for l in &g.lines {
            let _ = writeln!(out, "DA:{},{}", l.line, l.executed);
        }
        let _ = writeln!(
            out,
            "LF:{}\nLH:{}\nend_of_record",
            g.tally.lines.total, g.tally.lines.hit
        );
    }
    Ok(out)
}

pub(crate) fn text(cov: &Coverage) -> String {
    let view = cov.view();
    let mut out = String::new();
    let n = cov.traces.len();
    let _ = writeln!(
        out,
        "coverage of {} by {n} trace{}{}\n",
        cov.image.name,
        if n == 1 { "" } else { "s" },
        if cov.image.dwarf {
            ""
        } else {
            " (no DWARF: by function, instruction addresses)"
        }
    );
    let first = if cov.image.dwarf { "FILE" } else { "FUNCTION" };
    // Figures first and the name last: a library's source path runs to a
    // hundred characters and would push every column off the screen.
    let cell = |r: Ratio| format!("{}/{} {}", r.hit, r.total, r.percent());
    let row = |out: &mut String, name: &str, t: &Tally| {
        let _ = writeln!(
            out,
            "{:<20}{:<20}{:<20}{:<20}{name}",
            cell(t.lines),
            cell(t.functions),
            cell(t.branches),
            cell(t.instructions)
        );
    };
    let _ = writeln!(
        out,
        "{:<20}{:<20}{:<20}{:<20}{first}",
        "LINES", "FUNCTIONS", "BRANCHES", "INSTRUCTIONS"
    );
    for g in &view.groups {
        row(&mut out, &g.name, &g.tally);
    }
    row(&mut out, "total", &view.totals);
    if view.outside.0 > 0 {
        let _ = writeln!(
            out,
            "\n{} instructions ran at {} addresses outside the image's code",
            view.outside.1, view.outside.0
        );
    }
    out
}
