//! The questions a page embedding the viewer may ask it by `postMessage`
//! (`watch`, `find`, `why`), each turned into the browse queries the panes
//! use and answered as JSON.
//!
//! A question is a small state machine ([`Asking`]) fed one reply at a
//! time, so the page drives it over its worker and the tests over a native
//! session, with the same code. The wire format is documented in
//! `docs/embedding.md`; errors are English, as the rest of the embed API's.

use serde_json::{json, Value};
use tarmac_lens_core::{
    protocol,
    protocol::{
        Access, AccessKind, AccessView, Accesses, AccessesReply, Condition, ConditionReply, Eval,
        Locate, NodeId, NodeView, Query, Question, Reply, WhyStep, WriteTarget,
    },
};

/// Levels a `why` expands unless told (as `tarmac-lens why`).
const WHY_DEPTH: u32 = 4;
/// Most hits a `watch` with `direction: "all"` lists.
pub const MAX_HITS: u64 = 10_000;
/// Hits one `Accesses` query asks for.
const PIECE: u32 = 1000;

/// What the viewer does next with a question.
#[derive(Debug)]
pub enum Step {
    /// Ask the session this, and feed its reply to [`Asking::reply`].
    Ask(Query),
    /// The answer (the `result` of the host's `answer` message), or why
    /// there is none.
    Done(Result<Value, String>),
}

/// Which way a question looks from its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Next,
    Previous,
    All,
}

/// A question, as the host asked it.
#[derive(Clone, Debug)]
enum What {
    /// Accesses of `target` (`x5`, `[sp:0x40]`, `buf:64`, `0x1000`);
    /// `to`, the last line an `all` list looks at.
    Watch {
        target: String,
        kind: AccessKind,
        direction: Direction,
        to: Option<u64>,
        max: u64,
    },
    /// Where a value condition becomes true.
    Find { condition: String, forward: bool },
    /// Where `target`'s value came from, `depth` levels down.
    Why { target: String, depth: u32 },
}

/// What to do with the answer to the question asked last: it decodes
/// the wire's reply as that question's own answer.
struct Then(Box<Decode>);

/// Decodes a reply and takes the question on from it.
type Decode = dyn FnOnce(&mut Asking, Reply) -> Step;

impl std::fmt::Debug for Then {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Then")
    }
}

/// One question on its way to an answer.
#[derive(Debug)]
pub struct Asking {
    what: What,
    /// The line asked from, if any.
    line: Option<u64>,
    /// The answer awaited.
    then: Option<Then>,
    /// The node the question looks from (for `all` and `find`, goes on
    /// from).
    from: Option<NodeId>,
    /// The last node an `all` list looks at.
    last: NodeId,
    target: Option<WriteTarget>,
    hits: Vec<Value>,
    /// Intervals the next piece of a `find` looks at (the condition
    /// prompt's pieces: the viewer's panes get answers between them).
    piece: u32,
}

/// The questions, as the host's `type`.
pub const QUESTIONS: [&str; 3] = ["watch", "find", "why"];

fn text_field<'a>(msg: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match msg.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(format!("{key} must be a string")),
    }
}

fn required<'a>(msg: &'a Value, key: &str, what: &str) -> Result<&'a str, String> {
    text_field(msg, key)?
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("needs a {key}: {what}"))
}

fn number_field(msg: &Value, key: &str) -> Result<Option<u64>, String> {
    match msg.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{key} must be a non-negative integer")),
    }
}

fn direction(msg: &Value, all: bool) -> Result<Direction, String> {
    match text_field(msg, "direction")? {
        None | Some("next") => Ok(Direction::Next),
        Some("previous") => Ok(Direction::Previous),
        Some("all") if all => Ok(Direction::All),
        Some(other) => Err(format!(
            "direction must be \"next\", \"previous\"{}, not \"{other}\"",
            if all { " or \"all\"" } else { " or left out" }
        )),
    }
}

/// A node as the host reads it.
pub fn node_json(node: &NodeView) -> Value {
    json!({
        "line": node.first_line,
        "node": node.node,
        "time": node.time,
        "pc": node.pc.map(|pc| format!("{pc:#x}")),
        "instruction": node.instruction,
    })
}

fn hit_json(hit: &AccessView) -> Value {
    let mut v = node_json(&hit.node);
    v["access"] = json!(hit.kind);
    v["detail"] = json!(hit.detail);
    if !hit.function.is_empty() {
        v["function"] = json!(hit.function);
    }
    v
}

impl Asking {
    /// Reads a question (the host's message as JSON); `here` is the
    /// viewer's position, where a question without `line` looks from.
    pub fn new(msg: &Value, here: Option<NodeId>) -> Result<Asking, String> {
        let question = text_field(msg, "type")?.unwrap_or_default();
        let line = number_field(msg, "line")?;
        let what = match question {
            "watch" => Self::watch(msg)?,
            "find" => What::Find {
                condition: required(msg, "condition", "x0 == 0, [sp+8:4] > 100")?.to_string(),
                forward: direction(msg, false)? == Direction::Next,
            },
            "why" => Self::why(msg)?,
            _ => return Err(format!("unknown question \"{question}\"")),
        };
        // A list starts at the trace's start unless told otherwise.
        let all = matches!(
            what,
            What::Watch {
                direction: Direction::All,
                ..
            }
        );
        let from = match (line, all) {
            (Some(_), _) => None,
            (None, true) => Some(0),
            (None, false) => here,
        };
        Ok(Asking {
            what,
            line,
            then: None,
            from,
            last: NodeId::MAX,
            target: None,
            hits: Vec::new(),
            piece: super::condition::FIRST_PIECE,
        })
    }

    fn watch(msg: &Value) -> Result<What, String> {
        let target = required(
            msg,
            "target",
            "a register (x5) or memory ([sp:0x40], buf:64)",
        )?;
        let kind = match text_field(msg, "access")? {
            None | Some("any") => AccessKind::Any,
            Some("read") => AccessKind::Read,
            Some("write") => AccessKind::Write,
            Some(other) => {
                return Err(format!(
                    "access must be \"read\", \"write\" or \"any\", not \"{other}\""
                ))
            }
        };
        let direction = direction(msg, true)?;
        let max = number_field(msg, "max")?.unwrap_or(1000);
        if max == 0 || max > MAX_HITS {
            return Err(format!("max must be 1 to {MAX_HITS}"));
        }
        let to = number_field(msg, "to")?;
        if to.is_some() && direction != Direction::All {
            return Err("to goes with direction \"all\"".into());
        }
        Ok(What::Watch {
            target: target.to_string(),
            kind,
            direction,
            to,
            max,
        })
    }

    fn why(msg: &Value) -> Result<What, String> {
        let target = required(msg, "target", "a register (x5) or memory ([sp:8], buf:4)")?;
        let depth = number_field(msg, "depth")?.unwrap_or(u64::from(WHY_DEPTH));
        if !(1..=u64::from(protocol::MAX_DEPTH)).contains(&depth) {
            return Err(format!("depth must be 1 to {}", protocol::MAX_DEPTH));
        }
        Ok(What::Why {
            target: target.to_string(),
            depth: depth as u32,
        })
    }

    /// The first query.
    pub fn start(&mut self) -> Step {
        match (self.line, self.from) {
            (Some(line), _) => self.ask(Locate::Line(line), Self::on_located),
            (None, Some(_)) => self.located(),
            (None, None) => self.ask(Locate::Start, Self::on_located),
        }
    }

    /// The next step, given the reply to the last query.
    pub fn reply(&mut self, reply: Reply) -> Step {
        match self.then.take() {
            Some(Then(then)) => then(self, reply),
            None => Step::Done(Err("no question was waiting for this answer".into())),
        }
    }

    /// Asks `question`; `then` takes its answer (an error ends the
    /// question with the session's message).
    fn ask<Q: Question + 'static>(
        &mut self,
        question: Q,
        then: fn(&mut Asking, Q::Answer) -> Step,
    ) -> Step {
        self.then = Some(Then(Box::new(move |asking, reply| {
            match Q::answer_of(reply) {
                Ok(answer) => then(asking, answer),
                Err(e) => Step::Done(Err(e)),
            }
        })));
        Step::Ask(question.into())
    }

    fn on_located(&mut self, node: Option<NodeView>) -> Step {
        match node {
            Some(node) => {
                self.from = Some(node.node);
                self.located()
            }
            None => Step::Done(Err(match self.line {
                Some(line) => format!("line {line} is past the trace's end"),
                None => "the trace has no instructions".into(),
            })),
        }
    }

    fn on_ended(&mut self, node: Option<NodeView>) -> Step {
        self.last = node.map_or(0, |n| n.node);
        self.bounded()
    }

    fn on_evaluated(&mut self, addr: u64) -> Step {
        let len = self.target_len();
        self.target = Some(WriteTarget::Memory { addr, len });
        self.targeted()
    }

    fn on_explained(&mut self, tree: WhyStep) -> Step {
        Step::Done(
            serde_json::to_value(&tree)
                .map(|tree| {
                    json!({
                        "target": self.target.as_ref().map(super::target::target_label),
                        "tree": tree,
                    })
                })
                .map_err(|e| e.to_string()),
        )
    }

    fn on_access(&mut self, hit: Option<Box<AccessView>>) -> Step {
        self.hits.extend(hit.as_deref().map(hit_json));
        self.listed(false, true)
    }

    fn on_accesses(&mut self, piece: AccessesReply) -> Step {
        let from = self.from.unwrap_or(0);
        let max = match self.what {
            What::Watch { max, .. } => max,
            What::Find { .. } | What::Why { .. } => 0,
        };
        for hit in piece.hits.iter().filter(|h| h.node.node <= self.last) {
            if self.hits.len() as u64 == max {
                return self.listed(true, true);
            }
            self.hits.push(hit_json(hit));
        }
        if piece.next > self.last {
            return self.listed(false, true);
        }
        if piece.next <= from {
            // Nothing more is indexed yet.
            return self.listed(false, false);
        }
        self.from = Some(piece.next);
        self.watching()
    }

    fn on_searched(&mut self, c: ConditionReply) -> Step {
        match c {
            ConditionReply::Hit(node) => self.found(Some(&node)),
            ConditionReply::NotFound => self.found(None),
            ConditionReply::Continue(next) => {
                self.from = Some(next);
                self.piece = super::condition::next_piece(self.piece);
                self.searching()
            }
            ConditionReply::Invalid { column, message } => {
                Step::Done(Err(format!("column {column}: {message}")))
            }
        }
    }

    fn target_text(&self) -> &str {
        match &self.what {
            What::Watch { target, .. } | What::Why { target, .. } => target,
            What::Find { condition, .. } => condition,
        }
    }

    /// The length a memory target asks for (1 unless given).
    fn target_len(&self) -> u64 {
        super::target::parse_target(self.target_text()).map_or(1, |(_, _, len)| len)
    }

    /// The position is known.
    fn located(&mut self) -> Step {
        match &self.what {
            What::Watch {
                direction: Direction::All,
                to,
                ..
            } => {
                let last = match *to {
                    Some(line) => Locate::Line(line),
                    None => Locate::End,
                };
                self.ask(last, Self::on_ended)
            }
            What::Watch { .. } | What::Why { .. } => self.bounded(),
            What::Find { .. } => self.searching(),
        }
    }

    /// The position and bounds are known: the target next.
    fn bounded(&mut self) -> Step {
        let from = self.from.unwrap_or(0);
        match super::target::parse_target(self.target_text()) {
            Err(e) => Step::Done(Err(e)),
            Ok((Some(register), _, _)) => {
                self.target = Some(WriteTarget::Register(register));
                self.targeted()
            }
            Ok((None, expr, _)) => self.ask(Eval { node: from, expr }, Self::on_evaluated),
        }
    }

    /// The target is known: watch it or explain it.
    fn targeted(&mut self) -> Step {
        match self.what {
            What::Why { depth, .. } => {
                let question = protocol::WhyQuery {
                    node: self.from.unwrap_or(0),
                    target: self.target.clone().expect("the target is known by now"),
                    depth,
                    loaded: None,
                };
                self.ask(question, |asking, tree| asking.on_explained(*tree))
            }
            _ => self.watching(),
        }
    }

    fn watching(&mut self) -> Step {
        let What::Watch {
            kind,
            direction,
            max,
            ..
        } = self.what
        else {
            unreachable!("only a watch watches")
        };
        let target = self.target.clone().expect("the target is known by now");
        let node = self.from.unwrap_or(0);
        match direction {
            Direction::All => {
                let piece = Accesses {
                    target,
                    kind,
                    from: node,
                    // One more than fits says whether `max` cuts the list.
                    max: PIECE.min((max - self.hits.len() as u64 + 1) as u32),
                };
                self.ask(piece, Self::on_accesses)
            }
            forward => {
                let hit = Access {
                    node,
                    target,
                    kind,
                    forward: forward == Direction::Next,
                };
                self.ask(hit, Self::on_access)
            }
        }
    }

    fn searching(&mut self) -> Step {
        let What::Find { condition, forward } = &self.what else {
            unreachable!("only a find searches")
        };
        let piece = Condition {
            text: condition.clone(),
            node: self.from.unwrap_or(0),
            forward: *forward,
            budget: self.piece,
        };
        self.ask(piece, Self::on_searched)
    }

    /// A watch's answer: the hits, whether more were left out (`max`), and
    /// whether the list reached its end (`false`: the trace is still
    /// being indexed past the last hit).
    fn listed(&mut self, more: bool, complete: bool) -> Step {
        let target = self
            .target
            .as_ref()
            .map(super::target::target_label)
            .unwrap_or_default();
        Step::Done(Ok(json!({
            "target": target,
            "hits": std::mem::take(&mut self.hits),
            "more": more,
            "complete": complete,
        })))
    }

    /// A find's answer.
    fn found(&self, hit: Option<&NodeView>) -> Step {
        Step::Done(Ok(json!({
            "condition": self.target_text(),
            "hit": hit.map(node_json),
        })))
    }
}
