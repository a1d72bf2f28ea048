//! The EP profile as the page explores it (`report::ep_explore`): its text
//! is `tarmac-lens ep-profile`'s byte for byte, its table and flow list hold
//! what that text lists, sorted and paged, every reply bounded; and the
//! report worker's choice of reports by the trace's kind.

use tarmac_lens_core::{
    read_sample,
    report::ep_profile::PcCycles,
    report::{report_kind, EpReports, EpSort, ReportKind, MAX_PAGE},
    FileSource, ParseOptions, SliceSource,
};

use crate::common::{cli_text, data};

const EP: &str = "ep/sploop-loop.ept.txt";

fn reports() -> EpReports {
    EpReports::compute(
        FileSource::open(&data(EP)).unwrap(),
        ParseOptions::default(),
    )
    .unwrap()
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn the_text_is_the_cli_output_byte_for_byte() {
    let path = data(EP);
    let want = cli_text(&["ep-profile", path.to_str().unwrap(), "--no-index"]);
    assert_eq!(reports().text(), want);
}

#[test]
fn the_summary_and_table_hold_what_the_cli_prints() {
    let path = data(EP);
    let text = cli_text(&["ep-profile", path.to_str().unwrap(), "--top", "1000"]);
    let r = reports();
    let s = r.summary();
    assert!(!r.is_empty());
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "cycles {}..{} ({}); packet cycles {}, stall cycles {} ({:.1}%)",
            s.first_cycle.unwrap(),
            s.last_cycle.unwrap(),
            s.last_cycle.unwrap() - s.first_cycle.unwrap(),
            s.packet_cycles,
            s.stall_cycles,
            s.stall_cycles as f64 * 100.0 / s.packet_cycles as f64
        )
    );
    let records: Vec<String> = s.records.iter().map(|(n, c)| format!("{n} {c}")).collect();
    assert_eq!(
        text.lines().nth(1).unwrap(),
        format!("records: {}", records.join(", "))
    );
    assert_eq!(
        text.lines().nth(2).unwrap(),
        format!(
            "sploop: {} packets from memory in {} cycles; {} cycles from the loop buffer ({} records); {} epilogue discontinuities",
            s.sploop_memory_packets,
            s.sploop_memory_cycles,
            s.sploop_buffer_cycles,
            s.sploop_buffer_records,
            s.sploop_discontinuities
        )
    );
    assert!(s.sploop_buffer_cycles > 0 && s.sploop_memory_cycles > 0);
    // The CLI's table (most cycles first) is the page's default order.
    let rows: Vec<(u64, u64, u64, u64, String)> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("pc "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                hex(f[0]),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].to_string(),
            )
        })
        .collect();
    assert_eq!(rows.len() as u64, s.addresses);
    let page = r.by_pc(EpSort::Cycles, true, 0, 1000);
    assert_eq!(page.total, s.addresses);
    let got: Vec<_> = page
        .rows
        .iter()
        .map(|p| {
            let size = if p.min_size == p.max_size {
                p.min_size.to_string()
            } else {
                format!("{}-{}", p.min_size, p.max_size)
            };
            (p.pc, p.packets, p.cycles, p.stall_cycles, size)
        })
        .collect();
    assert_eq!(got, rows);
    assert_eq!(
        page.rows.iter().map(|r| r.cycles).sum::<u64>(),
        s.packet_cycles
    );
}

#[test]
fn each_address_knows_its_first_record() {
    let text = std::fs::read_to_string(data(EP)).unwrap();
    // (pc, line) of every packet record (info records mark start and stop).
    let records: Vec<(u64, u64)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
        .filter_map(|(i, l)| {
            let f: Vec<&str> = l.split(':').collect();
            (f[2] != "0").then(|| (hex(f[1]), i as u64 + 1))
        })
        .collect();
    let r = reports();
    let rows = r.by_pc(EpSort::Pc, false, 0, MAX_PAGE).rows;
    assert!(rows.len() > 10);
    for row in rows {
        let first = records.iter().find(|(pc, _)| *pc == row.pc).unwrap().1;
        assert_eq!(row.first_line, first, "0x{:x}", row.pc);
    }
}

#[test]
fn the_table_sorts_by_each_column_and_pages() {
    let r = reports();
    let all = r.by_pc(EpSort::Pc, false, 0, MAX_PAGE).rows;
    assert!(all.windows(2).all(|w| w[0].pc < w[1].pc));
    for (sort, key) in [
        (
            EpSort::Packets,
            (|p: &PcCycles| p.packets) as fn(&PcCycles) -> u64,
        ),
        (EpSort::Cycles, |p| p.cycles),
        (EpSort::Stalls, |p| p.stall_cycles),
    ] {
        for descending in [false, true] {
            let rows = r.by_pc(sort, descending, 0, MAX_PAGE).rows;
            assert_eq!(rows.len(), all.len());
            assert!(rows.windows(2).all(|w| {
                let (a, b) = (key(&w[0]), key(&w[1]));
                (if descending { a > b } else { a < b }) || (a == b && w[0].pc < w[1].pc)
            }));
        }
    }
    // Pages join up to the whole table.
    let mut paged = Vec::new();
    let mut offset = 0;
    loop {
        let p = r.by_pc(EpSort::Stalls, true, offset, 7);
        assert!(p.rows.len() <= 7);
        if p.rows.is_empty() {
            break;
        }
        offset += p.rows.len() as u64;
        paged.extend(p.rows);
    }
    assert_eq!(paged, r.by_pc(EpSort::Stalls, true, 0, MAX_PAGE).rows);
    // A page never exceeds MAX_PAGE; an offset past the end gives none.
    assert!(r.by_pc(EpSort::Pc, false, 0, usize::MAX).rows.len() <= MAX_PAGE);
    assert!(r.by_pc(EpSort::Pc, false, u64::MAX, 10).rows.is_empty());
}

#[test]
fn the_flow_list_pages_through_the_cli_discontinuities() {
    let path = data(EP);
    let text = cli_text(&["ep-profile", path.to_str().unwrap()]);
    let want: Vec<(u64, u64, u64, u64, u64, u64)> = text
        .lines()
        .filter(|l| l.starts_with("  cycle "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // cycle N PC -> TARGET size S latency L [(interrupt)] (line N)
            let line = f.last().unwrap().trim_end_matches(')');
            (
                f[1].parse().unwrap(),
                hex(f[2]),
                hex(f[4]),
                f[6].parse().unwrap(),
                f[8].parse().unwrap(),
                line.parse().unwrap(),
            )
        })
        .collect();
    let r = reports();
    let s = r.summary();
    assert_eq!(want.len() as u64, s.listed);
    assert_eq!(s.listed, s.discontinuities);
    assert!(s.listed as usize > MAX_PAGE, "the sample pages");
    let mut got = Vec::new();
    let mut offset = 0;
    loop {
        let p = r.flow(offset, usize::MAX);
        assert_eq!(p.total, s.listed);
        assert!(p.rows.len() <= MAX_PAGE);
        if p.rows.is_empty() {
            break;
        }
        offset += p.rows.len() as u64;
        got.extend(
            p.rows
                .iter()
                .map(|d| (d.cycle, d.pc, d.target, d.size, d.cycles, d.line)),
        );
    }
    assert_eq!(got, want);
    // Interrupts (size 0) are in the list.
    assert!(got.iter().any(|d| d.3 == 0));
}

#[test]
fn an_ep_trace_without_records_is_empty() {
    let r = EpReports::compute(SliceSource(b"####Version:3\n"), ParseOptions::default()).unwrap();
    assert!(r.is_empty());
    assert_eq!(r.by_pc(EpSort::Cycles, true, 0, 10).total, 0);
    assert_eq!(r.flow(0, 10).total, 0);
}

#[test]
fn the_reports_follow_the_trace_kind() {
    let kind = |rel: &str| {
        let mut src = FileSource::open(&data(rel)).unwrap();
        report_kind(&read_sample(&mut src).unwrap(), ParseOptions::default())
    };
    assert_eq!(kind(EP), ReportKind::Ep);
    assert_eq!(
        kind("tracegen/quicksort-arm-O2-fastmodel-2M.tarmac"),
        ReportKind::Calls
    );
    let sample = |text: &[u8]| report_kind(text, ParseOptions::default());
    assert_eq!(
        sample(b"1 clk FD (1) 00001000 00002000 A\n5 clk FI (5) 00002010 00003000 T\n"),
        ReportKind::Flow
    );
    // Branch lines among instruction lines: the call reports.
    assert_eq!(
        sample(
            b"1 clk IT (1) 00001000 e3a0d901 A svc_s : MOV r13,#0x400000\n\
              2 clk FD (2) 00001004 00002000 A\n"
        ),
        ReportKind::Calls
    );
    // Neither: the call reports, which say there is nothing to show.
    assert_eq!(sample(b""), ReportKind::Calls);
}
