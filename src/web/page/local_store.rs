//! What the page keeps per browser in `localStorage` (the language, the
//! layout, each trace's bookmarks). Storage may be disabled (private
//! windows, some file:// pages): then nothing is kept and the page works
//! without it.

fn storage() -> Option<web_sys::Storage> {
    // localStorage throws where storage is disabled (and may on file://).
    web_sys::window()?.local_storage().ok().flatten()
}

/// The value kept under `key`, if any.
pub fn get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Keeps `value` under `key` (`None`: removes what is there). No storage
/// is no error; storage refusing it (full) is, with the browser's words.
pub fn set(key: &str, value: Option<&str>) -> Result<(), String> {
    let Some(s) = storage() else {
        return Ok(());
    };
    match value {
        Some(v) => s.set_item(key, v),
        None => s.remove_item(key),
    }
    .map_err(|e| format!("{e:?}"))
}
