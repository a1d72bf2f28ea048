//! The browser's bookmarks pane and where the page keeps each trace's
//! bookmarks (`page::bookmark_store`); the list itself is the model's
//! (`model::bookmarks`).

use yew::prelude::*;

use super::Browser;
use crate::i18n::tf;
use crate::model::keys::Command;
use crate::model::layout::Slot;
use crate::model::{BookmarkMsg, Msg, TraceView};
use crate::web::components::bookmarks_pane::BookmarksPane;

impl Browser {
    pub(super) fn view_bookmarks(&self, ctx: &Context<Self>, v: &TraceView) -> Html {
        let link = ctx.link();
        let bookmark =
            |m: fn(u64) -> BookmarkMsg| link.callback(move |line| Msg::Bookmark(m(line)));
        html! {
            <BookmarksPane
                list={self.model.bookmarks.list.clone()}
                cursor_line={v.cursor.map(|c| c.first_line)}
                trace_name={self.client.report_inputs().0.name().to_string()}
                on_jump={bookmark(|line| BookmarkMsg::Jump { line })}
                on_remove={bookmark(|line| BookmarkMsg::Remove { line })}
                on_note={link.callback(|(line, note)| Msg::Bookmark(BookmarkMsg::Note { line, note }))}
                on_import={link.callback(|text| Msg::Bookmark(BookmarkMsg::Import(text)))}
                on_close={link.callback(|_| Msg::Run(Command::ToggleBookmarks))}
                tools={self.area_tools(ctx, Slot::BOOKMARKS)}
            />
        }
    }

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
