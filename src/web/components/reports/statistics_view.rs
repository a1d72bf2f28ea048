//! The Statistics tab: the CLI's statistics reports (`mix`, `levels`,
//! `exceptions`, `functions`, `loops`, `cache-tlb`, `cfg`) as it prints
//! them, each with its download, and a function's executed control-flow
//! graph drawn (`model::statistics::picture`). What is asked and kept,
//! first answers from a long trace's first lines included, is
//! `model::statistics_tab`'s.

use yew::prelude::*;

use crate::model::statistics::{file_name, Picture, StatisticKind};
use crate::model::statistics_tab::{Shown, StatisticAsk, StatisticsMsg, StatisticsTab};
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

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Tab(StatisticsMsg<Download>),
    /// A report's answer from the worker.
    Answer(Report, Result<StatisticText, String>),
}

/// Draws `model::statistics_tab` and carries its questions to the worker.
pub struct StatisticsView {
    model: StatisticsTab<Download>,
    _lang: LangWatch,
}

impl StatisticsView {
    /// Asks the worker for the reports the model wants.
    fn ask(&mut self, ctx: &Context<Self>) {
        for StatisticAsk { report, also } in self.model.take_asks() {
            let link = ctx.link().clone();
            let asked = report.clone();
            ctx.props()
                .client
                .ask(Statistic { report, also }, move |reply| {
                    link.send_message(Msg::Answer(asked, reply))
                });
        }
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
    type Message = Msg;
    type Properties = StatisticsViewProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut view = StatisticsView {
            model: StatisticsTab::default(),
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        view.ask(ctx);
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let changed = match msg {
            Msg::Lang => true,
            Msg::Tab(msg) => self.model.update(msg),
            Msg::Answer(report, reply) => {
                // A whole text's download is a Blob of it.
                let download = match &reply {
                    Ok(text) if text.prefix.is_none() => Some(Download::of_text(&text.text)),
                    _ => None,
                };
                self.model.update(StatisticsMsg::Answer {
                    report,
                    reply: reply.map(Box::new),
                    download,
                })
            }
        };
        self.ask(ctx);
        changed
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let link = ctx.link();
        let model = &self.model;
        let wanted = model.wanted();
        let shown = model.shown();
        html! {
            <div data-testid="statistics" style="display:flex;flex-direction:column;gap:0.5rem;min-width:0;">
                <div role="tablist" aria-label={t("Statistics")} style="display:flex;flex-wrap:wrap;gap:0.2rem;">
                    { for StatisticKind::ALL.iter().map(|&k| html! {
                        <button
                            role="tab"
                            class={classes!("toggle", (k == model.kind).then_some("on"))}
                            aria-selected={(k == model.kind).to_string()}
                            data-testid={format!("statistic-{}", k.id())}
                            title={format!("tarmac-lens {}", k.id())}
                            onclick={link.callback(move |_| Msg::Tab(StatisticsMsg::Kind(k)))}
                        >{ k.label() }</button>
                    }) }
                </div>
                if model.kind == StatisticKind::Functions {
                    <label style="display:flex;gap:0.3rem;align-items:center;">
                        <input
                            type="checkbox"
                            data-testid="exceptions-in-calls"
                            checked={model.exceptions_in_calls}
                            onchange={link.callback(|e: Event| {
                                let on = e.target_unchecked_into::<web_sys::HtmlInputElement>().checked();
                                Msg::Tab(StatisticsMsg::ExceptionsInCalls(on))
                            })}
                        />
                        { t("Time in exceptions taken inside a call counts in the call") }
                    </label>
                }
                if model.kind == StatisticKind::Cfg {
                    <form
                        style="display:flex;gap:0.3rem;align-items:center;"
                        onsubmit={link.callback(|e: SubmitEvent| {
                            e.prevent_default();
                            Msg::Tab(StatisticsMsg::ShowGraph)
                        })}
                    >
                        <label for="cfg-function">{ t("Function (a symbol or an address)") }</label>
                        <input
                            id="cfg-function"
                            data-testid="cfg-function"
                            value={model.function.clone()}
                            oninput={link.callback(|e: InputEvent| {
                                Msg::Tab(StatisticsMsg::Function(e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))
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
