//! The worker bin's side: one worker per role, started by the page with a
//! name that says which ([`session`] when unnamed, [`range`], [`report`],
//! [`diff`]); [`warmup`] runs at start so the first screenful pays no
//! compiling.

use std::panic::PanicHookInfo;

use crate::web::shared::protocol::ToPage;

pub mod diff;
pub mod range;
pub mod report;
pub mod session;
pub mod warmup;

/// Posts a panic to the page, which shows it in its crash overlay
/// (`page::panic_overlay`).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        session::post(&ToPage::Panicked {
            message: info.to_string(),
        });
    }));
}
