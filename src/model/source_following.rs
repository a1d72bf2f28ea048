//! The source commands: `s`, the Coverage tab's "show this line", the
//! files the person gives and those a page fetches (`&src=`). The source
//! pane's state is its folder's (`src/panes/source/`); the model opens and
//! tells it by the registry's name for its kind.

use super::layout::{Shown, Slot};
use super::registry::Opens;
use super::source::ShowLine;
use super::{Focus, Model, PaneBody};

/// The kind of pane these commands are about, by its registry name.
const SOURCE: &str = "source";

impl Model {
    /// `s`: shows the active view's source pane, or hides the one shown.
    pub(super) fn toggle_source(&mut self) {
        let Some(slot) = Slot::named(SOURCE) else {
            return;
        };
        match self.pane_of(slot).map(|p| p.id) {
            Some(id) => self.close_pane(id),
            None => {
                if let Some(id) = self.add_source(self.active_view()) {
                    self.focus = Focus::Pane(id);
                }
            }
        }
    }

    /// Opens a source pane following `view`, and asks what fills it.
    pub(super) fn add_source(&mut self, view: u32) -> Option<u32> {
        let slot = Slot::named(SOURCE)?;
        let Opens::Shown { make } = slot.entry().opens else {
            return None;
        };
        let state = make();
        let id = self.push_pane(view, PaneBody { slot, state });
        self.refresh_pane(id);
        Some(id)
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
            .find(|p| p.view == view && p.body.slot().name() == SOURCE)
            .map(|p| p.id);
        let id = match existing {
            Some(id) => {
                self.into_view = Some(Shown::Pane(id));
                id
            }
            None => match self.add_source(view) {
                Some(id) => id,
                None => return,
            },
        };
        let Some(state) = self.pane_mut(id).map(|p| &mut p.body.state) else {
            return;
        };
        state.update(Box::new(ShowLine { file, line }));
        self.focus = Focus::Pane(id);
        self.fetch_more(id);
    }

    /// View `view` moved: the panes following it go back to its position
    /// (`PaneState::moved`).
    pub(super) fn panes_moved(&mut self, view: u32) {
        for p in &mut self.panes {
            if p.lock.is_none() && p.view == view {
                p.body.state.moved();
            }
        }
    }

    /// The files panes show and have no text for (DWARF paths), for a
    /// page that can fetch them (`&src=`).
    pub fn wanted_sources(&self) -> Vec<String> {
        self.panes
            .iter()
            .filter_map(|p| p.body.state.source_file().map(str::to_string))
            .filter(|f| self.sources.find(f).is_none())
            .collect()
    }

    /// A file could not be had (`&src=` fetched nothing): the source panes
    /// say so.
    pub(super) fn source_missing(&mut self, why: String) {
        for p in &mut self.panes {
            if p.body.slot().name() == SOURCE {
                p.note = Some(why.clone());
            }
        }
    }
}
