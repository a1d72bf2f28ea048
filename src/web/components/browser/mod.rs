//! The trace browser: trace views, register and memory panes, the prompt
//! and the keys, driven by questions to the worker's session. All state is
//! here; the panes it renders are presentational.
//!
//! Every answer comes back as a message carrying what it was for, so late
//! answers (after another move) are recognised and dropped instead of
//! racing the newer ones.

mod nav_ops;
mod pane_ops;
mod prompt_ops;
mod search_ops;
mod state;
mod trace_ops;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};
use yew::prelude::*;

pub use state::{Focus, Menu, MenuAction, Pane, PaneBody, PromptFor, TraceView};

use super::{
    ContextMenu, ElfLoad, HelpOverlay, MemoryPane, Minibuffer, PaneHeader, RegisterPane, ReportTab,
    ReportsPanel, TracePane,
};
use crate::model::hash::{self, HashTarget};
use crate::model::keys::{self, Command, PaneKind, RegKind};
use crate::web::page::client::TraceClient;
use crate::web::page::i18n::{number, t, tf, Lang};
use crate::web::page::page_params::PaneSpec;
use tarmac_lens_core::browse::protocol::{
    FoldOp, Locate, NodeId, NodeView, Progress, Query, Reply, Row,
};

/// The open trace's client; equal while it is the same job, so the browser
/// is rebuilt only for a new file.
#[derive(Clone)]
pub struct Session {
    pub client: TraceClient,
    pub job: u32,
}

impl PartialEq for Session {
    fn eq(&self, other: &Session) -> bool {
        self.job == other.job
    }
}

#[derive(Properties, PartialEq)]
pub struct BrowserProps {
    pub session: Session,
    pub progress: Option<Progress>,
    /// Symbols of the loaded ELF image: rows are fetched again when it loads.
    pub elf: Option<ElfLoad>,
    /// The page's language: a change re-renders the browser's text.
    #[prop_or_default]
    pub lang: Lang,
    /// The panes to show (the embedded viewer's `&panes=`); `None`: the
    /// core registers, as usual.
    #[prop_or_default]
    pub panes: Option<Vec<PaneSpec>>,
    /// The embedded viewer: no toolbar, no key hints.
    #[prop_or_default]
    pub compact: bool,
    /// A line to go to from outside (the trace comparison); a new sequence
    /// number goes there again.
    #[prop_or_default]
    pub goto: Option<(u32, u64)>,
    /// A second browser on the page (the compared trace): it neither
    /// follows nor writes the URL's `#line=`, which is the first one's.
    #[prop_or_default]
    pub detached: bool,
    /// Whether the browser takes the keyboard focus once shown (not when
    /// rehearsed hidden at load).
    #[prop_or(true)]
    pub takes_focus: bool,
    /// Lines where a compared trace diverges, sorted: their rows are marked.
    #[prop_or_default]
    pub diverged_lines: std::rc::Rc<Vec<u64>>,
}

pub enum Msg {
    Key(KeyboardEvent),
    /// The Reports panel shows another tab.
    ReportTab(ReportTab),
    /// The Reports panel asks the active view to go to a node.
    ReportJump(NodeId),
    /// ... or to a line (the EP and program-flow lists).
    ReportJumpLine(u64),
    Stepped {
        view: u32,
        reply: Reply,
    },
    Stack {
        view: u32,
        node: NodeId,
        reply: Reply,
    },
    FoldAt {
        view: u32,
        call_node: NodeId,
    },
    GoTo {
        view: u32,
        node: NodeId,
    },
    Run(Command),
    Focus(Focus),
    Viewport {
        view: u32,
        top: u64,
        px: f64,
        follow: bool,
    },
    Rows {
        view: u32,
        reply: Reply,
    },
    /// The view's row count, more of the trace being indexed.
    RowCount {
        view: u32,
        reply: Reply,
    },
    Moved {
        view: u32,
        reply: Reply,
        recentre: bool,
    },
    CursorRow {
        view: u32,
        node: NodeId,
        reply: Reply,
        recentre: bool,
    },
    PageTarget {
        view: u32,
        reply: Reply,
    },
    Folded {
        view: u32,
        reply: Reply,
    },
    Annotated {
        view: u32,
        node: NodeId,
        reply: Reply,
    },
    WriteFound {
        view: u32,
        from: NodeId,
        query: Query,
        reply: Reply,
    },
    PaneData {
        pane: u32,
        seq: u64,
        reply: Reply,
    },
    Evaluated {
        prompt: PromptFor,
        reply: Reply,
    },
    Located {
        prompt: PromptFor,
        reply: Reply,
    },
    Symbolized {
        pane: u32,
        text: String,
        reply: Reply,
    },
    ChangedSearch {
        pane: u32,
        forward: bool,
        chunks: u32,
        reply: Reply,
    },
    RowClick {
        view: u32,
        row: Row,
    },
    RowContext {
        view: u32,
        row: Row,
        x: i32,
        y: i32,
    },
    RowEffects {
        view: u32,
        row: Row,
        x: i32,
        y: i32,
        reply: Reply,
    },
    RegPick {
        pane: u32,
        index: usize,
    },
    RegContext {
        pane: u32,
        index: usize,
        x: i32,
        y: i32,
    },
    MemPick {
        pane: u32,
        addr: u64,
    },
    MemScroll {
        pane: u32,
        rows: i64,
    },
    MemContext {
        pane: u32,
        addr: u64,
        x: i32,
        y: i32,
    },
    Prompt(PromptFor),
    PromptSubmit(String),
    PromptCancel,
    MenuPick(usize),
    MenuClose,
    HelpClose,
    NewView,
    CloseView(u32),
    PaneView {
        pane: u32,
        view: u32,
    },
    PaneUnlock(u32),
    PaneLockHere(u32),
    PaneClose(u32),
    HashChanged,
    HashTried {
        target: HashTarget,
        reply: Reply,
    },
    /// The answer to the start move, which a position asked for meanwhile
    /// (a fragment, a comparison's divergence) overrides.
    Started {
        reply: Reply,
    },
    /// The rest of the browser, after the first render.
    Reveal,
    Search(search_ops::SearchMsg),
    /// Answers for the call stack, events and timeline.
    Nav(nav_ops::NavMsg),
}

pub struct Browser {
    client: TraceClient,
    views: Vec<TraceView>,
    panes: Vec<Pane>,
    focus: Focus,
    prompt: Option<PromptFor>,
    status: Option<String>,
    help: bool,
    menu: Option<Menu>,
    syntax: bool,
    symbols: bool,
    last_pc: Option<u64>,
    next_view: u32,
    next_pane: u32,
    /// The first position has been found (the trace has a first node).
    started: bool,
    /// The whole trace is indexed and has no position to show (an empty
    /// file, one without a node).
    no_position: bool,
    /// Lines indexed so far (all of them once `complete`).
    indexed_lines: u64,
    /// A go-to-line on its way: its view and the line asked for, to say
    /// where it went when that is not the line.
    goto_line: Option<(u32, u64)>,
    start_in_flight: bool,
    pending_hash: Option<HashTarget>,
    hash_in_flight: bool,
    complete: bool,
    root: NodeRef,
    refocus: bool,
    hash_listener: Option<Closure<dyn FnMut()>>,
    /// How much of the browser is rendered: the first render has the trace
    /// views alone, then the toolbar and status line, then the panes, each
    /// in a task of its own. Mounting everything at once made one UI task of
    /// over 50 ms, and the rows are what a person waits for.
    reveal: Reveal,
    /// A `Reveal` message is on its way.
    reveal_queued: bool,
    /// The worker has been told the first rows are shown.
    shown_told: bool,
    /// Memory panes asked for (`&panes=mem`), opened at the first position
    /// (their address is an expression such as `sp`).
    pending_memory: Vec<String>,
    search: search_ops::SearchState,
    /// The call stack pane and the other navigation views.
    nav: nav_ops::NavPanes,
    /// The Reports panel's tab, while it is open.
    reports: Option<ReportTab>,
    /// The panel's callbacks, made once: new ones at each render would
    /// re-render its call tree with every step of the trace view.
    report_callbacks: (Callback<ReportTab>, Callback<u64>, Callback<()>),
    /// Each view's and register pane's callbacks, made once: a callback
    /// made afresh in every render differs from the last, so every row and
    /// register cell was drawn again on every step.
    view_callbacks: RefCell<HashMap<u32, ViewCallbacks>>,
    register_callbacks: RefCell<HashMap<u32, RegisterCallbacks>>,
    /// The position's fragment, written to the URL a moment after the last
    /// move (`trace_ops::note_position`).
    fragment: Rc<RefCell<Option<String>>>,
    /// The panel's go-to-line callback, made once like those.
    report_jump_line: Callback<u64>,
    /// The node whose call the call tree is to show (`g`), numbered so
    /// the same node can be asked for again.
    report_reveal: Option<(u32, NodeId)>,
    /// See [`BrowserProps::detached`].
    detached: bool,
}

impl Component for Browser {
    type Message = Msg;
    type Properties = BrowserProps;

    fn create(ctx: &Context<Self>) -> Self {
        let link = ctx.link().clone();
        let listener = Closure::<dyn FnMut()>::new(move || link.send_message(Msg::HashChanged));
        let detached = ctx.props().detached;
        if let Some(w) = web_sys::window().filter(|_| !detached) {
            let _ =
                w.add_event_listener_with_callback("hashchange", listener.as_ref().unchecked_ref());
        }
        let mut browser = Browser {
            client: ctx.props().session.client.clone(),
            views: vec![TraceView::new(0, None)],
            panes: Vec::new(),
            focus: Focus::View(0),
            prompt: None,
            status: None,
            help: false,
            menu: None,
            reports: None,
            report_reveal: None,
            view_callbacks: Default::default(),
            register_callbacks: Default::default(),
            fragment: Default::default(),
            report_callbacks: (
                ctx.link().callback(Msg::ReportTab),
                ctx.link().callback(Msg::ReportJump),
                ctx.link().callback(|_| Msg::Run(Command::Reports)),
            ),
            report_jump_line: ctx.link().callback(Msg::ReportJumpLine),
            syntax: true,
            symbols: true,
            last_pc: None,
            next_view: 1,
            next_pane: 0,
            started: false,
            no_position: false,
            indexed_lines: ctx.props().progress.as_ref().map_or(0, |p| p.lines),
            goto_line: None,
            start_in_flight: false,
            pending_hash: match ctx.props().goto {
                Some((_, line)) => Some(HashTarget::Line(line)),
                None if detached => None,
                None => current_hash(),
            },
            hash_in_flight: false,
            complete: ctx.props().progress.as_ref().is_some_and(|p| p.complete),
            root: NodeRef::default(),
            refocus: true,
            hash_listener: Some(listener),
            reveal: Reveal::Views,
            reveal_queued: false,
            shown_told: false,
            pending_memory: Vec::new(),
            search: Default::default(),
            nav: nav_ops::NavPanes::new(!ctx.props().compact && ctx.props().panes.is_none()),
            detached,
        };
        // In case no rows come soon (an error, a trace that is all header).
        let link = ctx.link().clone();
        super::app::after_ms(REVEAL_FALLBACK_MS, move || link.send_message(Msg::Reveal));
        match &ctx.props().panes {
            None => {
                browser.add_registers(RegKind::Core, 0);
            }
            Some(panes) => {
                for pane in panes {
                    match pane {
                        PaneSpec::Registers(kind) => {
                            browser.add_registers(*kind, 0);
                        }
                        PaneSpec::Memory(expr) => browser.pending_memory.push(expr.clone()),
                    }
                }
            }
        }
        browser.fetch_rows(ctx, 0);
        browser.try_start(ctx);
        if ctx.props().goto.is_some() {
            // A trace already indexed sends no progress to try it later.
            browser.try_hash(ctx);
        }
        browser
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        self.close();
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &BrowserProps) -> bool {
        let props = ctx.props();
        if props.session != old.session {
            // A new trace: start over with a fresh state.
            self.close();
            *self = <Browser as Component>::create(ctx);
            return true;
        }
        self.complete = props.progress.as_ref().is_some_and(|p| p.complete);
        self.indexed_lines = props.progress.as_ref().map_or(0, |p| p.lines);
        let symbols_changed = props.elf != old.elf;
        if symbols_changed {
            // Symbols name branch targets and folds: the rows are asked for again.
            for id in self.view_ids() {
                self.refresh_rows(ctx, id);
            }
        } else if props.progress != old.progress {
            // More of the trace is indexed: the views may have more rows.
            for id in self.view_ids() {
                self.rows_grown(ctx, id);
            }
        }
        let was_complete = old.progress.as_ref().is_some_and(|p| p.complete);
        if symbols_changed || (props.progress != old.progress && !was_complete) {
            // The calls active at a position are known once their returns
            // are indexed (or the end is), and named once symbols come.
            for id in self.view_ids() {
                if let Some(node) = self.view_ref(id).and_then(|v| v.cursor) {
                    self.fetch_stack(ctx, id, node.node);
                }
            }
        }
        if props.progress != old.progress {
            self.nav_progress(ctx);
        }
        if let Some((_, line)) = props.goto.filter(|_| props.goto != old.goto) {
            self.pending_hash = Some(HashTarget::Line(line));
            self.try_hash(ctx);
        }
        if props.progress != old.progress || props.elf != old.elf {
            // What failed before may answer now.
            self.try_start(ctx);
            self.try_hash(ctx);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let render = self.handle(ctx, msg);
        // The questions this message raised go now, before the render: the
        // worker answers them while the page draws.
        self.client.flush();
        render
    }
    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        let rows_shown = self.views.iter().any(|v| v.rows.is_some());
        if rows_shown && !self.shown_told {
            self.shown_told = true;
            self.client.shown();
        }
        if self.reveal != Reveal::All
            && !self.reveal_queued
            && (rows_shown || self.reveal != Reveal::Views)
        {
            self.reveal_queued = true;
            // After the first rows (they are what a person waits for), in a
            // task of its own.
            let link = ctx.link().clone();
            super::app::after_ms(0, move || link.send_message(Msg::Reveal));
        }
        // Focusing forces a style and layout pass: not in the tasks that
        // show the first rows, but with the last stage of the first renders.
        if self.refocus
            && ctx.props().takes_focus
            && self.prompt.is_none()
            && self.reveal == Reveal::All
        {
            self.refocus = false;
            if let Some(el) = self.root.cast::<HtmlElement>() {
                let _ = el.focus();
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let onkeydown = link.callback(Msg::Key);
        html! {
            <div
                class="browser"
                data-testid="browser"
                tabindex="0"
                ref={self.root.clone()}
                {onkeydown}
                style={if ctx.props().compact {
                    "display:flex;flex-direction:column;gap:0.3rem;height:calc(100vh - 2.5rem);min-height:12rem;outline:none;"
                } else {
                    "display:flex;flex-direction:column;gap:0.5rem;height:calc(100vh - 9rem);min-height:24rem;outline:none;"
                }}
            >
                if ctx.props().compact {
                } else if self.reveal >= Reveal::Toolbar {
                    { self.view_toolbar(ctx) }
                } else {
                    // Holds the toolbar's place, so the views keep their height.
                    <div class="toolbar" style="min-height:1.9rem;"></div>
                }
                { self.view_search(ctx) }
                { self.view_timeline(ctx, self.reveal >= Reveal::Toolbar) }
                <div class="views" style="display:flex;gap:0.5rem;flex:1 1 55%;min-height:10rem;">
                    { for self.views.iter().map(|v| self.view_trace(ctx, v)) }
                </div>
                if let (Some(tab), Reveal::All) = (self.reports, self.reveal) {
                    <ReportsPanel
                        trace={self.client.clone()}
                        elf={ctx.props().elf}
                        {tab}
                        on_tab={self.report_callbacks.0.clone()}
                        on_jump={self.report_callbacks.1.clone()}
                        on_jump_line={self.report_jump_line.clone()}
                        on_close={self.report_callbacks.2.clone()}
                        reveal={self.report_reveal}
                    />
                }
                if self.reveal == Reveal::All && (!self.panes.is_empty() || self.nav.any()) {
                    <div class="panes" style="display:flex;flex-wrap:wrap;gap:0.5rem;align-items:flex-start;flex:0 1 auto;max-height:45%;overflow:auto;">
                        { for self.panes.iter().map(|p| self.view_pane(ctx, p)) }
                        { self.view_nav_panes(ctx) }
                    </div>
                }
                <footer class="status-line" data-testid="status-line" style="min-height:1.6rem;display:flex;align-items:center;">
                    if self.reveal == Reveal::Views {
                    } else if let Some(p) = &self.prompt {
                        <Minibuffer
                            key={p.label()}
                            label={p.label()}
                            on_submit={link.callback(Msg::PromptSubmit)}
                            on_cancel={link.callback(|_| Msg::PromptCancel)}
                        />
                    } else if let Some(s) = &self.status {
                        <span class="status-message" data-testid="status-message">{ s }</span>
                    } else if !ctx.props().compact {
                        <span class="status-hint">{ t("F1 for the keys of the focused pane; / searches; Tab moves between panes.") }</span>
                    }
                </footer>
                if self.help {
                    <HelpOverlay pane={self.focus_kind()} on_close={link.callback(|_| Msg::HelpClose)} />
                }
                if let Some(menu) = &self.menu {
                    <ContextMenu
                        x={menu.x}
                        y={menu.y}
                        items={menu.items.iter().map(|(l, _)| AttrValue::from(l.clone())).collect::<Vec<_>>()}
                        on_pick={link.callback(Msg::MenuPick)}
                        on_close={link.callback(|_| Msg::MenuClose)}
                    />
                }
            </div>
        }
    }
}

/// When the rest of the browser is rendered if the first rows are slow to come.
const REVEAL_FALLBACK_MS: i32 = 300;

/// The stages of the browser's first renders, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reveal {
    Views,
    Toolbar,
    All,
}

impl Reveal {
    fn next(self) -> Reveal {
        match self {
            Reveal::Views => Reveal::Toolbar,
            Reveal::Toolbar | Reveal::All => Reveal::All,
        }
    }
}

fn current_hash() -> Option<HashTarget> {
    let h = web_sys::window()?.location().hash().ok()?;
    hash::parse(&h)
}

impl Browser {
    fn handle(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Key(e) => return self.on_key(ctx, e),
            Msg::Search(m) => return self.on_search(ctx, m),
            Msg::ReportTab(tab) => self.reports = Some(tab),
            Msg::ReportJump(node) => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(ctx, view, Query::Locate(Locate::Node(node)), false);
            }
            Msg::ReportJumpLine(line) => {
                self.refocus = true;
                let view = self.active_view();
                self.move_to(ctx, view, Query::Locate(Locate::Line(line)), false);
            }
            Msg::Run(cmd) => {
                self.refocus = true;
                self.run(ctx, cmd);
            }
            Msg::Focus(f) => {
                if self.focus == f {
                    return false;
                }
                self.focus = f;
            }
            Msg::Viewport {
                view,
                top,
                px,
                follow,
            } => self.on_viewport(ctx, view, top, px, follow),
            Msg::Rows { view, reply } => self.on_rows(ctx, view, reply),
            Msg::RowCount { view, reply } => return self.on_row_count(ctx, view, reply),
            Msg::Moved {
                view,
                reply,
                recentre,
            } => return self.on_moved(ctx, view, reply, recentre),
            Msg::Stepped { view, reply } => return self.on_stepped(ctx, view, reply),
            Msg::Stack { view, node, reply } => return self.on_stack(view, node, reply),
            Msg::FoldAt { view, call_node } => self.fold_at(ctx, view, call_node),
            Msg::GoTo { view, node } => {
                self.refocus = true;
                self.move_to(ctx, view, Query::Locate(Locate::Node(node)), false);
            }
            Msg::CursorRow {
                view,
                node,
                reply,
                recentre,
            } => self.on_cursor_row(ctx, view, node, reply, recentre),
            Msg::PageTarget { view, reply } => self.on_page_target(ctx, view, reply),
            Msg::Folded { view, reply } => self.on_folded(ctx, view, reply),
            Msg::Annotated { view, node, reply } => self.on_annotated(view, node, reply),
            Msg::WriteFound {
                view,
                from,
                query,
                reply,
            } => self.on_write_found(ctx, view, from, query, reply),
            Msg::PaneData { pane, seq, reply } => self.on_pane_data(pane, seq, reply),
            Msg::Evaluated { prompt, reply } => self.on_evaluated(ctx, prompt, reply),
            Msg::Located { prompt, reply } => self.on_located(ctx, prompt, reply),
            Msg::Symbolized { pane, text, reply } => self.on_symbolized(pane, text, reply),
            Msg::ChangedSearch {
                pane,
                forward,
                chunks,
                reply,
            } => self.on_changed_search(ctx, pane, forward, chunks, reply),
            Msg::RowClick { view, row } => self.on_row_click(ctx, view, row),
            Msg::RowContext { view, row, x, y } => self.on_row_context(ctx, view, row, x, y),
            Msg::RowEffects {
                view,
                row,
                x,
                y,
                reply,
            } => self.on_row_effects(view, row, x, y, reply),
            Msg::RegPick { pane, index } => {
                self.focus = Focus::Pane(pane);
                if let Some(p) = self.pane_mut(pane) {
                    if let PaneBody::Registers { selected, .. } = &mut p.body {
                        *selected = index;
                    }
                }
                self.pane_previous_write(ctx, pane, None);
            }
            Msg::RegContext { pane, index, x, y } => self.on_reg_context(pane, index, x, y),
            Msg::MemPick { pane, addr } => {
                self.focus = Focus::Pane(pane);
                if let Some(p) = self.pane_mut(pane) {
                    if let PaneBody::Memory { selected, .. } = &mut p.body {
                        *selected = addr;
                    }
                }
            }
            Msg::MemScroll { pane, rows } => self.scroll_memory(ctx, pane, rows),
            Msg::MemContext { pane, addr, x, y } => self.on_mem_context(pane, addr, x, y),
            Msg::Prompt(p) => self.prompt = Some(p),
            Msg::PromptSubmit(text) => self.on_prompt_submit(ctx, text),
            Msg::PromptCancel => {
                if self.prompt.take().is_none() {
                    return false;
                }
                self.refocus = true;
            }
            Msg::MenuPick(i) => self.on_menu_pick(ctx, i),
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
                self.new_view(ctx);
            }
            Msg::CloseView(id) => self.close_view(ctx, id),
            Msg::PaneView { pane, view } => {
                if let Some(p) = self.pane_mut(pane) {
                    p.view = view;
                }
                self.refresh_pane(ctx, pane);
            }
            Msg::PaneUnlock(pane) => {
                if let Some(p) = self.pane_mut(pane) {
                    p.lock = None;
                }
                self.refresh_pane(ctx, pane);
            }
            Msg::PaneLockHere(pane) => {
                self.focus = Focus::Pane(pane);
                self.run_pane(ctx, pane, Command::ToggleLock);
            }
            Msg::PaneClose(pane) => self.close_pane(pane),
            Msg::HashChanged => {
                // What the person typed wins over a position not yet written.
                self.fragment.borrow_mut().take();
                self.pending_hash = current_hash();
                self.try_hash(ctx);
            }
            Msg::HashTried { target, reply } => self.on_hash_tried(ctx, target, reply),
            Msg::Started { reply } => return self.on_started(ctx, reply),
            Msg::Nav(m) => return self.on_nav(ctx, m),
            Msg::Reveal => {
                self.reveal_queued = false;
                if self.reveal == Reveal::All {
                    return false;
                }
                self.reveal = self.reveal.next();
            }
        }
        true
    }

    /// Done with this trace: the listener goes (a dropped closure still
    /// registered would throw), and so does the fragment, which holds this
    /// trace's position: the next trace starts at its own beginning.
    fn close(&mut self) {
        let Some(w) = web_sys::window() else { return };
        if let Some(l) = self.hash_listener.take() {
            let _ = w.remove_event_listener_with_callback("hashchange", l.as_ref().unchecked_ref());
        }
        // A position not yet written is this trace's, not the next one's.
        self.fragment.borrow_mut().take();
        if self.started && !self.detached {
            let path = w.location().pathname().unwrap_or_default()
                + &w.location().search().unwrap_or_default();
            if let Ok(history) = w.history() {
                let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&path));
            }
        }
    }

    fn view_ids(&self) -> Vec<u32> {
        self.views.iter().map(|v| v.id).collect()
    }

    fn view_mut(&mut self, id: u32) -> Option<&mut TraceView> {
        self.views.iter_mut().find(|v| v.id == id)
    }

    fn view_ref(&self, id: u32) -> Option<&TraceView> {
        self.views.iter().find(|v| v.id == id)
    }

    fn pane_mut(&mut self, id: u32) -> Option<&mut Pane> {
        self.panes.iter_mut().find(|p| p.id == id)
    }

    fn pane_ref(&self, id: u32) -> Option<&Pane> {
        self.panes.iter().find(|p| p.id == id)
    }

    /// The trace view keys act on: the focused one, or the one the focused
    /// pane follows.
    fn active_view(&self) -> u32 {
        match self.focus {
            Focus::View(v) => v,
            Focus::Pane(p) => self.pane_ref(p).map_or(0, |p| p.view),
        }
    }

    fn focus_kind(&self) -> PaneKind {
        match self.focus {
            Focus::View(_) => PaneKind::Trace,
            Focus::Pane(p) => match self.pane_ref(p).map(|p| &p.body) {
                Some(PaneBody::Memory { .. }) => PaneKind::Memory,
                _ => PaneKind::Registers,
            },
        }
    }

    fn ask(&self, ctx: &Context<Self>, query: Query, to_msg: impl FnOnce(Reply) -> Msg + 'static) {
        let link = ctx.link().clone();
        self.client
            .query(query, move |reply| link.send_message(to_msg(reply)));
    }

    fn on_key(&mut self, ctx: &Context<Self>, e: KeyboardEvent) -> bool {
        if let Some(target) = e.target() {
            let tag = target
                .dyn_ref::<web_sys::Element>()
                .map(|el| el.tag_name())
                .unwrap_or_default();
            // Typing into a form field (the pane selector, the ELF offset)
            // is not a browser command.
            if matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
                return false;
            }
        }
        if self.help {
            e.prevent_default();
            self.help = false;
            return true;
        }
        if self.menu.is_some() {
            if e.key() == "Escape" {
                self.menu = None;
                return true;
            }
            return false;
        }
        if e.alt_key() || e.meta_key() {
            return false;
        }
        // The search bar's × says Esc: it closes from the panes too.
        if e.key() == "Escape" && self.search.open {
            e.prevent_default();
            return self.on_search(ctx, search_ops::SearchMsg::Close);
        }
        let name = keys::key_name(&e.key(), e.ctrl_key(), e.shift_key());
        let Some(cmd) = keys::command(self.focus_kind(), &name) else {
            return false;
        };
        e.prevent_default();
        // A step shows nothing until the worker's answer: rendering the
        // whole browser for its key press as well (a millisecond and more)
        // held up the answer's render behind it.
        let unseen = matches!(cmd, Command::StepDown | Command::StepUp) && self.status.is_none();
        self.status = None;
        self.run(ctx, cmd);
        !unseen
    }

    fn run(&mut self, ctx: &Context<Self>, cmd: Command) {
        match cmd {
            Command::NextPane | Command::PrevPane => self.cycle_focus(cmd == Command::NextPane),
            Command::Help => self.help = true,
            Command::ToggleRegisters(kind) => self.toggle_registers(ctx, kind),
            Command::ToggleSyntax => self.syntax = !self.syntax,
            Command::ToggleSymbols => self.symbols = !self.symbols,
            Command::Search { forward } => {
                self.on_search(ctx, search_ops::SearchMsg::Open { forward });
            }
            Command::SearchNext { same_way } => {
                self.on_search(ctx, search_ops::SearchMsg::Next { same_way });
            }
            Command::ToggleStack
            | Command::ToggleEvents
            | Command::ToggleTimeline
            | Command::NextEvent { .. } => {
                self.run_nav(ctx, cmd);
            }
            Command::Reports => {
                self.reports = match self.reports {
                    Some(_) => None,
                    None => Some(ReportTab::CallTree),
                }
            }
            Command::FlameGraph => self.reports = Some(ReportTab::FlameGraph),
            Command::RevealCall => {
                let view = self.active_view();
                if let Some(c) = self.view_ref(view).and_then(|v| v.cursor) {
                    let seq = self.report_reveal.map_or(0, |(s, _)| s.wrapping_add(1));
                    self.report_reveal = Some((seq, c.node));
                    self.reports = Some(ReportTab::CallTree);
                }
            }
            _ => match self.focus {
                Focus::View(v) => self.run_trace(ctx, v, cmd),
                Focus::Pane(p) => self.run_pane(ctx, p, cmd),
            },
        }
    }

    fn cycle_focus(&mut self, forward: bool) {
        let mut order: Vec<Focus> = self.views.iter().map(|v| Focus::View(v.id)).collect();
        order.extend(self.panes.iter().map(|p| Focus::Pane(p.id)));
        let at = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let n = order.len();
        self.focus = order[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }

    fn view_toolbar(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let run = |cmd: Command| link.callback(move |_: MouseEvent| Msg::Run(cmd));
        let view = self.active_view();
        let prompt = |p: PromptFor| link.callback(move |_: MouseEvent| Msg::Prompt(p.clone()));
        let shown = |kind: RegKind| {
            self.panes
                .iter()
                .any(|p| matches!(p.body, PaneBody::Registers { kind: k, .. } if k == kind))
        };
        html! {
            <div class="toolbar" data-testid="toolbar" style="display:flex;flex-wrap:wrap;gap:0.3rem;align-items:center;">
                <button data-testid="new-view" onclick={link.callback(|_| Msg::NewView)}>{ t("New view") }</button>
                <button onclick={prompt(PromptFor::GotoLine { view })} title="l">{ t("Line…") }</button>
                <button onclick={prompt(PromptFor::GotoTime { view })} title="t">{ t("Time…") }</button>
                <button onclick={prompt(PromptFor::FindPc { view, forward: true })} title="p">{ t("Next PC…") }</button>
                <button onclick={prompt(PromptFor::FindPc { view, forward: false })} title="P">{ t("Prev PC…") }</button>
                <button data-testid="open-memory" onclick={prompt(PromptFor::OpenMemory { view })} title="m">{ t("Memory…") }</button>
                <button data-testid="open-search" onclick={link.callback(|_: MouseEvent| Msg::Search(search_ops::SearchMsg::Open { forward: true }))} title="/">{ t("Search…") }</button>
                <button onclick={run(Command::Fold(FoldOp::FoldAll))} title="{">{ t("Fold all") }</button>
                <button onclick={run(Command::Fold(FoldOp::UnfoldAll))} title="}">{ t("Unfold all") }</button>
                <span style="margin-left:0.5rem;">{ t("Registers:") }</span>
                { for RegKind::ALL.iter().map(|&kind| html! {
                    <button
                        class={classes!("toggle", shown(kind).then_some("on"))}
                        aria-pressed={shown(kind).to_string()}
                        data-testid={format!("toggle-{}", kind.panel())}
                        title={t(kind.title())}
                        onclick={run(Command::ToggleRegisters(kind))}
                    >{ kind.panel() }</button>
                }) }
                <button class={classes!("toggle", self.syntax.then_some("on"))} aria-pressed={self.syntax.to_string()} onclick={run(Command::ToggleSyntax)} title="F6">{ t("Colours") }</button>
                <button class={classes!("toggle", self.symbols.then_some("on"))} aria-pressed={self.symbols.to_string()} onclick={run(Command::ToggleSymbols)} title="F7">{ t("Symbols") }</button>
                <button class={classes!("toggle", self.reports.is_some().then_some("on"))} aria-pressed={self.reports.is_some().to_string()} data-testid="open-reports" onclick={run(Command::Reports)} title="R">{ t("Reports") }</button>
                <button onclick={run(Command::Help)} title="F1">{ t("Keys") }</button>
            </div>
        }
    }

    fn view_trace(&self, ctx: &Context<Self>, v: &TraceView) -> Html {
        let link = ctx.link();
        let id = v.id;
        let cbs = made_once(&self.view_callbacks, id, || ViewCallbacks::new(link, id));
        let focused = self.focus == Focus::View(id);
        let position = match v.cursor {
            Some(NodeView {
                first_line,
                time,
                instruction: Some(n),
                ..
            }) => tf(
                "line {} · time {} · instruction {}",
                &[&number(first_line), &time, &number(n)],
            ),
            Some(c) => tf("line {} · time {}", &[&number(c.first_line), &c.time]),
            None if self.no_position => {
                t("nothing to show: the trace has no instruction").to_string()
            }
            None => t("no position yet").to_string(),
        };
        html! {
            <section
                class={classes!("view", focused.then_some("focused"))}
                data-testid="view"
                data-view={id.to_string()}
                role="region"
                aria-label={tf("View #{}", &[&(id + 1)])}
                key={id}
                style="flex:1 1 0;min-width:0;display:flex;flex-direction:column;"
            >
                <header class="view-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;">
                    <strong>{ tf("View #{}", &[&(id + 1)]) }</strong>
                    <span class="view-position" data-testid="view-position">{ position }</span>
                    <nav class="call-stack" data-testid="call-stack" aria-label={t("Calls active here")} style="flex:1;display:flex;gap:0.2rem;flex-wrap:wrap;overflow:hidden;">
                        { for v.stack.iter().map(|frame| {
                            let call_node = frame.call_node;
                            let name = if frame.name.is_empty() { format!("{:#x}", frame.function) } else { frame.name.clone() };
                            html! {
                                <button
                                    class="frame"
                                    title={t("Go to the call")}
                                    onclick={link.callback(move |_| Msg::GoTo { view: id, node: call_node })}
                                >{ format!("› {name}") }</button>
                            }
                        }) }
                    </nav>
                    if self.views.len() > 1 {
                        <button title={t("Close this view")} onclick={link.callback(move |_| Msg::CloseView(id))}>{ "×" }</button>
                    }
                </header>
                <div style="flex:1;min-height:0;">
                    <TracePane
                        view={id}
                        focused={focused}
                        rows={v.rows.clone()}
                        total_rows={v.total_rows}
                        top={v.top}
                        scroll_seq={v.scroll_seq}
                        cursor={v.cursor}
                        annotated_line={v.annotated().map(|a| a.line)}
                        search_match={self.search.current_match()}
                        syntax={self.syntax}
                        symbols={self.symbols}
                        on_viewport={cbs.on_viewport}
                        on_click={cbs.on_click}
                        on_context={cbs.on_context}
                        on_focus={cbs.on_focus}
                        call_nodes={v.stack.iter().map(|f| f.call_node).collect::<Vec<_>>()}
                        on_fold={cbs.on_fold}
                        diverged_lines={ctx.props().diverged_lines.clone()}
                    />
                </div>
            </section>
        }
    }

    fn view_pane(&self, ctx: &Context<Self>, p: &Pane) -> Html {
        let link = ctx.link();
        let id = p.id;
        let focused = self.focus == Focus::Pane(id);
        let body = match &p.body {
            PaneBody::Registers {
                kind,
                panel,
                answered,
                selected,
                ..
            } => {
                if !answered && self.no_position {
                    html! { <p class="pane-empty" data-testid="registers-empty" style="margin:0.25rem 0.5rem;">{ t("No registers: the trace has no instruction.") }</p> }
                } else if !answered {
                    html! { <p class="pane-empty" style="margin:0.25rem 0.5rem;">{ t("Reading registers…") }</p> }
                } else {
                    let cbs = made_once(&self.register_callbacks, id, || {
                        RegisterCallbacks::new(link, id)
                    });
                    html! {
                        <RegisterPane
                            kind={*kind}
                            panel={panel.clone()}
                            selected={*selected}
                            note={p.note.clone()}
                            on_pick={cbs.on_pick}
                            on_context={cbs.on_context}
                        />
                    }
                }
            }
            PaneBody::Memory {
                selected, memory, ..
            } => html! {
                <MemoryPane
                    memory={memory.clone()}
                    selected={*selected}
                    note={p.note.clone()}
                    on_pick={link.callback(move |addr| Msg::MemPick { pane: id, addr })}
                    on_context={link.callback(move |(addr, x, y)| Msg::MemContext { pane: id, addr, x, y })}
                    on_scroll={link.callback(move |rows| Msg::MemScroll { pane: id, rows })}
                />
            },
        };
        html! {
            <section
                class={classes!("pane", "data-pane", focused.then_some("focused"))}
                data-testid={p.testid()}
                data-pane={id.to_string()}
                key={id}
                role="region"
                aria-label={p.title()}
                onmousedown={link.callback(move |_: MouseEvent| Msg::Focus(Focus::Pane(id)))}
                style="flex:0 1 auto;min-width:16rem;"
            >
                <PaneHeader
                    title={p.title()}
                    title_testid={format!("{}-pane-title", if matches!(p.body, PaneBody::Memory { .. }) { "memory" } else { "registers" })}
                    view={p.view}
                    views={self.view_ids()}
                    lock={p.lock}
                    on_view={link.callback(move |view| Msg::PaneView { pane: id, view })}
                    on_unlock={link.callback(move |_| Msg::PaneUnlock(id))}
                    on_lock={link.callback(move |_| Msg::PaneLockHere(id))}
                    on_close={link.callback(move |_| Msg::PaneClose(id))}
                />
                { body }
            </section>
        }
    }
}

/// The callbacks made for `id` the first time they were asked for.
fn made_once<C: Clone>(cache: &RefCell<HashMap<u32, C>>, id: u32, make: impl FnOnce() -> C) -> C {
    cache.borrow_mut().entry(id).or_insert_with(make).clone()
}

/// A trace view's callbacks to its pane and rows.
#[derive(Clone)]
struct ViewCallbacks {
    on_viewport: Callback<(u64, f64, bool)>,
    on_click: Callback<Row>,
    on_context: Callback<(Row, i32, i32)>,
    on_focus: Callback<()>,
    on_fold: Callback<NodeId>,
}

impl ViewCallbacks {
    fn new(link: &html::Scope<Browser>, view: u32) -> Self {
        ViewCallbacks {
            on_viewport: link.callback(move |(top, px, follow)| Msg::Viewport {
                view,
                top,
                px,
                follow,
            }),
            on_click: link.callback(move |row| Msg::RowClick { view, row }),
            on_context: link.callback(move |(row, x, y)| Msg::RowContext { view, row, x, y }),
            on_focus: link.callback(move |_| Msg::Focus(Focus::View(view))),
            on_fold: link.callback(move |call_node| Msg::FoldAt { view, call_node }),
        }
    }
}

/// A register pane's callbacks.
#[derive(Clone)]
struct RegisterCallbacks {
    on_pick: Callback<usize>,
    on_context: Callback<(usize, i32, i32)>,
}

impl RegisterCallbacks {
    fn new(link: &html::Scope<Browser>, pane: u32) -> Self {
        RegisterCallbacks {
            on_pick: link.callback(move |index| Msg::RegPick { pane, index }),
            on_context: link.callback(move |(index, x, y)| Msg::RegContext { pane, index, x, y }),
        }
    }
}
