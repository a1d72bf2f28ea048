//! An EP trace's discontinuities in trace order, a page at a time; a row
//! moves the trace view to its line.

use yew::prelude::*;

use super::ep_profile_view::EpProps;
use super::list_pager::{self, pager, selected_style, Msg};
use crate::model::paged_list::{ListMsg, PagedList, LIST_PAGE};
use crate::web::page::i18n::{number, t, tf, LangWatch};
use crate::web::shared::report_protocol::EpFlow;
use tarmac_lens_core::report::EpFlowPage;

pub struct EpFlowList {
    _lang: LangWatch,
    list: PagedList<EpFlowPage>,
}

fn query(offset: u64, limit: u32) -> EpFlow {
    EpFlow { offset, limit }
}

impl Component for EpFlowList {
    type Message = Msg<EpFlowPage>;
    type Properties = EpProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut view = EpFlowList {
            _lang: LangWatch::new(ctx, || Msg::Lang),
            list: PagedList::default(),
        };
        list_pager::ask(&mut view.list, ctx, &ctx.props().client, query);
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg<EpFlowPage>) -> bool {
        let p = ctx.props();
        list_pager::update(&mut self.list, ctx, msg, (&p.client, &p.on_jump), query)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let s = &ctx.props().summary;
        let numeric = "text-align:right;padding:0 0.6rem;";
        html! {
            <div data-testid="ep-flow">
                if let Some(e) = &self.list.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                if s.discontinuities == 0 {
                    <p data-testid="ep-flow-empty">{ t("The trace has no discontinuities.") }</p>
                } else {
                    <p style="margin:0 0 0.3rem 0;">{ t("Discontinuities in trace order; click one to go to its line.") }</p>
                    if s.discontinuities > s.listed {
                        <p data-testid="ep-flow-more">{ tf("The first {} of {} discontinuities are listed; the download counts the rest.", &[&number(s.listed), &number(s.discontinuities)]) }</p>
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
                            if let Some(p) = &self.list.page {
                                { for p.rows.iter().map(|d| {
                                    let line = d.line;
                                    let selected = self.list.selected == Some(line);
                                    html! {
                                        <tr data-testid="ep-flow-row" data-line={line.to_string()}
                                            data-selected={selected.then_some("true")}
                                            aria-selected={selected.to_string()}
                                            style={selected_style(selected)}
                                            onclick={link.callback(move |_: MouseEvent| Msg::List(ListMsg::Jump(line)))}>
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
                    if let Some(p) = &self.list.page {
                        { pager("ep-flow", (p.offset, p.rows.len() as u64, p.total), LIST_PAGE, link.callback(|o| Msg::List(ListMsg::Offset(o)))) }
                    }
                }
            </div>
        }
    }
}
