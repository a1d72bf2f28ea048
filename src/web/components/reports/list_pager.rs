//! What the EP and program-flow lists share: their page size, their state
//! and messages (the page shown, asked of the report worker; the row
//! clicked last), the earlier/later buttons, and how the clicked row is
//! marked.

use yew::prelude::*;

use crate::web::page::i18n::{t, tf};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::ReportQuestion;

/// A list's messages; `P` is its page.
pub enum ListMsg<P> {
    /// The page's language changed: draw again.
    Lang,
    Offset(u64),
    Page(u64, Result<P, String>),
    /// A row was clicked: go to its line and mark it.
    Jump(u64),
}

/// A list shown a page at a time from the report worker.
pub(super) struct PagedList<P> {
    /// The line of the row last clicked.
    pub selected: Option<u64>,
    pub offset: u64,
    pub page: Option<P>,
    pub error: Option<String>,
}

impl<P: 'static> PagedList<P> {
    /// A list whose first page has been asked for (`query(offset, limit)`).
    pub fn new<C, Q>(ctx: &Context<C>, client: &ReportClient, query: fn(u64, u32) -> Q) -> Self
    where
        C: Component<Message = ListMsg<P>>,
        Q: ReportQuestion<Answer = P> + 'static,
    {
        let list = PagedList {
            selected: None,
            offset: 0,
            page: None,
            error: None,
        };
        list.ask(ctx, client, query);
        list
    }

    fn ask<C, Q>(&self, ctx: &Context<C>, client: &ReportClient, query: fn(u64, u32) -> Q)
    where
        C: Component<Message = ListMsg<P>>,
        Q: ReportQuestion<Answer = P> + 'static,
    {
        let offset = self.offset;
        let link = ctx.link().clone();
        client.ask(query(offset, LIST_PAGE as u32), move |reply| {
            link.send_message(ListMsg::Page(offset, reply))
        });
    }

    /// Handles a list message; returns whether to render.
    pub fn update<C, Q>(
        &mut self,
        ctx: &Context<C>,
        msg: ListMsg<P>,
        (client, on_jump): (&ReportClient, &Callback<u64>),
        query: fn(u64, u32) -> Q,
    ) -> bool
    where
        C: Component<Message = ListMsg<P>>,
        Q: ReportQuestion<Answer = P> + 'static,
    {
        match msg {
            ListMsg::Lang => {}
            ListMsg::Offset(offset) => {
                self.offset = offset;
                self.ask(ctx, client, query);
            }
            ListMsg::Jump(line) => {
                self.selected = Some(line);
                on_jump.emit(line);
            }
            ListMsg::Page(offset, reply) => {
                if offset != self.offset {
                    return false;
                }
                match reply {
                    Ok(p) => self.page = Some(p),
                    Err(e) => self.error = Some(e),
                }
            }
        }
        true
    }
}

/// Rows per page of the lists.
pub(super) const LIST_PAGE: u64 = 200;

/// A list row's style: the row last clicked is outlined, as the call
/// tree's selected row is.
pub(super) fn selected_style(selected: bool) -> &'static str {
    if selected {
        "cursor:pointer;outline:2px solid #38f;outline-offset:-2px;"
    } else {
        "cursor:pointer;"
    }
}

/// Earlier/later buttons of a list paged by `page` rows, showing `shown`
/// rows from `offset` of `total`.
pub(super) fn pager(
    id: &str,
    (offset, shown, total): (u64, u64, u64),
    page: u64,
    on_offset: Callback<u64>,
) -> Html {
    if total <= shown {
        return html! {};
    }
    let earlier = on_offset.clone();
    let back = offset.saturating_sub(page);
    let next = offset + shown;
    html! {
        <div data-testid={format!("{id}-pager")} style="display:flex;gap:0.4rem;align-items:center;">
            <button data-testid={format!("{id}-earlier")} disabled={offset == 0} onclick={Callback::from(move |_| earlier.emit(back))}>{ t("Earlier") }</button>
            <span>{ tf("{}–{} of {}", &[&(offset + 1), &(offset + shown), &total]) }</span>
            <button data-testid={format!("{id}-later")} disabled={next >= total} onclick={Callback::from(move |_| on_offset.emit(next))}>{ t("Later") }</button>
        </div>
    }
}
