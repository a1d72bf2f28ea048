//! The Query pane's render and its engine's messages: the tables list,
//! the editor (Ctrl-Enter runs, Alt-Up/Alt-Down step through the history,
//! Escape stops), the status, the error under the query at its position,
//! and the result as a window of rows over the pages fetched.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::model::{
    columns_of, rows_of, tables_of, History, Link, QueryState, ResultSet, Run, TableInfo, Window,
    PAGE_ROWS,
};
use crate::model::pane_state::PaneAction;
use crate::panes::render::PaneContext;
use crate::web::page::client::{TraceClient, WeakTraceClient};
use crate::web::page::i18n::{number, t, tf, LangWatch};
use crate::web::page::local_store;
use crate::web::page::sql_client::{keep, take_kept, SqlClient, SqlEvent};
use tarmac_lens_core::{IndexBytes, protocol::Question};

/// Where the history is kept between pages.
const HISTORY_KEY: &str = "tarmac-lens.sql-history";
/// A result row's height, in pixels (the window's arithmetic needs one).
const ROW_PX: f64 = 20.0;

/// The pane's render: the workspace's hook (`panes::render::view`).
pub fn view(cx: &PaneContext) -> Option<Html> {
    Some(html! {
        <QueryPane
            trace={cx.trace.clone()}
            elf={cx.elf}
            complete={cx.model.complete}
            on_action={cx.on_action()}
            tools={cx.tools.clone()}
        />
    })
}

#[derive(Properties, PartialEq)]
pub struct QueryPaneProps {
    pub trace: TraceClient,
    pub elf: Option<crate::web::components::ElfLoad>,
    /// The trace is indexed to its end (the engine needs the whole index).
    pub complete: bool,
    pub on_action: Callback<PaneAction>,
    #[prop_or_default]
    pub tools: Html,
}

/// The engine, as far as it got.
enum Engine {
    None,
    /// The session's index asked for.
    Asking,
    Starting(SqlClient),
    Ready(SqlClient),
}

impl Engine {
    fn client(&self) -> Option<&SqlClient> {
        match self {
            Engine::Starting(c) | Engine::Ready(c) => Some(c),
            _ => None,
        }
    }
}

/// Where the engine's messages go: the pane showing now (a pane moved to
/// the other area is made again), or a queue until it shows.
#[derive(Default)]
struct Listener {
    to: Option<Callback<(u32, SqlEvent)>>,
    queued: Vec<(u32, SqlEvent)>,
}

type Shared = Rc<RefCell<Listener>>;

/// What outlives the component while the pane is closed or moved.
struct Kept {
    trace: WeakTraceClient,
    elf: Option<crate::web::components::ElfLoad>,
    state: QueryState,
    engine: Engine,
    generation: u32,
    index: Option<Uint8Array>,
    listener: Shared,
}

pub enum Msg {
    Lang,
    Input(String),
    Run,
    Stop,
    Older,
    Newer,
    Pick(String),
    Index(u32, Result<Uint8Array, String>),
    Engine(u32, SqlEvent),
    Scroll,
    Insert(String),
}

pub struct QueryPane {
    state: QueryState,
    engine: Engine,
    /// Bumped per engine started: an older one's messages are dropped.
    generation: u32,
    /// The session's index, once asked (kept for a restarted engine).
    index: Option<Uint8Array>,
    listener: Shared,
    editor: NodeRef,
    list: NodeRef,
    window: Window,
    /// Put the editor's caret at the error's position after drawing it.
    place_caret: bool,
    _lang: LangWatch,
}

impl QueryPane {
    fn start_engine(&mut self, ctx: &Context<Self>) {
        if !matches!(self.engine, Engine::None) || !ctx.props().complete || !SqlClient::available()
        {
            return;
        }
        self.generation += 1;
        let generation = self.generation;
        match self.index.clone() {
            Some(index) => self.open_engine(ctx, index),
            None => {
                self.engine = Engine::Asking;
                let link = ctx.link().clone();
                ctx.props().trace.query(IndexBytes {}.into(), move |reply| {
                    let bytes =
                        IndexBytes::answer_of(reply).map(|e| Uint8Array::from(e.0.as_slice()));
                    link.send_message(Msg::Index(generation, bytes));
                });
            }
        }
    }

    fn open_engine(&mut self, ctx: &Context<Self>, index: Uint8Array) {
        let (trace, elf, _) = ctx.props().trace.report_inputs();
        let generation = self.generation;
        let listener = self.listener.clone();
        let started = SqlClient::start(&trace, elf.as_ref().map(|(f, _)| f), &index, move |e| {
            let mut l = listener.borrow_mut();
            match l.to.clone() {
                Some(to) => {
                    drop(l);
                    to.emit((generation, e));
                }
                None => l.queued.push((generation, e)),
            }
        });
        self.index = Some(index);
        match started {
            Ok(client) => self.engine = Engine::Starting(client),
            Err(e) => self.engine_failed(&e),
        }
    }

    fn engine_failed(&mut self, message: &str) {
        self.engine = Engine::None;
        if let Run::Running { id } = self.state.run {
            self.state.failed(id, message);
        }
    }

    fn run(&mut self, ctx: &Context<Self>) {
        let Some(id) = self.state.start() else {
            return;
        };
        let _ = local_store::set(HISTORY_KEY, Some(&self.state.history.to_text()));
        if !SqlClient::available() {
            self.state.failed(id, t("The Query pane needs the hosted page: the single-file build leaves its query engine out. Open Tarmac Lens from a web server, or use `tarmac-lens sql`."));
            return;
        }
        if !ctx.props().complete {
            self.state.failed(
                id,
                t("The trace is still being indexed: run the query once it is done."),
            );
            return;
        }
        match &self.engine {
            Engine::Ready(client) => client.query(id, &self.state.ran),
            Engine::None => self.start_engine(ctx),
            // It runs once the engine is ready.
            Engine::Asking | Engine::Starting(_) => {}
        }
    }

    /// Asks for the pages the window shows that are not fetched yet.
    fn fetch(&mut self) {
        let Run::Done(result) = &mut self.state.run else {
            return;
        };
        let (id, pages) = (
            result.id,
            result.to_fetch(self.window.first, self.window.end),
        );
        if let Some(client) = self.engine.client() {
            for page in pages {
                client.rows(id, page * PAGE_ROWS, PAGE_ROWS);
            }
        }
    }

    fn measure(&mut self) {
        let rows = match &self.state.run {
            Run::Done(r) => r.kept,
            _ => 0,
        };
        let (top, height) = self.list.cast::<HtmlElement>().map_or((0.0, 400.0), |el| {
            (
                el.scroll_top() as f64,
                (el.client_height() as f64 - ROW_PX).max(ROW_PX),
            )
        });
        self.window = Window::of(top, height, rows, ROW_PX);
    }

    fn on_engine(&mut self, event: SqlEvent) {
        match event {
            SqlEvent::Ready(tables) => {
                let Engine::Starting(client) = std::mem::replace(&mut self.engine, Engine::None)
                else {
                    return;
                };
                match tables_of(&tables) {
                    Ok(tables) => self.state.tables = tables,
                    Err(e) => return self.engine_failed(&e),
                }
                if let Run::Running { id } = self.state.run {
                    client.query(id, &self.state.ran);
                }
                self.engine = Engine::Ready(client);
            }
            SqlEvent::Failed(message) => self.engine_failed(&message),
            SqlEvent::Done {
                id,
                rows,
                kept,
                columns,
                ms,
            } => match columns_of(&columns) {
                Ok(columns) => {
                    self.state.done(id, ResultSet::new(columns, rows, kept, ms));
                    if let Some(el) = self.list.cast::<HtmlElement>() {
                        el.set_scroll_top(0);
                    }
                    self.measure();
                    self.fetch();
                }
                Err(e) => self.state.failed(id, &e),
            },
            SqlEvent::Error { id, message } => {
                self.state.failed(id, &message);
                self.place_caret = true;
            }
            SqlEvent::Rows { id, offset, json } => {
                if let Run::Done(result) = &mut self.state.run {
                    if result.id == id {
                        match rows_of(&json) {
                            Ok(rows) => result.fetched(offset, rows),
                            Err(e) => self.state.failed(id, &e),
                        }
                    }
                }
            }
        }
    }

    fn view_tables(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let list = |tables: &[TableInfo]| -> Html {
            tables
                .iter()
                .map(|table| {
                    let name = table.name.clone();
                    html! {
                        <details data-testid="query-table" data-table={table.name.clone()}>
                            <summary title={table.about.clone()}>
                                <button class="link" onclick={link.callback(move |_| Msg::Insert(name.clone()))}
                                    title={t("Insert into the query")}>{ table.name.clone() }</button>
                            </summary>
                            <ul style="margin:0;padding-left:1rem;list-style:none;">
                                { for table.columns.iter().map(|c| {
                                    let name = c.name.clone();
                                    html! {
                                        <li data-testid="query-column" title={c.doc.clone()}>
                                            <button class="link" onclick={link.callback(move |_| Msg::Insert(name.clone()))}>{ c.name.clone() }</button>
                                            <span style="opacity:0.6;">{ format!(" {}", c.ty) }</span>
                                        </li>
                                    }
                                }) }
                            </ul>
                        </details>
                    }
                })
                .collect()
        };
        html! {
            <div class="query-tables" data-testid="query-tables"
                style="flex:0 0 auto;width:12rem;overflow:auto;font-size:12px;border-right:1px solid rgba(128,128,128,0.3);padding:0.2rem;">
                if self.state.tables.is_empty() {
                    <p class="pane-empty" style="margin:0.2rem;">{ t("The tables are listed once the query engine has started.") }</p>
                } else {
                    { list(&self.state.tables) }
                }
            </div>
        }
    }

    fn view_status(&self) -> Html {
        let (text, state) = match (&self.state.run, &self.engine) {
            (Run::Idle, _) => (String::new(), "idle"),
            (Run::Running { .. }, Engine::Asking | Engine::Starting(_)) => {
                (t("Starting the query engine…").to_string(), "starting")
            }
            (Run::Running { .. }, _) => (t("Running… (Escape stops it)").to_string(), "running"),
            (Run::Done(r), _) if r.kept < r.rows => (
                tf(
                    "{} rows in {} ms; the first {} are shown",
                    &[&number(r.rows), &format!("{:.0}", r.ms), &number(r.kept)],
                ),
                "done",
            ),
            (Run::Done(r), _) => (
                tf(
                    "{} rows in {} ms",
                    &[&number(r.rows), &format!("{:.0}", r.ms)],
                ),
                "done",
            ),
            (Run::Failed(_), _) => (t("The query failed.").to_string(), "failed"),
            (Run::Stopped, _) => (t("Stopped.").to_string(), "stopped"),
        };
        let ms = match &self.state.run {
            Run::Done(r) => Some(r.ms),
            _ => None,
        };
        html! {
            <span data-testid="query-status" data-state={state} data-run={self.state.runs().to_string()}
                data-ms={ms.map(|ms| format!("{ms:.1}"))} role="status" style="flex:1;min-width:0;">{ text }</span>
        }
    }

    fn view_error(&self) -> Html {
        let Run::Failed(f) = &self.state.run else {
            return html! {};
        };
        let at = f.position.and_then(|(line, column)| {
            let text = self.state.ran.split('\n').nth(line - 1)?;
            let pad = " ".repeat(column - 1);
            Some(format!("{text}\n{pad}^"))
        });
        html! {
            <div class="error" role="alert" data-testid="query-error"
                data-line={f.position.map(|p| p.0.to_string())}
                data-column={f.position.map(|p| p.1.to_string())}
                style="margin:0.2rem 0;">
                <div data-testid="query-error-message" style="white-space:pre-wrap;">{ f.message.lines().next().unwrap_or_default().to_string() }</div>
                if let Some(at) = at {
                    <pre data-testid="query-error-at" style="margin:0;font-size:12px;">{ at }</pre>
                }
            </div>
        }
    }

    fn view_result(&self, ctx: &Context<Self>) -> Html {
        let Run::Done(result) = &self.state.run else {
            return html! {};
        };
        let on_action = ctx.props().on_action.clone();
        let w = self.window;
        let complete = (w.first..w.end).all(|r| result.row(r).is_some());
        let cell_style = "padding:0 0.6rem 0 0.3rem;height:20px;line-height:20px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:40rem;";
        html! {
            <div ref={self.list.clone()} data-testid="query-result" data-rows={result.rows.to_string()} data-kept={result.kept.to_string()}
                data-complete={complete.to_string()}
                onscroll={ctx.link().callback(|_| Msg::Scroll)}
                style="flex:1 1 6rem;min-height:0;overflow:auto;position:relative;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;">
                <div style={format!("height:{}px;position:relative;", w.height_px + ROW_PX)}>
                    <table style={format!("position:absolute;top:{}px;left:0;border-collapse:collapse;", w.top_px)}>
                        <thead style="position:sticky;top:0;">
                            <tr>
                                { for result.columns.iter().map(|c| html! {
                                    <th data-testid="query-head" title={c.ty.clone()} style="text-align:left;padding:0 0.6rem 0 0.3rem;height:20px;background:var(--pane-bg,Canvas);">{ c.name.clone() }</th>
                                }) }
                            </tr>
                        </thead>
                        <tbody>
                            { for (w.first..w.end).map(|row| {
                                let cells: Html = match result.row(row) {
                                    Some(cells) => cells.iter().enumerate().map(|(i, cell)| {
                                        let link = result.columns.get(i).and_then(|c| c.link);
                                        match (cell, link) {
                                            (None, _) => html! { <td data-testid="query-cell" data-null="true" style={cell_style}><span style="opacity:0.5;">{ "NULL" }</span></td> },
                                            (Some(text), Some(link)) => {
                                                let action = link.action(text);
                                                let on_action = on_action.clone();
                                                let kind = match link { Link::Line => "line", Link::Time => "time" };
                                                html! {
                                                    <td data-testid="query-cell" style={cell_style}>
                                                        <a href="#" data-testid="query-link" data-link={kind}
                                                            title={if link == Link::Line { t("Go to this line") } else { t("Go to this time") }}
                                                            onclick={Callback::from(move |e: MouseEvent| {
                                                                e.prevent_default();
                                                                if let Some(a) = &action { on_action.emit(a.clone()); }
                                                            })}>{ text.clone() }</a>
                                                    </td>
                                                }
                                            }
                                            (Some(text), None) => html! { <td data-testid="query-cell" style={cell_style}>{ text.clone() }</td> },
                                        }
                                    }).collect(),
                                    None => html! { <td colspan={result.columns.len().max(1).to_string()} style={cell_style}>{ "…" }</td> },
                                };
                                html! { <tr key={row} data-testid="query-row" data-row={row.to_string()}>{ cells }</tr> }
                            }) }
                        </tbody>
                    </table>
                </div>
            </div>
        }
    }
}

impl Component for QueryPane {
    type Message = Msg;
    type Properties = QueryPaneProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let kept = take_kept::<Kept>()
            .filter(|k| k.trace.upgrade().as_ref() == Some(&props.trace) && k.elf == props.elf);
        let link = ctx.link().clone();
        let to =
            Callback::from(move |(g, e): (u32, SqlEvent)| link.send_message(Msg::Engine(g, e)));
        let mut pane = match kept {
            Some(k) => {
                let queued = {
                    let mut l = k.listener.borrow_mut();
                    l.to = Some(to);
                    std::mem::take(&mut l.queued)
                };
                for (g, e) in queued {
                    ctx.link().send_message(Msg::Engine(g, e));
                }
                QueryPane {
                    state: k.state,
                    engine: k.engine,
                    generation: k.generation,
                    index: k.index,
                    listener: k.listener,
                    editor: NodeRef::default(),
                    list: NodeRef::default(),
                    window: Window::of(0.0, 400.0, 0, ROW_PX),
                    place_caret: false,
                    _lang: LangWatch::new(ctx, || Msg::Lang),
                }
            }
            None => QueryPane {
                state: QueryState::new(History::from_text(
                    &local_store::get(HISTORY_KEY).unwrap_or_default(),
                )),
                engine: Engine::None,
                generation: 0,
                index: None,
                listener: Rc::new(RefCell::new(Listener {
                    to: Some(to),
                    queued: Vec::new(),
                })),
                editor: NodeRef::default(),
                list: NodeRef::default(),
                window: Window::of(0.0, 400.0, 0, ROW_PX),
                place_caret: false,
                _lang: LangWatch::new(ctx, || Msg::Lang),
            },
        };
        // Fetched the first time the pane opens, so the tables are listed
        // and the first query does not wait for it.
        pane.start_engine(ctx);
        pane
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        let props = ctx.props();
        if props.trace != old.trace || props.elf != old.elf {
            // Another trace or image: another engine (and index).
            self.engine = Engine::None;
            self.state.stop();
            self.state.tables.clear();
            if props.trace != old.trace {
                self.index = None;
            }
        }
        self.start_engine(ctx);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Lang => {}
            Msg::Input(text) => {
                self.state.draft = text;
                return false;
            }
            Msg::Run => self.run(ctx),
            Msg::Stop => {
                if self.state.stop() {
                    // Ending the worker is the only way to stop wasm that
                    // is running; the next query starts another.
                    self.engine = Engine::None;
                }
            }
            Msg::Older => return self.state.older(),
            Msg::Newer => return self.state.newer(),
            Msg::Pick(sql) => self.state.draft = sql,
            Msg::Insert(text) => {
                let editor = self.editor.cast::<HtmlTextAreaElement>();
                let at = editor
                    .as_ref()
                    .and_then(|e| e.selection_start().ok().flatten())
                    .map_or(self.state.draft.chars().count(), |a| a as usize);
                let byte = self
                    .state
                    .draft
                    .char_indices()
                    .nth(at)
                    .map_or(self.state.draft.len(), |(b, _)| b);
                self.state.draft.insert_str(byte, &text);
                if let Some(e) = editor {
                    e.set_value(&self.state.draft);
                    let caret = (at + text.chars().count()) as u32;
                    let _ = e.set_selection_range(caret, caret);
                    let _ = e.focus();
                }
            }
            Msg::Index(generation, bytes) => {
                if generation != self.generation || !matches!(self.engine, Engine::Asking) {
                    return false;
                }
                match bytes {
                    Ok(index) => self.open_engine(ctx, index),
                    Err(e) => self.engine_failed(&e),
                }
            }
            Msg::Engine(generation, event) => {
                if generation != self.generation {
                    return false;
                }
                self.on_engine(event);
            }
            Msg::Scroll => {
                self.measure();
                self.fetch();
            }
        }
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, _: bool) {
        // The list's height is known once drawn: a window measured before
        // (at the result's arrival) may show fewer rows than fit.
        if matches!(self.state.run, Run::Done(_)) {
            let before = self.window;
            self.measure();
            if self.window != before {
                ctx.link().send_message(Msg::Scroll);
            }
        }
        if std::mem::take(&mut self.place_caret) {
            if let (Run::Failed(f), Some(editor)) =
                (&self.state.run, self.editor.cast::<HtmlTextAreaElement>())
            {
                if let Some(at) = f.offset {
                    let _ = editor.focus();
                    let _ = editor.set_selection_range(at as u32, at as u32 + 1);
                }
            }
        }
    }

    fn destroy(&mut self, ctx: &Context<Self>) {
        self.listener.borrow_mut().to = None;
        keep(Kept {
            trace: ctx.props().trace.downgrade(),
            elf: ctx.props().elf,
            state: std::mem::take(&mut self.state),
            engine: std::mem::replace(&mut self.engine, Engine::None),
            generation: self.generation,
            index: self.index.take(),
            listener: self.listener.clone(),
        });
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let title = t("Query");
        let running = matches!(self.state.run, Run::Running { .. });
        let on_key = link.batch_callback(|e: KeyboardEvent| {
            let msg = match e.key().as_str() {
                "Enter" if e.ctrl_key() || e.meta_key() => Some(Msg::Run),
                "Escape" => Some(Msg::Stop),
                "ArrowUp" if e.alt_key() => Some(Msg::Older),
                "ArrowDown" if e.alt_key() => Some(Msg::Newer),
                _ => None,
            };
            if msg.is_some() {
                e.prevent_default();
                e.stop_propagation();
            }
            msg
        });
        let on_input = link.callback(|e: InputEvent| {
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlTextAreaElement>().ok())
                .map(|t| t.value())
                .unwrap_or_default();
            Msg::Input(value)
        });
        let on_pick = link.callback(|e: Event| {
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .map(|t| t.value())
                .unwrap_or_default();
            Msg::Pick(value)
        });
        let close = ctx
            .props()
            .on_action
            .reform(|_: MouseEvent| PaneAction::Close);
        let error_at = match &self.state.run {
            Run::Failed(f) => f.offset.map(|o| o.to_string()),
            _ => None,
        };
        html! {
            <section
                class="pane query-pane"
                data-testid="query"
                role="region"
                aria-label={title}
                onkeydown={on_key}
                style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
            >
                <header class="pane-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;">
                    <strong data-testid="query-pane-title">{ title }</strong>
                    { self.view_status() }
                    { ctx.props().tools.clone() }
                    <button class="close" data-testid="query-close" title={t("Close (Q)")} onclick={close}>{ "×" }</button>
                </header>
                <div style="flex:1 1 auto;display:flex;min-height:0;">
                    { self.view_tables(ctx) }
                    <div style="flex:1 1 auto;display:flex;flex-direction:column;min-width:0;min-height:0;padding:0.2rem 0.4rem;">
                        <textarea
                            ref={self.editor.clone()}
                            data-testid="query-editor"
                            data-error-at={error_at}
                            aria-label={t("SQL query (Ctrl-Enter runs it, Alt-Up and Alt-Down go through the history, Escape stops it)")}
                            spellcheck="false"
                            rows="4"
                            value={self.state.draft.clone()}
                            oninput={on_input}
                            style="font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;resize:vertical;min-height:3rem;"
                        />
                        <div style="display:flex;gap:0.4rem;align-items:center;margin:0.2rem 0;">
                            <button data-testid="query-run" disabled={running} onclick={link.callback(|_| Msg::Run)}
                                title={t("Run the query (Ctrl-Enter)")}>{ t("Run") }</button>
                            if running {
                                <button data-testid="query-stop" onclick={link.callback(|_| Msg::Stop)}
                                    title={t("Stop the query (Escape)")}>{ t("Stop") }</button>
                            }
                            <select data-testid="query-history" onchange={on_pick} aria-label={t("History")} style="max-width:20rem;">
                                <option value="" selected=true disabled=true>{ t("History") }</option>
                                { for self.state.history.entries().iter().rev().map(|q| html! {
                                    <option value={q.clone()}>{ q.replace('\n', " ") }</option>
                                }) }
                            </select>
                        </div>
                        { self.view_error() }
                        { self.view_result(ctx) }
                    </div>
                </div>
            </section>
        }
    }
}
