//! A trace on a web server (`?url=`), read from the worker.
//!
//! [`fetch`] asks for the first byte with a `Range` header. A server that
//! answers `206 Partial Content` serves ranges: the trace is then read in
//! slices by [`HttpSource`] with synchronous requests (allowed in workers),
//! so a 10 GB trace is never downloaded whole. A server that answers `200`
//! sends the whole file instead: that same response is the download, with
//! progress, and the trace is then read from the downloaded `Blob`.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ProgressEvent, XmlHttpRequest, XmlHttpRequestResponseType};

use super::read_ahead::{self, Origin, ReadAhead, SharedReadAhead};
pub use super::url::Target;
use tarmac_lens_core::{Error, TraceSource};

/// What the first request found.
pub enum Fetched {
    /// The server serves ranges; nothing but the first byte was read.
    Ranges(HttpSource),
    /// The server sent the whole file.
    Whole(Blob),
}

fn request(method: &str, target: &Target, asynchronous: bool) -> Result<XmlHttpRequest, String> {
    let xhr = XmlHttpRequest::new().map_err(|e| format!("XMLHttpRequest unavailable: {e:?}"))?;
    xhr.open_with_async(method, &target.url, asynchronous)
        .map_err(|e| format!("cannot request {}: {}", target.url, js_text(&e)))?;
    Ok(xhr)
}

fn js_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The first bytes asked for with the first request, kept: enough to tell
/// a compressed trace (`compressed::format_of`) without another request.
const HEAD: u64 = 4;

/// Total length from a `Content-Range: bytes 0-3/12345` header.
fn total_of(content_range: &str) -> Option<u64> {
    content_range.rsplit_once('/')?.1.trim().parse().ok()
}

/// Opens a URL: ranges when the server serves them, otherwise the whole
/// file, reporting `(received, total if known)` as it comes.
pub async fn fetch(
    target: &Target,
    on_progress: impl Fn(u64, Option<u64>) + 'static,
) -> Result<Fetched, String> {
    let xhr = request("GET", target, true)?;
    xhr.set_response_type(XmlHttpRequestResponseType::Blob);
    xhr.set_request_header("Range", &format!("bytes=0-{}", HEAD - 1))
        .map_err(|e| js_text(&e))?;
    let progress = {
        let xhr = xhr.clone();
        Closure::<dyn FnMut(ProgressEvent)>::new(move |e: ProgressEvent| {
            // A 206 answer is a few bytes; only a whole download is worth a bar.
            if xhr.status().ok() == Some(200) {
                on_progress(
                    e.loaded() as u64,
                    e.length_computable().then(|| e.total() as u64),
                );
            }
        })
    };
    xhr.set_onprogress(Some(progress.as_ref().unchecked_ref()));
    // Whether the request failed without an answer (network error, CORS,
    // policy); an abort or a timeout counts as such a failure too.
    let failed = Rc::new(RefCell::new(false));
    let done = js_sys::Promise::new(&mut |resolve, _reject| {
        let loaded = resolve.clone();
        let on_load = Closure::once_into_js(move || {
            let _ = loaded.call0(&JsValue::NULL);
        });
        xhr.set_onload(Some(on_load.unchecked_ref()));
        let on_failure = || {
            let resolve = resolve.clone();
            let failed = failed.clone();
            Closure::once_into_js(move || {
                *failed.borrow_mut() = true;
                let _ = resolve.call0(&JsValue::NULL);
            })
        };
        xhr.set_onerror(Some(on_failure().unchecked_ref()));
        xhr.set_onabort(Some(on_failure().unchecked_ref()));
        xhr.set_ontimeout(Some(on_failure().unchecked_ref()));
    });
    xhr.send()
        .map_err(|e| format!("cannot request {}: {}", target.url, js_text(&e)))?;
    let _ = JsFuture::from(done).await;
    drop(progress);
    if *failed.borrow() {
        return Err(target.network_error());
    }
    match xhr.status().unwrap_or(0) {
        206 => {
            let range = xhr
                .get_response_header("Content-Range")
                .ok()
                .flatten()
                .unwrap_or_default();
            let len = total_of(&range).ok_or_else(|| {
                format!(
                    "cannot read {}: the server serves ranges but its Content-Range header \
                     (\"{range}\") gives no total length{}",
                    target.url,
                    if target.cross_origin {
                        " (a server on another site must list Content-Range in \
                         Access-Control-Expose-Headers)"
                    } else {
                        ""
                    }
                )
            })?;
            let head = match xhr.response().ok().and_then(|r| r.dyn_into::<Blob>().ok()) {
                Some(blob) => JsFuture::from(blob.array_buffer())
                    .await
                    .map(|b| Uint8Array::new(&b).to_vec())
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            let mut source = HttpSource::new(target.clone(), len);
            if head.len() as u64 == len.min(HEAD) {
                source.head = head;
            }
            Ok(Fetched::Ranges(source))
        }
        200 => xhr
            .response()
            .ok()
            .and_then(|r| r.dyn_into::<Blob>().ok())
            .map(Fetched::Whole)
            .ok_or_else(|| format!("cannot read {}: the download has no body", target.url)),
        0 => Err(target.network_error()),
        _ => Err(target.status_error(&xhr)),
    }
}

/// The whole body of a URL, synchronously (an ELF image: a few megabytes).
pub fn get_all(target: &Target) -> Result<Vec<u8>, String> {
    let xhr = request("GET", target, false)?;
    // Synchronous requests may set a response type only in workers.
    xhr.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    if xhr.send().is_err() {
        return Err(target.network_error());
    }
    match xhr.status().unwrap_or(0) {
        200 | 206 => {
            let body = xhr.response().map_err(|e| js_text(&e))?;
            Ok(Uint8Array::new(&body).to_vec())
        }
        0 => Err(target.network_error()),
        _ => Err(target.status_error(&xhr)),
    }
}

/// A trace read from a range-serving web server, one request per read,
/// or, for long sequential reads with [`HttpSource::with_read_ahead`], from
/// slices read ahead (see [`super::read_ahead`]).
pub struct HttpSource {
    target: Target,
    /// The same, for the read-ahead.
    origin: Origin,
    len: u64,
    /// The first bytes, from the first request ([`HEAD`]).
    head: Vec<u8>,
    requests: u64,
    ahead: Option<SharedReadAhead>,
}

/// A clone reads the same URL (the report worker reads it more than
/// once), without the read-ahead, which is one reader's.
impl Clone for HttpSource {
    fn clone(&self) -> HttpSource {
        HttpSource {
            target: self.target.clone(),
            origin: self.origin.clone(),
            len: self.len,
            head: self.head.clone(),
            requests: self.requests,
            ahead: None,
        }
    }
}

impl HttpSource {
    fn new(target: Target, len: u64) -> HttpSource {
        HttpSource {
            origin: Origin::Url(target.clone()),
            target,
            len,
            head: Vec::new(),
            requests: 0,
            ahead: None,
        }
    }

    /// Range requests made so far by this thread (the read-ahead's are
    /// its nested worker's).
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Reads long sequential slices ahead, asynchronously, from `from`
    /// on: for a reader that lets the event loop run between reads.
    pub fn with_read_ahead(self, from: u64) -> HttpSource {
        self.with_read_ahead_of(ReadAhead::default(), from)
    }

    /// [`HttpSource::with_read_ahead`] through `ahead` (the tests' way to
    /// take the paths where no nested worker or no stream reader is).
    pub fn with_read_ahead_of(mut self, ahead: ReadAhead, from: u64) -> HttpSource {
        let ahead = SharedReadAhead::new(ahead);
        ahead.borrow_mut().advance(&self.origin, self.len, from);
        self.ahead = Some(ahead);
        self
    }

    /// The read-ahead, for the loop that reads through this source.
    pub fn read_ahead(&self) -> Option<SharedReadAhead> {
        self.ahead.clone()
    }
}

impl TraceSource for HttpSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, Error> {
        let (target, len, requests) = (&self.target, self.len, &mut self.requests);
        if let Some(kept) = usize::try_from(offset)
            .ok()
            .and_then(|at| self.head.get(at..at.checked_add(buf.len())?))
        {
            buf.copy_from_slice(kept);
            return Ok(buf.len());
        }
        read_ahead::read_through(
            self.ahead.as_ref(),
            &self.origin,
            len,
            offset,
            buf,
            |at, b| read_sync(target, len, requests, at, b),
        )
    }
}

/// Bytes at `offset` of the trace at `target` (`len` long), by one
/// synchronous request.
fn read_sync(
    target: &Target,
    len: u64,
    requests: &mut u64,
    offset: u64,
    buf: &mut [u8],
) -> Result<usize, Error> {
    let end = offset.saturating_add(buf.len() as u64).min(len);
    if offset >= end {
        return Ok(0);
    }
    let xhr = request("GET", target, false).map_err(Error::Read)?;
    // A Blob read with FileReaderSync, not an ArrayBuffer response: the
    // tab kept those longer (3 GB read: peak 1.1-1.4 GB against 0.7).
    xhr.set_response_type(XmlHttpRequestResponseType::Blob);
    xhr.set_request_header("Range", &format!("bytes={offset}-{}", end - 1))
        .map_err(|e| Error::Read(js_text(&e)))?;
    *requests += 1;
    if xhr.send().is_err() {
        return Err(Error::Read(target.network_error()));
    }
    match xhr.status().unwrap_or(0) {
        206 => {}
        0 => return Err(Error::Read(target.network_error())),
        200 => {
            return Err(Error::Read(format!(
                "cannot read {}: the server stopped serving byte ranges",
                target.url
            )))
        }
        _ => return Err(Error::Read(target.status_error(&xhr))),
    }
    let blob: Blob = xhr
        .response()
        .map_err(|e| Error::Read(js_text(&e)))?
        .dyn_into()
        .map_err(|_| Error::Read(format!("cannot read {}: no body", target.url)))?;
    let body = web_sys::FileReaderSync::new()
        .and_then(|r| r.read_as_array_buffer(&blob))
        .map_err(|e| Error::Read(js_text(&e)))?;
    let array = Uint8Array::new(&body);
    let n = (array.length() as usize).min(buf.len());
    array.subarray(0, n as u32).copy_to(&mut buf[..n]);
    super::after_sync_read(n);
    Ok(n)
}
