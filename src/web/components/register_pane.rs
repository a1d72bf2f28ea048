//! A register pane: one panel of the register file after a position, with
//! unknown bytes as `??` and the registers changed by the last move marked.

use yew::prelude::*;

use crate::web::page::i18n::{t, tf, use_lang};

use crate::model::keys::RegKind;
use tarmac_lens_core::browse::protocol::RegPanel;

#[derive(Properties, PartialEq)]
pub struct RegisterPaneProps {
    pub kind: RegKind,
    /// In the side area: fewer columns.
    #[prop_or_default]
    pub side: bool,
    /// `None` until the first answer (or when the trace has no such panel).
    pub panel: Option<RegPanel>,
    pub selected: usize,
    /// The pane's status line (symbolic reading, errors).
    pub note: Option<String>,
    /// Click: select; the browser then jumps to its previous write.
    pub on_pick: Callback<usize>,
    pub on_context: Callback<(usize, i32, i32)>,
}

#[function_component(RegisterPane)]
pub fn register_pane(props: &RegisterPaneProps) -> Html {
    use_lang();
    let Some(panel) = &props.panel else {
        return html! {
            <p class="pane-empty" data-testid="registers-empty" style="margin:0.25rem 0.5rem;">
                { tf("No {} in this trace.", &[&t(props.kind.title()).to_lowercase()]) }
            </p>
        };
    };
    if panel.cells.is_empty() {
        return html! {
            <p class="pane-empty" data-testid="registers-none-changed" style="margin:0.25rem 0.5rem;">
                { t("No register changed here.") }
            </p>
        };
    }
    // As many columns as the pane's width holds, at most the kind's: a
    // narrow pane (two traces compared, the embedded viewer) shows every
    // value in fewer columns rather than cutting the last. Cells are
    // monospace text, so a cell's width is its longest name and value in
    // `ch`.
    let columns = props.kind.columns(props.side);
    let name_ch = panel
        .cells
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    let value_ch = panel
        .cells
        .iter()
        .map(|c| {
            c.text.chars().count().max(1) + c.decoded.as_ref().map_or(0, |d| d.chars().count() + 1)
        })
        .max()
        .unwrap_or(0);
    let cell_ch = name_ch + value_ch;
    html! {
        <>
            <div
                class="registers"
                data-panel={panel.kind.clone()}
                style={format!("display:grid;grid-template-columns:repeat(auto-fill,minmax({cell_ch}ch,max-content));max-width:calc({columns} * {cell_ch}ch + {} * 1.25rem + 0.5ch);gap:0.1rem 1.25rem;padding:0.25rem 0.5rem;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;line-height:1.3;", columns - 1)}
            >
                { for panel.cells.iter().enumerate().map(|(i, cell)| {
                    let pick = props.on_pick.reform(move |_: MouseEvent| i);
                    let context = props.on_context.clone();
                    let oncontextmenu = Callback::from(move |e: MouseEvent| {
                        e.prevent_default();
                        context.emit((i, e.client_x(), e.client_y()));
                    });
                    let value = if cell.text.is_empty() { "?".to_string() } else { cell.text.clone() };
                    html! {
                        <div
                            class={classes!("reg", (i == props.selected).then_some("selected"), cell.changed.then_some("changed"), (!cell.known).then_some("unknown"))}
                            style="white-space:pre;cursor:pointer;"
                            title={t("Click: previous write of this register")}
                            onclick={pick}
                            {oncontextmenu}
                        >
                            <span class="reg-name" style={format!("display:inline-block;min-width:{name_ch}ch;")}>{ &cell.name }</span>
                            <span class="reg-value" data-reg={cell.name.clone()}>{ value }</span>
                            if let Some(decoded) = &cell.decoded {
                                <span class="reg-decoded" data-decoded={cell.name.clone()}>{ format!(" {decoded}") }</span>
                            }
                        </div>
                    }
                }) }
            </div>
            if let Some(note) = &props.note {
                <p class="pane-note" data-testid="pane-note" style="margin:0.25rem 0.5rem;">{ note }</p>
            }
        </>
    }
}
