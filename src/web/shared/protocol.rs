//! Messages between the page and the indexing worker, through `postMessage`.
//!
//! Page -> worker messages are plain JS values made by serde-wasm-bindgen,
//! because the `File` must travel as itself (structured clone shares the
//! underlying data, so a multi-gigabyte trace is never copied). Worker ->
//! page messages are JSON text: answers (a screenful of highlighted rows, a
//! register file) are hundreds of small objects, and building or reading
//! them field by field across the wasm/JS boundary cost tens of
//! milliseconds of the UI thread per screenful; one string costs well under
//! one. The one exception: a URL's trace downloaded whole is posted as its
//! `Blob`, for the report worker to read (`page/client.rs`).

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use tarmac_lens_core::protocol::{Query, Reply};

pub use super::open_options::{CrashTest, OpenOptions};
/// What the page learns of its trace besides answers: the page's model's
/// messages (`model::page`), carried as they are.
pub use crate::model::page::{PageEvent, Reading};

/// Page -> worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum ToWorker {
    /// Count the records of this file.
    Index {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: web_sys::File,
    },
    /// Open this file for browsing: index it in steps, answering queries
    /// between steps.
    Open {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: web_sys::File,
        options: OpenOptions,
    },
    /// Load ELF symbols for the open trace.
    LoadElf {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: web_sys::File,
        load_offset: i64,
    },
    /// Browser queries asked in one task of the page (a move's follow-ups:
    /// its row, call stack and panes); the answers come back together in
    /// one [`ToPage::Answer`], in order, so the page applies them in one
    /// task and draws them in one frame.
    Ask { asks: Vec<(u32, Query)> },
    /// Open a trace on a web server (`?url=`), by ranges or downloaded.
    OpenUrl {
        url: String,
        cross_origin: bool,
        options: OpenOptions,
    },
    /// Load ELF symbols from a web server (`&elf=`).
    LoadElfUrl {
        url: String,
        cross_origin: bool,
        load_offset: i64,
    },
    /// To a range worker: index raw byte range `[from, to)` of this file as
    /// part `part` and report on `port` (`worker/range.rs`).
    IndexRange {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: web_sys::File,
        part: u32,
        from: u64,
        to: u64,
        options: OpenOptions,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        port: web_sys::MessagePort,
    },
    /// To a range worker: [`ToWorker::IndexRange`] of a trace on a web
    /// server that serves byte ranges (`?url=`).
    IndexRangeUrl {
        url: String,
        cross_origin: bool,
        part: u32,
        from: u64,
        to: u64,
        options: OpenOptions,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        port: web_sys::MessagePort,
    },
    /// To the session's worker: part `part` will be reported on `port`.
    RangePort {
        part: u32,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        port: web_sys::MessagePort,
    },
    /// To the session's worker: the worker of part `part` died.
    RangeFailed { part: u32 },
    /// To the session's worker: the page shows the first rows, so indexing
    /// held for them goes on (`worker/session/pacer.rs`, `FIRST_SCREEN_MS`).
    Shown,
    /// To a report worker (`report_protocol.rs`).
    Report(super::report_protocol::ReportRequest),
    /// To a comparison worker: compare trace `a` with trace `b`
    /// (`worker/diff.rs`), reporting at most `max` divergences.
    Diff {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        a: web_sys::File,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        b: web_sys::File,
        options: OpenOptions,
        max: u32,
    },
}

/// Worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToPage {
    /// The worker's wasm is initialised and its message handler installed;
    /// anything posted before this would be dropped.
    Ready,
    /// `done` of `total` bytes consumed.
    Progress { done: u64, total: u64 },
    /// What the page learns of its trace besides answers (indexing
    /// progress, statistics, the ELF image's outcome, ...): the client
    /// hands it on as it comes.
    Event(PageEvent),
    /// The answers to one [`ToWorker::Ask`], by id.
    Answer { answers: Vec<(u32, Reply)> },
    /// Raw byte ranges for other workers to index, parts 1.. in order.
    IndexRanges { ranges: Vec<(u64, u64)> },
    /// A digest of the finished index and statistics (`?digest=1`), and
    /// how many of the ranges other workers indexed were adopted.
    IndexDigest {
        digest: Option<String>,
        ranges: u32,
        joined: u32,
    },
    /// Reading the file failed (the browser's reason).
    Failed { message: String },
    /// The worker's Rust code panicked; it cannot be used any more.
    Panicked { message: String },
    /// From a report worker (`report_protocol.rs`).
    Report(super::report_protocol::ReportEvent),
}

/// How a message type travels through `postMessage`.
pub trait Wire: Sized {
    fn to_js(&self) -> Result<JsValue, String>;
    fn from_js(value: JsValue) -> Result<Self, String>;
}

impl Wire for ToWorker {
    fn to_js(&self) -> Result<JsValue, String> {
        // u64 counts must survive the trip exactly; BigInt does that, f64
        // would round beyond 2^53 bytes/lines.
        let serializer =
            serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);
        self.serialize(&serializer).map_err(|e| e.to_string())
    }

    fn from_js(value: JsValue) -> Result<Self, String> {
        serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
    }
}

impl Wire for ToPage {
    fn to_js(&self) -> Result<JsValue, String> {
        // serde_json keeps u64 exact (it never goes through an f64).
        serde_json::to_string(self)
            .map(|text| JsValue::from_str(&text))
            .map_err(|e| e.to_string())
    }

    fn from_js(value: JsValue) -> Result<Self, String> {
        let text = value
            .as_string()
            .ok_or_else(|| "a message from the worker is not JSON text".to_string())?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }
}

pub fn encode<T: Wire>(msg: &T) -> Result<JsValue, String> {
    msg.to_js()
}

pub fn decode<T: Wire>(value: JsValue) -> Result<T, String> {
    T::from_js(value)
}
