//! Messages between the page's Reports panel and its report worker: a
//! worker of its own (the same bin as the browsing worker), so computing a
//! report never delays the trace view's answers.
//!
//! The worker reads the trace in slices from the `Blob` or URL the page
//! sends ([`ReportFile`]), like the browsing worker, and keeps the
//! [`Reports`](tarmac_lens_core::report::explore::Reports); the page asks for parts of
//! them, each reply bounded (see `report::explore`). A report's text comes back in chunks of at most
//! [`TEXT_CHUNK`] bytes, which the page turns into a `Blob` to download.

use serde::{Deserialize, Serialize};

use super::open_options::OpenOptions;
use tarmac_lens_core::coverage::CoverageTable;
use tarmac_lens_core::report::ep_explore::{EpFlowPage, EpPcPage, EpSort, EpSummary};
use tarmac_lens_core::report::explore::{
    CallsPage, FlameView, ProfilePage, ProfileSort, ReportSummary, TextKind, TreePage,
};
use tarmac_lens_core::report::flow_explore::{FlowPage, FlowSummary};

/// Bytes of text per message.
pub const TEXT_CHUNK: usize = 1 << 20;

/// Page -> report worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum ReportRequest {
    /// Compute the reports of this trace (with this ELF image's symbols,
    /// when there is one).
    Start {
        trace: ReportFile,
        elf: Option<ReportFile>,
        load_offset: i64,
        options: OpenOptions,
    },
    Ask {
        id: u32,
        query: ReportQuery,
    },
}

/// Where the report worker reads a file: the same bytes the browsing
/// worker read, never a copy of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReportFile {
    /// A dropped file, or a trace the browsing worker downloaded whole (a
    /// server without byte ranges): passed by structured clone, so the
    /// download is not fetched again.
    Blob {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        blob: web_sys::Blob,
        name: String,
    },
    /// A trace on a range-serving server (read by ranges here too, never
    /// downloaded whole), or an ELF image by URL (`&elf=`).
    Url {
        url: String,
        cross_origin: bool,
        name: String,
    },
}

impl ReportFile {
    /// A file the page was given (dropped or picked).
    pub fn of_file(file: &web_sys::File) -> ReportFile {
        ReportFile::Blob {
            blob: file.clone().into(),
            name: file.name(),
        }
    }

    /// The name the page shows and downloads are named after.
    pub fn name(&self) -> &str {
        match self {
            ReportFile::Blob { name, .. } | ReportFile::Url { name, .. } => name,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReportQuery {
    /// Children of an activation (the root itself for `None`).
    Tree {
        parent: Option<Vec<u32>>,
        offset: u64,
        limit: u32,
    },
    Profile {
        sort: ProfileSort,
        descending: bool,
        offset: u64,
        limit: u32,
    },
    /// The path of the innermost call holding this node.
    PathAt { node: u64 },
    /// The activations of the function entered at `addr`, a page.
    Calls { addr: u64, offset: u64, limit: u32 },
    /// The flame graph zoomed to frame `root` (0: all of it).
    Flame { root: u32 },
    /// A report's text: answered by [`ReportEvent::Text`] chunks.
    Text(TextKind),
    /// An EP trace's cycles by packet address, sorted, a page.
    EpByPc {
        sort: EpSort,
        descending: bool,
        offset: u64,
        limit: u32,
    },
    /// An EP trace's discontinuities, a page.
    EpFlow { offset: u64, limit: u32 },
    /// A branch-only trace's blocks, a page.
    FlowBlocks { offset: u64, limit: u32 },
    /// The ELF image's coverage by the trace (a pass of its own, once).
    Coverage,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReportReply {
    Tree(TreePage),
    Profile(ProfilePage),
    Calls(CallsPage),
    Flame(FlameView),
    Path(Vec<u32>),
    /// The text is complete (its chunks came before).
    TextDone {
        bytes: u64,
    },
    Error(String),
    EpByPc(EpPcPage),
    EpFlow(EpFlowPage),
    FlowBlocks(FlowPage),
    Coverage(CoverageTable),
}

/// Which pass over the trace progress is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReportPass {
    Calls,
    Vcd,
    /// The records of an EP or branch-only trace (no engine).
    Records,
    /// The instructions' outcomes, for the coverage.
    Coverage,
}

/// Report worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReportEvent {
    Progress {
        pass: ReportPass,
        done: u64,
        total: u64,
    },
    /// The reports are computed: questions are answered from now on.
    Ready(ReportSummary),
    /// The same for an EP trace's cycle profile (instead of call reports).
    ReadyEp(EpSummary),
    /// The same for a branch-only trace's program flow.
    ReadyFlow(FlowSummary),
    /// The reports could not be computed (an unreadable file).
    Failed(String),
    /// The ELF image was refused: the reports name functions by address.
    ElfIgnored(String),
    /// A piece of the text asked for by query `id`.
    Text {
        id: u32,
        chunk: String,
    },
    Answer {
        id: u32,
        reply: ReportReply,
    },
}
