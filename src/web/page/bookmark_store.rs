//! Where the page keeps each trace's bookmarks: `localStorage`, one entry
//! per trace, in the JSON export's form (`model::bookmarks::to_json`). A
//! dropped file is known by name, size and modification time, as the index
//! cache knows it (`reading::index_cache::key`), so the same file dropped
//! again finds its bookmarks and an edited one does not get them; a trace
//! opened from a URL is known by its URL.

use wasm_bindgen::JsCast;

use crate::web::shared::report_protocol::ReportFile;

const PREFIX: &str = "tarmac-lens.bookmarks.";

/// The storage key of a trace's bookmarks.
pub fn key(trace: &ReportFile) -> String {
    match trace {
        ReportFile::Blob { blob, name } => {
            let modified = blob
                .dyn_ref::<web_sys::File>()
                .map_or(0, |f| f.last_modified() as u64);
            let key = crate::web::reading::index_cache::key(name, blob.size() as u64, modified);
            format!("{PREFIX}{key}")
        }
        ReportFile::Url { url, .. } => format!("{PREFIX}{url}"),
    }
}

/// The bookmarks kept for a trace (JSON), if any.
pub fn load(key: &str) -> Option<String> {
    super::local_store::get(key)
}

/// Keeps a trace's bookmarks; none left removes the entry, so storage
/// does not fill with traces that once had one. A failure (storage full)
/// is said, as the bookmarks then last only as long as the page.
pub fn save(key: &str, json: Option<&str>) -> Result<(), String> {
    super::local_store::set(key, json)
}
