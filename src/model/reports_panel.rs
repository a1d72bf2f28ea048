//! The Reports panel's own state: its report worker's progress (which pass,
//! how far), what the worker computed (call reports, an EP trace's cycle
//! profile, a branch-only trace's flow: the tabs follow), the texts being
//! prepared for download, and why the ELF image's names are not used.
//! Each worker started has its number ([`ReportsPanel::generation`]), so
//! the statuses of a replaced one (another trace, another ELF image)
//! change nothing. The Yew panel (`web::components::reports`) starts the
//! worker and renders this, its tabs' own views theirs;
//! `tests/browser_model/reports_panel.rs` drives it with the statuses of
//! reports computed as the worker computes them.
//!
//! `C` is the page's handle on the worker, `D` a prepared download: the
//! model keeps them, never looks inside.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tarmac_lens_core::report::{EpSummary, FlowSummary, ReportSummary, TextKind};

use crate::i18n::t;

/// Which pass over the trace progress is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReportPass {
    /// Finding the calls (the call reports).
    Calls,
    /// Writing a VCD to download.
    Vcd,
    /// The records of an EP or branch-only trace (no engine).
    Records,
    /// The instructions' outcomes, for the coverage.
    Coverage,
    /// Everything the statistics reports count.
    Statistics,
}

/// What the panel learns from its worker besides answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReportStatus {
    /// A pass's progress.
    Progress {
        /// The pass.
        pass: ReportPass,
        /// Bytes read.
        done: u64,
        /// Of the trace's length.
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
}

/// What the report worker computed: the reports that suit the trace.
#[derive(Clone, Debug, PartialEq)]
pub enum Computed {
    /// A trace with calls: the call tree, profile, flame graph, coverage
    /// and statistics.
    Calls(ReportSummary),
    /// A TI C64x+ EP trace: its cycle profile and discontinuities.
    Ep(EpSummary),
    /// A branch-only trace: its program flow.
    Flow(FlowSummary),
}

impl Computed {
    /// Its tabs, in order.
    pub fn tabs(&self) -> &'static [ReportTab] {
        match self {
            Computed::Calls(_) => &ReportTab::CALLS,
            Computed::Ep(_) => &ReportTab::EP,
            Computed::Flow(_) => &ReportTab::FLOW,
        }
    }

    /// The tab shown for `asked`: another kind's tab (a key opens the call
    /// tree or the flame graph) shows this kind's first.
    pub fn tab(&self, asked: ReportTab) -> ReportTab {
        let tabs = self.tabs();
        if tabs.contains(&asked) {
            asked
        } else {
            tabs[0]
        }
    }

    /// The texts it downloads.
    pub fn texts(&self) -> &'static [TextKind] {
        match self {
            Computed::Calls(_) => &TextKind::ALL,
            Computed::Ep(_) => &[TextKind::EpProfile],
            Computed::Flow(_) => &[TextKind::Flow],
        }
    }
}

/// How far the worker got.
#[derive(Clone, Debug, PartialEq)]
pub enum ReportsPhase {
    /// Started, nothing heard yet.
    Starting,
    /// A pass the reports wait for.
    Progress {
        /// The pass.
        pass: ReportPass,
        /// Bytes read.
        done: u64,
        /// Of the trace's length.
        total: u64,
    },
    /// Computed.
    Ready(Computed),
    /// It failed: why.
    Failed(String),
}

/// A text asked for download.
#[derive(Debug, PartialEq)]
pub enum Download<D> {
    /// Being written.
    Preparing,
    /// Written (and saved once); a link saves it again.
    Ready(Rc<D>),
    /// It failed: why.
    Failed(String),
}

/// What changes the panel.
pub enum ReportsMsg<C, D> {
    /// A report worker is started for the trace `trace_name`: the number
    /// moves on and what the last one said goes.
    Start {
        /// The trace's name (downloads are named after it).
        trace_name: String,
    },
    /// The worker is running: the handle that asks it.
    Started(C),
    /// It could not be started: why.
    StartFailed(String),
    /// Worker `generation` says `status`.
    Status {
        /// The worker's number.
        generation: u32,
        /// What it says.
        status: ReportStatus,
    },
    /// A text is asked for (the page asks the worker).
    Download(TextKind),
    /// Worker `generation`'s text `kind`, written or not.
    Downloaded {
        /// The worker's number.
        generation: u32,
        /// Which text.
        kind: TextKind,
        /// It, or why not.
        result: Result<D, String>,
    },
}

/// The panel's state (see the module's documentation).
#[derive(Debug)]
pub struct ReportsPanel<C, D> {
    /// The worker, once started.
    pub client: Option<C>,
    /// The worker's number: statuses of another are late.
    pub generation: u32,
    /// How far it got.
    pub phase: ReportsPhase,
    /// The VCD pass's progress, while a VCD is written.
    pub vcd_progress: Option<(u64, u64)>,
    /// The coverage pass's progress, while it runs.
    pub coverage_progress: Option<(u64, u64)>,
    /// The statistics pass's progress, while it runs.
    pub statistics_progress: Option<(u64, u64)>,
    /// Texts asked for, the last asked last.
    pub downloads: Vec<(TextKind, Download<D>)>,
    /// The trace's name.
    pub trace_name: String,
    /// Why the ELF image's names are not used.
    pub elf_ignored: Option<String>,
}

impl<C, D> Default for ReportsPanel<C, D> {
    fn default() -> Self {
        ReportsPanel {
            client: None,
            generation: 0,
            phase: ReportsPhase::Starting,
            vcd_progress: None,
            coverage_progress: None,
            statistics_progress: None,
            downloads: Vec::new(),
            trace_name: String::new(),
            elf_ignored: None,
        }
    }
}

impl<C, D> ReportsPanel<C, D> {
    /// Applies `msg`; `false` when it changed nothing (a late message, or
    /// a download asked with no worker), so the page need not render nor
    /// ask.
    pub fn update(&mut self, msg: ReportsMsg<C, D>) -> bool {
        match msg {
            ReportsMsg::Start { trace_name } => {
                self.client = None;
                self.downloads.clear();
                self.elf_ignored = None;
                self.generation += 1;
                self.trace_name = trace_name;
                self.phase = ReportsPhase::Starting;
            }
            ReportsMsg::Started(client) => self.client = Some(client),
            ReportsMsg::StartFailed(message) => self.phase = ReportsPhase::Failed(message),
            ReportsMsg::Status { generation, status } => {
                if generation != self.generation {
                    return false;
                }
                self.status(status);
            }
            ReportsMsg::Download(kind) => {
                if self.client.is_none() {
                    return false;
                }
                self.downloads.retain(|(k, _)| *k != kind);
                self.downloads.push((kind, Download::Preparing));
            }
            ReportsMsg::Downloaded {
                generation,
                kind,
                result,
            } => {
                if generation != self.generation {
                    return false;
                }
                if kind == TextKind::Vcd {
                    self.vcd_progress = None;
                }
                let state = match result {
                    Ok(d) => Download::Ready(Rc::new(d)),
                    Err(e) => Download::Failed(e),
                };
                if let Some((_, slot)) = self.downloads.iter_mut().find(|(k, _)| *k == kind) {
                    *slot = state;
                }
            }
        }
        true
    }

    fn status(&mut self, status: ReportStatus) {
        // A pass's bar goes when it reaches its end.
        let running = |done: u64, total: u64| (done < total).then_some((done, total));
        match status {
            ReportStatus::Progress { pass, done, total } => match pass {
                ReportPass::Vcd => self.vcd_progress = running(done, total),
                ReportPass::Coverage => self.coverage_progress = running(done, total),
                ReportPass::Statistics => self.statistics_progress = running(done, total),
                ReportPass::Calls | ReportPass::Records => {
                    self.phase = ReportsPhase::Progress { pass, done, total }
                }
            },
            ReportStatus::Ready(s) => self.phase = ReportsPhase::Ready(Computed::Calls(s)),
            ReportStatus::ReadyEp(s) => self.phase = ReportsPhase::Ready(Computed::Ep(s)),
            ReportStatus::ReadyFlow(s) => self.phase = ReportsPhase::Ready(Computed::Flow(s)),
            ReportStatus::Failed(m) => self.phase = ReportsPhase::Failed(m),
            ReportStatus::ElfIgnored(m) => self.elf_ignored = Some(m),
        }
    }

    /// What was computed, once it is.
    pub fn computed(&self) -> Option<&Computed> {
        match &self.phase {
            ReportsPhase::Ready(c) => Some(c),
            _ => None,
        }
    }

    /// The tabs shown: none until the trace's kind is known.
    pub fn tabs(&self) -> &'static [ReportTab] {
        self.computed().map_or(&[], Computed::tabs)
    }

    /// The tab shown when `asked` is.
    pub fn tab(&self, asked: ReportTab) -> ReportTab {
        self.computed().map_or(asked, |c| c.tab(asked))
    }

    /// Where text `kind`'s download is.
    pub fn download(&self, kind: TextKind) -> Option<&Download<D>> {
        self.downloads
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, d)| d)
    }

    /// Why the last text asked for among `texts` failed, if it did: said in
    /// the panel's header.
    pub fn failed_download(&self, texts: &[TextKind]) -> Option<(TextKind, &str)> {
        match self.downloads.last()? {
            (kind, Download::Failed(e)) if texts.contains(kind) => Some((*kind, e)),
            _ => None,
        }
    }
}

/// A tab of the Reports panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportTab {
    /// The calls as a tree, a level at a time.
    CallTree,
    /// The functions as a table of their instructions, sorted by any column.
    Profile,
    /// The calls as a flame graph.
    FlameGraph,
    /// An EP trace's cycles by packet address.
    CycleProfile,
    /// An EP trace's discontinuities.
    EpFlow,
    /// A branch-only trace's blocks.
    ProgramFlow,
    /// The ELF image's code the trace ran.
    Coverage,
    /// The statistics reports (`model::statistics`).
    Statistics,
}

impl ReportTab {
    /// A call-based trace's tabs.
    pub const CALLS: [ReportTab; 5] = [
        ReportTab::CallTree,
        ReportTab::Profile,
        ReportTab::FlameGraph,
        ReportTab::Coverage,
        ReportTab::Statistics,
    ];
    /// A TI EP trace's tabs.
    pub const EP: [ReportTab; 2] = [ReportTab::CycleProfile, ReportTab::EpFlow];
    /// A branch-only trace's tab.
    pub const FLOW: [ReportTab; 1] = [ReportTab::ProgramFlow];

    /// Its name, in the page's language.
    pub fn label(self) -> &'static str {
        match self {
            ReportTab::CallTree => t("Call tree"),
            ReportTab::Profile => t("Profile"),
            ReportTab::FlameGraph => t("Flame graph"),
            ReportTab::CycleProfile => t("Cycle profile"),
            ReportTab::EpFlow => t("Flow"),
            ReportTab::ProgramFlow => t("Program flow"),
            ReportTab::Coverage => t("Coverage"),
            ReportTab::Statistics => t("Statistics"),
        }
    }

    /// Its test id (`tab-ID`).
    pub fn id(self) -> &'static str {
        match self {
            ReportTab::CallTree => "calltree",
            ReportTab::Profile => "profile",
            ReportTab::FlameGraph => "flamegraph",
            ReportTab::CycleProfile => "ep-profile",
            ReportTab::EpFlow => "ep-flow",
            ReportTab::ProgramFlow => "program-flow",
            ReportTab::Coverage => "coverage",
            ReportTab::Statistics => "statistics",
        }
    }
}
