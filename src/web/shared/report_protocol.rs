//! Messages between the page's Reports panel and its report worker: a
//! worker of its own (the same bin as the browsing worker), so computing a
//! report never delays the trace view's answers.
//!
//! The worker reads the trace in slices from the `Blob` or URL the page
//! sends ([`ReportFile`]), like the browsing worker, and keeps the
//! [`Reports`](tarmac_lens_core::report::Reports); the page asks for parts of
//! them, each reply bounded (see `report::explore`). A report's text comes back in chunks of at most
//! [`TEXT_CHUNK`] bytes, which the page turns into a `Blob` to download.

use serde::{Deserialize, Serialize};

use super::open_options::OpenOptions;
/// What the panel learns besides answers: the panel's model's messages
/// (`model::reports_panel`), carried as they are.
pub use crate::model::reports_panel::{ReportPass, ReportStatus};
/// A statistics report's answer, as the Statistics tab's model keeps it.
pub use crate::model::statistics_tab::{PrefixCounted, StatisticText};
use tarmac_lens_core::{
    coverage::CoverageTable,
    report::stats::Report,
    report::{
        CallsPage, EpFlowPage, EpPcPage, EpSort, FlameView, FlowPage, ProfilePage, ProfileSort,
        TextKind, TreePage,
    },
};

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

/// A question to the report worker, with its answer's type: the
/// [`ReportQuery`] and [`ReportReply`] variants of its name carry them
/// (made by `report_questions!` from the list below), so the Reports
/// panel's views get their own answer and cannot take another's.
pub trait ReportQuestion: Into<ReportQuery> {
    /// What the worker answers it with.
    type Answer;
    /// The answer out of the reply to this question: `Err` is the worker's
    /// message, or says the reply is to another question.
    fn answer_of(reply: ReportReply) -> Result<Self::Answer, String>;
}

/// Makes [`ReportQuery`] and [`ReportReply`] from the list of questions.
macro_rules! report_questions {
    ($($(#[$doc:meta])* $variant:ident($question:ty) -> $answer:ty;)*) => {
        /// Page -> report worker: a question.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum ReportQuery {
            $($(#[$doc])* $variant($question),)*
        }

        /// Report worker -> page: the answer to the question of the same
        /// name, or why there is none.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum ReportReply {
            $($variant($answer),)*
            Error(String),
        }

        $(
            impl From<$question> for ReportQuery {
                fn from(q: $question) -> ReportQuery {
                    ReportQuery::$variant(q)
                }
            }

            impl ReportQuestion for $question {
                type Answer = $answer;

                fn answer_of(reply: ReportReply) -> Result<$answer, String> {
                    match reply {
                        ReportReply::$variant(a) => Ok(a),
                        ReportReply::Error(e) => Err(e),
                        other => Err(format!(
                            "the report worker's answer to {} came for another question: {other:?}",
                            stringify!($variant)
                        )),
                    }
                }
            }
        )*
    };
}

report_questions! {
    /// Children of an activation (the root itself for `None`).
    Tree(Tree) -> TreePage;
    /// The functions' profile, sorted, a page.
    Profile(Profile) -> ProfilePage;
    /// The path of the innermost call holding this node.
    PathAt(PathAt) -> Vec<u32>;
    /// The activations of the function entered at `addr`, a page.
    Calls(Calls) -> CallsPage;
    /// The flame graph zoomed to frame `root` (0: all of it).
    Flame(Flame) -> FlameView;
    /// A report's text: answered by [`ReportEvent::Text`] chunks, then
    /// its length.
    Text(TextKind) -> TextDone;
    /// An EP trace's cycles by packet address, sorted, a page.
    EpByPc(EpByPc) -> EpPcPage;
    /// An EP trace's discontinuities, a page.
    EpFlow(EpFlow) -> EpFlowPage;
    /// A branch-only trace's blocks, a page.
    FlowBlocks(FlowBlocks) -> FlowPage;
    /// The ELF image's coverage by the trace (a pass of its own, once).
    Coverage(Coverage) -> CoverageTable;
    /// A statistics report's text as the CLI prints it (their pass, of
    /// its own, runs once).
    Statistic(Statistic) -> StatisticText;
}

/// Children of an activation (the root itself for `None`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub parent: Option<Vec<u32>>,
    pub offset: u64,
    pub limit: u32,
}

/// The functions' profile, sorted, a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub sort: ProfileSort,
    pub descending: bool,
    pub offset: u64,
    pub limit: u32,
}

/// The path of the innermost call holding this node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathAt {
    pub node: u64,
}

/// The activations of the function entered at `addr`, a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calls {
    pub addr: u64,
    pub offset: u64,
    pub limit: u32,
}

/// The flame graph zoomed to frame `root` (0: all of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flame {
    pub root: u32,
}

/// A report's text is complete (its chunks came before).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextDone {
    /// Its length.
    pub bytes: u64,
}

/// An EP trace's cycles by packet address, sorted, a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpByPc {
    pub sort: EpSort,
    pub descending: bool,
    pub offset: u64,
    pub limit: u32,
}

/// An EP trace's discontinuities, a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpFlow {
    pub offset: u64,
    pub limit: u32,
}

/// A branch-only trace's blocks, a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowBlocks {
    pub offset: u64,
    pub limit: u32,
}

/// The ELF image's coverage by the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coverage;

/// A statistics report (`report::stats`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statistic {
    pub report: Report,
    /// Were the answer counted from the trace's first lines, these
    /// reports' texts from them too ([`StatisticText::also`]): the page's
    /// other reports, to show at once while the whole trace is counted.
    pub also: Vec<Report>,
}

/// Report worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReportEvent {
    /// How the reports are coming along: the panel shows it.
    Status(ReportStatus),
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
