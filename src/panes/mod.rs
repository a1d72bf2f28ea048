//! Kinds of pane that live in a folder of their own: the pane's state and
//! its answers (`model.rs`, UI-free, tested natively: a
//! `model::pane_state::PaneState`) beside its render (`view.rs`, the page
//! only). Each is one line of `model::registry` and one here.

pub mod disassembly;

/// A pane's render: the first folder whose state it is draws it.
#[cfg(target_arch = "wasm32")]
pub fn view(
    state: &dyn crate::model::pane_state::PaneState,
    note: Option<String>,
    on_action: yew::Callback<crate::model::pane_state::PaneAction>,
    tools: yew::Html,
) -> Option<yew::Html> {
    disassembly::view(state, note, on_action, tools)
}
