//! The Coverage tab: how much of the ELF image's code the trace ran, by
//! source file (by function without DWARF) and by function, with the
//! figures `tarmac-lens coverage` gives; a file's row opens the source
//! pane at its first line that never ran, a function's at its first line.

use yew::prelude::*;

use crate::web::page::i18n::{number, percent, t, tf, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::Coverage;
use tarmac_lens_core::coverage::{CoverageTable, Figures};

#[derive(Properties, PartialEq)]
pub struct CoverageViewProps {
    pub client: ReportClient,
    /// The pass's progress (bytes done, of), while it runs.
    #[prop_or_default]
    pub progress: Option<(u64, u64)>,
    /// Show this file at this line in the source pane.
    pub on_source: Callback<(String, u32)>,
}

pub enum CoverageMsg {
    /// The page's language changed: draw again.
    Lang,
    Answer(Result<CoverageTable, String>),
}

pub struct CoverageView {
    table: Option<Result<CoverageTable, String>>,
    _lang: LangWatch,
}

/// `hit/total (p%)`, or a dash when there is nothing to cover.
fn ratio((hit, total): (u64, u64)) -> String {
    if total == 0 {
        "–".into()
    } else {
        format!(
            "{}/{} ({})",
            number(hit),
            number(total),
            percent(hit as f64 * 100.0 / total as f64, 1)
        )
    }
}

/// A row's click: shows its file and line, when it has one.
fn show(
    on_source: &Callback<(String, u32)>,
    target: Option<(String, u32)>,
) -> Callback<MouseEvent> {
    let on_source = on_source.clone();
    Callback::from(move |_: MouseEvent| {
        if let Some(t) = target.clone() {
            on_source.emit(t);
        }
    })
}

fn cells(f: &Figures, dwarf: bool) -> Html {
    let numeric = "text-align:right;padding:0 0.6rem;white-space:nowrap;";
    html! {
        <>
            if dwarf {
                <td style={numeric} data-figure="lines">{ ratio(f.lines) }</td>
            }
            <td style={numeric} data-figure="functions">{ ratio(f.functions) }</td>
            <td style={numeric} data-figure="branches">{ ratio(f.branches) }</td>
            <td style={numeric} data-figure="instructions">{ ratio(f.instructions) }</td>
        </>
    }
}

impl Component for CoverageView {
    type Message = CoverageMsg;
    type Properties = CoverageViewProps;

    fn create(ctx: &Context<Self>) -> Self {
        let link = ctx.link().clone();
        ctx.props().client.ask(Coverage, move |reply| {
            link.send_message(CoverageMsg::Answer(reply))
        });
        CoverageView {
            table: None,
            _lang: LangWatch::new(ctx, || CoverageMsg::Lang),
        }
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: CoverageMsg) -> bool {
        let CoverageMsg::Answer(reply) = msg else {
            return true;
        };
        self.table = Some(reply);
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let table = match &self.table {
            None => {
                return html! {
                    <p data-testid="coverage-progress">
                        if let Some((done, total)) = props.progress {
                            <progress max={total.to_string()} value={done.to_string()}></progress>{ " " }
                        }
                        { t("Counting what ran…") }
                    </p>
                }
            }
            Some(Err(e)) => {
                return html! { <p class="error" role="alert" data-testid="coverage-error">{ e.clone() }</p> }
            }
            Some(Ok(table)) => table,
        };
        let numeric = "text-align:right;padding:0 0.6rem;";
        let text = "text-align:left;padding:0 0.6rem;";
        let dwarf = table.dwarf;
        let heads = html! {
            <>
                if dwarf {
                    <th style={numeric}>{ t("Lines") }</th>
                }
                <th style={numeric}>{ t("Functions") }</th>
                <th style={numeric}>{ t("Branch outcomes") }</th>
                <th style={numeric}>{ t("Instructions") }</th>
            </>
        };
        html! {
            <div data-testid="coverage" style="display:flex;flex-direction:column;gap:0.5rem;">
                <p style="margin:0;">{
                    if dwarf {
                        t("How much of the image's code this trace ran, as tarmac-lens coverage counts it. Click a file to see its first line that never ran, a function to see where it starts.")
                    } else {
                        t("How much of the image's code this trace ran, by function (the image has no DWARF lines: build it with -g for lines and files).")
                    }
                }</p>
                <table data-testid="coverage-files" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                    <thead>
                        <tr>
                            <th style={text}>{ if dwarf { t("File") } else { t("Function") } }</th>
                            { heads.clone() }
                            if dwarf {
                                <th style={numeric}>{ t("First line never run") }</th>
                            }
                        </tr>
                    </thead>
                    <tbody>
                        { for table.groups.iter().map(|g| {
                            let target = g.first_unexecuted.map(|line| (g.name.clone(), line));
                            let onclick = show(&props.on_source, target.clone());
                            html! {
                                <tr
                                    data-testid="coverage-file"
                                    data-name={g.name.clone()}
                                    class={classes!(target.is_some().then_some("clickable"))}
                                    style={if dwarf && target.is_some() { "cursor:pointer;" } else { "" }}
                                    title={target.as_ref().filter(|_| dwarf).map(|(_, l)| tf("Show line {} in the source pane", &[l]))}
                                    {onclick}
                                >
                                    <td style={text}>{ if g.is_no_source_line() { t("(no source line)").to_string() } else { g.name.clone() } }</td>
                                    { cells(&g.figures, dwarf) }
                                    if dwarf {
                                        <td style={numeric} data-figure="first-unexecuted">{ g.first_unexecuted.map(|l| number(u64::from(l))).unwrap_or_else(|| "–".into()) }</td>
                                    }
                                </tr>
                            }
                        }) }
                        <tr data-testid="coverage-total" style="font-weight:bold;border-top:1px solid #8886;">
                            <td style={text}>{ t("All") }</td>
                            { cells(&table.totals, dwarf) }
                            if dwarf {
                                <td></td>
                            }
                        </tr>
                    </tbody>
                </table>
                <table data-testid="coverage-functions" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                    <thead>
                        <tr>
                            <th style={text}>{ t("Function") }</th>
                            <th style={text}>{ t("Starts at") }</th>
                            <th style={numeric}>{ t("Entered") }</th>
                            <th style={numeric}>{ t("Instructions run") }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for table.functions.iter().map(|f| {
                            let target = f.file.clone().zip(f.line);
                            let onclick = show(&props.on_source, target.clone());
                            html! {
                                <tr
                                    data-testid="coverage-function"
                                    data-name={f.name.clone()}
                                    class={classes!((f.executed == 0).then_some("never-run"))}
                                    style={if target.is_some() { "cursor:pointer;" } else { "" }}
                                    {onclick}
                                >
                                    <td style={text}>{ &f.name }</td>
                                    <td style={text}>{ target.as_ref().map(|(file, line)| format!("{file}:{line}")).unwrap_or_default() }</td>
                                    <td style={numeric}>{ number(f.entries) }</td>
                                    <td style={numeric}>{ number(f.executed) }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        }
    }
}
