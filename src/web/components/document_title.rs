//! The window title names the open file, so a tab or window list tells
//! traces apart.

use yew::prelude::*;

pub const APP_NAME: &str = "Tarmac Lens";

/// "name — Tarmac Lens", or the app's name alone when no file is open.
pub fn title_for(file_name: Option<&str>) -> String {
    match file_name {
        Some(name) => format!("{name} — {APP_NAME}"),
        None => APP_NAME.to_string(),
    }
}

/// Keeps `document.title` in step with the open file's name.
#[hook]
pub fn use_document_title(file_name: Option<String>) {
    use_effect_with(file_name, |name| {
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            document.set_title(&title_for(name.as_deref()));
        }
    });
}
