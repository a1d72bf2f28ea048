//! An EP trace's cycle profile: a summary (with the SPLOOP loop-buffer
//! against memory split, as numbers and a bar) and the by-address table,
//! sorted in the report worker by any numeric column and sent a page at a
//! time; a row moves the trace view to the address's first packet.

use yew::prelude::*;

use super::list_pager::{pager, selected_style};
use crate::model::ep_profile::{EpAsk, EpMsg, EpProfileState};
use crate::web::page::i18n::{number, percent, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::EpByPc;
use tarmac_lens_core::report::{EpSort, EpSummary, MAX_PAGE};

/// The share of `part` in `whole` as `ep-profile` prints it, in the
/// page's language (`12.5%`, `12,5 %`).
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        percent(part as f64 * 100.0 / whole as f64, 1)
    }
}

#[derive(Properties, PartialEq)]
pub struct EpProps {
    pub client: ReportClient,
    pub summary: EpSummary,
    /// Go to a line of the trace (a table row's first packet, a flow
    /// row's discontinuity).
    #[prop_or_default]
    pub on_jump: Callback<u64>,
}

pub enum ProfileMsg {
    /// The page's language changed: draw again.
    Lang,
    Table(EpMsg),
    /// A row was clicked: go to the address's first packet and mark it.
    Jump {
        pc: u64,
        line: u64,
    },
}

/// Draws `model::ep_profile` and carries its questions to the worker.
pub struct EpCycleProfile {
    model: EpProfileState,
    _lang: LangWatch,
}

const COLUMNS: [(Option<EpSort>, &str, &str); 6] = [
    (Some(EpSort::Pc), "PC", "pc"),
    (Some(EpSort::Packets), "Packets", "packets"),
    (Some(EpSort::Cycles), "Cycles", "cycles"),
    (None, "Share", "share"),
    (Some(EpSort::Stalls), "Stall cycles", "stalls"),
    (None, "EP size (bytes)", "size"),
];

impl EpCycleProfile {
    /// Asks the worker for the pages the model wants.
    fn ask(&mut self, ctx: &Context<Self>) {
        for asked in self.model.take_asks() {
            let link = ctx.link().clone();
            let EpAsk {
                sort,
                descending,
                offset,
            } = asked;
            ctx.props().client.ask(
                EpByPc {
                    sort,
                    descending,
                    offset,
                    limit: MAX_PAGE as u32,
                },
                move |reply| link.send_message(ProfileMsg::Table(EpMsg::Page(asked, reply))),
            );
        }
    }

    fn view_summary(s: &EpSummary) -> Html {
        let span = s
            .first_cycle
            .zip(s.last_cycle)
            .map_or(0, |(a, b)| b.saturating_sub(a));
        let sploop = s.sploop_memory_cycles + s.sploop_buffer_cycles;
        let buffer_share = if sploop == 0 {
            0.0
        } else {
            s.sploop_buffer_cycles as f64 * 100.0 / sploop as f64
        };
        let records = s
            .records
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        html! {
            <div data-testid="ep-summary" style="display:grid;grid-template-columns:max-content 1fr;gap:0.1rem 0.8rem;margin-bottom:0.5rem;">
                <span>{ t("Cycles") }</span>
                <span data-testid="ep-cycles" data-first={s.first_cycle.unwrap_or(0).to_string()} data-last={s.last_cycle.unwrap_or(0).to_string()}>
                    { tn(span, "{}..{} ({} cycle)", "{}..{} ({} cycles)", &[&s.first_cycle.unwrap_or(0), &s.last_cycle.unwrap_or(0), &number(span)]) }
                </span>
                <span>{ t("Packet cycles") }</span>
                <span data-testid="ep-packet-cycles" data-value={s.packet_cycles.to_string()}>{ s.packet_cycles }</span>
                <span>{ t("Stall cycles") }</span>
                <span data-testid="ep-stall-cycles" data-value={s.stall_cycles.to_string()}>
                    { format!("{} ({})", s.stall_cycles, share(s.stall_cycles, s.packet_cycles)) }
                </span>
                <span>{ t("Records") }</span>
                <span data-testid="ep-records">{ records }</span>
                <span>{ t("SPLOOP") }</span>
                <div>
                    <div data-testid="ep-sploop"
                        data-memory-packets={s.sploop_memory_packets.to_string()}
                        data-memory-cycles={s.sploop_memory_cycles.to_string()}
                        data-buffer-cycles={s.sploop_buffer_cycles.to_string()}
                        data-buffer-records={s.sploop_buffer_records.to_string()}
                        data-epilogue={s.sploop_discontinuities.to_string()}>
                        { tf(
                            "{} cycles from the loop buffer ({} records) · {} packets from memory in {} cycles · {} epilogue discontinuities",
                            &[&s.sploop_buffer_cycles, &s.sploop_buffer_records, &s.sploop_memory_packets, &s.sploop_memory_cycles, &s.sploop_discontinuities],
                        ) }
                    </div>
                    if sploop > 0 {
                        <div data-testid="ep-sploop-bar" role="img"
                            aria-label={tf("Loop buffer {}% of the SPLOOP cycles", &[&format!("{buffer_share:.1}")])}
                            style="display:flex;width:24rem;max-width:100%;height:0.8rem;border:1px solid var(--border, #8884);margin-top:0.2rem;">
                            <div data-testid="ep-sploop-buffer" title={t("loop buffer")} style={format!("width:{buffer_share:.3}%;background:#3a8f5c;")}></div>
                            <div data-testid="ep-sploop-memory" title={t("memory")} style="flex:1 1 auto;background:#c98a2b;"></div>
                        </div>
                        <div style="font-size:0.8rem;opacity:0.8;">
                            <span style="color:#3a8f5c;">{ "■ " }</span>{ t("loop buffer") }
                            { "  " }<span style="color:#c98a2b;">{ "■ " }</span>{ t("memory") }
                        </div>
                    }
                </div>
                if s.unparsed > 0 {
                    <span>{ t("Unparsed lines") }</span>
                    <span data-testid="ep-unparsed">{ s.unparsed }</span>
                }
            </div>
        }
    }
}

impl Component for EpCycleProfile {
    type Message = ProfileMsg;
    type Properties = EpProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut view = EpCycleProfile {
            model: EpProfileState::default(),
            _lang: LangWatch::new(ctx, || ProfileMsg::Lang),
        };
        view.ask(ctx);
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: ProfileMsg) -> bool {
        let changed = match msg {
            ProfileMsg::Lang => true,
            ProfileMsg::Table(msg) => self.model.update(msg),
            ProfileMsg::Jump { pc, line } => {
                ctx.props().on_jump.emit(line);
                self.model.update(EpMsg::Jump(pc))
            }
        };
        self.ask(ctx);
        changed
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let s = &ctx.props().summary;
        let numeric = "text-align:right;padding:0 0.6rem;";
        html! {
            <div data-testid="ep-profile">
                { Self::view_summary(s) }
                if let Some(e) = &self.model.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                if s.addresses == 0 {
                    <p data-testid="ep-empty">{ t("The trace has no execute packets.") }</p>
                } else {
                    <p style="margin:0 0 0.3rem 0;">{ t("Click an address to go to its first execute packet.") }</p>
                    <table data-testid="ep-table" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                        <thead>
                            <tr>
                                { for COLUMNS.iter().map(|&(sort, label, id)| {
                                    let sorted = sort == Some(self.model.at.sort);
                                    let aria = if !sorted { "none" } else if self.model.at.descending { "descending" } else { "ascending" };
                                    html! {
                                        <th aria-sort={aria} style="padding:0 0.6rem;text-align:right;">
                                            if let Some(sort) = sort {
                                                <button data-testid={format!("ep-sort-{id}")} onclick={link.callback(move |_| ProfileMsg::Table(EpMsg::Sort(sort)))}>
                                                    { t(label) }
                                                    { if !sorted { "" } else if self.model.at.descending { " ▼" } else { " ▲" } }
                                                </button>
                                            } else {
                                                { t(label) }
                                            }
                                        </th>
                                    }
                                }) }
                            </tr>
                        </thead>
                        <tbody>
                            if let Some(p) = &self.model.page {
                                { for p.rows.iter().map(|r| {
                                    let (pc, line) = (r.pc, r.first_line);
                                    let selected = self.model.selected == Some(pc);
                                    let size = if r.min_size == r.max_size {
                                        r.min_size.to_string()
                                    } else {
                                        format!("{}-{}", r.min_size, r.max_size)
                                    };
                                    html! {
                                        <tr data-testid="ep-row" data-pc={format!("0x{:08x}", r.pc)}
                                            data-first-line={r.first_line.to_string()}
                                            data-selected={selected.then_some("true")}
                                            aria-selected={selected.to_string()}
                                            style={selected_style(selected)}
                                            onclick={link.callback(move |_: MouseEvent| ProfileMsg::Jump { pc, line })}>
                                            <td style={numeric}>{ format!("0x{:08x}", r.pc) }</td>
                                            <td style={numeric} data-col="packets">{ r.packets }</td>
                                            <td style={numeric} data-col="cycles">{ r.cycles }</td>
                                            <td style={numeric} data-col="share">{ share(r.cycles, s.packet_cycles) }</td>
                                            <td style={numeric} data-col="stalls">{ r.stall_cycles }</td>
                                            <td style={numeric} data-col="size">{ size }</td>
                                        </tr>
                                    }
                                }) }
                            }
                        </tbody>
                    </table>
                    if let Some(p) = &self.model.page {
                        { pager("ep-table", (p.offset, p.rows.len() as u64, p.total), MAX_PAGE as u64, link.callback(|o| ProfileMsg::Table(EpMsg::Offset(o)))) }
                    }
                }
            </div>
        }
    }
}
