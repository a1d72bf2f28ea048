//! The register pane's render: one panel of the register file after a
//! position, with unknown bytes as `??` and the marked registers
//! highlighted, in the frame the memory and source panes have.

use yew::prelude::*;

use super::model::{RegMsg, RegistersPane};
use crate::model::layout::Area;
use crate::model::pane_kind::RegKind;
use crate::model::Msg;
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{t, tf, use_lang};
use tarmac_lens_core::protocol::RegPanel;

/// The register pane in its frame.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let pane = cx.state::<RegistersPane>()?;
    let body = if !pane.answered && cx.model.no_position {
        html! { <p class="pane-empty" data-testid="registers-empty" style="margin:0.25rem 0.5rem;">{ t("No registers: the trace has no instruction.") }</p> }
    } else if !pane.answered {
        html! { <p class="pane-empty" style="margin:0.25rem 0.5rem;">{ t("Reading registers…") }</p> }
    } else {
        html! {
            <Registers
                pane={cx.pane.id}
                send={cx.send.clone()}
                kind={pane.kind}
                side={cx.model.layout.area(cx.pane.body.slot()) == Area::Side}
                panel={pane.panel.clone()}
                selected={pane.selected}
                note={cx.pane.note.clone()}
            />
        }
    };
    Some(cx.frame("registers-pane-title", false, body))
}

#[derive(Properties, PartialEq)]
struct RegistersProps {
    pane: u32,
    send: Callback<Msg>,
    kind: RegKind,
    side: bool,
    panel: Option<RegPanel>,
    selected: usize,
    note: Option<String>,
}

/// The panel with its clicks made once per pane: a step that changes no
/// value redraws nothing.
#[function_component(Registers)]
fn registers(props: &RegistersProps) -> Html {
    let (on_pick, on_context) = (*use_memo((props.pane, props.send.clone()), |(id, send)| {
        let id = *id;
        let own = move |m: RegMsg| Msg::Pane(id, crate::model::PaneMsg::Own(Box::new(m)));
        (
            send.reform(move |index| own(RegMsg::Pick { index })),
            send.reform(move |(index, x, y)| own(RegMsg::Context { index, x, y })),
        )
    }))
    .clone();
    html! {
        <RegisterPane
            kind={props.kind}
            side={props.side}
            panel={props.panel.clone()}
            selected={props.selected}
            note={props.note.clone()}
            {on_pick}
            {on_context}
        />
    }
}

/// What [`RegisterPane`] draws.
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

/// One panel of registers, each a click to its previous write.
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
