//! Finished indexes kept in the origin-private file system (OPFS), so a
//! trace opened again is browsable at once instead of indexed again — the
//! browser's counterpart of the reference tools' `TRACE.index`.
//!
//! One file per trace in one directory, named from the trace's name, size
//! and last-modified time: a changed file has another name and misses. The
//! contents are [`tarmac_lens_core::saved`]'s format, which repeats the size
//! and time, so a name collision is caught on restore. Usable from the
//! worker (reads and writes) and the page (listing and clearing).

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetDirectoryOptions,
    FileSystemGetFileOptions, FileSystemReadWriteOptions, FileSystemRemoveOptions,
    FileSystemSyncAccessHandle, StorageManager,
};

const DIR: &str = "tarmac-lens-index-cache";
const SUFFIX: &str = ".tlindex";

/// The cache entry's file name for a trace.
pub fn key(name: &str, size: u64, last_modified_ms: u64) -> String {
    // OPFS names may not hold separators; keep them short.
    let clean: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '\0') {
                '_'
            } else {
                c
            }
        })
        .take(120)
        .collect();
    format!("{clean}-{size}-{last_modified_ms}{SUFFIX}")
}

fn text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn is_not_found(e: &JsValue) -> bool {
    Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .is_some_and(|n| n == "NotFoundError")
}

async fn call(promise: js_sys::Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

thread_local! {
    /// The origin's OPFS root, once asked for: it never changes, and each
    /// lookup before a drop's first indexing step is a round trip.
    static ROOT: std::cell::RefCell<Option<FileSystemDirectoryHandle>> =
        const { std::cell::RefCell::new(None) };
}

async fn root() -> Result<FileSystemDirectoryHandle, String> {
    if let Some(root) = ROOT.with(|r| r.borrow().clone()) {
        return Ok(root);
    }
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).map_err(|e| text(&e))?;
    let storage = Reflect::get(&navigator, &"storage".into()).map_err(|e| text(&e))?;
    if storage.is_undefined() {
        return Err("this browser has no storage manager (OPFS)".into());
    }
    let storage: StorageManager = storage.unchecked_into();
    let root: FileSystemDirectoryHandle = call(storage.get_directory())
        .await
        .map_err(|e| format!("no origin-private file system: {}", text(&e)))?
        .unchecked_into();
    ROOT.with(|r| *r.borrow_mut() = Some(root.clone()));
    Ok(root)
}

/// Asks for the OPFS root ahead of the first lookup (the worker does at
/// start, while the person picks a file).
pub async fn prepare() {
    let _ = root().await;
}

/// The cache directory; `None` if it does not exist and `create` is false.
async fn directory(create: bool) -> Result<Option<FileSystemDirectoryHandle>, String> {
    let root = root().await?;
    let options = FileSystemGetDirectoryOptions::new();
    options.set_create(create);
    match call(root.get_directory_handle_with_options(DIR, &options)).await {
        Ok(dir) => Ok(Some(dir.unchecked_into())),
        Err(e) if is_not_found(&e) => Ok(None),
        Err(e) => Err(text(&e)),
    }
}

/// The saved index for `key`, if there is one.
pub async fn read(key: &str) -> Result<Option<Vec<u8>>, String> {
    let Some(dir) = directory(false).await? else {
        return Ok(None);
    };
    let handle: FileSystemFileHandle = match call(dir.get_file_handle(key)).await {
        Ok(h) => h.unchecked_into(),
        Err(e) if is_not_found(&e) => return Ok(None),
        Err(e) => return Err(text(&e)),
    };
    // A sync handle reads straight into wasm memory (`arrayBuffer()` and its
    // copy took 100-120 ms for a 27 MB index); it is exclusive, so while
    // another tab holds it, read the file as a page would.
    if let Ok(access) = call(handle.create_sync_access_handle()).await {
        let access: FileSystemSyncAccessHandle = access.unchecked_into();
        let read = read_all(&access);
        access.close();
        return read.map(Some);
    }
    let file: web_sys::File = call(handle.get_file())
        .await
        .map_err(|e| text(&e))?
        .unchecked_into();
    let buffer = call(file.array_buffer()).await.map_err(|e| text(&e))?;
    Ok(Some(Uint8Array::new(&buffer).to_vec()))
}

/// The whole file behind `access`.
fn read_all(access: &FileSystemSyncAccessHandle) -> Result<Vec<u8>, String> {
    let size = access.get_size().map_err(|e| text(&e))?;
    let mut bytes = vec![0u8; size as usize];
    let options = FileSystemReadWriteOptions::new();
    let mut at = 0;
    while at < bytes.len() {
        options.set_at(at as f64);
        let read = access
            .read_with_u8_array_and_options(&mut bytes[at..], &options)
            .map_err(|e| text(&e))? as usize;
        if read == 0 {
            return Err(format!("the cached index ended at byte {at} of {size}"));
        }
        at += read;
    }
    Ok(bytes)
}

/// A cache file being written a piece at a time (worker only: synchronous
/// access handles), so that a saved index never has to be whole in memory:
/// the encoder's output is appended as it comes.
pub struct CacheFile {
    dir: FileSystemDirectoryHandle,
    key: String,
    access: FileSystemSyncAccessHandle,
    at: u64,
}

/// Creates (or empties) the cache file for `key`.
pub async fn create(key: &str) -> Result<CacheFile, String> {
    let dir = directory(true)
        .await?
        .ok_or("cannot create the index cache directory")?;
    let options = FileSystemGetFileOptions::new();
    options.set_create(true);
    let handle: FileSystemFileHandle = call(dir.get_file_handle_with_options(key, &options))
        .await
        .map_err(|e| text(&e))?
        .unchecked_into();
    let access: FileSystemSyncAccessHandle = call(handle.create_sync_access_handle())
        .await
        .map_err(|e| text(&e))?
        .unchecked_into();
    if let Err(e) = access.truncate_with_f64(0.0) {
        access.close();
        return Err(text(&e));
    }
    Ok(CacheFile {
        dir,
        key: key.to_string(),
        access,
        at: 0,
    })
}

/// How much of an index is written per task (a 10 GB trace's index is
/// 470 MB, whose write in one call held every step for seconds after
/// indexing ended).
const WRITE_PIECE: usize = 1 << 20;

impl CacheFile {
    /// Appends `bytes`, awaiting `pause()` before each piece: the worker
    /// answers the page between pieces.
    pub async fn append<F: std::future::Future<Output = ()>>(
        &mut self,
        bytes: &[u8],
        pause: impl Fn() -> F,
    ) -> Result<(), String> {
        let options = FileSystemReadWriteOptions::new();
        for piece in bytes.chunks(WRITE_PIECE) {
            pause().await;
            options.set_at(self.at as f64);
            let started = crate::web::shared::timing::now();
            let written = self
                .access
                .write_with_u8_array_and_options(piece, &options)
                .map_err(|e| text(&e))?;
            crate::web::shared::timing::measure("write index piece", started);
            if written as usize != piece.len() {
                return Err("short write (is the disk full?)".into());
            }
            self.at += piece.len() as u64;
        }
        Ok(())
    }

    /// Flushes and closes the file, complete.
    pub async fn finish(self) -> Result<(), String> {
        let flushed = self.access.flush();
        self.access.close();
        if let Err(e) = flushed {
            self.abandon_closed().await;
            return Err(text(&e));
        }
        Ok(())
    }

    /// Closes and removes the file: half a file would only be refused on
    /// restore.
    pub async fn abandon(self) {
        self.access.close();
        self.abandon_closed().await;
    }

    async fn abandon_closed(self) {
        let _ = call(self.dir.remove_entry(&self.key)).await;
    }
}

/// Removes one entry (a stale or unreadable one).
pub async fn remove(key: &str) -> Result<(), String> {
    let Some(dir) = directory(false).await? else {
        return Ok(());
    };
    match call(dir.remove_entry(key)).await {
        Ok(_) => Ok(()),
        Err(e) if is_not_found(&e) => Ok(()),
        Err(e) => Err(text(&e)),
    }
}

/// What the cache keeps at most: the oldest entries go beyond either.
pub const MAX_BYTES: u64 = 1 << 30;
pub const MAX_ENTRIES: usize = 64;

/// A cached index.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub bytes: u64,
    /// When it was saved (ms since the epoch).
    pub saved_ms: f64,
}

/// The entries to remove so that at most `max_entries` remain, of at most
/// `max_bytes` together: the oldest first. The newest is always kept.
pub fn to_evict(entries: &[Entry], max_bytes: u64, max_entries: usize) -> Vec<String> {
    let mut by_age: Vec<&Entry> = entries.iter().collect();
    by_age.sort_by(|a, b| b.saved_ms.total_cmp(&a.saved_ms));
    let mut kept_bytes = 0u64;
    let mut out = Vec::new();
    for (i, e) in by_age.into_iter().enumerate() {
        if i == 0 || (i < max_entries && kept_bytes + e.bytes <= max_bytes) {
            kept_bytes += e.bytes;
        } else {
            out.push(e.name.clone());
        }
    }
    out
}

/// Removes the oldest entries beyond [`MAX_BYTES`] and [`MAX_ENTRIES`].
pub async fn trim() -> Result<(), String> {
    for name in to_evict(&list().await?, MAX_BYTES, MAX_ENTRIES) {
        remove(&name).await?;
    }
    Ok(())
}

/// The cached indexes, by name.
pub async fn list() -> Result<Vec<Entry>, String> {
    let Some(dir) = directory(false).await? else {
        return Ok(Vec::new());
    };
    let entries = dir.values();
    let mut out = Vec::new();
    loop {
        let next = entries.next().map_err(|e| text(&e))?;
        let step = call(next).await.map_err(|e| text(&e))?;
        if Reflect::get(&step, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true)
        {
            break;
        }
        let value = Reflect::get(&step, &"value".into()).map_err(|e| text(&e))?;
        let Some(handle) = value.dyn_ref::<FileSystemFileHandle>() else {
            continue;
        };
        let name = handle.name();
        if !name.ends_with(SUFFIX) {
            continue;
        }
        let file: web_sys::File = call(handle.get_file())
            .await
            .map_err(|e| text(&e))?
            .unchecked_into();
        out.push(Entry {
            name,
            bytes: file.size() as u64,
            saved_ms: file.last_modified(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Removes every cached index.
pub async fn clear() -> Result<(), String> {
    let root = root().await?;
    let options = FileSystemRemoveOptions::new();
    options.set_recursive(true);
    match call(root.remove_entry_with_options(DIR, &options)).await {
        Ok(_) => Ok(()),
        Err(e) if is_not_found(&e) => Ok(()),
        Err(e) => Err(text(&e)),
    }
}
