//! User Timing spans (`performance.measure`), so the worker's open, steps and
//! answers and the page's first renders show by name in a DevTools or
//! Chromium trace (`blink.user_timing`) instead of as anonymous wasm calls.

use wasm_bindgen::{JsCast, JsValue};

fn performance() -> Option<web_sys::Performance> {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &JsValue::from_str("performance"))
        .ok()
        .filter(|p| !p.is_undefined())
        .map(JsCast::unchecked_into)
}

/// Milliseconds since the page (or worker) started.
pub fn now() -> f64 {
    performance().map_or(0.0, |p| p.now())
}

/// Records a span from `start` (a [`now`] reading) to now, named `name`.
pub fn measure(name: &str, start: f64) {
    let Some(perf) = performance() else { return };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"start".into(), &start.into());
    let _ = js_sys::Reflect::set(&options, &"end".into(), &perf.now().into());
    let measure = js_sys::Reflect::get(&perf, &"measure".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(measure) = measure {
        let _ = measure.call2(&perf, &name.into(), &options);
    }
    // The timeline keeps every measure until cleared: a long session of
    // stepping would grow it without end. A trace recording has each span
    // already; only `getEntries` readers lose the older ones.
    let n = MEASURES.with(|m| {
        m.set(m.get() + 1);
        m.get()
    });
    if n.is_multiple_of(KEEP_MEASURES) {
        perf.clear_measures();
    }
}

/// Measures kept in the performance timeline at most (about).
const KEEP_MEASURES: u32 = 5000;

thread_local! {
    static MEASURES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A promise resolved after `ms` milliseconds, in a later task (after the
/// messages already queued) even for 0; at once where there is no
/// `setTimeout`.
pub fn timer(ms: f64) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout = js_sys::Reflect::get(&js_sys::global(), &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        match set_timeout {
            Some(f) => {
                let _ = f.call2(&JsValue::UNDEFINED, &resolve, &ms.into());
            }
            None => {
                let _ = resolve.call0(&JsValue::UNDEFINED);
            }
        }
    })
}

/// Resolves after `ms` milliseconds (see [`timer`]).
pub async fn sleep(ms: f64) {
    let _ = wasm_bindgen_futures::JsFuture::from(timer(ms)).await;
}

/// Runs `f` in a task of its own, `ms` from now (on the page).
pub fn after_ms(ms: i32, f: impl FnOnce() + 'static) {
    let Some(w) = web_sys::window() else { return };
    let f = wasm_bindgen::closure::Closure::once_into_js(f);
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), ms);
}
