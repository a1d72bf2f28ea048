//! The profile as a table sorted by any column (a header click sorts by it,
//! a second click reverses), sorted in the report worker and sent a page at
//! a time.

use yew::prelude::*;

use crate::report::explore::{ProfilePage, ProfileSort, MAX_PAGE};
use crate::web::i18n::{t, tf};
use crate::web::report_client::ReportClient;
use crate::web::report_protocol::{ReportQuery, ReportReply};

#[derive(Properties, PartialEq)]
pub struct ProfileTableProps {
    pub client: ReportClient,
}

pub enum Msg {
    Sort(ProfileSort),
    Page(ProfileSort, bool, ReportReply),
}

pub struct ProfileTable {
    sort: ProfileSort,
    descending: bool,
    page: Option<ProfilePage>,
    error: Option<String>,
}

const COLUMNS: [(ProfileSort, &str, &str); 5] = [
    (ProfileSort::Address, "Address", "address"),
    (ProfileSort::Count, "Count", "count"),
    (ProfileSort::Inclusive, "Time (inclusive)", "inclusive"),
    (ProfileSort::Exclusive, "Own time", "exclusive"),
    (ProfileSort::Name, "Function", "name"),
];

impl ProfileTable {
    fn ask(&self, ctx: &Context<Self>) {
        let (sort, descending) = (self.sort, self.descending);
        let link = ctx.link().clone();
        ctx.props().client.ask(
            ReportQuery::Profile {
                sort,
                descending,
                offset: 0,
                limit: MAX_PAGE as u32,
            },
            move |reply| link.send_message(Msg::Page(sort, descending, reply)),
        );
    }
}

impl Component for ProfileTable {
    type Message = Msg;
    type Properties = ProfileTableProps;

    fn create(ctx: &Context<Self>) -> Self {
        let table = ProfileTable {
            sort: ProfileSort::Inclusive,
            descending: true,
            page: None,
            error: None,
        };
        table.ask(ctx);
        table
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Sort(sort) => {
                if sort == self.sort {
                    self.descending = !self.descending;
                } else {
                    self.sort = sort;
                    // Numbers biggest first; names and addresses in order.
                    self.descending = !matches!(sort, ProfileSort::Name | ProfileSort::Address);
                }
                self.ask(ctx);
            }
            Msg::Page(sort, descending, reply) => {
                if (sort, descending) != (self.sort, self.descending) {
                    return false;
                }
                match reply {
                    ReportReply::Profile(p) => self.page = Some(p),
                    ReportReply::Error(e) => self.error = Some(e),
                    _ => self.error = Some("unexpected answer from the report worker".into()),
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let numeric = "text-align:right;padding:0 0.6rem;";
        html! {
            <div data-testid="profile">
                if let Some(e) = &self.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                <table data-testid="profile-table" style="border-collapse:collapse;font-family:var(--mono, monospace);font-size:0.85rem;">
                    <thead>
                        <tr>
                            { for COLUMNS.iter().map(|&(sort, label, id)| {
                                let sorted = sort == self.sort;
                                let aria = if !sorted { "none" } else if self.descending { "descending" } else { "ascending" };
                                html! {
                                    <th aria-sort={aria} style={if sort == ProfileSort::Name { "padding:0 0.6rem;text-align:left;" } else { "padding:0 0.6rem;text-align:right;" }}>
                                        <button data-testid={format!("sort-{id}")} onclick={link.callback(move |_| Msg::Sort(sort))}>
                                            { t(label) }
                                            { if !sorted { "" } else if self.descending { " ▼" } else { " ▲" } }
                                        </button>
                                    </th>
                                }
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        if let Some(p) = &self.page {
                            { for p.rows.iter().map(|r| html! {
                                <tr data-testid="profile-row" data-addr={format!("0x{:x}", r.addr)}>
                                    <td style={numeric}>{ format!("0x{:x}", r.addr) }</td>
                                    <td style={numeric} data-col="count">{ r.count }</td>
                                    <td style={numeric} data-col="inclusive">{ r.inclusive }</td>
                                    <td style={numeric} data-col="exclusive">{ r.exclusive }</td>
                                    <td style="padding:0 0.6rem;" data-col="name">{ r.name.clone() }</td>
                                </tr>
                            }) }
                        }
                    </tbody>
                </table>
                if let Some(p) = &self.page {
                    if (p.rows.len() as u64) < p.total {
                        <p data-testid="profile-more">{ tf("The first {} of {} functions are shown; the download has them all.", &[&p.rows.len(), &p.total]) }</p>
                    }
                }
            </div>
        }
    }
}
