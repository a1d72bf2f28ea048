//! How a worker is to read a trace ([`OpenOptions`]), asked of the session's
//! worker ([`super::protocol`]) and of a report worker
//! ([`super::report_protocol`]) alike.

use serde::{Deserialize, Serialize};

/// How to read a trace (the CLI's `--implicit-thumb` and `--bi`), and the
/// page's URL options for it (`page/url_options.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenOptions {
    pub implicit_thumb: bool,
    pub big_endian: bool,
    /// Most bytes the index may hold before indexing stops (default:
    /// [`tarmac_lens_core::browse::DEFAULT_INDEX_BUDGET`]).
    #[serde(default)]
    pub index_budget: Option<u64>,
    /// Makes the worker fail on purpose, so tests exercise the page's
    /// handling of a real crash.
    #[serde(default)]
    pub crash: Option<CrashTest>,
    /// In a multi-core trace, the core to follow (`--cpu`); `None`: every
    /// line drives the one register file, as in a single-core trace.
    #[serde(default)]
    pub cpu: Option<tarmac_lens_core::parse::CpuName>,
    /// Workers indexing a dropped file together (`page/range_pool.rs`); 0 or 1:
    /// the session's worker alone. For a URL, only `?workers=N` (its
    /// length is known once the session's worker has asked).
    #[serde(default)]
    pub workers: u32,
    /// The machine's cores, for the session's worker to choose how many
    /// workers index a URL's trace of the length it learns.
    #[serde(default)]
    pub cores: u32,
    /// Post a digest of the finished index ([`super::protocol::ToPage::IndexDigest`]), for
    /// tests comparing indexes built in different ways (`?digest=1`).
    #[serde(default)]
    pub digest: bool,
}

/// How the worker fails on purpose (`?crash=worker`, `?crash=worker-oom`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CrashTest {
    /// A Rust panic after the first indexing step.
    Panic,
    /// Allocations until one fails (the tab's memory is exhausted).
    OutOfMemory,
    /// A panic in each range worker (`?crash=range-worker`): the session's
    /// worker indexes their ranges itself.
    RangeWorker,
}
