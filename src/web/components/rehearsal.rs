//! A hidden first run of the trace browser, when the page loads.
//!
//! V8 compiles a wasm function on its first call, and each Yew component
//! type has its own copy of the render and reconcile code. Without this,
//! the first drop paid that compiling (tens of milliseconds) inside the
//! tasks that show the first rows and then the panes. The real `Browser`
//! is mounted off screen on a client answered in the page with made-up
//! contents (`TraceClient::canned`): it shows its first rows, toolbar and
//! panes, takes one step down, and is removed; the status says `idle` only
//! after it, so nothing can confuse it with a real trace. Rehearsing only
//! the panes left the browser's own code (view, update, props changes) to
//! the first drop: 12.5 ms of compiling in the task after it. With the
//! browser rehearsed, a 106 MB drop's first screen came at 35 ms instead
//! of 53 (medians of 12 alternated drops each), and, since indexing waits
//! for it, the drop indexed at 262 MB/s instead of 254. (Components that
//! tests watch from the page's load, such as the progress bar, are left
//! out.)

use std::cell::Cell;
use std::rc::Rc;

use yew::prelude::*;

use super::{Browser, ElfLoad, ElfLoader, FileSummary, MemoryPane, PaneHeader, Session};
use crate::web::page::client::TraceClient;
use tarmac_lens_core::browse::protocol::{
    CallFrame, EventsReply, Hl, LineEffect, Locate, MemoryReply, NodeView, Progress, Query,
    RegCell, RegMark, RegPanel, RegistersReply, Reply, Row, RowsReply, Span, TimelineReply,
};

#[derive(Properties, PartialEq)]
pub struct RehearsalProps {
    /// Called once the rehearsal has rendered; the owner then removes it.
    pub on_done: Callback<()>,
}

const LINE: &str = "1066 clk IT (1066) 000100cc 6803 T svc_s : LDR      r3,[r0,#0]";

/// Spans over each word of `text`, cycling through every highlight class.
fn spans(text: &str) -> Vec<Span> {
    const CLASSES: [Hl; 15] = [
        Hl::Time,
        Hl::Event,
        Hl::Pc,
        Hl::Encoding,
        Hl::ISet,
        Hl::Mode,
        Hl::Disassembly,
        Hl::NotExecuted,
        Hl::Register,
        Hl::Value,
        Hl::Address,
        Hl::Punct,
        Hl::Text,
        Hl::Error,
        Hl::OtherCore,
    ];
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c == ' ', start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push(Span {
                    start: s as u32,
                    end: i as u32,
                    hl: CLASSES[out.len() % CLASSES.len()],
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Nodes in the made-up trace, two lines each.
const NODES: u64 = 60;
/// The row that is a folded call.
const FOLD_ROW: u64 = 10;

fn node_view(node: u64) -> NodeView {
    NodeView {
        node,
        first_line: 2 * node + 1,
        lines: 2,
        time: 1066 + node,
        pc: Some(0x100cc + 4 * node),
        offset: 60 * node,
        instruction: Some(node + 1),
    }
}

fn row(i: u64) -> Row {
    if i == FOLD_ROW {
        return Row::Fold {
            call: 0,
            call_node: i / 2,
            entry_node: i / 2 + 1,
            lines: 40,
            function: 0x100cc,
            name: "main".into(),
        };
    }
    Row::Line {
        line: i + 1,
        node: i / 2,
        first_of_node: i.is_multiple_of(2),
        text: LINE.into(),
        spans: spans(LINE),
        branch_symbol: (i % 7 == 3).then(|| "main".into()),
    }
}

fn rows(first: u64, count: u32) -> RowsReply {
    let total_rows = 2 * NODES;
    let first = first.min(total_rows);
    let end = (first + u64::from(count)).min(total_rows);
    RowsReply {
        first,
        rows: (first..end).map(row).collect(),
        total_rows,
    }
}

fn registers(node: u64, compare: bool) -> RegPanel {
    let step = 0x1111 + node as usize;
    let cell = |name: String, i: usize| RegCell {
        name,
        text: if i % 7 == 3 {
            "????????".into()
        } else {
            format!("{:016x}", i * step)
        },
        known: i % 7 != 3,
        changed: compare && (i + node as usize).is_multiple_of(5),
        decoded: (i == 33).then(|| "nZCv".into()),
    };
    let names = (0..31)
        .map(|i| format!("x{i}"))
        .chain(["sp".into(), "pc".into(), "psr".into()]);
    RegPanel {
        kind: "core".into(),
        title: "Core registers".into(),
        cells: names.enumerate().map(|(i, n)| cell(n, i)).collect(),
    }
}

fn memory(node: u64) -> MemoryReply {
    let k = (node % 2) as u8;
    MemoryReply {
        node,
        addr: 0x3f_ffc0,
        bytes: (0..64u8).map(|b| b.wrapping_mul(37 + k)).collect(),
        known: (0..64).map(|i| i % 9 != 4).collect(),
        changed: (0..64u32)
            .map(|i| (i + u32::from(k)).is_multiple_of(11))
            .collect(),
    }
}

fn stack(node: u64) -> Vec<CallFrame> {
    (0..=node.min(1))
        .map(|i| CallFrame {
            call: i,
            call_node: i,
            entry_node: 1 + i,
            resume_node: None,
            function: 0x100c0 + 0x40 * i,
            name: if i == 0 { "main" } else { "partition" }.into(),
        })
        .collect()
}

/// The made-up trace's answers, as a worker's session would give them.
fn answer(query: Query) -> Reply {
    let node_of_line = |line: u64| (line.saturating_sub(1) / 2).min(NODES - 1);
    match query {
        Query::Rows { first, count, .. } => Reply::Rows(rows(first, count)),
        Query::RowOfNode { node, .. } => Reply::Row(2 * node),
        Query::Step { node, delta, .. } => Reply::Node(Some(node_view(
            node.saturating_add_signed(delta).min(NODES - 1),
        ))),
        Query::Locate(Locate::Start) => Reply::Node(Some(node_view(0))),
        Query::Locate(Locate::End) => Reply::Node(Some(node_view(NODES - 1))),
        Query::Locate(Locate::Node(node)) => Reply::Node(Some(node_view(node.min(NODES - 1)))),
        Query::Locate(Locate::Line(line)) => Reply::Node(Some(node_view(node_of_line(line)))),
        Query::Locate(Locate::Time(t)) => {
            Reply::Node(Some(node_view(t.saturating_sub(1066).min(NODES - 1))))
        }
        Query::Registers { node, mark } => Reply::Registers(RegistersReply {
            node,
            aarch64: true,
            panels: vec![registers(node, mark != RegMark::None)],
        }),
        Query::Memory { node, .. } => Reply::Memory(memory(node)),
        Query::CallStack { node } => Reply::Stack(stack(node)),
        Query::NodeLines { node } => Reply::NodeLines(vec![LineEffect {
            line: 2 * node + 1,
            text: LINE.into(),
            target: None,
            read: false,
        }]),
        Query::Symbolize { addrs } => Reply::Symbols(
            addrs
                .iter()
                .map(|a| format!("main+{:#x}", a & 0xff))
                .collect(),
        ),
        Query::Timeline { buckets } => Reply::Timeline(TimelineReply {
            nodes: NODES,
            depth: (0..buckets).map(|i| i % 5).collect(),
            kinds: (0..buckets).map(|i| (i % 3) as u8).collect(),
        }),
        Query::Events { first, .. } => Reply::Events(EventsReply {
            first,
            total: 0,
            events: Vec::new(),
        }),
        Query::EventRank { .. } => Reply::Value(0),
        other => Reply::Error(format!("not rehearsed: {other:?}")),
    }
}

/// The page's side of the worker's messages, once each with made-up
/// contents: a step's questions encoded, and the answers the first screen
/// and a step bring decoded. serde's code for each message type is compiled
/// on its first use; decoding the first answers took 10-13 ms of the first
/// screenful's path otherwise.
fn rehearse_messages() {
    use crate::web::shared::protocol::{decode, encode, ToPage, ToWorker};
    let asks = vec![
        (
            1,
            Query::Step {
                view: 0,
                node: 1,
                delta: 1,
            },
        ),
        (2, Query::RowOfNode { view: 0, node: 2 }),
        (
            3,
            Query::Registers {
                node: 2,
                mark: RegMark::ChangedSince(1),
            },
        ),
        (4, Query::CallStack { node: 2 }),
        (
            5,
            Query::Memory {
                node: 2,
                addr: 0x3f_ffc0,
                len: 64,
                compare: Some(1),
            },
        ),
        (6, Query::NodeLines { node: 2 }),
        (7, Query::Locate(Locate::Node(2))),
        (
            8,
            Query::Rows {
                view: 0,
                first: 0,
                count: 8,
            },
        ),
        (9, Query::EventRank { node: 2 }),
    ];
    let answers = asks
        .iter()
        .map(|(id, q)| (*id, answer(q.clone())))
        .collect();
    let _ = encode(&ToWorker::Ask { asks });
    if let Ok(js) = encode(&ToPage::Answer { answers }) {
        let _ = decode::<ToPage>(js);
    }
}

/// How many polls (a task each) the rehearsal waits at most for the
/// browser to settle, so the page's start never hangs on it.
const MAX_POLLS: u32 = 60;

/// Where the rehearsal is.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    /// The browser is mounted: its first rows come, then its toolbar and
    /// panes, each in a task of its own.
    Opening,
    /// A step down has been pressed: the row, panes and stack move.
    Stepped,
}

/// What the rehearsal's polls look at and act on.
struct Polls {
    root: NodeRef,
    /// Questions answered so far: the browser has settled once a task
    /// passes without one.
    asked: Rc<Cell<u32>>,
    set_stage: UseStateSetter<Stage>,
    on_done: Callback<()>,
}

impl Polls {
    /// Polls, a task at a time, until the browser has asked nothing since
    /// the last poll (and, when opening, shows its panes); then steps, or
    /// ends.
    fn poll(self, seen: u32, polls: u32, stage: Stage) {
        super::app::after_ms(0, move || {
            let now = self.asked.get();
            let container = self.root.cast::<web_sys::Element>();
            let revealed = container
                .as_ref()
                .and_then(|c| c.query_selector(".browser .panes").ok().flatten())
                .is_some();
            let settled = now == seen && (revealed || stage == Stage::Stepped);
            if polls >= MAX_POLLS || (settled && stage == Stage::Stepped) {
                rehearse_messages();
                self.on_done.emit(());
                return;
            }
            if !settled {
                return self.poll(now, polls + 1, stage);
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
            self.set_stage.set(Stage::Stepped);
            self.poll(now, polls + 1, Stage::Stepped);
        });
    }
}

#[function_component(Rehearsal)]
pub fn rehearsal(props: &RehearsalProps) -> Html {
    let stage = use_state(|| Stage::Opening);
    let root = use_node_ref();
    let asked = use_memo((), |_| Rc::new(Cell::new(0u32)));
    let session = use_memo((), {
        let asked = (*asked).clone();
        move |_| Session {
            client: TraceClient::canned(move |query| {
                asked.set(asked.get() + 1);
                answer(query)
            }),
            job: 0,
        }
    });
    {
        let polls = Polls {
            root: root.clone(),
            asked: (*asked).clone(),
            set_stage: stage.setter(),
            on_done: props.on_done.clone(),
        };
        use_effect_with((), move |_| polls.poll(u32::MAX, 0, Stage::Opening));
    }
    let stepped = *stage == Stage::Stepped;
    // More of the trace indexed by the step, as while a drop is indexed:
    // the browser's props change.
    let progress = Progress {
        done_bytes: 1 << 20 | u64::from(stepped) << 19,
        total_bytes: 2 << 20,
        lines: 2 * NODES,
        nodes: NODES,
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
            <FileSummary name="rehearsal.tarmac" bytes={2u64 << 20} lines={stepped.then_some(2 * NODES)} />
            <ElfLoader on_elf={Callback::noop()} symbols={None::<usize>} />
            <Browser
                session={(*session).clone()}
                progress={Some(progress)}
                elf={None::<ElfLoad>}
                detached=true
                takes_focus=false
            />
            // The memory pane opens only when asked for.
            <section class="pane data-pane">
                <PaneHeader
                    title="Memory"
                    title_testid="rehearsal-pane-title"
                    view={0}
                    views={vec![0, 1]}
                    lock={Some(node_view(u64::from(stepped)))}
                    on_view={Callback::noop()}
                    on_unlock={Callback::noop()}
                    on_lock={Callback::noop()}
                    on_close={Callback::noop()}
                />
                <MemoryPane
                    memory={Some(memory(u64::from(stepped)))}
                    selected={0x3f_ffc4}
                    note={None::<String>}
                    on_pick={Callback::noop()}
                    on_context={Callback::noop()}
                    on_scroll={Callback::noop()}
                />
            </section>
        </div>
    }
}
