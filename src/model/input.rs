//! Where keyboard input goes, and what a prompt or a context menu is
//! answering: kept apart from the panes' state so that a pane's own file
//! can name them without depending on every other pane.

use crate::i18n::t;
use tarmac_lens_core::protocol::NodeId;

/// Where keyboard input goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The trace view with this number.
    View(u32),
    /// The pane with this number.
    Pane(u32),
}

/// What a prompt's answer is for (`BookmarkNote`: the note of the
/// bookmark just set at that line).
#[derive(Clone, Debug, PartialEq)]
pub enum PromptFor {
    /// A line to go to (`l`).
    GotoLine {
        /// The view that goes there.
        view: u32,
    },
    /// A time to go to (`t`).
    GotoTime {
        /// The view that goes there.
        view: u32,
    },
    /// A PC whose next or previous visit to go to (`p`, `P`).
    FindPc {
        /// The view that goes there.
        view: u32,
        /// The next visit, not the previous one.
        forward: bool,
    },
    /// An address to open a memory pane at (`m`).
    OpenMemory {
        /// The view the pane follows.
        view: u32,
    },
    /// A line to lock a pane to (`l` in a pane).
    LockLine {
        /// The pane to lock.
        pane: u32,
    },
    /// A time to lock a pane to (`t` in a pane).
    LockTime {
        /// The pane to lock.
        pane: u32,
    },
    /// A line whose memory a memory pane compares with (`d`).
    CompareLine {
        /// The memory pane.
        pane: u32,
    },
    /// The note of the bookmark just set (`b`).
    BookmarkNote {
        /// The bookmark's line.
        line: u64,
    },
    /// A register or memory range to watch (`W`).
    Watch {
        /// The view whose position the watch starts from.
        view: u32,
    },
    /// A value condition to find the next point of (`c`).
    Condition {
        /// The view that goes there.
        view: u32,
    },
    /// A register or memory whose value to explain (`y`).
    Why {
        /// The view whose position the value is at.
        view: u32,
    },
}

impl PromptFor {
    /// What the prompt says, in the page's language; also the key its
    /// history is kept under.
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
    /// Move a view's position to a node.
    MoveTo {
        /// The view that moves.
        view: u32,
        /// Where it goes.
        node: NodeId,
    },
    /// Go to the previous or next write of a register or memory.
    Write {
        /// The view that goes there.
        view: u32,
        /// The node the search starts from.
        node: NodeId,
        /// The register or memory written.
        target: tarmac_lens_core::protocol::WriteTarget,
        /// The next write, not the previous one.
        forward: bool,
    },
    /// Fold or unfold calls at a row.
    Fold {
        /// The view whose folds change.
        view: u32,
        /// The row's node.
        node: NodeId,
        /// Which fold.
        op: tarmac_lens_core::protocol::FoldOp,
    },
    /// A pane command offered by a menu (`[`, `]`, `d` in memory panes).
    Pane {
        /// The pane the command runs in.
        pane: u32,
        /// The command.
        command: crate::model::keys::Command,
    },
    /// What a key does in a pane (`[`, `]` in memory panes).
    Key {
        /// The pane.
        pane: u32,
        /// The key.
        key: crate::model::pane_state::PaneKey,
    },
    /// Name the symbol at a register's value, in the pane's note.
    Symbolize {
        /// The register pane.
        pane: u32,
        /// The value.
        addr: u64,
    },
    /// Open a memory pane at an address.
    OpenMemory {
        /// The view the new pane follows.
        view: u32,
        /// The address.
        addr: u64,
    },
    /// Watch a register or memory range's accesses.
    Watch(tarmac_lens_core::protocol::WriteTarget),
    /// Text for the clipboard: `tarmac-lens gdbserver`'s `monitor line N`
    /// for a row, so gdb can stand where the page does.
    Copy(String),
    /// Where a value after a node (whose first line is `line`) came from.
    Why {
        /// The register or memory.
        target: tarmac_lens_core::protocol::WriteTarget,
        /// The node the value is after.
        node: NodeId,
        /// The node's first line, as the pane names the position.
        line: u64,
    },
}

/// A context menu, open.
#[derive(Clone, Debug, PartialEq)]
pub struct Menu {
    /// Where it opens: the click's `clientX`.
    pub x: i32,
    /// Where it opens: the click's `clientY`.
    pub y: i32,
    /// Its items: each one's label and what it does.
    pub items: Vec<(String, MenuAction)>,
}
