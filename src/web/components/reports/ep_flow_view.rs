//! An EP trace's discontinuities in trace order, a page at a time; a row
//! moves the trace view to its line.

use yew::prelude::*;

use super::ep_profile_view::EpProps;
use super::list_pager::{pager, selected_style, LIST_PAGE};
use crate::report::ep_explore::EpFlowPage;
use crate::web::i18n::{t, tf};
use crate::web::report_protocol::{ReportQuery, ReportReply};

pub enum FlowMsg {
    Offset(u64),
    Page(u64, ReportReply),
    /// A row was clicked: go to its line and mark it.
    Jump(u64),
}

pub struct EpFlowList {
    /// The line of the row last clicked.
    selected: Option<u64>,
    offset: u64,
    page: Option<EpFlowPage>,
    error: Option<String>,
}

impl EpFlowList {
    fn ask(&self, ctx: &Context<Self>) {
        let offset = self.offset;
        let link = ctx.link().clone();
        ctx.props().client.ask(
            ReportQuery::EpFlow {
                offset,
                limit: LIST_PAGE as u32,
            },
            move |reply| link.send_message(FlowMsg::Page(offset, reply)),
        );
    }
}

impl Component for EpFlowList {
    type Message = FlowMsg;
    type Properties = EpProps;

    fn create(ctx: &Context<Self>) -> Self {
        let view = EpFlowList {
            selected: None,
            offset: 0,
            page: None,
            error: None,
        };
        view.ask(ctx);
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: FlowMsg) -> bool {
        match msg {
            FlowMsg::Offset(offset) => {
                self.offset = offset;
                self.ask(ctx);
            }
            FlowMsg::Jump(line) => {
                self.selected = Some(line);
                ctx.props().on_jump.emit(line);
            }
            FlowMsg::Page(offset, reply) => {
                if offset != self.offset {
                    return false;
                }
                match reply {
                    ReportReply::EpFlow(p) => self.page = Some(p),
                    ReportReply::Error(e) => self.error = Some(e),
                    _ => self.error = Some("unexpected answer from the report worker".into()),
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let s = &ctx.props().summary;
        let numeric = "text-align:right;padding:0 0.6rem;";
        html! {
            <div data-testid="ep-flow">
                if let Some(e) = &self.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                if s.discontinuities == 0 {
                    <p data-testid="ep-flow-empty">{ t("The trace has no discontinuities.") }</p>
                } else {
                    <p style="margin:0 0 0.3rem 0;">{ t("Discontinuities in trace order; click one to go to its line.") }</p>
                    if s.discontinuities > s.listed {
                        <p data-testid="ep-flow-more">{ tf("The first {} of {} discontinuities are listed; the download counts the rest.", &[&s.listed, &s.discontinuities]) }</p>
                    }
                    <table data-testid="ep-flow-table" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                        <thead>
                            <tr>
                                <th style={numeric}>{ t("Line") }</th>
                                <th style={numeric}>{ t("Cycle") }</th>
                                <th style={numeric}>{ t("From") }</th>
                                <th style={numeric}>{ t("To") }</th>
                                <th style={numeric}>{ t("EP size (bytes)") }</th>
                                <th style={numeric}>{ t("Latency") }</th>
                                <th></th>
                            </tr>
                        </thead>
                        <tbody>
                            if let Some(p) = &self.page {
                                { for p.rows.iter().map(|d| {
                                    let line = d.line;
                                    let selected = self.selected == Some(line);
                                    html! {
                                        <tr data-testid="ep-flow-row" data-line={line.to_string()}
                                            data-selected={selected.then_some("true")}
                                            aria-selected={selected.to_string()}
                                            style={selected_style(selected)}
                                            onclick={link.callback(move |_: MouseEvent| FlowMsg::Jump(line))}>
                                            <td style={numeric}>
                                                <button data-testid="jump-line" title={t("go to this line in the trace view")}>{ line }</button>
                                            </td>
                                            <td style={numeric} data-col="cycle">{ d.cycle }</td>
                                            <td style={numeric} data-col="from">{ format!("0x{:08x}", d.pc) }</td>
                                            <td style={numeric} data-col="to">{ format!("0x{:08x}", d.target) }</td>
                                            <td style={numeric} data-col="size">{ d.size }</td>
                                            <td style={numeric} data-col="latency">{ d.cycles }</td>
                                            <td style="padding:0 0.6rem;">{ if d.size == 0 { t("interrupt") } else { "" } }</td>
                                        </tr>
                                    }
                                }) }
                            }
                        </tbody>
                    </table>
                    if let Some(p) = &self.page {
                        { pager("ep-flow", (p.offset, p.rows.len() as u64, p.total), LIST_PAGE, link.callback(FlowMsg::Offset)) }
                    }
                }
            </div>
        }
    }
}
