//! `flamegraph`: the "folded stacks" format of Brendan Gregg's FlameGraph
//! scripts, one line per distinct call stack with the time spent in its
//! innermost function itself (callees excluded).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::calltree::Activation;

/// `name(addr, is_root)` gives the function name for an entry address; the
/// flag exists because the reference tool applies `--no-offsets` to the
/// root activation only. Empty names print as the hex address.
pub fn render(root: Activation<'_>, name: &dyn Fn(u64, bool) -> String) -> String {
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    let mut text = String::new();
    let mut frames = vec![push(&mut text, root, true, name)];
    while let Some(top) = frames.last_mut() {
        if let Some((_, _, callee)) = top.act.calls.get(top.next) {
            top.next += 1;
            // Unsigned arithmetic as in the reference: a callee longer than
            // its caller (unset exit times) wraps.
            top.own = top
                .own
                .wrapping_sub(callee.exit.time.wrapping_sub(callee.entry.time));
            let f = push(&mut text, callee, false, name);
            frames.push(f);
        } else {
            let done = frames.pop().expect("frame present");
            let slot = stacks.entry(text.clone()).or_insert(0);
            *slot = slot.wrapping_add(done.own);
            text.truncate(done.parent_len);
        }
    }
    let mut out = String::new();
    for (stack, time) in stacks {
        let _ = writeln!(out, "{} {}", stack, time);
    }
    out
}

/// An activation being walked (iteratively, so deep traces cannot overflow
/// the stack).
struct Frame<'a> {
    act: Activation<'a>,
    /// Length of the stack text before this function's name was appended.
    parent_len: usize,
    /// Own time so far: inclusive time minus the callees seen.
    own: u64,
    next: usize,
}

fn push<'a>(
    text: &mut String,
    act: Activation<'a>,
    is_root: bool,
    name: &dyn Fn(u64, bool) -> String,
) -> Frame<'a> {
    let parent_len = text.len();
    if parent_len > 0 {
        text.push(';');
    }
    let n = name(act.entry.pc, is_root);
    if n.is_empty() {
        let _ = write!(text, "0x{:x}", act.entry.pc);
    } else {
        text.push_str(&n);
    }
    Frame {
        act,
        parent_len,
        own: act.exit.time.wrapping_sub(act.entry.time),
        next: 0,
    }
}
