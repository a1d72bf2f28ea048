//! What every worker role runs on: the worker's global scope, [`post`] to
//! the page, the message loop ([`listen`], [`dispatch`]) and the panic hook;
//! and what several roles share: [`parse_options`] and the indexing loops'
//! step sizes (the session's and the range workers' loops, which the
//! warm-up runs too). No role module is imported here.

use std::cell::Cell;
use std::panic::PanicHookInfo;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use tarmac_lens_core::ParseOptions;

use crate::web::shared::protocol::{decode, encode, OpenOptions, ToPage, ToWorker};

/// Bytes the session's loop indexes between clock checks.
pub const SESSION_STEP_BYTES: u64 = 256 << 10;

/// Bytes a range worker's loop indexes between progress checks.
pub const RANGE_STEP_BYTES: u64 = 4 << 20;

pub fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Sends a message to the page. A failure here means the page is gone, so
/// there is nobody left to tell; the console is the last resort.
pub fn post(msg: &ToPage) {
    match encode(msg) {
        Ok(value) => {
            if let Err(e) = scope().post_message(&value) {
                web_sys::console::error_2(&"tarmac-lens worker: postMessage failed".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&format!("tarmac-lens worker: {e}").into()),
    }
}

/// Posts a panic to the page, which shows it in its crash overlay
/// (`page::panic_overlay`).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        post(&ToPage::Panicked {
            message: info.to_string(),
        });
    }));
}

thread_local! {
    /// Where [`dispatch`] sends the page's messages (set by [`listen`]).
    static HANDLER: Cell<Option<fn(ToWorker)>> = const { Cell::new(None) };
}

/// Installs the message handler: the page's messages go to `handler`, as
/// do the ones [`dispatch`]ed here.
pub fn listen(handler: fn(ToWorker)) {
    HANDLER.with(|h| h.set(Some(handler)));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        match decode::<ToWorker>(event.data()) {
            Ok(msg) => dispatch(msg),
            Err(e) => post(&ToPage::Failed {
                message: format!("unexpected message from the page: {e}"),
            }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
}

/// Handles `msg` as if the page had sent it now.
pub fn dispatch(msg: ToWorker) {
    if let Some(handler) = HANDLER.with(Cell::get) {
        handler(msg);
    }
}

pub fn parse_options(options: OpenOptions) -> ParseOptions {
    ParseOptions {
        implicit_thumb: options.implicit_thumb,
        big_endian: options.big_endian,
        cpu: options.cpu,
        ..ParseOptions::default()
    }
}
