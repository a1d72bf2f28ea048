//! The Statistics tab: the CLI's statistics reports (`mix`, `levels`,
//! `exceptions`, `functions`, `loops`, `cache-tlb`, `cfg`) as it prints
//! them, each with its download, and a function's executed control-flow
//! graph drawn (`model::statistics::picture`). Their pass over the trace
//! runs in the report worker when the tab first asks; on a long trace the
//! first answer counts its first lines (said above the text, no download)
//! and the whole trace's replaces it when counted.

use std::rc::Rc;

use yew::prelude::*;

use crate::model::statistics::{file_name, picture, Picture, StatisticKind};
use crate::web::page::i18n::{number, t, tf, LangWatch};
use crate::web::page::report_client::{Download, ReportClient};
use crate::web::shared::report_protocol::{Statistic, StatisticText};
use tarmac_lens_core::report::stats::Report;

#[derive(Properties, PartialEq)]
pub struct StatisticsViewProps {
    pub client: ReportClient,
    /// The pass's progress (bytes done, of), while it runs.
    #[prop_or_default]
    pub progress: Option<(u64, u64)>,
    /// The trace's name, for the downloads'.
    pub trace_name: String,
}

pub enum StatisticsMsg {
    /// The page's language changed: draw again.
    Lang,
    Kind(StatisticKind),
    /// The functions' switch: exceptions taken inside a call counted in it.
    ExceptionsInCalls(bool),
    /// The graph's function as typed.
    Function(String),
    /// Draw the typed function's graph.
    ShowGraph,
    Answer(Report, Result<StatisticText, String>),
}

/// A report's answer: its text's download (none while it counts only the
/// trace's first lines), the graph laid out.
struct Shown {
    report: Report,
    answer: Result<Answered, String>,
}

/// A report's text, its download (whole texts only) and its graph.
type Answered = (StatisticText, Option<Rc<Download>>, Option<Picture>);

impl Shown {
    /// Not a first answer from the trace's first lines.
    fn whole(&self) -> bool {
        !matches!(&self.answer, Ok((text, ..)) if text.prefix.is_some())
    }
}

/// Answers kept, the latest last (a report chosen again shows at once).
const KEPT: usize = 16;

pub struct StatisticsView {
    kind: StatisticKind,
    exceptions_in_calls: bool,
    function: String,
    /// Reports asked for and not answered yet.
    asking: Vec<Report>,
    answers: Vec<Shown>,
    _lang: LangWatch,
}

impl StatisticsView {
    fn ask(&mut self, ctx: &Context<Self>) {
        let Some(report) = self.kind.report(self.exceptions_in_calls, &self.function) else {
            return;
        };
        if self.asking.contains(&report)
            || self.answers.iter().any(|s| s.report == report && s.whole())
        {
            return;
        }
        self.send(ctx, report);
    }

    fn send(&mut self, ctx: &Context<Self>, report: Report) {
        self.asking.push(report.clone());
        // Every other report a kind button shows, for their first answers.
        let mut also: Vec<Report> = Vec::new();
        for kind in StatisticKind::ALL {
            for in_calls in [true, false] {
                if let Some(r) = kind.report(in_calls, "") {
                    if r != report && !also.contains(&r) {
                        also.push(r);
                    }
                }
            }
        }
        let link = ctx.link().clone();
        let asked = report.clone();
        ctx.props()
            .client
            .ask(Statistic { report, also }, move |reply| {
                link.send_message(StatisticsMsg::Answer(asked, reply))
            });
    }

    /// Keeps `shown` as its report's answer, unless that is whole and
    /// `shown` is not.
    fn keep(&mut self, shown: Shown) {
        if let Some(i) = self.answers.iter().position(|s| s.report == shown.report) {
            if self.answers[i].whole() && !shown.whole() {
                return;
            }
            self.answers.remove(i);
        }
        if self.answers.len() == KEPT {
            self.answers.remove(0);
        }
        self.answers.push(shown);
    }

    fn view_graph(&self, picture: &Picture) -> Html {
        let font = "font-family:var(--mono, monospace);font-size:12px;";
        html! {
            <svg
                data-testid="cfg-picture"
                width={picture.width.to_string()}
                height={picture.height.to_string()}
                viewBox={format!("0 0 {} {}", picture.width, picture.height)}
                role="img"
                aria-label={t("Control-flow graph")}
                style="display:block;"
            >
                <defs>
                    <marker id="cfg-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L8,4 L0,8 z" fill="currentColor" />
                    </marker>
                </defs>
                { for picture.arrows.iter().map(|a| {
                    let points = a.points.iter().map(|(x, y)| format!("{x},{y}")).collect::<Vec<_>>().join(" ");
                    html! {
                        <g data-testid="cfg-edge">
                            <polyline points={points} fill="none" stroke="currentColor" stroke-opacity="0.7"
                                stroke-dasharray={a.dashed.then_some("4 3")} marker-end="url(#cfg-arrow)" />
                            <text x={a.label_at.0.to_string()} y={a.label_at.1.to_string()} style={font} fill="currentColor">{ &a.label }</text>
                        </g>
                    }
                }) }
                { for picture.nodes.iter().map(|n| {
                    let rx = if n.oval { n.h / 2.0 } else { 3.0 };
                    html! {
                        <g data-testid="cfg-node" data-node={n.id.clone()}>
                            <rect x={n.x.to_string()} y={n.y.to_string()} width={n.w.to_string()} height={n.h.to_string()}
                                rx={rx.to_string()} fill="var(--bg, #fff)" stroke="currentColor" />
                            { for n.lines.iter().enumerate().map(|(i, line)| html! {
                                <text x={(n.x + 8.0).to_string()} y={(n.y + 15.0 * (i as f64 + 1.0)).to_string()} style={font} fill="currentColor">{ line }</text>
                            }) }
                        </g>
                    }
                }) }
            </svg>
        }
    }
}

impl Component for StatisticsView {
    type Message = StatisticsMsg;
    type Properties = StatisticsViewProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut view = StatisticsView {
            kind: StatisticKind::Mix,
            exceptions_in_calls: true,
            function: String::new(),
            asking: Vec::new(),
            answers: Vec::new(),
            _lang: LangWatch::new(ctx, || StatisticsMsg::Lang),
        };
        view.ask(ctx);
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: StatisticsMsg) -> bool {
        match msg {
            StatisticsMsg::Lang => {}
            StatisticsMsg::Kind(kind) => {
                self.kind = kind;
                self.ask(ctx);
            }
            StatisticsMsg::ExceptionsInCalls(on) => {
                self.exceptions_in_calls = on;
                self.ask(ctx);
            }
            StatisticsMsg::Function(f) => {
                self.function = f;
                return false;
            }
            StatisticsMsg::ShowGraph => self.ask(ctx),
            StatisticsMsg::Answer(report, reply) => {
                self.asking.retain(|r| *r != report);
                // A first answer from the trace's first lines: the whole
                // trace's comes when asked again (the worker counts it
                // right after); the other reports' first answers came
                // with it.
                if let Ok(StatisticText {
                    prefix: Some(prefix),
                    also,
                    ..
                }) = &reply
                {
                    for (other, text) in also {
                        let text = StatisticText {
                            text: text.clone(),
                            cfg: None,
                            names: Vec::new(),
                            prefix: Some(*prefix),
                            also: Vec::new(),
                        };
                        self.keep(Shown {
                            report: other.clone(),
                            answer: Ok((text, None, None)),
                        });
                    }
                    self.send(ctx, report.clone());
                }
                let answer = reply.and_then(|mut text| {
                    text.also = Vec::new();
                    let download = match text.prefix {
                        None => Some(Rc::new(Download::of_text(&text.text)?)),
                        Some(_) => None,
                    };
                    let name = |a: u64| {
                        text.names
                            .iter()
                            .find(|(at, _)| *at == a)
                            .map_or(String::new(), |(_, n)| n.clone())
                    };
                    let graph = text.cfg.as_ref().map(|cfg| picture(cfg, &name));
                    Ok((text, download, graph))
                });
                self.keep(Shown { report, answer });
                // A first answer shown for the report now chosen: its
                // whole trace's is asked for too.
                self.ask(ctx);
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let link = ctx.link();
        let wanted = self.kind.report(self.exceptions_in_calls, &self.function);
        let shown = wanted
            .as_ref()
            .and_then(|w| self.answers.iter().rev().find(|s| s.report == *w));
        html! {
            <div data-testid="statistics" style="display:flex;flex-direction:column;gap:0.5rem;min-width:0;">
                <div role="tablist" aria-label={t("Statistics")} style="display:flex;flex-wrap:wrap;gap:0.2rem;">
                    { for StatisticKind::ALL.iter().map(|&k| html! {
                        <button
                            role="tab"
                            class={classes!("toggle", (k == self.kind).then_some("on"))}
                            aria-selected={(k == self.kind).to_string()}
                            data-testid={format!("statistic-{}", k.id())}
                            title={format!("tarmac-lens {}", k.id())}
                            onclick={link.callback(move |_| StatisticsMsg::Kind(k))}
                        >{ k.label() }</button>
                    }) }
                </div>
                if self.kind == StatisticKind::Functions {
                    <label style="display:flex;gap:0.3rem;align-items:center;">
                        <input
                            type="checkbox"
                            data-testid="exceptions-in-calls"
                            checked={self.exceptions_in_calls}
                            onchange={link.callback(|e: Event| {
                                let on = e.target_unchecked_into::<web_sys::HtmlInputElement>().checked();
                                StatisticsMsg::ExceptionsInCalls(on)
                            })}
                        />
                        { t("Time in exceptions taken inside a call counts in the call") }
                    </label>
                }
                if self.kind == StatisticKind::Cfg {
                    <form
                        style="display:flex;gap:0.3rem;align-items:center;"
                        onsubmit={link.callback(|e: SubmitEvent| {
                            e.prevent_default();
                            StatisticsMsg::ShowGraph
                        })}
                    >
                        <label for="cfg-function">{ t("Function (a symbol or an address)") }</label>
                        <input
                            id="cfg-function"
                            data-testid="cfg-function"
                            value={self.function.clone()}
                            oninput={link.callback(|e: InputEvent| {
                                StatisticsMsg::Function(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
                            })}
                        />
                        <button type="submit" data-testid="cfg-show">{ t("Show") }</button>
                    </form>
                }
                { match (shown, &wanted) {
                    (_, None) => html! { <p>{ t("Type a function to see its executed control-flow graph.") }</p> },
                    (None, Some(_)) => html! {
                        <p data-testid="statistics-progress">
                            if let Some((done, total)) = props.progress {
                                <progress max={total.to_string()} value={done.to_string()}></progress>{ " " }
                                { tf("Counting: {} of {} bytes", &[&number(done), &number(total)]) }
                            } else {
                                { t("Counting…") }
                            }
                        </p>
                    },
                    (Some(Shown { answer: Err(e), .. }), _) => html! {
                        <p class="error" role="alert" data-testid="statistics-error">{ e.clone() }</p>
                    },
                    (Some(Shown { report, answer: Ok((text, download, graph)) }), _) => {
                        let name = file_name(&props.trace_name, report);
                        html! {
                            <>
                                if let Some(download) = download {
                                    <p style="margin:0;">
                                        <a data-testid="statistics-download" href={download.url.clone()} download={name.clone()}>
                                            { tf("Download {} ({} bytes)", &[&name, &number(download.bytes)]) }
                                        </a>
                                        { " " }<span style="opacity:0.8;">{ tf("as tarmac-lens {} prints it", &[&report.command()]) }</span>
                                    </p>
                                }
                                if let Some(counted) = text.prefix {
                                    <p role="status" data-testid="statistics-partial" style="margin:0;">
                                        { tf(
                                            "Counted over the trace's first {} of {} bytes ({} instructions); counting the whole trace:",
                                            &[&number(counted.bytes), &number(counted.of), &number(counted.instructions)],
                                        ) }
                                        { " " }
                                        if let Some((done, total)) = props.progress {
                                            <progress max={total.to_string()} value={done.to_string()}></progress>{ " " }
                                            { tf("{} of {} bytes", &[&number(done), &number(total)]) }
                                        }
                                    </p>
                                }
                                if let Some(graph) = graph {
                                    { self.view_graph(graph) }
                                }
                                if text.cfg.is_none() {
                                    <pre data-testid="statistics-text" style="margin:0;font-family:var(--mono, monospace);font-size:0.8rem;">{ &text.text }</pre>
                                }
                            </>
                        }
                    }
                } }
            </div>
        }
    }
}
