//! The command palette's window: a text field over the entries the model
//! lists for it (`model::palette`).

use web_sys::{HtmlInputElement, InputEvent, KeyboardEvent};
use yew::prelude::*;

use crate::model::palette::PaletteEntry;
use crate::web::page::i18n::{key_label, t, use_lang};

#[derive(Properties, PartialEq)]
pub struct PaletteProps {
    pub text: AttrValue,
    pub entries: Vec<PaletteEntry>,
    pub selected: usize,
    pub on_text: Callback<String>,
    /// Move the selection by this many entries.
    pub on_move: Callback<i32>,
    pub on_run: Callback<()>,
    pub on_pick: Callback<usize>,
    pub on_close: Callback<()>,
}

#[function_component(Palette)]
pub fn palette(props: &PaletteProps) -> Html {
    use_lang();
    let input = use_node_ref();
    {
        let input = input.clone();
        use_effect_with((), move |_| {
            if let Some(el) = input.cast::<HtmlInputElement>() {
                let _ = el.focus();
            }
        });
    }
    let list = use_node_ref();
    {
        // The selected entry stays in sight as the arrows move it.
        let list = list.clone();
        use_effect_with(props.selected, move |_| {
            if let Some(el) = list
                .cast::<web_sys::Element>()
                .and_then(|l| l.query_selector(".palette-entry.selected").ok().flatten())
            {
                el.scroll_into_view_with_bool(false);
            }
        });
    }
    let oninput = {
        let on_text = props.on_text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(el) = e.target_dyn_into::<HtmlInputElement>() {
                on_text.emit(el.value());
            }
        })
    };
    let onkeydown = {
        let (on_move, on_run, on_close) = (
            props.on_move.clone(),
            props.on_run.clone(),
            props.on_close.clone(),
        );
        Callback::from(move |e: KeyboardEvent| {
            // The browser's own keys must not see palette typing.
            e.stop_propagation();
            match e.key().as_str() {
                "ArrowDown" => on_move.emit(1),
                "ArrowUp" => on_move.emit(-1),
                "PageDown" => on_move.emit(10),
                "PageUp" => on_move.emit(-10),
                "Enter" => on_run.emit(()),
                "Escape" => on_close.emit(()),
                _ => return,
            }
            e.prevent_default();
        })
    };
    let onblur = props.on_close.reform(|_: FocusEvent| ());
    html! {
        <div
            class="palette"
            data-testid="palette"
            role="dialog"
            aria-label={t("Command palette")}
            style="position:fixed;top:10vh;left:50%;transform:translateX(-50%);width:min(40rem,90vw);max-height:70vh;display:flex;flex-direction:column;z-index:30;border:1px solid #94a3b8;border-radius:0.5rem;background:Canvas;color:CanvasText;box-shadow:0 8px 24px rgba(0,0,0,0.25);"
        >
            <input
                ref={input}
                data-testid="palette-input"
                type="text"
                autocomplete="off"
                spellcheck="false"
                aria-label={t("Command palette")}
                placeholder={t("Type a command, or a line, time or PC to go to")}
                value={props.text.clone()}
                style="margin:0.5rem;padding:0.3rem;font-size:1rem;"
                role="combobox"
                aria-expanded="true"
                aria-controls="palette-list"
                {oninput}
                {onkeydown}
                {onblur}
            />
            <ul ref={list} id="palette-list" role="listbox" data-testid="palette-list" style="list-style:none;margin:0;padding:0 0 0.5rem;overflow:auto;">
                { for props.entries.iter().enumerate().map(|(i, e)| {
                    let selected = i == props.selected;
                    let pick = props.on_pick.reform(move |_: MouseEvent| i);
                    html! {
                        <li
                            role="option"
                            aria-selected={selected.to_string()}
                            class={classes!("palette-entry", selected.then_some("selected"))}
                            data-testid="palette-entry"
                            style={format!("display:flex;justify-content:space-between;gap:1rem;padding:0.2rem 0.75rem;cursor:pointer;{}", if selected { "background:Highlight;color:HighlightText;" } else { "" })}
                            // Keeps the field's focus, so its blur does not close the palette first.
                            onmousedown={Callback::from(|e: MouseEvent| e.prevent_default())}
                            onclick={pick}
                        >
                            <span class="palette-label">{ &e.label }</span>
                            <kbd class="palette-key" style="font-family:ui-monospace,monospace;opacity:0.8;">{ key_label(e.key) }</kbd>
                        </li>
                    }
                }) }
                if props.entries.is_empty() {
                    <li class="palette-none" style="padding:0.2rem 0.75rem;">{ t("No command matches.") }</li>
                }
            </ul>
        </div>
    }
}
