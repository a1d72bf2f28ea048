//! Messages between the page and the indexing worker. Both directions go
//! through `postMessage` as plain JS values made by serde-wasm-bindgen; the
//! `File` travels as itself (structured clone shares the underlying data, so
//! a multi-gigabyte trace is never copied).

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use crate::browse::protocol::{Progress, Query, Reply};
use crate::stats::Stats;

/// How to read a trace (the CLI's `--implicit-thumb` and `--bi`), and the
/// page's URL options for it (`url_options.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenOptions {
    pub implicit_thumb: bool,
    pub big_endian: bool,
    /// Most bytes the index may hold before indexing stops (default:
    /// [`crate::browse::DEFAULT_INDEX_BUDGET`]).
    #[serde(default)]
    pub index_budget: Option<u64>,
    /// Makes the worker fail on purpose, so tests exercise the page's
    /// handling of a real crash.
    #[serde(default)]
    pub crash: Option<CrashTest>,
}

/// How the worker fails on purpose (`?crash=worker`, `?crash=worker-oom`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CrashTest {
    /// A Rust panic after the first indexing step.
    Panic,
    /// Allocations until one fails (the tab's memory is exhausted).
    OutOfMemory,
}

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
    /// A browser query; the answer comes back as [`ToPage::Answer`] with the same id.
    Ask { id: u32, query: Query },
}

/// Worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToPage {
    /// The worker's wasm is initialised and its message handler installed;
    /// anything posted before this would be dropped.
    Ready,
    /// `done` of `total` bytes consumed.
    Progress {
        done: u64,
        total: u64,
    },
    Finished {
        stats: Box<Stats>,
    },
    /// Indexing progress of an open trace.
    Indexing(Progress),
    Answer {
        id: u32,
        reply: Box<Reply>,
    },
    ElfLoaded {
        symbols: usize,
    },
    /// The ELF image could not be read; the trace stays open.
    ElfFailed {
        message: String,
    },
    /// Reading the file failed (the browser's reason).
    Failed {
        message: String,
    },
    /// The worker's Rust code panicked; it cannot be used any more.
    Panicked {
        message: String,
    },
}

fn serializer() -> serde_wasm_bindgen::Serializer {
    // u64 counts must survive the trip exactly; BigInt does that, f64 would
    // round beyond 2^53 bytes/lines. Maps become plain objects.
    serde_wasm_bindgen::Serializer::new()
        .serialize_large_number_types_as_bigints(true)
        .serialize_maps_as_objects(true)
}

pub fn encode<T: Serialize>(msg: &T) -> Result<JsValue, String> {
    msg.serialize(&serializer()).map_err(|e| e.to_string())
}

pub fn decode<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}
