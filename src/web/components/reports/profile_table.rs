//! The profile as a table sorted by any column (a header click sorts by it,
//! a second click reverses), sorted in the report worker and sent a page at
//! a time. The percentage columns are shares of the trace's instructions;
//! a click on a row lists that function's calls, each with a jump to its
//! call and its return (as Perfetto and TRACE32 list a function's slices).

use yew::prelude::*;

use crate::model::profile_table::{ProfileAsk, ProfileMsg, ProfileTableState};
use crate::web::page::i18n::{number, percent, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::{Calls, Profile};
use tarmac_lens_core::report::{ProfileRow, ProfileSort, MAX_PAGE};

#[derive(Properties, PartialEq)]
pub struct ProfileTableProps {
    pub client: ReportClient,
    /// The trace's instructions: what the percentages are of.
    pub instructions: u64,
    /// Go to this node in the trace view.
    pub on_jump: Callback<u64>,
    /// List this function's calls (chosen in the command palette),
    /// numbered so the same one can be asked for again.
    #[prop_or_default]
    pub show_calls: Option<(u32, u64)>,
}

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Table(ProfileMsg),
}

/// Draws `model::profile_table` and carries its questions to the worker.
pub struct ProfileTable {
    model: ProfileTableState,
    _lang: LangWatch,
}

/// Sort key, English label, test id, and whether it is a share.
const COLUMNS: [(ProfileSort, &str, &str); 7] = [
    (ProfileSort::Address, "Address", "address"),
    (ProfileSort::Count, "Count", "count"),
    (ProfileSort::Inclusive, "Time (inclusive)", "inclusive"),
    (ProfileSort::Exclusive, "Own time", "exclusive"),
    (ProfileSort::Instructions, "Instructions %", "instructions"),
    (ProfileSort::OwnInstructions, "Own %", "own-instructions"),
    (ProfileSort::Name, "Function", "name"),
];

/// `part` of `whole` in percent, one decimal.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "–".into();
    }
    percent(part as f64 * 100.0 / whole as f64, 1)
}

impl ProfileTable {
    /// Asks the worker what the model wants to know.
    fn ask(&mut self, ctx: &Context<Self>) {
        let client = &ctx.props().client;
        for ask in self.model.take_asks() {
            let link = ctx.link().clone();
            match ask {
                ProfileAsk::Page { sort, descending } => client.ask(
                    Profile {
                        sort,
                        descending,
                        offset: 0,
                        limit: MAX_PAGE as u32,
                    },
                    move |reply| {
                        link.send_message(Msg::Table(ProfileMsg::Page(sort, descending, reply)))
                    },
                ),
                ProfileAsk::Calls { addr, offset } => client.ask(
                    Calls {
                        addr,
                        offset,
                        limit: MAX_PAGE as u32,
                    },
                    move |reply| link.send_message(Msg::Table(ProfileMsg::CallsPage(addr, reply))),
                ),
            }
        }
    }

    fn row(&self, ctx: &Context<Self>, r: &ProfileRow) -> Html {
        let numeric = "text-align:right;padding:0 0.6rem;";
        let whole = ctx.props().instructions;
        let addr = r.addr;
        let selected = self.model.listed(addr);
        html! {
            <tr
                data-testid="profile-row"
                data-addr={format!("0x{:x}", r.addr)}
                class={classes!("clickable", selected.then_some("selected"))}
                style="cursor:pointer;"
                title={t("List this function's calls")}
                onclick={ctx.link().callback(move |_| Msg::Table(ProfileMsg::Calls(addr, 0)))}
            >
                <td style={numeric}>{ format!("0x{:x}", r.addr) }</td>
                <td style={numeric} data-col="count" data-value={r.count.to_string()}>{ number(r.count) }</td>
                <td style={numeric} data-col="inclusive" data-value={r.inclusive.to_string()}>{ number(r.inclusive) }</td>
                <td style={numeric} data-col="exclusive" data-value={r.exclusive.to_string()}>{ number(r.exclusive) }</td>
                <td style={numeric} data-col="instructions" data-value={r.instructions.to_string()}>{ share(r.instructions, whole) }</td>
                <td style={numeric} data-col="own-instructions" data-value={r.own_instructions.to_string()}>{ share(r.own_instructions, whole) }</td>
                <td style="padding:0 0.6rem;" data-col="name">{ r.name.clone() }</td>
            </tr>
        }
    }

    fn view_calls(&self, ctx: &Context<Self>) -> Html {
        let (Some((addr, page)), Some(name)) = (&self.model.calls, self.model.calls_name()) else {
            return html! {};
        };
        let (earlier, later) = self.model.calls_around();
        let link = ctx.link();
        let on_jump = ctx.props().on_jump.clone();
        let jump = |node: u64| {
            let on_jump = on_jump.clone();
            Callback::from(move |_: MouseEvent| on_jump.emit(node))
        };
        html! {
            <section data-testid="function-calls" data-addr={format!("0x{addr:x}")} style="margin-top:0.5rem;">
                <div style="display:flex;gap:0.5rem;align-items:baseline;">
                    <strong data-testid="function-calls-title">{ match page {
                        Some(p) => tn(p.total, "{}: {} call", "{}: {} calls", &[&name, &number(p.total)]),
                        None => tf("{}: reading its calls…", &[&name]),
                    } }</strong>
                    <button data-testid="function-calls-close" onclick={link.callback(|_| Msg::Table(ProfileMsg::CloseCalls))}>{ t("Close") }</button>
                </div>
                if let Some(p) = page {
                    <table style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                        <thead>
                            <tr>
                                <th style="padding:0 0.6rem;text-align:right;">{ "#" }</th>
                                <th style="padding:0 0.6rem;text-align:right;">{ t("Call line") }</th>
                                <th style="padding:0 0.6rem;text-align:right;">{ t("Time") }</th>
                                <th style="padding:0 0.6rem;text-align:right;">{ t("Instructions") }</th>
                                <th style="padding:0 0.6rem;text-align:left;">{ t("Go to") }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for p.calls.iter().enumerate().map(|(i, c)| {
                                let at = c.call.unwrap_or(c.entry);
                                html! {
                                    <tr data-testid="function-call" data-call-line={c.call.map(|p| p.line.to_string())} data-entry-line={c.entry.line.to_string()}>
                                        <td style="padding:0 0.6rem;text-align:right;">{ number(p.offset + i as u64 + 1) }</td>
                                        <td style="padding:0 0.6rem;text-align:right;">{ number(at.line) }</td>
                                        <td style="padding:0 0.6rem;text-align:right;">{ c.time.map_or_else(|| t("does not return").to_string(), number) }</td>
                                        <td style="padding:0 0.6rem;text-align:right;">{ c.instructions.map_or_else(String::new, number) }</td>
                                        <td style="padding:0 0.6rem;">
                                            <button data-testid="call-jump" title={t("go to the call in the trace view")} onclick={jump(at.node)}>{ t("call") }</button>
                                            if let Some(e) = c.exit {
                                                { " " }
                                                <button data-testid="return-jump" title={t("go to the return in the trace view")} onclick={jump(e.node)}>{ t("return") }</button>
                                            }
                                        </td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                    <div style="display:flex;gap:0.5rem;">
                        if let Some(offset) = earlier {
                            <button data-testid="function-calls-earlier" onclick={{
                                let addr = *addr;
                                link.callback(move |_| Msg::Table(ProfileMsg::Calls(addr, offset)))
                            }}>{ t("Earlier") }</button>
                        }
                        if let Some(offset) = later {
                            <button data-testid="function-calls-later" onclick={{
                                let addr = *addr;
                                link.callback(move |_| Msg::Table(ProfileMsg::Calls(addr, offset)))
                            }}>{ t("Later") }</button>
                        }
                    </div>
                }
            </section>
        }
    }
}

impl Component for ProfileTable {
    type Message = Msg;
    type Properties = ProfileTableProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut table = ProfileTable {
            model: ProfileTableState::new(ctx.props().show_calls.map(|(_, addr)| addr)),
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        table.ask(ctx);
        table
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &ProfileTableProps) -> bool {
        if let Some((seq, addr)) = ctx.props().show_calls {
            if old.show_calls.map(|(s, _)| s) != Some(seq) {
                self.model.update(ProfileMsg::Calls(addr, 0));
                self.ask(ctx);
            }
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let Msg::Table(msg) = msg else {
            return true;
        };
        let changed = self.model.update(msg);
        self.ask(ctx);
        changed
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        html! {
            <div data-testid="profile">
                if let Some(e) = &self.model.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                <table data-testid="profile-table" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                    <thead>
                        <tr>
                            { for COLUMNS.iter().map(|&(sort, label, id)| {
                                let sorted = sort == self.model.sort;
                                let aria = if !sorted { "none" } else if self.model.descending { "descending" } else { "ascending" };
                                html! {
                                    <th aria-sort={aria} style={if sort == ProfileSort::Name { "padding:0 0.6rem;text-align:left;" } else { "padding:0 0.6rem;text-align:right;" }}>
                                        <button data-testid={format!("sort-{id}")} onclick={link.callback(move |_| Msg::Table(ProfileMsg::Sort(sort)))}>
                                            { t(label) }
                                            { if !sorted { "" } else if self.model.descending { " ▼" } else { " ▲" } }
                                        </button>
                                    </th>
                                }
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        if let Some(p) = &self.model.page {
                            { for p.rows.iter().map(|r| self.row(ctx, r)) }
                        }
                    </tbody>
                </table>
                if let Some(p) = &self.model.page {
                    if (p.rows.len() as u64) < p.total {
                        <p data-testid="profile-more">{ tf("The first {} of {} functions are shown; the download has them all.", &[&number(p.rows.len() as u64), &number(p.total)]) }</p>
                    }
                }
                { self.view_calls(ctx) }
            </div>
        }
    }
}
