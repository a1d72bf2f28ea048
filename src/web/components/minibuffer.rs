//! The prompt at the bottom of the browser (`l`, `t`, `p`, `m`, `d`):
//! Escape or Ctrl-G cancels, Ctrl-U clears, Ctrl-W deletes a word, Up and
//! Down recall the prompt's earlier answers.

use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MinibufferProps {
    pub label: AttrValue,
    pub on_submit: Callback<String>,
    pub on_cancel: Callback<()>,
    /// Earlier answers to this prompt, oldest first.
    #[prop_or_default]
    pub history: Vec<String>,
}

/// Up (`back`) or Down from entry `at` of a history of `len` (`None`: the
/// text being typed, after the newest): the entry to show, `None` for an
/// empty line below the newest.
pub fn recall(len: usize, at: Option<usize>, back: bool) -> Option<usize> {
    match (at, back) {
        (None, true) => len.checked_sub(1),
        (Some(i), true) => Some(i.saturating_sub(1)),
        (Some(i), false) if i + 1 < len => Some(i + 1),
        (_, false) => None,
    }
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
    // Which history entry is shown: changes nothing drawn, so no state.
    let recalled = use_mut_ref(|| None::<usize>);
    let onkeydown = {
        let input = input.clone();
        let history = props.history.clone();
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
                (false, "ArrowUp" | "ArrowDown") if !history.is_empty() => {
                    e.prevent_default();
                    let at = recall(history.len(), *recalled.borrow(), key == "ArrowUp");
                    *recalled.borrow_mut() = at;
                    el.set_value(at.map_or("", |i| history[i].as_str()));
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
                // Named by the prompt's text (the label around it), for
                // the tools that look for a name on the field itself.
                aria-label={props.label.clone()}
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
