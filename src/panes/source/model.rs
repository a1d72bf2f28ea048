//! The source pane's state: what it shows, the questions it asks of its
//! own (the file's counts, a line's executions, a piece at a time), and
//! where its step keys go.

use std::any::Any;
use std::rc::Rc;

use crate::i18n::{t, tf};
use crate::model::pane_state::{fresh_token, At, Goto, PaneAction, PaneState, Step};
use crate::model::source::{ShowLine, SourceFiles};
use tarmac_lens_core::protocol::{FileCountsReply, FindLine, HitsReply, LineCounts, LineHits, LineStep, NodeId, Query, Question, Reply, Source, SourceReply, SourceStep};

/// Executions listed per page of a line's list.
const HITS_PAGE: u32 = 200;

/// What a source pane shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourcePane {
    /// The frames at the position, as the worker answered.
    pub at: Option<SourceReply>,
    /// The file's per-line counts (the file of the innermost frame).
    pub counts: Option<FileCountsReply>,
    /// The line whose executions are listed.
    pub selected: Option<u32>,
    /// The executions listed of the selected line, as far as fetched.
    pub hits: Option<HitsReply>,
    /// A file and line chosen elsewhere (the Coverage tab), shown instead
    /// of the position's until the position moves.
    pub browse: Option<ShowLine>,
    /// The counts are to be asked for (the file changed, or they were
    /// not complete).
    want_counts: bool,
    /// A page of the selected line's executions is to be asked for, after
    /// this node (`Some(None)`: the first page).
    want_hits: Option<Option<NodeId>>,
    /// The tokens of the counts and the executions last asked for: an
    /// older answer is dropped.
    counts_token: Option<u64>,
    hits_token: Option<u64>,
}

/// A source pane's own messages, from its render.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SourceMsg {
    /// A line clicked in the gutter or text: list its executions.
    PickLine {
        /// The line clicked.
        line: u32,
    },
    /// More of the list, after its last.
    MoreHits,
    /// An execution clicked: the view goes there.
    PickHit {
        /// The execution's node.
        node: NodeId,
    },
}

impl SourcePane {
    /// Its state when it opens.
    pub fn boxed() -> Box<dyn PaneState> {
        Box::<SourcePane>::default()
    }

    /// The innermost frame's file and line (or the file and line chosen
    /// elsewhere).
    pub fn here(&self) -> Option<(&str, Option<u32>)> {
        if let Some(b) = &self.browse {
            return Some((&b.file, Some(b.line)));
        }
        match &self.at {
            Some(SourceReply::Frames { frames, .. }) => {
                let f = frames.first()?;
                Some((f.file.as_deref()?, f.line))
            }
            _ => None,
        }
    }

    /// Count of `line`: (executed, condition failed); `None` for a line
    /// with no code.
    pub fn count(&self, line: u32) -> Option<(u64, u64)> {
        let lines = &self.counts.as_ref()?.lines;
        let i = lines.binary_search_by_key(&line, |l| l.0).ok()?;
        Some((lines[i].1, lines[i].2))
    }

    /// The most any line of the file ran (for the heat colour).
    pub fn hottest(&self) -> u64 {
        self.counts
            .as_ref()
            .map_or(0, |c| c.lines.iter().map(|l| l.1).max().unwrap_or(0))
    }

    /// The text of the file it shows, from the files the person gave, and
    /// what it says when there is none.
    pub fn text(&self, files: &SourceFiles) -> Result<Rc<str>, String> {
        let wanted = |file: &str| {
            tf(
                "Source file {} is needed: choose its folder (or the file) to see it.",
                &[&file],
            )
        };
        if let Some(b) = &self.browse {
            return files.find(&b.file).ok_or_else(|| wanted(&b.file));
        }
        match &self.at {
            None => Err(t("Reading the source position…").into()),
            Some(SourceReply::NoDebugInfo { image: false }) => Err(t(
                "Load the program's ELF image (built with -g) to see its source lines.",
            )
            .into()),
            Some(SourceReply::NoDebugInfo { image: true }) => {
                Err(t("The ELF image has no DWARF line information: build it with -g.").into())
            }
            Some(SourceReply::NoInstruction) => Err(t("No instruction here.").into()),
            Some(SourceReply::Frames { pc, frames }) if frames.is_empty() => {
                Err(tf("No source line for address {}.", &[&format!("{pc:#x}")]))
            }
            Some(SourceReply::Frames { .. }) => {
                let Some((file, _)) = self.here() else {
                    return Err(t("The compiler tied this instruction to no line.").into());
                };
                files.find(file).ok_or_else(|| wanted(file))
            }
        }
    }

    /// Why the counts are missing, if they are.
    fn counts_note(&self) -> Result<(), String> {
        match self.counts.as_ref().and_then(|c| c.note.clone()) {
            Some(note) => Err(note),
            None => Ok(()),
        }
    }
}

impl PaneState for SourcePane {
    fn query(&mut self, at: At) -> Option<Query> {
        Some(Source { node: at.node }.into())
    }

    fn take(&mut self, reply: Reply) -> Result<(), String> {
        self.at = Some(Source::answer_of(reply)?);
        let file = self.here().map(|(f, _)| f);
        self.want_counts |= match (file, &self.counts) {
            (Some(f), Some(c)) => c.file != f || !c.complete,
            (Some(_), None) => true,
            _ => false,
        };
        self.counts_note()
    }

    fn title(&self) -> String {
        match self.here() {
            Some((file, Some(line))) => tf("Source: {}", &[&format!("{file}:{line}")]),
            Some((file, None)) => tf("Source: {}", &[&file]),
            None => t("Source").into(),
        }
    }

    fn more(&mut self, _indexed_nodes: u64) -> Option<(u64, Query)> {
        let file = self.here()?.0.to_string();
        if std::mem::take(&mut self.want_counts) {
            let token = fresh_token();
            self.counts_token = Some(token);
            return Some((token, LineCounts { file }.into()));
        }
        let after = self.want_hits.take()?;
        let line = self.selected?;
        let token = fresh_token();
        self.hits_token = Some(token);
        let hits = LineHits {
            file,
            line,
            after,
            count: HITS_PAGE,
        };
        Some((token, hits.into()))
    }

    fn take_more(&mut self, token: u64, reply: Reply) -> Result<Option<PaneAction>, String> {
        if self.counts_token == Some(token) {
            self.counts = Some(LineCounts::answer_of(reply)?);
            return self.counts_note().map(|()| None);
        }
        if self.hits_token == Some(token) {
            let page = LineHits::answer_of(reply)?;
            match &mut self.hits {
                Some(old) => {
                    old.hits.extend(page.hits);
                    old.more = page.more;
                }
                None => self.hits = Some(page),
            }
        }
        // Otherwise an older question's: a newer one is on its way.
        Ok(None)
    }

    fn update(&mut self, msg: Box<dyn Any>) -> Option<PaneAction> {
        let msg = match msg.downcast::<ShowLine>() {
            Ok(show) => {
                self.browse = Some(*show);
                self.selected = None;
                self.hits = None;
                self.want_counts = true;
                return None;
            }
            Err(msg) => *msg.downcast::<SourceMsg>().ok()?,
        };
        match msg {
            SourceMsg::PickLine { line } => {
                self.selected = Some(line);
                self.hits = None;
                self.want_hits = Some(None);
            }
            SourceMsg::MoreHits => {
                let last = self.hits.as_ref().and_then(|h| h.hits.last());
                self.want_hits = Some(last.map(|h| h.node.node));
            }
            SourceMsg::PickHit { node } => return Some(PaneAction::GoToNode(node)),
        }
        None
    }

    fn step(&self, node: NodeId, step: Step) -> Option<Query> {
        let step = match step {
            Step::Mark { .. } => return None,
            Step::Line { forward: true } => SourceStep::Next,
            Step::Line { forward: false } => SourceStep::Prev,
            Step::Over => SourceStep::Over,
            Step::Out => SourceStep::Out,
            Step::Again { same_way } => {
                let (file, line) = self.here()?;
                let find = FindLine {
                    node,
                    file: file.to_string(),
                    line: self.selected.or(line)?,
                    forward: same_way,
                };
                return Some(find.into());
            }
        };
        Some(LineStep { node, step }.into())
    }

    fn stepped(&self, reply: Reply, step: Step) -> Result<Goto, String> {
        let (to, nowhere) = match step {
            Step::Again { .. } => (
                FindLine::answer_of(reply)?,
                "No other execution of this line that way.",
            ),
            _ => (LineStep::answer_of(reply)?, "No source line that way."),
        };
        to.map(Goto::At).ok_or_else(|| t(nowhere).into())
    }

    fn moved(&mut self) {
        self.browse = None;
    }

    fn source_file(&self) -> Option<&str> {
        self.here().map(|(f, _)| f)
    }
}
