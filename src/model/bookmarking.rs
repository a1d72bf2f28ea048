//! The browser's side of bookmarks (`model::bookmarks` holds the list and
//! its encodings): the keys (`b`, `B`, `'`, `"`), the gutter's click, the
//! note's prompt, jumps from the pane, and the questions that fill in a
//! bookmark's time and function. Every change is handed to the page to
//! keep ([`Effect::Bookmarks`]) and written to the URL's fragment.

use super::bookmarks::{self, Bookmark};
use super::{Answer, Effect, Model, Moved, Msg, PromptFor};
use crate::i18n::{t, tf, tn};
use crate::model::keys::Command;
use tarmac_lens_core::protocol::{Locate, Symbolize};

/// The bookmarks' messages: the pane's and gutter's input, what the page
/// kept or the person imported, and the session's answers.
pub enum BookmarkMsg {
    /// A row's gutter: bookmark this line (a node's first), or unmark it.
    Toggle {
        /// The row's line.
        line: u64,
    },
    /// The pane: go to a bookmark.
    Jump {
        /// The bookmark's line.
        line: u64,
    },
    /// The pane: a bookmark's note, edited.
    Note {
        /// The bookmark's line.
        line: u64,
        /// The new note (empty: none).
        note: String,
    },
    /// The pane: remove a bookmark.
    Remove {
        /// The bookmark's line.
        line: u64,
    },
    /// What the page kept for this trace (the JSON export's form).
    Stored(String),
    /// A JSON export the person imported.
    Import(String),
    /// The node at a bookmark's line: its first line and time.
    Located {
        /// The bookmark's line, as it was asked for.
        line: u64,
        /// The node, if the trace has the line (indexed so far).
        reply: Moved,
    },
    /// The symbol at a bookmark's PC: its function.
    Named {
        /// The bookmark's line.
        line: u64,
        /// The symbol (`main + 0x8`), empty for none.
        reply: Answer<Vec<String>>,
    },
}

impl Model {
    /// The bookmark commands; false if `cmd` is not one.
    pub(super) fn run_bookmarks(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::ToggleBookmark => {
                let view = self.active_view();
                if let Some(line) = self
                    .view_ref(view)
                    .and_then(|v| v.cursor)
                    .map(|c| c.first_line)
                {
                    self.toggle_bookmark(line);
                }
            }
            Command::NextBookmark { forward } => self.next_bookmark(forward),
            _ => return false,
        }
        true
    }

    /// Bookmarks `line` and asks for its note, or removes its bookmark.
    fn toggle_bookmark(&mut self, line: u64) {
        if self.bookmarks.remove(line).is_some() {
            self.status = Some(tf(
                "Bookmark at line {} removed.",
                &[&crate::i18n::number(line)],
            ));
        } else {
            // The cursor's time is known at once; anything else is asked.
            let time = self
                .views
                .iter()
                .filter_map(|v| v.cursor)
                .find(|c| c.first_line == line)
                .map(|c| c.time);
            self.bookmarks.add(Bookmark {
                time,
                ..Bookmark::at(line)
            });
            self.resolve_bookmark(line);
            self.prompt = Some(PromptFor::BookmarkNote { line });
        }
        self.bookmarks_changed();
    }

    fn next_bookmark(&mut self, forward: bool) {
        let view = self.active_view();
        let from = self
            .view_ref(view)
            .and_then(|v| v.cursor)
            .map_or(0, |c| c.first_line);
        let found = self.bookmarks.next_from(from, forward).map(|b| b.line);
        match found {
            Some(line) => self.move_to(view, Locate::Line(line), true),
            None if self.bookmarks.list.is_empty() => {
                self.status = Some(t("No bookmarks: b marks the position.").into())
            }
            None => {
                self.status = Some(
                    t(if forward {
                        "No later bookmark."
                    } else {
                        "No earlier bookmark."
                    })
                    .into(),
                )
            }
        }
    }

    /// The prompt's answer: the note of a bookmark just set (empty: none).
    pub(super) fn set_bookmark_note(&mut self, line: u64, note: &str) {
        if let Some(b) = self.bookmarks.get_mut(line) {
            b.note = note.trim().to_string();
            self.bookmarks_changed();
        }
    }

    pub(super) fn on_bookmark(&mut self, msg: BookmarkMsg) -> bool {
        match msg {
            BookmarkMsg::Toggle { line } => self.toggle_bookmark(line),
            BookmarkMsg::Jump { line } => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(view, Locate::Line(line), true);
            }
            BookmarkMsg::Note { line, note } => self.set_bookmark_note(line, &note),
            BookmarkMsg::Remove { line } => {
                if self.bookmarks.remove(line).is_some() {
                    self.bookmarks_changed();
                }
            }
            BookmarkMsg::Stored(text) => match bookmarks::from_json(&text) {
                Ok((found, bad)) => {
                    self.take_bookmarks(found);
                    if !bad.is_empty() {
                        self.status = Some(tf(
                            "Some bookmarks kept for this trace could not be read: {}",
                            &[&bad.join("; ")],
                        ));
                    }
                }
                Err(why) => {
                    self.status = Some(tf(
                        "The bookmarks kept for this trace could not be read: {}",
                        &[&why],
                    ))
                }
            },
            BookmarkMsg::Import(text) => match bookmarks::from_json(&text) {
                Ok((found, bad)) => {
                    let read = found.len();
                    let added = self.take_bookmarks(found);
                    let mut said = tn(
                        read as u64,
                        "Imported {} bookmark ({} new).",
                        "Imported {} bookmarks ({} new).",
                        &[&read, &added],
                    );
                    if !bad.is_empty() {
                        said.push(' ');
                        said.push_str(&tf("Not read: {}", &[&bad.join("; ")]));
                    }
                    self.status = Some(said);
                }
                Err(why) => self.status = Some(tf("Cannot import the bookmarks: {}", &[&why])),
            },
            BookmarkMsg::Located { line, reply } => return self.on_bookmark_located(line, reply),
            BookmarkMsg::Named { line, reply } => {
                // Without a name the bookmark keeps what it had.
                let Ok(names) = reply else {
                    return false;
                };
                // `main + 0x8`: the function is `main`.
                let name = names
                    .first()
                    .map_or("", |n| n.split(" + ").next().unwrap_or(n));
                match self.bookmarks.get_mut(line) {
                    Some(b) if b.function != name => b.function = name.to_string(),
                    _ => return false,
                }
                self.effects.push(Effect::Bookmarks);
            }
        }
        true
    }

    /// Merges bookmarks from elsewhere and asks what they lack; how many
    /// are new.
    fn take_bookmarks(&mut self, found: Vec<Bookmark>) -> usize {
        let added = self.bookmarks.merge(found);
        self.resolve_bookmarks(false);
        if added > 0 {
            self.bookmarks_changed();
        }
        added
    }

    /// The bookmarks in a fragment (at the start, or the person typed or
    /// followed one): merged, what could not be read said.
    pub(super) fn bookmarks_from_hash(&mut self, hash: &str) {
        let Some(value) = bookmarks::in_hash(hash) else {
            return;
        };
        let (found, bad) = bookmarks::from_fragment(value);
        if self.bookmarks.merge(found) > 0 {
            self.effects.push(Effect::Bookmarks);
        }
        self.resolve_bookmarks(false);
        if !bad.is_empty() {
            self.status = Some(tf(
                "Some bookmarks in the URL could not be read: {}",
                &[&bad.join("; ")],
            ));
        }
    }

    /// Asks the time and function of the bookmarks without a time, or of
    /// all (`all`: an ELF came, and with it function names).
    pub(super) fn resolve_bookmarks(&mut self, all: bool) {
        let lines: Vec<u64> = self
            .bookmarks
            .list
            .iter()
            .filter(|b| all || b.time.is_none())
            .map(|b| b.line)
            .collect();
        for line in lines {
            self.resolve_bookmark(line);
        }
    }

    fn resolve_bookmark(&mut self, line: u64) {
        if !self.bookmark_asks.insert(line) {
            return;
        }
        self.ask(Locate::Line(line), move |reply| {
            Msg::Bookmark(BookmarkMsg::Located { line, reply })
        });
    }

    fn on_bookmark_located(&mut self, line: u64, reply: Moved) -> bool {
        self.bookmark_asks.remove(&line);
        let node = match reply {
            Ok(Some(node)) => node,
            // Past the end of a trace indexed to its end (a link made for
            // another trace): said, and not kept to be carried on.
            Ok(None) if self.complete => {
                if self.bookmarks.remove(line).is_some() {
                    self.status = Some(tf(
                        "The bookmark at line {} was removed: the trace has no such line.",
                        &[&crate::i18n::number(line)],
                    ));
                    self.bookmarks_changed();
                }
                return true;
            }
            // Not indexed yet: the next progress asks again.
            _ => return false,
        };
        let Some(mut b) = self.bookmarks.remove(line) else {
            return false;
        };
        // A line inside an instruction's lines (a hand-made link) is that
        // instruction's bookmark, so the gutter marks it.
        b.line = node.first_line;
        b.time = Some(node.time);
        self.bookmarks.merge(vec![b]);
        if let Some(pc) = node.pc {
            let line = node.first_line;
            self.ask(Symbolize { addrs: vec![pc] }, move |reply| {
                Msg::Bookmark(BookmarkMsg::Named { line, reply })
            });
        }
        if node.first_line != line {
            self.bookmarks_changed();
        } else {
            self.effects.push(Effect::Bookmarks);
        }
        true
    }

    /// The list changed: the page keeps it, and the URL shows it.
    fn bookmarks_changed(&mut self) {
        self.effects.push(Effect::Bookmarks);
        if !self.detached {
            let hash = bookmarks::hash_with(self.position_hash.as_deref(), &self.bookmarks.list);
            self.effects.push(Effect::Fragment(hash));
        }
    }

    /// The fragment for a position, with the bookmarks.
    pub(super) fn hash_for_position(&mut self, position: String) -> String {
        let hash = bookmarks::hash_with(Some(&position), &self.bookmarks.list);
        self.position_hash = Some(position);
        hash
    }
}
