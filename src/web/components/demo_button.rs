//! "Try the demo": opens the trace and ELF image the app ships
//! (www/demo/, fetched from the app's own files), as if they were dropped.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use crate::web::page::assets;
use crate::web::page::i18n::{t, tf, use_lang};

/// The demo's files: asset key (see `assets`), URL beside the page, name shown.
const FILES: [(&str, &str, &str); 2] = [
    (
        "demoTrace",
        "./demo/recursion-aarch64.tarmac",
        "recursion-aarch64.tarmac",
    ),
    (
        "demoElf",
        "./demo/recursion-aarch64.elf",
        "recursion-aarch64.elf",
    ),
];

#[derive(Properties, PartialEq)]
pub struct DemoButtonProps {
    /// Receives the trace, then its ELF image.
    pub on_file: Callback<web_sys::File>,
}

async fn fetch_file(url: &str, name: &str) -> Result<web_sys::File, String> {
    let window = web_sys::window().ok_or("no window")?;
    let failed = |e: wasm_bindgen::JsValue| {
        tf(
            "cannot load the demo file {}: {}",
            &[&url, &format!("{e:?}")],
        )
    };
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    if !response.ok() {
        let status = format!("HTTP {}", response.status());
        return Err(tf("cannot load the demo file {}: {}", &[&url, &status]));
    }
    let blob = JsFuture::from(response.blob().map_err(failed)?)
        .await
        .map_err(failed)?;
    web_sys::File::new_with_blob_sequence(&js_sys::Array::of1(&blob), name).map_err(failed)
}

#[function_component(DemoButton)]
pub fn demo_button(props: &DemoButtonProps) -> Html {
    use_lang();
    let error = use_state_eq(|| None::<String>);
    let loading = use_state_eq(|| false);
    let onclick = {
        let on_file = props.on_file.clone();
        let error = error.clone();
        let loading = loading.clone();
        Callback::from(move |_: MouseEvent| {
            let on_file = on_file.clone();
            let error = error.clone();
            let loading = loading.clone();
            loading.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                let mut files = Vec::new();
                for (key, default, name) in FILES {
                    match fetch_file(&assets::url(key, default), name).await {
                        Ok(file) => files.push(file),
                        Err(e) => {
                            error.set(Some(e));
                            loading.set(false);
                            return;
                        }
                    }
                }
                loading.set(false);
                files.into_iter().for_each(|f| on_file.emit(f));
            });
        })
    };
    html! {
        <div class="demo" style="display:flex;gap:0.6rem;align-items:center;flex-wrap:wrap;">
            <button data-testid="demo-button" class="demo-button" onclick={onclick} disabled={*loading}>
                { t("Try the demo") }
            </button>
            <span class="hint">{ t("a 550 KB trace of a recursive program, with its symbols") }</span>
            if let Some(message) = &*error {
                <span role="alert" data-testid="demo-error" class="error">{ message.clone() }</span>
            }
        </div>
    }
}
