//! The disassembly pane's render: one row per instruction (address,
//! encoding, text, times run, times its condition failed), the position's
//! row marked and kept in sight, rows never run greyed; a click on a row
//! asks for that instruction's next execution.

use yew::prelude::*;

use super::{Disassembly, Line};
use crate::model::pane_state::{PaneAction, PaneState};
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{number, t, use_lang};

/// The pane's render from the model's state (`None` if it is another
/// kind's): the workspace's hook (`panes::render::view`).
pub fn view(cx: &PaneContext) -> Option<Html> {
    let pane = cx.state::<Disassembly>()?.clone();
    Some(html! {
        <DisassemblyPane
            {pane}
            note={cx.pane.note.clone()}
            on_pick={cx.on_action().reform(PaneAction::NextExecution)}
            on_close={cx.on_close()}
            tools={cx.tools.clone()}
        />
    })
}

#[derive(Properties, PartialEq)]
pub struct DisassemblyPaneProps {
    pub pane: Disassembly,
    pub note: Option<String>,
    /// An instruction's address: go to its next execution.
    pub on_pick: Callback<u64>,
    pub on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    #[prop_or_default]
    pub tools: Html,
}

#[function_component(DisassemblyPane)]
pub fn disassembly_pane(props: &DisassemblyPaneProps) -> Html {
    use_lang();
    let title = props.pane.title();
    let close = props.on_close.reform(|_: MouseEvent| ());
    let list = use_node_ref();
    let here = props.pane.listing.as_ref().map(|d| d.pc);
    {
        // The marked row in sight after each move, scrolling only the list.
        let list = list.clone();
        use_effect_with(here, move |_| {
            let Some(el) = list.cast::<web_sys::HtmlElement>() else {
                return;
            };
            let Ok(Some(row)) = el.query_selector("[data-here=true]") else {
                return;
            };
            let Ok(row) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(row) else {
                return;
            };
            let (top, height) = (row.offset_top(), row.offset_height());
            let (seen, room) = (el.scroll_top(), el.client_height());
            if top < seen || top + height > seen + room {
                el.set_scroll_top(top - room / 2);
            }
        });
    }
    let note = props
        .note
        .clone()
        .or_else(|| props.pane.listing.as_ref().and_then(|d| d.note.clone()));
    html! {
        <section
            class="pane disassembly-pane"
            data-testid="disassembly"
            role="region"
            aria-label={title.clone()}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
        >
            <header class="pane-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;">
                <strong style="flex:1;" data-testid="disassembly-pane-title">{ title }</strong>
                <span class="pane-hint" title={t("Times run, and (+) times its condition failed")}>{ t("count") }</span>
                { props.tools.clone() }
                <button class="close" data-testid="disassembly-close" title={t("Close (i)")} onclick={close}>{ "×" }</button>
            </header>
            if let Some(note) = note {
                <p class="pane-empty" data-testid="disassembly-note" style="margin:0.25rem 0.5rem;">{ note }</p>
            } else if props.pane.listing.is_none() {
                <p class="pane-empty" style="margin:0.25rem 0.5rem;">{ t("Reading the function…") }</p>
            }
            <div ref={list} style="flex:1 1 6rem;min-height:0;overflow:auto;position:relative;">
                <table class="disassembly-rows" style="border-collapse:collapse;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;white-space:pre;">
                    { for props.pane.lines().into_iter().map(|(r, line)| {
                        let addr = r.addr;
                        let pick = props.on_pick.reform(move |_: MouseEvent| addr);
                        let style = match line {
                            Line::Here => "background:rgba(250,204,21,0.35);cursor:pointer;",
                            Line::NeverRun => "opacity:0.45;cursor:pointer;",
                            Line::Reached => "cursor:pointer;",
                        };
                        let encoding = if r.size == 2 { format!("{:04x}", r.encoding) } else { format!("{:08x}", r.encoding) };
                        html! {
                            <tr
                                key={addr}
                                data-testid="disassembly-row"
                                data-addr={format!("{addr:#x}")}
                                data-here={(line == Line::Here).to_string()}
                                data-never-run={(line == Line::NeverRun).to_string()}
                                title={t("Go to its next execution")}
                                {style}
                                onclick={pick}
                            >
                                <td style="padding:0 0.6rem 0 0.4rem;opacity:0.8;">{ format!("{addr:x}") }</td>
                                <td style="padding:0 0.6rem 0 0;opacity:0.6;">{ encoding }</td>
                                <td style="padding:0 0.6rem 0 0;" data-testid="disassembly-text">{ r.text.clone() }</td>
                                <td style="padding:0 0.4rem 0 0;text-align:right;" data-testid="disassembly-count">{ number(r.executed) }</td>
                                <td style="padding:0 0.4rem 0 0;text-align:right;opacity:0.8;" data-testid="disassembly-failed">
                                    { if r.failed > 0 { format!("+{}", number(r.failed)) } else { String::new() } }
                                </td>
                            </tr>
                        }
                    }) }
                </table>
            </div>
        </section>
    }
}
