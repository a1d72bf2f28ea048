//! The index cache's files in the origin-private file system, read back as
//! the worker reads them: through a sync access handle, or, while another
//! context holds that handle, through the file's `arrayBuffer()`.
use tarmac_lens::web::reading::index_cache;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemSyncAccessHandle};

// Sync access handles exist in dedicated workers only.
/// Bytes no shorter read could pass for: several write pieces long, each
/// position's byte different from its neighbours'.
fn contents() -> Vec<u8> {
    (0..2_500_000u32).map(|i| (i * 7 + i / 251) as u8).collect()
}

async fn save(key: &str, bytes: &[u8]) {
    let mut file = index_cache::create(key).await.expect("cache file created");
    file.append(bytes, || async {})
        .await
        .expect("cache file written");
    file.finish().await.expect("cache file closed");
}

/// The cache file's own handle, as another context would take it.
async fn handle_of(key: &str) -> FileSystemFileHandle {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let storage: web_sys::StorageManager = js_sys::Reflect::get(&navigator, &"storage".into())
        .unwrap()
        .unchecked_into();
    let root: FileSystemDirectoryHandle = JsFuture::from(storage.get_directory())
        .await
        .unwrap()
        .unchecked_into();
    let dir: FileSystemDirectoryHandle =
        JsFuture::from(root.get_directory_handle("tarmac-lens-index-cache"))
            .await
            .unwrap()
            .unchecked_into();
    JsFuture::from(dir.get_file_handle(key))
        .await
        .unwrap()
        .unchecked_into()
}

#[wasm_bindgen_test]
async fn a_saved_index_reads_back_whole_with_or_without_the_sync_handle() {
    let key = index_cache::key("read-back.tarmac", 2_500_000, 1);
    let bytes = contents();
    save(&key, &bytes).await;

    let read = index_cache::read(&key).await.expect("read");
    assert!(
        read.as_deref() == Some(&bytes[..]),
        "read through the sync handle"
    );

    // Another context holds the file's only sync handle.
    let held: FileSystemSyncAccessHandle =
        JsFuture::from(handle_of(&key).await.create_sync_access_handle())
            .await
            .expect("the handle, free again after the read")
            .unchecked_into();
    let read = index_cache::read(&key).await.expect("read while held");
    held.close();
    assert!(
        read.as_deref() == Some(&bytes[..]),
        "read through arrayBuffer()"
    );

    index_cache::remove(&key).await.expect("removed");
    assert_eq!(index_cache::read(&key).await.expect("read"), None);
}
