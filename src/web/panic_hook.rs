//! Makes Rust panics visible. A wasm panic otherwise leaves a frozen page
//! and one line in a console most people never open.

use std::panic::PanicHookInfo;

use wasm_bindgen::JsCast;

use super::protocol::ToPage;

/// Id of the overlay that shows a panic on the page.
pub const PANIC_ELEMENT_ID: &str = "tarmac-lens-panic";

pub fn install_for_page() {
    std::panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        show_panic(&info.to_string());
    }));
}

pub fn install_for_worker() {
    std::panic::set_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        super::worker::post(&ToPage::Panicked {
            message: info.to_string(),
        });
    }));
}

/// Shows `message` in a fixed overlay on top of the page. Written with raw
/// DOM calls because Yew's state may be what is broken.
pub fn show_panic(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let element = match document.get_element_by_id(PANIC_ELEMENT_ID) {
        Some(e) => e,
        None => {
            let Ok(e) = document.create_element("div") else {
                return;
            };
            e.set_id(PANIC_ELEMENT_ID);
            let _ = e.set_attribute("role", "alert");
            let _ = e.set_attribute("data-testid", "panic");
            let _ = e.set_attribute(
                "style",
                "position:fixed;left:0;right:0;bottom:0;max-height:50vh;overflow:auto;\
                 z-index:1000;margin:0;padding:1em;background:#7f1d1d;color:#fff;\
                 font:14px/1.4 monospace;white-space:pre-wrap;",
            );
            let _ = body.append_child(&e);
            e
        }
    };
    let text = format!(
        "Tarmac Lens crashed (this is a bug; please report it with the text below). \
         Reload the page to continue.\n\n{message}"
    );
    if let Some(html) = element.dyn_ref::<web_sys::HtmlElement>() {
        html.set_inner_text(&text);
    } else {
        element.set_text_content(Some(&text));
    }
}
