//! The "why?" pane: where a register's or memory byte's value came from
//! (`y`: a register or memory pane's selection, or one typed; the context
//! menus), as a tree of the writes that made it. The worker sends the
//! tree a few levels deep; a step it left for later is asked for when
//! opened (its `more` question) and grafted in. Steps are named by their
//! path (child indexes from the root); the arrow keys move and open as in
//! any tree, Enter or a click goes to the step's writer. Its state; what
//! the model does with it is `explaining.rs`'s.

use std::collections::BTreeSet;

use super::Answer;
use crate::i18n::{t, tf};
use tarmac_lens_core::browse::protocol::NodeId;
use tarmac_lens_core::browse::why::WhyStep;
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
    pub(super) generation: u64,
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

    pub(super) fn step_mut(&mut self, path: &[usize]) -> Option<&mut WhyStep> {
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
