//! Text search in a browsing session: the page starts a search and asks
//! for more until it is done, each question running one budgeted step of
//! [`crate::search::Search`], so the worker keeps answering other queries
//! (and indexing) between steps and results stream in as they are found.
//! Only the latest search runs: starting one drops the previous.

use crate::search::{Search, SearchSpec};
use crate::source::TraceSource;

use super::question::{Answerable, Example};
use super::Session;

pub use super::protocol::{
    SearchHitView, SearchQuery, SearchReply, SearchRequest, MAX_HITS_PER_REPLY, MAX_LISTED,
};

/// Bytes the first step searches: a reply comes back within milliseconds
/// even for a rare pattern.
const FIRST_STEP_BYTES: u64 = 256 << 10;
/// Bytes each later step searches: a few milliseconds of the worker's
/// time, so queries are not kept waiting.
pub(crate) const STEP_BYTES: u64 = 4 << 20;
/// Bytes searched between checks of the hit cap within a step.
const SLICE_BYTES: u64 = 256 << 10;
/// Characters of a hit's line shown before its match.
const CONTEXT_BEFORE: usize = 40;
/// Most characters of a hit's line handed out.
const SNIPPET_CHARS: usize = 240;

/// The session's current search.
pub(super) struct Running {
    id: u32,
    search: Search,
    matches: u64,
    listed: u64,
    /// Hits found and not handed out yet (a slice can hold more than a
    /// reply), with their lines' byte offsets.
    pending: std::collections::VecDeque<(u64, SearchHitView)>,
    /// Bytes searched so far.
    position: u64,
    done: bool,
}

/// The session's search state.
#[derive(Default)]
pub(super) struct Searches {
    running: Option<Running>,
    next_id: u32,
}

/// The snippet of a hit: the line's display text from a little before the
/// match, and the match's columns in the full display text.
fn hit_view(line: u64, bytes: &[u8], start: u32, end: u32) -> SearchHitView {
    let text = super::display_text(bytes);
    let spans = super::remap_spans(
        bytes,
        vec![super::protocol::Span {
            start,
            end,
            hl: super::protocol::Hl::Text,
        }],
    );
    let (start, end) = (spans[0].start, spans[0].end);
    // Columns are byte offsets into the display text. The snippet is the
    // line from its start when the match is near it, else from a little
    // before the match (on a character boundary).
    let mut from = if start as usize + CONTEXT_BEFORE <= SNIPPET_CHARS {
        0
    } else {
        (start as usize - CONTEXT_BEFORE).min(text.len())
    };
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let snippet: String = text[from..].chars().take(SNIPPET_CHARS).collect();
    SearchHitView {
        line,
        start,
        end,
        text: snippet,
        text_from: from as u32,
    }
}

impl Answerable for SearchQuery {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> crate::Result<SearchReply> {
        session.try_search(self).map_err(crate::Error::Search)
    }

    /// Text search reads the trace itself.
    const NEEDS_INDEX: bool = false;

    /// Plain and regex (the regex crate's compiler is a lot of code); the
    /// regex one last, which the page's warm-up continues.
    fn examples(_: &Example) -> Vec<SearchQuery> {
        [("BL ", false), (r"\bBL\b", true)]
            .map(|(pattern, regex)| {
                SearchQuery::Start(SearchRequest {
                    pattern: pattern.into(),
                    regex,
                    ignore_case: false,
                    kinds: vec![],
                    lines: None,
                })
            })
            .into()
    }
}

impl<S: TraceSource> Session<S> {
    fn try_search(&mut self, q: SearchQuery) -> Result<SearchReply, String> {
        match q {
            SearchQuery::Start(req) => {
                self.searches.running = None;
                let spec = SearchSpec {
                    pattern: req.pattern,
                    regex: req.regex,
                    ignore_case: req.ignore_case,
                    kinds: req.kinds,
                    lines: req.lines,
                };
                let sample =
                    crate::source::read_sample(&mut self.source).map_err(|e| e.to_string())?;
                let parse = self.index().map(|i| i.options().parse).unwrap_or_default();
                let search =
                    Search::new(&spec, self.total, &sample, parse).map_err(|e| e.to_string())?;
                let id = self.searches.next_id;
                self.searches.next_id = id.wrapping_add(1);
                self.searches.running = Some(Running {
                    id,
                    search,
                    matches: 0,
                    listed: 0,
                    pending: Default::default(),
                    position: 0,
                    done: false,
                });
                self.search_step(FIRST_STEP_BYTES)
            }
            SearchQuery::More { id } => {
                self.current_search(id)?;
                self.search_step(STEP_BYTES)
            }
            SearchQuery::Cancel { id } => {
                let r = self.current_search(id)?;
                let reply = SearchReply {
                    id,
                    hits: Vec::new(),
                    matches: r.matches,
                    done_bytes: 0,
                    total_bytes: self.total,
                    done: true,
                };
                self.searches.running = None;
                Ok(reply)
            }
        }
    }

    fn current_search(&self, id: u32) -> Result<&Running, String> {
        self.searches
            .running
            .as_ref()
            .filter(|r| r.id == id)
            .ok_or_else(|| format!("search {id} is over (a newer search replaced it)"))
    }

    /// Searches up to `budget` more bytes, stopping early once a reply's
    /// worth of hits is found.
    fn search_step(&mut self, budget: u64) -> Result<SearchReply, String> {
        let r = self
            .searches
            .running
            .as_mut()
            .ok_or("no search is running")?;
        let stop_at = r.position.saturating_add(budget);
        while !r.done && r.position < stop_at && r.pending.len() < MAX_HITS_PER_REPLY {
            let slice = SLICE_BYTES.min(stop_at - r.position);
            let (matches, listed, pending) = (&mut r.matches, &mut r.listed, &mut r.pending);
            let p = r
                .search
                .step(&mut self.source, slice, |hit, text| {
                    *matches += 1;
                    if *listed < MAX_LISTED {
                        *listed += 1;
                        pending
                            .push_back((hit.offset, hit_view(hit.line, text, hit.start, hit.end)));
                    }
                })
                .map_err(|e| e.to_string())?;
            r.position = p.done_bytes;
            r.done = p.complete;
        }
        let n = r.pending.len().min(MAX_HITS_PER_REPLY);
        let hits: Vec<SearchHitView> = r.pending.drain(..n).map(|(_, h)| h).collect();
        // Searched means handed out: every hit before `done_bytes` is in
        // this reply or an earlier one (the page decides on that).
        let done_bytes = r.pending.front().map_or(r.position, |(offset, _)| *offset);
        Ok(SearchReply {
            id: r.id,
            hits,
            matches: r.matches,
            done_bytes,
            total_bytes: self.total,
            done: r.done && r.pending.is_empty(),
        })
    }
}
