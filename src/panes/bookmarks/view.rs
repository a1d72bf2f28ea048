//! The bookmarks pane's render: the page's bookmarks, the active view's
//! marked; the export a download, the import a file picked.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

use crate::model::bookmarks::{to_json, Bookmark};
use crate::model::{BookmarkMsg, Msg};
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{number, t, tf, use_lang};

/// Draws the page's bookmarks; `None` while there is no active view.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let model = cx.model;
    let v = model.view_ref(model.active_view())?;
    let bookmark = |m: fn(u64) -> BookmarkMsg| cx.send.reform(move |line| Msg::Bookmark(m(line)));
    Some(html! {
        <BookmarksPane
            list={model.bookmarks.list.clone()}
            cursor_line={v.cursor.map(|c| c.first_line)}
            trace_name={cx.trace.report_inputs().0.name().to_string()}
            on_jump={bookmark(|line| BookmarkMsg::Jump { line })}
            on_remove={bookmark(|line| BookmarkMsg::Remove { line })}
            on_note={cx.send.reform(|(line, note)| Msg::Bookmark(BookmarkMsg::Note { line, note }))}
            on_import={cx.send.reform(|text| Msg::Bookmark(BookmarkMsg::Import(text)))}
            on_close={cx.on_close()}
            tools={cx.tools.clone()}
        />
    })
}
#[derive(Properties, PartialEq)]
pub struct BookmarksPaneProps {
    pub list: Vec<Bookmark>,
    /// The first line of the active view's position (its bookmark is marked).
    pub cursor_line: Option<u64>,
    /// The trace's name: the export is named after it and says it.
    pub trace_name: AttrValue,
    pub on_jump: Callback<u64>,
    pub on_note: Callback<(u64, String)>,
    pub on_remove: Callback<u64>,
    /// The text of a file picked to import.
    pub on_import: Callback<String>,
    pub on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    #[prop_or_default]
    pub tools: Html,
}

/// Saves `text` as a download named `name`.
fn download(text: &str, name: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&text.into());
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag)
        .map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    let a: web_sys::HtmlAnchorElement = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into().ok())
        .ok_or("no document")?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The download has taken the bytes by the time this runs.
    crate::web::shared::timing::after_ms(60_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    Ok(())
}

#[function_component(BookmarksPane)]
pub fn bookmarks_pane(props: &BookmarksPaneProps) -> Html {
    use_lang();
    let close = props.on_close.reform(|_: MouseEvent| ());
    let export = {
        let (list, name) = (props.list.clone(), props.trace_name.clone());
        Callback::from(move |_: MouseEvent| {
            if let Err(e) = download(&to_json(&name, &list), &format!("{name}.bookmarks.json")) {
                web_sys::console::warn_1(&format!("tarmac-lens: bookmarks export: {e}").into());
            }
        })
    };
    let file_input = use_node_ref();
    let pick = {
        let file_input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = file_input.cast::<HtmlInputElement>() {
                input.click();
            }
        })
    };
    let import = {
        let on_import = props.on_import.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            // The same file picked again is a change too.
            input.set_value("");
            let on_import = on_import.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let text = JsFuture::from(file.text())
                    .await
                    .ok()
                    .and_then(|t| t.as_string())
                    .unwrap_or_default();
                on_import.emit(text);
            });
        })
    };
    html! {
        <section
            class="pane nav-pane bookmarks-pane"
            data-testid="bookmarks-pane"
            data-count={props.list.len().to_string()}
            role="region"
            aria-label={t("Bookmarks")}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;overflow:auto;"
        >
            <header class="pane-header" style="display:flex;flex-wrap:wrap;gap:0.3rem 0.5rem;align-items:center;padding:0.15rem 0.4rem;">
                <strong style="flex:1;" data-testid="bookmarks-pane-title">{ tf("Bookmarks: {}", &[&number(props.list.len() as u64)]) }</strong>
                <button data-testid="bookmarks-export" disabled={props.list.is_empty()} onclick={export} title={t("Save the bookmarks as a JSON file")}>{ t("Export JSON") }</button>
                // A button (styled and reached by Tab like the others) that
                // opens the hidden file input's picker.
                <button data-testid="bookmarks-import-button" onclick={pick} title={t("Add the bookmarks of a JSON export")}>{ t("Import JSON…") }</button>
                <input ref={file_input} data-testid="bookmarks-import" type="file" accept=".json,application/json" style="display:none;" onchange={import} />
                { props.tools.clone() }
                <button class="close" data-testid="bookmarks-pane-close" title={t("Close (B)")} onclick={close}>{ "×" }</button>
            </header>
            if props.list.is_empty() {
                <p class="pane-empty" data-testid="bookmarks-empty" style="margin:0.25rem 0.5rem;">{ t("No bookmarks: b marks the position, or click a row's gutter.") }</p>
            } else {
                <table class="bookmarks" style="border-collapse:collapse;margin:0.2rem 0.4rem;font-size:13px;">
                    <thead>
                        <tr>
                            <th style="text-align:right;padding-right:0.6rem;">{ t("Line") }</th>
                            <th style="text-align:right;padding-right:0.6rem;">{ t("Time") }</th>
                            <th style="text-align:left;padding-right:0.6rem;">{ t("Function") }</th>
                            <th style="text-align:left;">{ t("Note") }</th>
                            <th></th>
                        </tr>
                    </thead>
                    <tbody>
                        { for props.list.iter().map(|b| row(props, b)) }
                    </tbody>
                </table>
            }
        </section>
    }
}

fn row(props: &BookmarksPaneProps, b: &Bookmark) -> Html {
    let line = b.line;
    let jump = props.on_jump.reform(move |_: MouseEvent| line);
    let remove = props.on_remove.reform(move |e: MouseEvent| {
        e.stop_propagation();
        line
    });
    let note_changed = {
        let on_note = props.on_note.clone();
        move |input: HtmlInputElement| on_note.emit((line, input.value()))
    };
    let onchange = {
        let note_changed = note_changed.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                note_changed(input);
            }
        })
    };
    // Return keeps the note at once (leaving the field fires `change`).
    let onkeydown = Callback::from(move |e: KeyboardEvent| {
        if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
            if e.key() == "Enter" {
                let _ = input.blur();
            }
        }
    });
    let current = props.cursor_line == Some(line);
    let mono =
        "font-family:ui-monospace,Menlo,Consolas,monospace;text-align:right;padding-right:0.6rem;";
    html! {
        <tr
            key={line}
            class={classes!("bookmark", current.then_some("current"))}
            data-testid="bookmark"
            data-line={line.to_string()}
            title={tf("Go to line {}", &[&number(line)])}
            style="cursor:pointer;"
            onclick={jump}
        >
            <td class="bookmark-line" style={mono}>{ number(line) }</td>
            <td class="bookmark-time" style={mono}>{ b.time.map_or_else(|| "…".to_string(), |t| t.to_string()) }</td>
            <td class="bookmark-function" style="padding-right:0.6rem;">{ b.function.clone() }</td>
            <td class="bookmark-note">
                <input
                    data-testid="bookmark-note"
                    value={b.note.clone()}
                    placeholder={t("note")}
                    aria-label={tf("Note of the bookmark at line {}", &[&number(line)])}
                    onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}
                    {onchange}
                    {onkeydown}
                    style="width:20rem;"
                />
            </td>
            <td><button class="close" data-testid="bookmark-remove" title={t("Remove this bookmark")} onclick={remove}>{ "×" }</button></td>
        </tr>
    }
}
