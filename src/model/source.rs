//! The source pane (`s`): the file and line of a view's position from the
//! image's DWARF, each line's execution count, a clicked line's
//! executions (`n`/`N` step through them), and stepping by source line
//! (`j`/`k`, `o` over a call, `u` out of it). The source text is the
//! person's: files they give ([`super::Model::add_source_files`]) are matched to
//! the DWARF's paths by the longest common suffix; without one, the pane
//! names the file it wants. Its state; what the model does with it is
//! `source_following.rs`'s.

use std::rc::Rc;

use super::{Answer, Moved};
use tarmac_lens_core::browse::protocol::{FileCountsReply, HitsReply, NodeId, SourceReply};

/// Executions listed per page of a line's list.
pub(super) const HITS_PAGE: u32 = 200;

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
    pub(super) files: Vec<(String, Rc<str>)>,
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
