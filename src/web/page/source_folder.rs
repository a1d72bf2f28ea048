//! Source files the person gives the source pane: picked (a folder input,
//! or files) or dropped (a folder is walked through the entries API the
//! browsers share, `webkitGetAsEntry`). Only source-like files of modest
//! size are read (a folder may hold a build tree); their text stays in the
//! page.

use std::future::Future;
use std::pin::Pin;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::model::source::is_source_name;

/// Larger files are skipped: no source file is this big.
const MAX_SOURCE_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
/// Entries looked at per drop, so a drop of `/` cannot walk a disk.
const MAX_ENTRIES: usize = 50_000;

/// The text of `file` if it is a source file, with `path` as its name.
async fn read(file: web_sys::File, path: String) -> Option<(String, String)> {
    if !is_source_name(&file.name()) || file.size() > MAX_SOURCE_BYTES {
        return None;
    }
    let text = JsFuture::from(file.text()).await.ok()?.as_string()?;
    Some((path, text))
}

/// The files of a file input (their folder-relative paths where a folder
/// was picked).
pub async fn read_input(input: web_sys::HtmlInputElement) -> Vec<(String, String)> {
    let Some(list) = input.files() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for f in (0..list.length()).filter_map(|i| list.get(i)) {
        let rel = js_sys::Reflect::get(&f, &"webkitRelativePath".into())
            .ok()
            .and_then(|v| v.as_string())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| f.name());
        out.extend(read(f, rel).await);
    }
    out
}

/// What a drop holds, taken while the drop event runs (its items are gone
/// after it): entries to walk, or files where the browser gives no entry.
pub enum Dropped {
    Entry(web_sys::FileSystemEntry),
    File(web_sys::File),
}

pub fn take_drop(dt: &web_sys::DataTransfer) -> Vec<Dropped> {
    let items = dt.items();
    (0..items.length())
        .filter_map(|i| items.get(i))
        .filter_map(|item| match item.webkit_get_as_entry() {
            Ok(Some(entry)) => Some(Dropped::Entry(entry)),
            _ => item.get_as_file().ok().flatten().map(Dropped::File),
        })
        .collect()
}

/// Reads what [`take_drop`] took, walking folders.
pub async fn read_drop(dropped: Vec<Dropped>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut seen = 0;
    for d in dropped {
        match d {
            Dropped::File(f) => {
                let name = f.name();
                out.extend(read(f, name).await);
            }
            Dropped::Entry(e) => walk(e, &mut out, &mut seen).await,
        }
    }
    out
}

/// A promise of what a callback-style entries call gives.
fn called(f: impl FnOnce(&js_sys::Function, &js_sys::Function)) -> JsFuture {
    let mut f = Some(f);
    JsFuture::from(js_sys::Promise::new(&mut |resolve, reject| {
        if let Some(f) = f.take() {
            f(&resolve, &reject)
        }
    }))
}

fn walk<'a>(
    entry: web_sys::FileSystemEntry,
    out: &'a mut Vec<(String, String)>,
    seen: &'a mut usize,
) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
    Box::pin(async move {
        *seen += 1;
        if *seen > MAX_ENTRIES || entry.name().starts_with('.') {
            return;
        }
        let path = entry.full_path().trim_start_matches('/').to_string();
        if entry.is_file() {
            let file_entry: web_sys::FileSystemFileEntry = entry.unchecked_into();
            let file = called(|ok, err| file_entry.file_with_callback_and_callback(ok, err)).await;
            if let Ok(file) = file.and_then(|f| f.dyn_into::<web_sys::File>()) {
                out.extend(read(file, path).await);
            }
        } else if entry.is_directory() {
            let dir: web_sys::FileSystemDirectoryEntry = entry.unchecked_into();
            let reader = dir.create_reader();
            // readEntries gives a batch at a time, then an empty one.
            loop {
                let batch = called(|ok, err| {
                    // Thrown at once (no callback will come): a rejection.
                    if let Err(e) = reader.read_entries_with_callback_and_callback(ok, err) {
                        let _ = err.call1(&wasm_bindgen::JsValue::NULL, &e);
                    }
                })
                .await;
                let Ok(batch) = batch else { break };
                let batch = js_sys::Array::from(&batch);
                if batch.length() == 0 {
                    break;
                }
                for e in batch.iter() {
                    walk(e.unchecked_into(), out, seen).await;
                }
            }
        }
    })
}

/// Whether the browser has the File System Access directory picker.
pub fn has_directory_picker() -> bool {
    web_sys::window()
        .is_some_and(|w| js_sys::Reflect::has(&w, &"showDirectoryPicker".into()).unwrap_or(false))
}

/// The person picks a folder with the File System Access picker (read
/// only); its source files are read. `None` when they cancel.
pub async fn pick_directory() -> Option<Vec<(String, String)>> {
    let window = web_sys::window()?;
    let pick = js_sys::Reflect::get(&window, &"showDirectoryPicker".into()).ok()?;
    let pick: js_sys::Function = pick.dyn_into().ok()?;
    let handle = JsFuture::from(js_sys::Promise::from(pick.call0(&window).ok()?))
        .await
        .ok()?;
    let mut out = Vec::new();
    let mut seen = 0;
    let name = js_sys::Reflect::get(&handle, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    walk_handle(handle, name, &mut out, &mut seen).await;
    Some(out)
}

fn get(v: &wasm_bindgen::JsValue, key: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap_or(wasm_bindgen::JsValue::UNDEFINED)
}

/// Calls method `name` of `v` with no argument, awaiting what it returns.
async fn call(v: &wasm_bindgen::JsValue, name: &str) -> Option<wasm_bindgen::JsValue> {
    let f: js_sys::Function = get(v, name).dyn_into().ok()?;
    let r = f.call0(v).ok()?;
    JsFuture::from(js_sys::Promise::resolve(&r)).await.ok()
}

fn walk_handle<'a>(
    dir: wasm_bindgen::JsValue,
    path: String,
    out: &'a mut Vec<(String, String)>,
    seen: &'a mut usize,
) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
    Box::pin(async move {
        // `values()` is an async iterator of the folder's handles.
        let Some(iter) = get(&dir, "values")
            .dyn_into::<js_sys::Function>()
            .ok()
            .and_then(|f| f.call0(&dir).ok())
        else {
            return;
        };
        while let Some(step) = call(&iter, "next").await {
            if get(&step, "done").as_bool().unwrap_or(true) {
                break;
            }
            *seen += 1;
            if *seen > MAX_ENTRIES {
                break;
            }
            let handle = get(&step, "value");
            let name = get(&handle, "name").as_string().unwrap_or_default();
            if name.starts_with('.') {
                continue;
            }
            let child = format!("{path}/{name}");
            match get(&handle, "kind").as_string().as_deref() {
                Some("file") => {
                    let file = call(&handle, "getFile").await;
                    if let Some(file) = file.and_then(|f| f.dyn_into::<web_sys::File>().ok()) {
                        out.extend(read(file, child).await);
                    }
                }
                Some("directory") => walk_handle(handle, child, out, seen).await,
                _ => {}
            }
        }
    })
}
