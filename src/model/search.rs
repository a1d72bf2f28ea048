//! Text search in the browser: the search bar's state, polling the worker
//! for results until the search is done, the first jump and `n`/`N`.

use std::rc::Rc;

use super::{Answer, Model, Moved, Msg};
use crate::i18n::{t, tf};
use tarmac_lens_core::{
    protocol::{Locate, NodeView},
    KindFilter, SearchHitView, SearchQuery, SearchReply, SearchRequest,
};

/// What the bar's fields say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchForm {
    /// The text or regex to look for.
    pub pattern: String,
    /// The pattern is a regex.
    pub regex: bool,
    /// Upper and lower case match each other.
    pub ignore_case: bool,
    /// Only lines of this kind; `None`: every line.
    pub kind: Option<KindFilter>,
    /// The line range fields, as typed (empty: open).
    pub from: String,
    /// The range's last line, as typed (empty: the end).
    pub to: String,
}

impl SearchForm {
    /// The line range, or why it is not one.
    pub fn lines(&self) -> Result<Option<(u64, u64)>, String> {
        let parse = |s: &str, open: u64| -> Result<u64, String> {
            let s = s.trim().replace([',', '_'], "");
            if s.is_empty() {
                return Ok(open);
            }
            s.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| tf("not a line number: {}", &[&s]))
        };
        let (from, to) = (parse(&self.from, 1)?, parse(&self.to, u64::MAX)?);
        if from == 1 && to == u64::MAX {
            return Ok(None);
        }
        if to < from {
            return Err(t("the line range ends before it starts").into());
        }
        Ok(Some((from, to)))
    }
}

/// Where a search has got to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStatus {
    /// Matches found so far, which may be more than are listed.
    pub matches: u64,
    /// Bytes of the trace searched so far.
    pub done_bytes: u64,
    /// Bytes of the trace to search.
    pub total_bytes: u64,
    /// The search reached the end.
    pub done: bool,
    /// The search is going on (not done, failed or cancelled).
    pub running: bool,
    /// Why the search could not run.
    pub error: Option<String>,
}

/// Search bar messages.
pub enum SearchMsg {
    /// Open the bar (`/`, `?`).
    Open {
        /// Forwards from the position (`/`), not backwards (`?`).
        forward: bool,
    },
    /// Start a search with the bar's fields.
    Submit(SearchForm),
    /// Close the bar, cancelling its search.
    Close,
    /// Go to the result at this index (a click in the list).
    Pick(usize),
    /// An answer for the search started as `generation`.
    Reply {
        /// The search it is for.
        generation: u32,
        /// New results and how far the search got.
        reply: Answer<SearchReply>,
    },
    /// The view reached (or failed to reach) a result it was sent to.
    Arrived {
        /// The view sent.
        view: u32,
        /// Where it is now.
        reply: Moved,
    },
    /// `n` (`same_way`) or `N`.
    Next {
        /// The search's own direction (`n`), not the other (`N`).
        same_way: bool,
    },
}

/// The search bar and its running search.
#[derive(Default)]
pub struct SearchState {
    /// The bar is shown.
    pub open: bool,
    /// Searching forwards from the position (`/`), not backwards (`?`).
    pub forward: bool,
    /// The fields of the search last started.
    pub form: SearchForm,
    /// Bumped per search started: answers to older ones are dropped.
    pub generation: u32,
    /// The worker's id of the running search.
    pub id: Option<u32>,
    /// How far the search has got.
    pub status: SearchStatus,
    /// The results listed so far, in trace order.
    pub hits: Rc<Vec<SearchHitView>>,
    /// The result last gone to, an index into `hits`.
    pub current: Option<usize>,
    /// Where the view was when the search started, and the view.
    pub from: Option<(u32, NodeView)>,
    /// The search has moved the view to its first result.
    pub jumped: bool,
    /// Moves to results not answered yet: while one is on its way, a
    /// quick `n` steps from the result it goes to, not from the cursor,
    /// wherever an earlier move has put it.
    pub moves_on_the_way: u32,
    /// Bumped when the bar opens: the page focuses its pattern field.
    pub focus_seq: u64,
}

impl SearchState {
    /// The current result's line and match columns, to highlight in its row.
    pub fn current_match(&self) -> Option<(u64, u32, u32)> {
        let h = self.hits.get(self.current?)?;
        Some((h.line, h.start, h.end))
    }
}

/// Whether `line` is one of the lines of `node`.
fn within(node: &NodeView, line: u64) -> bool {
    line >= node.first_line && line < node.first_line + node.lines.max(1)
}

impl Model {
    pub(super) fn on_search(&mut self, msg: SearchMsg) -> bool {
        match msg {
            SearchMsg::Open { forward } => {
                let s = &mut self.search;
                s.open = true;
                s.forward = forward;
                s.focus_seq += 1;
            }
            SearchMsg::Close => {
                self.cancel_search();
                self.search.open = false;
                self.refocus = true;
            }
            SearchMsg::Submit(form) => self.start_search(form),
            SearchMsg::Pick(i) => {
                self.refocus = true;
                self.go_to_hit(i);
            }
            SearchMsg::Reply { generation, reply } => {
                if generation != self.search.generation {
                    return false;
                }
                self.on_search_reply(reply);
            }
            SearchMsg::Arrived { view, reply } => {
                let s = &mut self.search;
                s.moves_on_the_way = s.moves_on_the_way.saturating_sub(1);
                return self.on_moved(view, reply, true);
            }
            SearchMsg::Next { same_way } => self.next_hit(same_way),
        }
        true
    }

    fn cancel_search(&mut self) {
        let s = &mut self.search;
        s.generation = s.generation.wrapping_add(1);
        if let Some(id) = s.id.take() {
            if s.status.running {
                self.tell(SearchQuery::Cancel { id });
            }
        }
        let s = &mut self.search;
        s.status.running = false;
    }

    fn start_search(&mut self, form: SearchForm) {
        self.cancel_search();
        let view = self.active_view();
        let from = self
            .view_ref(view)
            .and_then(|v| v.cursor)
            .map(|c| (view, c));
        let s = &mut self.search;
        s.form = form.clone();
        s.hits = Rc::new(Vec::new());
        s.current = None;
        s.jumped = false;
        s.from = from;
        s.status = SearchStatus::default();
        let lines = match form.lines() {
            Ok(l) => l,
            Err(e) => {
                s.status.error = Some(e);
                return;
            }
        };
        if form.pattern.is_empty() {
            s.status.error = Some(t("type something to search for").into());
            return;
        }
        s.status.running = true;
        // Back to the trace, for n and N.
        self.refocus = true;
        let request = SearchRequest {
            pattern: form.pattern,
            regex: form.regex,
            ignore_case: form.ignore_case,
            kinds: form.kind.into_iter().collect(),
            lines,
        };
        let generation = s.generation;
        self.ask(SearchQuery::Start(request), move |reply| {
            Msg::Search(SearchMsg::Reply { generation, reply })
        });
    }

    fn on_search_reply(&mut self, reply: Answer<SearchReply>) {
        let s = &mut self.search;
        if s.status.done {
            // An answer to a question asked before the search ended.
            return;
        }
        let r = match reply {
            Ok(r) => r,
            Err(e) => {
                s.status.running = false;
                s.status.error = Some(e);
                return;
            }
        };
        if !r.hits.is_empty() {
            Rc::make_mut(&mut s.hits).extend(r.hits);
        }
        s.status.matches = r.matches;
        s.status.done_bytes = r.done_bytes;
        s.status.total_bytes = r.total_bytes;
        s.status.done = r.done;
        s.status.running = !r.done;
        let first = s.id.is_none();
        s.id = Some(r.id);
        if !r.done {
            // Two questions in flight after the first answer, then one per
            // answer: the worker always has the next step queued, so the
            // trips to the page cost no search time.
            let (generation, id) = (s.generation, r.id);
            for _ in 0..if first { 2 } else { 1 } {
                self.ask(SearchQuery::More { id }, move |reply| {
                    Msg::Search(SearchMsg::Reply { generation, reply })
                });
            }
        }
        if !self.search.jumped {
            self.first_jump();
        }
    }

    /// Moves the view to the first result after (`/`) or before (`?`) where
    /// it was, once that result is known.
    fn first_jump(&mut self) {
        let s = &self.search;
        let hits = &s.hits;
        let target = match s.from {
            None => (!hits.is_empty()).then_some(0),
            Some((_, at)) if s.forward => {
                let i = hits.partition_point(|h| h.line < at.first_line);
                if i < hits.len() {
                    Some(i)
                } else if s.status.done && !hits.is_empty() {
                    self.status = Some(t("Search wrapped to the start.").into());
                    Some(0)
                } else {
                    None
                }
            }
            Some((_, at)) => {
                let i = hits.partition_point(|h| h.line < at.first_line);
                let passed = s.status.done || s.status.done_bytes > at.offset;
                if !passed {
                    None
                } else if i > 0 {
                    Some(i - 1)
                } else if s.status.done && !hits.is_empty() {
                    self.status = Some(t("Search wrapped to the end.").into());
                    Some(hits.len() - 1)
                } else {
                    None
                }
            }
        };
        if let Some(i) = target {
            self.search.jumped = true;
            self.go_to_hit(i);
        } else if self.search.status.done {
            self.search.jumped = true;
        }
    }

    fn go_to_hit(&mut self, i: usize) {
        let Some(line) = self.search.hits.get(i).map(|h| h.line) else {
            return;
        };
        self.search.current = Some(i);
        let view = match self.search.from {
            Some((v, _)) if self.view_ref(v).is_some() => v,
            _ => self.active_view(),
        };
        self.search.moves_on_the_way += 1;
        self.ask(Locate::Line(line), move |reply| {
            Msg::Search(SearchMsg::Arrived { view, reply })
        });
    }

    fn next_hit(&mut self, same_way: bool) {
        let s = &self.search;
        if s.hits.is_empty() {
            self.status = Some(t("No search results (/ or ? searches).").into());
            return;
        }
        let forward = s.forward == same_way;
        let n = s.hits.len();
        let view = self.active_view();
        let cursor = self.view_ref(view).and_then(|v| v.cursor);
        // From the current result while the view is at it or on its way
        // there; otherwise from where the view is.
        let at_current = match (s.current, cursor) {
            (Some(i), Some(c)) => {
                (within(&c, s.hits[i].line) || s.moves_on_the_way > 0).then_some(i)
            }
            (Some(i), None) => Some(i),
            _ => None,
        };
        let next = match (at_current, cursor) {
            (Some(i), _) => {
                if forward {
                    (i + 1 < n).then_some(i + 1)
                } else {
                    i.checked_sub(1)
                }
            }
            (None, Some(c)) => {
                let i = s.hits.partition_point(|h| h.line < c.first_line);
                if forward {
                    (i < n).then_some(i)
                } else {
                    i.checked_sub(1)
                }
            }
            (None, None) => Some(0),
        };
        let next = match next {
            Some(i) => i,
            None if forward && s.status.running && (n as u64) < tarmac_lens_core::MAX_LISTED => {
                self.status = Some(t("No further result yet: the search is still running.").into());
                return;
            }
            None if forward && (n as u64) < s.status.matches => {
                self.status = Some(tf(
                    "Only the first {} results are listed; back to the first.",
                    &[&crate::i18n::number(tarmac_lens_core::MAX_LISTED)],
                ));
                0
            }
            None if forward => {
                self.status = Some(t("Search wrapped to the start.").into());
                0
            }
            None => {
                self.status = Some(t("Search wrapped to the end.").into());
                n - 1
            }
        };
        self.go_to_hit(next);
    }
}
