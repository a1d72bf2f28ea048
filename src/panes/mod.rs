//! Kinds of pane that live in a folder of their own: the pane's state and
//! its answers (`model.rs`, UI-free, tested natively: a
//! `model::pane_state::PaneState`) beside its render (`view.rs`, the page
//! only). Each is one line of `model::registry` and one here.

pub mod disassembly;
pub mod query;

/// What a pane's render may use besides its state: the open trace's
/// session (a pane with a worker of its own hands that worker the trace).
#[cfg(target_arch = "wasm32")]
pub struct PaneContext {
    pub trace: crate::web::page::client::TraceClient,
    pub elf: Option<crate::web::components::ElfLoad>,
    /// The trace is indexed to its end.
    pub complete: bool,
}

/// A pane's render: the first folder whose state it is draws it.
#[cfg(target_arch = "wasm32")]
pub fn view(
    state: &dyn crate::model::pane_state::PaneState,
    note: Option<String>,
    on_action: yew::Callback<crate::model::pane_state::PaneAction>,
    tools: yew::Html,
    context: &PaneContext,
) -> Option<yew::Html> {
    disassembly::view(state, note, on_action.clone(), tools.clone())
        .or_else(|| query::view(state, on_action, tools, context))
}
