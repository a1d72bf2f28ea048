//! Messages from a comparison worker to the page (`worker::diff`,
//! `page::diff_client`).
//!
//! They are JSON text like [`super::protocol::ToPage`]'s; `Ready`,
//! `Failed` and `Panicked` are spelled as there, because the worker's start
//! and its panic hook post those.

use serde::{Deserialize, Serialize};

use tarmac_lens_core::diff::Divergence;

/// Comparison worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DiffMsg {
    Ready,
    /// Bytes of both traces read, of both sizes.
    Progress {
        done: u64,
        total: u64,
    },
    Done {
        /// Instruction pairs compared.
        compared: u64,
        divergences: Vec<Divergence>,
        /// The list stopped at the limit: there may be more.
        capped: bool,
    },
    Failed {
        message: String,
    },
    Panicked {
        message: String,
    },
}
