//! The figures of a coverage table, for a page to show: per source file
//! (per function without DWARF), per function, and in all; the same
//! figures the text summary and the lcov tracefile give.

use serde::{Deserialize, Serialize};

use super::render::{Ratio, Tally};
use super::Coverage;

/// Covered of total, for lines, functions, branch outcomes and
/// instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    /// Source lines with code that ran.
    pub lines: (u64, u64),
    /// Functions any of whose code ran.
    pub functions: (u64, u64),
    /// Outcomes seen of conditional branches and instructions.
    pub branches: (u64, u64),
    /// Instructions reached (executed or condition-failed).
    pub instructions: (u64, u64),
}

impl From<&Tally> for Figures {
    fn from(t: &Tally) -> Figures {
        let pair = |r: Ratio| (r.hit, r.total);
        Figures {
            lines: pair(t.lines),
            functions: pair(t.functions),
            branches: pair(t.branches),
            instructions: pair(t.instructions),
        }
    }
}

/// A source file (or, without DWARF, a function).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRow {
    /// The file's DWARF path, or the function's name.
    pub name: String,
    /// Its figures.
    pub figures: Figures,
    /// Its first line with code that never ran.
    pub first_unexecuted: Option<u32>,
}

impl GroupRow {
    /// Whether this is the group of the code that has no source line (an
    /// image with DWARF: code built without `-g`, a library's): its name
    /// is the CLI's English words, which a page says in its own language.
    pub fn is_no_source_line(&self) -> bool {
        self.name == super::render::NO_LINE
    }
}

/// A function: where it starts and how often it ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionRow {
    /// Its symbol's name.
    pub name: String,
    /// The file of its first instruction that has a line.
    pub file: Option<String>,
    /// That line.
    pub line: Option<u32>,
    /// Times it was entered (at least 1 when any of its code ran).
    pub entries: u64,
    /// Instructions of it executed.
    pub executed: u64,
}

/// What a coverage table shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageTable {
    /// Rows are source files (else functions).
    pub dwarf: bool,
    /// All of the image.
    pub totals: Figures,
    /// By source file, or by function without DWARF.
    pub groups: Vec<GroupRow>,
    /// Every function of the image.
    pub functions: Vec<FunctionRow>,
}

impl Coverage {
    /// The table of this coverage.
    pub fn table(&self) -> CoverageTable {
        let view = self.view();
        CoverageTable {
            dwarf: self.image.dwarf,
            totals: Figures::from(&view.totals),
            groups: view
                .groups
                .iter()
                .map(|g| GroupRow {
                    name: g.name.clone(),
                    figures: Figures::from(&g.tally),
                    first_unexecuted: g
                        .lines
                        .iter()
                        .filter(|l| l.executed == 0)
                        .map(|l| l.line)
                        .min(),
                })
                .collect(),
            functions: view
                .functions
                .iter()
                .map(|f| FunctionRow {
                    name: f.name.to_string(),
                    file: f.line.as_ref().map(|l| l.0.to_string()),
                    line: f.line.as_ref().map(|l| l.1),
                    entries: f.entries,
                    executed: f.executed,
                })
                .collect(),
        }
    }
}
