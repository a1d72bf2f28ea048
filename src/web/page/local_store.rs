//! What the page keeps per browser in `localStorage` (the language, the
//! layout): reads and writes that never fail loudly, as storage may be
//! disabled (private windows, some file:// pages) and the page works
//! without it.

fn storage() -> Option<web_sys::Storage> {
    // localStorage throws where storage is disabled (and may on file://).
    web_sys::window()?.local_storage().ok().flatten()
}

/// The value kept under `key`, if any.
pub fn get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Keeps `value` under `key`; false where storage is unavailable or full.
pub fn set(key: &str, value: &str) -> bool {
    storage().is_some_and(|s| s.set_item(key, value).is_ok())
}
