//! DOM helpers shared by the wasm component tests.

use wasm_bindgen_futures::JsFuture;
use web_sys::Element;

/// A new, empty `<div>` in the test page's body to render into.
pub fn fresh_root() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

/// Yew renders from its scheduler, after the current task; a timer tick lets
/// it finish.
pub async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// The first element matching `selector`; a test failure naming it if none.
pub fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}
