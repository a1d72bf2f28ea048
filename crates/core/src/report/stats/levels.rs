//! Time by exception level and security state (or M-profile mode): per
//! mode the trace writes, the instructions that ran in it and the trace
//! time they took (from each instruction to the next), summed by level
//! and by security state, and the changes from one mode to another.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::context::Context;
use super::Statistics;

/// One mode's share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelRow {
    /// The mode as read.
    pub context: Context,
    /// Instructions reached in it.
    pub instructions: u64,
    /// Trace time from its instructions to the next ones.
    pub time: u64,
}

/// A sum over modes: by level, or by security state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelSum {
    /// `EL1`, `Handler`, `Non-secure`...
    pub name: String,
    /// Instructions.
    pub instructions: u64,
    /// Time.
    pub time: u64,
}

/// Changes from one mode to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    /// The mode before.
    pub from: String,
    /// The mode after.
    pub to: String,
    /// How often.
    pub count: u64,
    /// The line of the first instruction in the new mode, the first time.
    pub first_line: u64,
}

/// The levels report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelsReport {
    /// Per mode, in order of first appearance.
    pub modes: Vec<LevelRow>,
    /// Per exception level (or M-profile mode).
    pub by_level: Vec<LevelSum>,
    /// Per security state.
    pub by_security: Vec<LevelSum>,
    /// Changes of mode, most frequent first.
    pub transitions: Vec<Transition>,
    /// Instructions in all.
    pub instructions: u64,
    /// Time from the first instruction to the last.
    pub time: u64,
    /// The time unit the trace writes.
    pub time_unit: Option<String>,
}

impl LevelsReport {
    /// From the pass.
    pub fn build(stats: &Statistics) -> LevelsReport {
        let c = &stats.pass.c;
        let mut r = LevelsReport {
            time_unit: c.time_unit.map(str::to_string),
            ..LevelsReport::default()
        };
        let mut levels: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut security: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for (i, ctx) in c.contexts.iter().enumerate() {
            let (n, t) = (c.ctx_instructions[i], c.ctx_time[i]);
            r.instructions += n;
            r.time += t;
            r.modes.push(LevelRow {
                context: ctx.clone(),
                instructions: n,
                time: t,
            });
            let l = levels.entry(ctx.level_name()).or_default();
            l.0 += n;
            l.1 += t;
            let s = security.entry(ctx.security.name().to_string()).or_default();
            s.0 += n;
            s.1 += t;
        }
        let sums = |m: BTreeMap<String, (u64, u64)>| {
            m.into_iter()
                .map(|(name, (instructions, time))| LevelSum {
                    name,
                    instructions,
                    time,
                })
                .collect()
        };
        r.by_level = sums(levels);
        r.by_security = sums(security);
        r.transitions = c
            .transitions
            .iter()
            .map(|(&(from, to), &(count, first_line))| Transition {
                from: c.contexts[from as usize].mode.clone(),
                to: c.contexts[to as usize].mode.clone(),
                count,
                first_line,
            })
            .collect();
        r.transitions.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.first_line.cmp(&b.first_line))
        });
        r
    }

    /// The text the CLI prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let unit = self.time_unit.as_deref().unwrap_or("time units");
        let pct = |n: u64, of: u64| {
            if of == 0 {
                0.0
            } else {
                100.0 * n as f64 / of as f64
            }
        };
        let _ = writeln!(
            out,
            "Instructions: {}; time: {} {unit} (from each instruction to the next)",
            self.instructions, self.time
        );
        out.push('\n');
        let _ = writeln!(
            out,
            "{:<14} {:<24} {:>14} {:>8} {:>16} {:>8}",
            "Mode", "Level", "Instructions", "%", "Time", "%"
        );
        for m in &self.modes {
            let _ = writeln!(
                out,
                "{:<14} {:<24} {:>14} {:>7.2}% {:>16} {:>7.2}%",
                if m.context.mode.is_empty() {
                    "(none)"
                } else {
                    &m.context.mode
                },
                m.context.describe(),
                m.instructions,
                pct(m.instructions, self.instructions),
                m.time,
                pct(m.time, self.time)
            );
        }
        for (title, sums) in [
            ("By level", &self.by_level),
            ("By security state", &self.by_security),
        ] {
            out.push('\n');
            let _ = writeln!(out, "{title}:");
            for s in sums {
                let _ = writeln!(
                    out,
                    "  {:<22} {:>14} {:>7.2}% {:>16} {:>7.2}%",
                    s.name,
                    s.instructions,
                    pct(s.instructions, self.instructions),
                    s.time,
                    pct(s.time, self.time)
                );
            }
        }
        out.push('\n');
        if self.transitions.is_empty() {
            let _ = writeln!(out, "Mode changes: none");
        } else {
            let _ = writeln!(out, "Mode changes:");
            let _ = writeln!(
                out,
                "  {:<14} {:<14} {:>12}  First at line",
                "From", "To", "Count"
            );
            for t in &self.transitions {
                let _ = writeln!(
                    out,
                    "  {:<14} {:<14} {:>12}  {}",
                    t.from, t.to, t.count, t.first_line
                );
            }
        }
        out
    }
}
