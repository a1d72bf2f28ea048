//! The watch pane: a watchpoint on a register or a memory range (`W`: a
//! register or memory pane's selection, or one typed; the context menus),
//! the accesses listed as the worker finds them (a bounded piece per
//! answer, asked again until the end of what is indexed, then again as
//! indexing goes on), and the next or previous access from the active
//! view's position (`)` and `(`).

use super::layout::Slot;
use super::{Answer, Model, Msg, PaneBody, PromptFor};
use crate::i18n::{t, tf};
use crate::model::keys::Command;
use tarmac_lens_core::browse::protocol::{
    Access, AccessKind, AccessView, Accesses, AccessesReply, Eval, Locate, NodeId, WriteTarget,
};

/// Accesses the pane lists at most; `(` and `)` still find the others.
pub const MAX_LISTED: usize = 10_000;

/// Accesses asked for in one piece.
const PIECE: u32 = 500;

/// A watchpoint and what is known of its accesses.
#[derive(Clone, Debug, PartialEq)]
pub struct Watch {
    /// The register or memory range watched.
    pub target: WriteTarget,
    /// How the pane names it: `x5`, `[0x3fff60:8]`.
    pub label: String,
    /// Which accesses are listed and stepped to: reads, writes or both.
    pub kind: AccessKind,
    /// The accesses found so far, in trace order.
    pub hits: Vec<AccessView>,
    /// Where the list goes on.
    next: NodeId,
    /// A piece is being asked for.
    asking: bool,
    /// Which watch the answers are for (a new one drops the old answers).
    generation: u64,
}

impl Watch {
    /// The whole trace is listed (or as much as the pane lists).
    pub fn listed(&self, indexed_nodes: u64, complete: bool) -> bool {
        self.hits.len() >= MAX_LISTED || (complete && self.next >= indexed_nodes)
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

impl Model {
    /// The watch commands; false if `cmd` is not one.
    pub(super) fn run_watch(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::WatchPrompt => {
                // In a register or memory pane: its selection (`w` there
                // already shows the changed registers).
                let pane = match self.focus {
                    super::Focus::Pane(p) => Some(p),
                    super::Focus::View(_) => None,
                };
                if !pane.is_some_and(|p| self.watch_selection(p)) {
                    let view = self.active_view();
                    self.prompt = Some(PromptFor::Watch { view });
                }
            }
            Command::WatchStep { forward } => self.watch_step(forward),
            _ => return false,
        }
        true
    }

    /// `W` in a register or memory pane: watch its selection; false if
    /// the pane has none (or is another kind).
    pub(super) fn watch_selection(&mut self, pane: u32) -> bool {
        let Some(target) = self.selection_target(pane) else {
            return false;
        };
        self.watch(target);
        true
    }

    /// Starts watching `target`: the pane opens and lists its accesses.
    pub(super) fn watch(&mut self, target: WriteTarget) {
        let label = target_label(&target);
        let kind = self.watch_pane().map_or(AccessKind::Any, |w| w.kind);
        let generation = self.watch_pane().map_or(0, |w| w.generation + 1);
        let watch = Box::new(Watch {
            target,
            label,
            kind,
            hits: Vec::new(),
            next: 0,
            asking: false,
            generation,
        });
        self.replace_kind(PaneBody::Watch(watch), true);
        self.fetch_watch();
    }

    /// Asks for the next piece of the list, if there is more to ask.
    fn fetch_watch(&mut self) {
        let nodes = self.indexed_nodes;
        let Some(w) = self.watch_pane_mut() else {
            return;
        };
        if w.asking || w.hits.len() >= MAX_LISTED || w.next >= nodes {
            return;
        }
        w.asking = true;
        let generation = w.generation;
        let query = Accesses {
            target: w.target.clone(),
            kind: w.kind,
            from: w.next,
            max: PIECE.min((MAX_LISTED - w.hits.len()) as u32),
        };
        self.ask(query, move |reply| {
            Msg::Watch(WatchMsg::Listed {
                generation,
                reply: Box::new(reply),
            })
        });
    }

    /// More of the trace is indexed: the list may go on.
    pub(super) fn watch_progress(&mut self) {
        self.fetch_watch();
    }

    fn watch_step(&mut self, forward: bool) {
        let Some(w) = self.watch_pane() else {
            self.status =
                Some(t("Nothing is watched: W on a register, a byte or anywhere.").into());
            return;
        };
        let view = self.active_view();
        let Some(node) = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node) else {
            return;
        };
        let query = Access {
            node,
            target: w.target.clone(),
            kind: w.kind,
            forward,
        };
        self.ask(query, move |reply| {
            Msg::Watch(WatchMsg::Found {
                view,
                forward,
                reply,
            })
        });
    }

    /// The watch prompt's answer: a register, or memory whose address the
    /// worker evaluates at the position.
    pub(super) fn watch_text(&mut self, view: u32, text: &str) {
        match parse_target(text) {
            Ok((Some(reg), _, _)) => self.watch(WriteTarget::Register(reg)),
            Ok((None, expr, len)) => {
                let node = self
                    .view_ref(view)
                    .and_then(|v| v.cursor)
                    .map_or(0, |c| c.node);
                self.ask(Eval { node, expr }, move |reply| match reply {
                    Ok(addr) => Msg::WatchMemory { addr, len },
                    Err(e) => Msg::WatchMemoryFailed(e),
                });
            }
            Err(e) => self.status = Some(e),
        }
    }

    pub(super) fn on_watch(&mut self, msg: WatchMsg) -> bool {
        match msg {
            WatchMsg::Listed { generation, reply } => {
                let Some(w) = self.watch_pane_mut() else {
                    return false;
                };
                if w.generation != generation {
                    return false;
                }
                w.asking = false;
                match *reply {
                    Ok(r) => {
                        w.hits.extend(r.hits);
                        w.next = r.next;
                        self.fetch_watch();
                    }
                    Err(e) => self.status = Some(e),
                }
            }
            WatchMsg::Found {
                view,
                forward,
                reply,
            } => match reply {
                Ok(Some(a)) => {
                    self.refocus = true;
                    self.move_to(view, Locate::Node(a.node.node), false);
                }
                Ok(None) => {
                    self.status = Some(
                        t(if forward {
                            "No later access."
                        } else {
                            "No earlier access."
                        })
                        .into(),
                    )
                }
                Err(e) => self.status = Some(e),
            },
            WatchMsg::Kind(kind) => {
                if let Some(w) = self.watch_pane() {
                    if w.kind != kind {
                        let target = w.target.clone();
                        if let Some(w) = self.watch_pane_mut() {
                            w.kind = kind;
                        }
                        self.watch(target);
                    }
                }
            }
            WatchMsg::Close => self.hide_kind(Slot::WATCH),
        }
        true
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
