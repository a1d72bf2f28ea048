//! The source pane's render: the file of the position with each line's
//! execution count in the gutter (a heat colour; lines with code that never
//! ran marked), the current line highlighted and kept in sight, the inline
//! chain, a chosen line's executions, and, when the source text is not
//! given yet, what file is wanted and a folder or file picker. The files
//! are read here, in the page; nothing leaves the machine.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::model::{SourceMsg, SourcePane as Pane};
use crate::model::Msg;
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{number, t, tf, use_lang};
use crate::web::page::source_folder;
use tarmac_lens_core::protocol::{NodeId, SourceReply};

/// The source pane in its frame: the header the register and memory
/// panes have (the view it follows, its lock), and its body.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let pane = cx.state::<Pane>()?;
    let own = cx.own::<SourceMsg>();
    let body = html! {
        <SourcePane
            pane={pane.clone()}
            text={pane.text(&cx.model.sources)}
            note={cx.pane.note.clone()}
            on_line={own.reform(|line| SourceMsg::PickLine { line })}
            on_hit={own.reform(|node| SourceMsg::PickHit { node })}
            on_more={own.reform(|_| SourceMsg::MoreHits)}
            on_files={cx.send.reform(Msg::SourceFiles)}
        />
    };
    Some(cx.frame("source-pane-title", true, body))
}

#[derive(Properties, PartialEq)]
struct SourcePaneProps {
    pub pane: Pane,
    /// The file's text, or why there is none.
    pub text: Result<Rc<str>, String>,
    pub note: Option<String>,
    pub on_line: Callback<u32>,
    pub on_hit: Callback<NodeId>,
    pub on_more: Callback<()>,
    pub on_files: Callback<Vec<(String, String)>>,
}

/// The gutter's background for a count: warmer the more it ran, on a log
/// scale against the file's hottest line.
fn heat(count: u64, hottest: u64) -> String {
    if count == 0 || hottest == 0 {
        return String::new();
    }
    let f = ((count as f64).ln_1p() / (hottest as f64).ln_1p()).clamp(0.05, 1.0);
    format!(
        "background:hsla({:.0},90%,55%,{:.2});",
        50.0 - 50.0 * f,
        0.25 + 0.5 * f
    )
}

/// What the count gutter shows for a line's count.
fn gutter_text(count: Option<(u64, u64)>) -> String {
    match count {
        Some((0, 0)) => "0".to_string(),
        Some((e, 0)) => number(e),
        Some((e, f)) => format!("{} (+{})", number(e), number(f)),
        None => String::new(),
    }
}

/// Scrolls `scroller` (the element whose content scrolls) so that `item`
/// is in sight, to its middle when it was out of sight, touching no other
/// scroller: the pane scrolls, never the page or its area.
fn bring_into_sight(scroller: &web_sys::HtmlElement, item: &web_sys::HtmlElement, centre: bool) {
    let (top, height) = (item.offset_top(), item.offset_height());
    let (seen, room) = (scroller.scroll_top(), scroller.client_height());
    if top >= seen && top + height <= seen + room {
        return;
    }
    scroller.set_scroll_top(if centre {
        top - (room - height) / 2
    } else if top < seen {
        top
    } else {
        top + height - room
    });
}

#[function_component(SourcePane)]
fn source_pane(props: &SourcePaneProps) -> Html {
    use_lang();
    let body = use_node_ref();
    let hits_list = use_node_ref();
    let here = props.pane.here().and_then(|(_, l)| l);
    let here_file = props.pane.here().map(|(f, _)| f.to_string());
    {
        // Keep the current line in sight as the position moves (and when
        // the file's text comes, or another file is shown).
        let body = body.clone();
        use_effect_with(
            (here_file, here, props.text.is_ok()),
            move |(_, line, _)| {
                if let (Some(line), Some(el)) = (line, body.cast::<web_sys::HtmlElement>()) {
                    let sel = format!("[data-src-line=\"{line}\"]");
                    let row = el.query_selector(&sel).ok().flatten();
                    if let Some(row) = row.and_then(|r| r.dyn_into::<web_sys::HtmlElement>().ok()) {
                        bring_into_sight(&el, &row, true);
                    }
                }
            },
        );
    }
    {
        // A line's executions, once listed, are in sight: the pane's body
        // scrolls to them when the pane is too short to show them under
        // the text. The list takes room from the text: the line clicked
        // stays in sight there.
        let hits_list = hits_list.clone();
        let body = body.clone();
        let shown = props.pane.hits.as_ref().map(|h| h.hits.len());
        use_effect_with((props.pane.selected, shown), move |(selected, _)| {
            let Some(list) = hits_list.cast::<web_sys::HtmlElement>() else {
                return;
            };
            // The pane's body is positioned: the list's offsets are from it.
            let scroller = list
                .closest(".pane-body")
                .ok()
                .flatten()
                .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(scroller) = scroller {
                bring_into_sight(&scroller, &list, false);
            }
            if let (Some(line), Some(text)) = (selected, body.cast::<web_sys::HtmlElement>()) {
                let row = text
                    .query_selector(&format!("[data-src-line=\"{line}\"]"))
                    .ok()
                    .flatten()
                    .and_then(|r| r.dyn_into::<web_sys::HtmlElement>().ok());
                if let Some(row) = row {
                    bring_into_sight(&text, &row, true);
                }
            }
        });
    }
    let frames = match &props.pane.at {
        Some(SourceReply::Frames { frames, .. }) if frames.len() > 1 => html! {
            <ol class="source-frames" data-testid="source-frames" style="margin:0.2rem 0.5rem;padding-left:1.2rem;font-size:0.85em;">
                { for frames.iter().enumerate().map(|(i, f)| {
                    let name = f.function.clone().unwrap_or_else(|| "??".into());
                    let at = match (&f.file, f.line) {
                        (Some(file), Some(l)) => format!("{}:{l}", short(file)),
                        (Some(file), None) => short(file).to_string(),
                        _ => "??".into(),
                    };
                    html! {
                        <li data-frame={i.to_string()}>
                            { if i == 0 { tf("{} at {}", &[&name, &at]) } else { tf("inlined into {} at {}", &[&name, &at]) } }
                        </li>
                    }
                }) }
            </ol>
        },
        _ => html! {},
    };
    let wanted = props.pane.here().map(|(f, _)| f.to_string());
    let picker = {
        let on_files = props.on_files.clone();
        let on_change = Callback::from(move |e: Event| {
            if let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            {
                let on_files = on_files.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    on_files.emit(source_folder::read_input(input).await);
                });
            }
        });
        html! {
            <div class="source-pick" style="display:flex;gap:0.75rem;flex-wrap:wrap;margin:0.25rem 0.5rem;">
                // The File System Access picker where the browser has it
                // (Chromium): a real folder dialog, nothing uploaded.
                if source_folder::has_directory_picker() {
                    <button data-testid="source-folder-pick" onclick={{
                        let on_files = props.on_files.clone();
                        Callback::from(move |_: MouseEvent| {
                            let on_files = on_files.clone();
                            wasm_bindgen_futures::spawn_local(async move {
                                if let Some(files) = source_folder::pick_directory().await {
                                    on_files.emit(files);
                                }
                            });
                        })
                    }}>{ t("Open the source folder…") }</button>
                } else {
                <label class="button">
                    { t("Choose the source folder…") }
                    <input type="file" data-testid="source-folder-input" webkitdirectory=true multiple=true
                        style="display:none;" onchange={on_change.clone()} />
                </label>
                }
                <label class="button">
                    { t("Choose source files…") }
                    <input type="file" data-testid="source-files-input" multiple=true
                        style="display:none;" onchange={on_change} />
                </label>
            </div>
        }
    };
    let text = match &props.text {
        Err(why) => {
            let need_file = wanted.is_some()
                && (props.pane.browse.is_some()
                    || matches!(props.pane.at, Some(SourceReply::Frames { .. })));
            html! {
                <>
                    <p class="pane-empty" data-testid="source-wanted" data-file={wanted.clone()} style="margin:0.25rem 0.5rem;">{ why.clone() }</p>
                    if need_file { { picker.clone() } }
                </>
            }
        }
        Ok(text) => {
            let hottest = props.pane.hottest();
            // The gutter as wide as its longest count, the numbers as their
            // largest: the code keeps the rest of the width.
            let gutter_ch = props.pane.counts.as_ref().map_or(0, |c| {
                c.lines
                    .iter()
                    .map(|l| gutter_text(Some((l.1, l.2))).chars().count())
                    .max()
                    .unwrap_or(0)
            });
            let gutter_style = format!(
                "flex:0 0 {}ch;text-align:right;padding:0 0.5ch;overflow:hidden;",
                gutter_ch.max(1)
            );
            let number_style = format!(
                "flex:0 0 {}ch;text-align:right;padding-right:1.5ch;opacity:0.6;",
                text.lines().count().max(1).to_string().len()
            );
            let rows = text.lines().enumerate().map(|(i, src)| {
                let n = i as u32 + 1;
                let count = props.pane.count(n);
                let current = here == Some(n);
                let chosen = props.pane.selected == Some(n);
                let class = classes!(
                    "src-line",
                    current.then_some("current"),
                    chosen.then_some("chosen"),
                    matches!(count, Some((0, 0))).then_some("never"),
                );
                let gutter = gutter_text(count);
                let style = count.map_or(String::new(), |(e, _)| heat(e, hottest));
                let on_line = props.on_line.clone();
                html! {
                    <div class={class} data-src-line={n.to_string()}
                        data-count={count.map(|c| c.0.to_string())}
                        aria-current={current.then_some("true")}
                        onclick={Callback::from(move |_: MouseEvent| on_line.emit(n))}
                        style="display:flex;white-space:pre;cursor:pointer;line-height:1.35;">
                        <span class="src-count" title={t("times this line ran (condition failed in brackets)")}
                            style={format!("{gutter_style}{style}")}>{ gutter }</span>
                        <span class="src-num" style={number_style.clone()}>{ n }</span>
                        <span class="src-text">{ src }</span>
                    </div>
                }
            });
            html! {
                <div ref={body.clone()} class="source-text" data-testid="source-text" data-file={wanted.clone()}
                    style="position:relative;font-family:ui-monospace,Menlo,Consolas,monospace;flex:3 1 8rem;min-height:4rem;overflow:auto;font-size:12px;">
                    { for rows }
                </div>
            }
        }
    };
    let hits = match (&props.pane.selected, &props.pane.hits) {
        (Some(line), Some(h)) => {
            let file = wanted.clone().unwrap_or_default();
            let more = props.on_more.clone();
            html! {
                <div class="source-hits" ref={hits_list.clone()} style="margin:0.25rem 0.5rem;flex:0 1 auto;min-height:4rem;max-height:12rem;display:flex;flex-direction:column;">
                    <strong data-testid="source-hits-title">
                        { tf("Executions of {}:{} (n, N step through them)", &[&short(&file), line]) }
                    </strong>
                    <ol data-testid="source-hits" data-shown={h.hits.len().to_string()} style="flex:1 1 auto;min-height:1.5rem;overflow:auto;margin:0.2rem 0;">
                        { for h.hits.iter().map(|hit| {
                            let on_hit = props.on_hit.clone();
                            let node = hit.node.node;
                            html! {
                                <li data-node={node.to_string()}>
                                    <button class="link" onclick={Callback::from(move |_: MouseEvent| on_hit.emit(node))}>
                                        { tf("time {}, trace line {}, call depth {}", &[&hit.node.time, &number(hit.node.first_line), &hit.depth]) }
                                    </button>
                                </li>
                            }
                        }) }
                    </ol>
                    if h.more {
                        <button data-testid="source-hits-more" onclick={Callback::from(move |_: MouseEvent| more.emit(()))}>{ t("More…") }</button>
                    }
                </div>
            }
        }
        _ => html! {},
    };
    // A folder (or files) dropped here is the source, not a trace.
    let on_drag_over = Callback::from(|e: DragEvent| {
        e.prevent_default();
        e.stop_propagation();
    });
    let on_drop = {
        let on_files = props.on_files.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            e.stop_propagation();
            let Some(dt) = e.data_transfer() else { return };
            let dropped = source_folder::take_drop(&dt);
            let on_files = on_files.clone();
            wasm_bindgen_futures::spawn_local(async move {
                on_files.emit(source_folder::read_drop(dropped).await);
            });
        })
    };
    html! {
        <div class="source-pane" data-testid="source-body" ondragover={on_drag_over} ondrop={on_drop}
            title={t("Drop the source folder here")}
            style="flex:1 1 auto;min-height:0;display:flex;flex-direction:column;">
            { frames }
            if let Some(note) = &props.note {
                <p class="pane-note" data-testid="source-note" style="margin:0.25rem 0.5rem;">{ note.clone() }</p>
            }
            { text }
            { hits }
            if props.text.is_ok() { { picker } }
        </div>
    }
}

/// The last two components of a path: enough to tell files apart.
fn short(path: &str) -> &str {
    let mut cut = path.len();
    for _ in 0..2 {
        match path[..cut].rfind(['/', '\\']) {
            Some(i) => cut = i,
            None => return path,
        }
    }
    &path[cut + 1..]
}
