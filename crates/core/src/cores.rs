//! The cores of a multi-core trace: which `<cpu>` names occur and how much
//! each did, so a person can pick one (`--cpu`, the page's core picker)
//! and reports refuse to mix cores' registers and calls unasked.

use crate::lines::LineReader;
use crate::parse::{ParseOptions, Parser, RecordKind};
use crate::source::{SliceSource, TraceSource};
use crate::{Error, Result};

/// One core's share of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreCount {
    /// The `<cpu>` field as written.
    pub name: String,
    /// Lines with this core's field, plus lines without one that follow them.
    pub lines: u64,
    /// Instruction lines of this core.
    pub instructions: u64,
}

/// Bytes [`check_single_core`] looks at: the cores of a multi-core run all
/// start within the first few thousand lines.
pub(crate) const CHECK_BYTES: u64 = 1 << 20;

/// Counts per core, in order of first appearance. Lines before the first
/// `<cpu>` field (headers, a dialect without the field) are not counted.
pub fn count<S: TraceSource>(mut source: S, opts: ParseOptions) -> Result<Vec<CoreCount>> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(opts, &sample);
    let mut reader = LineReader::new(source);
    let mut cores: Vec<CoreCount> = Vec::new();
    let mut current: Option<usize> = None;
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        if let Some(cpu) = rec.cpu {
            let i = match cores.iter().position(|c| c.name.as_bytes() == cpu) {
                Some(i) => i,
                None => {
                    cores.push(CoreCount {
                        name: String::from_utf8_lossy(cpu).into_owned(),
                        lines: 0,
                        instructions: 0,
                    });
                    cores.len() - 1
                }
            };
            current = Some(i);
        }
        if let Some(c) = current.and_then(|i| cores.get_mut(i)) {
            c.lines += 1;
            if matches!(rec.kind, RecordKind::Instruction(_)) {
                c.instructions += 1;
            }
        }
    }
    Ok(cores)
}

/// An error naming the cores when the start of the trace interleaves
/// several and no core was chosen: one register file and call stack fed
/// from two CPUs would give nonsense, not a report.
pub fn check_single_core<S: TraceSource>(source: &mut S, opts: ParseOptions) -> Result<()> {
    if opts.cpu.is_some() {
        return Ok(());
    }
    let mut head = vec![0u8; source.len().min(CHECK_BYTES) as usize];
    let n = source.read_at(0, &mut head)?;
    head.truncate(n);
    // A cut last line could name a core partly.
    if (n as u64) < source.len() {
        let end = head.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        head.truncate(end);
    }
    let cores = count(SliceSource(&head), opts)?;
    if cores.len() < 2 {
        return Ok(());
    }
    Err(Error::MixedCores(
        cores.into_iter().map(|c| c.name).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &[u8] = b"0 clk cpu0 IT (1) 00001000 d503201f O EL3h_s : NOP\n\
0 clk cpu1 IT (1) 00002000 d503201f O EL3h_s : NOP\n\
1 clk cpu1 IT (2) 00002004 d503201f O EL3h_s : NOP\n\
1 clk cpu1 R X0 0000000000000001\n\
2 clk cpu0 IT (2) 00001004 d503201f O EL3h_s : NOP\n";

    #[test]
    fn counts_each_core() {
        let cores = count(SliceSource(TWO), ParseOptions::default()).unwrap();
        assert_eq!(
            cores,
            vec![
                CoreCount {
                    name: "cpu0".into(),
                    lines: 2,
                    instructions: 2
                },
                CoreCount {
                    name: "cpu1".into(),
                    lines: 3,
                    instructions: 2
                },
            ]
        );
    }

    #[test]
    fn mixing_cores_unasked_is_refused() {
        let err = check_single_core(&mut SliceSource(TWO), ParseOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("2 cores (cpu0, cpu1)"), "{}", err);
        let opts = ParseOptions {
            cpu: Some("cpu1".parse().unwrap()),
            ..ParseOptions::default()
        };
        assert!(check_single_core(&mut SliceSource(TWO), opts).is_ok());
        let one = b"0 clk cpu0 IT (1) 00001000 d503201f O EL3h_s : NOP\n";
        assert!(check_single_core(&mut SliceSource(one), ParseOptions::default()).is_ok());
    }
}
