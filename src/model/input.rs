//! Where keyboard input goes, and what a prompt or a context menu is
//! answering: kept apart from the panes' state so that a pane's own file
//! can name them without depending on every other pane.

use crate::i18n::t;
use tarmac_lens_core::browse::protocol::NodeId;

/// Where keyboard input goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    View(u32),
    Pane(u32),
}

/// What a prompt's answer is for (`BookmarkNote`: the note of the
/// bookmark just set at that line).
#[derive(Clone, Debug, PartialEq)]
pub enum PromptFor {
    GotoLine { view: u32 },
    GotoTime { view: u32 },
    FindPc { view: u32, forward: bool },
    OpenMemory { view: u32 },
    LockLine { pane: u32 },
    LockTime { pane: u32 },
    CompareLine { pane: u32 },
    BookmarkNote { line: u64 },
    Watch { view: u32 },
    Condition { view: u32 },
    Why { view: u32 },
}

impl PromptFor {
    pub fn label(&self) -> &'static str {
        t(match self {
            PromptFor::GotoLine { .. } => "Go to line:",
            PromptFor::GotoTime { .. } => "Go to time:",
            PromptFor::FindPc { forward: true, .. } => "Next visit of PC:",
            PromptFor::FindPc { forward: false, .. } => "Previous visit of PC:",
            PromptFor::OpenMemory { .. } => "Memory at address:",
            PromptFor::LockLine { .. } => "Lock pane to line:",
            PromptFor::LockTime { .. } => "Lock pane to time:",
            PromptFor::CompareLine { .. } => "Compare with line:",
            PromptFor::BookmarkNote { .. } => "Bookmark note (Return alone: none):",
            PromptFor::Watch { .. } => "Watch (x5, [sp:0x40], buf:64):",
            PromptFor::Condition { .. } => "Next point where (x5 == 0, [sp+8:4] > 100):",
            PromptFor::Why { .. } => "Why this value? (x5, [sp:8], buf:4):",
        })
    }
}

/// An action a context menu offers.
#[derive(Clone, Debug, PartialEq)]
pub enum MenuAction {
    MoveTo {
        view: u32,
        node: NodeId,
    },
    Write {
        view: u32,
        node: NodeId,
        target: tarmac_lens_core::browse::protocol::WriteTarget,
        forward: bool,
    },
    Fold {
        view: u32,
        node: NodeId,
        op: tarmac_lens_core::browse::protocol::FoldOp,
    },
    /// A pane command offered by a menu (`[`, `]`, `d` in memory panes).
    Pane {
        pane: u32,
        command: crate::model::keys::Command,
    },
    Symbolize {
        pane: u32,
        addr: u64,
    },
    OpenMemory {
        view: u32,
        addr: u64,
    },
    Watch(tarmac_lens_core::browse::protocol::WriteTarget),
    /// Text for the clipboard: `tarmac-lens gdbserver`'s `monitor line N`
    /// for a row, so gdb can stand where the page does.
    Copy(String),
    /// Where a value after a node (whose first line is `line`) came from.
    Why {
        target: tarmac_lens_core::browse::protocol::WriteTarget,
        node: NodeId,
        line: u64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Menu {
    pub x: i32,
    pub y: i32,
    pub items: Vec<(String, MenuAction)>,
}
