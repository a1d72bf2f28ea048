//! The instruction mix: instructions by class (from their encodings,
//! `decode::classify`) and by mnemonic (as the trace's disassembly names
//! them), executed and condition-failed apart; over the whole trace, per
//! exception level (or M-profile mode) and per function.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::Statistics;
use crate::decode::InsnClass;

/// Executed and condition-failed counts per class, in
/// [`InsnClass::ALL`]'s order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCounts {
    /// Executed, per class.
    pub executed: [u64; 11],
    /// Reached but failed their condition, per class.
    pub failed: [u64; 11],
}

impl ClassCounts {
    fn add(&mut self, class: InsnClass, executed: u64, failed: u64) {
        self.executed[class.index()] += executed;
        self.failed[class.index()] += failed;
    }

    /// Executed instructions in all.
    pub fn executed_total(&self) -> u64 {
        self.executed.iter().sum()
    }

    /// Condition-failed instructions in all.
    pub fn failed_total(&self) -> u64 {
        self.failed.iter().sum()
    }

    /// Executed instructions of a class.
    pub fn executed(&self, class: InsnClass) -> u64 {
        self.executed[class.index()]
    }

    /// Condition-failed instructions of a class.
    pub fn failed(&self, class: InsnClass) -> u64 {
        self.failed[class.index()]
    }
}

/// One mnemonic's counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MnemonicRow {
    /// As the trace's disassembly writes it, upper-cased.
    pub mnemonic: String,
    /// The class of its encodings (the first seen, if they differ).
    pub class: InsnClass,
    /// Executed.
    pub executed: u64,
    /// Condition failed.
    pub failed: u64,
}

/// A group of the mix: a level or a function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MixGroup {
    /// Its name (`EL1`, `Handler`, a function's name or address).
    pub name: String,
    /// Its counts.
    pub counts: ClassCounts,
}

/// The instruction-mix report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MixReport {
    /// The whole trace.
    pub overall: ClassCounts,
    /// Per exception level or M-profile mode, in order of name.
    pub by_level: Vec<MixGroup>,
    /// Per function, most executed first.
    pub by_function: Vec<MixGroup>,
    /// Per mnemonic, most executed first.
    pub by_mnemonic: Vec<MnemonicRow>,
    /// Distinct encodings no decoder read, with their instruction set
    /// and address (the first 100).
    pub undecoded: Vec<(String, u64, u32)>,
}

impl MixReport {
    /// From the pass. `function` names the function holding an address
    /// (empty: none).
    pub fn build(stats: &Statistics, function: &dyn Fn(u64) -> String) -> MixReport {
        let c = &stats.pass.c;
        let mut r = MixReport::default();
        let mut levels: BTreeMap<String, ClassCounts> = BTreeMap::new();
        let mut functions: BTreeMap<String, ClassCounts> = BTreeMap::new();
        let mut mnemonics: BTreeMap<u32, MnemonicRow> = BTreeMap::new();
        let mut names: std::collections::HashMap<u64, String> = Default::default();
        for s in &c.sites {
            r.overall.add(s.class, s.executed, s.failed);
            let level = c.contexts[s.ctx as usize].level_name();
            levels
                .entry(level)
                .or_default()
                .add(s.class, s.executed, s.failed);
            let f = names.entry(s.pc).or_insert_with(|| function(s.pc)).clone();
            functions
                .entry(f)
                .or_default()
                .add(s.class, s.executed, s.failed);
            let m = mnemonics.entry(s.mnemonic).or_insert_with(|| MnemonicRow {
                mnemonic: c.mnemonics[s.mnemonic as usize].clone(),
                class: s.class,
                executed: 0,
                failed: 0,
            });
            m.executed += s.executed;
            m.failed += s.failed;
            if s.class == InsnClass::Undecoded && r.undecoded.len() < 100 {
                r.undecoded
                    .push((format!("{:?}", s.iset), s.pc, s.encoding));
            }
        }
        r.by_level = levels
            .into_iter()
            .map(|(name, counts)| MixGroup { name, counts })
            .collect();
        r.by_function = functions
            .into_iter()
            .map(|(name, counts)| MixGroup {
                name: if name.is_empty() {
                    "(no symbol)".to_string()
                } else {
                    name
                },
                counts,
            })
            .collect();
        r.by_function.sort_by(|a, b| {
            b.counts
                .executed_total()
                .cmp(&a.counts.executed_total())
                .then_with(|| a.name.cmp(&b.name))
        });
        r.by_mnemonic = mnemonics.into_values().collect();
        r.by_mnemonic.sort_by(|a, b| {
            (b.executed + b.failed)
                .cmp(&(a.executed + a.failed))
                .then_with(|| a.mnemonic.cmp(&b.mnemonic))
        });
        r
    }

    /// The text the CLI prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let total = self.overall.executed_total();
        let failed = self.overall.failed_total();
        let _ = writeln!(
            out,
            "Instructions: {} executed, {} failed their condition",
            total, failed
        );
        out.push('\n');
        table(&mut out, "Class", &[("all", &self.overall)], true);
        out.push('\n');
        let groups: Vec<(&str, &ClassCounts)> = self
            .by_level
            .iter()
            .map(|g| (g.name.as_str(), &g.counts))
            .collect();
        let _ = writeln!(out, "By exception level (executed):");
        table(&mut out, "Class", &groups, false);
        out.push('\n');
        let _ = writeln!(out, "By function (executed):");
        let _ = write!(out, "{:<32} {:>12}", "Function", "all");
        for c in InsnClass::ALL {
            let _ = write!(out, " {:>10}", c.name());
        }
        out.push('\n');
        for g in &self.by_function {
            let _ = write!(out, "{:<32} {:>12}", g.name, g.counts.executed_total());
            for c in InsnClass::ALL {
                let _ = write!(out, " {:>10}", g.counts.executed(c));
            }
            out.push('\n');
        }
        out.push('\n');
        let _ = writeln!(out, "By mnemonic:");
        let _ = writeln!(
            out,
            "{:<16} {:<10} {:>12} {:>12} {:>8}",
            "Mnemonic", "Class", "Executed", "Failed", "%"
        );
        for m in &self.by_mnemonic {
            let _ = writeln!(
                out,
                "{:<16} {:<10} {:>12} {:>12} {:>7.2}%",
                m.mnemonic,
                m.class.name(),
                m.executed,
                m.failed,
                pct(m.executed, total)
            );
        }
        if !self.undecoded.is_empty() {
            out.push('\n');
            let _ = writeln!(out, "Encodings no decoder read (counted as undecoded):");
            for (iset, pc, enc) in &self.undecoded {
                let _ = writeln!(out, "  {iset} 0x{pc:x}: {enc:08x}");
            }
        }
        out
    }
}

fn pct(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// A table of classes down, groups across; with `failed`, the one group's
/// executed, failed and share.
fn table(out: &mut String, head: &str, groups: &[(&str, &ClassCounts)], failed: bool) {
    if failed {
        let (_, c) = groups[0];
        let total = c.executed_total();
        let _ = writeln!(
            out,
            "{:<12} {:>14} {:>8} {:>14}",
            head, "Executed", "%", "Failed"
        );
        for class in InsnClass::ALL {
            let _ = writeln!(
                out,
                "{:<12} {:>14} {:>7.2}% {:>14}",
                class.name(),
                c.executed(class),
                pct(c.executed(class), total),
                c.failed(class)
            );
        }
        let _ = writeln!(
            out,
            "{:<12} {:>14} {:>7.2}% {:>14}",
            "total",
            total,
            100.0,
            c.failed_total()
        );
        return;
    }
    let _ = write!(out, "{head:<12}");
    for (name, _) in groups {
        let _ = write!(out, " {name:>14}");
    }
    out.push('\n');
    for class in InsnClass::ALL {
        let _ = write!(out, "{:<12}", class.name());
        for (_, c) in groups {
            let _ = write!(out, " {:>14}", c.executed(class));
        }
        out.push('\n');
    }
    let _ = write!(out, "{:<12}", "total");
    for (_, c) in groups {
        let _ = write!(out, " {:>14}", c.executed_total());
    }
    out.push('\n');
}
