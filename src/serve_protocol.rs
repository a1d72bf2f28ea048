//! What `tarmac-lens serve` and the page it serves say to each other over
//! HTTP, beside the browse protocol itself (`Vec<(u32, Query)>` posted to
//! `api/ask`, `Vec<(u32, Reply)>` back, in order, as a session worker's
//! `Answer`). Every URL sits under the server's secret first path segment,
//! so the page's relative URLs (its scripts, its workers, these) carry it.

use serde::{Deserialize, Serialize};

use tarmac_lens_core::{protocol::Progress, FileKind};

/// `api/ask?page=P`: the questions of one page task; `P` names the page,
/// whose views (and their folds) are its own.
pub const ASK: &str = "api/ask";
/// `api/socket?page=P`: a WebSocket carrying the same batches as
/// `api/ask`, one per text message, each answered by one message in order;
/// the next batch may go before the last one's answers.
pub const SOCKET: &str = "api/socket";
/// `api/open`: an [`Opening`].
pub const OPEN: &str = "api/open";
/// The id of the `<script type="application/json">` element holding the
/// [`Opening`] in the page the server serves: the page opens the trace as
/// it starts, one round trip and one render of the drop page sooner than
/// by asking [`OPEN`] (which stays, for a page served without it).
pub const OPENING_ELEMENT: &str = "tarmac-lens-opening";
/// `api/stats`: the record statistics, once counted (`204` before).
pub const STATS: &str = "api/stats";
/// `trace`: the trace's text (a compressed trace's decompressed text),
/// with byte ranges, for the panes that read it themselves (reports).
pub const TRACE: &str = "trace";
/// `elf`: the ELF image given with `--image`.
pub const ELF: &str = "elf";
/// The query parameter that tells the page it is served (`?serve=1`).
pub const PARAM: &str = "serve";

/// What a session worker posts when it has opened and indexed a trace:
/// the served trace's are known before the page asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Opening {
    /// The trace's file name.
    pub name: String,
    /// Its length (a compressed trace's decompressed length).
    pub bytes: u64,
    pub kind: FileKind,
    /// The index, finished.
    pub progress: Progress,
    /// The ELF image of `--image`.
    pub elf: Option<ServedElf>,
    /// How the server reads the trace (`--implicit-thumb`, `--bi`,
    /// `--cpu`): the panes that read it themselves (reports) read it so.
    pub implicit_thumb: bool,
    pub big_endian: bool,
    pub cpu: Option<tarmac_lens_core::CpuName>,
}

/// The ELF image given to `serve`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServedElf {
    /// Its file name.
    pub name: String,
    /// `--load-offset`.
    pub load_offset: i64,
    pub outcome: ElfOutcome,
}

/// How loading the ELF image went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ElfOutcome {
    Loaded {
        symbols: usize,
        warning: Option<String>,
    },
    Failed(String),
}
