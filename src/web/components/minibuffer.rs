//! The prompt at the bottom of the browser (`l`, `t`, `p`, `m`, `d`):
//! Escape or Ctrl-G cancels, Ctrl-U clears, Ctrl-W deletes a word.

use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MinibufferProps {
    pub label: AttrValue,
    pub on_submit: Callback<String>,
    pub on_cancel: Callback<()>,
}

/// Ctrl-W: drops trailing spaces, then the word before them.
pub fn delete_word(text: &str) -> String {
    let trimmed = text.trim_end();
    let cut = trimmed
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    trimmed[..cut].to_string()
}

#[function_component(Minibuffer)]
pub fn minibuffer(props: &MinibufferProps) -> Html {
    let input = use_node_ref();
    {
        let input = input.clone();
        use_effect_with((), move |_| {
            if let Some(el) = input.cast::<HtmlInputElement>() {
                let _ = el.focus();
            }
        });
    }
    let onkeydown = {
        let input = input.clone();
        let submit = props.on_submit.clone();
        let cancel = props.on_cancel.clone();
        Callback::from(move |e: KeyboardEvent| {
            // The browser's own keys must not see prompt typing.
            e.stop_propagation();
            let Some(el) = input.cast::<HtmlInputElement>() else {
                return;
            };
            let key = e.key();
            match (e.ctrl_key(), key.as_str()) {
                (_, "Escape") | (true, "g") => {
                    e.prevent_default();
                    cancel.emit(());
                }
                (false, "Enter") => {
                    e.prevent_default();
                    submit.emit(el.value());
                }
                (true, "u") => {
                    e.prevent_default();
                    el.set_value("");
                }
                (true, "w") => {
                    e.prevent_default();
                    el.set_value(&delete_word(&el.value()));
                }
                _ => {}
            }
        })
    };
    let onblur = props.on_cancel.reform(|_: FocusEvent| ());
    html! {
        <label class="minibuffer" data-testid="prompt" style="display:flex;gap:0.5rem;align-items:center;">
            <span class="prompt-label">{ props.label.clone() }</span>
            <input
                ref={input}
                data-testid="prompt-input"
                type="text"
                autocomplete="off"
                spellcheck="false"
                style="flex:1;font-family:ui-monospace,Menlo,Consolas,monospace;"
                {onkeydown}
                {onblur}
            />
        </label>
    }
}
