//! The page: drop zone on top, then the state of the current file.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use super::{CountsTable, DropZone, ErrorBanner, FileSummary, ProgressBar, UnparsedList};
use crate::stats::Stats;
use crate::web::indexer::{IndexEvent, IndexJob};

/// The file being looked at.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    pub name: String,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    Idle,
    Indexing { done: u64, total: u64 },
    Ready(Rc<Stats>),
    Error(String),
}

impl Phase {
    /// The `data-state` value tests and styles key on.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Indexing { .. } => "indexing",
            Phase::Ready(_) => "ready",
            Phase::Error(_) => "error",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PageState {
    /// Increments per file, so late messages from an abandoned job are ignored.
    pub job: u32,
    pub file: Option<FileInfo>,
    pub phase: Phase,
    /// `performance.now()` when the job started, for the MB/s figure.
    pub started_ms: f64,
    pub now_ms: f64,
}

impl Default for PageState {
    fn default() -> Self {
        PageState {
            job: 0,
            file: None,
            phase: Phase::Idle,
            started_ms: 0.0,
            now_ms: 0.0,
        }
    }
}

pub enum Action {
    Start {
        job: u32,
        file: FileInfo,
        now_ms: f64,
    },
    Event {
        job: u32,
        event: IndexEvent,
        now_ms: f64,
    },
    StartFailed(String),
}

impl Reducible for PageState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Start { job, file, now_ms } => {
                next.job = job;
                next.phase = Phase::Indexing {
                    done: 0,
                    total: file.bytes,
                };
                next.file = Some(file);
                next.started_ms = now_ms;
                next.now_ms = now_ms;
            }
            Action::Event { job, event, now_ms } => {
                if job != self.job || !matches!(self.phase, Phase::Indexing { .. }) {
                    return self;
                }
                next.now_ms = now_ms;
                next.phase = match event {
                    IndexEvent::Progress { done, total } => Phase::Indexing { done, total },
                    IndexEvent::Finished(stats) => Phase::Ready(stats),
                    IndexEvent::Failed(message) => Phase::Error(message),
                };
            }
            Action::StartFailed(message) => next.phase = Phase::Error(message),
        }
        Rc::new(next)
    }
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(PageState::default);
    // Kept outside the reducer: a job owns a worker and closures, not state
    // to render.
    let job = use_mut_ref(|| None::<IndexJob>);
    // Job ids come from here rather than from the rendered state, which may
    // be one render behind when two files arrive in quick succession.
    let job_counter = use_mut_ref(|| 0u32);

    let on_file = {
        let state = state.clone();
        let job: Rc<RefCell<Option<IndexJob>>> = job.clone();
        let job_counter = job_counter.clone();
        Callback::from(move |file: web_sys::File| {
            // Stop the previous worker before starting the next one.
            job.borrow_mut().take();
            let info = FileInfo {
                name: file.name(),
                bytes: file.size() as u64,
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
            let started = IndexJob::start(file, move |event| {
                dispatcher.dispatch(Action::Event {
                    job: job_id,
                    event,
                    now_ms: now_ms(),
                })
            });
            match started {
                Ok(j) => *job.borrow_mut() = Some(j),
                Err(e) => state.dispatch(Action::StartFailed(e)),
            }
        })
    };

    let busy = matches!(state.phase, Phase::Indexing { .. });
    let lines = match &state.phase {
        Phase::Ready(stats) => Some(stats.lines),
        _ => None,
    };

    html! {
        <main class="app" style="display:flex;flex-direction:column;gap:1rem;max-width:60rem;margin:0 auto;padding:1rem;">
            <header class="app-header">
                <h1 style="margin:0;">{ "Tarmac Lens" }</h1>
                <p class="tagline" style="margin:0.25rem 0 0;">
                    { "Arm CPU execution traces, read in your browser. Nothing is uploaded." }
                </p>
            </header>
            <DropZone on_file={on_file} busy={busy} />
            <section
                class="status"
                data-testid="status"
                data-state={state.phase.name()}
                data-lines={lines.map(|n| n.to_string())}
                aria-live="polite"
                style="display:flex;flex-direction:column;gap:1rem;"
            >
                { view_phase(&state) }
            </section>
        </main>
    }
}

fn view_phase(state: &PageState) -> Html {
    let summary = |lines: Option<u64>, dialect: Option<String>| match &state.file {
        Some(f) => html! {
            <FileSummary name={f.name.clone()} bytes={f.bytes} lines={lines} dialect={dialect} />
        },
        None => html! {},
    };
    match &state.phase {
        Phase::Idle => html! {
            <p class="hint">{ "Drop a Tarmac trace above to see what it contains." }</p>
        },
        Phase::Indexing { done, total } => html! {
            <>
                { summary(None, None) }
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
                <CountsTable records={stats.records.clone()} />
                <UnparsedList total={stats.unparsed} lines={stats.unparsed_details.clone()} />
            </>
        },
        Phase::Error(message) => html! {
            <>
                { summary(None, None) }
                <ErrorBanner message={message.clone()} />
            </>
        },
    }
}
