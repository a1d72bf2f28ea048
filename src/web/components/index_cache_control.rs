//! The index cache on the drop page: how many indexes are kept in the
//! browser (and their size), and a button to clear them.

use yew::prelude::*;

use crate::web::page::format;
use crate::web::page::i18n::{number, t, tf, use_lang};
use crate::web::reading::index_cache;

#[derive(Clone, PartialEq)]
enum Listing {
    Reading,
    Entries(Vec<index_cache::Entry>),
    Unavailable(String),
}

#[function_component(IndexCacheControl)]
pub fn index_cache_control() -> Html {
    use_lang();
    let listing = use_state(|| Listing::Reading);
    let refresh = {
        let listing = listing.clone();
        Callback::from(move |_: ()| {
            let listing = listing.clone();
            wasm_bindgen_futures::spawn_local(async move {
                listing.set(match index_cache::list().await {
                    Ok(entries) => Listing::Entries(entries),
                    Err(e) => Listing::Unavailable(e),
                });
            });
        })
    };
    {
        let refresh = refresh.clone();
        use_effect_with((), move |_| refresh.emit(()));
    }
    let clear = {
        let listing = listing.clone();
        Callback::from(move |_: MouseEvent| {
            let listing = listing.clone();
            let refresh = refresh.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match index_cache::clear().await {
                    Ok(()) => refresh.emit(()),
                    Err(e) => listing.set(Listing::Unavailable(e)),
                }
            });
        })
    };
    let body = match &*listing {
        Listing::Reading => html! { { t("Cached indexes: …") } },
        Listing::Unavailable(e) => html! { { tf("No index cache in this browser ({}).", &[e]) } },
        Listing::Entries(entries) => {
            let total: u64 = entries.iter().map(|e| e.bytes).sum();
            html! {
                <>
                    <span
                        data-testid="index-cache-count"
                        data-count={entries.len().to_string()}
                        title={entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join("\n")}
                    >
                        { tf("Cached indexes: {} ({})", &[&number(entries.len() as u64), &format::bytes(total)]) }
                    </span>
                    if !entries.is_empty() {
                        { " — " }
                        <button data-testid="index-cache-clear" onclick={clear}>{ t("Clear") }</button>
                    }
                </>
            }
        }
    };
    html! {
        <p class="index-cache hint" data-testid="index-cache" style="margin:0;font-size:0.85rem;">
            { body }
        </p>
    }
}
