//! The header of a register or memory pane: title, the trace view it
//! follows, its lock and a close button.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::web::page::i18n::{t, tf, use_lang};

use tarmac_lens_core::protocol::NodeView;

#[derive(Properties, PartialEq)]
pub struct PaneHeaderProps {
    pub title: AttrValue,
    /// `data-testid` of the title (`memory-pane-title`, `registers-pane-title`).
    pub title_testid: AttrValue,
    pub view: u32,
    pub views: Vec<u32>,
    /// Locked to this position instead of following the view.
    pub lock: Option<NodeView>,
    pub on_view: Callback<u32>,
    pub on_unlock: Callback<()>,
    /// Lock to what is shown (Ctrl-L).
    pub on_lock: Callback<()>,
    pub on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    #[prop_or_default]
    pub tools: Html,
}

#[function_component(PaneHeader)]
pub fn pane_header(props: &PaneHeaderProps) -> Html {
    use_lang();
    let onchange = {
        let cb = props.on_view.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                if let Ok(v) = select.value().parse() {
                    cb.emit(v);
                }
            }
        })
    };
    let unlock = props.on_unlock.reform(|_: MouseEvent| ());
    let lock = props.on_lock.reform(|_: MouseEvent| ());
    let close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <header class="pane-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;">
            <strong style="flex:1;" data-testid={props.title_testid.clone()} title={props.title.clone()}>{ props.title.clone() }</strong>
            if let Some(lock) = props.lock {
                <button class="lock" data-testid="pane-lock" title={t("Locked; click (or Ctrl-L) to follow the trace view again")} onclick={unlock}>
                    { tf("🔒 line {} t {}", &[&lock.first_line, &lock.time]) }
                </button>
            } else {
                <button class="lock" data-testid="pane-lock-here" title={t("Keep showing this position (Ctrl-L)")} onclick={lock}>{ t("lock") }</button>
            }
            <label title={t("The trace view this pane follows")}>
                { t("view ") }
                <select data-testid="pane-view" {onchange}>
                    { for props.views.iter().map(|v| html! {
                        <option value={v.to_string()} selected={*v == props.view}>{ format!("#{}", v + 1) }</option>
                    }) }
                </select>
            </label>
            { props.tools.clone() }
            <button class="close" data-testid="pane-close" title={t("Close (x)")} onclick={close}>{ "×" }</button>
        </header>
    }
}
