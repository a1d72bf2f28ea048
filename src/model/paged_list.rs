//! What the Reports panel's long lists share (an EP trace's
//! discontinuities, a branch-only trace's blocks): the page shown, asked of
//! the report worker [`LIST_PAGE`] rows at a time, where "earlier" and
//! "later" go, and the row clicked last. A page that comes for another
//! offset than the one shown is dropped. The Yew views
//! (`web::components::reports::{ep_flow_view, flow_view}`) carry
//! [`PagedList::take_asks`] and draw the state;
//! `tests/browser_model/paged_list.rs` answers from reports computed
//! natively.

/// Rows per page.
pub const LIST_PAGE: u64 = 200;

/// What changes a list; `P` is its page.
#[derive(Clone, Debug, PartialEq)]
pub enum ListMsg<P> {
    /// Show the page from this row ("earlier", "later").
    Offset(u64),
    /// The page from this row, or why not.
    Page(u64, Result<P, String>),
    /// A row was clicked: it goes to its line, marked.
    Jump(u64),
}

/// A list shown a page at a time (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct PagedList<P> {
    /// The line of the row last clicked.
    pub selected: Option<u64>,
    /// The first row of the page shown (or asked for).
    pub offset: u64,
    /// The page, once answered.
    pub page: Option<P>,
    /// The last question that failed: why.
    pub error: Option<String>,
    asks: Vec<u64>,
}

impl<P> Default for PagedList<P> {
    fn default() -> Self {
        PagedList {
            selected: None,
            offset: 0,
            page: None,
            error: None,
            asks: vec![0],
        }
    }
}

impl<P> PagedList<P> {
    /// The offsets of the pages to ask for now ([`LIST_PAGE`] rows each).
    pub fn take_asks(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.asks)
    }

    /// Applies `msg`; `false` when it changed nothing (a late page).
    pub fn update(&mut self, msg: ListMsg<P>) -> bool {
        match msg {
            ListMsg::Offset(offset) => {
                self.offset = offset;
                self.asks.push(offset);
            }
            ListMsg::Jump(line) => self.selected = Some(line),
            ListMsg::Page(offset, reply) => {
                if offset != self.offset {
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

/// Where a list's pager goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pager {
    /// "Earlier"'s offset, if there are rows before.
    pub earlier: Option<u64>,
    /// "Later"'s offset, if there are rows after.
    pub later: Option<u64>,
    /// The rows shown, from 1.
    pub first: u64,
    /// The last row shown.
    pub last: u64,
    /// Of this many.
    pub total: u64,
}

impl Pager {
    /// The pager of a list paged by `page` rows, showing `shown` from
    /// `offset` of `total`: `None` when one page holds them all.
    pub fn of(offset: u64, shown: u64, total: u64, page: u64) -> Option<Pager> {
        if total <= shown {
            return None;
        }
        let next = offset + shown;
        Some(Pager {
            earlier: (offset > 0).then(|| offset.saturating_sub(page)),
            later: (next < total).then_some(next),
            first: offset + 1,
            last: next,
            total,
        })
    }
}
