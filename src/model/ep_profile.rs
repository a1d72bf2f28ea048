//! The Reports panel's cycle profile of a TI C64x+ EP trace: its
//! by-address table sorted by any numeric column (a header's click sorts
//! by it, a second click reverses), sorted by the report worker and sent a
//! page at a time, and the address clicked last. A page that comes for a
//! sort or an offset no longer shown is dropped. The Yew view
//! (`web::components::reports::ep_profile_view`) carries
//! [`EpProfileState::take_asks`] and draws the state;
//! `tests/browser_model/ep_profile.rs` answers from the reports computed
//! natively.

use tarmac_lens_core::report::{EpPcPage, EpSort};

/// A page of the table sorted so, from row `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpAsk {
    /// By this column.
    pub sort: EpSort,
    /// Biggest (or last) first.
    pub descending: bool,
    /// From this row.
    pub offset: u64,
}

/// What changes the table.
#[derive(Clone, Debug, PartialEq)]
pub enum EpMsg {
    /// A column's header clicked: its first page.
    Sort(EpSort),
    /// The page from this row ("earlier", "later").
    Offset(u64),
    /// The page asked for so, or why not.
    Page(EpAsk, Result<EpPcPage, String>),
    /// A row clicked: the address marked (the view goes to its line).
    Jump(u64),
}

/// The table's state (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct EpProfileState {
    /// The address of the row last clicked.
    pub selected: Option<u64>,
    /// The page shown (or asked for).
    pub at: EpAsk,
    /// The page, once answered.
    pub page: Option<EpPcPage>,
    /// The last question that failed: why.
    pub error: Option<String>,
    asks: Vec<EpAsk>,
}

impl Default for EpProfileState {
    /// The CLI's order, most cycles first, asked for.
    fn default() -> Self {
        let at = EpAsk {
            sort: EpSort::Cycles,
            descending: true,
            offset: 0,
        };
        EpProfileState {
            selected: None,
            at,
            page: None,
            error: None,
            asks: vec![at],
        }
    }
}

impl EpProfileState {
    /// The pages to ask for now.
    pub fn take_asks(&mut self) -> Vec<EpAsk> {
        std::mem::take(&mut self.asks)
    }

    /// Applies `msg`; `false` when it changed nothing (a late page).
    pub fn update(&mut self, msg: EpMsg) -> bool {
        match msg {
            EpMsg::Sort(sort) => {
                let at = &mut self.at;
                if sort == at.sort {
                    at.descending = !at.descending;
                } else {
                    at.sort = sort;
                    // Numbers biggest first, addresses in order.
                    at.descending = sort != EpSort::Pc;
                }
                at.offset = 0;
                self.asks.push(*at);
            }
            EpMsg::Offset(offset) => {
                self.at.offset = offset;
                self.asks.push(self.at);
            }
            EpMsg::Jump(pc) => self.selected = Some(pc),
            EpMsg::Page(asked, reply) => {
                if asked != self.at {
                    return false;
                }
                match reply {
                    Ok(p) => self.page = Some(p),
                    Err(e) => self.error = Some(e),
                }
            }
        }
        true
    }
}
