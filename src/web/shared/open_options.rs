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
    /// the core's `DEFAULT_INDEX_BUDGET`, 1.5 GiB).
    #[serde(default)]
    pub index_budget: Option<u64>,
    /// Makes the worker fail on purpose, so tests exercise the page's
    /// handling of a real crash.
    #[serde(default)]
    pub crash: Option<CrashTest>,
    /// In a multi-core trace, the core to follow (`--cpu`); `None`: every
    /// line drives the one register file, as in a single-core trace.
    #[serde(default)]
    pub cpu: Option<tarmac_lens_core::CpuName>,
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
    /// A statistic's first answer counts the trace's first this many bytes
    /// when the trace is longer than twice that (`?statistics-prefix=`;
    /// default: [`STATISTICS_PREFIX`]; 0: the whole trace at once).
    #[serde(default)]
    pub statistics_prefix: Option<u64>,
}

/// The statistics' first answer on a long trace counts this much of it:
/// about 0.6 s in a worker (118 MB/s on a 1 GB trace), so that answer
/// comes within the pane's 2 s while the whole trace's pass runs.
pub const STATISTICS_PREFIX: u64 = 64 << 20;

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
