//! `calltree`: the indented tree of function activations, in the reference
//! format (`o t:.. l:.. pc:0x.. - t:.. l:.. pc:0x.. : name` per activation,
//! `- ...` per call made from it).
//!
//! The tree is built the way the reference tool builds it: by walking the
//! depth transitions in line order. Calls that overlap without nesting are
//! therefore paired by depth, not by which return matched which call.

use std::fmt::Write;

use super::{CallAnalysis, Transition};
use crate::engine::Site;

/// The activation tree, flat: one record per activation in entry order
/// (the root first) and each one's callees as indices, grouped by caller.
/// Why flat: a tree of `Vec`s kept 165 MB for 662,304 calls, about 250
/// bytes each (a `Vec` per activation, part-used as it grew); this is 172
/// bytes per activation, allocated once (the Reports pass keeps its tree,
/// and a worker's memory its peak).
#[derive(Debug, Default)]
pub struct CallTree {
    acts: Vec<Act>,
    /// Callee indices: activation `i`'s are `kids[acts[i].kids_at..acts[i + 1].kids_at]`.
    kids: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
struct Act {
    /// The caller's node holding the call (unset for the root).
    call: Site,
    /// Where the caller resumed (unset if it never returned).
    resume: Site,
    entry: Site,
    exit: Site,
    /// Where its callees start in `kids` (while building: its caller).
    kids_at: u32,
}

/// One function activation in a [`CallTree`] and the calls it made.
#[derive(Clone, Copy, Debug)]
pub struct Activation<'t> {
    /// The activation's first node.
    pub entry: &'t Site,
    /// Unset (all zero) if the trace ended inside the activation.
    pub exit: &'t Site,
    /// For each call made: call site, resume site (unset if it never
    /// returned) and the callee's activation.
    pub(crate) calls: Callees<'t>,
}

/// The calls an [`Activation`] made, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Callees<'t> {
    tree: &'t CallTree,
    kids: &'t [u32],
}

impl CallTree {
    /// The root activation: the trace's first instruction's.
    pub fn root(&self) -> Activation<'_> {
        self.activation(0)
    }

    fn activation(&self, i: u32) -> Activation<'_> {
        let i = i as usize;
        let a = &self.acts[i];
        let end = self
            .acts
            .get(i + 1)
            .map_or(self.kids.len(), |n| n.kids_at as usize);
        Activation {
            entry: &a.entry,
            exit: &a.exit,
            calls: Callees {
                tree: self,
                kids: &self.kids[a.kids_at as usize..end],
            },
        }
    }

    /// How many activations, the root included.
    pub fn len(&self) -> usize {
        self.acts.len()
    }

    /// Never: a tree has its root.
    pub fn is_empty(&self) -> bool {
        self.acts.is_empty()
    }
}

impl<'t> Callees<'t> {
    fn at(&self, k: u32) -> (&'t Site, &'t Site, Activation<'t>) {
        let a = &self.tree.acts[k as usize];
        (&a.call, &a.resume, self.tree.activation(k))
    }

    /// The `i`th call: call site, resume site and callee.
    pub(crate) fn get(&self, i: usize) -> Option<(&'t Site, &'t Site, Activation<'t>)> {
        self.kids.get(i).map(|&k| self.at(k))
    }

    /// How many calls.
    pub(crate) fn len(&self) -> usize {
        self.kids.len()
    }

    /// The calls in order.
    pub(crate) fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = (&'t Site, &'t Site, Activation<'t>)> + ExactSizeIterator + 't
    {
        let this = *self;
        self.kids.iter().map(move |&k| this.at(k))
    }

    /// The number of leading calls whose callee satisfies `pred` (which
    /// must hold for a prefix), as `slice::partition_point`.
    pub(crate) fn partition_point(&self, pred: impl Fn(&Activation<'t>) -> bool) -> usize {
        self.kids
            .partition_point(|&k| pred(&self.tree.activation(k)))
    }
}

/// Builds the activation tree. `None` when the trace has no instruction.
pub fn build(a: &CallAnalysis) -> Option<CallTree> {
    let first = a.first_instruction_node?;
    let mut transitions = super::transitions(&a.calls).peekable();
    let mut depth: i64 = 0;
    while let Some(t) = transitions.next_if(|t| t.line <= first.line) {
        depth += i64::from(t.delta);
    }
    // At most one activation per call, allocated once: u32 indices, as
    // 2^32 activations would need 700 GB here.
    let mut acts: Vec<Act> = Vec::with_capacity(a.calls.len() + 1);
    acts.push(Act {
        entry: first,
        ..Act::default()
    });
    // The open activations, outermost first (the root not among them).
    let mut path: Vec<u32> = Vec::new();
    for t in transitions {
        let Transition {
            delta,
            before,
            after,
            ..
        } = t;
        if delta > 0 {
            let caller = path.last().copied().unwrap_or(0);
            path.push(acts.len() as u32);
            acts.push(Act {
                call: before,
                entry: after,
                kids_at: caller,
                ..Act::default()
            });
        } else if let Some(i) = path.pop() {
            let act = &mut acts[i as usize];
            act.exit = before;
            act.resume = after;
        } else {
            // A return below the starting depth: the reference tool has no
            // activation to close either; the root stays as it is.
        }
        depth += i64::from(delta);
    }
    if depth == 0 {
        if let Some(last) = a.last_node {
            acts[path.last().copied().unwrap_or(0) as usize].exit = last;
        }
    }
    // Each caller's callees in entry order: count, place, fill.
    let mut starts = vec![0u32; acts.len() + 1];
    for act in &acts[1..] {
        starts[act.kids_at as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut kids = vec![0u32; acts.len() - 1];
    let mut next = starts.clone();
    for (i, act) in acts.iter().enumerate().skip(1) {
        let slot = &mut next[act.kids_at as usize];
        kids[*slot as usize] = i as u32;
        *slot += 1;
    }
    for (act, &at) in acts.iter_mut().zip(&starts) {
        act.kids_at = at;
    }
    Some(CallTree { acts, kids })
}

/// Prints a site as `t:<time> l:<line> pc:0x<pc>`. Unset sites print the
/// line the reference tool prints for them: its internal line 0 plus the
/// offset of the first event line.
fn site(out: &mut String, s: &Site, line_base: u64) {
    let line = if *s == Site::default() {
        line_base
    } else {
        s.line
    };
    let _ = write!(out, "t:{} l:{} pc:0x{:x}", s.time, line, s.pc);
}

/// Renders the tree. `name` gives the function name for an entry address
/// (empty for none).
pub fn render(tree: &CallTree, a: &CallAnalysis, name: &dyn Fn(u64) -> String) -> String {
    let line_base = a.first_event_line.map_or(0, |l| l.saturating_sub(1));
    let mut out = String::new();
    fn rec(
        out: &mut String,
        act: Activation<'_>,
        level: usize,
        line_base: u64,
        name: &dyn Fn(u64) -> String,
    ) {
        out.push_str(&" ".repeat(level * 2));
        out.push_str("o ");
        site(out, act.entry, line_base);
        out.push_str(" - ");
        site(out, act.exit, line_base);
        out.push_str(" : ");
        out.push_str(&name(act.entry.pc));
        out.push('\n');
        for (call, resume, callee) in act.calls.iter() {
            out.push_str(&" ".repeat((level + 1) * 2));
            out.push_str("- ");
            site(out, call, line_base);
            out.push_str(" - ");
            site(out, resume, line_base);
            out.push('\n');
            rec(out, callee, level + 2, line_base, name);
        }
    }
    rec(&mut out, tree.root(), 0, line_base, name);
    out
}

/// The calls still open at the trace's end (a hung simulation's stack),
/// outermost first: potential calls no return confirmed, whose frames
/// were still live (sp never rose above them). The reference tool's tree
/// leaves them out; this lists them as `- call site -> entry : name`, in
/// the tree's site format.
pub fn render_open(a: &CallAnalysis, name: &dyn Fn(u64) -> String) -> String {
    let line_base = a.first_event_line.map_or(0, |l| l.saturating_sub(1));
    let mut out = String::new();
    if a.open_calls.is_empty() {
        out.push_str("No calls still open at the end of the trace\n");
        return out;
    }
    let _ = writeln!(
        out,
        "Calls still open at the end of the trace ({}, outermost first):",
        a.open_calls.len()
    );
    for (depth, (call, entry)) in a.open_calls.iter().enumerate() {
        out.push_str(&" ".repeat(depth * 2));
        out.push_str("- ");
        site(&mut out, call, line_base);
        out.push_str(" -> ");
        site(&mut out, entry, line_base);
        out.push_str(" : ");
        out.push_str(&name(entry.pc));
        out.push('\n');
    }
    out
}

/// How many calls were still open at the trace's end.
pub fn open_count(a: &CallAnalysis) -> usize {
    a.open_calls.len()
}
