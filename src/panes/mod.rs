//! Kinds of pane that live in a folder of their own: the pane's state and
//! its answers (`model.rs`, UI-free, tested natively: a
//! `model::pane_state::PaneState`) beside its render (`view.rs`, the page
//! only), and its registry line (`ENTRY` in its `mod.rs`). A new kind is
//! its folder and its name in the list below; `model::registry` places it
//! after the built-in kinds, and nothing in `src/model/` names it.

/// Declares each folder's module, lists its registry line in
/// [`ENTRIES`] and chains its render into [`view`], in the order given.
macro_rules! folder_panes {
    ($($kind:ident),+ $(,)?) => {
        $(pub mod $kind;)+

        /// The folders' registry lines, in the list's order.
        pub const ENTRIES: [crate::model::pane_kind::Entry; [$(stringify!($kind)),+].len()] =
            [$($kind::ENTRY),+];

        /// A pane's render: the folder whose state it is draws it.
        #[cfg(target_arch = "wasm32")]
        pub fn view(
            state: &dyn crate::model::pane_state::PaneState,
            note: Option<String>,
            on_action: yew::Callback<crate::model::pane_state::PaneAction>,
            tools: yew::Html,
            context: &PaneContext,
        ) -> Option<yew::Html> {
            None $(.or_else(|| $kind::view(state, note.clone(), on_action.clone(), tools.clone(), context)))+
        }
    };
}

folder_panes!(disassembly, query);

/// What a pane's render may use besides its state: the open trace's
/// session (a pane with a worker of its own hands that worker the trace).
#[cfg(target_arch = "wasm32")]
pub struct PaneContext {
    pub trace: crate::web::page::client::TraceClient,
    pub elf: Option<crate::web::components::ElfLoad>,
    /// The trace is indexed to its end.
    pub complete: bool,
}
