//! The condition prompt (`c`): where a value condition on registers and
//! memory (`x5 == 0`, `[sp+8:4] > 100`; the grammar of `tarmac-lens
//! find`) next becomes true from the active view's position, and the next
//! (`>`) or previous (`<`) time after that. The worker searches a bounded
//! piece per answer; the model asks for the next piece until a hit, the
//! trace's end or Escape, showing how far it got; a hit moves the view at
//! once.

use super::{Answer, Model, Msg, PromptFor};
use crate::i18n::{t, tf};
use tarmac_lens_core::protocol::{Condition, ConditionReply, Locate, NodeId};

/// Checkpoint intervals (about 256 KiB of trace each) the first piece of
/// a search looks at: a hit near the start comes back at once.
pub(crate) const FIRST_PIECE: u32 = 8;
/// Each later piece looks at twice as many, up to this: every piece costs
/// a round trip and a redraw of the progress, and a piece of 16 MB or so
/// (tens of milliseconds in the worker) still stops promptly.
const LAST_PIECE: u32 = 64;

/// The intervals of the piece after one of `budget`.
pub(crate) fn next_piece(budget: u32) -> u32 {
    budget.saturating_mul(2).min(LAST_PIECE)
}

/// A search on its way.
#[derive(Clone, Debug, PartialEq)]
pub struct Running {
    /// The condition, as typed.
    pub text: String,
    /// Searching after the position, not before it.
    pub forward: bool,
    view: u32,
    /// The position it started from.
    origin: NodeId,
    /// Where the next piece starts.
    at: NodeId,
    /// How many intervals it looks at.
    budget: u32,
}

impl Running {
    /// How much of the way is searched, 0 to 1: forward, of the nodes
    /// after the start; backward, of those before it.
    pub fn fraction(&self, nodes: NodeId) -> f64 {
        let (done, way) = if self.forward {
            (
                self.at.saturating_sub(self.origin),
                nodes.saturating_sub(self.origin),
            )
        } else {
            (self.origin.saturating_sub(self.at), self.origin)
        };
        if way == 0 {
            1.0
        } else {
            (done as f64 / way as f64).clamp(0.0, 1.0)
        }
    }
}

/// A condition that is not one: its text, the column (1-based, in bytes)
/// where it went wrong, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    /// The text, as typed.
    pub text: String,
    /// Where it went wrong: 1-based, in bytes.
    pub column: usize,
    /// Why it is not a condition.
    pub message: String,
}

impl Invalid {
    /// The text before the column, the character there (a space past the
    /// end), and the rest: for marking the column.
    pub fn parts(&self) -> (&str, &str, &str) {
        let at = self.column.saturating_sub(1).min(self.text.len());
        let at = (0..=at)
            .rev()
            .find(|&i| self.text.is_char_boundary(i))
            .unwrap_or(0);
        let end = (at + 1..=self.text.len())
            .find(|&i| self.text.is_char_boundary(i))
            .unwrap_or(self.text.len());
        (&self.text[..at], &self.text[at..end], &self.text[end..])
    }
}

/// The condition prompt's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conditions {
    /// The last condition asked for (`>` and `<` search it again).
    pub last: Option<String>,
    /// The search on its way, if any.
    pub running: Option<Running>,
    /// The last one asked for is not a condition.
    pub invalid: Option<Invalid>,
    /// Numbers the searches, so a stopped one's late answers are dropped.
    generation: u64,
}

/// The condition search's messages.
pub enum CondMsg {
    /// A piece's answer (boxed: `Msg` stays small).
    Piece {
        /// The search it is for: a stopped one's answer is dropped.
        generation: u64,
        /// A hit, none, where to go on, or why the text is not a condition.
        reply: Box<Answer<ConditionReply>>,
    },
    /// Stop the search (Escape, the Stop button).
    Stop,
}

impl Model {
    /// `c`: ask for a condition, the last one written in.
    pub(super) fn condition_prompt(&mut self) {
        let view = self.active_view();
        self.prompt = Some(PromptFor::Condition { view });
    }

    /// `>` and `<`: the last condition again, from the position.
    pub(super) fn condition_step(&mut self, forward: bool) {
        let Some(text) = self.condition.last.clone() else {
            self.status =
                Some(t("No condition yet: c asks for one (x5 == 0, [sp:4] > 100).").into());
            return;
        };
        let view = self.active_view();
        self.condition_search(view, text, forward);
    }

    /// Searches from view `view`'s position (a search on its way stops).
    pub(super) fn condition_search(&mut self, view: u32, text: String, forward: bool) {
        let Some(origin) = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node) else {
            return;
        };
        self.condition.last = Some(text.clone());
        self.condition.invalid = None;
        self.condition.generation += 1;
        self.condition.running = Some(Running {
            text,
            forward,
            view,
            origin,
            at: origin,
            budget: FIRST_PIECE,
        });
        self.ask_condition_piece();
    }

    fn ask_condition_piece(&mut self) {
        let Some(r) = &self.condition.running else {
            return;
        };
        let generation = self.condition.generation;
        let query = Condition {
            text: r.text.clone(),
            node: r.at,
            forward: r.forward,
            budget: r.budget,
        };
        self.ask(query, move |reply| {
            Msg::Condition(CondMsg::Piece {
                generation,
                reply: Box::new(reply),
            })
        });
    }

    pub(super) fn on_condition(&mut self, msg: CondMsg) -> bool {
        match msg {
            CondMsg::Stop => {
                if self.condition.running.take().is_none() {
                    return false;
                }
                self.condition.generation += 1;
                self.status = Some(t("Condition search stopped.").into());
            }
            CondMsg::Piece { generation, reply } => {
                if generation != self.condition.generation {
                    return false;
                }
                let Some(r) = &mut self.condition.running else {
                    return false;
                };
                match *reply {
                    Ok(ConditionReply::Continue(at)) => {
                        r.at = at;
                        r.budget = next_piece(r.budget);
                        self.ask_condition_piece();
                    }
                    Ok(ConditionReply::Hit(n)) => {
                        let view = r.view;
                        let text = r.text.clone();
                        self.condition.running = None;
                        self.refocus = true;
                        self.status = Some(tf(
                            "{} becomes true at line {}.",
                            &[&text, &n.first_line.to_string()],
                        ));
                        self.move_to(view, Locate::Node(n.node), true);
                    }
                    Ok(ConditionReply::NotFound) => {
                        let text = r.text.clone();
                        let forward = r.forward;
                        self.condition.running = None;
                        self.status = Some(if forward {
                            tf("{} does not become true after the position.", &[&text])
                        } else {
                            tf("{} does not become true before the position.", &[&text])
                        });
                    }
                    Ok(ConditionReply::Invalid { column, message }) => {
                        let text = r.text.clone();
                        self.condition.running = None;
                        self.condition.invalid = Some(Invalid {
                            text,
                            column: column as usize,
                            message,
                        });
                    }
                    Err(e) => {
                        self.condition.running = None;
                        self.status = Some(e);
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{Invalid, Running};

    #[test]
    fn pieces_grow_to_their_cap() {
        let mut b = super::FIRST_PIECE;
        let mut sizes = vec![b];
        for _ in 0..5 {
            b = super::next_piece(b);
            sizes.push(b);
        }
        assert_eq!(sizes, [8, 16, 32, 64, 64, 64]);
    }

    #[test]
    fn the_fraction_is_of_the_way_searched() {
        let r = |forward, at| Running {
            text: String::new(),
            forward,
            view: 0,
            origin: 100,
            at,
            budget: super::FIRST_PIECE,
        };
        assert_eq!(r(true, 100).fraction(1100), 0.0);
        assert_eq!(r(true, 600).fraction(1100), 0.5);
        assert_eq!(r(false, 75).fraction(1100), 0.25);
        assert_eq!(r(false, 0).fraction(1100), 1.0);
        assert_eq!(r(true, 100).fraction(100), 1.0);
    }

    #[test]
    fn the_column_is_marked_even_past_the_end() {
        let at = |text: &str, column| {
            let i = Invalid {
                text: text.into(),
                column,
                message: String::new(),
            };
            let (a, b, c) = i.parts();
            (a.to_string(), b.to_string(), c.to_string())
        };
        assert_eq!(at("x0 = 1", 4), ("x0 ".into(), "=".into(), " 1".into()));
        assert_eq!(at("x0 == ", 7), ("x0 == ".into(), "".into(), "".into()));
        assert_eq!(at("é == 1", 1), ("".into(), "é".into(), " == 1".into()));
    }
}
