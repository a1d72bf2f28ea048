//! Options read from the page's URL query: `?index-budget=BYTES` (the
//! index's memory budget, for a tab with little memory or a test), `?cpu=`
//! (the core followed in a multi-core trace), `?workers=N` (how many
//! workers index a dropped file, instead of one per core for big files; 1:
//! the session's worker alone), `?digest=1` (the finished index's digest on
//! the page, so tests can compare indexes), `?statistics-prefix=BYTES`
//! (how much of a long trace a statistic's first answer counts; 0: all of
//! it at once), `?prewarm=held` (the spare workers' waits ended by a test)
//! and the crash tests
//! `?crash=page|worker|worker-oom|range-worker`, which make the page or the
//! worker fail for real so the crash handling can be tested end to end.

use crate::web::shared::protocol::{CrashTest, OpenOptions};

/// The value of `name` in the URL query, if present.
fn param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Options for the next opened trace.
pub fn open_options() -> OpenOptions {
    OpenOptions {
        index_budget: param("index-budget").and_then(|v| v.parse().ok()),
        crash: match param("crash").as_deref() {
            Some("worker") => Some(CrashTest::Panic),
            Some("worker-oom") => Some(CrashTest::OutOfMemory),
            Some("range-worker") => Some(CrashTest::RangeWorker),
            _ => None,
        },
        cpu: core().and_then(|c| c.parse().ok()),
        workers: param("workers").and_then(|v| v.parse().ok()).unwrap_or(0),
        digest: param("digest").as_deref() == Some("1"),
        statistics_prefix: param("statistics-prefix").and_then(|v| v.parse().ok()),
        ..OpenOptions::default()
    }
}

/// `?cpu=NAME`: the core of a multi-core trace to follow; the page's core
/// picker sets it (with `history.replaceState`) so a link keeps the choice.
pub fn core() -> Option<String> {
    param("cpu").filter(|c| tarmac_lens_core::CpuName::new(c.as_bytes()).is_ok())
}

/// Sets or clears `?cpu=` in the address bar, keeping the rest.
pub fn set_core(core: Option<&str>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(url) = web_sys::Url::new(&window.location().href().unwrap_or_default()) else {
        return;
    };
    match core {
        Some(c) => url.search_params().set("cpu", c),
        None => url.search_params().delete("cpu"),
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url.href()));
    }
}

/// `?prewarm=held`: the page's waits before it starts spare workers end
/// when a test says so (`tarmacLensPrewarm()`), not after their delay.
pub fn prewarm_held() -> bool {
    param("prewarm").as_deref() == Some("held")
}

/// Whether the page itself should panic when a trace is dropped.
pub fn crash_page() -> bool {
    param("crash").as_deref() == Some("page")
}
