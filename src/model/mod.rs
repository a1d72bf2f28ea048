//! The trace browser's model: what the page's browser shows (trace views,
//! register and memory panes, the prompt, the search bar, the navigation
//! panes, menus) and how keys, clicks and the worker's answers change it.
//! No Yew, no browser API: the Yew component (`web::components::browser`)
//! renders it, carries its questions ([`Model::take_asks`]) to the worker
//! and its answers back as messages, and performs its effects
//! ([`Model::take_effects`]: the URL's fragment, the embedding host). Tests
//! drive it natively against a real `browse::Session`
//! (`tests/browser_model.rs`).
//!
//! Every answer comes back as a message carrying what it was for, so late
//! answers (after another move) are recognised and dropped instead of
//! racing the newer ones. Each part owns its state: a view ([`TraceView`]),
//! a pane ([`Pane`]), the search ([`search::SearchState`]), the navigation
//! panes ([`nav::NavPanes`]).
//!
//! Around the browser, the page's other parts have models of their own,
//! each a state, its messages and an `update`, the Yew side only drawing
//! them and carrying their workers' messages: the page ([`page`]), the
//! comparison ([`comparison`]), the Reports panel ([`reports_panel`]) and
//! its views ([`call_tree`], [`profile_table`], [`flame_graph`],
//! [`ep_profile`], [`paged_list`], [`statistics_tab`]).

#![deny(missing_docs)]

mod bookmarking;
pub mod bookmarks;
pub mod call_tree;
pub mod comparison;
pub mod condition;
pub mod embed_questions;
pub mod ep_profile;
mod explaining;
pub mod flame_graph;
pub mod hash;
pub mod host_origins;
mod input;
pub mod keys;
pub mod layout;
pub mod nav;
pub mod page;
pub mod paged_list;
pub mod palette;
pub mod pane_kind;
pub mod pane_state;
mod panes;
pub mod profile_table;
mod prompt;
pub mod registry;
pub mod reports_panel;
mod rows;
pub mod search;
pub mod source;
mod source_following;
mod state;
pub mod statistics;
pub mod statistics_tab;
pub mod target;
mod trace;
pub mod view_state;
mod watching;

pub use bookmarking::BookmarkMsg;
pub use input::{Focus, Menu, MenuAction, PromptFor};
pub use panes::PaneMsg;
pub use reports_panel::ReportTab;
pub use state::{Pane, PaneBody, PaneSpec, TraceView};
pub use trace::ViewMsg;

use hash::HashTarget;
use keys::{Command, PaneKind, RegKind};
use tarmac_lens_core::protocol::{Locate, NodeId, NodeView, Progress, Query, Question, Reply};

/// The kind of pane `R`, `F`, `g` and the panel's tabs show, by its
/// registry name.
const REPORTS: &str = "reports";

/// How a browser starts.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The panes to show (the embedded viewer's `&panes=`); `None`: the
    /// core registers, as usual.
    pub panes: Option<Vec<PaneSpec>>,
    /// The embedded viewer: no room for the navigation panes.
    pub compact: bool,
    /// A second browser on the page (the compared trace): it neither
    /// follows nor writes the URL's `#line=`, which is the first one's.
    pub detached: bool,
    /// A line to go to at once (the trace comparison's divergence).
    pub goto_line: Option<u64>,
    /// The URL's fragment as the browser opens (without `#`).
    pub fragment: String,
    /// The indexing progress so far.
    pub progress: Option<Progress>,
    /// The layout the page kept (`layout::Layout`'s text); empty: the
    /// default.
    pub layout: String,
}

/// A key as the model reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyInput {
    /// `KeyboardEvent.key`.
    pub key: String,
    /// Ctrl was held.
    pub ctrl: bool,
    /// Shift was held.
    pub shift: bool,
    /// Alt was held.
    pub alt: bool,
    /// Meta (Cmd) was held.
    pub meta: bool,
    /// Typed into a form field inside the browser (not a command).
    pub in_form_field: bool,
}

impl KeyInput {
    /// A plain key, no modifiers.
    pub fn plain(key: &str) -> KeyInput {
        KeyInput {
            key: key.into(),
            ..KeyInput::default()
        }
    }
}

/// What a key did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyOutcome {
    /// The browser took it: the page does nothing else with it.
    pub handled: bool,
    /// The browser needs drawing again.
    pub render: bool,
}

/// A question for the worker's session and the message its answer makes
/// (none: nobody waits for it, as for cancelling a search). `then` takes
/// the wire's reply; `Model::ask` made it from a typed continuation.
pub struct Ask {
    /// The question, as the wire carries it.
    pub query: Query,
    /// Makes the message from the worker's reply; `None`: nothing awaits it.
    pub then: Option<Box<dyn FnOnce(Reply) -> Msg>>,
}

/// A question's answer as the model gets it: its own type, or the
/// session's message saying why there is none.
pub type Answer<T> = Result<T, String>;

/// The answer to a move: the node to go to, if there is one.
pub type Moved = Answer<Option<NodeView>>;

/// What a position in the URL was answered with.
pub enum HashAnswer {
    /// A node (a line, a time, a source line's first execution).
    Node(Moved),
    /// An address to find the first execution of.
    Pc(Answer<u64>),
}

/// What the model asks of the page besides questions.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Record this position in the URL's fragment (a moment after the last
    /// move, so a held key writes it a few times a second).
    Fragment(String),
    /// A position not yet written is obsolete (the person typed another).
    ForgetFragment,
    /// Tell the embedding host where a view is (`asked`: the line a goto
    /// asked for, when it shows another).
    Position {
        /// The view that moved.
        view: u32,
        /// Where it is now.
        node: NodeView,
        /// The line a goto asked for, when the position starts at another.
        asked: Option<u64>,
    },
    /// Tell the embedding host a goto found nothing.
    GotoFailed(String),
    /// Keep this layout for the next page (`layout::Layout`'s text).
    SaveLayout(String),
    /// The bookmarks changed: keep them for this trace.
    Bookmarks,
    /// Put this text on the clipboard.
    Copy(String),
}

/// What changes the model: the page's clicks and keys, and the worker's
/// answers, each carrying what it was for.
pub enum Msg {
    /// The Reports panel shows another tab.
    ReportTab(ReportTab),
    /// The Reports panel asks the active view to go to a node.
    ReportJump(NodeId),
    /// ... or to a line (the EP and program-flow lists).
    ReportJumpLine(u64),
    /// A trace view's own message.
    View(u32, ViewMsg),
    /// A register or memory pane's own message.
    Pane(u32, PaneMsg),
    /// Run a command, from a button, a menu or the palette.
    Run(Command),
    /// The keyboard focus moved to a view or pane (a click).
    Focus(Focus),
    /// A prompt's expression has a value (`p`, `P`, `m`).
    Evaluated {
        /// The prompt it answers.
        prompt: PromptFor,
        /// The expression's value.
        reply: Answer<u64>,
    },
    /// A prompt's line or time was found (a pane's lock, `d`).
    Located {
        /// The prompt it answers.
        prompt: PromptFor,
        /// The node found, if any.
        reply: Moved,
    },
    /// The address of a memory pane the embedding asked for (`mem:EXPR`).
    PaneAddress {
        /// The view the pane follows.
        view: u32,
        /// The address expression, as the embedding gave it.
        expr: String,
        /// Its value at the position.
        reply: Answer<u64>,
    },
    /// Open the prompt for this.
    Prompt(PromptFor),
    /// The prompt's text, on Return.
    PromptSubmit(String),
    /// The prompt closed without an answer.
    PromptCancel,
    /// The context menu's item at this index was picked.
    MenuPick(usize),
    /// The context menu closed with nothing picked.
    MenuClose,
    /// The keys overlay's Close button.
    HelpClose,
    /// Open another trace view at the active one's position.
    NewView,
    /// The URL's fragment changed (the person typed one, or a host page
    /// set it): its text, without the `#`.
    HashChanged(String),
    /// The answer to a position the URL's fragment named.
    HashTried {
        /// The position asked for: a newer one drops this answer.
        target: HashTarget,
        /// What it was answered with.
        reply: HashAnswer,
    },
    /// The answer to the start move, which a position asked for meanwhile
    /// (a fragment, a comparison's divergence) overrides.
    Started {
        /// The first node, if indexed yet.
        reply: Moved,
    },
    /// The search bar's edits, buttons and answers.
    Search(search::SearchMsg),
    /// The command palette's typing, picks and answers.
    Palette(palette::PaletteMsg),
    /// Answers for the events list and the timeline.
    Nav(nav::NavMsg),
    /// Source files the person gave (path, text), for the source panes.
    SourceFiles(Vec<(String, String)>),
    /// A source file could not be fetched: why.
    SourceMissing(String),
    /// Show this source file at this line (the Coverage tab's rows).
    ShowSource {
        /// The file, as the DWARF names it.
        file: String,
        /// The line, 1-based.
        line: u32,
    },
    /// A splitter moved, a pane moved to the other area or collapsed.
    Layout(layout::LayoutMsg),
    /// Setting, removing and going to bookmarks, and their answers.
    Bookmark(BookmarkMsg),
    /// The watch prompt's memory expression has a value: watch there.
    WatchMemory {
        /// The memory's address.
        addr: u64,
        /// Its length in bytes.
        len: u64,
    },
    /// ... has none: why.
    WatchMemoryFailed(String),
    /// The condition search's answers, and its stop.
    Condition(condition::CondMsg),
    /// The "why?" prompt's memory expression has a value at this position:
    /// explain there.
    WhyMemory {
        /// The position.
        node: NodeId,
        /// The position's first line.
        line: u64,
        /// The memory's length in bytes.
        len: u64,
        /// The address.
        reply: Answer<u64>,
    },
}

/// The whole browser: its views, its panes and everything else it shows, with
/// the questions and effects it has for the page.
pub struct Model {
    /// The trace views, as opened.
    pub views: Vec<TraceView>,
    /// Every pane shown besides the views, as opened; its kind says where
    /// it sits (`registry`).
    pub panes: Vec<Pane>,
    /// Where keyboard input goes.
    pub focus: Focus,
    /// The prompt, while it is open: what its answer is for.
    pub prompt: Option<PromptFor>,
    /// What each prompt (by its label) was answered before, oldest first:
    /// Up and Down in the prompt recall it.
    pub prompt_history: std::collections::HashMap<&'static str, Vec<String>>,
    /// The status line's message.
    pub status: Option<String>,
    /// The keys overlay (F1).
    pub help: bool,
    /// The command palette, while it is open.
    pub palette: Option<palette::Palette>,
    /// The context menu, while it is open.
    pub menu: Option<Menu>,
    /// Syntax colours (F6) and branch targets as symbols (F7).
    pub syntax: bool,
    /// Branch targets named by their symbols (F7).
    pub symbols: bool,
    /// The trace rows' `file:line` column (`L`).
    pub source_column: bool,
    /// The trace rows' function column (`H`).
    pub function_column: bool,
    last_pc: Option<u64>,
    next_view: u32,
    next_pane: u32,
    /// Source files the person gave, for the source panes.
    pub sources: source::SourceFiles,
    /// The first position has been found (the trace has a first node).
    pub started: bool,
    /// The whole trace is indexed and has no position to show (an empty
    /// file, one without a node).
    pub no_position: bool,
    /// Lines indexed so far (all of them once `complete`).
    indexed_lines: u64,
    /// Nodes indexed so far.
    pub indexed_nodes: u64,
    /// A go-to-line on its way: its view and the line asked for, to say
    /// where it went when that is not the line.
    goto_line: Option<(u32, u64)>,
    start_in_flight: bool,
    pending_hash: Option<HashTarget>,
    hash_in_flight: bool,
    /// The whole trace is indexed.
    pub complete: bool,
    /// The keyboard focus should go (back) to the browser.
    pub refocus: bool,
    /// Memory panes asked for (`&panes=mem`), opened at the first position
    /// (their address is an expression such as `sp`).
    pending_memory: Vec<String>,
    /// The search bar and its results.
    pub search: search::SearchState,
    /// The events list and the timeline.
    pub nav: nav::NavPanes,
    /// The node whose call the call tree is to show (`g`), numbered so
    /// the same node can be asked for again.
    pub report_reveal: Option<(u32, NodeId)>,
    /// A function whose calls the Reports panel's profile lists (from the
    /// palette), numbered so the same one can be asked for again.
    pub report_calls: Option<(u32, u64)>,
    /// Where the panes sit and the areas' sizes.
    pub layout: layout::Layout,
    /// A pane to scroll into view once drawn (the page takes it).
    pub into_view: Option<layout::Shown>,
    /// See [`Config::detached`].
    pub detached: bool,
    /// The URL's fragment names a position (so the first position is one).
    url_has_position: bool,
    /// The bookmarks kept for this trace.
    pub bookmarks: bookmarks::Bookmarks,
    /// The condition prompt's last condition and its search (`c`).
    pub condition: condition::Conditions,
    /// The position last written to the URL (`#line=N`), which the
    /// fragment keeps when the bookmarks change.
    position_hash: Option<String>,
    /// Bookmarks whose position is being asked for.
    bookmark_asks: std::collections::BTreeSet<u64>,
    asks: Vec<Ask>,
    effects: Vec<Effect>,
}

impl Model {
    /// A browser on a trace just opened: it asks for its first rows and its
    /// first position at once.
    pub fn new(config: Config) -> Model {
        let detached = config.detached;
        let fragment = if detached {
            None
        } else {
            hash::parse(&config.fragment)
        };
        let mut m = Model {
            views: vec![TraceView::new(0, None)],
            panes: Vec::new(),
            focus: Focus::View(0),
            prompt: None,
            prompt_history: Default::default(),
            status: None,
            help: false,
            palette: None,
            menu: None,
            report_reveal: None,
            layout: layout::Layout::parse(&config.layout),
            into_view: None,
            report_calls: None,
            syntax: true,
            symbols: true,
            source_column: false,
            function_column: false,
            last_pc: None,
            next_view: 1,
            next_pane: 0,
            sources: source::SourceFiles::default(),
            started: false,
            no_position: false,
            indexed_lines: config.progress.as_ref().map_or(0, |p| p.lines),
            indexed_nodes: config.progress.as_ref().map_or(0, |p| p.nodes),
            goto_line: None,
            start_in_flight: false,
            url_has_position: fragment.is_some(),
            pending_hash: match config.goto_line {
                Some(line) => Some(HashTarget::Line(line)),
                None => fragment,
            },
            hash_in_flight: false,
            complete: config.progress.as_ref().is_some_and(|p| p.complete),
            refocus: true,
            pending_memory: Vec::new(),
            search: Default::default(),
            nav: nav::NavPanes::new(!config.compact && config.panes.is_none()),
            detached,
            condition: Default::default(),
            bookmarks: Default::default(),
            position_hash: None,
            bookmark_asks: Default::default(),
            asks: Vec::new(),
            effects: Vec::new(),
        };
        if !detached {
            m.bookmarks_from_hash(&config.fragment);
        }
        match &config.panes {
            None => {
                m.add_registers(RegKind::Core, 0);
                // The kinds a new page shows (the call stack), unless it is
                // the compact embedded viewer (no room) or its panes were
                // chosen by the URL.
                if !config.compact {
                    for slot in layout::Slot::ALL {
                        if let (true, registry::Opens::Toggle { make, .. }) =
                            (slot.entry().at_start, slot.entry().opens)
                        {
                            m.push_pane(
                                0,
                                PaneBody {
                                    slot,
                                    state: make(),
                                },
                            );
                        }
                    }
                    m.into_view = None;
                }
            }
            Some(panes) => {
                for pane in panes {
                    match pane {
                        PaneSpec::Registers(kind) => {
                            m.add_registers(*kind, 0);
                        }
                        PaneSpec::Memory(expr) => m.pending_memory.push(expr.clone()),
                        PaneSpec::Source => {
                            m.add_source(0);
                        }
                    }
                }
            }
        }
        m.fetch_rows(0);
        m.try_start();
        // A trace already indexed (served, or restored from the cache) sends
        // no progress to try the position later, nor to draw the timeline
        // and list the events: what is indexed is asked for now.
        m.try_hash();
        if m.indexed_nodes > 0 {
            m.nav_progress();
        }
        m
    }

    /// More of the trace is indexed, or the ELF image changed (`elf`):
    /// what depends on it is asked for again.
    pub fn on_progress(&mut self, progress: Option<&Progress>, elf: bool) {
        let was_complete = self.complete;
        let grown = progress.map(|p| (p.lines, p.nodes, p.complete))
            != Some((self.indexed_lines, self.indexed_nodes, self.complete));
        self.complete = progress.is_some_and(|p| p.complete);
        self.indexed_lines = progress.map_or(0, |p| p.lines);
        self.indexed_nodes = progress.map_or(0, |p| p.nodes);
        if elf {
            // Symbols name branch targets and folds: the rows are asked for again.
            for id in self.view_ids() {
                self.refresh_rows(id);
            }
        } else if grown {
            // More of the trace is indexed: the views may have more rows.
            for id in self.view_ids() {
                self.rows_grown(id);
            }
        }
        if elf || (grown && !was_complete) {
            // The calls active at a position are known once their returns
            // are indexed (or the end is), and named once symbols come.
            for id in self.view_ids() {
                if let Some(node) = self.view_ref(id).and_then(|v| v.cursor) {
                    self.fetch_stack(id, node.node);
                }
            }
        }
        if grown {
            self.nav_progress();
            self.more_progress();
        }
        // What a pane shows may depend on the image, and grow with the
        // index (the disassembly's counts); not the registers or memory at
        // a position, which asked again would only load the worker.
        if elf || (grown && !was_complete) {
            for id in self.pane_ids() {
                if self.pane_ref(id).is_some_and(|p| p.body.state.grows()) {
                    self.refresh_pane(id);
                }
            }
        }
        if grown || elf {
            // What failed before may answer now.
            self.try_start();
            self.try_hash();
            self.resolve_bookmarks(elf);
        }
    }

    /// Goes to a line asked for from outside (the trace comparison).
    pub fn goto_line_from_outside(&mut self, line: u64) {
        self.pending_hash = Some(HashTarget::Line(line));
        self.try_hash();
    }

    /// The questions raised since the last call, to send to the worker.
    pub fn take_asks(&mut self) -> Vec<Ask> {
        std::mem::take(&mut self.asks)
    }

    /// The effects asked for since the last call.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Asks the worker; its answer comes back as `then(answer)`.
    fn ask<Q: Question + 'static>(
        &mut self,
        question: Q,
        then: impl FnOnce(Answer<Q::Answer>) -> Msg + 'static,
    ) {
        self.asks.push(Ask {
            query: question.into(),
            then: Some(Box::new(move |reply| then(Q::answer_of(reply)))),
        });
    }

    /// Asks the worker a question as the wire carries it, for a pane whose
    /// own state decodes the reply ([`pane_state::PaneState`]).
    fn ask_wire(&mut self, query: Query, then: impl FnOnce(Reply) -> Msg + 'static) {
        self.asks.push(Ask {
            query,
            then: Some(Box::new(then)),
        });
    }

    /// Tells the worker something no answer is awaited for.
    fn tell(&mut self, question: impl Into<Query>) {
        self.asks.push(Ask {
            query: question.into(),
            then: None,
        });
    }

    /// Applies a message; returns whether the browser needs drawing again.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Search(m) => return self.on_search(m),
            Msg::Palette(m) => return self.on_palette(m),
            Msg::ReportTab(tab) => self.show_reports(tab, false),
            Msg::ReportJump(node) => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(view, Locate::Node(node), false);
            }
            Msg::ReportJumpLine(line) => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(view, Locate::Line(line), false);
            }
            Msg::View(view, m) => return self.on_view(view, m),
            Msg::Pane(pane, m) => return self.on_pane(pane, m),
            Msg::Run(cmd) => {
                self.refocus = true;
                self.run(cmd);
            }
            Msg::Focus(f) => {
                if self.focus == f {
                    return false;
                }
                self.focus = f;
            }
            Msg::Evaluated { prompt, reply } => self.on_evaluated(prompt, reply),
            Msg::Located { prompt, reply } => self.on_located(prompt, reply),
            Msg::PaneAddress { view, expr, reply } => self.on_pane_address(view, expr, reply),
            Msg::Prompt(p) => self.prompt = Some(p),
            Msg::PromptSubmit(text) => self.on_prompt_submit(text),
            Msg::PromptCancel => {
                if self.prompt.take().is_none() {
                    return false;
                }
                self.refocus = true;
            }
            Msg::MenuPick(i) => self.on_menu_pick(i),
            Msg::MenuClose => {
                self.menu = None;
                self.refocus = true;
            }
            Msg::HelpClose => {
                self.help = false;
                self.refocus = true;
            }
            Msg::NewView => {
                self.refocus = true;
                self.new_view();
            }
            Msg::HashChanged(fragment) => {
                // What the person typed wins over a position not yet written.
                self.effects.push(Effect::ForgetFragment);
                self.url_has_position = hash::parse(&fragment).is_some();
                self.pending_hash = hash::parse(&fragment);
                self.try_hash();
                self.bookmarks_from_hash(&fragment);
            }
            Msg::HashTried { target, reply } => self.on_hash_tried(target, reply),
            Msg::Started { reply } => return self.on_started(reply),
            Msg::Nav(m) => return self.on_nav(m),
            Msg::SourceFiles(files) => self.add_source_files(files),
            Msg::ShowSource { file, line } => self.show_source(file, line),
            Msg::SourceMissing(why) => self.source_missing(why),
            Msg::Layout(m) => return self.on_layout(m),
            Msg::Bookmark(m) => return self.on_bookmark(m),
            Msg::Condition(m) => return self.on_condition(m),
            Msg::WatchMemory { addr, len } => {
                self.watch(tarmac_lens_core::protocol::WriteTarget::Memory { addr, len })
            }
            Msg::WatchMemoryFailed(why) => self.status = Some(why),
            Msg::WhyMemory {
                node,
                line,
                len,
                reply,
            } => match reply {
                Ok(addr) => self.why(
                    tarmac_lens_core::protocol::WriteTarget::Memory { addr, len },
                    node,
                    line,
                ),
                Err(e) => self.status = Some(e),
            },
        }
        true
    }

    /// A layout change, kept for the next page; false if nothing changed.
    fn on_layout(&mut self, m: layout::LayoutMsg) -> bool {
        if !self.layout.apply(m) {
            return false;
        }
        if let layout::LayoutMsg::Move(slot) | layout::LayoutMsg::Collapse(slot) = m {
            self.into_view = Some(layout::Shown::Slot(slot));
        }
        self.effects
            .push(Effect::SaveLayout(self.layout.to_string()));
        true
    }

    /// Where a pane's kind sits in the layout.
    pub fn slot(body: &PaneBody) -> layout::Slot {
        body.slot()
    }

    /// The first pane of a kind, if one is shown.
    pub fn pane_of(&self, slot: layout::Slot) -> Option<&Pane> {
        self.panes.iter().find(|p| p.body.slot() == slot)
    }

    /// Whether a pane of this kind is shown.
    pub fn shown(&self, slot: layout::Slot) -> bool {
        self.pane_of(slot).is_some()
    }

    /// Shows the one pane of a kind that has no state of its own, or hides
    /// it.
    fn toggle_kind(&mut self, body: PaneBody) {
        let slot = body.slot();
        match self.pane_of(slot).map(|p| p.id) {
            Some(id) => self.close_pane(id),
            None => {
                let view = self.active_view();
                self.push_pane(view, body);
            }
        }
        self.into_view = Some(layout::Shown::Slot(slot));
    }

    /// The state of the first pane whose state is a `T` (a kind in its
    /// own folder), if one is shown.
    pub fn pane_state<T: 'static>(&self) -> Option<&T> {
        self.panes
            .iter()
            .find_map(|p| p.body.state.as_any().downcast_ref::<T>())
    }

    /// Puts a pane of a kind with one instance in place of the shown one
    /// (the same id and place), or opens it; `reveal`: scrolls its area
    /// to it.
    fn replace_kind(&mut self, body: PaneBody, reveal: bool) {
        let slot = body.slot();
        let before = self.into_view;
        match self.panes.iter_mut().find(|p| p.body.slot() == slot) {
            Some(p) => p.body = body,
            None => {
                let view = self.active_view();
                self.push_pane(view, body);
            }
        }
        self.into_view = if reveal {
            Some(layout::Shown::Slot(slot))
        } else {
            before
        };
    }

    /// Shows the Reports panel (the registry's kind of that name) at
    /// `tab`: its state is its folder's, told the tab by message.
    fn show_reports(&mut self, tab: ReportTab, reveal: bool) {
        let Some(slot) = layout::Slot::named(REPORTS) else {
            return;
        };
        let registry::Opens::Shown { make } = slot.entry().opens else {
            return;
        };
        let before = self.into_view;
        let id = match self.pane_of(slot) {
            Some(p) => p.id,
            None => {
                let view = self.active_view();
                self.push_pane(
                    view,
                    PaneBody {
                        slot,
                        state: make(),
                    },
                )
            }
        };
        if let Some(p) = self.pane_mut(id) {
            p.body.state.update(Box::new(tab));
        }
        self.into_view = if reveal {
            Some(layout::Shown::Slot(slot))
        } else {
            before
        };
    }

    /// `R`: shows the Reports panel at its call tree, or hides it.
    fn toggle_reports(&mut self) {
        match layout::Slot::named(REPORTS).and_then(|slot| self.pane_of(slot)) {
            Some(p) => {
                let (id, slot) = (p.id, p.body.slot());
                self.close_pane(id);
                self.into_view = Some(layout::Shown::Slot(slot));
            }
            None => self.show_reports(ReportTab::CallTree, true),
        }
    }

    /// The trace views' numbers, in their order.
    pub fn view_ids(&self) -> Vec<u32> {
        self.views.iter().map(|v| v.id).collect()
    }

    /// The trace view numbered `id`, to change.
    pub fn view_mut(&mut self, id: u32) -> Option<&mut TraceView> {
        self.views.iter_mut().find(|v| v.id == id)
    }

    /// The trace view numbered `id`.
    pub fn view_ref(&self, id: u32) -> Option<&TraceView> {
        self.views.iter().find(|v| v.id == id)
    }

    /// The pane numbered `id`, to change.
    pub fn pane_mut(&mut self, id: u32) -> Option<&mut Pane> {
        self.panes.iter_mut().find(|p| p.id == id)
    }

    /// The pane numbered `id`.
    pub fn pane_ref(&self, id: u32) -> Option<&Pane> {
        self.panes.iter().find(|p| p.id == id)
    }

    /// The trace view keys act on: the focused one, or the one the focused
    /// pane follows.
    pub fn active_view(&self) -> u32 {
        match self.focus {
            Focus::View(v) => v,
            Focus::Pane(p) => self.pane_ref(p).map_or(0, |p| p.view),
        }
    }

    /// The kind of the focused pane, whose key table applies.
    pub fn focus_kind(&self) -> PaneKind {
        match self.focus {
            Focus::View(_) => PaneKind::Trace,
            Focus::Pane(p) => self
                .pane_ref(p)
                .and_then(|p| p.body.slot().entry().focus)
                .unwrap_or(PaneKind::Registers),
        }
    }

    /// A key while the F1 help is open: Escape (or F1 again, or Return on
    /// its Close button) closes it; the keys that scroll are left to the
    /// browser, which scrolls the help (it has the focus), so a keyboard
    /// user can read all of it; any other key does nothing behind it.
    fn help_key(&mut self, k: &KeyInput) -> KeyOutcome {
        const SCROLL: &[&str] = &[
            "ArrowDown",
            "ArrowUp",
            "PageDown",
            "PageUp",
            "Home",
            "End",
            " ",
        ];
        if matches!(k.key.as_str(), "Escape" | "F1" | "F10" | "Enter") {
            self.help = false;
            self.refocus = true;
            return KeyOutcome {
                handled: true,
                render: true,
            };
        }
        KeyOutcome {
            handled: !(SCROLL.contains(&k.key.as_str()) && !k.ctrl && !k.alt && !k.meta),
            render: false,
        }
    }

    /// A key pressed in the browser (not in a form field of it): whether
    /// it was the browser's (so the page does nothing else with it) and
    /// whether the browser needs drawing again.
    pub fn key(&mut self, k: &KeyInput) -> KeyOutcome {
        const NOT_MINE: KeyOutcome = KeyOutcome {
            handled: false,
            render: false,
        };
        if k.in_form_field {
            // Typing into a form field (the pane selector, the ELF offset)
            // is not a browser command.
            return NOT_MINE;
        }
        if k.key == "Escape" && self.palette.is_some() {
            return KeyOutcome {
                handled: true,
                render: self.on_palette(palette::PaletteMsg::Close),
            };
        }
        if self.help {
            return self.help_key(k);
        }
        if self.menu.is_some() {
            if k.key == "Escape" {
                self.menu = None;
                return KeyOutcome {
                    handled: false,
                    render: true,
                };
            }
            return NOT_MINE;
        }
        if k.alt || k.meta {
            return NOT_MINE;
        }
        // The search bar's × says Esc: it closes from the panes too.
        if k.key == "Escape" && self.search.open {
            let render = self.on_search(search::SearchMsg::Close);
            return KeyOutcome {
                handled: true,
                render,
            };
        }
        // Escape stops a condition search wherever the focus is.
        if k.key == "Escape" && self.condition.running.is_some() {
            let render = self.on_condition(condition::CondMsg::Stop);
            return KeyOutcome {
                handled: true,
                render,
            };
        }
        let name = keys::key_name(&k.key, k.ctrl, k.shift);
        // Ctrl-Shift with a letter no table binds is Ctrl with it (Ctrl-L).
        let cmd = keys::command(self.focus_kind(), &name).or_else(|| {
            (k.ctrl && k.shift)
                .then(|| keys::command(self.focus_kind(), &keys::key_name(&k.key, true, false)))
                .flatten()
        });
        let Some(cmd) = cmd else {
            return NOT_MINE;
        };
        // A step shows nothing until the worker's answer: rendering the
        // whole browser for its key press as well (a millisecond and more)
        // held up the answer's render behind it.
        let unseen = matches!(cmd, Command::StepDown | Command::StepUp) && self.status.is_none();
        self.status = None;
        self.condition.invalid = None;
        self.run(cmd);
        KeyOutcome {
            handled: true,
            render: !unseen,
        }
    }

    /// Runs a command where the focus is (a focused pane whose own key
    /// table binds a step takes it: the source pane's `n`/`N` step through
    /// a line's executions, not the search's results).
    pub fn run(&mut self, cmd: Command) {
        if let (Focus::Pane(p), Some(step)) = (self.focus, step_of(cmd)) {
            let table = self.pane_ref(p).and_then(|p| p.body.slot.entry().focus);
            let own_table = table.map(|kind| keys::tables(kind)[0]);
            if own_table.is_some_and(|t| t.iter().any(|b| b.command == cmd)) {
                let node = self.pane_ref(p).and_then(|pane| self.pane_node(pane));
                if let Some(node) = node {
                    let view = self.active_view();
                    self.pane_step(p, view, node, step);
                }
                return;
            }
        }
        match cmd {
            Command::NextPane | Command::PrevPane => self.cycle_focus(cmd == Command::NextPane),
            Command::Help => self.help = true,
            Command::Palette => {
                self.on_palette(palette::PaletteMsg::Open);
            }
            Command::ToggleRegisters(kind) => self.toggle_registers(kind),
            Command::ToggleSource => self.toggle_source(),
            Command::TogglePane(slot) => {
                if let registry::Opens::Toggle { make, .. } = slot.entry().opens {
                    self.toggle_kind(PaneBody {
                        slot,
                        state: make(),
                    });
                    if let Some(id) = self.pane_of(slot).map(|p| p.id) {
                        self.refresh_pane(id);
                        self.feed(slot.entry().feed);
                    }
                }
            }
            Command::ToggleSyntax => self.syntax = !self.syntax,
            Command::ToggleSymbols => self.symbols = !self.symbols,
            Command::ToggleSourceColumn => self.source_column = !self.source_column,
            Command::ToggleFunctionColumn => self.function_column = !self.function_column,
            Command::Search { forward } => {
                self.on_search(search::SearchMsg::Open { forward });
            }
            Command::SearchNext { same_way } => {
                self.on_search(search::SearchMsg::Next { same_way });
            }
            Command::ToggleTimeline | Command::NextEvent { .. } => {
                self.run_nav(cmd);
            }
            Command::ToggleBookmark | Command::NextBookmark { .. } => {
                self.run_bookmarks(cmd);
            }
            Command::WatchPrompt | Command::WatchStep { .. } => {
                self.run_watch(cmd);
            }
            Command::ConditionPrompt => self.condition_prompt(),
            Command::ConditionStep { forward } => self.condition_step(forward),
            Command::WhyPrompt => self.why_prompt(),
            Command::Reports => self.toggle_reports(),
            Command::FlameGraph => self.show_reports(ReportTab::FlameGraph, true),
            Command::Layout(m) => {
                self.on_layout(m);
            }
            Command::MovePane => {
                if let Focus::Pane(p) = self.focus {
                    if let Some(slot) = self.pane_ref(p).map(|p| Model::slot(&p.body)) {
                        self.on_layout(layout::LayoutMsg::Move(slot));
                    }
                }
            }
            Command::RevealCall => {
                let view = self.active_view();
                if let Some(c) = self.view_ref(view).and_then(|v| v.cursor) {
                    let seq = self.report_reveal.map_or(0, |(s, _)| s.wrapping_add(1));
                    self.report_reveal = Some((seq, c.node));
                    self.show_reports(ReportTab::CallTree, false);
                }
            }
            _ => match self.focus {
                Focus::View(v) => self.run_trace(v, cmd),
                Focus::Pane(p) => self.run_pane(p, cmd),
            },
        }
    }

    /// Moves the focus to the next (or previous) view or focusable pane, as Tab
    /// does.
    pub fn cycle_focus(&mut self, forward: bool) {
        let mut order: Vec<Focus> = self.views.iter().map(|v| Focus::View(v.id)).collect();
        order.extend(
            self.panes
                .iter()
                .filter(|p| p.body.focusable())
                .map(|p| Focus::Pane(p.id)),
        );
        let at = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let n = order.len();
        self.focus = order[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }
}

/// The step a key asks of a focused pane in its own folder
/// (`PaneState::step`).
fn step_of(cmd: Command) -> Option<pane_state::Step> {
    use pane_state::Step;
    Some(match cmd {
        Command::SourceNext => Step::Line { forward: true },
        Command::SourcePrev => Step::Line { forward: false },
        Command::SourceOver => Step::Over,
        Command::SourceOut => Step::Out,
        Command::SearchNext { same_way } => Step::Again { same_way },
        _ => return None,
    })
}
