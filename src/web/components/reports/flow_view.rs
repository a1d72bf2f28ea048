//! A branch-only trace's program flow: the straight-line blocks between
//! branches in trace order, a page at a time, each with its length, the
//! branch that left it and the functions they are in (with an ELF image);
//! a row moves the trace view to its branch's line.

use yew::prelude::*;

use super::list_pager::{self, pager, selected_style, Msg};
use crate::model::paged_list::{ListMsg, PagedList, LIST_PAGE};
use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::FlowBlocks;
use tarmac_lens_core::report::{FlowPage, FlowSummary};

#[derive(Properties, PartialEq)]
pub struct ProgramFlowProps {
    pub client: ReportClient,
    pub summary: FlowSummary,
    pub on_jump: Callback<u64>,
}

pub struct ProgramFlow {
    _lang: LangWatch,
    list: PagedList<FlowPage>,
}

fn query(offset: u64, limit: u32) -> FlowBlocks {
    FlowBlocks { offset, limit }
}

fn hex(addr: u64) -> String {
    format!("0x{addr:08x}")
}

impl Component for ProgramFlow {
    type Message = Msg<FlowPage>;
    type Properties = ProgramFlowProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut view = ProgramFlow {
            _lang: LangWatch::new(ctx, || Msg::Lang),
            list: PagedList::default(),
        };
        list_pager::ask(&mut view.list, ctx, &ctx.props().client, query);
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg<FlowPage>) -> bool {
        let p = ctx.props();
        list_pager::update(&mut self.list, ctx, msg, (&p.client, &p.on_jump), query)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let s = &ctx.props().summary;
        let numeric = "text-align:right;padding:0 0.6rem;";
        let text = "text-align:left;padding:0 0.6rem;";
        html! {
            <div data-testid="program-flow">
                if let Some(e) = &self.list.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                if s.blocks == 0 {
                    <p data-testid="program-flow-empty">{ t("The trace has no program-flow lines (FD/FI/FR).") }</p>
                } else {
                    <p style="margin:0 0 0.3rem 0;">{ t("Straight-line runs between branches, in trace order; click one to go to the branch that left it.") }</p>
                    if s.instruction_lines > 0 {
                        <p data-testid="program-flow-instructions">{ tn(s.instruction_lines, "The trace also has {} instruction line: it shows the flow itself.", "The trace also has {} instruction lines: they show the flow themselves.", &[&number(s.instruction_lines)]) }</p>
                    }
                    if s.unparsed > 0 {
                        <p data-testid="program-flow-unparsed">{ tf("Lines not understood: {} (the events pane lists them).", &[&number(s.unparsed)]) }</p>
                    }
                    if s.blocks > s.listed {
                        <p data-testid="program-flow-more">{ tf("The first {} of {} blocks are listed; the download has them all.", &[&number(s.listed), &number(s.blocks)]) }</p>
                    }
                    <table data-testid="program-flow-table" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                        <thead>
                            <tr>
                                <th style={numeric}>{ t("Line") }</th>
                                <th style={numeric}>{ t("Start") }</th>
                                <th style={numeric}>{ t("End") }</th>
                                <th style={numeric}>{ t("Instructions") }</th>
                                <th style={text}>{ t("Set") }</th>
                                <th style={text}>{ t("Function") }</th>
                                <th style={text}>{ t("Branch") }</th>
                                <th style={numeric}>{ t("Target") }</th>
                                <th style={text}>{ t("Target function") }</th>
                                <th style={numeric}>{ t("Time") }</th>
                            </tr>
                        </thead>
                        <tbody>
                            if let Some(p) = &self.list.page {
                                { for p.rows.iter().map(|b| {
                                    let line = b.line;
                                    let selected = self.list.selected == Some(line);
                                    html! {
                                        <tr data-testid="flow-row" data-index={b.index.to_string()} data-line={line.to_string()}
                                            data-selected={selected.then_some("true")}
                                            aria-selected={selected.to_string()}
                                            style={selected_style(selected)}
                                            onclick={link.callback(move |_: MouseEvent| Msg::List(ListMsg::Jump(line)))}>
                                            <td style={numeric}>
                                                <button data-testid="jump-line" title={t("go to this line in the trace view")}>{ line }</button>
                                            </td>
                                            <td style={numeric} data-col="start">{ b.start.map_or_else(|| "?".to_string(), hex) }</td>
                                            <td style={numeric} data-col="end">{ hex(b.end) }</td>
                                            <td style={numeric} data-col="instructions">{ b.instructions.map_or_else(|| "?".to_string(), |n| n.to_string()) }</td>
                                            <td style={text} data-col="iset">{ b.iset.clone() }</td>
                                            <td style={text} data-col="function">{ b.function.clone() }</td>
                                            <td style={text} data-col="kind">
                                                { b.kind.clone() }
                                                if b.interrupted {
                                                    <span data-testid="flow-interrupted" title={t("an exception came in between: the block may not have run straight through")}>{ " ⚡" }</span>
                                                }
                                            </td>
                                            <td style={numeric} data-col="target">{ hex(b.target) }</td>
                                            <td style={text} data-col="target-function">{ b.target_function.clone() }</td>
                                            <td style={numeric} data-col="time">{ b.time }</td>
                                        </tr>
                                    }
                                }) }
                            }
                        </tbody>
                    </table>
                    if let Some(p) = &self.list.page {
                        { pager("program-flow", (p.offset, p.rows.len() as u64, p.total), LIST_PAGE, link.callback(|o| Msg::List(ListMsg::Offset(o)))) }
                    }
                }
            </div>
        }
    }
}
