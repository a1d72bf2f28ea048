//! The one position type, [`Site`] (where a node is: its index, time,
//! first line, byte offset and instruction address), and [`Node`] (a
//! site with its extent), which the engine reports and the index's queries
//! return.

use serde::{Deserialize, Serialize};

use crate::codec::{Dec, Enc};

/// The reference tools' marker for "this node has no instruction".
pub const INVALID_PC: u64 = 2;

/// A position in the trace: a node, as the index, the call tree, the
/// reports and the browser's views know it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The node's time, clamped: never less than the node before's (for
    /// ordering; a node's own time is [`Node::own_time`]).
    pub time: u64,
    /// Its first line, 1-based.
    pub line: u64,
    /// Instruction address with the Thumb bit set for Thumb code, or
    /// [`INVALID_PC`] for a node with no instruction.
    pub pc: u64,
    /// Byte offset of the node's first line.
    pub offset: u64,
    /// Index of the node.
    pub node: u64,
}

impl Site {
    pub(crate) fn encode(&self, e: &mut Enc) {
        for v in [self.time, self.line, self.pc, self.offset, self.node] {
            e.u(v);
        }
    }
    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Site> {
        Some(Site {
            time: d.u()?,
            line: d.u()?,
            pc: d.u()?,
            offset: d.u()?,
            node: d.u()?,
        })
    }
}

/// A completed node: where it is (its [`Site`], the one position type the
/// engine, the index, the call tree and the reports share) and how far it
/// reaches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// Its index, time, first line, byte offset and instruction address.
    pub at: Site,
    /// Number of lines.
    pub lines: u64,
    /// Byte length.
    pub len: u64,
    /// Instructions before this node (`IT`/`IS`/`ES` records).
    pub(crate) instructions_before: u64,
    /// The time its first line gives. `at.time` is that time clamped to be
    /// no less than the node before's, as ordering needs (and as the
    /// reference tools' reports show it); the two differ only where a
    /// trace's time goes back (a trace concatenated with itself). What a
    /// person is shown and finds by time is this one.
    pub own_time: u64,
}

impl Node {
    /// Whether the node holds an instruction.
    pub fn has_instruction(&self) -> bool {
        self.at.pc != INVALID_PC
    }

    /// Instructions before this node (its instruction's number, from 0).
    pub fn instructions_before(&self) -> u64 {
        self.instructions_before
    }
}
