//! The core picker of a multi-core trace: which CPU's instructions,
//! registers and calls the browser follows (memory stays shared). Picking
//! one opens the trace again with that core (`?cpu=` keeps the choice).

use yew::prelude::*;

use crate::web::page::i18n::{t, use_lang};

#[derive(Properties, PartialEq)]
pub struct CorePickerProps {
    /// The `<cpu>` names the trace's statistics listed.
    pub cores: Vec<String>,
    /// The core followed now; `None`: all lines interleaved.
    pub selected: Option<String>,
    pub on_pick: Callback<Option<String>>,
}

#[function_component(CorePicker)]
pub fn core_picker(props: &CorePickerProps) -> Html {
    use_lang();
    let onchange = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |e: Event| {
            let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() else {
                return;
            };
            let v = select.value();
            on_pick.emit((!v.is_empty()).then_some(v));
        })
    };
    let hint = if props.selected.is_some() {
        t("Registers and calls are this core's; memory holds every core's writes.")
    } else {
        t("This trace interleaves several cores: pick one to see its registers and calls.")
    };
    html! {
        <div class="core-picker" data-testid="core-picker" style="display:flex;gap:0.5rem;align-items:baseline;flex-wrap:wrap;">
            <label style="display:flex;gap:0.4rem;align-items:baseline;">
                { t("Core") }
                <select data-testid="core-select" {onchange}>
                    <option value="" selected={props.selected.is_none()}>{ t("all cores, interleaved") }</option>
                    { for props.cores.iter().map(|c| html! {
                        <option value={c.clone()} selected={props.selected.as_deref() == Some(c.as_str())}>{ c.clone() }</option>
                    }) }
                </select>
            </label>
            <span class="hint">{ hint }</span>
        </div>
    }
}
