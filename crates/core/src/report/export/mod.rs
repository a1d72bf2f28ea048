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
    /// Instructions walked (executed or failed their condition).
    pub instructions: u64,
    /// Whether times came from the trace's timestamps (else from the
    /// instruction count).
    pub timestamps: bool,
}

/// One activation of the tree, flattened so the walk can keep a stack of
/// indices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Act {
    /// Entry address: what names the function.
    pub(crate) pc: u64,
    pub(crate) parent: Option<u32>,
    /// The caller's instruction that made the call (its node's pc).
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
    pub(crate) acts: Vec<Act>,
    steps: Vec<(u64, Step)>,
}

pub(crate) fn flatten(root: &Activation) -> Flat {
    let mut flat = Flat {
        acts: Vec::new(),
        steps: Vec::new(),
    };
    flat.acts.push(Act {
        pc: root.entry.pc,
        parent: None,
        call_pc: 0,
    });
    flat.steps.push((root.entry.line, Step::Enter(0)));
    // Iterative: traces recurse deeper than a thread's stack.
    let mut stack: Vec<(&Activation, u32, usize)> = vec![(root, 0, 0)];
    while let Some(top) = stack.last_mut() {
        let (act, id, next) = *top;
        let Some((call, resume, callee)) = act.calls.get(next) else {
            stack.pop();
            continue;
        };
        top.2 += 1;
        let child = flat.acts.len() as u32;
        flat.acts.push(Act {
            pc: callee.entry.pc,
            parent: Some(id),
            call_pc: call.pc,
        });
        flat.steps.push((callee.entry.line, Step::Enter(child)));
        // Its return goes in before its own calls' steps; the sort below
        // puts it after them, as its line is after all of theirs.
        stack.push((callee, child, 0));
        if *resume != crate::engine::Site::default() {
            flat.steps.push((resume.line, Step::Leave));
        }
    }
    // Entries and returns come in line order in the tree; a stable sort
    // keeps a callee's entry before a return on the same line.
    flat.steps.sort_by_key(|s| s.0);
    flat
}

/// What an export does with the walk, in trace order.
pub(crate) trait Sink {
    /// Activation `id` starts at time `ts`, `instructions` executed so far.
    fn enter(&mut self, acts: &[Act], id: u32, ts: u64, instructions: u64) -> Result<()>;
    /// Activation `id` (the innermost) ends.
    fn leave(&mut self, acts: &[Act], id: u32, ts: u64, instructions: u64) -> Result<()>;
    /// An instruction at `pc` ran in activation `id`.
    fn instruction(&mut self, acts: &[Act], id: u32, pc: u64);
    /// An exception or mode change at `ts`.
    fn instant(&mut self, ts: u64, name: &str, category: &str) -> Result<()>;
    /// Where times come from: told before the first entry.
    fn timing(&mut self, _timing: &Timing) {}
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

struct Walker<'s, 'f> {
    flat: &'f Flat,
    next_step: usize,
    stack: Vec<u32>,
    clock: Clock,
    instructions: u64,
    sink: &'s mut dyn Sink,
    error: Option<crate::Error>,
}

impl Walker<'_, '_> {
    fn apply(&mut self, line: u64, ts: u64) -> Result<()> {
        while let Some(&(at, step)) = self.flat.steps.get(self.next_step) {
            if at > line {
                break;
            }
            self.next_step += 1;
            match step {
                Step::Enter(id) => {
                    self.stack.push(id);
                    self.sink
                        .enter(&self.flat.acts, id, ts, self.instructions)?;
                }
                Step::Leave => {
                    // The root is never left: a return below it has no
                    // activation in the tree either.
                    if self.stack.len() > 1 {
                        if let Some(id) = self.stack.pop() {
                            self.sink
                                .leave(&self.flat.acts, id, ts, self.instructions)?;
                        }
                    }
                }
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
        if let Err(e) = self.apply(node.at.line, ts) {
            self.error = Some(e);
            return;
        }
        if node.has_instruction() {
            if let Some(&top) = self.stack.last() {
                self.sink.instruction(&self.flat.acts, top, node.at.pc);
                self.instructions += 1;
            }
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

/// Walks the trace with the tree of `root` (none: a trace without
/// instructions), telling `sink` every entry,
/// return, instruction and event of the selected core; activations still
/// open at the end are left at the last time. Times are the trace's
/// when `timestamps` and it has them, else instruction counts.
pub(crate) fn walk<S: TraceSource>(
    mut source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    root: Option<&Activation>,
    timestamps: bool,
    sink: &mut dyn Sink,
) -> Result<ExportReport> {
    let flat = root.map_or(
        Flat {
            acts: Vec::new(),
            steps: Vec::new(),
        },
        flatten,
    );
    let mut report = ExportReport::default();
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut engine = Engine::new(engine_opts);
    let mut core = engine_opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    let mut walker = Walker {
        flat: &flat,
        next_step: 0,
        stack: Vec::new(),
        clock: Clock {
            timestamps: None,
            last: 0,
        },
        instructions: 0,
        sink,
        error: None,
    };
    let mut held = HeldTime::default();
    let mut mode: Option<Vec<u8>> = None;
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
                walker.sink.timing(&Timing {
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
                walker.clock.last.max(walker.instructions)
            };
            // Later nodes are held at it too: an event's line may be
            // later than the node after it.
            walker.clock.last = ts;
            match &rec.kind {
                RecordKind::Exception(x) => {
                    let name =
                        String::from_utf8_lossy(if x.name.is_empty() { x.text } else { x.name });
                    let name = name.trim();
                    walker.sink.instant(ts, name, "exception")?;
                    if let Some(m) = x.mode {
                        mode = Some(m.to_vec());
                    }
                }
                RecordKind::Instruction(i) => {
                    if let Some(m) = i.mode {
                        if mode.as_deref().is_some_and(|old| old != m) {
                            let text = format!(
                                "mode {} -> {}",
                                String::from_utf8_lossy(mode.as_deref().unwrap_or_default()),
                                String::from_utf8_lossy(m)
                            );
                            walker.sink.instant(ts, &text, "mode")?;
                        }
                        mode = Some(m.to_vec());
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
    while let Some(id) = walker.stack.pop() {
        walker
            .sink
            .leave(&flat.acts, id, end, walker.instructions)?;
    }
    report.instructions = walker.instructions;
    report.timestamps = walker.clock.timestamps == Some(true);
    Ok(report)
}
