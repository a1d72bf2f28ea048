//! `calltree`: the indented tree of function activations, in the reference
//! format (`o t:.. l:.. pc:0x.. - t:.. l:.. pc:0x.. : name` per activation,
//! `- ...` per call made from it).
//!
//! The tree is built the way the reference tool builds it: by walking the
//! depth transitions in line order. Calls that overlap without nesting are
//! therefore paired by depth, not by which return matched which call.

use std::fmt::Write;

use super::chunked::Chunked;
use super::{CallAnalysis, Transition};
use crate::engine::Site;

/// The activation tree, flat: one record per activation in entry order
/// (the root first) and each one's callees as indices, grouped by caller.
/// Why flat: a tree of `Vec`s kept 165 MB for 662,304 calls, about 250
/// bytes each (a `Vec` per activation, part-used as it grew); this is 172
/// bytes per activation, in chunks the calls' freed chunks can take (the
/// Reports pass keeps its tree, and a worker's memory its peak).
#[derive(Debug, Default)]
pub struct CallTree {
    acts: Chunked<Act>,
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
    build_from(a, super::transitions(&a.calls))
}

/// [`build`], taking the calls out of `a` and giving their memory back as
/// the tree is built (what a pass that keeps only the tree wants: its
/// peak is the calls or the tree, not both).
pub fn build_taking_calls(a: &mut CallAnalysis) -> Option<CallTree> {
    a.first_instruction_node?;
    let calls = std::mem::take(&mut a.calls);
    build_from_log(a, calls)
}

/// [`build_taking_calls`] with the calls already taken out of `a`.
pub(crate) fn build_from_log(a: &CallAnalysis, calls: super::CallLog) -> Option<CallTree> {
    a.first_instruction_node?;
    build_from(a, super::TransitionsFreeing::new(calls))
}

fn build_from(a: &CallAnalysis, transitions: impl Iterator<Item = Transition>) -> Option<CallTree> {
    let first = a.first_instruction_node?;
    let mut transitions = transitions.peekable();
    let mut depth: i64 = 0;
    while let Some(t) = transitions.next_if(|t| t.line <= first.line) {
        depth += i64::from(t.delta);
    }
    // u32 indices: 2^32 activations would need 700 GB here.
    let mut acts: Chunked<Act> = Chunked::default();
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
    for act in acts.iter().skip(1) {
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
/// (empty for none). Walked with a stack of its own, not by recursion: a
/// trace may nest deeper than a thread's stack.
pub fn render(tree: &CallTree, a: &CallAnalysis, name: &dyn Fn(u64) -> String) -> String {
    let line_base = a.first_event_line.map_or(0, |l| l.saturating_sub(1));
    let mut out = String::new();
    let activation = |out: &mut String, act: &Activation<'_>, level: usize| {
        out.push_str(&" ".repeat(level * 2));
        out.push_str("o ");
        site(out, act.entry, line_base);
        out.push_str(" - ");
        site(out, act.exit, line_base);
        out.push_str(" : ");
        out.push_str(&name(act.entry.pc));
        out.push('\n');
    };
    let root = tree.root();
    activation(&mut out, &root, 0);
    // (activation, its level, its next call to print)
    let mut open = vec![(root, 0, 0)];
    while let Some(top) = open.last_mut() {
        let (act, level, next) = *top;
        let Some((call, resume, callee)) = act.calls.get(next) else {
            open.pop();
            continue;
        };
        top.2 += 1;
        out.push_str(&" ".repeat((level + 1) * 2));
        out.push_str("- ");
        site(&mut out, call, line_base);
        out.push_str(" - ");
        site(&mut out, resume, line_base);
        out.push('\n');
        activation(&mut out, &callee, level + 2);
        open.push((callee, level + 2, 0));
    }
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

#[cfg(test)]
mod tests {
    use super::{build, build_taking_calls, render};
    use crate::engine::{Call, Site};
    use crate::report::CallAnalysis;

    /// `depth` calls each made from the one before, as a pass logs them
    /// (at their return: innermost first).
    fn nested(depth: u64) -> CallAnalysis {
        let site = |line: u64| Site {
            line,
            node: line,
            pc: 0x1000 + line,
            ..Site::default()
        };
        let end = 4 * depth + 2;
        CallAnalysis {
            first_instruction_node: Some(site(1)),
            first_event_line: Some(1),
            last_node: Some(site(end)),
            calls: (1..=depth)
                .rev()
                .map(|d| Call {
                    call_site: site(2 * d),
                    entry: site(2 * d + 1),
                    exit: site(end - 2 * d - 1),
                    resume: site(end - 2 * d),
                })
                .collect(),
            ..CallAnalysis::default()
        }
    }

    #[test]
    fn a_tree_nested_deeper_than_a_small_stack_renders() {
        let depth = 2_000;
        let text = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                let a = nested(depth);
                let tree = build(&a).expect("a tree");
                render(&tree, &a, &|_| "f".to_string())
            })
            .unwrap()
            .join()
            .expect("rendered without overflowing the stack");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len() as u64, 1 + 2 * depth);
        let innermost = lines.last().unwrap();
        assert_eq!(
            innermost.len() - innermost.trim_start().len(),
            4 * depth as usize
        );
        assert!(
            innermost
                .trim_start()
                .starts_with("o t:0 l:4001 pc:0x1fa1 - t:0 l:4001"),
            "{innermost}"
        );
        assert!(
            lines[1].starts_with("  - t:0 l:2 pc:0x1002 - t:0 l:8000 "),
            "{}",
            lines[1]
        );
    }

    #[test]
    fn taking_the_calls_builds_the_same_tree_and_leaves_none() {
        // Chains three deep, one after another from the root, over a few
        // of the calls' chunks.
        let chains = super::Chunked::<Call>::PER_CHUNK as u64;
        let site = |line: u64| Site {
            line,
            node: line,
            ..Site::default()
        };
        let mut a = CallAnalysis {
            first_instruction_node: Some(site(1)),
            first_event_line: Some(1),
            last_node: Some(site(20 * chains + 2)),
            calls: (0..chains)
                .flat_map(|c| {
                    let at = 20 * c + 2;
                    (0..3).rev().map(move |d| Call {
                        call_site: site(at + 2 * d),
                        entry: site(at + 2 * d + 1),
                        exit: site(at + 17 - 2 * d - 1),
                        resume: site(at + 17 - 2 * d),
                    })
                })
                .collect(),
            ..CallAnalysis::default()
        };
        let want = render(&build(&a).unwrap(), &a, &|_| String::new());
        assert_eq!(want.lines().count() as u64, 1 + 6 * chains);
        let tree = build_taking_calls(&mut a).unwrap();
        assert_eq!(a.calls.len(), 0);
        assert_eq!(render(&tree, &a, &|_| String::new()), want);
    }
}
