//! What a pane kind living in its own folder (`src/panes/`) gives the
//! model: the question that fills it at a position and what it keeps of
//! the answer, typed ([`FollowsPosition`]), or no question at all for a
//! pane that asks a worker of its own (the Query pane); and, for a pane
//! with questions of its own (the watch pane's list, the why pane's
//! tree), those questions, its own messages and where its step keys go. The model asks, routes the answers and carries out the pane's
//! actions, so such a pane needs no arm anywhere in `src/model/`.

use std::any::Any;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};

use tarmac_lens_core::protocol::{NodeId, NodeView, Query, Question, Reply, WriteTarget};

/// A number no other question of any pane has had: what a pane's
/// [`PaneState::more`] tokens are made of, so that the answer to a pane's
/// question is never taken by the pane that replaced it.
pub fn fresh_token() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Where a pane stands: the position it shows, and what changes there are
/// marked against (the view's previous position, or the line chosen with
/// `d`; `None`: nothing to compare with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    /// The position.
    pub node: NodeId,
    /// What it is compared with.
    pub compare: Option<NodeId>,
}

/// A key for the focused pane that only its state knows what to do with
/// (`model::keys` binds them; here so that a folder need not import the
/// key tables, which read the registry, which reads the folders).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneKey {
    /// An arrow key.
    Arrow(Arrow),
    /// PageUp / PageDown.
    Page {
        /// Down, not up.
        down: bool,
    },
    /// `<` / `>`: one row fewer or more.
    Rows {
        /// More, not fewer.
        more: bool,
    },
    /// `c`: mark what changed since the compared position, or what the
    /// position wrote.
    Mark,
    /// `a`: the symbol at the selected value.
    Symbol,
    /// `[` / `]`: the previous or next changed value.
    Changed {
        /// After the selection, not before it.
        forward: bool,
    },
}

/// An arrow key's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrow {
    /// Up.
    Up,
    /// Down.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
}

/// One entry of a pane's context menu: the model adds the view and the
/// position the pane shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MenuItem {
    /// Where this value came from (the why pane).
    Why(WriteTarget),
    /// Watch its accesses.
    Watch(WriteTarget),
    /// The view goes to its previous or next write.
    Write {
        /// The register or memory written.
        target: WriteTarget,
        /// The next write, not the previous one.
        forward: bool,
    },
    /// Name the symbol at this value, in the pane's note.
    Symbol(u64),
    /// Open a memory pane at this address.
    OpenMemory(u64),
    /// What this key does in the pane.
    Key(PaneKey),
    /// Ask for a line to compare with (`d`).
    CompareLine,
    /// Ask for a line to lock to (`l`).
    LockLine,
}

/// What a click in such a pane asks of the browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaneAction {
    /// Go to the next execution, after the pane's position, of the
    /// instruction at this address.
    NextExecution(u64),
    /// Go to this line of the trace.
    GoToLine(u64),
    /// Go to the first line at this time.
    GoToTime(u64),
    /// Go to this node: the view the pane follows if it takes the focus
    /// (its row centred), the active view otherwise.
    GoToNode(NodeId),
    /// Say this on the status line (English; translated there).
    Say(&'static str),
    /// Close the pane.
    Close,
    /// Ask the pane's question again: what it shows changed.
    Refresh,
    /// The view goes to the write that produced the selection
    /// ([`PaneState::selection`]).
    PreviousWrite,
    /// Say this in the pane (translated already).
    Note(String),
    /// Name the symbol at `addr` in the pane's note, after `text`.
    Symbolize {
        /// What the note says first (the register and its value).
        text: String,
        /// The value.
        addr: u64,
    },
    /// Open this context menu, at the click's `clientX`, `clientY`.
    Menu {
        /// The click's `clientX`.
        x: i32,
        /// The click's `clientY`.
        y: i32,
        /// Its entries, in order.
        items: Vec<(String, MenuItem)>,
    },
}

/// A pane that follows a view's position: what a pane kind implements.
pub trait FollowsPosition: Debug {
    /// The question that fills it.
    type Asks: Question;
    /// That question at `node`.
    fn question(&self, node: NodeId) -> Self::Asks;
    /// Keeps its answer.
    fn answer(&mut self, answer: <Self::Asks as Question>::Answer);
    /// Its header's title, in the page's language.
    fn title(&self) -> String;
}

/// A [`FollowsPosition`] pane with its question and answer as the wire
/// carries them: what lets the model keep every such pane, whatever it
/// asks, as a `Box<dyn PaneState>`. A pane with a worker of its own
/// implements it directly, asking nothing ([`PaneState::query`] `None`).
pub trait PaneState: DynPane + Debug {
    /// The question that fills it at `at`; `None` (the default) for a
    /// pane that does not follow the position.
    fn query(&mut self, _at: At) -> Option<Query> {
        None
    }
    /// Takes the reply; `Err` is what to say instead (the session's
    /// message).
    fn take(&mut self, _reply: Reply) -> Result<(), String> {
        Ok(())
    }
    /// Its header's title, in the page's language.
    fn title(&self) -> String;

    /// For a list filled a piece at a time as indexing goes on (the watch
    /// pane's accesses): the next piece's question and the token its
    /// answer comes back with, once none is on its way and there is more
    /// to ask of the `indexed_nodes` indexed so far. The model asks again
    /// after each piece, each indexing step and each
    /// [`update`](Self::update).
    fn more(&mut self, _indexed_nodes: u64) -> Option<(u64, Query)> {
        None
    }

    /// Takes a piece [`more`](Self::more) asked for, and what the page
    /// does then; `Err` is what to say instead (as for
    /// [`stepped`](Self::stepped)).
    fn take_more(&mut self, _token: u64, _reply: Reply) -> Result<Option<PaneAction>, String> {
        Ok(None)
    }

    /// Its own message (its render's clicks, `PaneContext::own`), and what
    /// the page does then.
    fn update(&mut self, _msg: Box<dyn Any>) -> Option<PaneAction> {
        None
    }

    /// The question finding where `step` goes from `node`: `(`/`)` for
    /// the watch pane, the source pane's keys while it has the focus.
    /// `None`: it has nowhere to go (a focused pane's step keys then do
    /// nothing else).
    fn step(&self, _node: NodeId, _step: Step) -> Option<Query> {
        None
    }

    /// Where that answer takes the view; `Err` is what to say instead
    /// (nothing there, or the session's message): in the pane if it takes
    /// the focus, on the status line otherwise.
    fn stepped(&self, _reply: Reply, _step: Step) -> Result<Goto, String> {
        Err(String::new())
    }

    /// The view it follows moved (it is not locked): a pane showing
    /// something chosen elsewhere goes back to the position.
    fn moved(&mut self) {}

    /// The source file it shows (as the DWARF names it), which a page that
    /// can fetch files (`&src=`) fetches when the person gave none.
    fn source_file(&self) -> Option<&str> {
        None
    }

    /// A key of the focused pane ([`PaneKey`]), and what the page does
    /// then; `side`: the pane sits in the narrow side column.
    fn key(&mut self, _key: PaneKey, _side: bool) -> Option<PaneAction> {
        None
    }

    /// What it has selected, `width` bytes of it for memory (`W`, `y`,
    /// Return, `1 2 4 8`); `None`: nothing.
    fn selection(&self, _width: Option<u64>) -> Option<WriteTarget> {
        None
    }

    /// Whether what it shows at a position may change as the index grows
    /// or an image loads (counts, names), so that it is asked again then;
    /// `false` for what only the trace up to the position decides.
    fn grows(&self) -> bool {
        true
    }

    /// `d`: what changes are marked against, instead of the view's
    /// previous position (for a pane that marks them).
    fn compare_with(&mut self, _node: NodeId) {}

    /// Which of its kind's panes it is, where the kind has several that a
    /// key each shows or hides (the register panes' `core`, `neon`, …):
    /// the end of its test id.
    fn variant(&self) -> Option<&'static str> {
        None
    }
}

/// Where a key asks a pane to take its view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `(`, `)`: what it marks before or after.
    Mark {
        /// After, not before.
        forward: bool,
    },
    /// `j`, `k`: its next or previous line.
    Line {
        /// The next, not the previous.
        forward: bool,
    },
    /// `o`: its next line, over calls.
    Over,
    /// `u`: out of the call.
    Out,
    /// `n`, `N`: the next or previous execution of what it selected.
    Again {
        /// The way of the last search (`n`), not the other (`N`).
        same_way: bool,
    },
}

/// Where a step's answer takes the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goto {
    /// This node: the view asks for it, its row kept where it is if in
    /// sight, the keyboard back on the view.
    Node(NodeId),
    /// This node, answered whole: the view goes there at once, its row
    /// centred.
    At(NodeView),
}

impl<T: FollowsPosition + Clone + PartialEq + 'static> PaneState for T {
    fn query(&mut self, at: At) -> Option<Query> {
        Some(FollowsPosition::question(self, at.node).into())
    }

    fn take(&mut self, reply: Reply) -> Result<(), String> {
        <T::Asks as Question>::answer_of(reply).map(|a| FollowsPosition::answer(self, a))
    }

    fn title(&self) -> String {
        FollowsPosition::title(self)
    }
}

/// The state of a pane that draws what the page keeps (the active view's
/// calls, the bookmarks, the events): nothing beyond being shown, and its
/// English title.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown(pub &'static str);

impl PaneState for Shown {
    fn title(&self) -> String {
        crate::i18n::t(self.0).into()
    }
}

/// What lets the model keep a pane's state as a `Box<dyn PaneState>` and
/// still copy and compare it (as it does every pane's); implemented for
/// every `Clone + PartialEq` state.
pub trait DynPane {
    /// A copy of the state, boxed.
    fn clone_box(&self) -> Box<dyn PaneState>;
    /// The state as [`Any`], to compare it with another of its type.
    fn as_any(&self) -> &dyn Any;
    /// The state as [`Any`], to change it as its type (tests set a
    /// selection so).
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Whether `other` is a state of the same type and equal to it.
    fn same(&self, other: &dyn PaneState) -> bool;
}

impl<T: PaneState + Clone + PartialEq + 'static> DynPane for T {
    fn clone_box(&self) -> Box<dyn PaneState> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn same(&self, other: &dyn PaneState) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

impl Clone for Box<dyn PaneState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl PartialEq for Box<dyn PaneState> {
    fn eq(&self, other: &Self) -> bool {
        self.same(&**other)
    }
}
