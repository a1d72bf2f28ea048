//! The watch pane: a watchpoint on a register or a memory range (`W`: a
//! register or memory pane's selection, or one typed; the context menus),
//! the accesses listed as the worker finds them (a bounded piece per
//! answer, asked again until the end of what is indexed, then again as
//! indexing goes on), and the next or previous access from the active
//! view's position (`)` and `(`). Its state; what the model does with it
//! is `watching.rs`'s.

use std::rc::Rc;

use super::Answer;
use crate::i18n::{t, tf};
use tarmac_lens_core::browse::protocol::{
    AccessKind, AccessView, AccessesReply, NodeId, WriteTarget,
};

/// Accesses the pane lists at most; `(` and `)` still find the others.
pub const MAX_LISTED: usize = 10_000;

/// Accesses asked for in one piece.
pub(super) const PIECE: u32 = 500;

/// A watchpoint and what is known of its accesses.
#[derive(Clone, Debug, PartialEq)]
pub struct Watch {
    /// The register or memory range watched.
    pub target: WriteTarget,
    /// How the pane names it: `x5`, `[0x3fff60:8]`.
    pub label: String,
    /// Which accesses are listed and stepped to: reads, writes or both.
    pub kind: AccessKind,
    /// The accesses found so far, in trace order; shared, so that the
    /// page's render copies a pointer, not up to [`MAX_LISTED`] rows, at
    /// each step.
    pub hits: Rc<Vec<AccessView>>,
    /// Where the list goes on.
    pub(super) next: NodeId,
    /// A piece is being asked for.
    pub(super) asking: bool,
    /// Which watch the answers are for (a new one drops the old answers).
    pub(super) generation: u64,
}

impl Watch {
    /// The whole trace is listed (or as much as the pane lists).
    pub fn listed(&self, indexed_nodes: u64, complete: bool) -> bool {
        self.hits.len() >= MAX_LISTED || (complete && self.next >= indexed_nodes)
    }

    /// Where in the list the access at `node` is, if it is listed.
    pub fn index_of(&self, node: NodeId) -> Option<usize> {
        self.hits.binary_search_by_key(&node, |h| h.node.node).ok()
    }
}

/// The watch pane's messages (answers boxed: `Msg` stays small).
pub enum WatchMsg {
    /// A piece of the list of accesses.
    Listed {
        /// The watch it is for: a newer one drops it.
        generation: u64,
        /// The accesses found, and where the list goes on.
        reply: Box<Answer<AccessesReply>>,
    },
    /// The next or previous access from a view's position (`)`, `(`).
    Found {
        /// The view that goes there.
        view: u32,
        /// The next access, not the previous one.
        forward: bool,
        /// The access, if there is one.
        reply: Answer<Option<Box<AccessView>>>,
    },
    /// Reads, writes or both.
    Kind(AccessKind),
    /// A listed access clicked: the active view goes there.
    Pick(NodeId),
    /// The pane's close button.
    Close,
}

/// `x5` names a register; `[sp:0x40]`, `buf:64`, `0x1000` memory (the
/// address an expression evaluated at the position, the length 1 unless
/// given): the condition grammar's memory brackets, or a length.
pub fn parse_target(text: &str) -> Result<(Option<String>, String, u64), String> {
    let inner = text
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .map(str::trim);
    let bracketed = inner.is_some();
    let body = inner.unwrap_or(text);
    let (expr, len) = match body.rsplit_once(':') {
        Some((e, n)) => match super::hash::number(n.trim()) {
            Some(0) => return Err(t("The length is 0.").into()),
            Some(len) => (e.trim(), len),
            None => (body, 1),
        },
        None => (body, 1),
    };
    if expr.is_empty() {
        return Err(tf("{} is not a register or a memory range.", &[&text]));
    }
    let register = !bracketed
        && len == 1
        && !body.contains(':')
        && tarmac_lens_core::state::regfile::is_register_name(expr);
    Ok((register.then(|| expr.to_string()), expr.to_string(), len))
}

/// How a watched or explained register or memory range is named.
pub(super) fn target_label(target: &WriteTarget) -> String {
    match target {
        WriteTarget::Register(r) => r.clone(),
        WriteTarget::Memory { addr, len } => format!("[{addr:#x}:{len}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_target;

    #[test]
    fn registers_and_memory_are_told_apart() {
        assert_eq!(parse_target("x5"), Ok((Some("x5".into()), "x5".into(), 1)));
        assert_eq!(parse_target("sp"), Ok((Some("sp".into()), "sp".into(), 1)));
        assert_eq!(parse_target("[sp]"), Ok((None, "sp".into(), 1)));
        assert_eq!(parse_target("[sp:0x40]"), Ok((None, "sp".into(), 64)));
        assert_eq!(parse_target("buf:64"), Ok((None, "buf".into(), 64)));
        assert_eq!(parse_target("0x1000"), Ok((None, "0x1000".into(), 1)));
        assert_eq!(parse_target("sp+8:4"), Ok((None, "sp+8".into(), 4)));
        assert!(parse_target("buf:0").is_err());
        assert!(parse_target(":4").is_err());
    }
}
