//! A cycle profile of a TI C64x+ EP trace (text form): where the cycles
//! went, by execute packet address; the program's discontinuities in
//! order; and how SPLOOP loops ran (from memory or from the loop buffer).
//!
//! EP records carry no registers or memory, so this is the useful summary of
//! such a trace, read in one pass with nothing held but per-address totals.

use crate::Result;
use std::collections::HashMap;
use std::fmt::Write;

use crate::lines::LineReader;
use crate::parse::{EpRecordType, ParseOptions, Parser, RecordKind};
use crate::report::run::UnparsedLines;
use crate::source::TraceSource;

/// Totals for the execute packets starting at one address (and the
/// loop-buffer cycles of a SPLOOP there).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PcCycles {
    /// The packets' address.
    pub pc: u64,
    /// Execute packets at this address (loop-buffer cycles fetch none).
    pub packets: u64,
    /// Their cycles, loop-buffer cycles included.
    pub cycles: u64,
    /// Stall cycles among them.
    pub stall_cycles: u64,
    /// Smallest packet size seen (0 when only loop-buffer cycles).
    pub min_size: u64,
    /// Largest packet size seen.
    pub max_size: u64,
    /// The line of the first record at this address (where the page's
    /// table goes to).
    pub first_line: u64,
}

/// A discontinuity record: the packet at `pc` went to `target`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Discontinuity {
    /// Its line.
    pub line: u64,
    /// Its CPU cycle.
    pub cycle: u64,
    /// Address of the packet that left sequential flow.
    pub pc: u64,
    /// Where execution went.
    pub target: u64,
    /// Size of the packet that caused it; 0 for an interrupt.
    pub size: u64,
    /// The packet's cycles.
    pub cycles: u64,
}

/// A TI EP trace's cycle profile, as `tarmac-lens ep-profile` reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EpProfile {
    /// By total cycles, most first (ties by address).
    pub(crate) by_pc: Vec<PcCycles>,
    pub(crate) discontinuities: Vec<Discontinuity>,
    /// Discontinuities seen (the list keeps the first `MAX_FLOW`).
    pub(crate) discontinuity_count: u64,
    /// Records per type, in the order of [`EpRecordType`].
    pub records: [u64; 6],
    pub(crate) packet_cycles: u64,
    pub(crate) stall_cycles: u64,
    pub(crate) first_cycle: Option<u64>,
    pub(crate) last_cycle: Option<u64>,
    /// SPLOOP: packets fetched from memory and their cycles; cycles run
    /// wholly from the loop buffer; discontinuities in epilogues.
    pub(crate) sploop_memory_packets: u64,
    pub(crate) sploop_memory_cycles: u64,
    pub(crate) sploop_buffer_records: u64,
    pub(crate) sploop_buffer_cycles: u64,
    pub(crate) sploop_discontinuities: u64,
    /// Lines that were not EP records (headers and comments aside).
    pub(crate) other_lines: u64,
    /// Lines the parser did not understand.
    pub unparsed: UnparsedLines,
}

/// The flow list keeps this many discontinuities; the rest are counted.
pub(crate) const MAX_FLOW: usize = 10_000;

/// Addresses `tarmac-lens ep-profile` lists unless `--top` says otherwise.
pub const DEFAULT_TOP: usize = 50;

/// The record types' names, in the order of [`EpProfile::records`].
pub(crate) const RECORD_NAMES: [&str; 6] = [
    "info",
    "discontinuity",
    "normal",
    "sploop-memory",
    "sploop-buffer",
    "sploop-memory-discontinuity",
];

fn type_index(t: &EpRecordType) -> usize {
    match t {
        EpRecordType::Info => 0,
        EpRecordType::Discontinuity => 1,
        EpRecordType::Normal => 2,
        EpRecordType::SploopMemory => 3,
        EpRecordType::SploopBuffer => 4,
        EpRecordType::SploopMemoryDiscontinuity => 5,
    }
}

/// One pass over an EP trace.
pub fn ep_profile<S: TraceSource>(mut source: S, parse: ParseOptions) -> Result<EpProfile> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse, &sample);
    let mut reader = LineReader::new(source);
    let mut p = EpProfile::default();
    let mut by_pc: HashMap<u64, PcCycles> = HashMap::new();
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        let e = match &rec.kind {
            RecordKind::EpTrace(e) => e,
            RecordKind::Blank | RecordKind::Comment | RecordKind::Header(_) => continue,
            RecordKind::Unparsed(u) => {
                p.unparsed.note(line.number, u.reason);
                continue;
            }
            _ => {
                p.other_lines += 1;
                continue;
            }
        };
        p.records[type_index(&e.record_type)] += 1;
        p.first_cycle.get_or_insert(e.cycle);
        p.last_cycle = Some(p.last_cycle.map_or(e.cycle, |c| c.max(e.cycle)));
        match e.record_type {
            // Start/stop markers: no packet.
            EpRecordType::Info => continue,
            EpRecordType::SploopBuffer => {
                // Cycles spent wholly in the loop buffer: the loop's
                // address gets them, but no packet was fetched.
                p.sploop_buffer_records += 1;
                p.sploop_buffer_cycles += e.ep_cycles;
                p.packet_cycles += e.ep_cycles;
                by_pc.entry(e.pc).or_insert_with(|| PcCycles {
                    pc: e.pc,
                    min_size: u64::MAX,
                    first_line: line.number,
                    ..PcCycles::default()
                });
                by_pc.get_mut(&e.pc).expect("inserted").cycles += e.ep_cycles;
                continue;
            }
            EpRecordType::SploopMemory => {
                p.sploop_memory_packets += 1;
                p.sploop_memory_cycles += e.ep_cycles;
            }
            EpRecordType::SploopMemoryDiscontinuity => p.sploop_discontinuities += 1,
            EpRecordType::Discontinuity | EpRecordType::Normal => {}
        }
        if matches!(
            e.record_type,
            EpRecordType::Discontinuity | EpRecordType::SploopMemoryDiscontinuity
        ) {
            p.discontinuity_count += 1;
            if p.discontinuities.len() < MAX_FLOW {
                p.discontinuities.push(Discontinuity {
                    line: line.number,
                    cycle: e.cycle,
                    pc: e.pc,
                    target: e.addr,
                    size: e.ep_size,
                    cycles: e.ep_cycles,
                });
            }
        }
        p.packet_cycles += e.ep_cycles;
        p.stall_cycles += e.stall_cycles;
        let entry = by_pc.entry(e.pc).or_insert_with(|| PcCycles {
            pc: e.pc,
            min_size: u64::MAX,
            first_line: line.number,
            ..PcCycles::default()
        });
        entry.packets += 1;
        entry.cycles += e.ep_cycles;
        entry.stall_cycles += e.stall_cycles;
        entry.min_size = entry.min_size.min(e.ep_size);
        entry.max_size = entry.max_size.max(e.ep_size);
    }
    p.by_pc = by_pc
        .into_values()
        .map(|mut r| {
            // Only loop-buffer cycles: no packet, no size.
            if r.packets == 0 {
                r.min_size = 0;
            }
            r
        })
        .collect();
    p.by_pc
        .sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.pc.cmp(&b.pc)));
    Ok(p)
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

/// The profile as `tarmac-lens ep-profile` prints it; `top` limits the
/// per-address table.
pub fn render(p: &EpProfile, top: usize) -> String {
    let mut out = String::new();
    let span = match (p.first_cycle, p.last_cycle) {
        (Some(a), Some(b)) => b - a,
        _ => 0,
    };
    let _ = writeln!(
        out,
        "cycles {}..{} ({span}); packet cycles {}, stall cycles {} ({})",
        p.first_cycle.unwrap_or(0),
        p.last_cycle.unwrap_or(0),
        p.packet_cycles,
        p.stall_cycles,
        percent(p.stall_cycles, p.packet_cycles)
    );
    let counts: Vec<String> = RECORD_NAMES
        .iter()
        .zip(p.records)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let _ = writeln!(out, "records: {}", counts.join(", "));
    let _ = writeln!(
        out,
        "sploop: {} packets from memory in {} cycles; {} cycles from the loop buffer ({} records); {} epilogue discontinuities",
        p.sploop_memory_packets,
        p.sploop_memory_cycles,
        p.sploop_buffer_cycles,
        p.sploop_buffer_records,
        p.sploop_discontinuities
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:>18} {:>10} {:>12} {:>7} {:>10} {:>7}",
        "pc", "packets", "cycles", "share", "stalls", "size"
    );
    for r in p.by_pc.iter().take(top) {
        let size = if r.min_size == r.max_size {
            r.min_size.to_string()
        } else {
            format!("{}-{}", r.min_size, r.max_size)
        };
        let _ = writeln!(
            out,
            "{:>18} {:>10} {:>12} {:>7} {:>10} {:>7}",
            format!("0x{:08x}", r.pc),
            r.packets,
            r.cycles,
            percent(r.cycles, p.packet_cycles),
            r.stall_cycles,
            size
        );
    }
    if p.by_pc.len() > top {
        let _ = writeln!(out, "({} more addresses)", p.by_pc.len() - top);
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "discontinuities: {}", p.discontinuity_count);
    for d in &p.discontinuities {
        let what = if d.size == 0 { " (interrupt)" } else { "" };
        let _ = writeln!(
            out,
            "  cycle {:>10}  0x{:08x} -> 0x{:08x}  size {} latency {}{what}  (line {})",
            d.cycle, d.pc, d.target, d.size, d.cycles, d.line
        );
    }
    if p.discontinuity_count > p.discontinuities.len() as u64 {
        let _ = writeln!(
            out,
            "  ({} more)",
            p.discontinuity_count - p.discontinuities.len() as u64
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;

    // Cycle:PC:type:EP cycles:address:size:stalls, as the EP text converter
    // writes them (made-up values).
    const TRACE: &[u8] = b"####Version:3
100:0x1000:0:0:0x1000:0:0
100:0x1000:2:1:0x1000:4:0
101:0x1004:2:3:0x1000:8:2
104:0x100c:1:2:0x1000:4:0
106:0x1000:2:1:0x1000:4:0
107:0x1004:2:3:0x1000:8:0
110:0x2000:3:2:0x2000:8:1
112:0x2000:4:20:0x2000:0:0
132:0x2008:5:1:0x3000:4:0
133:0x3000:1:1:0x4000:0:0
";

    #[test]
    fn cycles_by_address_flow_and_sploop() {
        let p = ep_profile(SliceSource(TRACE), ParseOptions::default()).unwrap();
        assert_eq!(p.unparsed.count, 0);
        assert_eq!(p.records, [1, 2, 4, 1, 1, 1]);
        assert_eq!((p.first_cycle, p.last_cycle), (Some(100), Some(133)));
        // 1+3+2+1+3+2+20+1+1
        assert_eq!(p.packet_cycles, 34);
        assert_eq!(p.stall_cycles, 3);
        // The SPLOOP's address: 2 cycles fetched from memory, 20 from the buffer.
        assert_eq!(
            p.by_pc[0],
            PcCycles {
                pc: 0x2000,
                packets: 1,
                cycles: 22,
                stall_cycles: 1,
                min_size: 8,
                max_size: 8,
                first_line: 8
            }
        );
        assert_eq!(
            p.by_pc[1],
            PcCycles {
                pc: 0x1004,
                packets: 2,
                cycles: 6,
                stall_cycles: 2,
                min_size: 8,
                max_size: 8,
                first_line: 4
            }
        );
        assert_eq!(p.by_pc.iter().find(|r| r.pc == 0x1000).unwrap().cycles, 2);
        assert_eq!(p.discontinuity_count, 3);
        assert_eq!(
            p.discontinuities
                .iter()
                .map(|d| (d.pc, d.target, d.size))
                .collect::<Vec<_>>(),
            vec![
                (0x100c, 0x1000, 4),
                (0x2008, 0x3000, 4),
                (0x3000, 0x4000, 0)
            ]
        );
        assert_eq!(
            (
                p.sploop_memory_packets,
                p.sploop_memory_cycles,
                p.sploop_buffer_cycles,
                p.sploop_discontinuities
            ),
            (1, 2, 20, 1)
        );
        let text = render(&p, 2);
        assert!(
            text.starts_with("cycles 100..133 (33); packet cycles 34, stall cycles 3 (8.8%)\n"),
            "{text}"
        );
        assert!(
            text.contains("0x00003000 -> 0x00004000  size 0 latency 1 (interrupt)"),
            "{text}"
        );
        assert!(text.contains("(4 more addresses)"), "{text}");
    }
}
