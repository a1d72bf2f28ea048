//! The trace browser's Yew component: it renders the browser's model
//! (`crate::model`: views, panes, prompt, search, navigation), turns DOM
//! events into the model's messages, carries the model's questions to the
//! worker and their answers back, and does what the model asks of the page
//! (the URL's fragment, the embedding host). The first renders are staged
//! (rows, then toolbar, then panes) so the first rows come soonest.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

mod bookmarks;
mod toolbar;
mod workspace;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};
use yew::prelude::*;

pub use crate::model::{Focus, TraceView};

use super::{
    ConditionError, ConditionProgress, ContextMenu, ElfLoad, HelpOverlay, Minibuffer, Palette,
    SearchBar, TimelineStrip, TracePane, TIMELINE_STYLE,
};
use crate::i18n::{number, t, tf};
use crate::model::condition::{CondMsg, Invalid};
use crate::model::keys::Command;
use crate::model::palette::PaletteMsg;
use crate::model::search::SearchMsg;
use crate::model::{BookmarkMsg, Config, Effect, KeyInput, Model, Msg, ViewMsg};
use crate::web::page::client::TraceClient;
use crate::web::page::i18n::Lang;
use crate::web::page::local_store;
use crate::web::page::page_params::PaneSpec;
use tarmac_lens_core::protocol::{NodeId, NodeView, Progress, Row};

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
    /// Why the ELF image given was refused, if it was.
    #[prop_or_default]
    pub elf_error: Option<String>,
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

/// The component's messages: the model's, and the DOM's that the model
/// reads in its own terms.
pub enum BrowserMsg {
    Model(Msg),
    Key(KeyboardEvent),
    /// The URL's fragment changed.
    HashChanged,
    /// The rest of the browser, after the first render.
    Reveal,
}

impl From<Msg> for BrowserMsg {
    fn from(m: Msg) -> Self {
        BrowserMsg::Model(m)
    }
}

pub struct Browser {
    model: Model,
    /// Source files fetched from `&src=`.
    source_fetch: crate::web::page::source_fetch::SourceFetch,
    client: TraceClient,
    root: NodeRef,
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
    /// What a pane in its own folder sends the page, made once: its
    /// render can derive callbacks that stay the same from render to
    /// render (new ones re-rendered the Reports panel's call tree at every
    /// step of the trace view).
    pane_send: Callback<Msg>,
    /// Each view's callbacks, made once: a callback made afresh in every
    /// render differs from the last, so every row was drawn again on every
    /// step.
    view_callbacks: RefCell<HashMap<u32, ViewCallbacks>>,
    /// The position's fragment, written to the URL a moment after the last
    /// move, and the moves made: a write waits for the moves to stop.
    fragment: Rc<RefCell<Option<String>>>,
    fragment_moves: Rc<std::cell::Cell<u32>>,
    /// Where this trace's bookmarks are kept (`page::bookmark_store`);
    /// none for a detached browser (the rehearsal, a compared trace).
    bookmark_key: Option<String>,
}

/// Where the layout is kept (`model::layout`).
const LAYOUT_KEY: &str = "tarmac-lens.layout";

/// How long after the last move the position is written to the URL: a
/// write (`replaceState`) takes 2-5 ms, which written a few times a second
/// fell into one step in twenty of a held key; it waits for the moves to stop.
const FRAGMENT_DELAY_MS: i32 = 250;

/// The URL's fragment, without its `#`.
fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.trim_start_matches('#').to_string())
        .unwrap_or_default()
}

/// Records the position in the URL without adding a history entry per move.
fn replace_hash(fragment: &str) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(fragment));
    }
}

impl Component for Browser {
    type Message = BrowserMsg;
    type Properties = BrowserProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let link = ctx.link().clone();
        let listener =
            Closure::<dyn FnMut()>::new(move || link.send_message(BrowserMsg::HashChanged));
        let detached = props.detached;
        if let Some(w) = web_sys::window().filter(|_| !detached) {
            let _ =
                w.add_event_listener_with_callback("hashchange", listener.as_ref().unchecked_ref());
        }
        let model = Model::new(Config {
            panes: props.panes.clone(),
            compact: props.compact,
            detached,
            goto_line: props.goto.map(|(_, line)| line),
            // Where the embedding host's `open` said to start, else the URL's.
            fragment: if detached {
                String::new()
            } else {
                crate::web::page::embed::take_start().unwrap_or_else(current_fragment)
            },
            progress: props.progress.clone(),
            layout: if props.compact {
                String::new()
            } else {
                local_store::get(LAYOUT_KEY).unwrap_or_default()
            },
        });
        let mut browser = Browser {
            model,
            source_fetch: crate::web::page::source_fetch::SourceFetch::from_page(),
            client: props.session.client.clone(),
            root: NodeRef::default(),
            hash_listener: Some(listener),
            reveal: Reveal::Views,
            reveal_queued: false,
            shown_told: false,
            view_callbacks: Default::default(),
            fragment: Default::default(),
            fragment_moves: Default::default(),
            pane_send: ctx.link().callback(|m| m),
            bookmark_key: None,
        };
        browser.load_bookmarks();
        // In case no rows come soon (an error, a trace that is all header).
        let link = ctx.link().clone();
        crate::web::shared::timing::after_ms(REVEAL_FALLBACK_MS, move || {
            link.send_message(BrowserMsg::Reveal)
        });
        browser.carry_out(ctx);
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
        let elf = props.elf != old.elf;
        if elf || props.progress != old.progress {
            self.model.on_progress(props.progress.as_ref(), elf);
        }
        if let Some((_, line)) = props.goto.filter(|_| props.goto != old.goto) {
            self.model.goto_line_from_outside(line);
        }
        self.carry_out(ctx);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: BrowserMsg) -> bool {
        let render = match msg {
            BrowserMsg::Model(m) => self.model.update(m),
            BrowserMsg::Key(e) => {
                let in_form_field = e
                    .target()
                    .and_then(|t| t.dyn_ref::<web_sys::Element>().map(|el| el.tag_name()))
                    .is_some_and(|tag| matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
                let outcome = self.model.key(&KeyInput {
                    key: e.key(),
                    ctrl: e.ctrl_key(),
                    shift: e.shift_key(),
                    alt: e.alt_key(),
                    meta: e.meta_key(),
                    in_form_field,
                });
                if outcome.handled {
                    e.prevent_default();
                }
                outcome.render
            }
            BrowserMsg::HashChanged => self.model.update(Msg::HashChanged(current_fragment())),
            BrowserMsg::Reveal => {
                self.reveal_queued = false;
                if self.reveal == Reveal::All {
                    false
                } else {
                    self.reveal = self.reveal.next();
                    true
                }
            }
        };
        self.carry_out(ctx);
        render
    }
    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        if self.reveal == Reveal::All {
            if let Some(shown) = self.model.into_view.take() {
                self.scroll_into_area(shown);
            }
        }
        let rows_shown = self.model.views.iter().any(|v| v.rows.is_some());
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
            crate::web::shared::timing::after_ms(0, move || link.send_message(BrowserMsg::Reveal));
        }
        // Focusing forces a style and layout pass: not in the tasks that
        // show the first rows, but with the last stage of the first renders.
        // Not from the help or the palette either, which hold the focus
        // while open (the keys that scroll the help; the palette closes
        // when its field loses it): closing them asks for it again.
        if self.model.refocus
            && ctx.props().takes_focus
            && self.model.prompt.is_none()
            && !self.model.help
            && self.model.palette.is_none()
            && self.reveal == Reveal::All
        {
            self.model.refocus = false;
            if let Some(el) = self.root.cast::<HtmlElement>() {
                let _ = el.focus();
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let onkeydown = link.callback(BrowserMsg::Key);
        html! {
            <div
                class="browser"
                data-testid="browser"
                tabindex="0"
                ref={self.root.clone()}
                {onkeydown}
                // Its parent gives it the height: the page's or the
                // embedded viewer's rest, never more than the window.
                style={if ctx.props().compact {
                    "display:flex;flex-direction:column;gap:0.3rem;flex:1 1 auto;height:100%;min-height:12rem;outline:none;"
                } else {
                    "display:flex;flex-direction:column;gap:0.3rem;flex:1 1 auto;height:100%;min-height:0;outline:none;"
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
                { self.view_workspace(ctx) }
                <footer class="status-line" data-testid="status-line" style="min-height:1.6rem;display:flex;align-items:center;">
                    if self.reveal == Reveal::Views {
                    } else if let Some(p) = &self.model.prompt {
                        <Minibuffer
                            key={p.label()}
                            label={p.label()}
                            history={self.model.prompt_history().to_vec()}
                            on_submit={link.callback(Msg::PromptSubmit)}
                            on_cancel={link.callback(|_| Msg::PromptCancel)}
                        />
                    } else if let Some(r) = &self.model.condition.running {
                        <ConditionProgress
                            text={r.text.clone()}
                            fraction={r.fraction(self.model.indexed_nodes)}
                            on_stop={link.callback(|_| Msg::Condition(CondMsg::Stop))}
                        />
                    } else if let Some(e) = &self.model.condition.invalid {
                        { condition_error(e) }
                    } else if let Some(s) = &self.model.status {
                        <span class="status-message" data-testid="status-message">{ s }</span>
                    } else if !ctx.props().compact {
                        <span class="status-hint">{ t("F1 for the keys of the focused pane; / searches; Tab moves between panes.") }</span>
                    }
                </footer>
                if let Some(p) = &self.model.palette {
                    <Palette
                        text={p.text.clone()}
                        entries={self.model.palette_entries()}
                        selected={p.selected}
                        on_text={link.callback(|s| Msg::Palette(PaletteMsg::Text(s)))}
                        on_move={link.callback(|by| Msg::Palette(PaletteMsg::Move(by)))}
                        on_run={link.callback(|_| Msg::Palette(PaletteMsg::Run))}
                        on_pick={link.callback(|i| Msg::Palette(PaletteMsg::Pick(i)))}
                        on_close={link.callback(|_| Msg::Palette(PaletteMsg::Close))}
                    />
                }
                if self.model.help {
                    <HelpOverlay pane={self.model.focus_kind()} on_close={link.callback(|_| Msg::HelpClose)} />
                }
                if let Some(menu) = &self.model.menu {
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

/// Puts `text` on the clipboard; where the page may not (an insecure
/// context), the status line still shows it to copy by hand.
fn copy_text(text: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(text);
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

impl Browser {
    /// Sends the model's questions to the worker (in one message, before
    /// the render: the worker answers them while the page draws) and does
    /// what it asked of the page.
    fn carry_out(&mut self, ctx: &Context<Self>) {
        for ask in self.model.take_asks() {
            match ask.then {
                Some(then) => {
                    let link = ctx.link().clone();
                    self.client
                        .query(ask.query, move |reply| link.send_message(then(reply)));
                }
                None => self.client.query(ask.query, |_| {}),
            }
        }
        self.client.flush();
        if self.source_fetch.active() {
            let fetched =
                ctx.link()
                    .callback(|f: crate::web::page::source_fetch::Fetched| match f {
                        Ok(file) => Msg::SourceFiles(vec![file]),
                        Err(why) => Msg::SourceMissing(why),
                    });
            self.source_fetch
                .want(self.model.wanted_sources(), &fetched);
        }
        for effect in self.model.take_effects() {
            match effect {
                Effect::Fragment(fragment) => {
                    self.fragment.borrow_mut().replace(fragment);
                    let moves = self.fragment_moves.clone();
                    moves.set(moves.get().wrapping_add(1));
                    let mine = moves.get();
                    let pending = self.fragment.clone();
                    // A hash set meanwhile by someone else (an embedding
                    // host's goto, the person) wins: its hashchange may not
                    // have been handled yet, and writing over it would send
                    // the browser back where it was.
                    let before = current_fragment();
                    crate::web::shared::timing::after_ms(FRAGMENT_DELAY_MS, move || {
                        if moves.get() != mine {
                            return;
                        }
                        let fragment = pending.borrow_mut().take();
                        if let Some(fragment) = fragment.filter(|_| current_fragment() == before) {
                            replace_hash(&fragment);
                        }
                    });
                }
                Effect::ForgetFragment => {
                    self.fragment.borrow_mut().take();
                }
                Effect::Position { view, node, asked } => {
                    crate::web::page::embed::position_changed(view, &node, asked)
                }
                Effect::GotoFailed(message) => crate::web::page::embed::goto_failed(&message),
                // The embedded viewer's layout is its page's (`&panes=`),
                // not the person's own.
                Effect::SaveLayout(text) if !ctx.props().compact => {
                    let _ = local_store::set(LAYOUT_KEY, Some(&text));
                }
                Effect::SaveLayout(_) => {}
                Effect::Bookmarks => self.save_bookmarks(),
                Effect::Copy(text) => copy_text(&text),
            }
        }
        // Callbacks of closed views.
        let views = self.model.view_ids();
        self.view_callbacks
            .borrow_mut()
            .retain(|id, _| views.contains(id));
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
        if self.model.started && !self.model.detached {
            let path = w.location().pathname().unwrap_or_default()
                + &w.location().search().unwrap_or_default();
            if let Ok(history) = w.history() {
                let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&path));
            }
        }
    }

    fn view_search(&self, ctx: &Context<Self>) -> Html {
        let s = &self.model.search;
        if !s.open {
            return html! {};
        }
        let link = ctx.link();
        html! {
            <SearchBar
                form={s.form.clone()}
                forward={s.forward}
                status={s.status.clone()}
                hits={s.hits.clone()}
                current={s.current}
                focus_seq={s.focus_seq}
                generation={s.generation}
                on_submit={link.callback(|f| Msg::Search(SearchMsg::Submit(f)))}
                on_close={link.callback(|_| Msg::Search(SearchMsg::Close))}
                on_pick={link.callback(|i| Msg::Search(SearchMsg::Pick(i)))}
            />
        }
    }

    /// The timeline strip, over the trace views; before the first rows are
    /// shown (`ready` false) only its place, so the views keep their height
    /// (a view shrinking under its position would hide it).
    fn view_timeline(&self, ctx: &Context<Self>, ready: bool) -> Html {
        if !self.model.nav.timeline {
            return html! {};
        }
        if !ready {
            return html! { <div class="timeline" style={TIMELINE_STYLE}></div> };
        }
        let link = ctx.link();
        let view = self.model.active_view();
        let v = self.model.view_ref(view);
        let visible = v.and_then(|v| v.rows.as_ref()).and_then(|r| {
            let node = |row: &Row| match row {
                Row::Line { node, .. } => *node,
                Row::Fold { call_node, .. } => *call_node,
            };
            Some((node(r.rows.first()?), node(r.rows.last()?)))
        });
        html! {
            <TimelineStrip
                data={self.model.nav.timeline_data.clone()}
                {visible}
                cursor={v.and_then(|v| v.cursor).map(|c| c.node)}
                on_seek={link.callback(move |node| Msg::View(view, ViewMsg::GoTo { node }))}
                on_close={link.callback(|_| Msg::Run(Command::ToggleTimeline))}
            />
        }
    }
    fn view_trace(&self, ctx: &Context<Self>, v: &TraceView) -> Html {
        let link = ctx.link();
        let id = v.id;
        let cbs = made_once(&self.view_callbacks, id, || ViewCallbacks::new(link, id));
        let focused = self.model.focus == Focus::View(id);
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
            None if self.model.no_position => {
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
                // Never taller than its area: the rows scroll inside.
                style="flex:1 1 0;min-width:0;min-height:0;overflow:hidden;display:flex;flex-direction:column;"
            >
                // One line whatever the view's width: the calls cut at their
                // outer end, so the innermost stay in sight.
                <header class="view-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;white-space:nowrap;min-width:0;">
                    <strong>{ tf("View #{}", &[&(id + 1)]) }</strong>
                    <span class="view-position" data-testid="view-position" style="overflow:hidden;text-overflow:ellipsis;flex:0 1 auto;min-width:4rem;">{ position }</span>
                    // Right-to-left, so the line ends at the start: what does
                    // not fit is cut there, marked by an ellipsis, and the
                    // calls inside stay read in order (left to right).
                    <nav class="call-stack" data-testid="call-stack" aria-label={t("Calls active here")} style="flex:1 1 0;min-width:0;direction:rtl;text-align:start;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;">
                        <span style="direction:ltr;unicode-bidi:isolate;">
                        { for v.stack.iter().map(|frame| {
                            let call_node = frame.call_node;
                            let name = if frame.name.is_empty() { format!("{:#x}", frame.function) } else { frame.name.clone() };
                            html! {
                                <button
                                    class="frame"
                                    style="margin-left:0.2rem;"
                                    title={t("Go to the call")}
                                    onclick={link.callback(move |_| Msg::View(id, ViewMsg::GoTo { node: call_node }))}
                                >{ format!("› {name}") }</button>
                            }
                        }) }
                        </span>
                    </nav>
                    if self.model.views.len() > 1 {
                        <button title={t("Close this view")} onclick={link.callback(move |_| Msg::View(id, ViewMsg::Close))}>{ "×" }</button>
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
                        search_match={self.model.search.current_match()}
                        syntax={self.model.syntax}
                        symbols={self.model.symbols}
                        source_column={self.model.source_column}
                        function_column={self.model.function_column}
                        on_viewport={cbs.on_viewport}
                        on_resize={cbs.on_resize}
                        on_click={cbs.on_click}
                        on_context={cbs.on_context}
                        on_focus={cbs.on_focus}
                        call_nodes={v.stack.iter().map(|f| f.call_node).collect::<Vec<_>>()}
                        on_fold={cbs.on_fold}
                        diverged_lines={ctx.props().diverged_lines.clone()}
                        bookmarked_lines={Rc::new(self.model.bookmarks.list.iter().map(|b| b.line).collect::<Vec<_>>())}
                        on_bookmark={Some(cbs.on_bookmark)}
                    />
                </div>
            </section>
        }
    }
}

fn made_once<C: Clone>(cache: &RefCell<HashMap<u32, C>>, id: u32, make: impl FnOnce() -> C) -> C {
    cache.borrow_mut().entry(id).or_insert_with(make).clone()
}

/// A trace view's callbacks to its pane and rows.
#[derive(Clone)]
struct ViewCallbacks {
    on_viewport: Callback<(u64, f64, bool)>,
    on_resize: Callback<f64>,
    on_click: Callback<Row>,
    on_context: Callback<(Row, i32, i32)>,
    on_focus: Callback<()>,
    on_fold: Callback<NodeId>,
    on_bookmark: Callback<u64>,
}

impl ViewCallbacks {
    fn new(link: &html::Scope<Browser>, view: u32) -> Self {
        ViewCallbacks {
            on_viewport: link.callback(move |(top, px, follow)| {
                Msg::View(view, ViewMsg::Viewport { top, px, follow })
            }),
            on_resize: link.callback(move |px| Msg::View(view, ViewMsg::Resized { px })),
            on_click: link.callback(move |row| Msg::View(view, ViewMsg::RowClick { row })),
            on_context: link
                .callback(move |(row, x, y)| Msg::View(view, ViewMsg::RowContext { row, x, y })),
            on_focus: link.callback(move |_| Msg::Focus(Focus::View(view))),
            on_fold: link.callback(move |call_node| Msg::View(view, ViewMsg::FoldAt { call_node })),
            on_bookmark: link.callback(|line| Msg::Bookmark(BookmarkMsg::Toggle { line })),
        }
    }
}

/// A condition that is not one, its column marked.
fn condition_error(e: &Invalid) -> Html {
    let (before, at, after) = e.parts();
    html! {
        <ConditionError
            before={AttrValue::from(before.to_string())}
            at={AttrValue::from(at.to_string())}
            after={AttrValue::from(after.to_string())}
            column={e.column}
            message={AttrValue::from(e.message.clone())}
        />
    }
}
