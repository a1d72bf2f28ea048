//! Coverages combined by a set expression over named parts
//! (`(a|b)-c`): what some runs cover and others do not.
//!
//! The operators are Python's set operators with Python's precedence, so
//! an expression means what it means on Python sets: `-` (difference)
//! binds tighter than `&` (intersection), then `^` (symmetric
//! difference), then `|` (union); all left-associative; parentheses
//! group. A result covers a source line when the expression holds for
//! the parts that executed it (a code address without a line, or any
//! address of an image without DWARF, is taken on its own the same
//! way); its instructions there keep the counts of every part, all other
//! counts are zero. Its traces are all the parts' traces, in the order
//! the parts are given, and a line's are those of the parts that ran it
//! where the result covers it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::{Coverage, Insn};
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Expr {
    Part(usize),
    Union(Box<Expr>, Box<Expr>),
    Intersection(Box<Expr>, Box<Expr>),
    Difference(Box<Expr>, Box<Expr>),
    Symmetric(Box<Expr>, Box<Expr>),
}

impl Expr {
    fn holds(&self, member: &dyn Fn(usize) -> bool) -> bool {
        match self {
            Expr::Part(p) => member(*p),
            Expr::Union(a, b) => a.holds(member) || b.holds(member),
            Expr::Intersection(a, b) => a.holds(member) && b.holds(member),
            Expr::Difference(a, b) => a.holds(member) && !b.holds(member),
            Expr::Symmetric(a, b) => a.holds(member) != b.holds(member),
        }
    }
}

fn bad(text: &str, at: usize, what: &str) -> Error {
    Error::Coverage(format!("expression `{text}`, column {}: {what}", at + 1))
}

/// A binary operator's character and the node it makes.
type Op = (char, fn(Box<Expr>, Box<Expr>) -> Expr);

struct ExprParser<'a> {
    text: &'a str,
    at: usize,
    names: &'a [&'a str],
    used: Vec<bool>,
}

impl ExprParser<'_> {
    fn skip(&mut self) {
        while self.text[self.at..].starts_with(char::is_whitespace) {
            self.at += self.text[self.at..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip();
        self.text[self.at..].chars().next()
    }

    /// One level of binary operators, `ops` at it, `next` the tighter one.
    fn level(&mut self, ops: &[Op], next: fn(&mut Self) -> Result<Expr>) -> Result<Expr> {
        let mut left = next(self)?;
        while let Some(c) = self.peek() {
            let Some((_, make)) = ops.iter().find(|(o, _)| *o == c) else {
                break;
            };
            self.at += 1;
            let right = next(self)?;
            left = make(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn union(&mut self) -> Result<Expr> {
        self.level(&[('|', Expr::Union)], Self::symmetric)
    }

    fn symmetric(&mut self) -> Result<Expr> {
        self.level(&[('^', Expr::Symmetric)], Self::intersection)
    }

    fn intersection(&mut self) -> Result<Expr> {
        self.level(&[('&', Expr::Intersection)], Self::difference)
    }

    fn difference(&mut self) -> Result<Expr> {
        self.level(&[('-', Expr::Difference)], Self::atom)
    }

    fn atom(&mut self) -> Result<Expr> {
        match self.peek() {
            Some('(') => {
                let open = self.at;
                self.at += 1;
                let e = self.union()?;
                if self.peek() != Some(')') {
                    return Err(bad(self.text, open, "this parenthesis is not closed"));
                }
                self.at += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.at;
                let len = self.text[start..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(self.text.len() - start);
                self.at += len;
                let name = &self.text[start..self.at];
                let Some(i) = self.names.iter().position(|n| *n == name) else {
                    return Err(bad(
                        self.text,
                        start,
                        &format!(
                            "no part is named `{name}` (give it as {name}=PART; named: {})",
                            if self.names.is_empty() {
                                "none".to_string()
                            } else {
                                self.names.join(", ")
                            }
                        ),
                    ));
                };
                self.used[i] = true;
                Ok(Expr::Part(i))
            }
            Some(c) => Err(bad(
                self.text,
                self.at,
                &format!("`{c}` where a part's name or `(` belongs"),
            )),
            None => Err(bad(
                self.text,
                self.at,
                "the expression ends where a part's name or `(` belongs",
            )),
        }
    }
}

/// Parses `text` over the parts `names`; every part must be named.
fn parse(text: &str, names: &[&str]) -> Result<Expr> {
    let mut p = ExprParser {
        text,
        at: 0,
        names,
        used: vec![false; names.len()],
    };
    let e = p.union()?;
    if let Some(c) = p.peek() {
        return Err(bad(
            text,
            p.at,
            &format!("`{c}` after a complete expression"),
        ));
    }
    if let Some(i) = p.used.iter().position(|u| !u) {
        return Err(Error::Coverage(format!(
            "part `{}` is given but the expression `{text}` does not use it",
            names[i]
        )));
    }
    Ok(e)
}

impl Coverage {
    /// The coverage `expr` gives over `parts` (name, coverage), all of
    /// one image (see the module's documentation).
    pub fn combine(expr: &str, parts: Vec<(String, Coverage)>) -> Result<Coverage> {
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        let e = parse(expr, &names)?;
        let Some((_, first)) = parts.first() else {
            return Err(Error::Coverage("no part to combine".into()));
        };
        for (name, p) in &parts {
            let (a, b) = (&first.image, &p.image);
            if a.digest != b.digest || a.load_offset != b.load_offset {
                return Err(Error::Coverage(format!(
                    "part `{name}` is the coverage of another image: {} (load offset {}) \
                     is not {} (load offset {})",
                    b.name, b.load_offset, a.name, a.load_offset
                )));
            }
        }
        let covs: Vec<&Coverage> = parts.iter().map(|(_, c)| c).collect();
        let executed_line = |p: usize, line: &(Arc<str>, u32)| {
            covs[p].lines.get(line).is_some_and(|t| !t.is_empty())
        };
        let reached = |p: usize, pc: u64| {
            covs[p]
                .insns
                .get(&pc)
                .is_some_and(|i| i.counts.executed + i.counts.failed > 0)
        };
        // Where each part's traces go among the result's.
        let mut shifts = Vec::new();
        let mut next = 0u32;
        for c in &covs {
            shifts.push(next);
            next = next.saturating_add(c.next_position);
        }
        let lines_kept: BTreeSet<(Arc<str>, u32)> = covs
            .iter()
            .flat_map(|c| c.lines.keys())
            .filter(|l| e.holds(&|p| executed_line(p, l)))
            .cloned()
            .collect();
        let mut out = Coverage {
            image: first.image.clone(),
            traces: BTreeMap::new(),
            next_position: next,
            insns: BTreeMap::new(),
            lines: BTreeMap::new(),
            functions: BTreeMap::new(),
            names: Default::default(),
        };
        for (p, c) in covs.iter().enumerate() {
            for (&pos, name) in &c.traces {
                out.traces
                    .insert(pos.saturating_add(shifts[p]), name.clone());
            }
        }
        let pcs: BTreeSet<u64> = covs.iter().flat_map(|c| c.insns.keys().copied()).collect();
        let mut functions_kept: BTreeSet<Arc<str>> = BTreeSet::new();
        for pc in pcs {
            let holder = covs.iter().find_map(|c| c.insns.get(&pc));
            let Some(holder) = holder else { continue };
            let keep = match (&holder.line, first.image.dwarf) {
                (Some(l), true) => lines_kept.contains(l),
                _ => e.holds(&|p| reached(p, pc)),
            };
            let mut insn = Insn {
                line: holder.line.as_ref().map(|(f, n)| (out.intern(f), *n)),
                function: holder.function.as_ref().map(|f| out.intern(f)),
                counts: Default::default(),
                ..holder.clone()
            };
            if keep {
                for c in &covs {
                    if let Some(i) = c.insns.get(&pc) {
                        insn.counts.add(i.counts);
                    }
                }
                if insn.counts.executed > 0 {
                    functions_kept.extend(insn.function.clone());
                }
            }
            out.insns.insert(pc, insn);
        }
        for (p, c) in covs.iter().enumerate() {
            for (line, traces) in &c.lines {
                let key = (out.intern(&line.0), line.1);
                let entry = out.lines.entry(key).or_default();
                if lines_kept.contains(line) {
                    entry.extend(traces.iter().map(|t| t.saturating_add(shifts[p])));
                }
            }
            for (f, traces) in &c.functions {
                let key = out.intern(f);
                let entry = out.functions.entry(key).or_default();
                if functions_kept.contains(f) {
                    entry.extend(traces.iter().map(|t| t.saturating_add(shifts[p])));
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(expr: &str, names: &[&str], members: &[bool]) -> bool {
        parse(expr, names).unwrap().holds(&|p| members[p])
    }

    #[test]
    fn precedence_and_associativity_are_pythons() {
        let n = ["a", "b", "c"];
        // a | b - c is a | (b - c).
        assert!(holds("a | b - c", &n, &[true, false, true]));
        assert!(!holds("(a | b) - c", &n, &[true, false, true]));
        // a - b - c is (a - b) - c.
        assert!(!holds("a-b-c", &n, &[true, false, true]));
        // a ^ b & c is a ^ (b & c).
        assert!(holds("a ^ b & c", &n, &[true, true, false]));
        // Every case against a truth table.
        for m in 0..8u8 {
            let v = [m & 1 != 0, m & 2 != 0, m & 4 != 0];
            assert_eq!(holds("(a|b)-c", &n, &v), (v[0] || v[1]) && !v[2], "{v:?}");
            assert_eq!(holds("a&b|c", &n, &v), (v[0] && v[1]) || v[2], "{v:?}");
        }
    }

    #[test]
    fn errors_name_the_column_and_the_missing_part() {
        let n = ["a", "b"];
        let e = |t: &str| parse(t, &n).unwrap_err().to_string();
        assert!(e("a|c").contains("no part is named `c`"), "{}", e("a|c"));
        assert!(e("a|c").contains("column 3"));
        assert!(e("(a|b").contains("not closed"));
        assert!(e("a|").contains("ends"));
        assert!(e("a b").contains("after a complete expression"));
        assert!(e("a").contains("part `b` is given but"));
        assert!(e("a+b").contains("`+`"));
    }
}
