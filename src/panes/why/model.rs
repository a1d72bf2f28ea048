//! The "why?" pane: where a register's or memory byte's value came from
//! (`y`: a register or memory pane's selection, or one typed; the context
//! menus), as a tree of the writes that made it. The worker sends the
//! tree a few levels deep; a step it left for later is asked for when
//! opened (its `more` question) and grafted in. Steps are named by their
//! path (child indexes from the root); the arrow keys move and open as in
//! any tree, Enter or a click goes to the step's writer.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};

use crate::i18n::{t, tf};
use crate::model::pane_kind::OpenOn;
use crate::model::pane_state::{fresh_token, PaneAction, PaneState};
use crate::model::target::target_label;
use tarmac_lens_core::{dataflow::Source, protocol::{NodeId, Query, Question, Reply, WhyQuery, WhyStep, WriteTarget}};

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
    /// What was asked about.
    target: WriteTarget,
    /// The tree has been asked for.
    asked: bool,
    /// Steps opened whose subtree is still to be asked for.
    queued: Vec<Path>,
    /// The questions on their way, by token: the tree (`None`) or a
    /// step's subtree.
    waiting: BTreeMap<u64, Option<Path>>,
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

/// The pane's own messages (its render's clicks and keys).
#[derive(Clone, Debug, PartialEq)]
pub enum WhyMsg {
    /// Select a step (a click).
    Select(Path),
    /// Open or shut a step.
    Toggle(Path),
    /// Select a step and go to its writer.
    Go(Path),
    /// A key in the tree.
    Key(WhyKey),
}

impl Why {
    /// Where `target`'s value after `node` (whose first line is `line`)
    /// came from: asked at once.
    pub fn new(target: WriteTarget, node: NodeId, line: u64) -> Why {
        Why {
            label: target_label(&target),
            node,
            line,
            root: None,
            error: None,
            collapsed: BTreeSet::new(),
            expanding: BTreeSet::new(),
            selected: Vec::new(),
            target,
            asked: false,
            queued: Vec::new(),
            waiting: BTreeMap::new(),
        }
    }

    /// The registry's maker.
    pub fn boxed(on: OpenOn) -> Box<dyn PaneState> {
        Box::new(Why::new(on.target, on.node, on.line))
    }

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

    /// Opens or shuts a step; a step left for later is queued to be
    /// asked for.
    fn toggle(&mut self, path: Path) {
        let Some(step) = self.step(&path) else {
            return;
        };
        if !step.inputs.is_empty() {
            if !self.collapsed.remove(&path) {
                self.collapsed.insert(path);
            }
        } else if step.more.is_some() && self.expanding.insert(path.clone()) {
            self.queued.push(path);
        }
    }

    /// Selects a step: the view goes to its writer.
    fn go(&mut self, path: Path) -> PaneAction {
        let writer = self.step(&path).and_then(|s| s.writer);
        self.selected = path;
        match writer {
            Some(w) => PaneAction::GoToNode(w.node),
            None => PaneAction::Say("Nothing in the trace wrote this value."),
        }
    }

    fn key(&mut self, key: WhyKey) -> Option<PaneAction> {
        let rows = self.rows();
        let at = rows.iter().position(|p| *p == self.selected).unwrap_or(0);
        let sel = self.selected.clone();
        match key {
            WhyKey::Up => {
                self.selected =
                    rows[at.saturating_sub(1).min(rows.len().saturating_sub(1))].clone()
            }
            WhyKey::Down => {
                if let Some(p) = rows.get(at + 1) {
                    self.selected = p.clone();
                }
            }
            WhyKey::Right => {
                let step = self.step(&sel)?;
                if step.inputs.is_empty() || !self.open(&sel) {
                    self.toggle(sel);
                } else {
                    let mut first = sel;
                    first.push(0);
                    self.selected = first;
                }
            }
            WhyKey::Left => {
                let has = self.step(&sel).is_some_and(|s| !s.inputs.is_empty());
                if has && self.open(&sel) {
                    self.collapsed.insert(sel);
                } else if !sel.is_empty() {
                    self.selected = sel[..sel.len() - 1].to_vec();
                }
            }
            WhyKey::Enter => return Some(self.go(sel)),
        }
        None
    }
}

impl PaneState for Why {
    fn title(&self) -> String {
        t("Why this value?").into()
    }

    fn more(&mut self, _: u64) -> Option<(u64, Query)> {
        let token = fresh_token();
        if !self.asked {
            self.asked = true;
            self.waiting.insert(token, None);
            let query = WhyQuery {
                node: self.node,
                target: self.target.clone(),
                depth: DEPTH,
                loaded: None,
            };
            return Some((token, query.into()));
        }
        while let Some(path) = self.queued.pop() {
            if let Some(more) = self.step(&path).and_then(|s| s.more.clone()) {
                self.waiting.insert(token, Some(path));
                let query = WhyQuery {
                    depth: MORE_DEPTH,
                    ..more
                };
                return Some((token, query.into()));
            }
            self.expanding.remove(&path);
        }
        None
    }

    fn take_more(&mut self, token: u64, reply: Reply) -> Result<Option<PaneAction>, String> {
        let Some(path) = self.waiting.remove(&token) else {
            return Ok(None);
        };
        let answer = WhyQuery::answer_of(reply);
        match path {
            None => match answer {
                Ok(tree) => self.root = Some(*tree),
                Err(e) => self.error = Some(e),
            },
            Some(path) => {
                self.expanding.remove(&path);
                let tree = answer?;
                if let Some(step) = self.step_mut(&path) {
                    *step = *tree;
                }
                self.collapsed.remove(&path);
            }
        }
        Ok(None)
    }

    fn update(&mut self, msg: Box<dyn Any>) -> Option<PaneAction> {
        match *msg.downcast::<WhyMsg>().ok()? {
            WhyMsg::Select(path) => {
                self.selected = path;
                None
            }
            WhyMsg::Toggle(path) => {
                self.toggle(path);
                None
            }
            WhyMsg::Go(path) => Some(self.go(path)),
            WhyMsg::Key(key) => self.key(key),
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
