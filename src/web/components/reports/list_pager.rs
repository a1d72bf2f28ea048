//! What the EP and program-flow lists share on the page: their messages,
//! carrying `model::paged_list`'s questions to the report worker, the
//! earlier/later buttons, and how the clicked row is marked.

use yew::prelude::*;

use crate::model::paged_list::{ListMsg, PagedList, Pager, LIST_PAGE};
use crate::web::page::i18n::{t, tf};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::ReportQuestion;

/// A list's messages; `P` is its page.
pub enum Msg<P> {
    /// The page's language changed: draw again.
    Lang,
    List(ListMsg<P>),
}

/// Asks the worker for the pages `list` wants (`query(offset, limit)`).
pub(super) fn ask<C, P, Q>(
    list: &mut PagedList<P>,
    ctx: &Context<C>,
    client: &ReportClient,
    query: fn(u64, u32) -> Q,
) where
    C: Component<Message = Msg<P>>,
    P: 'static,
    Q: ReportQuestion<Answer = P> + 'static,
{
    for offset in list.take_asks() {
        let link = ctx.link().clone();
        client.ask(query(offset, LIST_PAGE as u32), move |reply| {
            link.send_message(Msg::List(ListMsg::Page(offset, reply)))
        });
    }
}

/// Handles a list's message; returns whether to render.
pub(super) fn update<C, P, Q>(
    list: &mut PagedList<P>,
    ctx: &Context<C>,
    msg: Msg<P>,
    (client, on_jump): (&ReportClient, &Callback<u64>),
    query: fn(u64, u32) -> Q,
) -> bool
where
    C: Component<Message = Msg<P>>,
    P: 'static,
    Q: ReportQuestion<Answer = P> + 'static,
{
    let Msg::List(msg) = msg else {
        return true;
    };
    if let ListMsg::Jump(line) = msg {
        on_jump.emit(line);
    }
    let changed = list.update(msg);
    ask(list, ctx, client, query);
    changed
}

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
    let Some(p) = Pager::of(offset, shown, total, page) else {
        return html! {};
    };
    let go = |to: Option<u64>| {
        let on_offset = on_offset.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(to) = to {
                on_offset.emit(to)
            }
        })
    };
    html! {
        <div data-testid={format!("{id}-pager")} style="display:flex;gap:0.4rem;align-items:center;">
            <button data-testid={format!("{id}-earlier")} disabled={p.earlier.is_none()} onclick={go(p.earlier)}>{ t("Earlier") }</button>
            <span>{ tf("{}–{} of {}", &[&p.first, &p.last, &p.total]) }</span>
            <button data-testid={format!("{id}-later")} disabled={p.later.is_none()} onclick={go(p.later)}>{ t("Later") }</button>
        </div>
    }
}
