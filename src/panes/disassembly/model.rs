//! What the disassembly pane holds: the session's listing of the function
//! around the pane's position (the core's [`Disassembly`](Asked) question),
//! and how each of its lines is shown.

#![deny(missing_docs)]

use crate::i18n::{t, tf};
use crate::model::pane_state::{FollowsPosition, PaneState};
use tarmac_lens_core::{Disassembly as Asked, DisassemblyReply, DisassemblyRow, protocol::NodeId};

/// The pane's state: the last listing, if one came.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Disassembly {
    /// The function's instructions with their counts, once answered.
    pub listing: Option<DisassemblyReply>,
}

/// How one instruction is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The position's instruction.
    Here,
    /// It ran (or at least was reached and failed its condition).
    Reached,
    /// Never reached in the part indexed: greyed.
    NeverRun,
}

impl FollowsPosition for Disassembly {
    type Asks = Asked;

    fn question(&self, node: NodeId) -> Asked {
        Asked { node }
    }

    fn answer(&mut self, listing: DisassemblyReply) {
        self.listing = Some(listing);
    }

    /// The function's name once known.
    fn title(&self) -> String {
        match &self.listing {
            Some(d) if !d.function.is_empty() => tf("Disassembly: {}", &[&d.function]),
            _ => t("Disassembly").into(),
        }
    }
}

impl Disassembly {
    /// A pane not filled yet (`registry::Opens::Toggle`'s `make`).
    pub fn boxed() -> Box<dyn PaneState> {
        Box::<Disassembly>::default()
    }

    /// The listing's instructions, each with how it is shown.
    pub fn lines(&self) -> Vec<(&DisassemblyRow, Line)> {
        let Some(d) = &self.listing else {
            return Vec::new();
        };
        d.rows
            .iter()
            .map(|r| {
                let line = if r.addr == d.pc {
                    Line::Here
                } else if r.executed == 0 && r.failed == 0 {
                    Line::NeverRun
                } else {
                    Line::Reached
                };
                (r, line)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(addr: u64, executed: u64, failed: u64) -> DisassemblyRow {
        DisassemblyRow {
            addr,
            encoding: 0,
            size: 4,
            text: "nop".into(),
            executed,
            failed,
        }
    }

    #[test]
    fn the_position_is_marked_and_what_never_ran_greyed() {
        let mut d = Disassembly::default();
        FollowsPosition::answer(
            &mut d,
            DisassemblyReply {
                function: "f".into(),
                pc: 4,
                rows: vec![row(0, 1, 0), row(4, 1, 0), row(8, 0, 0), row(12, 0, 2)],
                complete: true,
                note: None,
            },
        );
        let kinds: Vec<Line> = d.lines().into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            kinds,
            [Line::Reached, Line::Here, Line::NeverRun, Line::Reached]
        );
        let error = tarmac_lens_core::protocol::Reply::Error("no".into());
        assert_eq!(d.take(error), Err("no".into()));
    }
}
