//! One trace's part of a coverage: a single streaming pass, parser only, as
//! `lines` counts (`report::source_lines::count_pcs`), plus where each
//! executed instruction went next, which is all a branch's outcome needs.

use crate::lines::LineReader;
use crate::parse::{CoreSelect, Effect, ParseOptions, Parser, RecordKind};
use crate::report::run::UnparsedLines;
use crate::source::TraceSource;
use crate::state::fasthash::AddrMap;
use crate::Result;

/// What became of the instruction at one address, over a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// Executed (condition passed, or none).
    pub executed: u64,
    /// Reached but failed its condition (`IS`, `CCFAIL`).
    pub failed: u64,
    /// Executed, and the next instruction was not the one after it: a
    /// branch taken.
    pub taken: u64,
    /// Executed, and the next instruction was the one after it. An
    /// executed instruction followed by no instruction (the trace's last)
    /// or by an exception is in neither: where it would have gone is not
    /// known.
    pub fallthrough: u64,
}

impl Outcomes {
    /// Adds `other` in.
    pub fn add(&mut self, other: Outcomes) {
        self.executed += other.executed;
        self.failed += other.failed;
        self.taken += other.taken;
        self.fallthrough += other.fallthrough;
    }
}

/// One trace's outcomes by instruction address: the program's size, not
/// the trace's.
#[derive(Clone, Debug, Default)]
pub struct TraceCounts {
    pub(crate) by_pc: AddrMap<u64, Outcomes>,
    /// Lines the parser did not understand (they count no instruction).
    pub unparsed: UnparsedLines,
    /// Instruction lines read.
    pub instructions: u64,
}

impl TraceCounts {
    /// The outcomes at one address (zero for one never reached).
    pub fn get(&self, pc: u64) -> Outcomes {
        self.by_pc.get(&pc).copied().unwrap_or_default()
    }

    /// Distinct addresses reached.
    pub fn len(&self) -> usize {
        self.by_pc.len()
    }

    /// Whether the trace holds no instruction.
    pub fn is_empty(&self) -> bool {
        self.by_pc.is_empty()
    }
}

/// Reads `source` once and counts each instruction's outcomes. With
/// `ParseOptions::cpu`, only that core's instructions (another core's
/// lines between them change nothing of its flow).
pub fn count_trace<S: TraceSource>(mut source: S, opts: ParseOptions) -> Result<TraceCounts> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(opts, &sample);
    let mut core = opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    let mut out = TraceCounts::default();
    // The last executed instruction and the address after it.
    let mut pending: Option<(u64, u64)> = None;
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        if let Some(core) = &mut core {
            if !core.line(rec.cpu) {
                continue;
            }
        }
        match &rec.kind {
            RecordKind::Instruction(i) => {
                out.instructions += 1;
                if let Some((pc, next)) = pending.take() {
                    let o = out.by_pc.entry(pc).or_default();
                    if i.pc == next {
                        o.fallthrough += 1;
                    } else {
                        o.taken += 1;
                    }
                }
                let o = out.by_pc.entry(i.pc).or_default();
                match i.effect {
                    Effect::Executed => {
                        o.executed += 1;
                        let size = if i.width == 16 { 2 } else { 4 };
                        pending = Some((i.pc, i.pc.wrapping_add(size)));
                    }
                    Effect::CondFail => o.failed += 1,
                    // Nothing was decoded, so nothing ran or failed.
                    Effect::FetchFail => {}
                }
            }
            // An exception between two instructions sends the second to a
            // vector: it says nothing of where the first was going.
            RecordKind::Exception(_) => pending = None,
            RecordKind::Unparsed(u) => {
                out.unparsed.note(line.number, u.reason);
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;

    #[test]
    fn outcomes_follow_the_next_instruction() {
        let trace = b"\
1 clk IT (1) 00001000 d0fe T svc_s : BEQ 0x1000
2 clk IT (2) 00001000 d0fe T svc_s : BEQ 0x1000
3 clk IS (3) 00001000 d0fe T svc_s : BEQ 0x1000
4 clk IT (4) 00001002 2001 T svc_s : MOVS r0,#1
5 clk IT (5) 00001004 f000f800 T svc_s : BL 0x1008
5 clk E 00001008:000000001008 00000001 CoreEvent_IRQ
6 clk IT (6) 00000018 e7fe T svc_s : B 0x18
";
        let c = count_trace(SliceSource(&trace[..]), ParseOptions::default()).unwrap();
        assert_eq!(c.instructions, 6);
        let beq = c.get(0x1000);
        // Both executed BEQs were followed by the BEQ again: taken (the
        // failed one counts as reached, not as an outcome of its own).
        assert_eq!(
            (beq.executed, beq.failed, beq.taken, beq.fallthrough),
            (2, 1, 2, 0)
        );
        assert_eq!(c.get(0x1002).fallthrough, 1);
        // The exception hides where the BL went; the last has no successor.
        assert_eq!(c.get(0x1004).taken + c.get(0x1004).fallthrough, 0);
        assert_eq!(c.get(0x18).executed, 1);
        assert_eq!(c.get(0x18).taken + c.get(0x18).fallthrough, 0);
    }
}
