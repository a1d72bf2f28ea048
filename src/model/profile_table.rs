//! The Reports panel's profile: the functions sorted by any column (a
//! header's click sorts by it, a second click reverses), sorted by the
//! report worker and sent a page at a time; a row's click lists that
//! function's calls, a page at a time. A page that comes for a sort or a
//! function no longer shown is dropped. The questions go out through
//! [`ProfileTableState::take_asks`]; the Yew view
//! (`web::components::reports::profile_table`) carries them and draws
//! the state. `tests/browser_model/profile_table.rs` answers them from
//! the reports computed natively.

use tarmac_lens_core::report::{CallsPage, ProfilePage, ProfileSort, MAX_PAGE};

/// A question for the report worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileAsk {
    /// The first page of the functions sorted so.
    Page {
        /// By this column.
        sort: ProfileSort,
        /// Biggest (or last) first.
        descending: bool,
    },
    /// A page of the calls of the function entered at `addr`.
    Calls {
        /// The function.
        addr: u64,
        /// The first call wanted.
        offset: u64,
    },
}

/// What changes the table.
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileMsg {
    /// A column's header clicked.
    Sort(ProfileSort),
    /// The page sorted so, or why not.
    Page(ProfileSort, bool, Result<ProfilePage, String>),
    /// List this function's calls from this one on (a row's click, the
    /// palette, "earlier" and "later").
    Calls(u64, u64),
    /// A page of this function's calls, or why not.
    CallsPage(u64, Result<CallsPage, String>),
    /// The calls' list closed.
    CloseCalls,
}

/// The table's state (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileTableState {
    /// The column sorted by.
    pub sort: ProfileSort,
    /// Biggest (or last) first.
    pub descending: bool,
    /// The page shown, once answered.
    pub page: Option<ProfilePage>,
    /// The last question that failed: why.
    pub error: Option<String>,
    /// The function whose calls are listed, and the page of them once
    /// answered.
    pub calls: Option<(u64, Option<CallsPage>)>,
    asks: Vec<ProfileAsk>,
}

impl ProfileTableState {
    /// The table by inclusive time, biggest first, asking for it; and
    /// listing `calls_of`'s calls if given.
    pub fn new(calls_of: Option<u64>) -> ProfileTableState {
        let mut table = ProfileTableState {
            sort: ProfileSort::Inclusive,
            descending: true,
            page: None,
            error: None,
            calls: None,
            asks: vec![ProfileAsk::Page {
                sort: ProfileSort::Inclusive,
                descending: true,
            }],
        };
        if let Some(addr) = calls_of {
            table.update(ProfileMsg::Calls(addr, 0));
        }
        table
    }

    /// The questions to ask now, in order.
    pub fn take_asks(&mut self) -> Vec<ProfileAsk> {
        std::mem::take(&mut self.asks)
    }

    /// Applies `msg`; `false` when it changed nothing (a late page).
    pub fn update(&mut self, msg: ProfileMsg) -> bool {
        match msg {
            ProfileMsg::Sort(sort) => {
                if sort == self.sort {
                    self.descending = !self.descending;
                } else {
                    self.sort = sort;
                    // Numbers biggest first; names and addresses in order.
                    self.descending = !matches!(sort, ProfileSort::Name | ProfileSort::Address);
                }
                self.asks.push(ProfileAsk::Page {
                    sort: self.sort,
                    descending: self.descending,
                });
            }
            ProfileMsg::Page(sort, descending, reply) => {
                if (sort, descending) != (self.sort, self.descending) {
                    return false;
                }
                match reply {
                    Ok(p) => self.page = Some(p),
                    Err(e) => self.error = Some(e),
                }
            }
            ProfileMsg::Calls(addr, offset) => {
                // The page shown stays until the next comes.
                let kept = self
                    .calls
                    .take()
                    .filter(|(a, _)| *a == addr)
                    .and_then(|(_, p)| p);
                self.calls = Some((addr, kept));
                self.asks.push(ProfileAsk::Calls { addr, offset });
            }
            ProfileMsg::CallsPage(addr, reply) => {
                if self.calls.as_ref().map(|(a, _)| *a) != Some(addr) {
                    return false;
                }
                match reply {
                    Ok(p) => self.calls = Some((addr, Some(p))),
                    Err(e) => self.error = Some(e),
                }
            }
            ProfileMsg::CloseCalls => self.calls = None,
        }
        true
    }

    /// Whether the calls of the function at `addr` are listed.
    pub fn listed(&self, addr: u64) -> bool {
        self.calls.as_ref().is_some_and(|(a, _)| *a == addr)
    }

    /// The name of the function whose calls are listed: its profile row's,
    /// else its address.
    pub fn calls_name(&self) -> Option<String> {
        let (addr, _) = self.calls.as_ref()?;
        Some(
            self.page
                .as_ref()
                .and_then(|p| p.rows.iter().find(|r| r.addr == *addr))
                .map_or_else(|| format!("0x{addr:x}"), |r| r.name.clone()),
        )
    }

    /// Where "earlier" and "later" go in the calls listed: their first
    /// call's offset, when there are such calls.
    pub fn calls_around(&self) -> (Option<u64>, Option<u64>) {
        let Some((_, Some(p))) = &self.calls else {
            return (None, None);
        };
        let end = p.offset + p.calls.len() as u64;
        (
            (p.offset > 0).then(|| p.offset.saturating_sub(MAX_PAGE as u64)),
            (end < p.total).then_some(end),
        )
    }
}
