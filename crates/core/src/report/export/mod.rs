//! Exports for other tools' viewers: Chrome trace-event JSON
//! ([`chrome`]) and Callgrind ([`callgrind`]).
//!
//! Both read the calls from the activation tree the other call reports
//! use ([`super::calltree::build`]), never detecting calls a second way,
//! and then walk the trace once more: the tree says where each activation
//! starts and ends by line, the walk adds what the tree does not keep
//! (each instruction's address, exceptions and mode changes, the times
//! written in the trace).

pub mod callgrind;
pub mod chrome;
pub mod perfetto;
pub(crate) mod stream;

use std::collections::VecDeque;

use super::calltree::Activation;
use super::vcd::{BackwardsTime, HeldTime};
use crate::engine::{Engine, EngineOptions, Node, Observer};
use crate::lines::LineReader;
use crate::parse::{CoreSelect, ParseOptions, Parser, RecordKind, TimeUnit};
use crate::source::TraceSource;
use crate::Result;

/// What an export has to say besides its output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Lines whose timestamp is earlier than one before them (the first
    /// [`MAX_LISTED_BACKWARDS`](super::vcd::MAX_LISTED_BACKWARDS)); each is held at the latest time.
    pub backwards: Vec<BackwardsTime>,
    /// How many lines went backwards in all.
    pub backwards_count: u64,
    /// Lines a pass of its own (the Perfetto export's first) could not
    /// parse; the other exports' calls come with theirs.
    pub unparsed: crate::report::run::UnparsedLines,
    /// Instructions walked (executed or failed their condition).
    pub instructions: u64,
    /// Whether times came from the trace's timestamps (else from the
    /// instruction count).
    pub timestamps: bool,
}

/// An open activation, as the walk tells a [`Sink`] about it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Act {
    /// Entry address: what names the function.
    pub(crate) pc: u64,
    /// The caller's instruction that made the call (its node's pc; 0 for
    /// the outermost activation).
    pub(crate) call_pc: u64,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Enter(u32),
    Leave,
}

/// The tree in entry order, and its entries and returns by line: the
/// transitions the tree was built from, in the order it took them.
pub(crate) struct Flat {
    acts: Vec<Act>,
    steps: Vec<(u64, Step)>,
}

pub(crate) fn flatten(root: Activation<'_>) -> Flat {
    let mut flat = Flat {
        acts: Vec::new(),
        steps: Vec::new(),
    };
    flat.acts.push(Act {
        pc: root.entry.pc,
        call_pc: 0,
    });
    flat.steps.push((root.entry.line, Step::Enter(0)));
    // Iterative: traces recurse deeper than a thread's stack.
    let mut stack: Vec<(Activation<'_>, usize)> = vec![(root, 0)];
    while let Some(top) = stack.last_mut() {
        let (act, next) = *top;
        let Some((call, resume, callee)) = act.calls.get(next) else {
            stack.pop();
            continue;
        };
        top.1 += 1;
        let child = flat.acts.len() as u32;
        flat.acts.push(Act {
            pc: callee.entry.pc,
            call_pc: call.pc,
        });
        flat.steps.push((callee.entry.line, Step::Enter(child)));
        // Its return goes in before its own calls' steps; the sort below
        // puts it after them, as its line is after all of theirs.
        stack.push((callee, 0));
        if *resume != crate::engine::Site::default() {
            flat.steps.push((resume.line, Step::Leave));
        }
    }
    // Entries and returns come in line order in the tree; a stable sort
    // keeps a callee's entry before a return on the same line.
    flat.steps.sort_by_key(|s| s.0);
    flat
}

/// Where the walk learns the calls: a tree in memory, or a first pass's
/// [`stream::Entries`] with the returns the engine confirms as it goes
/// (the same activations, in constant memory: see [`stream`]).
#[derive(Clone, Copy)]
pub(crate) enum Calls<'a> {
    /// The activation tree (none: a trace without instructions).
    Tree(Option<Activation<'a>>),
    /// The nodes where a confirmed call starts.
    Stream(&'a stream::Entries),
}

/// What an export does with the walk, in trace order.
pub(crate) trait Sink {
    /// An activation starts at time `ts`, `instructions` executed so far:
    /// the last of `open`, which holds the open activations outermost
    /// first.
    fn enter(&mut self, open: &[Act], ts: u64, instructions: u64) -> Result<()>;
    /// The innermost activation (the last of `open`) ends.
    fn leave(&mut self, open: &[Act], ts: u64, instructions: u64) -> Result<()>;
    /// An instruction at `pc` ran at time `ts` in the innermost of `open`.
    fn instruction(&mut self, open: &[Act], pc: u64, ts: u64);
    /// An exception or mode change at `ts`.
    fn instant(&mut self, ts: u64, name: &str, category: &str) -> Result<()>;
    /// Where times come from: told before the first entry.
    fn timing(&mut self, _timing: &Timing) {}
    /// The instructions from here on run in `mode` (the trace's text for
    /// it, e.g. `EL1h_ns`, `svc_s`): told before the nodes it holds.
    fn mode(&mut self, _mode: &[u8]) {}
}

/// Times: the trace's (held when they go back), else instruction counts.
/// Kept non-decreasing, since every viewer needs that per thread.
struct Clock {
    timestamps: Option<bool>,
    last: u64,
}

impl Clock {
    fn at(&mut self, node: &Node) -> u64 {
        let t = if self.timestamps == Some(true) {
            node.at.time
        } else {
            node.instructions_before
        };
        self.last = self.last.max(t);
        self.last
    }
}

/// The calls as the walk takes them.
enum Steps<'f> {
    Tree {
        flat: Flat,
        next: usize,
    },
    Stream {
        entries: &'f stream::Entries,
        /// Lines execution returned to, confirmed by the engine but not
        /// yet reached by the walk (a node is told when the next starts).
        returns: VecDeque<u64>,
        /// The previous node's pc: the call site of an entry.
        previous_pc: u64,
    },
}

/// The open activations and where they are told.
struct Open<'s> {
    stack: Vec<Act>,
    instructions: u64,
    sink: &'s mut dyn Sink,
}

impl Open<'_> {
    fn enter(&mut self, act: Act, ts: u64) -> Result<()> {
        self.stack.push(act);
        self.sink.enter(&self.stack, ts, self.instructions)
    }

    fn leave(&mut self, ts: u64) -> Result<()> {
        // The root is never left: a return below it has no activation in
        // the tree either.
        if self.stack.len() > 1 {
            self.sink.leave(&self.stack, ts, self.instructions)?;
            self.stack.pop();
        }
        Ok(())
    }
}

struct Walker<'s, 'f> {
    steps: Steps<'f>,
    open: Open<'s>,
    clock: Clock,
    error: Option<crate::Error>,
}

impl Walker<'_, '_> {
    /// The entries and returns up to `node` (its own included).
    fn apply(&mut self, node: &Node, ts: u64) -> Result<()> {
        let line = node.at.line;
        let open = &mut self.open;
        match &mut self.steps {
            Steps::Tree { flat, next } => {
                while let Some(&(at, step)) = flat.steps.get(*next) {
                    if at > line {
                        break;
                    }
                    *next += 1;
                    match step {
                        Step::Enter(id) => open.enter(flat.acts[id as usize], ts)?,
                        Step::Leave => open.leave(ts)?,
                    }
                }
            }
            Steps::Stream {
                entries,
                returns,
                previous_pc,
            } => {
                // As the tree is built: the outermost activation starts at
                // the first instruction, and entries and returns before it
                // make none.
                if open.stack.is_empty() {
                    returns.clear();
                    if node.has_instruction() {
                        open.enter(
                            Act {
                                pc: node.at.pc,
                                call_pc: 0,
                            },
                            ts,
                        )?;
                    }
                } else {
                    while returns.front().is_some_and(|&at| at <= line) {
                        returns.pop_front();
                        open.leave(ts)?;
                    }
                    // A node is an entry or a return, never both: one
                    // transfer of control reaches it.
                    if entries.contains(node.at.node) {
                        open.enter(
                            Act {
                                pc: node.at.pc,
                                call_pc: *previous_pc,
                            },
                            ts,
                        )?;
                    }
                }
                *previous_pc = node.at.pc;
            }
        }
        Ok(())
    }
}

impl Observer for Walker<'_, '_> {
    fn node(&mut self, node: &Node, _engine: &Engine) {
        if self.error.is_some() {
            return;
        }
        let ts = self.clock.at(node);
        if let Err(e) = self.apply(node, ts) {
            self.error = Some(e);
            return;
        }
        if node.has_instruction() && !self.open.stack.is_empty() {
            let open = &mut self.open;
            open.sink.instruction(&open.stack, node.at.pc, ts);
            open.instructions += 1;
        }
    }

    fn call(&mut self, call: &crate::engine::Call) {
        if let Steps::Stream { returns, .. } = &mut self.steps {
            returns.push_back(call.resume.line);
        }
    }
}

/// `ts` per microsecond for the unit the trace writes its times in, so a
/// viewer's time axis is right when the unit is known; 1 otherwise (one
/// trace time unit, a tick or cycle, shown as 1 µs).
pub fn ticks_per_us(unit: Option<TimeUnit>) -> u64 {
    match unit {
        Some(TimeUnit::Ns) => 1_000,
        // Microseconds are normalised to picoseconds by the parser.
        Some(TimeUnit::Ps) | Some(TimeUnit::Us) => 1_000_000,
        _ => 1,
    }
}

/// How the walk found the trace's times.
pub(crate) struct Timing {
    pub(crate) timestamps: bool,
    pub(crate) unit: Option<TimeUnit>,
}

/// Walks the trace with its `calls`, telling `sink` every entry,
/// return, instruction and event of the selected core; activations still
/// open at the end are left at the last time. Times are the trace's
/// when `timestamps` and it has them, else instruction counts.
pub(crate) fn walk<S: TraceSource>(
    mut source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    calls: Calls<'_>,
    timestamps: bool,
    sink: &mut dyn Sink,
) -> Result<ExportReport> {
    let steps = match calls {
        Calls::Tree(root) => Steps::Tree {
            flat: root.map_or(
                Flat {
                    acts: Vec::new(),
                    steps: Vec::new(),
                },
                flatten,
            ),
            next: 0,
        },
        Calls::Stream(entries) => Steps::Stream {
            entries,
            returns: VecDeque::new(),
            previous_pc: 0,
        },
    };
    let mut report = ExportReport::default();
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut engine = Engine::new(engine_opts);
    let mut core = engine_opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    let mut walker = Walker {
        steps,
        open: Open {
            stack: Vec::new(),
            instructions: 0,
            sink,
        },
        clock: Clock {
            timestamps: None,
            last: 0,
        },
        error: None,
    };
    let mut held = HeldTime::default();
    let mut mode: Vec<u8> = Vec::new();
    let mut next_line = 1;
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        let mine = core.as_mut().is_none_or(|c| c.line(rec.cpu));
        if mine && walker.clock.timestamps.is_none() {
            if let RecordKind::Instruction(_) = rec.kind {
                // The first instruction decides: a trace either times its
                // instructions or does not.
                let timed = timestamps && rec.has_time;
                walker.clock.timestamps = Some(timed);
                walker.open.sink.timing(&Timing {
                    timestamps: timed,
                    unit: rec.unit,
                });
            }
        }
        let timed = walker.clock.timestamps == Some(true);
        if timed && mine && rec.has_time {
            held.see(
                line.number,
                rec.time,
                &mut report.backwards,
                &mut report.backwards_count,
            );
        }
        engine.feed(&line, &rec, &mut walker);
        if let Some(e) = walker.error.take() {
            return Err(e);
        }
        if mine {
            // An event's time is its line's, held like a node's; without
            // timestamps, the instructions so far.
            let ts = if timed {
                walker.clock.last.max(rec.time)
            } else {
                walker.clock.last.max(walker.open.instructions)
            };
            // Later nodes are held at it too: an event's line may be
            // later than the node after it.
            walker.clock.last = ts;
            let sink = &mut *walker.open.sink;
            match &rec.kind {
                RecordKind::Exception(x) => {
                    let name =
                        String::from_utf8_lossy(if x.name.is_empty() { x.text } else { x.name });
                    let name = name.trim();
                    sink.instant(ts, name, "exception")?;
                    // The event's word for the mode (`abt`), not the
                    // instructions' (`abt_s`): the sink hears of the
                    // instructions' only.
                    if let Some(m) = x.mode {
                        mode.clear();
                        mode.extend_from_slice(m);
                    }
                }
                RecordKind::Instruction(i) => {
                    if let Some(m) = i.mode {
                        if m != mode.as_slice() {
                            if !mode.is_empty() {
                                let text = format!(
                                    "mode {} -> {}",
                                    String::from_utf8_lossy(&mode),
                                    String::from_utf8_lossy(m)
                                );
                                sink.instant(ts, &text, "mode")?;
                            }
                            mode.clear();
                            mode.extend_from_slice(m);
                            sink.mode(m);
                        }
                    }
                }
                _ => {}
            }
        }
        next_line = line.number + 1;
    }
    engine.finish(reader.position(), next_line, &mut walker);
    if let Some(e) = walker.error.take() {
        return Err(e);
    }
    let end = walker.clock.last;
    let open = &mut walker.open;
    while !open.stack.is_empty() {
        open.sink.leave(&open.stack, end, open.instructions)?;
        open.stack.pop();
    }
    report.instructions = open.instructions;
    report.timestamps = walker.clock.timestamps == Some(true);
    Ok(report)
}
