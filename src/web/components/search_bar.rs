//! The search bar (`/` and `?`): pattern, plain or regex, record kind and
//! line range; the live count and the results, a virtualized list (up to
//! ten thousand rows) where a click moves the view to the line.

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

pub use crate::model::search::{SearchForm, SearchStatus};

use crate::web::page::format::thousands;
use crate::web::page::i18n::{t, tf, tn, use_lang};
use tarmac_lens_core::{KindFilter, SearchHitView};

#[derive(Properties, PartialEq)]
pub struct SearchBarProps {
    pub form: SearchForm,
    pub forward: bool,
    pub status: SearchStatus,
    pub hits: Rc<Vec<SearchHitView>>,
    /// The result the view is at.
    pub current: Option<usize>,
    /// Bumped to put the keyboard in the pattern field (`/` pressed again).
    pub focus_seq: u64,
    /// Bumped per search: the list starts again at its top.
    pub generation: u32,
    pub on_submit: Callback<SearchForm>,
    pub on_close: Callback<()>,
    pub on_pick: Callback<usize>,
}

const KINDS: [(Option<KindFilter>, &str, &str); 5] = [
    (None, "all", "all lines"),
    (
        Some(KindFilter::Instructions),
        "instructions",
        "instructions",
    ),
    (Some(KindFilter::Registers), "registers", "registers"),
    (Some(KindFilter::Memory), "memory", "memory"),
    (Some(KindFilter::Events), "events", "events"),
];

const RESULT_PX: f64 = 18.0;
const LIST_ROWS: f64 = 8.0;

fn status_text(s: &SearchStatus, listed: usize) -> String {
    if let Some(e) = &s.error {
        return e.clone();
    }
    if !s.running && !s.done {
        return String::new();
    }
    let count = thousands(s.matches);
    let mut text = if s.done {
        match s.matches {
            0 => t("no match").to_string(),
            1 => t("1 match").to_string(),
            n => tn(n, "{} match", "{} matches", &[&count]),
        }
    } else {
        let pct = (s.done_bytes as f64 * 100.0 / s.total_bytes.max(1) as f64).floor() as u64;
        tn(
            s.matches,
            "{} match so far, {}% searched",
            "{} matches so far, {}% searched",
            &[&count, &pct],
        )
    };
    if (listed as u64) < s.matches {
        text.push_str(&tf(" (the first {} listed)", &[&thousands(listed as u64)]));
    }
    text
}

#[function_component(SearchBar)]
pub fn search_bar(props: &SearchBarProps) -> Html {
    use_lang();
    let pattern = use_node_ref();
    let regex = use_node_ref();
    let ignore_case = use_node_ref();
    let kind = use_node_ref();
    let from = use_node_ref();
    let to = use_node_ref();
    let list = use_node_ref();
    let scroll_top = use_state_eq(|| 0.0f64);
    // The fields start with the last search's, once: the page re-renders
    // the bar often (indexing progress), and typing must survive that, so
    // they are not controlled by the state.
    {
        let (pattern, regex, ignore_case, kind, from, to) = (
            pattern.clone(),
            regex.clone(),
            ignore_case.clone(),
            kind.clone(),
            from.clone(),
            to.clone(),
        );
        let form = props.form.clone();
        use_effect_with((), move |_| {
            let set = |r: &NodeRef, v: &str| {
                if let Some(el) = r.cast::<HtmlInputElement>() {
                    el.set_value(v);
                }
            };
            set(&pattern, &form.pattern);
            set(&from, &form.from);
            set(&to, &form.to);
            if let Some(el) = regex.cast::<HtmlSelectElement>() {
                el.set_value(if form.regex { "regex" } else { "plain" });
            }
            if let Some(el) = ignore_case.cast::<HtmlInputElement>() {
                el.set_checked(form.ignore_case);
            }
            if let Some(el) = kind.cast::<HtmlSelectElement>() {
                let name = KINDS
                    .iter()
                    .find(|k| k.0 == form.kind)
                    .map_or("all", |k| k.1);
                el.set_value(name);
            }
        });
    }
    {
        let pattern = pattern.clone();
        use_effect_with(props.focus_seq, move |_| {
            if let Some(el) = pattern.cast::<HtmlInputElement>() {
                let _ = el.focus();
                el.select();
            }
        });
    }
    {
        let list = list.clone();
        let scroll_top = scroll_top.clone();
        use_effect_with(props.generation, move |_| {
            if let Some(el) = list.cast::<HtmlElement>() {
                el.set_scroll_top(0);
            }
            scroll_top.set(0.0);
        });
    }
    // The current result is kept in view in the list.
    {
        let list = list.clone();
        let scroll_top = scroll_top.clone();
        use_effect_with(props.current, move |current| {
            if let (Some(i), Some(el)) = (current, list.cast::<HtmlElement>()) {
                let y = *i as f64 * RESULT_PX;
                let top = el.scroll_top() as f64;
                let height = LIST_ROWS * RESULT_PX;
                if y < top || y + RESULT_PX > top + height {
                    let new_top = (y - height / 2.0).max(0.0);
                    el.set_scroll_top(new_top as i32);
                    scroll_top.set(new_top);
                }
            }
        });
    }
    let read_form = {
        let (pattern, regex, ignore_case, kind, from, to) = (
            pattern.clone(),
            regex.clone(),
            ignore_case.clone(),
            kind.clone(),
            from.clone(),
            to.clone(),
        );
        move || {
            let value = |r: &NodeRef| {
                r.cast::<HtmlInputElement>()
                    .map(|e| e.value())
                    .unwrap_or_default()
            };
            let kind_name = kind
                .cast::<HtmlSelectElement>()
                .map(|e| e.value())
                .unwrap_or_default();
            SearchForm {
                pattern: value(&pattern),
                regex: regex
                    .cast::<HtmlSelectElement>()
                    .is_some_and(|e| e.value() == "regex"),
                ignore_case: ignore_case
                    .cast::<HtmlInputElement>()
                    .is_some_and(|e| e.checked()),
                kind: KINDS.iter().find(|k| k.1 == kind_name).and_then(|k| k.0),
                from: value(&from),
                to: value(&to),
            }
        }
    };
    let onkeydown = {
        let submit = props.on_submit.clone();
        let close = props.on_close.clone();
        let read_form = read_form.clone();
        Callback::from(move |e: KeyboardEvent| {
            // Typing here is not a browser command.
            e.stop_propagation();
            match e.key().as_str() {
                "Escape" => {
                    e.prevent_default();
                    close.emit(());
                }
                "Enter" => {
                    e.prevent_default();
                    submit.emit(read_form());
                }
                _ => {}
            }
        })
    };
    let onclick_search = {
        let submit = props.on_submit.clone();
        Callback::from(move |_: MouseEvent| submit.emit(read_form()))
    };
    let onscroll = {
        let scroll_top = scroll_top.clone();
        let list = list.clone();
        Callback::from(move |_: Event| {
            if let Some(el) = list.cast::<HtmlElement>() {
                scroll_top.set(el.scroll_top() as f64);
            }
        })
    };
    let hits = &props.hits;
    let first = ((*scroll_top / RESULT_PX).floor() as usize).saturating_sub(2);
    let last = (first + LIST_ROWS as usize + 4).min(hits.len());
    let state = match &props.status {
        s if s.error.is_some() => "error",
        s if s.done => "done",
        s if s.running => "running",
        _ => "idle",
    };
    let label = if props.forward {
        t("Search")
    } else {
        t("Search backwards")
    };
    html! {
        <section class="search-bar" data-testid="search-bar" role="search" aria-label={label}
            style="display:flex;flex-direction:column;gap:0.3rem;padding:0.3rem;border:1px solid #94a3b8;border-radius:0.3rem;"
            {onkeydown}>
            <div style="display:flex;flex-wrap:wrap;gap:0.4rem;align-items:center;">
                <label style="display:flex;gap:0.3rem;align-items:center;flex:1 1 16rem;">
                    <span>{ if props.forward { "/" } else { "?" } }</span>
                    <input ref={pattern} data-testid="search-input" type="text" autocomplete="off" spellcheck="false"
                        aria-label={label}
                        placeholder={t("text to find")}
                        style="flex:1;font-family:ui-monospace,Menlo,Consolas,monospace;" />
                </label>
                <select ref={regex} data-testid="search-mode" aria-label={t("Pattern kind")}>
                    <option value="plain">{ t("plain text") }</option>
                    <option value="regex">{ t("regular expression") }</option>
                </select>
                <label style="display:flex;gap:0.2rem;align-items:center;">
                    <input ref={ignore_case} data-testid="search-ignore-case" type="checkbox" />
                    { t("ignore case") }
                </label>
                <select ref={kind} data-testid="search-kind" aria-label={t("Record kind")}>
                    { for KINDS.iter().map(|(_, value, text)| html! {
                        <option value={*value}>{ t(text) }</option>
                    }) }
                </select>
                <label style="display:flex;gap:0.2rem;align-items:center;">
                    { t("lines") }
                    <input ref={from} data-testid="search-from" type="text" inputmode="numeric" size="8"
                        aria-label={t("first line")} placeholder="1" />
                    { "–" }
                    <input ref={to} data-testid="search-to" type="text" inputmode="numeric" size="8"
                        aria-label={t("last line")} placeholder={t("end")} />
                </label>
                <button data-testid="search-go" onclick={onclick_search}>{ t("Search") }</button>
                <button data-testid="search-close" title="Esc" onclick={props.on_close.reform(|_: MouseEvent| ())}>{ "×" }</button>
            </div>
            <div data-testid="search-status" class={classes!("search-status", props.status.error.is_some().then_some("error"))} aria-live="polite"
                data-state={state} data-matches={props.status.matches.to_string()}>
                { status_text(&props.status, hits.len()) }
            </div>
            if !hits.is_empty() {
                <div ref={list} data-testid="search-results" role="listbox" aria-label={t("Search results")}
                    style={format!("position:relative;overflow:auto;height:{}px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.85rem;", LIST_ROWS * RESULT_PX)}
                    {onscroll}>
                    <div style={format!("height:{}px;", hits.len() as f64 * RESULT_PX)}></div>
                    { for (first..last).map(|i| {
                        let h = &hits[i];
                        let current = props.current == Some(i);
                        let on_pick = props.on_pick.clone();
                        html! {
                            <div
                                key={i.to_string()}
                                class={classes!("search-result", current.then_some("current"))}
                                data-testid="search-result"
                                data-line={h.line.to_string()}
                                role="option"
                                aria-selected={current.to_string()}
                                style={format!("position:absolute;left:0;right:0;top:{}px;height:{RESULT_PX}px;line-height:{RESULT_PX}px;white-space:pre;overflow:hidden;cursor:pointer;{}", i as f64 * RESULT_PX, if current { "background:rgba(59,130,246,0.25);" } else { "" })}
                                onclick={Callback::from(move |_: MouseEvent| on_pick.emit(i))}
                            >
                                <span class="search-line" style="display:inline-block;min-width:6ch;text-align:right;margin-right:1ch;opacity:0.7;">{ h.line.to_string() }</span>
                                { snippet(h) }
                            </div>
                        }
                    }) }
                </div>
            }
        </section>
    }
}

/// A hit's text with its match marked (as text: it comes from the trace).
fn snippet(h: &SearchHitView) -> Html {
    let text = &h.text;
    let start = (h.start.saturating_sub(h.text_from) as usize).min(text.len());
    let end = (h.end.saturating_sub(h.text_from) as usize).clamp(start, text.len());
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return html! { { text.clone() } };
    }
    html! {
        <>
            { &text[..start] }
            <mark>{ &text[start..end] }</mark>
            { &text[end..] }
        </>
    }
}
