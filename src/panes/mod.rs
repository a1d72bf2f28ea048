//! Kinds of pane that live in a folder of their own: the pane's state and
//! its answers (`model.rs`, UI-free, tested natively) beside its render
//! (`view.rs`, the page only). Each is one line of `model::registry`.

pub mod disassembly;
