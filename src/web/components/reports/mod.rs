//! The Reports panel (`R`, or the toolbar's Reports button): the call tree,
//! the profile and the flame graph of the open trace, and downloads of
//! their texts exactly as the CLI prints them; for a TI C64x+ EP trace its
//! cycle profile and discontinuities instead, for a branch-only trace its
//! program flow (`report::kind` decides). The reports are computed by
//! a report worker of their own (`page/report_client.rs`), started when the
//! panel opens, so the trace view keeps answering meanwhile.

mod call_tree;
mod coverage_view;
mod ep_flow_view;
mod ep_profile_view;
mod flame_graph;
mod flow_view;
mod list_pager;
mod profile_table;
mod statistics_view;

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use call_tree::CallTree;
use coverage_view::CoverageView;
use ep_flow_view::EpFlowList;
use ep_profile_view::EpCycleProfile;
use flame_graph::FlameGraph;
use flow_view::ProgramFlow;
use profile_table::ProfileTable;
use statistics_view::StatisticsView;

use super::{ElfLoad, ToolbarMenu};
pub use crate::model::ReportTab;
use crate::web::page::client::TraceClient;
use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::{Download, ReportClient};
use crate::web::shared::report_protocol::ReportPass;
use crate::web::shared::report_protocol::ReportStatus;
use tarmac_lens_core::report::ep_explore::EpSummary;
use tarmac_lens_core::report::explore::{ReportSummary, TextKind};
use tarmac_lens_core::report::flow_explore::FlowSummary;

/// What the report worker computed: the reports that suit the trace.
enum Ready {
    Calls(ReportSummary),
    Ep(EpSummary),
    Flow(FlowSummary),
}

impl Ready {
    fn tabs(&self) -> &'static [ReportTab] {
        match self {
            Ready::Calls(_) => &ReportTab::CALLS,
            Ready::Ep(_) => &ReportTab::EP,
            Ready::Flow(_) => &ReportTab::FLOW,
        }
    }

    /// The tab shown for `asked`: another kind's tab (a key opens the call
    /// tree or the flame graph) shows this kind's first.
    fn tab(&self, asked: ReportTab) -> ReportTab {
        let tabs = self.tabs();
        if tabs.contains(&asked) {
            asked
        } else {
            tabs[0]
        }
    }

    fn texts(&self) -> &'static [TextKind] {
        match self {
            Ready::Calls(_) => &TextKind::ALL,
            Ready::Ep(_) => &[TextKind::EpProfile],
            Ready::Flow(_) => &[TextKind::Flow],
        }
    }
}

fn text_label(kind: TextKind) -> &'static str {
    match kind {
        TextKind::Calltree => t("call tree"),
        TextKind::Profile => t("profile"),
        TextKind::Flamegraph => t("folded stacks"),
        TextKind::Vcd => t("VCD"),
        TextKind::EpProfile => t("cycle profile"),
        TextKind::Flow => t("program flow"),
        TextKind::Chrome => t("Chrome trace (Perfetto, speedscope)"),
        TextKind::Perfetto => t("Perfetto trace (any size)"),
        TextKind::Callgrind => t("Callgrind (KCachegrind)"),
    }
}

fn text_id(kind: TextKind) -> &'static str {
    match kind {
        TextKind::Calltree => "calltree",
        TextKind::Profile => "profile",
        TextKind::Flamegraph => "flamegraph",
        TextKind::Vcd => "vcd",
        TextKind::EpProfile => "ep-profile",
        TextKind::Flow => "flow",
        TextKind::Chrome => "chrome",
        TextKind::Perfetto => "perfetto",
        TextKind::Callgrind => "callgrind",
    }
}

#[derive(Properties, PartialEq)]
pub struct ReportsPanelProps {
    pub trace: TraceClient,
    /// Symbols of the loaded ELF image: the reports are computed again
    /// with them when it changes.
    pub elf: Option<ElfLoad>,
    /// Why the page refused the ELF image given: said as the report
    /// worker's own refusal is (the panel may have started before the
    /// image was read, and then never sees it).
    #[prop_or_default]
    pub elf_error: Option<String>,
    pub tab: ReportTab,
    pub on_tab: Callback<ReportTab>,
    /// Go to this node in the trace view.
    pub on_jump: Callback<u64>,
    /// Go to this line in the trace view (the EP and flow lists).
    #[prop_or_default]
    pub on_jump_line: Callback<u64>,
    pub on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    #[prop_or_default]
    pub tools: Html,
    /// Show the call holding this node in the call tree (numbered, so the
    /// same node can be asked for again).
    #[prop_or_default]
    pub reveal: Option<(u32, u64)>,
    /// List a function's calls in the profile (see `ProfileTable`).
    #[prop_or_default]
    pub show_calls: Option<(u32, u64)>,
    /// Show this source file at this line (the Coverage tab).
    #[prop_or_default]
    pub on_source: Callback<(String, u32)>,
}

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Status(u32, ReportStatus),
    Download(TextKind),
    Downloaded(u32, TextKind, Result<Download, String>),
}

enum Phase {
    Starting,
    Progress {
        pass: ReportPass,
        done: u64,
        total: u64,
    },
    Ready(Ready),
    Failed(String),
}

enum Dl {
    Preparing,
    Ready(Rc<Download>),
    Failed(String),
}

pub struct ReportsPanel {
    client: Option<ReportClient>,
    /// Bumped per worker started: statuses of a replaced one are dropped.
    generation: u32,
    phase: Phase,
    /// The VCD pass's progress, while a VCD is prepared.
    vcd_progress: Option<(u64, u64)>,
    /// The coverage pass's progress, while it runs.
    coverage_progress: Option<(u64, u64)>,
    /// The statistics pass's progress, while it runs.
    statistics_progress: Option<(u64, u64)>,
    downloads: Vec<(TextKind, Dl)>,
    trace_name: String,
    /// Why the ELF image's names are not used.
    elf_ignored: Option<String>,
    _lang: LangWatch,
}

impl ReportsPanel {
    fn start(&mut self, ctx: &Context<Self>) {
        self.client = None;
        self.downloads.clear();
        self.elf_ignored = None;
        self.generation += 1;
        let (trace, elf, options) = ctx.props().trace.report_inputs();
        self.trace_name = trace.name().to_string();
        let link = ctx.link().clone();
        let generation = self.generation;
        match ReportClient::start(trace, elf, options, move |s| {
            link.send_message(Msg::Status(generation, s))
        }) {
            Ok(c) => {
                self.client = Some(c);
                self.phase = Phase::Starting;
            }
            Err(e) => self.phase = Phase::Failed(e),
        }
    }

    fn dl_mut(&mut self, kind: TextKind) -> Option<&mut Dl> {
        self.downloads
            .iter_mut()
            .find(|(k, _)| *k == kind)
            .map(|(_, d)| d)
    }

    fn view_phase(&self) -> Html {
        match &self.phase {
            Phase::Starting => html! {
                <p data-testid="reports-progress">{ t("Starting the report worker…") }</p>
            },
            Phase::Progress { pass, done, total } => {
                let label = match pass {
                    ReportPass::Calls => "Finding the calls: {} of {} bytes",
                    ReportPass::Vcd => "Writing the VCD: {} of {} bytes",
                    ReportPass::Records => "Reading the trace: {} of {} bytes",
                    ReportPass::Coverage => "Counting what ran: {} of {} bytes",
                    ReportPass::Statistics => "Counting: {} of {} bytes",
                };
                html! {
                    <p data-testid="reports-progress">
                        <progress max={total.to_string()} value={done.to_string()}></progress>
                        { " " }{ tf(label, &[&number(*done), &number(*total)]) }
                    </p>
                }
            }
            Phase::Failed(m) => html! {
                <p class="error" role="alert" data-testid="reports-error">{ m.clone() }</p>
            },
            Phase::Ready(_) => html! {},
        }
    }

    /// The texts to download, in a menu so the header keeps to a line or
    /// two in a narrow area; each one's state (preparing, a link to save
    /// it again) beside it in the menu, so the header does not grow with
    /// downloads. A download that failed is said in the header.
    fn view_downloads(&self, ctx: &Context<Self>, texts: &'static [TextKind]) -> Html {
        let link = ctx.link();
        let state_of = |kind: TextKind| {
            self.downloads
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, d)| d)
        };
        html! {
            <div class="report-downloads" style="display:flex;gap:0.4rem;align-items:center;min-width:0;">
                <ToolbarMenu label={t("Download")} testid="menu-downloads" end={true}>
                    { for texts.iter().map(|&kind| html! {
                        <div style="display:flex;gap:0.5rem;align-items:baseline;white-space:nowrap;">
                            <button
                                data-testid={format!("download-{}", text_id(kind))}
                                disabled={matches!(state_of(kind), Some(Dl::Preparing))}
                                onclick={link.callback(move |_| Msg::Download(kind))}
                                style="flex:1;text-align:left;"
                            >{ text_label(kind) }</button>
                            { match state_of(kind) {
                                Some(Dl::Preparing) => html! { <span>{ tf("{}: preparing…", &[&text_label(kind)]) }</span> },
                                Some(Dl::Ready(d)) => html! {
                                    <a
                                        data-testid={format!("saved-{}", text_id(kind))}
                                        href={d.url.clone()}
                                        download={kind.file_name(&self.trace_name)}
                                    >{ tf("{} again ({} bytes)", &[&text_label(kind), &number(d.bytes)]) }</a>
                                },
                                _ => html! {},
                            } }
                        </div>
                    }) }
                </ToolbarMenu>
                { for self.downloads.last().filter(|(kind, _)| texts.contains(kind)).map(|(kind, state)| match state {
                    Dl::Failed(e) => {
                        let text = format!("{}: {e}", text_label(*kind));
                        html! {
                            <span class="error" role="alert" title={text.clone()}
                                style="min-width:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;">{ text }</span>
                        }
                    }
                    _ => html! {},
                }) }
                if let Some((done, total)) = self.vcd_progress {
                    <progress data-testid="vcd-progress" max={total.to_string()} value={done.to_string()}></progress>
                }
            </div>
        }
    }
}

/// Saves `download` as `name` the way a link with `download` does.
fn save(download: &Download, name: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() else {
        return;
    };
    a.set_href(&download.url);
    a.set_download(name);
    a.click();
}

impl Component for ReportsPanel {
    type Message = Msg;
    type Properties = ReportsPanelProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut panel = ReportsPanel {
            client: None,
            generation: 0,
            phase: Phase::Starting,
            vcd_progress: None,
            coverage_progress: None,
            statistics_progress: None,
            downloads: Vec::new(),
            trace_name: String::new(),
            elf_ignored: None,
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        panel.start(ctx);
        panel
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        if ctx.props().trace != old.trace || ctx.props().elf != old.elf {
            self.start(ctx);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Lang => {}
            Msg::Status(generation, _) if generation != self.generation => return false,
            Msg::Status(_, status) => match status {
                ReportStatus::Progress {
                    pass: ReportPass::Vcd,
                    done,
                    total,
                } => self.vcd_progress = (done < total).then_some((done, total)),
                ReportStatus::Progress {
                    pass: ReportPass::Coverage,
                    done,
                    total,
                } => self.coverage_progress = (done < total).then_some((done, total)),
                ReportStatus::Progress {
                    pass: ReportPass::Statistics,
                    done,
                    total,
                } => self.statistics_progress = (done < total).then_some((done, total)),
                ReportStatus::Progress { pass, done, total } => {
                    self.phase = Phase::Progress { pass, done, total }
                }
                ReportStatus::Ready(s) => self.phase = Phase::Ready(Ready::Calls(s)),
                ReportStatus::ReadyEp(s) => self.phase = Phase::Ready(Ready::Ep(s)),
                ReportStatus::ReadyFlow(s) => self.phase = Phase::Ready(Ready::Flow(s)),
                ReportStatus::Failed(m) => self.phase = Phase::Failed(m),
                ReportStatus::ElfIgnored(m) => self.elf_ignored = Some(m),
            },
            Msg::Download(kind) => {
                let Some(client) = &self.client else {
                    return false;
                };
                self.downloads.retain(|(k, _)| *k != kind);
                self.downloads.push((kind, Dl::Preparing));
                let link = ctx.link().clone();
                let generation = self.generation;
                client.download(kind, move |r| {
                    link.send_message(Msg::Downloaded(generation, kind, r))
                });
            }
            Msg::Downloaded(generation, _, _) if generation != self.generation => return false,
            Msg::Downloaded(_, kind, result) => {
                if kind == TextKind::Vcd {
                    self.vcd_progress = None;
                }
                let state = match result {
                    Ok(d) => {
                        save(&d, &kind.file_name(&self.trace_name));
                        Dl::Ready(Rc::new(d))
                    }
                    Err(e) => Dl::Failed(e),
                };
                if let Some(slot) = self.dl_mut(kind) {
                    *slot = state;
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let ready = match &self.phase {
            Phase::Ready(r) => Some(r),
            _ => None,
        };
        let tab = ready.map_or(props.tab, |r| r.tab(props.tab));
        // The tabs depend on the trace's kind: none until it is known.
        let tabs = ready.map_or(&[][..], Ready::tabs);
        let on_close = props.on_close.clone();
        html! {
            <section
                class="reports-panel"
                data-testid="reports-panel"
                aria-label={t("Reports")}
                style="display:flex;flex-direction:column;gap:0.4rem;flex:1 1 auto;min-height:0;overflow:auto;border:1px solid var(--border, #8884);padding:0.4rem;"
            >
                <div class="pane-header" style="display:flex;flex-wrap:wrap;gap:0.3rem;align-items:center;">
                    <strong>{ t("Reports") }</strong>
                    <div role="tablist" style="display:flex;gap:0.2rem;">
                        { for tabs.iter().map(|&t_| {
                            let on_tab = props.on_tab.clone();
                            html! {
                                <button
                                    role="tab"
                                    class={classes!("toggle", (t_ == tab).then_some("on"))}
                                    aria-selected={(t_ == tab).to_string()}
                                    data-testid={format!("tab-{}", t_.id())}
                                    onclick={Callback::from(move |_| on_tab.emit(t_))}
                                >{ t_.label() }</button>
                            }
                        }) }
                    </div>
                    if let Some(r) = ready {
                        <span data-testid="reports-summary" style="opacity:0.8;">{ match r {
                            Ready::Calls(s) => format!(
                                "{} · {} · {}",
                                tn(s.activations, "{} call", "{} calls", &[&number(s.activations)]),
                                tn(s.functions, "{} function", "{} functions", &[&number(s.functions)]),
                                tn(s.instructions, "{} instruction", "{} instructions", &[&number(s.instructions)]),
                            ),
                            Ready::Ep(s) => tf(
                                "EP trace: {} packet cycles at {} addresses · {} discontinuities",
                                &[&number(s.packet_cycles), &number(s.addresses), &number(s.discontinuities)],
                            ),
                            Ready::Flow(s) => tf(
                                "Branch-only trace: {} blocks · {} instructions",
                                &[&number(s.blocks), &number(s.instructions)],
                            ),
                        } }</span>
                    }
                    if let (Some(r), Some(_)) = (ready, &self.client) {
                        { self.view_downloads(ctx, r.texts()) }
                    }
                    <span style="margin-left:auto;"></span>
                    { props.tools.clone() }
                    <button data-testid="reports-close" title="R" onclick={Callback::from(move |_| on_close.emit(()))}>{ t("Close") }</button>
                </div>
                { self.view_phase() }
                if let Some(m) = self.elf_ignored.as_ref().or(props.elf_error.as_ref()) {
                    <p role="status" data-testid="reports-elf-ignored">{ tf("Functions are named by address: the ELF image was not used ({}).", &[m]) }</p>
                }
                if let (Some(Ready::Ep(summary)), Some(client)) = (ready, &self.client) {
                    <div role="tabpanel" hidden={tab != ReportTab::CycleProfile} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <EpCycleProfile key={self.generation} client={client.clone()} summary={summary.clone()} on_jump={props.on_jump_line.clone()} />
                    </div>
                    <div role="tabpanel" hidden={tab != ReportTab::EpFlow} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <EpFlowList key={self.generation} client={client.clone()} summary={summary.clone()} on_jump={props.on_jump_line.clone()} />
                    </div>
                }
                if let (Some(Ready::Flow(summary)), Some(client)) = (ready, &self.client) {
                    <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <ProgramFlow key={self.generation} client={client.clone()} summary={summary.clone()} on_jump={props.on_jump_line.clone()} />
                    </div>
                }
                if let (Some(r @ Ready::Calls(_)), Some(client)) = (ready, &self.client) {
                    // The tree and the table stay mounted, so what was
                    // expanded or sorted is still there after another tab.
                    <div role="tabpanel" hidden={tab != ReportTab::CallTree} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <CallTree key={self.generation} client={client.clone()} on_jump={props.on_jump.clone()} reveal={props.reveal} />
                    </div>
                    <div role="tabpanel" hidden={tab != ReportTab::Profile} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <ProfileTable key={self.generation} client={client.clone()} instructions={match r { Ready::Calls(s) => s.instructions, _ => 0 }} on_jump={props.on_jump.clone()} show_calls={props.show_calls} />
                    </div>
                    if tab == ReportTab::FlameGraph {
                        <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                            <FlameGraph key={self.generation} client={client.clone()} />
                        </div>
                    }
                    // Its pass runs when first shown (the worker keeps its answer).
                    if tab == ReportTab::Coverage {
                        <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                            <CoverageView key={self.generation} client={client.clone()} progress={self.coverage_progress} on_source={props.on_source.clone()} />
                        </div>
                    }
                    // Mounted once shown, so the report and graph chosen stay.
                    if tab == ReportTab::Statistics {
                        <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                            <StatisticsView key={self.generation} client={client.clone()} progress={self.statistics_progress} trace_name={self.trace_name.clone()} />
                        </div>
                    }
                }
            </section>
        }
    }
}
