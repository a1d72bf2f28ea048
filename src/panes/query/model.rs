//! What the Query pane holds, UI-free: the query being written and the
//! history of those run, the run's state, its result's columns and the
//! pages of rows fetched so far (a result is shown through a window over
//! its rows, never all of them at once), which cells are links to a trace
//! position, and where in the query an error is.
//!
//! The engine (crates/sql, a worker of its own: `web::page::sql_client`)
//! is not the model's: the model only knows the pane is open (a
//! `pane_state::Shown`, asking nothing) and carries out its links
//! ([`PaneAction::GoToLine`]).

#![deny(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::model::pane_state::PaneAction;

/// Rows fetched from the engine at a time.
pub const PAGE_ROWS: u64 = 200;
/// Queries the history keeps.
const HISTORY: usize = 100;

/// The queries run, oldest first, and where Alt-Up/Alt-Down are in them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    entries: Vec<String>,
    /// The entry shown, while stepping through them.
    at: Option<usize>,
}

impl History {
    /// From its saved text (a JSON array of strings); anything else is an
    /// empty history.
    pub fn from_text(text: &str) -> History {
        History {
            entries: serde_json::from_str(text).unwrap_or_default(),
            at: None,
        }
    }

    /// Its text to save: a JSON array of the queries, oldest first.
    pub fn to_text(&self) -> String {
        serde_json::to_string(&self.entries).unwrap_or_default()
    }

    /// Oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// A query run: the newest entry (once, however often it ran).
    pub fn push(&mut self, sql: &str) {
        let sql = sql.trim();
        if sql.is_empty() {
            return;
        }
        self.entries.retain(|e| e != sql);
        self.entries.push(sql.to_string());
        if self.entries.len() > HISTORY {
            self.entries.remove(0);
        }
        self.at = None;
    }

    /// The entry before the one shown (the newest at first).
    pub fn older(&mut self) -> Option<&str> {
        let at = match self.at {
            None => self.entries.len().checked_sub(1)?,
            Some(i) => i.checked_sub(1)?,
        };
        self.at = Some(at);
        self.entries.get(at).map(String::as_str)
    }

    /// The entry after the one shown; `None` past the newest.
    pub fn newer(&mut self) -> Option<&str> {
        let at = self.at? + 1;
        if at >= self.entries.len() {
            self.at = None;
            return None;
        }
        self.at = Some(at);
        self.entries.get(at).map(String::as_str)
    }
}

/// A table the engine has, as its tables list shows it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct TableInfo {
    /// The table's SQL name.
    pub name: String,
    /// What one row of it is.
    pub about: String,
    /// Its columns, in order.
    pub columns: Vec<ColumnInfo>,
}

/// A column of a table, as the tables list shows it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct ColumnInfo {
    /// The column's SQL name.
    pub name: String,
    /// Its type, as the engine names it (`UInt64`, `Utf8`).
    #[serde(rename = "type")]
    pub ty: String,
    /// What it holds.
    pub doc: String,
}

/// The engine's tables list (`SqlEngine.tables()`'s JSON).
pub fn tables_of(json: &str) -> Result<Vec<TableInfo>, String> {
    serde_json::from_str(json).map_err(|e| format!("the engine's tables: {e}"))
}

/// What a cell of a column goes to when clicked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// A trace line: a click goes to it.
    Line,
    /// A trace time: a click goes to it.
    Time,
}

impl Link {
    /// A column of trace lines or times: named `line` or `time` (or
    /// `call_line`, `entry_time`, ...), of the tables' unsigned 64-bit
    /// type (a source file's `line` is 32-bit), and not a duration the
    /// tables mark as one (`calls.time`).
    pub fn of(name: &str, ty: &str, duration: bool) -> Option<Link> {
        if duration || ty != "UInt64" {
            return None;
        }
        let name = name.to_ascii_lowercase();
        if name == "line" || name.ends_with("_line") {
            Some(Link::Line)
        } else if name == "time" || name.ends_with("_time") {
            Some(Link::Time)
        } else {
            None
        }
    }

    /// What clicking a cell holding `text` does.
    pub fn action(self, text: &str) -> Option<PaneAction> {
        let n: u64 = text.trim().parse().ok()?;
        Some(match self {
            Link::Line => PaneAction::GoToLine(n),
            Link::Time => PaneAction::GoToTime(n),
        })
    }
}

/// A column of a result.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultColumn {
    /// The column's name in the result.
    pub name: String,
    /// Its type, as the engine names it.
    pub ty: String,
    /// What its cells go to when clicked, if anything.
    pub link: Option<Link>,
}

/// A result's columns from the engine's JSON (`[[name, type, duration]]`).
pub fn columns_of(json: &str) -> Result<Vec<ResultColumn>, String> {
    let raw: Vec<(String, String, bool)> =
        serde_json::from_str(json).map_err(|e| format!("the result's columns: {e}"))?;
    Ok(raw
        .into_iter()
        .map(|(name, ty, duration)| ResultColumn {
            link: Link::of(&name, &ty, duration),
            name,
            ty,
        })
        .collect())
}

/// A page of rows from the engine's JSON: each row its cells as text,
/// `None` for a null.
pub fn rows_of(json: &str) -> Result<Vec<Vec<Option<String>>>, String> {
    serde_json::from_str(json).map_err(|e| format!("the result's rows: {e}"))
}

/// A query that failed: the engine's message, and where in the query.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The engine's message, whole.
    pub message: String,
    /// Line and column (from 1), when the engine said.
    pub position: Option<(usize, usize)>,
    /// That position as a character offset into the query.
    pub offset: Option<usize>,
}

impl Failure {
    /// From the engine's error text for `sql` (`crates/sql`'s
    /// `QueryError`: "query error at line L, column C: ...").
    pub fn of(text: &str, sql: &str) -> Failure {
        let position = text
            .strip_prefix("query error at line ")
            .and_then(|rest| {
                let (line, rest) = rest.split_once(", column ")?;
                let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
                Some((line.parse().ok()?, column.parse().ok()?))
            })
            .filter(|&(l, c): &(usize, usize)| l > 0 && c > 0);
        let offset = position.and_then(|(line, column)| {
            let mut offset = 0;
            for (i, text) in sql.split('\n').enumerate() {
                if i + 1 == line {
                    return Some(offset + (column - 1).min(text.chars().count()));
                }
                offset += text.chars().count() + 1;
            }
            None
        });
        Failure {
            message: text.to_string(),
            position,
            offset,
        }
    }
}

/// A result: its size, its columns and the pages of rows fetched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultSet {
    /// The run it is of.
    pub id: u32,
    /// Its columns, in order.
    pub columns: Vec<ResultColumn>,
    /// All its rows.
    pub rows: u64,
    /// Those the engine kept (its first ones): what can be shown.
    pub kept: u64,
    /// Milliseconds the query took.
    pub ms: f64,
    pages: BTreeMap<u64, Vec<Vec<Option<String>>>>,
    asked: BTreeSet<u64>,
}

impl ResultSet {
    /// A result with no rows fetched yet; `kept` is capped at `rows`.
    pub fn new(columns: Vec<ResultColumn>, rows: u64, kept: u64, ms: f64) -> ResultSet {
        ResultSet {
            columns,
            rows,
            kept: kept.min(rows),
            ms,
            ..ResultSet::default()
        }
    }

    /// The pages holding rows `first..end` not fetched nor asked for yet,
    /// now marked asked: what to fetch.
    pub fn to_fetch(&mut self, first: u64, end: u64) -> Vec<u64> {
        let end = end.min(self.kept);
        if first >= end {
            return Vec::new();
        }
        let pages: Vec<u64> = (first / PAGE_ROWS..=(end - 1) / PAGE_ROWS)
            .filter(|p| !self.pages.contains_key(p) && !self.asked.contains(p))
            .collect();
        self.asked.extend(pages.iter().copied());
        pages
    }

    /// A page fetched (starting at row `offset`).
    pub fn fetched(&mut self, offset: u64, rows: Vec<Vec<Option<String>>>) {
        let page = offset / PAGE_ROWS;
        self.asked.remove(&page);
        self.pages.insert(page, rows);
    }

    /// Row `row`, if fetched.
    pub fn row(&self, row: u64) -> Option<&[Option<String>]> {
        let page = self.pages.get(&(row / PAGE_ROWS))?;
        page.get((row % PAGE_ROWS) as usize).map(Vec::as_slice)
    }
}

/// Where a query is.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Run {
    /// Nothing run yet.
    #[default]
    Idle,
    /// Running (`id` numbers the run: answers to older ones are dropped).
    Running {
        /// The run's number.
        id: u32,
    },
    /// Finished, with its result.
    Done(ResultSet),
    /// Failed: the engine's message and where in the query.
    Failed(Failure),
    /// Stopped by Escape.
    Stopped,
}

/// Everything the pane shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryState {
    /// The query in the editor.
    pub draft: String,
    /// The query last run (what an error's position is in).
    pub ran: String,
    /// The queries run before, for Alt-Up and Alt-Down.
    pub history: History,
    /// Where the last query run is.
    pub run: Run,
    /// The engine's tables, once it started.
    pub tables: Vec<TableInfo>,
    next_id: u32,
}

/// The query the pane offers at first.
pub const FIRST_QUERY: &str = "SELECT mnemonic, count(*) AS n\nFROM instructions\nGROUP BY mnemonic\nORDER BY n DESC\nLIMIT 20";

impl QueryState {
    /// A pane with `history`, its editor holding the newest query (or
    /// [`FIRST_QUERY`]).
    pub fn new(history: History) -> QueryState {
        QueryState {
            draft: history
                .entries()
                .last()
                .cloned()
                .unwrap_or_else(|| FIRST_QUERY.to_string()),
            history,
            ..QueryState::default()
        }
    }

    /// Starts running the draft: its run's id, or `None` with nothing to
    /// run (an empty editor, or a query still running).
    pub fn start(&mut self) -> Option<u32> {
        let sql = self.draft.trim();
        if sql.is_empty() || matches!(self.run, Run::Running { .. }) {
            return None;
        }
        self.ran = sql.to_string();
        self.history.push(sql);
        self.next_id += 1;
        self.run = Run::Running { id: self.next_id };
        Some(self.next_id)
    }

    /// Runs started so far (the last one's id).
    pub fn runs(&self) -> u32 {
        self.next_id
    }

    /// Whether run `id` is the one running.
    pub fn is_running(&self, id: u32) -> bool {
        self.run == Run::Running { id }
    }

    /// Run `id` finished with a result.
    pub fn done(&mut self, id: u32, result: ResultSet) {
        if self.is_running(id) {
            self.run = Run::Done(ResultSet { id, ..result });
        }
    }

    /// Run `id` failed with the engine's `message`.
    pub fn failed(&mut self, id: u32, message: &str) {
        if self.is_running(id) {
            self.run = Run::Failed(Failure::of(message, &self.ran));
        }
    }

    /// Escape: the running query stops; true if one was.
    pub fn stop(&mut self) -> bool {
        let running = matches!(self.run, Run::Running { .. });
        if running {
            self.run = Run::Stopped;
        }
        running
    }

    /// Alt-Up: the previous query of the history into the editor.
    pub fn older(&mut self) -> bool {
        match self.history.older() {
            Some(sql) => {
                self.draft = sql.to_string();
                true
            }
            None => false,
        }
    }

    /// Alt-Down: the next one.
    pub fn newer(&mut self) -> bool {
        match self.history.newer() {
            Some(sql) => {
                self.draft = sql.to_string();
                true
            }
            None => false,
        }
    }
}

/// The rows a scrolled result shows: its list is `rows` rows of `row_px`
/// pixels, drawn as one block no taller than [`MAX_PX`] (browsers cap an
/// element's height; a longer list maps its scroll position onto the
/// rows in proportion).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// The first row drawn, and one past the last.
    pub first: u64,
    /// One past the last row drawn.
    pub end: u64,
    /// The block's height.
    pub height_px: f64,
    /// Where the first row drawn is placed in it.
    pub top_px: f64,
}

/// The tallest block a result's list is drawn as.
pub const MAX_PX: f64 = 8_000_000.0;

impl Window {
    /// The rows to draw for a scroll position `scroll_top` in a view `view_px`
    /// tall, of `rows` rows `row_px` each.
    pub fn of(scroll_top: f64, view_px: f64, rows: u64, row_px: f64) -> Window {
        let full = rows as f64 * row_px;
        let height_px = full.min(MAX_PX);
        let room = (height_px - view_px).max(0.0);
        // Where the view is in the rows: as far in as it is in the block.
        let along = if room > 0.0 {
            (scroll_top.clamp(0.0, room) / room) * (full - view_px).max(0.0)
        } else {
            0.0
        };
        let first = ((along / row_px).floor() as u64).min(rows);
        let shown = (view_px / row_px).ceil() as u64 + 1;
        let end = (first + shown).min(rows);
        // The first row drawn sits where the view is.
        let top_px = scroll_top.clamp(0.0, room) - (along - first as f64 * row_px);
        Window {
            first,
            end,
            height_px,
            top_px: top_px.max(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_each_query_once_newest_last_and_steps_through_them() {
        let mut h = History::default();
        for q in ["a", "b", "a", "  ", "c"] {
            h.push(q);
        }
        assert_eq!(h.entries(), ["b", "a", "c"]);
        assert_eq!(h.older(), Some("c"));
        assert_eq!(h.older(), Some("a"));
        assert_eq!(h.older(), Some("b"));
        assert_eq!(h.older(), None);
        assert_eq!(h.newer(), Some("a"));
        assert_eq!(h.newer(), Some("c"));
        assert_eq!(h.newer(), None);
        let back = History::from_text(&h.to_text());
        assert_eq!(back.entries(), h.entries());
        assert_eq!(History::from_text("not json").entries().len(), 0);
    }

    #[test]
    fn line_and_time_columns_link_but_durations_and_source_lines_do_not() {
        assert_eq!(Link::of("line", "UInt64", false), Some(Link::Line));
        assert_eq!(Link::of("return_line", "UInt64", false), Some(Link::Line));
        assert_eq!(Link::of("time", "UInt64", false), Some(Link::Time));
        assert_eq!(Link::of("entry_time", "UInt64", false), Some(Link::Time));
        // `calls.time` is a duration; `source_lines.line` a source line.
        assert_eq!(Link::of("time", "UInt64", true), None);
        assert_eq!(Link::of("line", "UInt32", false), None);
        assert_eq!(Link::of("pc", "UInt64", false), None);
        assert_eq!(Link::Line.action(" 42"), Some(PaneAction::GoToLine(42)));
        assert_eq!(Link::Time.action("7"), Some(PaneAction::GoToTime(7)));
        assert_eq!(Link::Line.action("x"), None);
        let cols = columns_of(r#"[["line","UInt64",false],["time","UInt64",true]]"#).unwrap();
        assert_eq!(cols[0].link, Some(Link::Line));
        assert_eq!(cols[1].link, None);
    }

    #[test]
    fn an_error_is_placed_at_its_line_and_column_in_the_query() {
        let sql = "SELECT x\nFROM instructions\nWHERE nope = 1";
        let f = Failure::of(
            "query error at line 3, column 7: Schema error: No field named nope.\n  WHERE nope = 1\n        ^",
            sql,
        );
        assert_eq!(f.position, Some((3, 7)));
        let at = f.offset.unwrap();
        assert!(sql.chars().skip(at).collect::<String>().starts_with("nope"));
        let none = Failure::of("query error: it broke", sql);
        assert_eq!((none.position, none.offset), (None, None));
    }

    #[test]
    fn a_result_fetches_each_page_once_and_only_what_was_kept() {
        let mut r = ResultSet::new(Vec::new(), 10_000, 450, 1.0);
        assert_eq!(r.to_fetch(0, 50), [0]);
        assert_eq!(r.to_fetch(0, 50), Vec::<u64>::new());
        assert_eq!(r.to_fetch(190, 420), [1, 2]);
        assert_eq!(r.to_fetch(1000, 2000), Vec::<u64>::new());
        r.fetched(200, vec![vec![Some("x".into()), None]]);
        assert_eq!(r.row(200), Some(&[Some("x".to_string()), None][..]));
        assert_eq!(r.row(0), None);
    }

    #[test]
    fn a_run_takes_only_its_own_answers_and_escape_stops_it() {
        let mut s = QueryState::new(History::default());
        assert_eq!(s.draft, FIRST_QUERY);
        let first = s.start().unwrap();
        assert_eq!(s.start(), None, "one query at a time");
        assert!(s.stop());
        assert_eq!(s.run, Run::Stopped);
        s.done(first, ResultSet::default());
        assert_eq!(s.run, Run::Stopped, "a stopped run's answer is dropped");
        s.draft = "SELECT 1".into();
        let second = s.start().unwrap();
        s.failed(second, "query error at line 1, column 8: bad");
        assert!(matches!(&s.run, Run::Failed(f) if f.offset == Some(7)));
        assert!(!s.stop());
        assert!(s.older());
        assert_eq!(s.draft, "SELECT 1");
    }

    #[test]
    fn a_long_result_is_drawn_as_a_capped_block_mapped_onto_its_rows() {
        let w = Window::of(0.0, 200.0, 100, 20.0);
        assert_eq!((w.first, w.end, w.height_px), (0, 11, 2000.0));
        let w = Window::of(1000.0, 200.0, 100, 20.0);
        assert_eq!((w.first, w.top_px), (50, 1000.0));
        // Ten million rows: the block is capped, its end shows the last rows.
        let rows = 10_000_000;
        let end = Window::of(MAX_PX, 200.0, rows, 20.0);
        assert_eq!(end.height_px, MAX_PX);
        assert_eq!(end.end, rows);
        assert!(end.top_px + (end.end - end.first) as f64 * 20.0 >= MAX_PX);
        let mid = Window::of((MAX_PX - 200.0) / 2.0, 200.0, rows, 20.0);
        assert!((mid.first as i64 - (rows as i64 - 10) / 2).abs() < 10);
    }
}
