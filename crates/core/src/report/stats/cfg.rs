//! The executed control-flow graph of one function: its basic blocks (the
//! runs of executed instructions between branch targets and branches)
//! with how often each ran, and the edges between them with how often
//! each was taken, as Graphviz DOT. Only what ran is drawn; a call is no
//! edge (execution comes back after it), a return or a jump out of the
//! function goes to a node named for where it went.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::Statistics;

/// A basic block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Its first instruction's address (Thumb bit set for Thumb code).
    pub start: u64,
    /// Its last instruction's address.
    pub last: u64,
    /// Instructions in it.
    pub instructions: u64,
    /// Times it ran (its first instruction was reached).
    pub count: u64,
}

/// Where an edge goes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Target {
    /// A block of the function, by its start.
    Block(u64),
    /// Out of the function, to this address.
    Out(u64),
    /// A return.
    Return,
}

/// An edge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// The block it leaves (its start).
    pub from: u64,
    /// Where it goes.
    pub to: Target,
    /// Times taken.
    pub count: u64,
    /// It is the fall-through to the next block, not a branch.
    pub fall_through: bool,
}

/// One function's executed graph.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgReport {
    /// The function's name.
    pub function: String,
    /// Its address range `[start, end)`, Thumb bits cleared.
    pub start: u64,
    /// The end of the range.
    pub end: u64,
    /// Times it was entered (its entry block's runs not reached from
    /// inside it).
    pub entries: u64,
    /// Its blocks, by address.
    pub blocks: Vec<Block>,
    /// Its edges.
    pub edges: Vec<Edge>,
}

#[derive(Clone, Copy, Default)]
struct At {
    pc: u64,
    width: u8,
    reached: u64,
    taken: u64,
    returns: u64,
    ends_block: bool,
}

impl CfgReport {
    /// The graph of the function named `function` spanning `[start, end)`
    /// (addresses without the Thumb bit).
    pub fn build(stats: &Statistics, function: &str, start: u64, end: u64) -> CfgReport {
        let c = &stats.pass.c;
        let mut at: BTreeMap<u64, At> = BTreeMap::new();
        for s in &c.sites {
            let a = s.addr();
            if a < start || a >= end {
                continue;
            }
            let e = at.entry(a).or_insert(At {
                pc: s.pc,
                width: s.width,
                ..At::default()
            });
            e.reached += s.reached();
            e.taken += s.taken;
            e.returns += s.returns;
            e.ends_block |=
                s.flow.writes_pc && !s.flow.call || s.class == crate::decode::InsnClass::Exception;
        }
        let mut r = CfgReport {
            function: function.to_string(),
            start,
            end,
            ..CfgReport::default()
        };
        if at.is_empty() {
            return r;
        }
        // Leaders: the entry, every target of an edge, every instruction
        // after a branch or after a gap.
        let mut leaders: std::collections::BTreeSet<u64> = Default::default();
        leaders.insert(*at.keys().next().expect("not empty"));
        let mut edges_in: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        let mut out_edges: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        for (&(from, to), &n) in &c.edges {
            let (f, t) = (from & !1, to & !1);
            if f < start || f >= end {
                continue;
            }
            if t >= start && t < end {
                leaders.insert(t);
                *edges_in.entry((f, t)).or_default() += n;
            } else {
                *out_edges.entry((f, to)).or_default() += n;
            }
        }
        let mut prev: Option<&At> = None;
        for (&a, i) in &at {
            if let Some(p) = prev {
                if p.pc & !1 != a.wrapping_sub(u64::from(p.width))
                    || p.ends_block
                    || p.taken > 0
                    || p.returns > 0
                {
                    leaders.insert(a);
                }
            }
            prev = Some(i);
        }
        // Blocks, and which block each address is in.
        let mut block_of: BTreeMap<u64, u64> = BTreeMap::new();
        let mut current: Option<Block> = None;
        for (&a, i) in &at {
            if leaders.contains(&a) {
                if let Some(b) = current.take() {
                    r.blocks.push(b);
                }
                current = Some(Block {
                    start: i.pc,
                    last: i.pc,
                    instructions: 0,
                    count: i.reached,
                });
            }
            if let Some(b) = current.as_mut() {
                b.last = i.pc;
                b.instructions += 1;
                block_of.insert(a, b.start);
            }
        }
        if let Some(b) = current.take() {
            r.blocks.push(b);
        }
        let starts: BTreeMap<u64, u64> = r.blocks.iter().map(|b| (b.start & !1, b.start)).collect();
        for (&(f, t), &n) in &edges_in {
            r.edges.push(Edge {
                from: block_of[&f],
                to: Target::Block(starts[&t]),
                count: n,
                fall_through: false,
            });
        }
        for (&(f, to), &n) in &out_edges {
            r.edges.push(Edge {
                from: block_of[&f],
                to: Target::Out(to),
                count: n,
                fall_through: false,
            });
        }
        for b in &r.blocks {
            let last = &at[&(b.last & !1)];
            let next = (b.last & !1) + u64::from(last.width);
            let fall = last.reached.saturating_sub(last.taken + last.returns);
            if fall > 0 {
                if let Some(&s) = starts.get(&next) {
                    r.edges.push(Edge {
                        from: b.start,
                        to: Target::Block(s),
                        count: fall,
                        fall_through: true,
                    });
                }
            }
            if last.returns > 0 {
                r.edges.push(Edge {
                    from: b.start,
                    to: Target::Return,
                    count: last.returns,
                    fall_through: false,
                });
            }
        }
        r.edges
            .sort_by(|a, b| (a.from, &a.to).cmp(&(b.from, &b.to)));
        let first = &r.blocks[0];
        let inside: u64 = r
            .edges
            .iter()
            .filter(|e| e.to == Target::Block(first.start))
            .map(|e| e.count)
            .sum();
        r.entries = first.count.saturating_sub(inside);
        r
    }

    /// The graph in Graphviz DOT; `name` names an address out of it.
    pub fn to_dot(&self, name: &dyn Fn(u64) -> String) -> String {
        let mut out = String::new();
        let q = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "digraph \"{}\" {{", q(&self.function));
        let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
        if self.blocks.is_empty() {
            let _ = writeln!(
                out,
                "  \"none\" [label=\"{}: no instruction of it ran\"];",
                q(&self.function)
            );
            out.push_str("}\n");
            return out;
        }
        let _ = writeln!(
            out,
            "  \"entry\" [shape=oval, label=\"{}\"];",
            q(&self.function)
        );
        for b in &self.blocks {
            let _ = writeln!(
                out,
                "  \"0x{:x}\" [label=\"0x{:x}-0x{:x}\\n{} instructions\\nran {}\"];",
                b.start, b.start, b.last, b.instructions, b.count
            );
        }
        if self.entries > 0 {
            let _ = writeln!(
                out,
                "  \"entry\" -> \"0x{:x}\" [label=\"{}\"];",
                self.blocks[0].start, self.entries
            );
        }
        let mut outs = std::collections::BTreeSet::new();
        for e in &self.edges {
            let to = match &e.to {
                Target::Block(s) => format!("0x{s:x}"),
                Target::Out(a) => {
                    let id = format!("out 0x{a:x}");
                    if outs.insert(*a) {
                        let n = name(*a);
                        let label = if n.is_empty() {
                            format!("0x{a:x}")
                        } else {
                            format!("{n}\\n0x{a:x}")
                        };
                        let _ = writeln!(out, "  \"{id}\" [shape=oval, label=\"{}\"];", q(&label));
                    }
                    id
                }
                Target::Return => {
                    if outs.insert(u64::MAX) {
                        let _ = writeln!(out, "  \"return\" [shape=oval, label=\"return\"];");
                    }
                    "return".to_string()
                }
            };
            let _ = writeln!(
                out,
                "  \"0x{:x}\" -> \"{to}\" [label=\"{}\"{}];",
                e.from,
                e.count,
                if e.fall_through { ", style=dashed" } else { "" }
            );
        }
        out.push_str("}\n");
        out
    }
}
