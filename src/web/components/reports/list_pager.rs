//! What the EP and program-flow lists share: their page size, the
//! earlier/later buttons, and how the row clicked last is marked.

use yew::prelude::*;

use crate::web::i18n::{t, tf};

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
