//! Runs a small embedded trace through the worker's whole path once, when
//! the worker starts. V8 compiles a wasm function on its first call, so
//! without this the first slice of a dropped file paid tens of
//! milliseconds of compiling (parser, index builder, row highlighting,
//! register and memory answers, message encoding) before the first
//! screenful could be sent. The worker starts ahead of the drop, so this
//! cost falls while the person picks a file.
//!
//! That first compile is V8's quick one (Liftoff); a function is compiled
//! again, optimised (TurboFan, on a background thread), only once it has
//! run enough. The indexing loops ran too little in the warm-up
//! (`Session::index_step`, 32 KB of wasm with the engine inlined) or not at
//! all (`RangeJob::step`), so a dropped 100 MB trace ran its first ~300 ms
//! of indexing unoptimised while the loop's optimising compile (150-220
//! ms, on the core the browser's file reading needs) ran beside it (Chrome
//! trace, `wasm.TopTierCompilation`). [`tier_up`] runs both loops over the
//! sample repeated, long enough that V8 optimises them before any drop; the
//! optimised code belongs to the module, which the page's workers share
//! (one module in the trace for all of them), so range workers, which run
//! no warm-up, get it too.

use tarmac_lens_core::browse::protocol::{Locate, Query, RegMark, Reply, WriteTarget};
use tarmac_lens_core::browse::Session;
use tarmac_lens_core::index::parallel::dialect_of;
use tarmac_lens_core::index::range_job::RangeJob;
use tarmac_lens_core::index::IndexOptions;
use tarmac_lens_core::parse::ParseOptions;
use tarmac_lens_core::source::TraceSource;
use tarmac_lens_core::Error;

use crate::web::reading::blob_source::BlobSource;
use crate::web::shared::protocol::{decode, encode, ToPage, ToWorker};

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
    let source: Box<dyn TraceSource> = Box::new(BlobSource::new(blob).map_err(|e| e.to_string())?);
    let mut session = Session::open(source, ParseOptions::default()).map_err(|e| e.to_string())?;
    while !session
        .index_step(4096)
        .map_err(|e| e.to_string())?
        .complete
    {}
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
        mark: RegMark::Written,
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
        let start = tarmac_lens_core::browse::search::SearchQuery::Start(
            tarmac_lens_core::browse::search::SearchRequest {
                pattern: if regex {
                    r"\bBL\b".into()
                } else {
                    "BL ".into()
                },
                regex,
                ignore_case: false,
                kinds: vec![],
                lines: None,
            },
        );
        if let Reply::Search(r) = answer(Query::Search(start)) {
            answer(Query::Search(
                tarmac_lens_core::browse::search::SearchQuery::More { id: r.id },
            ));
            answer(Query::Search(
                tarmac_lens_core::browse::search::SearchQuery::Cancel { id: r.id },
            ));
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

/// How many times [`tier_up`] indexes the sample (1.8 MB): enough that V8
/// optimises both indexing loops. As a worker's first task the pass takes
/// 40-115 ms (it pays the indexing code's first compiles too), once per
/// spare worker.
const TIER_UP_REPEATS: u64 = 64;

/// The checkpoint interval of [`tier_up`]'s range pass.
const TIER_UP_CHECKPOINT_BYTES: u64 = 2 << 10;

/// The sample over and over, as one long trace (times going back at each
/// repeat, which the engine clamps as it does for any trace).
struct Repeated {
    times: u64,
}

impl TraceSource for Repeated {
    fn len(&self) -> u64 {
        SAMPLE.len() as u64 * self.times
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, Error> {
        let end = self.len();
        let mut at = offset.min(end);
        let mut filled = 0;
        while filled < buf.len() && at < end {
            let i = (at % SAMPLE.len() as u64) as usize;
            let n = (SAMPLE.len() - i).min(buf.len() - filled);
            buf[filled..filled + n].copy_from_slice(&SAMPLE[i..i + n]);
            filled += n;
            at += n as u64;
        }
        Ok(filled)
    }
}

/// What [`tier_up`] indexed: lines by the session's loop, by the range's,
/// and the memory history intervals the range closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TieredUp {
    pub session_lines: u64,
    pub range_lines: u64,
    pub range_intervals: usize,
}

/// Indexes the repeated sample with the session's loop, in the worker's
/// step size and with its source type (each instance of the generic
/// session is a function of its own), and its second half with the range
/// workers' loop.
pub fn tier_up() -> Result<TieredUp, String> {
    let source: Box<dyn TraceSource> = Box::new(Repeated {
        times: TIER_UP_REPEATS,
    });
    let mut session = Session::open(source, ParseOptions::default()).map_err(|e| e.to_string())?;
    while !session
        .index_step(super::runtime::SESSION_STEP_BYTES)
        .map_err(|e| e.to_string())?
        .complete
    {}
    let session_lines = session.progress().lines;
    let mut source = Repeated {
        times: TIER_UP_REPEATS,
    };
    // The memory history's interval and segment code (closing an interval
    // every 64 KiB, a segment table every 64 intervals) runs too seldom in
    // 1.8 MB at the default interval to be optimised: it was, during a
    // 100 MB drop (15 ms for `MemHistory::push_interval` alone). Short
    // intervals here run it a segment every 128 KiB; it is the same code
    // whatever the interval.
    let opts = IndexOptions {
        checkpoint_bytes: TIER_UP_CHECKPOINT_BYTES,
        ..IndexOptions::default()
    };
    let dialect = dialect_of(&mut source, &opts).map_err(|e| e.to_string())?;
    let end = source.len();
    let mut job =
        RangeJob::new(&mut source, opts, dialect, end / 2, end).map_err(|e| e.to_string())?;
    while !job
        .step(&mut source, super::runtime::RANGE_STEP_BYTES)
        .map_err(|e| e.to_string())?
    {}
    let (part, stats) = job.finish();
    Ok(TieredUp {
        session_lines,
        range_lines: stats.lines,
        range_intervals: part.memory_intervals(),
    })
}
