//! The source pane (`s`): the file and line of a view's position from the
//! image's DWARF, each line's execution count, a clicked line's
//! executions (`n`/`N` step through them), and stepping by source line
//! (`j`/`k`, `o` over a call, `u` out of it). The source text is the
//! person's: files they give ([`Model::add_source_files`]) are matched to
//! the DWARF's paths by the longest common suffix; without one, the pane
//! names the file it wants.

use std::rc::Rc;

use super::{Answer, Focus, Model, Moved, Msg, PaneBody, PaneMsg};
use crate::i18n::{t, tf};
use crate::model::keys::Command;
use tarmac_lens_core::browse::protocol::{
    FileCountsReply, FindLine, HitsReply, LineCounts, LineHits, LineStep, Locate, NodeId,
    SourceReply, SourceStep,
};

/// Executions listed per page of a line's list.
const HITS_PAGE: u32 = 200;

/// What a source pane shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourcePane {
    /// The frames at the position, as the worker answered.
    pub at: Option<SourceReply>,
    /// The file's per-line counts (the file of the innermost frame).
    pub counts: Option<FileCountsReply>,
    /// The line whose executions are listed, and the list.
    pub selected: Option<u32>,
    /// The executions listed of the selected line, as far as fetched.
    pub hits: Option<HitsReply>,
    /// A file and line chosen elsewhere (the Coverage tab), shown instead
    /// of the position's until the position moves.
    pub browse: Option<Browse>,
}

/// A file and line a source pane shows instead of its position's.
#[derive(Clone, Debug, PartialEq)]
pub struct Browse {
    /// The file, as the DWARF names it.
    pub file: String,
    /// The line, 1-based.
    pub line: u32,
}

impl SourcePane {
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
}

/// The source files the person gave, by path as they gave it (a folder's
/// relative paths, or a name).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceFiles {
    files: Vec<(String, Rc<str>)>,
}

impl SourceFiles {
    /// The text for the DWARF's `path`: the given file sharing the longest
    /// run of trailing path components with it (at least the name).
    pub fn find(&self, path: &str) -> Option<Rc<str>> {
        let want: Vec<&str> = components(path);
        self.files
            .iter()
            .map(|(p, text)| {
                let have = components(p);
                let common = want
                    .iter()
                    .rev()
                    .zip(have.iter().rev())
                    .take_while(|(a, b)| a == b)
                    .count();
                (common, text)
            })
            .filter(|(common, _)| *common > 0)
            .max_by_key(|(common, _)| *common)
            .map(|(_, text)| text.clone())
    }

    /// How many files were given.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// No file was given.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Where a DWARF path may be below a `&src=` base URL, longest tail
/// first, at most four (URL, path below the base): a site mirrors some
/// tail of the build tree.
pub fn source_urls(base: &str, path: &str) -> Vec<(String, String)> {
    let parts: Vec<&str> = components(path)
        .into_iter()
        .filter(|c| *c != "..")
        .collect();
    let base = base.trim_end_matches('/');
    (1..=parts.len().min(4))
        .rev()
        .map(|k| {
            let tail = parts[parts.len() - k..].join("/");
            (format!("{base}/{tail}"), tail)
        })
        .collect()
}

/// Whether a file name looks like source text the DWARF could name.
pub fn is_source_name(name: &str) -> bool {
    let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    matches!(
        ext.as_str(),
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "s" | "asm" | "inc" | "rs" | "def"
    )
}

fn components(path: &str) -> Vec<&str> {
    path.split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

/// A source pane's own messages.
pub enum SourceMsg {
    /// The file's per-line counts.
    Counts {
        /// The counts.
        reply: Answer<FileCountsReply>,
    },
    /// A line clicked in the gutter or text: list its executions.
    PickLine {
        /// The line clicked.
        line: u32,
    },
    /// A page of a line's executions.
    Hits {
        /// The line they are for: another picked meanwhile drops them.
        line: u32,
        /// The executions, and whether there are more.
        reply: Answer<HitsReply>,
    },
    /// More of the list, after its last.
    MoreHits,
    /// An execution clicked: the view goes there.
    PickHit {
        /// The execution's node.
        node: NodeId,
    },
    /// A step's or a find's answer.
    Moved {
        /// Where it went, if anywhere.
        reply: Moved,
        /// What was looked for (`line` or `execution`), for the note when
        /// nothing is found.
        what: &'static str,
    },
}

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
