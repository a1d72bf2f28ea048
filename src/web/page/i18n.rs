//! The page's language: detected from the person's choice (kept in
//! `localStorage`) or the browser's languages, switched by
//! [`LanguageSwitch`]; components re-render on a change through
//! [`use_lang`] (function components) or a [`LangWatch`] (struct
//! components): Yew draws a child again only when its props change, and the
//! language is not a prop, so a component with neither keeps the language
//! it was first drawn in (`tests/i18n_catalogue.rs` holds every component to
//! one of them). The texts and catalogues themselves are UI-free
//! (`crate::i18n`, re-exported here).

use yew::prelude::*;

pub use crate::i18n::*;

/// Where the person's choice is kept.
const STORAGE_KEY: &str = "tarmac-lens.lang";

/// Makes the detected language current: called once as the page starts.
pub fn init() {
    set_current(detect());
}

/// The stored choice, else the first of the browser's languages we have.
fn detect() -> Lang {
    if let Some(lang) = super::local_store::get(STORAGE_KEY).and_then(|tag| Lang::from_tag(&tag)) {
        return lang;
    }
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else {
        return Lang::En;
    };
    navigator
        .languages()
        .iter()
        .filter_map(|v| v.as_string())
        .chain(navigator.language())
        .find_map(|tag| Lang::from_tag(&tag))
        .unwrap_or_default()
}

/// Makes `lang` the page's language and remembers the choice.
pub fn set(lang: Lang) {
    set_current(lang);
    let _ = super::local_store::set(STORAGE_KEY, Some(lang.code()));
    sync_document(lang);
}

/// `<html lang>` follows the language (screen readers, hyphenation).
pub fn sync_document(lang: Lang) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.code());
    }
}

/// The language, from the page's context: a component that shows text
/// calls this so that it re-renders when the language changes.
#[hook]
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_else(current)
}

/// A struct component's hold on the page's language, kept for its life:
/// when the language changes it sends the component `msg()`, whose update
/// returns `true` so that it is drawn again in the new language.
pub struct LangWatch {
    _handle: Option<ContextHandle<Lang>>,
}

impl LangWatch {
    pub fn new<C: Component>(ctx: &Context<C>, msg: impl Fn() -> C::Message + 'static) -> Self {
        let changed = ctx.link().callback(move |_: Lang| msg());
        LangWatch {
            _handle: ctx.link().context::<Lang>(changed).map(|(_, h)| h),
        }
    }
}

/// The language switch (in the page header).
#[derive(Properties, PartialEq)]
pub struct LanguageSwitchProps {
    pub lang: Lang,
    pub on_change: Callback<Lang>,
}

#[function_component(LanguageSwitch)]
pub fn language_switch(props: &LanguageSwitchProps) -> Html {
    let onchange = props.on_change.reform(|e: Event| {
        e.target_dyn_into::<web_sys::HtmlSelectElement>()
            .and_then(|s| Lang::from_tag(&s.value()))
            .unwrap_or_default()
    });
    html! {
        <select class="language" data-testid="language" aria-label={t("Language")} title={t("Language")} style="margin-left:auto;" {onchange}>
            { for Lang::ALL.iter().map(|l| html! {
                <option value={l.code()} lang={l.code()} selected={*l == props.lang}>{ l.name() }</option>
            }) }
        </select>
    }
}
