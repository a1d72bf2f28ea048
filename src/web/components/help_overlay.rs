//! F1: the keys of the focused pane, from the same tables the keyboard uses.

use yew::prelude::*;

use crate::model::keys::{tables, PaneKind};
use crate::web::page::i18n::{key_label, t, use_lang};

#[derive(Properties, PartialEq)]
pub struct HelpOverlayProps {
    pub pane: PaneKind,
    pub on_close: Callback<()>,
}

#[function_component(HelpOverlay)]
pub fn help_overlay(props: &HelpOverlayProps) -> Html {
    use_lang();
    let title = t(match props.pane {
        PaneKind::Trace => "Trace pane keys",
        PaneKind::Registers => "Register pane keys",
        PaneKind::Memory => "Memory pane keys",
        PaneKind::Source => "Source pane keys",
    });
    let close = props.on_close.reform(|_: MouseEvent| ());
    // The help takes the focus, so the keys that scroll scroll it (the
    // model leaves them to the browser while it is open).
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with((), move |_| {
            if let Some(el) = dialog.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    html! {
        <div
            ref={dialog}
            class="help-overlay"
            data-testid="help"
            role="dialog"
            aria-modal="true"
            aria-label={title}
            tabindex="-1"
            style="position:fixed;inset:5vh 10vw;overflow:auto;z-index:20;padding:1rem;border:1px solid #94a3b8;border-radius:0.5rem;background:Canvas;color:CanvasText;"
        >
            <header style="display:flex;justify-content:space-between;align-items:center;">
                <h2 style="margin:0;font-size:1.1rem;">{ title }</h2>
                <button onclick={close}>{ t("Close (Esc)") }</button>
            </header>
            <table style="border-collapse:collapse;margin-top:0.5rem;">
                { for tables(props.pane).into_iter().flat_map(|t| t.iter()).map(|b| html! {
                    <tr>
                        <th style="text-align:left;padding:0.1rem 1rem 0.1rem 0;font-family:ui-monospace,monospace;">{ key_label(b.label) }</th>
                        <td>{ t(b.help) }</td>
                    </tr>
                }) }
            </table>
            <p style="margin-bottom:0;">{ t("Every key has a mouse path too: click a row to move there, right-click trace lines, registers and bytes for their jumps, click a folded call to unfold it.") }</p>
        </div>
    }
}
