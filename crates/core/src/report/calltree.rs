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

/// One function activation and the calls it made.
#[derive(Clone, Debug, Default)]
pub struct Activation {
    /// The activation's first node.
    pub entry: Site,
    /// Unset (all zero) if the trace ended inside the activation.
    pub exit: Site,
    /// For each call made: call site, resume site (unset if it never
    /// returned) and the callee's activation.
    pub(crate) calls: Vec<(Site, Site, Activation)>,
}

/// Builds the activation tree. `None` when the trace has no instruction.
pub fn build(a: &CallAnalysis) -> Option<Activation> {
    let first = a.first_instruction_node?;
    let mut depth: i64 = a
        .transitions
        .iter()
        .filter(|t| t.line <= first.line)
        .map(|t| i64::from(t.delta))
        .sum();
    let mut root = Activation {
        entry: first,
        ..Activation::default()
    };
    // Path of call indices from the root to the current activation.
    let mut path: Vec<usize> = Vec::new();
    fn at<'t>(root: &'t mut Activation, path: &[usize]) -> &'t mut Activation {
        let mut cur = root;
        for &i in path {
            cur = &mut cur.calls[i].2;
        }
        cur
    }
    for t in a.transitions.iter().filter(|t| t.line > first.line) {
        let Transition {
            delta,
            before,
            after,
            ..
        } = *t;
        if delta > 0 {
            let cur = at(&mut root, &path);
            cur.calls.push((
                before,
                Site::default(),
                Activation {
                    entry: after,
                    ..Activation::default()
                },
            ));
            path.push(cur.calls.len() - 1);
        } else if let Some(i) = path.pop() {
            let parent = at(&mut root, &path);
            parent.calls[i].2.exit = before;
            parent.calls[i].1 = after;
        } else {
            // A return below the starting depth: the reference tool has no
            // activation to close either; the root stays as it is.
        }
        depth += i64::from(delta);
    }
    if depth == 0 {
        if let Some(last) = a.last_node {
            at(&mut root, &path).exit = last;
        }
    }
    Some(root)
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
pub fn render(root: &Activation, a: &CallAnalysis, name: &dyn Fn(u64) -> String) -> String {
    let line_base = a.first_event_line.map_or(0, |l| l.saturating_sub(1));
    let mut out = String::new();
    fn rec(
        out: &mut String,
        act: &Activation,
        level: usize,
        line_base: u64,
        name: &dyn Fn(u64) -> String,
    ) {
        out.push_str(&" ".repeat(level * 2));
        out.push_str("o ");
        site(out, &act.entry, line_base);
        out.push_str(" - ");
        site(out, &act.exit, line_base);
        out.push_str(" : ");
        out.push_str(&name(act.entry.pc));
        out.push('\n');
        for (call, resume, callee) in &act.calls {
            out.push_str(&" ".repeat((level + 1) * 2));
            out.push_str("- ");
            site(out, call, line_base);
            out.push_str(" - ");
            site(out, resume, line_base);
            out.push('\n');
            rec(out, callee, level + 2, line_base, name);
        }
    }
    rec(&mut out, root, 0, line_base, name);
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
