//! Runs the sample trace (`crate::sample`) through the worker's whole path
//! when the worker starts, ahead of any drop: V8 compiles a wasm function
//! on its first call, tens of milliseconds the first screenful would pay.
//! [`warm_up`] asks every sample question; [`tier_up`] runs both indexing
//! loops long enough that V8 optimises them (its optimised code is the
//! module's, so range workers, which run no warm-up, share it).

use tarmac_lens_core::{
    dialect_of, protocol::Reply, Error, IndexOptions, ParseOptions, RangeJob, Session, TraceSource,
};

use crate::sample::{self, TRACE as SAMPLE};
use crate::web::reading::blob_source::BlobSource;
use crate::web::shared::protocol::{decode, encode, ToPage, ToWorker};

/// The worker's session type: each instance of the generic session is
/// compiled on its own.
pub type WorkerSession = Session<Box<dyn TraceSource>>;

/// Opens a session over the sample, indexes it and asks it every sample
/// question ([`sample::ask_all`]), the answers' and questions' messages
/// encoded as they travel. Returns the session, which answers the page's
/// rehearsal next; an error only for the console: a failed warm-up costs
/// speed, not correctness.
pub fn warm_up() -> Result<WorkerSession, String> {
    let array = js_sys::Array::of1(&js_sys::Uint8Array::from(SAMPLE));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&array).map_err(|e| format!("{e:?}"))?;
    let source: Box<dyn TraceSource> = Box::new(BlobSource::new(blob).map_err(|e| e.to_string())?);
    let mut session = Session::open(source, ParseOptions::default()).map_err(|e| e.to_string())?;
    while !session
        .index_step(4096)
        .map_err(|e| e.to_string())?
        .complete
    {}
    session
        .load_debug_info(sample::ELF.into(), 0)
        .map_err(|e| e.to_string())?;
    let asked = sample::ask_all(|query| {
        let reply = session.answer(query);
        let _ = encode(&ToPage::Answer {
            answers: vec![(0, reply.clone())],
        });
        reply
    });
    // Decoding the first `Ask` of a drop took 3-16 ms of compiling.
    let asks = asked.iter().map(|(q, _)| (0, q.clone())).collect();
    decode::<ToWorker>(encode(&ToWorker::Ask { asks })?)?;
    // A question the sample cannot answer warms less of the path: counted,
    // so the test of the warm-up sees it.
    let failed: Vec<String> = asked
        .iter()
        .filter_map(|(q, r)| match r {
            Reply::Error(e) => Some(format!("{q:?}: {e}")),
            _ => None,
        })
        .collect();
    if failed.is_empty() {
        Ok(session)
    } else {
        Err(format!("warm-up questions failed: {}", failed.join("; ")))
    }
}

/// How many times [`tier_up`] indexes the sample (1.8 MB): enough that V8
/// optimises both indexing loops (40-115 ms, once per spare worker).
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
    // Short intervals run the memory history's interval and segment code
    // often enough to be optimised (else 15 ms of it in a 100 MB drop).
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
