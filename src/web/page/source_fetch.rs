//! `&src=BASE_URL`: source files for the source pane fetched from where a
//! documentation site hosts them, instead of picked by the reader. A file
//! the DWARF names `/build/fw/src/hash.c` is looked for at
//! `BASE/build/fw/src/hash.c`, then `BASE/fw/src/hash.c`, … down to
//! `BASE/hash.c` (at most four tries, longest first: a site mirrors some
//! tail of the build tree). Plain GETs, under the page's
//! Content-Security-Policy like `?url=`.

use std::collections::HashSet;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::Callback;

/// What the page fetched or tried.
#[derive(Default)]
pub struct SourceFetch {
    base: Option<String>,
    tried: HashSet<String>,
}

/// A file fetched (its path below the base, its text), or why none was.
pub type Fetched = Result<(String, String), String>;

impl SourceFetch {
    /// From the page's `&src=`, if any.
    pub fn from_page() -> SourceFetch {
        SourceFetch {
            base: super::page_params::current().src,
            tried: HashSet::new(),
        }
    }

    /// Whether the page has a `&src=`.
    pub fn active(&self) -> bool {
        self.base.is_some()
    }

    /// Fetches each of `wanted` (DWARF paths) not tried yet.
    pub fn want(&mut self, wanted: Vec<String>, done: &Callback<Fetched>) {
        let Some(base) = &self.base else { return };
        for file in wanted {
            if self.tried.insert(file.clone()) {
                let (base, done) = (base.clone(), done.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    done.emit(fetch_one(&base, &file).await);
                });
            }
        }
    }
}

async fn fetch_one(base: &str, path: &str) -> Fetched {
    let window = web_sys::window().ok_or("no window")?;
    let mut tried = Vec::new();
    for (url, tail) in crate::model::source::source_urls(base, path) {
        let (absolute, _, _) = super::page_params::resolve(&url)?;
        let Ok(resp) = JsFuture::from(window.fetch_with_str(&absolute)).await else {
            tried.push(absolute);
            continue;
        };
        let Ok(resp) = resp.dyn_into::<web_sys::Response>() else {
            continue;
        };
        if resp.ok() {
            if let Ok(text) = resp.text() {
                if let Some(text) = JsFuture::from(text).await.ok().and_then(|t| t.as_string()) {
                    return Ok((tail, text));
                }
            }
        }
        tried.push(absolute);
    }
    Err(format!("{path}: not found at {}", tried.join(", ")))
}
