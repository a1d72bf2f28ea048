//! Makes crashes visible. A wasm panic (or a worker that dies, from a panic
//! or a failed allocation) otherwise leaves a frozen page and one line in a
//! console most people never open. The overlay says what happened, holds a
//! ready-made report to copy, and leaves the page usable (another file can
//! be dropped; Reload starts afresh).

use std::panic::PanicHookInfo;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Id of the overlay that shows a crash on the page.
pub const PANIC_ELEMENT_ID: &str = "tarmac-lens-panic";

pub fn install_for_page() {
    // Through Yew: its renderer replaces any hook not set this way with its
    // own, which only logs to the console.
    yew::set_custom_panic_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        show_panic(&info.to_string());
    }));
    // The overlay's buttons work through one listener made now: a panic
    // hook cannot make JS closures (a second panic there aborts at once).
    let on_click = Closure::<dyn FnMut(web_sys::Event)>::new(on_overlay_click);
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        let _ =
            document.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
    }
    // Lives as long as the page.
    on_click.forget();
}

/// Clicks on the overlay's buttons (see [`install_for_page`]).
fn on_overlay_click(event: web_sys::Event) {
    let Some(target) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Some(overlay) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(PANIC_ELEMENT_ID))
    else {
        return;
    };
    match target.get_attribute("data-testid").as_deref() {
        Some("panic-copy") => {
            let report = overlay
                .query_selector("[data-testid=panic-report]")
                .ok()
                .flatten()
                .and_then(|p| p.text_content())
                .unwrap_or_default();
            copy_to_clipboard(&report);
        }
        Some("panic-reload") => {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        }
        Some("panic-dismiss") => overlay.remove(),
        _ => {}
    }
}

/// The text a person sends with a crash report: what crashed, the
/// version and the browser. Nothing about the trace beyond the message.
pub fn report_text(message: &str) -> String {
    let agent = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"navigator".into()).ok())
        .and_then(|n| js_sys::Reflect::get(&n, &"userAgent".into()).ok())
        .and_then(|a| a.as_string())
        .unwrap_or_else(|| "unknown browser".into());
    format!(
        "Tarmac Lens {} crashed\n\n{message}\n\nBrowser: {agent}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Shows a crash in a fixed overlay on top of the page. Written with raw
/// DOM calls because Yew's state may be what is broken; all text is set as
/// text, never parsed as HTML.
pub fn show_panic(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let report = report_text(message);
    let element = match document.get_element_by_id(PANIC_ELEMENT_ID) {
        Some(e) => e,
        None => {
            let Some(e) = build_overlay(&document) else {
                return;
            };
            let _ = body.append_child(&e);
            e
        }
    };
    if let Ok(Some(text)) = element.query_selector("[data-testid=panic-report]") {
        text.set_text_content(Some(&report));
    }
}

fn build_overlay(document: &web_sys::Document) -> Option<web_sys::Element> {
    let e = document.create_element("div").ok()?;
    e.set_id(PANIC_ELEMENT_ID);
    let _ = e.set_attribute("role", "alert");
    let _ = e.set_attribute("data-testid", "panic");
    let _ = e.set_attribute(
        "style",
        "position:fixed;left:0;right:0;bottom:0;max-height:50vh;overflow:auto;\
         z-index:1000;margin:0;padding:1em;background:#7f1d1d;color:#fff;\
         font:14px/1.4 system-ui,sans-serif;",
    );
    let intro = document.create_element("p").ok()?;
    intro.set_text_content(Some(
        "Tarmac Lens crashed. This is a bug (or the tab ran out of memory): please \
         report it with the text below. Your trace stays on your machine; the report \
         holds only this message. Drop another file, or reload the page, to continue.",
    ));
    let _ = intro.set_attribute("style", "margin:0 0 0.5em;");
    let pre = document.create_element("pre").ok()?;
    let _ = pre.set_attribute("data-testid", "panic-report");
    let _ = pre.set_attribute(
        "style",
        "margin:0 0 0.5em;white-space:pre-wrap;font:13px/1.4 monospace;user-select:all;",
    );
    let buttons = document.create_element("div").ok()?;
    let _ = buttons.set_attribute("style", "display:flex;gap:0.5em;");
    let copy = button(document, "Copy report", "panic-copy")?;
    let reload = button(document, "Reload", "panic-reload")?;
    let dismiss = button(document, "Dismiss", "panic-dismiss")?;
    for b in [&copy, &reload, &dismiss] {
        let _ = buttons.append_child(b);
    }
    for child in [&intro, &pre, &buttons] {
        let _ = e.append_child(child);
    }
    Some(e)
}

/// A button of the overlay; [`on_overlay_click`] knows it by `test_id`.
fn button(document: &web_sys::Document, label: &str, test_id: &str) -> Option<web_sys::Element> {
    let b = document.create_element("button").ok()?;
    b.set_text_content(Some(label));
    let _ = b.set_attribute("type", "button");
    let _ = b.set_attribute("data-testid", test_id);
    Some(b)
}

/// `navigator.clipboard.writeText(text)`, through reflection: the page
/// needs no clipboard bindings for this one call.
fn copy_to_clipboard(text: &str) {
    let clipboard = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"navigator".into()).ok())
        .and_then(|n| js_sys::Reflect::get(&n, &"clipboard".into()).ok());
    let Some(clipboard) = clipboard.filter(|c| c.is_object()) else {
        return;
    };
    if let Ok(write) = js_sys::Reflect::get(&clipboard, &"writeText".into()) {
        if let Some(write) = write.dyn_ref::<js_sys::Function>() {
            let _ = write.call1(&clipboard, &text.into());
        }
    }
}
