//! What the browser remembers about its trace views and panes.

use std::rc::Rc;

use crate::model::keys::RegKind;
use crate::model::registry::Slot;
use crate::model::view_state::{Recentre, Scroll, ROW_PX};
use tarmac_lens_core::protocol::{CallFrame, LineEffect, NodeId, NodeView, RowsReply};

/// One trace view: a cursor, folds (kept by the session under `id`) and a
/// scroll position.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceView {
    /// The view's number, under which the session keeps its folds.
    pub id: u32,
    /// The position, once one is known.
    pub cursor: Option<NodeView>,
    /// Where the cursor was before the last move: registers and memory
    /// changed since then are highlighted.
    pub prev: Option<NodeId>,
    /// The row of the cursor's first line (or the fold hiding it).
    pub cursor_row: Option<u64>,
    /// The row at the top of the pane.
    pub top: u64,
    /// Bumped when the browser (not the scrollbar) sets `top`.
    pub scroll_seq: u64,
    /// The pane's measured height in pixels (0 until measured).
    pub viewport_px: f64,
    /// Rows in the view, a folded call counting as one.
    pub total_rows: u64,
    /// The rows last fetched around `top`.
    pub rows: Option<Rc<RowsReply>>,
    /// Rows asked for and not answered yet; `rows_again` asks once more
    /// when the answer comes, so scrolling never queues a backlog.
    pub rows_in_flight: bool,
    /// Ask for rows once more when the answer in flight comes.
    pub rows_again: bool,
    /// Where the next Ctrl-L puts the position.
    pub recentre: Recentre,
    /// A Step is being answered; presses meanwhile add up here and go as
    /// one Step, so fast key repeat never steps from a stale position.
    pub step_in_flight: bool,
    /// Steps pressed while one was in flight, down positive, up negative.
    pub queued_steps: i64,
    /// The calls active at the cursor, outermost first.
    pub stack: Vec<CallFrame>,
    /// The `a` highlight: the lines of the node before the cursor, and which
    /// one is lit.
    pub annotate: Option<(Vec<LineEffect>, usize)>,
}

impl TraceView {
    /// A view numbered `id`, at `cursor` if known, nothing fetched yet.
    pub fn new(id: u32, cursor: Option<NodeView>) -> TraceView {
        TraceView {
            id,
            cursor,
            prev: None,
            cursor_row: None,
            top: 0,
            scroll_seq: 0,
            viewport_px: 0.0,
            total_rows: 0,
            rows: None,
            rows_in_flight: false,
            rows_again: false,
            recentre: Recentre::default(),
            step_in_flight: false,
            queued_steps: 0,
            stack: Vec::new(),
            annotate: None,
        }
    }

    /// The line the `a` highlight lights, if any.
    pub fn annotated(&self) -> Option<&LineEffect> {
        self.annotate.as_ref().map(|(lines, i)| &lines[*i])
    }
}

/// What a pane shows: its kind and that kind's state.
#[derive(Clone, Debug)]
pub struct PaneBody {
    /// Its kind, as its folder's registry line lists it.
    pub slot: Slot,
    /// Its folder's own state (`src/panes/`).
    pub state: Box<dyn crate::model::pane_state::PaneState>,
}

impl PartialEq for PaneBody {
    fn eq(&self, other: &Self) -> bool {
        self.slot == other.slot && self.state.same(&*other.state)
    }
}

impl PaneBody {
    /// Its kind, as the registry (`model::registry`) lists it.
    pub fn slot(&self) -> Slot {
        self.slot
    }

    /// Whether it follows a view's position and takes the keyboard focus
    /// (Tab): the others are lists with their own clicks.
    pub fn focusable(&self) -> bool {
        self.slot().entry().focus.is_some()
    }
}

/// A pane besides the trace views: what it shows and which view it follows.
#[derive(Clone, Debug, PartialEq)]
pub struct Pane {
    /// The pane's number, its key in messages.
    pub id: u32,
    /// The trace view whose position it follows.
    pub view: u32,
    /// The position it is locked to instead (`l`, `t`, Ctrl-L).
    pub lock: Option<NodeView>,
    /// A message shown in the pane: why it shows nothing, or what a key did.
    pub note: Option<String>,
    /// Answers to older questions are dropped.
    pub seq: u64,
    /// What it shows.
    pub body: PaneBody,
}

impl Pane {
    /// Its heading, in the page's language.
    pub fn title(&self) -> String {
        self.body.state.title()
    }

    /// Its test id (`registers-core`, `memory`, …).
    pub fn testid(&self) -> String {
        let name = self.body.slot.name();
        match self.body.state.variant() {
            Some(v) => format!("{name}-{v}"),
            None => name.to_string(),
        }
    }
}

/// A pane the embedded viewer shows (`&panes=`).
#[derive(Clone, Debug, PartialEq)]
pub enum PaneSpec {
    /// A register pane of this kind.
    Registers(RegKind),
    /// A memory pane at an address expression (`mem` alone: `sp`).
    Memory(String),
    /// The source pane.
    Source,
}

/// Rows assumed visible before the pane has been measured (or while the
/// Summary tab hides it).
const DEFAULT_VIEWPORT_PX: f64 = 40.0 * ROW_PX;

pub(super) fn scroll_of(v: &TraceView) -> Scroll {
    let px = if v.viewport_px > 0.0 {
        v.viewport_px
    } else {
        DEFAULT_VIEWPORT_PX
    };
    Scroll::new(v.total_rows, px)
}

/// Whether the cached rows cover the viewport.
pub(super) fn rows_cover(v: &TraceView) -> bool {
    let Some(rows) = &v.rows else {
        return false;
    };
    let visible = scroll_of(v).visible_rows() + 1;
    let end = rows.first + rows.rows.len() as u64;
    v.top >= rows.first && (v.top + visible <= end || end >= rows.total_rows)
}
