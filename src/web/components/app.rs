//! The page: drop zone on top, the status of the current file, then the
//! trace browser and the record statistics as two tabs; and the page's
//! other ways in, beside a dropped file: `?url=` (with the download's
//! progress when the server serves no ranges) and the embedded viewer
//! (`?embed=1`), with its compact layout and host messages.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use super::{
    use_document_title, Browser, CorePicker, CountsTable, DemoButton, DiffView, DropZone,
    ElfLoader, ErrorBanner, FileNotice, FileSummary, IndexCacheControl, ProgressBar, Rehearsal,
    Session, UnparsedList,
};
use crate::web::page::client::{worker_url, Reading, TraceClient, TraceInput};
use crate::web::page::embed::{self, Payload};
use crate::web::page::i18n::{self, number, t, tf, tn, Lang, LanguageSwitch};
use crate::web::page::page_params::{self, PageParams};
use crate::web::page::url_options;
use crate::web::shared::timing::after_ms;
use tarmac_lens_core::SymbolTable;

pub use crate::model::page::{FileInfo, Phase, Tab};

/// The page's state (`model::page`), with its trace's session.
pub type PageState = crate::model::page::PageState<Session>;

/// What changes it.
pub type Action = crate::model::page::PageMsg<Session>;

impl Reducible for PageState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        if next.update(action) {
            Rc::new(next)
        } else {
            self
        }
    }
}

/// How long after indexing ends the spare workers for the next file are
/// started: the first keys after `ready` come first.
const PREWARM_DELAY_MS: i32 = 2000;

/// And how long the page must have asked the worker nothing: spares
/// started while a person stepped made the slowest steps (15-21 ms against
/// a p99 of 9-11; docs/performance.md).
const PREWARM_QUIET_MS: f64 = 1000.0;

thread_local! {
    /// Bumped whenever a prewarm wait is cancelled: a wait of an older
    /// number gives up.
    static PREWARM_WAIT: Cell<u32> = const { Cell::new(0) };
}

/// Starts the spare workers once the page has asked nothing for
/// [`PREWARM_QUIET_MS`], unless [`PREWARM_WAIT`] moved on meanwhile.
fn prewarm_when_quiet(wait: u32) {
    if PREWARM_WAIT.with(Cell::get) != wait {
        return;
    }
    let since = crate::web::page::client::since_last_query_ms();
    if since >= PREWARM_QUIET_MS {
        TraceClient::prewarm();
    } else {
        after_ms((PREWARM_QUIET_MS - since).ceil() as i32, move || {
            prewarm_when_quiet(wait)
        });
    }
}

/// A wait for spares, ended by [`prewarm_when_quiet`].
type Wait = Box<dyn FnOnce()>;

thread_local! {
    /// Under `?prewarm=held`, the waits begun and not yet let go; `None`
    /// until the first, which sets up `tarmacLensPrewarm()`.
    static HELD_WAITS: std::cell::RefCell<Option<Vec<Wait>>> = Default::default();
}

/// Ends a wait for spares [`PREWARM_DELAY_MS`] from now, or, under
/// `?prewarm=held`, when the page's `tarmacLensPrewarm()` is called: a test
/// then ends the wait at a state it saw (a file being indexed), not at a
/// moment it hoped to hit.
fn after_prewarm_delay(f: impl FnOnce() + 'static) {
    if !url_options::prewarm_held() {
        return after_ms(PREWARM_DELAY_MS, f);
    }
    let first = HELD_WAITS.with(|h| {
        let mut h = h.borrow_mut();
        let first = h.is_none();
        h.get_or_insert_with(Vec::new).push(Box::new(f));
        first
    });
    if first {
        let release = wasm_bindgen::closure::Closure::<dyn Fn()>::new(|| {
            let held = HELD_WAITS.with(|h| h.borrow_mut().as_mut().map(std::mem::take));
            for f in held.into_iter().flatten() {
                f();
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = js_sys::Reflect::set(&w, &"tarmacLensPrewarm".into(), release.as_ref());
        }
        release.forget();
    }
}

fn now_ms() -> f64 {
    crate::web::shared::timing::now()
}

/// Whether a file starts with the ELF magic: dropped next to a trace, an
/// ELF image is the trace's symbols, not a trace.
async fn is_elf(file: &web_sys::File) -> bool {
    let Ok(head) = file.slice_with_i32_and_i32(0, 4) else {
        return false;
    };
    let Ok(buffer) = JsFuture::from(head.array_buffer()).await else {
        return false;
    };
    js_sys::Uint8Array::new(&buffer).to_vec() == b"\x7fELF"
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(PageState::default);
    // The open trace's client, for loading ELF images; the rendered state
    // may be one render behind.
    let client = use_mut_ref(|| None::<TraceClient>);
    // An ELF image dropped before its trace is open waits here.
    let pending_elf = use_mut_ref(|| None::<(web_sys::File, i64)>);
    let job_counter = use_mut_ref(|| 0u32);
    // What was opened last and with which ELF, to open again with another
    // core of a multi-core trace.
    let last_input = use_mut_ref(|| None::<TraceInput>);
    let last_elf = use_mut_ref(|| None::<(web_sys::File, i64)>);
    // The core followed: a ref for the open path (its closures outlive
    // renders), a state to render the picker.
    let core_ref = use_mut_ref(url_options::core);
    let core = use_state_eq(url_options::core);
    use_document_title(state.file.as_ref().map(|f| f.name.clone()));
    let lang = use_state_eq(i18n::current);
    use_effect_with(*lang, |lang| i18n::sync_document(*lang));
    let on_lang = {
        let lang = lang.clone();
        Callback::from(move |l: Lang| {
            i18n::set(l);
            lang.set(l);
        })
    };
    // Start a worker before any file is dropped: loading its wasm takes
    // tens of milliseconds the first screenful should not wait for.
    // Not on the page `tarmac-lens serve` serves: its trace opens at once,
    // answered by the server, and the workers' start and the rehearsal
    // below took the cores its first screen needs (on two cores, 310-470
    // ms after the load event with them).
    let served = *use_memo((), |_| crate::web::page::server_link::is_served());
    // Its trace opens as the page starts (`start_from_params`): the drop
    // page is never shown, so not built either.
    let opens_at_once = *use_memo((), |_| {
        served && crate::web::page::server_link::has_written_opening()
    });
    use_effect_with((), move |_| {
        if !served {
            TraceClient::prewarm()
        }
    });
    // And, once a file is indexed, again for the next one: not while it is
    // indexed, as the spare session worker's warm-up and the workers'
    // starts would take the indexing's cores (and the first screenful's).
    // Nor while the person steps or scrolls ([`PREWARM_QUIET_MS`]). A wait
    // still running when indexing starts gives up: a file dropped within
    // the delay (of the page's load, or of the last file's end) took the
    // spare, and a new one's warm-up (85-110 ms of a core) and start would
    // land in the middle of its indexing.
    // Not on the served page either: its server answers, and spares would
    // fetch the workers' wasm over its tunnel (or fail, the server gone).
    let indexing = state.indexing();
    use_effect_with(indexing, move |&indexing| {
        // The cleanup moved the number on: the earlier wait gives up.
        let wait = PREWARM_WAIT.with(Cell::get);
        if !indexing && !served {
            after_prewarm_delay(move || prewarm_when_quiet(wait));
        }
        || PREWARM_WAIT.with(|w| w.set(w.get().wrapping_add(1)))
    });
    // The browser's panes rendered once, hidden, while the page loads (see
    // `Rehearsal`); the status says `data-warm` after it. The page is
    // `idle` (and takes files) before: a drop ends the rehearsal.
    let rehearsed = use_state_eq(|| false);
    let compare = use_state(|| None::<(u32, web_sys::File)>);

    let open_trace: Rc<dyn Fn(TraceInput)> = {
        let state = state.clone();
        let client = client.clone();
        let pending_elf = pending_elf.clone();
        let job_counter = job_counter.clone();
        let last_input = last_input.clone();
        let core_ref = core_ref.clone();
        Rc::new(move |input: TraceInput| {
            let started = crate::web::shared::timing::now();
            // Stop the previous worker before starting the next one.
            client.borrow_mut().take();
            *last_input.borrow_mut() = Some(input.clone());
            let info = match &input {
                TraceInput::File(file) => FileInfo {
                    name: file.name(),
                    bytes: file.size() as u64,
                },
                // The size comes when the worker has asked the server.
                TraceInput::Url { name, .. } => FileInfo {
                    name: name.clone(),
                    bytes: 0,
                },
                TraceInput::Served(opening) => FileInfo {
                    name: opening.name.clone(),
                    bytes: opening.bytes,
                },
            };
            let job_id = {
                let mut counter = job_counter.borrow_mut();
                *counter += 1;
                *counter
            };
            state.dispatch(Action::Start {
                job: job_id,
                file: info,
                now_ms: now_ms(),
            });
            let dispatcher = state.dispatcher();
            if url_options::crash_page() {
                panic!("crash test: a panic in the page (?crash=page)");
            }
            let options = crate::web::shared::protocol::OpenOptions {
                cpu: core_ref.borrow().as_deref().and_then(|c| c.parse().ok()),
                ..url_options::open_options()
            };
            let opened = TraceClient::open_input(&worker_url(), input, options, move |event| {
                dispatcher.dispatch(Action::Event {
                    job: job_id,
                    event,
                    now_ms: now_ms(),
                })
            });
            match opened {
                Ok(c) => {
                    if let Some((elf, offset)) = pending_elf.borrow_mut().take() {
                        c.load_elf(elf, offset);
                    }
                    *client.borrow_mut() = Some(c.clone());
                    embed::set_session(&c);
                    state.dispatch(Action::Opened {
                        job: job_id,
                        session: Session {
                            client: c,
                            job: job_id,
                        },
                    });
                }
                Err(e) => state.dispatch(Action::StartFailed(e)),
            }
            crate::web::shared::timing::measure("open trace", started);
        })
    };
    let load_elf: Rc<dyn Fn(web_sys::File, i64)> = {
        let client = client.clone();
        let pending_elf = pending_elf.clone();
        let last_elf = last_elf.clone();
        let state = state.clone();
        Rc::new(move |file: web_sys::File, offset| {
            *last_elf.borrow_mut() = Some((file.clone(), offset));
            match &*client.borrow() {
                Some(c) => c.load_elf(file, offset),
                None => {
                    // No trace yet: kept for it, and read here to say what
                    // it holds (a symbol table is read in milliseconds).
                    *pending_elf.borrow_mut() = Some((file.clone(), offset));
                    let dispatcher = state.dispatcher();
                    let pending_elf = pending_elf.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let symbols = match JsFuture::from(file.array_buffer()).await {
                            Ok(buffer) => {
                                let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                                SymbolTable::from_elf_bytes(&bytes, offset)
                                    .map(|t| t.symbols().len())
                                    .map_err(|e| e.to_string())
                            }
                            Err(e) => Err(format!("{e:?}")),
                        };
                        if symbols.is_err() {
                            pending_elf.borrow_mut().take();
                        }
                        dispatcher.dispatch(Action::ElfAlone(file.name(), symbols));
                    });
                }
            }
        })
    };
    // The open file, to compare with another (`DiffView`).
    let trace_file = match &*last_input.borrow() {
        Some(TraceInput::File(file)) => Some(file.clone()),
        _ => None,
    };
    // Another core: the same trace (and ELF) opened again following it.
    let on_core = {
        let core = core.clone();
        let core_ref = core_ref.clone();
        let open_trace = open_trace.clone();
        let pending_elf = pending_elf.clone();
        let last_elf = last_elf.clone();
        Callback::from(move |picked: Option<String>| {
            url_options::set_core(picked.as_deref());
            *core_ref.borrow_mut() = picked.clone();
            core.set(picked);
            let Some(input) = last_input.borrow().clone() else {
                return;
            };
            *pending_elf.borrow_mut() = last_elf.borrow().clone();
            open_trace(input);
        })
    };
    // `?url=` and `?embed=1` (see page_params and embed).
    let params = use_memo((), |_| page_params::current());
    {
        let open_trace = open_trace.clone();
        let client = client.clone();
        let load_elf = load_elf.clone();
        let state = state.clone();
        let params = params.clone();
        use_effect_with((), move |_| {
            start_from_params(&params, open_trace, client, load_elf, state)
        });
    }
    {
        let name = state.file.as_ref().map(|f| f.name.clone());
        let message = match &state.phase {
            Phase::Error(m) => Some(m.clone()),
            _ => None,
        };
        use_effect_with(
            (state.phase.name(), name, message, state.job),
            |(phase, name, message, _)| {
                embed::state_changed(phase, name.as_deref(), message.as_deref())
            },
        );
    }
    // The load offset the ELF field holds, for images dropped on the page
    // too; a new one loads the image in use again.
    let elf_offset = use_state_eq(|| 0i64);
    let on_offset = {
        let elf_offset = elf_offset.clone();
        let last_elf = last_elf.clone();
        let client = client.clone();
        let load_elf = load_elf.clone();
        Callback::from(move |offset: i64| {
            elf_offset.set(offset);
            let again = last_elf.borrow().clone().filter(|(_, o)| *o != offset);
            if let (Some((file, _)), true) = (again, client.borrow().is_some()) {
                load_elf(file, offset);
            }
        })
    };
    let on_file = {
        let load_elf = load_elf.clone();
        let offset = *elf_offset;
        Callback::from(move |file: web_sys::File| {
            let open_trace = open_trace.clone();
            let load_elf = load_elf.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let started = crate::web::shared::timing::now();
                let elf = is_elf(&file).await;
                crate::web::shared::timing::measure("is it an ELF image", started);
                if elf {
                    load_elf(file, offset);
                } else {
                    open_trace(TraceInput::File(file));
                }
            });
        })
    };
    let on_elf = Callback::from(move |(file, offset): (web_sys::File, i64)| load_elf(file, offset));

    let busy = state.indexing();
    let lines = state.lines();
    // `label` is English: the test id is made from it, the text translated.
    let tab = |t: Tab, label: &'static str| {
        let state = state.clone();
        let selected = state.tab == t;
        html! {
            <button
                role="tab"
                class={classes!("tab", selected.then_some("selected"))}
                aria-selected={selected.to_string()}
                data-testid={format!("tab-{}", label.to_lowercase())}
                onclick={Callback::from(move |_: MouseEvent| state.dispatch(Action::Tab(t)))}
            >{ i18n::t(label) }</button>
        }
    };
    let open = state.open();
    let rows = state.shows_rows();
    // The trace to compare the open one with (see `DiffView`).
    let on_compare = {
        let compare = compare.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() else {
                return;
            };
            let file = input.files().and_then(|f| f.get(0));
            input.set_value("");
            if let Some(file) = file {
                let seq = compare.as_ref().map_or(1, |c| c.0 + 1);
                compare.set(Some((seq, file)));
            }
        })
    };
    if params.embed {
        return view_embedded(&state, params.panes.clone(), open);
    }

    let status = html! {
        <section
            class="status"
            data-testid="status"
            data-state={state.phase.name()}
            data-warm={rehearsed.then_some("yes")}
            data-lines={lines.map(|n| n.to_string())}
            data-reading={state.reading.map(Reading::name)}
            data-index-cache={state.index_cached.then_some("saved")}
            data-index-bytes={state.progress.as_ref().map(|p| p.index_bytes.to_string())}
            aria-live="polite"
            style={if state.file.is_some() {
                "display:flex;flex-wrap:wrap;gap:0.1rem 0.75rem;align-items:center;flex:1 1 auto;min-width:0;"
            } else {
                "display:flex;flex-direction:column;gap:0.5rem;"
            }}
        >
            { view_status(&state) }
        </section>
    };
    let rehearsal = html! {
        if !*rehearsed && state.file.is_none() && !served {
            <Rehearsal on_done={{
                let rehearsed = rehearsed.clone();
                Callback::from(move |_| rehearsed.set(true))
            }} />
        }
    };
    let Some(file) = &state.file else {
        if opens_at_once {
            // Only an error opening it stays in sight.
            return html! {
                <ContextProvider<Lang> context={*lang}>
                <main class="app" style="padding:0.6rem 1rem;">{ status }</main>
                </ContextProvider<Lang>>
            };
        }
        // No trace yet: the welcome, with room to drop one.
        return html! {
            <ContextProvider<Lang> context={*lang}>
            <main class="app" style="display:flex;flex-direction:column;gap:0.6rem;box-sizing:border-box;height:100vh;height:100dvh;overflow:auto;margin:0 auto;padding:0.6rem 1rem;">
                { rehearsal }
                <header class="app-header" style="display:flex;gap:1rem;align-items:baseline;flex-wrap:wrap;">
                    <h1 style="margin:0;">{ "Tarmac Lens" }</h1>
                    <p class="tagline" style="margin:0;">
                        { t("Arm CPU execution traces, read in your browser. Nothing is uploaded.") }
                    </p>
                    <LanguageSwitch lang={*lang} on_change={on_lang} />
                </header>
                <DropZone on_file={on_file.clone()} busy={busy} compact={false} />
                <DemoButton on_file={on_file} />
                <IndexCacheControl />
                { status }
            </main>
            </ContextProvider<Lang>>
        };
    };
    // A trace is open: a workspace that fills the window and never scrolls
    // as a page. One slim header (the file, its progress, the tabs, another
    // file, the ELF image); the browser or the summary takes the rest.
    html! {
        <ContextProvider<Lang> context={*lang}>
        <main class="app workspace-page" style="display:flex;flex-direction:column;gap:0.3rem;box-sizing:border-box;height:100vh;height:100dvh;overflow:hidden;padding:0.3rem 0.6rem;">
            <header class="app-header slim" style="display:flex;gap:0.3rem 0.75rem;align-items:center;flex-wrap:wrap;flex:none;">
                <strong class="brand">{ "Tarmac Lens" }</strong>
                { status }
                <nav role="tablist" class="tabs" style="display:flex;gap:0.25rem;">
                    { tab(Tab::Browse, "Browse") }
                    { tab(Tab::Summary, "Summary") }
                </nav>
                <DropZone on_file={on_file.clone()} busy={true} compact={true} />
                if let (true, Some(_)) = (rows, &trace_file) {
                    <label class="file-button" title={t("Compare with another trace: ")}>
                        { t("Compare…") }
                        <input type="file" data-testid="diff-input" style="display:none;" onchange={on_compare} />
                    </label>
                }
                if open {
                    <ElfLoader on_elf={on_elf} offset={*elf_offset} {on_offset} symbols={state.elf.map(|e| e.symbols)} warning={state.elf_warning.clone()} failed={state.elf_error.clone()} />
                }
                <LanguageSwitch lang={*lang} on_change={on_lang} />
            </header>
            if let Phase::Ready(stats) = &state.phase {
                if stats.cores.len() > 1 && served {
                    <p class="hint" data-testid="core-served" style="margin:0;">
                        { t("The core followed is chosen when the trace is served: tarmac-lens serve --cpu NAME.") }
                    </p>
                } else if stats.cores.len() > 1 {
                    <CorePicker cores={stats.cores.clone()} selected={(*core).clone()} on_pick={on_core} />
                }
            }
            // Both tabs stay mounted: the browser keeps its position and
            // the summary its content while hidden.
            <div
                data-testid="browse-panel"
                role="tabpanel"
                aria-label={t("Browse")}
                hidden={state.tab != Tab::Browse}
                style={if state.tab == Tab::Browse { "display:flex;flex-direction:column;gap:0.3rem;flex:1 1 auto;min-height:0;" } else { "display:none;" }}
            >
                <FileNotice
                    name={file.name.clone()}
                    kind={state.file_kind.clone()}
                    stats={match &state.phase { Phase::Ready(s) => Some(s.clone()), _ => None }}
                    on_show_unparsed={{
                        let state = state.clone();
                        Callback::from(move |_| state.dispatch(Action::Tab(Tab::Summary)))
                    }}
                />
                if let Some(session) = state.session.clone().filter(|_| rows) {
                    <DiffView file={trace_file.clone()} compare={(*compare).clone()} session={session} progress={state.progress.clone()} elf={state.elf} elf_error={state.elf_error.clone()} lang={*lang} />
                }
            </div>
            <div
                data-testid="summary-panel"
                role="tabpanel"
                aria-label={t("Summary")}
                hidden={state.tab != Tab::Summary}
                style={if state.tab == Tab::Summary { "display:flex;flex-direction:column;gap:1rem;flex:1 1 auto;min-height:0;overflow:auto;" } else { "display:none;" }}
            >
                { view_summary(&state) }
            </div>
        </main>
        </ContextProvider<Lang>>
    }
}

fn view_status(state: &PageState) -> Html {
    let summary = |lines: Option<u64>, dialect: Option<String>| match &state.file {
        Some(f) => html! {
            <FileSummary name={f.name.clone()} bytes={f.bytes} lines={lines} dialect={dialect} />
        },
        None => html! {},
    };
    match &state.phase {
        Phase::Idle => html! {
            <>
                <p class="hint">{ t("Drop a Tarmac trace above to browse it (and its ELF image, for symbols).") }</p>
                { view_elf_alone(state) }
            </>
        },
        Phase::Indexing { done, total } => html! {
            <>
                { summary(None, None) }
                { view_download(state) }
                <ProgressBar
                    done={*done}
                    total={*total}
                    elapsed_ms={state.now_ms - state.started_ms}
                />
            </>
        },
        Phase::Ready(stats) => html! {
            <>
                { summary(Some(stats.lines), Some(stats.dialect.clone())) }
                { view_reading(state.reading) }
            </>
        },
        // What stops the trace or its reading takes a row of its own.
        Phase::Stopped(reason) => html! {
            <>
                { summary(state.progress.as_ref().map(|p| p.lines), None) }
                <p class="stopped" role="alert" data-testid="stopped" style="margin:0;flex:1 0 100%;">{ reason.clone() }</p>
            </>
        },
        Phase::Error(message) => html! {
            <>
                { summary(None, None) }
                <div style="flex:1 0 100%;"><ErrorBanner message={message.clone()} /></div>
            </>
        },
    }
}

/// An ELF image chosen before its trace: kept, and said so.
fn view_elf_alone(state: &PageState) -> Html {
    match &state.elf_alone {
        None => html! {},
        Some((name, Ok(symbols))) => html! {
            <p class="elf-alone" role="status" data-testid="elf-alone">
                { tn(*symbols as u64, "ELF image {} loaded ({} symbol); now drop its trace.", "ELF image {} loaded ({} symbols); now drop its trace.", &[name, &number(*symbols as u64)]) }
            </p>
        },
        Some((name, Err(e))) => html! {
            <p class="error-text" role="alert" data-testid="elf-alone-error">{ format!("{name}: {e}") }</p>
        },
    }
}

fn view_summary(state: &PageState) -> Html {
    match &state.phase {
        Phase::Ready(stats) => html! {
            <>
                <CountsTable records={stats.records.clone()} />
                <UnparsedList total={stats.unparsed} lines={stats.unparsed_details.clone()} empty={stats.lines == 0} by_word={stats.unparsed_words.clone()} short_registers={stats.short_register_values} unknown_registers={stats.unknown_register_values} />
            </>
        },
        Phase::Error(_) => {
            html! { <p class="hint">{ t("No summary: the trace could not be read.") }</p> }
        }
        _ => {
            html! { <p class="hint">{ t("The summary appears when the whole trace is read.") }</p> }
        }
    }
}

/// How the trace was read, when it is worth saying.
fn view_reading(reading: Option<Reading>) -> Html {
    let (testid, text) = match reading {
        Some(Reading::CachedIndex) => (
            "index-restored",
            t("Index restored from the cache: this trace was indexed before."),
        ),
        Some(Reading::Ranges) => (
            "read-by-ranges",
            t("Read from the server in byte ranges, as needed: never downloaded whole."),
        ),
        Some(Reading::Downloaded) => (
            "downloaded",
            t("Downloaded whole: the server does not serve byte ranges."),
        ),
        Some(Reading::Served) => (
            "served",
            t("Answered by tarmac-lens serve from the trace's file and index: nothing is read into this page."),
        ),
        Some(Reading::File) | None => return html! {},
    };
    html! { <p class="hint" data-testid={testid} style="margin:0;">{ text }</p> }
}

/// A URL being downloaded whole (its server serves no byte ranges).
fn view_download(state: &PageState) -> Html {
    let Some((done, total)) = state.download else {
        return html! {};
    };
    if state.reading.is_some() {
        return html! {};
    }
    let done_text = crate::web::page::format::bytes(done);
    let text = match total {
        Some(total) => tf(
            "Downloading {} of {} (the server does not serve byte ranges, so the whole trace is fetched)…",
            &[&done_text, &crate::web::page::format::bytes(total)],
        ),
        None => tf(
            "Downloading {} (the server does not serve byte ranges, so the whole trace is fetched)…",
            &[&done_text],
        ),
    };
    html! {
        <div class="download" data-testid="download-progress" data-done={done.to_string()}>
            <progress
                max={total.unwrap_or(0).max(done).max(1).to_string()}
                value={done.to_string()}
                style="width:100%;height:1rem;"
            />
            <span>{ text }</span>
        </div>
    }
}

/// Opens what the query string asks for: the trace `tarmac-lens serve`
/// serves (`?serve=1`), `?url=` (and `&elf=`), or waits for the host
/// page's messages (`?embed=1`).
fn start_from_params(
    params: &PageParams,
    open_trace: Rc<dyn Fn(TraceInput)>,
    client: Rc<std::cell::RefCell<Option<TraceClient>>>,
    load_elf: Rc<dyn Fn(web_sys::File, i64)>,
    state: UseReducerHandle<PageState>,
) {
    let serve_state = state.clone();
    let open_url = {
        let open_trace = open_trace.clone();
        let client = client.clone();
        move |url: &str, elf: Option<&str>| {
            match page_params::resolve(url) {
                Ok((url, cross_origin, name)) => open_trace(TraceInput::Url {
                    url,
                    cross_origin,
                    name,
                }),
                Err(e) => {
                    state.dispatch(Action::StartFailed(e));
                    return;
                }
            }
            if let Some(elf) = elf {
                match (page_params::resolve(elf), client.borrow().as_ref()) {
                    (Ok((url, cross_origin, name)), Some(c)) => {
                        c.load_elf_url(url, cross_origin, name)
                    }
                    (Err(e), _) => state.dispatch(Action::StartFailed(e)),
                    (Ok(_), None) => {}
                }
            }
        }
    };
    if params.serve {
        let state = serve_state;
        let open_trace = open_trace.clone();
        // At once, before the browser lays out the page without its trace.
        if let Some(written) = crate::web::page::server_link::written_opening() {
            match written {
                Ok(opening) => open_trace(TraceInput::Served(Rc::new(opening))),
                Err(e) => state.dispatch(Action::StartFailed(e)),
            }
        } else {
            wasm_bindgen_futures::spawn_local(async move {
                match crate::web::page::server_link::opening().await {
                    Ok(opening) => open_trace(TraceInput::Served(Rc::new(opening))),
                    Err(e) => state.dispatch(Action::StartFailed(e)),
                }
            });
        }
    } else if let Some(url) = &params.url {
        open_url(url, params.elf.as_deref());
    }
    if params.embed {
        embed::listen(
            params.origins.as_deref(),
            params.url.is_some(),
            move |request| {
                match request.trace {
                    Payload::File(file) => open_trace(TraceInput::File(file)),
                    Payload::Url(url) => open_url(&url, None),
                }
                match request.elf {
                    Some(Payload::File(file)) => load_elf(file, 0),
                    Some(Payload::Url(url)) => {
                        if let (Ok((url, cross_origin, name)), Some(c)) =
                            (page_params::resolve(&url), client.borrow().as_ref())
                        {
                            c.load_elf_url(url, cross_origin, name);
                        }
                    }
                    None => {}
                }
            },
        );
    }
}

/// The compact viewer for an `<iframe>`: the trace and the panes asked
/// for, a one-line status, nothing else.
fn view_embedded(
    state: &UseReducerHandle<PageState>,
    panes: Option<Vec<crate::web::page::page_params::PaneSpec>>,
    open: bool,
) -> Html {
    let lines = state.lines();
    let status = match &state.phase {
        Phase::Idle => {
            html! { <span class="hint">{ t("Waiting for a trace from the page…") }</span> }
        }
        Phase::Indexing { done, total } => html! {
            <span>{ tf("Indexing {}… {}%", &[&state.file.as_ref().map_or("", |f| f.name.as_str()), &crate::web::page::format::percent(*done, *total)]) }</span>
        },
        Phase::Ready(_) => html! {
            <span data-testid="file-name">{ state.file.as_ref().map_or(String::new(), |f| f.name.clone()) }</span>
        },
        Phase::Stopped(reason) => html! {
            <p class="stopped" role="alert" data-testid="stopped">{ reason.clone() }</p>
        },
        Phase::Error(message) => html! { <ErrorBanner message={message.clone()} /> },
    };
    html! {
        <main class="app embedded" style="display:flex;flex-direction:column;gap:0.3rem;padding:0.3rem;box-sizing:border-box;height:100vh;height:100dvh;overflow:hidden;">
            <section
                class="status"
                data-testid="status"
                data-state={state.phase.name()}
                data-lines={lines.map(|n| n.to_string())}
                data-reading={state.reading.map(Reading::name)}
                aria-live="polite"
                style="font-size:0.85rem;flex:none;"
            >
                { status }
            </section>
            if let Some(session) = state.session.clone().filter(|_| open) {
                <Browser
                    session={session}
                    progress={state.progress.clone()}
                    elf={state.elf}
                    elf_error={state.elf_error.clone()}
                    panes={Some(panes.unwrap_or_default())}
                    compact={true}
                />
            }
        </main>
    }
}
