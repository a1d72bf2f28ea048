//! Runs a small embedded trace through the worker's whole path once, when
//! the worker starts. V8 compiles a wasm function on its first call, so
//! without this the first slice of a dropped file paid tens of
//! milliseconds of compiling (parser, index builder, row highlighting,
//! register and memory answers, message encoding) before the first
//! screenful could be sent. The worker starts ahead of the drop, so this
//! cost falls while the person picks a file.

use crate::browse::protocol::{Locate, Query, Reply, WriteTarget};
use crate::browse::Session;
use crate::parse::ParseOptions;
use crate::source::TraceSource;

use super::blob_source::BlobSource;
use super::protocol::{decode, encode, ToPage, ToWorker};

/// A few hundred lines of each common dialect (Fast Models AArch64 and
/// Thumb, ES/LD/ST-style AArch32, gem5), cut from the test traces.
const SAMPLE: &[u8] = include_bytes!("warmup.tarmac");

/// Returns an error only for the console: a failed warm-up costs speed, not
/// correctness.
pub fn warm_up() -> Result<(), String> {
    let array = js_sys::Array::of1(&js_sys::Uint8Array::from(SAMPLE));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&array).map_err(|e| format!("{e:?}"))?;
    // The same type as the worker's sessions: each instance of the generic
    // session is compiled on its own.
    let source: Box<dyn TraceSource> = Box::new(BlobSource::new(blob).map_err(|e| e.0)?);
    let mut session = Session::open(source, ParseOptions::default()).map_err(|e| e.0)?;
    while !session.index_step(4096).map_err(|e| e.0)?.complete {}
    // A question the sample cannot answer warms less of the path: counted,
    // so the test of the warm-up sees it.
    let mut failed = Vec::new();
    let mut asked_all = Vec::new();
    let mut answer = |query: Query| {
        asked_all.push((0, query.clone()));
        let asked = format!("{query:?}");
        let reply = session.answer(query);
        if let Reply::Error(e) = &reply {
            failed.push(format!("{asked}: {e}"));
        }
        // The answer's trip to the page is part of the path too.
        let _ = encode(&ToPage::Answer {
            answers: vec![(0, reply.clone())],
        });
        reply
    };
    answer(Query::Rows {
        view: 0,
        first: 0,
        count: 80,
    });
    let node = match answer(Query::Locate(Locate::Line(400))) {
        Reply::Node(Some(n)) => n.node,
        _ => 0,
    };
    answer(Query::Registers {
        node,
        compare: node.checked_sub(1),
    });
    answer(Query::Memory {
        node,
        addr: 0x3f_ffc0,
        len: 256,
        compare: node.checked_sub(1),
    });
    answer(Query::Write {
        node,
        target: WriteTarget::Register("r0".into()),
        forward: false,
    });
    answer(Query::CallStack { node });
    // What a key press asks (a step and its row), and the other panes'
    // questions: without these the first Down key after indexing paid 3 ms
    // of compiling in the worker (Chrome trace, `wasm.CompileLazy`).
    for delta in [1, -1, 40] {
        answer(Query::Step {
            view: 0,
            node,
            delta,
        });
    }
    answer(Query::RowOfNode { view: 0, node });
    answer(Query::NodeLines { node });
    answer(Query::Symbolize {
        addrs: vec![0x1_0000],
    });
    answer(Query::Eval {
        node,
        expr: "sp+0x10".into(),
    });
    answer(Query::FindPc {
        node,
        pc: 0x1_0000,
        forward: true,
    });
    answer(Query::Events {
        first: 0,
        count: 50,
    });
    answer(Query::EventRank { node });
    for forward in [true, false] {
        answer(Query::NextEvent { node, forward });
    }
    // Text search, plain and regex (the regex crate's compiler is a lot of
    // code): the first search of a dropped trace answers at once.
    for regex in [false, true] {
        let start =
            crate::browse::search::SearchQuery::Start(crate::browse::search::SearchRequest {
                pattern: if regex {
                    r"\bBL\b".into()
                } else {
                    "BL ".into()
                },
                regex,
                ignore_case: false,
                kinds: vec![],
                lines: None,
            });
        if let Reply::Search(r) = answer(Query::Search(start)) {
            answer(Query::Search(crate::browse::search::SearchQuery::More {
                id: r.id,
            }));
            answer(Query::Search(crate::browse::search::SearchQuery::Cancel {
                id: r.id,
            }));
        }
    }
    // The timeline is asked for as soon as a trace opens.
    answer(Query::Timeline { buckets: 1200 });
    // The questions' trip from the page too: decoding the first `Ask` of a
    // drop took 3-16 ms of compiling.
    let ask = encode(&ToWorker::Ask { asks: asked_all })?;
    decode::<ToWorker>(ask)?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("warm-up questions failed: {}", failed.join("; ")))
    }
}
