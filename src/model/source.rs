//! The source text the page keeps for its source panes (the pane itself
//! is `src/panes/source/`): the files the person gives
//! ([`super::Model::add_source_files`]), matched to the DWARF's paths by
//! the longest common suffix, the URLs a page with `&src=` fetches them
//! from, and the line a source pane is told to show.

use std::rc::Rc;

/// A file and line chosen elsewhere (the Coverage tab's "show this
/// line"), which a source pane shows instead of its position's until the
/// position moves: the message the model sends the pane.
#[derive(Clone, Debug, PartialEq)]
pub struct ShowLine {
    /// The file, as the DWARF names it.
    pub file: String,
    /// The line, 1-based.
    pub line: u32,
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
