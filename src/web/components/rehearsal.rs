//! A hidden first run of the trace browser, when the page loads.
//!
//! V8 compiles a wasm function on its first call, and each Yew component
//! type has its own copy of the render and reconcile code: without this,
//! the first drop's first screen came at 53 ms instead of 35. The real
//! `Browser` is mounted off screen on a client of the spare session worker
//! ([`TraceClient::rehearsal`]), whose session over the sample trace
//! answers it (`crate::sample`): it shows its first rows, toolbar and
//! panes, takes one step down, asks every sample question (the page
//! decodes each kind of answer once), shows the memory pane, and is
//! removed. The status says `idle` only after it. (Components that tests
//! watch from the page's load, such as the progress bar, are left out.)

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use super::{Browser, ElfLoad, ElfLoader, FileSummary, MemoryPane, PaneHeader, Session};
use crate::sample;
use crate::web::page::client::TraceClient;
use tarmac_lens_core::protocol::{MemoryReply, NodeView, Progress, Reply};

#[derive(Properties, PartialEq)]
pub struct RehearsalProps {
    /// Called once the rehearsal has rendered; the owner then removes it.
    pub on_done: Callback<()>,
}

/// How many polls (a task each) the rehearsal waits at most for the
/// browser to settle, so the page's start never hangs on it.
const MAX_POLLS: u32 = 60;

/// The longest the rehearsal waits for its worker to listen (it starts
/// with the page, 100-200 ms, then warms up).
const MAX_WAIT_MS: i32 = 10_000;

/// Where the rehearsal is.
#[derive(Clone, PartialEq)]
enum Stage {
    /// The worker is starting: nothing is mounted yet.
    Waiting,
    /// The browser is mounted: its first rows come, then its toolbar and
    /// panes, each in a task of its own.
    Opening,
    /// A step down has been pressed: the row, panes and stack move.
    Stepped,
    /// The sample questions are answered: the memory pane shows, at two
    /// positions.
    Panes(Box<(MemoryReply, NodeView, NodeView)>, bool),
}

/// What the rehearsal's polls look at and act on.
#[derive(Clone)]
struct Polls {
    root: NodeRef,
    client: TraceClient,
    stage: UseStateHandle<Stage>,
    on_done: Callback<()>,
}

impl Polls {
    /// Polls, a task at a time, until the browser has asked nothing since
    /// the last poll (and, when opening, shows its panes); then steps, or
    /// asks the sample questions.
    fn poll(self, seen: u32, polls: u32, stepped: bool) {
        crate::web::shared::timing::after_ms(0, move || {
            // The browser has settled once a task passes without a question.
            let now = self.client.asked();
            let container = self.root.cast::<web_sys::Element>();
            let revealed = container
                .as_ref()
                .and_then(|c| c.query_selector(".browser [data-area=side]").ok().flatten())
                .is_some();
            let settled = now == seen && (revealed || stepped);
            if polls >= MAX_POLLS || (settled && stepped) {
                return self.ask_samples();
            }
            if !settled {
                return self.poll(now, polls + 1, stepped);
            }
            let browser = container.and_then(|c| c.query_selector(".browser").ok().flatten());
            if let Some(browser) = browser {
                let init = web_sys::KeyboardEventInit::new();
                init.set_key("ArrowDown");
                init.set_bubbles(true);
                if let Ok(e) =
                    web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init)
                {
                    let _ = browser.dispatch_event(&e);
                }
            }
            self.stage.set(Stage::Stepped);
            self.poll(now, polls + 1, true);
        });
    }

    /// Asks `queries` together; `then` gets the answers, in order.
    fn ask(
        &self,
        queries: Vec<tarmac_lens_core::protocol::Query>,
        then: impl FnOnce(Vec<Reply>) + 'static,
    ) {
        let n = queries.len();
        let replies = Rc::new(RefCell::new(vec![None; n]));
        let then = Rc::new(RefCell::new(Some(then)));
        for (i, q) in queries.into_iter().enumerate() {
            let (replies, then) = (replies.clone(), then.clone());
            self.client.query(q, move |reply| {
                replies.borrow_mut()[i] = Some(reply);
                if replies.borrow().iter().all(Option::is_some) {
                    let all = replies.borrow_mut().drain(..).flatten().collect();
                    if let Some(then) = then.borrow_mut().take() {
                        then(all);
                    }
                }
            });
        }
        if n == 0 {
            if let Some(then) = then.borrow_mut().take() {
                then(Vec::new());
            }
        }
    }

    /// Every sample question and its follow-ups, then the memory pane.
    fn ask_samples(self) {
        self.clone().ask(sample::questions(), move |answers| {
            let follow_ups = sample::follow_ups(&answers);
            self.clone()
                .ask(follow_ups, move |_| self.show_panes(&answers));
        });
    }

    fn show_panes(self, answers: &[Reply]) {
        let memory = answers.iter().find_map(|r| match r {
            Reply::Memory(m) => Some(m.clone()),
            _ => None,
        });
        let mut nodes = answers.iter().filter_map(|r| match r {
            Reply::Locate(Some(n)) => Some(*n),
            _ => None,
        });
        let (Some(memory), Some(a), Some(b)) = (memory, nodes.next(), nodes.next()) else {
            return self.on_done.emit(());
        };
        self.stage
            .set(Stage::Panes(Box::new((memory, a, b)), false));
        crate::web::shared::timing::after_ms(0, move || {
            if let Stage::Panes(shown, false) = &*self.stage {
                self.stage.set(Stage::Panes(shown.clone(), true));
            }
            crate::web::shared::timing::after_ms(0, move || self.on_done.emit(()));
        });
    }
}

#[function_component(Rehearsal)]
pub fn rehearsal(props: &RehearsalProps) -> Html {
    let stage = use_state(|| Stage::Waiting);
    let root = use_node_ref();
    // The worker listens (true), or cannot answer (false).
    let ready = use_state_eq(|| None::<bool>);
    let client = use_memo((), {
        let ready = ready.setter();
        move |_| TraceClient::rehearsal(move |r| ready.set(Some(r)))
    });
    {
        let on_done = props.on_done.clone();
        let none = client.is_none();
        use_effect_with((), move |_| {
            if none {
                on_done.emit(());
            } else {
                crate::web::shared::timing::after_ms(MAX_WAIT_MS, move || on_done.emit(()));
            }
        });
    }
    {
        let polls = (*client).clone().map(|client| Polls {
            root: root.clone(),
            client,
            stage: stage.clone(),
            on_done: props.on_done.clone(),
        });
        use_effect_with(*ready, move |ready| match (ready, polls) {
            (Some(true), Some(polls)) => {
                polls.stage.set(Stage::Opening);
                polls.poll(u32::MAX, 0, false);
            }
            (Some(false), Some(polls)) => polls.on_done.emit(()),
            _ => {}
        });
    }
    let Some(client) = (*client).clone() else {
        return html! {};
    };
    if *stage == Stage::Waiting {
        return html! {};
    }
    let session = Session { client, job: 0 };
    let stepped = *stage != Stage::Opening;
    let lines = sample::TRACE.iter().filter(|&&b| b == b'\n').count() as u64;
    // More of the trace indexed by the step, as while a drop is indexed:
    // the browser's props change.
    let bytes = sample::TRACE.len() as u64;
    let progress = Progress {
        done_bytes: if stepped { bytes } else { bytes / 2 },
        total_bytes: bytes,
        lines,
        nodes: lines,
        complete: false,
        index_bytes: 4096,
        stopped: None,
    };
    html! {
        <div
            ref={root}
            aria-hidden="true"
            style="position:absolute;left:-10000px;top:0;width:900px;height:600px;overflow:hidden;visibility:hidden;pointer-events:none;"
        >
            <FileSummary name="rehearsal.tarmac" bytes={bytes} lines={stepped.then_some(lines)} />
            <ElfLoader on_elf={Callback::noop()} symbols={None::<usize>} />
            <Browser
                session={session}
                progress={Some(progress)}
                elf={None::<ElfLoad>}
                detached=true
                takes_focus=false
            />
            // The memory pane opens only when asked for.
            if let Stage::Panes(shown, moved) = &*stage {
                <section class="pane data-pane">
                    <PaneHeader
                        title="Memory"
                        title_testid="rehearsal-pane-title"
                        view={0}
                        views={vec![0, 1]}
                        lock={Some(if *moved { shown.2 } else { shown.1 })}
                        on_view={Callback::noop()}
                        on_unlock={Callback::noop()}
                        on_lock={Callback::noop()}
                        on_close={Callback::noop()}
                    />
                    <MemoryPane
                        memory={Some(shown.0.clone())}
                        selected={shown.0.addr + 4 * u64::from(*moved)}
                        note={None::<String>}
                        on_pick={Callback::noop()}
                        on_context={Callback::noop()}
                        on_scroll={Callback::noop()}
                    />
                </section>
            }
        </div>
    }
}
