//! Which runs covered what: the traces that ran a source line, a function
//! or the code at an address, and a small set of traces that covers all
//! the lines the whole set does (a greedy cover).
//!
//! A coverage keeps, per source line and per function, the traces that
//! ran it (not per instruction: that would grow with the image's size
//! times the runs'), so the code at an address is answered by its source
//! line, or by its function where it has none.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Coverage;
use crate::{Error, Result};

/// What to find the runs of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A source line: a file (its path as the coverage names it, or the
    /// end of that path: `main.c`) and a line number.
    Line(String, u32),
    /// A function, by name.
    Function(String),
    /// The code at an address (as the trace gives it).
    Address(u64),
}

/// The runs that ran a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runs {
    /// What the target was answered by: `file:line` or `function NAME`.
    pub by: String,
    /// The traces, in the coverage's order.
    pub traces: Vec<String>,
}

/// A set of traces covering what all of them cover, in the order a
/// greedy cover picked them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cover {
    /// `lines`, or `functions` for an image without DWARF.
    pub unit: &'static str,
    /// How many of them the coverage's traces cover in all.
    pub total: u64,
    /// Each trace picked, with how many it added.
    pub picks: Vec<(String, u64)>,
}

impl Coverage {
    fn names_of(&self, positions: &[u32]) -> Vec<String> {
        let set: BTreeSet<u32> = positions.iter().copied().collect();
        set.iter()
            .filter_map(|p| self.traces.get(p).cloned())
            .collect()
    }

    /// The traces that ran `target`.
    pub fn runs(&self, target: &Target) -> Result<Runs> {
        match target {
            Target::Line(file, line) => {
                // The file as named, else the one path that ends with it.
                let files: BTreeSet<&str> = self
                    .lines
                    .keys()
                    .filter(|(f, n)| n == line && (&**f == file || path_ends_with(f, file)))
                    .map(|(f, _)| &**f)
                    .collect();
                let exact = files.iter().find(|f| **f == file.as_str()).copied();
                let f = match (exact, files.len()) {
                    (Some(f), _) => f,
                    (None, 1) => files.first().copied().unwrap_or_default(),
                    (None, 0) => {
                        return Err(Error::Coverage(format!(
                            "{file}:{line}: no source line with code there{}",
                            if self.image.dwarf {
                                ""
                            } else {
                                " (the image has no DWARF: give a function or an address)"
                            }
                        )))
                    }
                    (None, _) => {
                        return Err(Error::Coverage(format!(
                            "{file}:{line}: several files end so ({}): give more of the path",
                            files.iter().copied().collect::<Vec<_>>().join(", ")
                        )))
                    }
                };
                let traces = self
                    .lines
                    .iter()
                    .find(|((g, n), _)| &**g == f && n == line)
                    .map(|(_, t)| self.names_of(t))
                    .unwrap_or_default();
                Ok(Runs {
                    by: format!("{f}:{line}"),
                    traces,
                })
            }
            Target::Function(name) => {
                let Some((f, t)) = self.functions.iter().find(|(f, _)| &***f == name) else {
                    return Err(Error::Coverage(format!("no function is named `{name}`")));
                };
                Ok(Runs {
                    by: format!("function {f}"),
                    traces: self.names_of(t),
                })
            }
            Target::Address(pc) => {
                let Some(insn) = self.insns.get(&(pc & !1)) else {
                    return Err(Error::Coverage(format!(
                        "0x{pc:x} is no instruction of {} nor an address a trace ran",
                        self.image.name
                    )));
                };
                match (&insn.line, &insn.function) {
                    (Some((f, n)), _) => self.runs(&Target::Line(f.to_string(), *n)),
                    (None, Some(f)) => self.runs(&Target::Function(f.to_string())),
                    (None, None) => Err(Error::Coverage(format!(
                        "0x{pc:x} has neither a source line nor a function to answer by"
                    ))),
                }
            }
        }
    }

    /// A greedy cover: the trace that adds the most lines (functions
    /// without DWARF) not yet covered, again and again (of two that add
    /// as many, the earlier), until they cover what all the traces do.
    /// Not always the smallest such set (that is NP-hard), at most a
    /// factor of about ln(lines) larger.
    pub fn greedy_cover(&self) -> Cover {
        let (unit, lists): (&'static str, Vec<&Vec<u32>>) = if self.image.dwarf {
            ("lines", self.lines.values().collect())
        } else {
            ("functions", self.functions.values().collect())
        };
        // Per item the traces that cover it, each once; per trace the
        // items it covers.
        let items: Vec<Vec<u32>> = lists
            .iter()
            .map(|t| {
                let mut v = t.to_vec();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let mut by_trace: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, traces) in items.iter().enumerate() {
            for &t in traces {
                by_trace.entry(t).or_default().push(i);
            }
        }
        let total = items.iter().filter(|t| !t.is_empty()).count() as u64;
        let mut covered = vec![false; items.len()];
        let mut gain: HashMap<u32, u64> =
            by_trace.iter().map(|(&t, v)| (t, v.len() as u64)).collect();
        let mut picks = Vec::new();
        let mut done = 0;
        while done < total {
            let Some((&best, &added)) = by_trace
                .keys()
                .map(|t| (t, &gain[t]))
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            else {
                break;
            };
            if added == 0 {
                break;
            }
            for &i in &by_trace[&best] {
                if !covered[i] {
                    covered[i] = true;
                    // Each trace that covers this item now gains one less.
                    for t in &items[i] {
                        if let Some(g) = gain.get_mut(t) {
                            *g = g.saturating_sub(1);
                        }
                    }
                }
            }
            done += added;
            picks.push((self.traces.get(&best).cloned().unwrap_or_default(), added));
        }
        Cover { unit, total, picks }
    }
}

fn path_ends_with(path: &str, end: &str) -> bool {
    path.ends_with(end) && {
        let cut = &path[..path.len() - end.len()];
        cut.is_empty() || cut.ends_with('/') || cut.ends_with('\\')
    }
}
