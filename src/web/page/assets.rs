//! Where the page finds its own files. Normally beside the page (relative
//! URLs, so any sub-path works); the single-file build
//! (scripts/single_file.mjs) has no files beside it and sets
//! `globalThis.tarmacLensAssets` to blob: URLs of the copies it carries.

use wasm_bindgen::JsValue;

/// The global the single-file bootstrap defines: `{ worker, demoTrace, demoElf }`.
const OVERRIDES: &str = "tarmacLensAssets";

/// The URL of asset `key`: the override if the page has one, else `default`.
pub fn url(key: &str, default: &str) -> String {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &JsValue::from_str(OVERRIDES))
        .ok()
        .filter(|o| o.is_object())
        .and_then(|o| js_sys::Reflect::get(&o, &JsValue::from_str(key)).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| default.to_string())
}
