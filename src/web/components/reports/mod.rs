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
use crate::model::reports_panel::{
    Computed, Download, ReportPass, ReportStatus, ReportsMsg, ReportsPhase,
};
pub use crate::model::ReportTab;
use crate::web::page::client::TraceClient;
use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::{Download as ReportDownload, ReportClient};
use tarmac_lens_core::report::TextKind;

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
    Downloaded(u32, TextKind, Result<ReportDownload, String>),
}

/// Renders `model::reports_panel` and starts its worker.
pub struct ReportsPanel {
    model: Panel,
    _lang: LangWatch,
}

type Panel = crate::model::reports_panel::ReportsPanel<ReportClient, ReportDownload>;

impl ReportsPanel {
    fn start(&mut self, ctx: &Context<Self>) {
        let (trace, elf, options) = ctx.props().trace.report_inputs();
        self.model.update(ReportsMsg::Start {
            trace_name: trace.name().to_string(),
        });
        let link = ctx.link().clone();
        let generation = self.model.generation;
        self.model.update(
            match ReportClient::start(trace, elf, options, move |status| {
                link.send_message(Msg::Status(generation, status))
            }) {
                Ok(c) => ReportsMsg::Started(c),
                Err(e) => ReportsMsg::StartFailed(e),
            },
        );
    }

    fn view_phase(&self) -> Html {
        match &self.model.phase {
            ReportsPhase::Starting => html! {
                <p data-testid="reports-progress">{ t("Starting the report worker…") }</p>
            },
            ReportsPhase::Progress { pass, done, total } => {
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
            ReportsPhase::Failed(m) => html! {
                <p class="error" role="alert" data-testid="reports-error">{ m.clone() }</p>
            },
            ReportsPhase::Ready(_) => html! {},
        }
    }

    /// The texts to download, in a menu so the header keeps to a line or
    /// two in a narrow area; each one's state (preparing, a link to save
    /// it again) beside it in the menu, so the header does not grow with
    /// downloads. A download that failed is said in the header.
    fn view_downloads(&self, ctx: &Context<Self>, texts: &'static [TextKind]) -> Html {
        let link = ctx.link();
        let state_of = |kind: TextKind| self.model.download(kind);
        html! {
            <div class="report-downloads" style="display:flex;gap:0.4rem;align-items:center;min-width:0;">
                <ToolbarMenu label={t("Download")} testid="menu-downloads" end={true}>
                    { for texts.iter().map(|&kind| html! {
                        <div style="display:flex;gap:0.5rem;align-items:baseline;white-space:nowrap;">
                            <button
                                data-testid={format!("download-{}", text_id(kind))}
                                disabled={matches!(state_of(kind), Some(Download::Preparing))}
                                onclick={link.callback(move |_| Msg::Download(kind))}
                                style="flex:1;text-align:left;"
                            >{ text_label(kind) }</button>
                            { match state_of(kind) {
                                Some(Download::Preparing) => html! { <span>{ tf("{}: preparing…", &[&text_label(kind)]) }</span> },
                                Some(Download::Ready(d)) => html! {
                                    <a
                                        data-testid={format!("saved-{}", text_id(kind))}
                                        href={d.url.clone()}
                                        download={kind.file_name(&self.model.trace_name)}
                                    >{ tf("{} again ({} bytes)", &[&text_label(kind), &number(d.bytes)]) }</a>
                                },
                                _ => html! {},
                            } }
                        </div>
                    }) }
                </ToolbarMenu>
                if let Some((kind, e)) = self.model.failed_download(texts) {
                    <span class="error" role="alert" title={format!("{}: {e}", text_label(kind))}
                        style="min-width:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;">{ format!("{}: {e}", text_label(kind)) }</span>
                }
                if let Some((done, total)) = self.model.vcd_progress {
                    <progress data-testid="vcd-progress" max={total.to_string()} value={done.to_string()}></progress>
                }
            </div>
        }
    }
}

/// Saves `download` as `name` the way a link with `download` does.
fn save(download: &ReportDownload, name: &str) {
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
            model: Panel::default(),
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
            Msg::Lang => true,
            Msg::Status(generation, status) => {
                self.model.update(ReportsMsg::Status { generation, status })
            }
            Msg::Download(kind) => {
                if !self.model.update(ReportsMsg::Download(kind)) {
                    return false;
                }
                if let Some(client) = &self.model.client {
                    let link = ctx.link().clone();
                    let generation = self.model.generation;
                    client.download(kind, move |r| {
                        link.send_message(Msg::Downloaded(generation, kind, r))
                    });
                }
                true
            }
            Msg::Downloaded(generation, kind, result) => {
                if generation == self.model.generation {
                    if let Ok(d) = &result {
                        save(d, &kind.file_name(&self.model.trace_name));
                    }
                }
                self.model.update(ReportsMsg::Downloaded {
                    generation,
                    kind,
                    result,
                })
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let model = &self.model;
        let ready = model.computed();
        let tab = model.tab(props.tab);
        // The tabs depend on the trace's kind: none until it is known.
        let tabs = model.tabs();
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
                            Computed::Calls(s) => format!(
                                "{} · {} · {}",
                                tn(s.activations, "{} call", "{} calls", &[&number(s.activations)]),
                                tn(s.functions, "{} function", "{} functions", &[&number(s.functions)]),
                                tn(s.instructions, "{} instruction", "{} instructions", &[&number(s.instructions)]),
                            ),
                            Computed::Ep(s) => tf(
                                "EP trace: {} packet cycles at {} addresses · {} discontinuities",
                                &[&number(s.packet_cycles), &number(s.addresses), &number(s.discontinuities)],
                            ),
                            Computed::Flow(s) => tf(
                                "Branch-only trace: {} blocks · {} instructions",
                                &[&number(s.blocks), &number(s.instructions)],
                            ),
                        } }</span>
                    }
                    if let (Some(r), Some(_)) = (ready, &model.client) {
                        { self.view_downloads(ctx, r.texts()) }
                    }
                    <span style="margin-left:auto;"></span>
                    { props.tools.clone() }
                    <button data-testid="reports-close" title="R" onclick={Callback::from(move |_| on_close.emit(()))}>{ t("Close") }</button>
                </div>
                { self.view_phase() }
                if let Some(m) = model.elf_ignored.as_ref().or(props.elf_error.as_ref()) {
                    <p role="status" data-testid="reports-elf-ignored">{ tf("Functions are named by address: the ELF image was not used ({}).", &[m]) }</p>
                }
                if let (Some(Computed::Ep(summary)), Some(client)) = (ready, &model.client) {
                    <div role="tabpanel" hidden={tab != ReportTab::CycleProfile} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <EpCycleProfile key={model.generation} client={client.clone()} summary={summary.clone()} on_jump={props.on_jump_line.clone()} />
                    </div>
                    <div role="tabpanel" hidden={tab != ReportTab::EpFlow} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <EpFlowList key={model.generation} client={client.clone()} summary={summary.clone()} on_jump={props.on_jump_line.clone()} />
                    </div>
                }
                if let (Some(Computed::Flow(summary)), Some(client)) = (ready, &model.client) {
                    <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <ProgramFlow key={model.generation} client={client.clone()} summary={summary.clone()} on_jump={props.on_jump_line.clone()} />
                    </div>
                }
                if let (Some(r @ Computed::Calls(_)), Some(client)) = (ready, &model.client) {
                    // The tree and the table stay mounted, so what was
                    // expanded or sorted is still there after another tab.
                    <div role="tabpanel" hidden={tab != ReportTab::CallTree} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <CallTree key={model.generation} client={client.clone()} on_jump={props.on_jump.clone()} reveal={props.reveal} />
                    </div>
                    <div role="tabpanel" hidden={tab != ReportTab::Profile} style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                        <ProfileTable key={model.generation} client={client.clone()} instructions={match r { Computed::Calls(s) => s.instructions, _ => 0 }} on_jump={props.on_jump.clone()} show_calls={props.show_calls} />
                    </div>
                    if tab == ReportTab::FlameGraph {
                        <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                            <FlameGraph key={model.generation} client={client.clone()} />
                        </div>
                    }
                    // Its pass runs when first shown (the worker keeps its answer).
                    if tab == ReportTab::Coverage {
                        <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                            <CoverageView key={model.generation} client={client.clone()} progress={model.coverage_progress} on_source={props.on_source.clone()} />
                        </div>
                    }
                    // Mounted once shown, so the report and graph chosen stay.
                    if tab == ReportTab::Statistics {
                        <div role="tabpanel" style="flex:1 1 auto;min-height:4rem;overflow:auto;">
                            <StatisticsView key={model.generation} client={client.clone()} progress={model.statistics_progress} trace_name={model.trace_name.clone()} />
                        </div>
                    }
                }
            </section>
        }
    }
}
