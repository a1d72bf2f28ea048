//! The status line of a condition search (`c`, `>`, `<`): how much of the
//! way is searched with a Stop button while it runs, or the condition's
//! text with the column where it is not one marked.

use yew::prelude::*;

use crate::web::page::i18n::{t, tf, use_lang};

#[derive(Properties, PartialEq)]
pub struct ConditionProgressProps {
    pub text: AttrValue,
    /// How much of the way is searched, 0 to 1.
    pub fraction: f64,
    pub on_stop: Callback<()>,
}

#[function_component(ConditionProgress)]
pub fn condition_progress(props: &ConditionProgressProps) -> Html {
    use_lang();
    let percent = (props.fraction * 100.0).floor() as u32;
    let stop = props.on_stop.reform(|_: MouseEvent| ());
    html! {
        <span class="condition-progress" data-testid="condition-progress" data-percent={percent.to_string()}
            role="status" style="display:flex;gap:0.5rem;align-items:center;flex:1;">
            <span>{ tf("Searching where {} becomes true… {}%", &[&props.text, &percent]) }</span>
            <progress max="100" value={percent.to_string()} style="flex:0 1 12rem;height:0.8rem;" />
            <button type="button" data-testid="condition-stop" onclick={stop}>{ t("Stop (Esc)") }</button>
        </span>
    }
}

#[derive(Properties, PartialEq)]
pub struct ConditionErrorProps {
    pub before: AttrValue,
    /// The character at the column (empty past the end).
    pub at: AttrValue,
    pub after: AttrValue,
    pub column: usize,
    pub message: AttrValue,
}

#[function_component(ConditionError)]
pub fn condition_error(props: &ConditionErrorProps) -> Html {
    use_lang();
    // Past the end there is no character to mark: a space stands for it.
    let at = if props.at.is_empty() {
        AttrValue::from("\u{a0}")
    } else {
        props.at.clone()
    };
    html! {
        <span class="condition-error error" data-testid="condition-error" data-column={props.column.to_string()}
            role="alert" style="display:flex;gap:0.75rem;align-items:baseline;">
            <code style="white-space:pre;">
                { props.before.clone() }
                <mark data-testid="condition-error-at" style="text-decoration:underline wavy red;">{ at }</mark>
                { props.after.clone() }
            </code>
            <span>{ tf("Not a condition, at column {}: {}", &[&props.column, &props.message]) }</span>
        </span>
    }
}
