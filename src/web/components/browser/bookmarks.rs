//! Where the page keeps each trace's bookmarks (`page::bookmark_store`);
//! the list itself is the model's (`model::bookmarks`), its pane a folder
//! of `src/panes/`.

use super::Browser;
use crate::i18n::tf;
use crate::model::{BookmarkMsg, Msg};

impl Browser {
    /// This trace's kept bookmarks, merged with the URL's (the model has
    /// those already), before the first effects are carried out: saving
    /// the URL's alone first would lose the kept ones.
    pub(super) fn load_bookmarks(&mut self) {
        if self.model.detached {
            return;
        }
        let key = crate::web::page::bookmark_store::key(&self.client.report_inputs().0);
        if let Some(json) = crate::web::page::bookmark_store::load(&key) {
            self.model.update(Msg::Bookmark(BookmarkMsg::Stored(json)));
        }
        self.bookmark_key = Some(key);
    }

    pub(super) fn save_bookmarks(&mut self) {
        let Some(key) = &self.bookmark_key else {
            return;
        };
        let list = &self.model.bookmarks.list;
        let json = (!list.is_empty())
            .then(|| crate::model::bookmarks::to_json(self.client.report_inputs().0.name(), list));
        if let Err(e) = crate::web::page::bookmark_store::save(key, json.as_deref()) {
            self.model.status = Some(tf(
                "The bookmarks could not be kept in this browser ({}); the URL still has them.",
                &[&e],
            ));
        }
    }
}
