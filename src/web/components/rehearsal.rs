//! A hidden first render of the trace browser's panes, when the page loads.
//!
//! V8 compiles a wasm function on its first call, and each Yew component
//! type has its own copy of the render and reconcile code. Without this,
//! the first drop paid that compiling (tens of milliseconds) inside the
//! tasks that show the first rows and then the panes. Rendered once at load,
//! off screen, with made-up contents, and removed; the status says `idle`
//! only after it, so nothing can confuse it with a real trace. (Components
//! that tests watch from the page's load, such as the progress bar, are
//! left out.)

use std::rc::Rc;

use yew::prelude::*;

use super::{MemoryPane, PaneHeader, RegisterPane, StackPane, TimelineStrip, TracePane};
use crate::browse::protocol::{
    CallFrame, Hl, MemoryReply, NodeView, RegCell, RegPanel, Row, RowsReply, Span, TimelineReply,
};
use crate::web::keys::RegKind;

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

/// The rows, moved on by three lines after the rehearsed step.
fn rows(moved: bool) -> RowsReply {
    let shift = if moved { 3 } else { 0 };
    let mut rows: Vec<Row> = (0..6u64)
        .map(|i| Row::Line {
            line: i + 1 + shift,
            node: i / 2,
            first_of_node: i.is_multiple_of(2),
            text: LINE.into(),
            spans: spans(LINE),
            branch_symbol: (i == 3).then(|| "main".into()),
        })
        .collect();
    rows.push(Row::Fold {
        call: 0,
        call_node: 2,
        entry_node: 3,
        lines: 40,
        function: 0x100cc,
        name: "main".into(),
    });
    RowsReply {
        first: 0,
        total_rows: rows.len() as u64,
        rows,
    }
}

fn registers(moved: bool) -> RegPanel {
    let step = if moved { 0x1234 } else { 0x1111 };
    let cell = |name: String, i: usize| RegCell {
        name,
        text: if i % 7 == 3 {
            "????????".into()
        } else {
            format!("{:016x}", i * step)
        },
        known: i % 7 != 3,
        changed: (i + usize::from(moved)).is_multiple_of(5),
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

fn memory(moved: bool) -> MemoryReply {
    let k = u8::from(moved);
    MemoryReply {
        node: 1 + u64::from(k),
        addr: 0x3f_ffc0,
        bytes: (0..64u8).map(|b| b.wrapping_mul(37 + k)).collect(),
        known: (0..64).map(|i| i % 9 != 4).collect(),
        changed: (0..64u32)
            .map(|i| (i + u32::from(k)).is_multiple_of(11))
            .collect(),
    }
}

/// The page's side of the worker's messages, once each with made-up
/// contents: a step's questions encoded, and the answers the first screen
/// and a step bring decoded. serde's code for each message type is compiled
/// on its first use; decoding the first answers took 10-13 ms of the first
/// screenful's path otherwise.
fn rehearse_messages() {
    use crate::browse::protocol::{LineEffect, Locate, Query, RegistersReply, Reply};
    use crate::web::protocol::{decode, encode, ToPage, ToWorker};
    let cursor = NodeView {
        node: 2,
        first_line: 5,
        lines: 2,
        time: 1067,
        pc: Some(0x100d0),
        offset: 180,
    };
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
                compare: Some(1),
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
                count: 40,
            },
        ),
    ];
    let _ = encode(&ToWorker::Ask { asks });
    let answers = vec![
        (1, Reply::Node(Some(cursor))),
        (2, Reply::Row(4)),
        (
            3,
            Reply::Registers(RegistersReply {
                node: 2,
                aarch64: true,
                panels: vec![registers(true)],
            }),
        ),
        (
            4,
            Reply::Stack(vec![CallFrame {
                call: 0,
                call_node: 1,
                entry_node: 2,
                resume_node: None,
                function: 0x100c0,
                name: "main".into(),
            }]),
        ),
        (5, Reply::Memory(memory(true))),
        (
            6,
            Reply::NodeLines(vec![LineEffect {
                line: 6,
                text: LINE.into(),
                target: None,
                read: false,
            }]),
        ),
        (7, Reply::Rows(rows(true))),
        (8, Reply::Value(3)),
    ];
    if let Ok(js) = encode(&ToPage::Answer { answers }) {
        let _ = decode::<ToPage>(js);
    }
}

#[function_component(Rehearsal)]
pub fn rehearsal(props: &RehearsalProps) -> Html {
    let moved = use_state(|| false);
    {
        let on_done = props.on_done.clone();
        let moved = moved.clone();
        use_effect_with(*moved, move |&was_moved| {
            // After this render's layout, in a task of its own: the step,
            // then the end.
            super::app::after_ms(0, move || {
                if was_moved {
                    rehearse_messages();
                    on_done.emit(())
                } else {
                    moved.set(true)
                }
            });
        });
    }
    let moved = *moved;
    let k = u64::from(moved);
    let cursor = NodeView {
        node: 1 + k,
        first_line: 3 + 2 * k,
        lines: 2,
        time: 1066 + k,
        pc: Some(0x100cc + 4 * k),
        offset: 120 + 60 * k,
    };
    let rows = Rc::new(rows(moved));
    let total_rows = rows.total_rows;
    html! {
        <div
            aria-hidden="true"
            style="position:absolute;left:-10000px;top:0;width:900px;height:600px;overflow:hidden;visibility:hidden;pointer-events:none;"
        >
            <div style="display:flex;height:200px;">
                <TracePane
                    view={0}
                    focused=true
                    rows={Some(rows)}
                    total_rows={total_rows}
                    top={k}
                    scroll_seq={k}
                    cursor={Some(cursor)}
                    annotated_line={Some(4 + k)}
                    syntax=true
                    symbols=true
                    on_viewport={Callback::noop()}
                    on_click={Callback::noop()}
                    on_context={Callback::noop()}
                    on_focus={Callback::noop()}
                    call_nodes={vec![2]}
                    on_fold={Callback::noop()}
                />
            </div>
            <section class="pane data-pane">
                <PaneHeader
                    title="Core registers"
                    title_testid="rehearsal-pane-title"
                    view={0}
                    views={vec![0, 1]}
                    lock={Some(cursor)}
                    on_view={Callback::noop()}
                    on_unlock={Callback::noop()}
                    on_lock={Callback::noop()}
                    on_close={Callback::noop()}
                />
                <RegisterPane
                    kind={RegKind::Core}
                    panel={Some(registers(moved))}
                    selected={2 + k as usize}
                    note={Some("x2 = main+4".to_string())}
                    on_pick={Callback::noop()}
                    on_context={Callback::noop()}
                />
            </section>
            <section class="pane data-pane">
                <MemoryPane
                    memory={Some(memory(moved))}
                    selected={0x3f_ffc4}
                    note={None::<String>}
                    on_pick={Callback::noop()}
                    on_context={Callback::noop()}
                    on_scroll={Callback::noop()}
                />
            </section>
            // Shown by default beside the trace at the first drop.
            <StackPane
                frames={(0..=k).map(|i| CallFrame { call: i, call_node: 1 + i, entry_node: 2 + i, resume_node: None, function: 0x100c0 + 0x40 * i, name: if i == 0 { "main".into() } else { "partition".into() } }).collect::<Vec<_>>()}
                at_end=false
                on_pick={Callback::noop()}
                on_close={Callback::noop()}
            />
            <TimelineStrip
                data={Some(TimelineReply { nodes: 40, depth: (0..40).map(|i| i % 5).collect(), kinds: (0..40u8).map(|i| i % 3).collect() })}
                visible={Some((3 + k, 9 + k))}
                cursor={Some(4 + k)}
                on_seek={Callback::noop()}
                on_close={Callback::noop()}
            />
        </div>
    }
}
