//! The "why?" pane: where a register's or memory byte's value came from
//! (`y`: a register or memory pane's selection, or one typed; the context
//! menus), as a tree of the writes that made it. The worker sends the
//! tree a few levels deep; a step it left for later is asked for when
//! opened (its `more` question) and grafted in. Steps are named by their
//! path (child indexes from the root); the arrow keys move and open as in
//! any tree, Enter or a click goes to the step's writer.

use std::collections::BTreeSet;

use super::layout::Slot;
use super::{Answer, Focus, Model, Msg, PaneBody, PromptFor};
use crate::i18n::{t, tf};
use tarmac_lens_core::browse::protocol::{Eval, Locate, NodeId, WriteTarget};
use tarmac_lens_core::browse::why::{WhyQuery, WhyStep};
use tarmac_lens_core::dataflow::Source;

/// Levels asked for at first, and for each step opened later.
pub const DEPTH: u32 = 4;
/// Levels asked for below a step opened later.
pub const MORE_DEPTH: u32 = 3;

/// A step's place: child indexes from the root (empty: the root).
pub type Path = Vec<usize>;

/// The tree and how it is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Why {
    /// What was asked about, as the pane names it: `x5`, `[0x3fff60:1]`.
    pub label: String,
    /// The position: the value after this node, whose first line is `line`.
    pub node: NodeId,
    /// The node's first line.
    pub line: u64,
    /// The tree, once it came.
    pub root: Option<WhyStep>,
    /// Why there is no tree, if the session said so.
    pub error: Option<String>,
    /// Steps shut by the person (every other step with inputs is open).
    pub collapsed: BTreeSet<Path>,
    /// Steps whose subtree is being asked for.
    pub expanding: BTreeSet<Path>,
    /// The selected step (the keys move it).
    pub selected: Path,
    /// Which tree the answers are for (a new one drops the old answers).
    generation: u64,
}

/// The arrow keys and Enter in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyKey {
    /// Select the step above.
    Up,
    /// Select the step below.
    Down,
    /// Open the step (asking for it if left for later), else go to its
    /// first input.
    Right,
    /// Shut the step, else go to the step it feeds.
    Left,
    /// Go to the step's writer.
    Enter,
}

/// The pane's messages (answers boxed: `Msg` stays small).
pub enum WhyMsg {
    /// The tree, a few levels deep.
    Tree {
        /// The tree it is for: a newer question drops it.
        generation: u64,
        /// The root step.
        reply: Answer<Box<WhyStep>>,
    },
    /// A step's subtree, left for later and now asked for.
    Expanded {
        /// The tree it is for: a newer question drops it.
        generation: u64,
        /// The step it replaces.
        path: Path,
        /// The step with its inputs.
        reply: Answer<Box<WhyStep>>,
    },
    /// A typed memory expression's address, at `node`.
    Evaluated {
        /// The position.
        node: NodeId,
        /// The position's first line.
        line: u64,
        /// The memory's length in bytes.
        len: u64,
        /// The address.
        reply: Answer<u64>,
    },
    /// Select a step (a click).
    Select(Path),
    /// Open or shut a step.
    Toggle(Path),
    /// Select a step and go to its writer.
    Go(Path),
    /// A key in the tree.
    Key(WhyKey),
    /// The pane's close button.
    Close,
}

impl Why {
    /// The step at `path`.
    pub fn step(&self, path: &[usize]) -> Option<&WhyStep> {
        let mut at = self.root.as_ref()?;
        for &i in path {
            at = at.inputs.get(i)?;
        }
        Some(at)
    }

    fn step_mut(&mut self, path: &[usize]) -> Option<&mut WhyStep> {
        let mut at = self.root.as_mut()?;
        for &i in path {
            at = at.inputs.get_mut(i)?;
        }
        Some(at)
    }

    /// Whether the step's inputs are shown.
    pub fn open(&self, path: &[usize]) -> bool {
        !self.collapsed.contains(path)
    }

    /// The steps shown, in order: each with its path.
    pub fn rows(&self) -> Vec<Path> {
        let mut out = Vec::new();
        if let Some(root) = &self.root {
            self.walk(root, Vec::new(), &mut out);
        }
        out
    }

    fn walk(&self, step: &WhyStep, path: Path, out: &mut Vec<Path>) {
        out.push(path.clone());
        if self.open(&path) {
            for (i, c) in step.inputs.iter().enumerate() {
                let mut p = path.clone();
                p.push(i);
                self.walk(c, p, out);
            }
        }
    }
}

/// The pane's word for where a value came from (empty for a value its
/// writer computed from the inputs shown).
pub fn source_label(s: &Source) -> String {
    match s {
        Source::Computed => String::new(),
        Source::Immediate => t("immediate").into(),
        Source::NeverWritten {
            image_value: Some(v),
            ..
        } => tf("never written: the image holds {}", &[v]),
        Source::NeverWritten { .. } => t("never written: no image value").into(),
        Source::TraceStart => t("trace start").into(),
        Source::SystemOrException { reason } => match reason.as_str() {
            "exception entry" => t("exception entry").into(),
            "system register" => t("system register").into(),
            _ => t("written by a line its instruction does not explain").into(),
        },
        Source::Undecoded { reason } => tf("undecoded: {}", &[reason]),
        Source::DepthLimit => t("not expanded yet").into(),
        Source::SeeAbove => t("expanded above").into(),
        Source::NodeLimit => t("not expanded (node limit)").into(),
    }
}

/// The source's name as the CLI's JSON gives it (`kind`).
pub fn source_kind(s: &Source) -> &'static str {
    match s {
        Source::Computed => "computed",
        Source::Immediate => "immediate",
        Source::NeverWritten { .. } => "never_written",
        Source::TraceStart => "trace_start",
        Source::SystemOrException { .. } => "system_or_exception",
        Source::Undecoded { .. } => "undecoded",
        Source::DepthLimit => "depth_limit",
        Source::SeeAbove => "see_above",
        Source::NodeLimit => "node_limit",
    }
}

impl Model {
    /// `y`: the focused register or memory pane's selection, else a
    /// prompt.
    pub(super) fn why_prompt(&mut self) {
        let pane = match self.focus {
            Focus::Pane(p) => Some(p),
            Focus::View(_) => None,
        };
        if !pane.is_some_and(|p| self.why_selection(p)) {
            let view = self.active_view();
            self.prompt = Some(PromptFor::Why { view });
        }
    }

    /// The position a pane shows: its lock, else its view's.
    fn pane_position(&self, pane: u32) -> Option<(NodeId, u64)> {
        let p = self.pane_ref(pane)?;
        let c = match p.lock {
            Some(l) => l,
            None => self.view_ref(p.view)?.cursor?,
        };
        Some((c.node, c.first_line))
    }

    /// `y` in a register or memory pane; false if it has no selection.
    fn why_selection(&mut self, pane: u32) -> bool {
        let Some(target) = self.selection_target(pane) else {
            return false;
        };
        let Some((node, line)) = self.pane_position(pane) else {
            return false;
        };
        self.why(target, node, line);
        true
    }

    /// Asks where `target`'s value after `node` came from; the pane opens.
    pub(super) fn why(&mut self, target: WriteTarget, node: NodeId, line: u64) {
        let label = super::watch::target_label(&target);
        let generation = self.why_pane().map_or(0, |w| w.generation + 1);
        let why = Box::new(Why {
            label,
            node,
            line,
            root: None,
            error: None,
            collapsed: BTreeSet::new(),
            expanding: BTreeSet::new(),
            selected: Vec::new(),
            generation,
        });
        self.replace_kind(PaneBody::Why(why), true);
        let query = WhyQuery {
            node,
            target,
            depth: DEPTH,
            loaded: None,
        };
        self.ask(query, move |reply| {
            Msg::Why(WhyMsg::Tree { generation, reply })
        });
    }

    /// The prompt's answer: a register, or memory whose address the worker
    /// evaluates at the position.
    pub(super) fn why_text(&mut self, view: u32, text: &str) {
        let Some(c) = self.view_ref(view).and_then(|v| v.cursor) else {
            return;
        };
        let (node, line) = (c.node, c.first_line);
        match super::watch::parse_target(text) {
            Ok((Some(reg), _, _)) => self.why(WriteTarget::Register(reg), node, line),
            Ok((None, expr, len)) => {
                self.ask(Eval { node, expr }, move |reply| {
                    Msg::Why(WhyMsg::Evaluated {
                        node,
                        line,
                        len,
                        reply,
                    })
                });
            }
            Err(e) => self.status = Some(e),
        }
    }

    /// Opens or shuts a step; a step left for later is asked for.
    fn why_toggle(&mut self, path: Path) {
        let Some(w) = self.why_pane_mut() else {
            return;
        };
        let Some(step) = w.step(&path) else {
            return;
        };
        if !step.inputs.is_empty() {
            if !w.collapsed.remove(&path) {
                w.collapsed.insert(path);
            }
            return;
        }
        let Some(more) = step.more.clone() else {
            return;
        };
        if !w.expanding.insert(path.clone()) {
            return;
        }
        let generation = w.generation;
        let query = WhyQuery {
            depth: MORE_DEPTH,
            ..more
        };
        self.ask(query, move |reply| {
            Msg::Why(WhyMsg::Expanded {
                generation,
                path,
                reply,
            })
        });
    }

    fn why_go(&mut self, path: Path) {
        let Some(w) = self.why_pane_mut() else {
            return;
        };
        let writer = w.step(&path).and_then(|s| s.writer);
        w.selected = path;
        match writer {
            Some(wr) => {
                let view = self.active_view();
                self.move_to(view, Locate::Node(wr.node), false);
            }
            None => self.status = Some(t("Nothing in the trace wrote this value.").into()),
        }
    }

    fn why_key(&mut self, key: WhyKey) {
        let Some(w) = self.why_pane_mut() else {
            return;
        };
        let rows = w.rows();
        let at = rows.iter().position(|p| *p == w.selected).unwrap_or(0);
        let sel = w.selected.clone();
        match key {
            WhyKey::Up => {
                w.selected = rows[at.saturating_sub(1).min(rows.len().saturating_sub(1))].clone()
            }
            WhyKey::Down => {
                if let Some(p) = rows.get(at + 1) {
                    w.selected = p.clone();
                }
            }
            WhyKey::Right => {
                let Some(step) = w.step(&sel) else { return };
                if step.inputs.is_empty() || !w.open(&sel) {
                    self.why_toggle(sel);
                } else {
                    let mut first = sel;
                    first.push(0);
                    w.selected = first;
                }
            }
            WhyKey::Left => {
                let has = w.step(&sel).is_some_and(|s| !s.inputs.is_empty());
                if has && w.open(&sel) {
                    w.collapsed.insert(sel);
                } else if !sel.is_empty() {
                    w.selected = sel[..sel.len() - 1].to_vec();
                }
            }
            WhyKey::Enter => self.why_go(sel),
        }
    }

    pub(super) fn on_why(&mut self, msg: WhyMsg) -> bool {
        match msg {
            WhyMsg::Tree { generation, reply } => {
                let Some(w) = self.why_pane_mut().filter(|w| w.generation == generation) else {
                    return false;
                };
                match reply {
                    Ok(tree) => w.root = Some(*tree),
                    Err(e) => w.error = Some(e),
                }
            }
            WhyMsg::Expanded {
                generation,
                path,
                reply,
            } => {
                let Some(w) = self.why_pane_mut().filter(|w| w.generation == generation) else {
                    return false;
                };
                w.expanding.remove(&path);
                match reply {
                    Ok(tree) => {
                        if let Some(step) = w.step_mut(&path) {
                            *step = *tree;
                        }
                        w.collapsed.remove(&path);
                    }
                    Err(e) => self.status = Some(e),
                }
            }
            WhyMsg::Evaluated {
                node,
                line,
                len,
                reply,
            } => match reply {
                Ok(addr) => self.why(WriteTarget::Memory { addr, len }, node, line),
                Err(e) => self.status = Some(e),
            },
            WhyMsg::Select(path) => match self.why_pane_mut() {
                Some(w) if w.selected != path => w.selected = path,
                _ => return false,
            },
            WhyMsg::Toggle(path) => self.why_toggle(path),
            WhyMsg::Go(path) => self.why_go(path),
            WhyMsg::Key(k) => self.why_key(k),
            WhyMsg::Close => self.hide_kind(Slot::WHY),
        }
        true
    }
}
