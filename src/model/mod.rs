//! The trace browser's model: what the page's browser shows (views, panes,
//! the prompt, the search, the navigation panes) and how keys, clicks and
//! the worker's answers change it. No Yew, no browser API: the Yew
//! component (`web::components::browser`) renders it and carries its
//! questions to the worker; tests drive it natively against a real
//! `browse::Session` (`tests/browser_model.rs`).

pub mod hash;
pub mod keys;
pub mod view_state;
