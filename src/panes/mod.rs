//! Every kind of pane besides the trace views, each in a folder of its own: the pane's registry
//! line (`ENTRY` in its `mod.rs`), its state (UI-free, tested natively: a
//! `model::pane_state::PaneState`) and its render (`view.rs`, the page
//! only). A new kind is its folder and its name in `kinds!`; the
//! registry (`model::registry`) lists it, and nothing in `src/model/`
//! names it.
//!
//! A folder's state is either what a question at the position answered
//! (the registers, memory, the disassembly, the source pane with its own
//! questions after), a list asked a piece at a time as indexing goes on
//! (the watch pane's accesses), what a worker of its own found (the
//! query, the reports at the tab the model's commands chose), or nothing: the pane draws what the page already keeps (the
//! call stack, the bookmarks), its render reading the page's model
//! (`render`).

/// The folders, in the order the registry lists them: the one list,
/// which this module and `render` each expand with their own macro. The
/// register and memory panes come first: the layout's rules name them
/// (`registry::Slot::REGISTERS`, `Slot::MEMORY`).
macro_rules! kinds {
    ($then:ident) => {
        $then!(
            registers,
            memory,
            source,
            reports,
            watch,
            why,
            stack,
            events,
            bookmarks,
            disassembly,
            query
        );
    };
}

/// Declares each folder's module and lists its registry line in
/// [`ENTRIES`].
macro_rules! folder_panes {
    ($($kind:ident),+ $(,)?) => {
        $(pub mod $kind;)+

        /// The folders' registry lines, in the list's order.
        pub const ENTRIES: [crate::model::pane_kind::Entry; [$(stringify!($kind)),+].len()] =
            [$($kind::ENTRY),+];
    };
}

kinds!(folder_panes);

#[cfg(target_arch = "wasm32")]
pub mod render;
