//! The source pane's part of the model: opening it, the files given,
//! following the position, stepping by line, its counts and hits; the
//! pane's state is `source.rs`'s.

use super::source::*;
use super::{Focus, Model, Msg, PaneBody, PaneMsg};
use crate::i18n::{t, tf};
use crate::model::keys::Command;
use std::rc::Rc;
use tarmac_lens_core::browse::protocol::{
    FindLine, LineCounts, LineHits, LineStep, Locate, NodeId, SourceReply, SourceStep,
};

impl Model {
    /// `s`: shows or hides the source pane of the active view.
    pub(super) fn toggle_source(&mut self) {
        let existing = self
            .panes
            .iter()
            .find(|p| matches!(p.body, PaneBody::Source(_)))
            .map(|p| p.id);
        match existing {
            Some(id) => self.close_pane(id),
            None => {
                let id = self.add_source(self.active_view());
                self.focus = Focus::Pane(id);
                self.refresh_pane(id);
            }
        }
    }

    pub(super) fn add_source(&mut self, view: u32) -> u32 {
        self.push_pane(view, PaneBody::Source(Box::default()))
    }

    /// Source files the person gave (path, text): every source pane can
    /// show them.
    pub fn add_source_files(&mut self, files: Vec<(String, String)>) {
        for (path, text) in files {
            self.sources.files.retain(|(p, _)| *p != path);
            self.sources.files.push((path, text.into()));
        }
    }

    /// Shows `file` at `line` in the active view's source pane (opened if
    /// there is none) until the position moves.
    pub(super) fn show_source(&mut self, file: String, line: u32) {
        let view = self.active_view();
        let existing = self
            .panes
            .iter()
            .find(|p| p.view == view && matches!(p.body, PaneBody::Source(_)))
            .map(|p| p.id);
        let id = match existing {
            Some(id) => {
                self.into_view = Some(super::layout::Shown::Pane(id));
                id
            }
            None => {
                let id = self.add_source(view);
                self.refresh_pane(id);
                id
            }
        };
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let PaneBody::Source(s) = &mut pane.body else {
            return;
        };
        s.browse = Some(Browse {
            file: file.clone(),
            line,
        });
        s.selected = None;
        s.hits = None;
        self.focus = Focus::Pane(id);
        self.ask(LineCounts { file }, move |reply| {
            Msg::Pane(id, PaneMsg::Source(SourceMsg::Counts { reply }))
        });
    }

    /// The view moved: its source panes follow the position again.
    pub(super) fn end_source_browse(&mut self, view: u32) {
        for p in &mut self.panes {
            if let (PaneBody::Source(s), None) = (&mut p.body, p.lock) {
                if p.view == view {
                    s.browse = None;
                }
            }
        }
    }

    /// The frames came: the counts follow when the file changed.
    pub(super) fn on_source_at(&mut self, id: u32, reply: SourceReply) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let PaneBody::Source(s) = &mut pane.body else {
            return;
        };
        s.at = Some(reply);
        let file = s.here().map(|(f, _)| f.to_string());
        let stale = match (&file, &s.counts) {
            (Some(f), Some(c)) => c.file != *f || !c.complete,
            (Some(_), None) => true,
            _ => false,
        };
        if let (Some(file), true) = (file, stale) {
            self.ask(LineCounts { file }, move |reply| {
                Msg::Pane(id, PaneMsg::Source(SourceMsg::Counts { reply }))
            });
        }
    }

    pub(super) fn run_source(&mut self, id: u32, cmd: Command) {
        let Some(pane) = self.pane_ref(id) else {
            return;
        };
        let Some(node) = self.pane_node(pane) else {
            return;
        };
        let what = match cmd {
            Command::SearchNext { .. } => "execution",
            _ => "line",
        };
        let moved = move |reply| Msg::Pane(id, PaneMsg::Source(SourceMsg::Moved { reply, what }));
        let step = |step| LineStep { node, step };
        match cmd {
            Command::SourceNext => self.ask(step(SourceStep::Next), moved),
            Command::SourcePrev => self.ask(step(SourceStep::Prev), moved),
            Command::SourceOver => self.ask(step(SourceStep::Over), moved),
            Command::SourceOut => self.ask(step(SourceStep::Out), moved),
            Command::SearchNext { same_way } => {
                let PaneBody::Source(s) = &pane.body else {
                    return;
                };
                let here = s.here();
                let Some((file, line)) =
                    here.and_then(|(f, l)| Some((f.to_string(), s.selected.or(l)?)))
                else {
                    return;
                };
                let find = FindLine {
                    node,
                    file,
                    line,
                    forward: same_way,
                };
                self.ask(find, moved)
            }
            _ => self.run_pane(id, cmd),
        }
    }

    pub(super) fn on_source(&mut self, id: u32, msg: SourceMsg) {
        let Some(pane) = self.pane_mut(id) else {
            return;
        };
        let view = pane.view;
        let PaneBody::Source(s) = &mut pane.body else {
            return;
        };
        match msg {
            SourceMsg::Counts { reply } => match reply {
                Ok(c) => {
                    pane.note = c.note.clone();
                    s.counts = Some(c);
                }
                Err(e) => pane.note = Some(e),
            },
            SourceMsg::PickLine { line } => {
                s.selected = Some(line);
                s.hits = None;
                let Some((file, _)) = s.here() else { return };
                let file = file.to_string();
                self.focus = Focus::Pane(id);
                self.ask_hits(id, file, line, None);
            }
            SourceMsg::MoreHits => {
                let (Some(line), Some((file, _))) = (s.selected, s.here()) else {
                    return;
                };
                let after = s
                    .hits
                    .as_ref()
                    .and_then(|h| h.hits.last())
                    .map(|h| h.node.node);
                let file = file.to_string();
                self.ask_hits(id, file, line, after);
            }
            SourceMsg::Hits { line, reply } => match reply {
                Ok(h) if s.selected == Some(line) => match &mut s.hits {
                    Some(old) => {
                        old.hits.extend(h.hits);
                        old.more = h.more;
                    }
                    None => s.hits = Some(h),
                },
                Err(e) => pane.note = Some(e),
                // Another line was picked meanwhile.
                Ok(_) => {}
            },
            SourceMsg::PickHit { node } => {
                self.move_to(view, Locate::Node(node), true);
            }
            SourceMsg::Moved { reply, what } => match reply {
                Ok(Some(node)) => {
                    pane.note = None;
                    self.on_moved(view, Ok(Some(node)), true);
                }
                Ok(None) => {
                    pane.note = Some(match what {
                        "execution" => t("No other execution of this line that way.").into(),
                        _ => t("No source line that way.").into(),
                    })
                }
                Err(e) => pane.note = Some(e),
            },
        }
    }

    fn ask_hits(&mut self, id: u32, file: String, line: u32, after: Option<NodeId>) {
        self.ask(
            LineHits {
                file,
                line,
                after,
                count: HITS_PAGE,
            },
            move |reply| Msg::Pane(id, PaneMsg::Source(SourceMsg::Hits { line, reply })),
        );
    }

    /// The files source panes show and have no text for (DWARF paths),
    /// for a page that can fetch them (`&src=`).
    pub fn wanted_sources(&self) -> Vec<String> {
        self.panes
            .iter()
            .filter_map(|p| match &p.body {
                PaneBody::Source(s) => s.here().map(|(f, _)| f.to_string()),
                _ => None,
            })
            .filter(|f| self.sources.find(f).is_none())
            .collect()
    }

    /// A file could not be had (`&src=` fetched nothing): the source panes
    /// say so.
    pub(super) fn source_missing(&mut self, why: String) {
        for p in &mut self.panes {
            if matches!(p.body, PaneBody::Source(_)) {
                p.note = Some(why.clone());
            }
        }
    }

    /// The text of the file a source pane shows, and its note when there
    /// is none.
    pub fn source_text(&self, pane: &SourcePane) -> Result<Rc<str>, String> {
        if let Some(b) = &pane.browse {
            return self.sources.find(&b.file).ok_or_else(|| {
                tf(
                    "Source file {} is needed: choose its folder (or the file) to see it.",
                    &[&b.file],
                )
            });
        }
        match &pane.at {
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
                let Some((file, _)) = pane.here() else {
                    return Err(t("The compiler tied this instruction to no line.").into());
                };
                self.sources.find(file).ok_or_else(|| {
                    tf(
                        "Source file {} is needed: choose its folder (or the file) to see it.",
                        &[&file],
                    )
                })
            }
        }
    }
}
