//! Batch reports that must print exactly what the reference tools print.
//! Each runs the [`crate::engine::Engine`] over the trace once and formats
//! what it observed.

pub mod callinfo;
pub mod calltree;
mod chunked;
mod ep_explore;
pub mod ep_profile;
mod explore;
pub mod export;
pub mod flamegraph;
pub mod flow;
mod flow_explore;
mod kind;
pub mod names;
pub mod profile;
pub mod run;
pub mod source_lines;
pub mod stats;
mod text_kind;
pub mod truncate;
pub mod vcd;

// What the page's Reports panel asks (its pages, sorts and limits) is
// flat here; each report a person runs keeps its module.
pub use ep_explore::{EpFlowPage, EpPcPage, EpReports, EpSort, EpSummary};
pub use explore::{
    CallsPage, FlameFrame, FlameView, ProfilePage, ProfileRow, ProfileSort, Progressed,
    ReportSummary, Reports, TextKind, TreeNode, TreePage, MAX_FRAMES, MAX_FRAME_DEPTH, MAX_PAGE,
    MIN_FRAME_FRACTION,
};
pub use flow_explore::{FlowPage, FlowReports, FlowRow, FlowSummary, MAX_BLOCKS};
pub use kind::{report_kind, ReportKind};

use crate::engine::{Call, Engine, EngineOptions, Node, Observer, Site, INVALID_PC};
use crate::parse::ParseOptions;
use crate::source::TraceSource;
use crate::Result;

/// A change of call depth between two consecutive nodes: `delta` is +1 at a
/// callee's first node and -1 at the node a call returned to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transition {
    pub(crate) line: u64,
    pub(crate) delta: i8,
    /// The node before the transition line, and the node at it.
    pub(crate) before: Site,
    pub(crate) after: Site,
}

/// The calls a pass found, in the order found (at their return).
pub(crate) type CallLog = chunked::Chunked<Call>;

/// What a whole-trace pass of the engine found, in the form the call-based
/// reports need.
#[derive(Debug, Default)]
pub struct CallAnalysis {
    /// First node holding an instruction.
    pub(crate) first_instruction_node: Option<Site>,
    pub(crate) last_node: Option<Site>,
    /// Line of the first event: the reference tools number lines relative to
    /// it and print unset sites as line `first_event_line - 1`.
    pub(crate) first_event_line: Option<u64>,
    pub(crate) calls: CallLog,
    /// Call-heuristic diagnostics, when asked for.
    pub debug: Vec<String>,
    pub(crate) nodes: u64,
    /// Lines the parser did not understand.
    pub unparsed: run::UnparsedLines,
    /// (call site, entry) of the potential calls still open at the end,
    /// by entry: no return was seen, and their frames were still live
    /// (the stack of a simulation that hung).
    pub(crate) open_calls: Vec<(Site, Site)>,
}

struct Collector<'o, O> {
    a: CallAnalysis,
    also: &'o mut O,
}

impl<O: Observer> Observer for Collector<'_, O> {
    fn node(&mut self, node: &Node, engine: &Engine) {
        self.also.node(node, engine);
        if self.a.first_event_line.is_none() {
            self.a.first_event_line = Some(node.at.line);
        }
        if self.a.first_instruction_node.is_none() && node.at.pc != INVALID_PC {
            self.a.first_instruction_node = Some(node.at);
        }
        self.a.last_node = Some(node.at);
        self.a.nodes += 1;
    }
    fn call(&mut self, call: &Call) {
        self.a.calls.push(*call);
    }
    fn debug(&mut self, text: &str) {
        self.a.debug.push(text.to_string());
    }
}

/// Runs the engine over `source` and collects the calls.
pub fn analyse_calls<S: TraceSource>(
    source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
) -> Result<CallAnalysis> {
    analyse_calls_observing(
        source,
        parse_opts,
        engine_opts,
        &mut crate::engine::NoObserver,
    )
}

/// [`analyse_calls`], also showing every node to `also` (for what the
/// interactive reports count per node in the same pass).
pub(crate) fn analyse_calls_observing<S: TraceSource, O: Observer>(
    source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    also: &mut O,
) -> Result<CallAnalysis> {
    analyse_calls_with(source, parse_opts, engine_opts, also, |_, _, _| {})
}

/// [`analyse_calls_observing`], also showing each line's record to
/// `on_record` (see [`run::run_engine_with`]).
pub(crate) fn analyse_calls_with<S, O, F>(
    source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    also: &mut O,
    on_record: F,
) -> Result<CallAnalysis>
where
    S: TraceSource,
    O: Observer,
    F: FnMut(&crate::lines::Line<'_>, &crate::parse::Record<'_>, &Engine),
{
    let mut obs = Collector {
        a: CallAnalysis::default(),
        also,
    };
    let end = run::run_engine_with(source, parse_opts, engine_opts, &mut obs, on_record)?;
    obs.a.unparsed = end.unparsed;
    obs.a.open_calls = end.open_calls;
    Ok(obs.a)
}

/// Each call's entry and return as transitions, in line order, the first
/// made kept where two share a line (the reference tools key them by
/// line). Sorted as (line, order made) keys, 16 bytes each, and made as
/// they are taken: the 96-byte transitions themselves, held, were the
/// Reports pass's peak (446 → 301 MB at 662,304 calls with the calls
/// dropped first; docs/performance.md).
fn transitions(calls: &CallLog) -> impl Iterator<Item = Transition> + '_ {
    transition_keys(calls)
        .into_iter()
        .map(move |(line, k)| transition(calls, line, k))
}

/// [`transitions`], giving back each chunk of calls once no transition
/// left needs it, so what is built from them can reuse the memory.
struct TransitionsFreeing {
    keys: std::vec::IntoIter<(u64, usize)>,
    calls: CallLog,
    /// Each chunk's last line (its calls are all taken once the keys pass
    /// it) and the chunk, ascending.
    last_lines: Vec<(u64, usize)>,
    freed: usize,
}

impl TransitionsFreeing {
    fn new(calls: CallLog) -> TransitionsFreeing {
        let keys = transition_keys(&calls).into_iter();
        let mut last_lines: Vec<(u64, usize)> = (0..calls.chunk_count())
            .map(|j| {
                let lines = calls
                    .chunk(j)
                    .iter()
                    .map(|c| c.entry.line.max(c.resume.line));
                (lines.max().unwrap_or(0), j)
            })
            .collect();
        last_lines.sort_unstable();
        TransitionsFreeing {
            keys,
            calls,
            last_lines,
            freed: 0,
        }
    }
}

impl Iterator for TransitionsFreeing {
    type Item = Transition;

    fn next(&mut self) -> Option<Transition> {
        let (line, k) = self.keys.next()?;
        while let Some(&(_, j)) = self.last_lines.get(self.freed).filter(|(l, _)| *l < line) {
            self.calls.free_chunk(j);
            self.freed += 1;
        }
        Some(transition(&self.calls, line, k))
    }
}

/// (line, 2 × call for its entry or 2 × call + 1 for its return), sorted,
/// the first of each line kept.
fn transition_keys(calls: &CallLog) -> Vec<(u64, usize)> {
    let mut keys: Vec<(u64, usize)> = Vec::with_capacity(calls.len() * 2);
    for (i, c) in calls.iter().enumerate() {
        keys.push((c.entry.line, 2 * i));
        keys.push((c.resume.line, 2 * i + 1));
    }
    keys.sort_unstable();
    keys.dedup_by_key(|k| k.0);
    keys
}

fn transition(calls: &CallLog, line: u64, k: usize) -> Transition {
    let c = &calls[k / 2];
    if k.is_multiple_of(2) {
        Transition {
            line,
            delta: 1,
            before: c.call_site,
            after: c.entry,
        }
    } else {
        Transition {
            line,
            delta: -1,
            before: c.exit,
            after: c.resume,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{transitions, Transition, TransitionsFreeing};
    use crate::engine::{Call, Site};

    /// Against the plain way: every transition made in order, stably
    /// sorted by line, the first of each line kept. Lines collide often
    /// (a call's return on another's entry, calls sharing a line).
    #[test]
    fn transitions_are_the_first_made_at_each_line_in_line_order() {
        let site = |line: u64, node: u64| Site {
            line,
            node,
            ..Site::default()
        };
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        // Over three of the log's chunks.
        let calls: Vec<Call> = (0..40_000)
            .map(|i| Call {
                call_site: site(next(6_000), i),
                entry: site(next(6_000), i + 1),
                exit: site(next(6_000), i + 2),
                resume: site(next(6_000), i + 3),
            })
            .collect();
        let mut want: Vec<Transition> = Vec::new();
        for c in &calls {
            want.push(Transition {
                line: c.entry.line,
                delta: 1,
                before: c.call_site,
                after: c.entry,
            });
            want.push(Transition {
                line: c.resume.line,
                delta: -1,
                before: c.exit,
                after: c.resume,
            });
        }
        want.sort_by_key(|t| t.line);
        want.dedup_by_key(|t| t.line);
        assert!(want.len() > 250, "{} lines", want.len());
        let log: super::CallLog = calls.iter().copied().collect();
        assert_eq!(log.len(), calls.len());
        assert_eq!(transitions(&log).collect::<Vec<_>>(), want);
        assert_eq!(TransitionsFreeing::new(log).collect::<Vec<_>>(), want);
    }

    /// Calls logged at their return, as a pass logs them: each chunk is
    /// given back once the sweep passes its last return, not at the end.
    #[test]
    fn chunks_of_calls_are_freed_as_the_transitions_pass_them() {
        let site = |line: u64| Site {
            line,
            node: line,
            ..Site::default()
        };
        let n = 3 * super::CallLog::PER_CHUNK as u64 + 5;
        let calls: Vec<Call> = (0..n)
            .map(|i| Call {
                call_site: site(10 * i),
                entry: site(10 * i + 1),
                exit: site(10 * i + 5),
                resume: site(10 * i + 6),
            })
            .collect();
        let log: super::CallLog = calls.iter().copied().collect();
        let want: Vec<Transition> = transitions(&log).collect();
        assert_eq!(want.len() as u64, 2 * n);
        let mut freeing = TransitionsFreeing::new(log);
        let mut got = Vec::new();
        let mut freed_at_half = None;
        while let Some(t) = freeing.next() {
            got.push(t);
            if got.len() as u64 == n {
                freed_at_half = Some(freeing.freed);
            }
        }
        assert_eq!(got, want);
        assert_eq!(freed_at_half, Some(1));
        assert_eq!(
            freeing.freed, 3,
            "the last chunk's last line is the last key"
        );
    }
}
