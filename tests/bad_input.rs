//! Hostile and damaged input: every case either indexes, with each line it
//! could not understand listed (number and reason), or fails with one clear
//! message. Nothing panics, and nothing that could be understood is dropped:
//! every line is counted under exactly one record kind, and the lines that
//! parse give the same records as in an undamaged trace. The table of cases
//! and outcomes is in docs/robustness.md.
use crate::common::{self, Dir};

use std::collections::BTreeMap;

use tarmac_lens_core::{
    compute_stats,
    protocol::{Locate, Memory, Query, RegMark, Registers, Reply, Rows},
    FileSource, Index, IndexOptions, ParseOptions, Session, SliceSource, Stats, SymbolTable,
    MAX_LISTED_UNPARSED,
};

/// What indexing a damaged trace gave.
#[derive(Debug)]
struct Outcome {
    stats: Stats,
    nodes: u64,
    instructions: u64,
    /// (line, reason) of every unparsed line listed.
    unparsed: Vec<(u64, String)>,
}

impl Outcome {
    fn records(&self) -> &BTreeMap<String, u64> {
        &self.stats.records
    }
    fn count(&self, kind: &str) -> u64 {
        self.stats.count(kind)
    }
}

/// Indexes `data` every way the tools do (statistics, streamed index, index
/// of a slice, the browser's session in small steps), checks the invariants
/// every input must keep, and returns what was found.
fn analyse(data: &[u8]) -> Outcome {
    let s = compute_stats(SliceSource(data), ParseOptions::default(), |_| {}).unwrap();
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    let partial = u64::from(data.last().is_some_and(|&b| b != b'\n'));
    assert_eq!(s.lines, newlines + partial, "every byte is in a line");
    assert_eq!(
        s.records.values().sum::<u64>(),
        s.lines,
        "every line counted once: {:?}",
        s.records
    );
    assert_eq!(s.unparsed, s.count("unparsed"));
    assert_eq!(
        s.unparsed_details.len() as u64,
        s.unparsed.min(MAX_LISTED_UNPARSED as u64)
    );
    for u in &s.unparsed_details {
        assert!(u.line >= 1 && u.line <= s.lines, "{u:?}");
        assert!(!u.reason.is_empty(), "{u:?}");
    }

    let opts = IndexOptions {
        checkpoint_bytes: 192,
        ..IndexOptions::default()
    };
    let streamed = Index::build(&mut SliceSource(data), opts, |_| {}).unwrap();
    let sliced = Index::build_from_slice(data, opts, |_| {});
    assert_eq!(streamed.summary(), sliced.summary());
    let summary = sliced.summary();
    assert_eq!(summary.lines, s.lines);
    assert_eq!(summary.bytes, data.len() as u64);

    // The browser's path: indexing in small steps, then a few queries.
    let mut session = Session::open(SliceSource(data), ParseOptions::default()).unwrap();
    while !session.index_step(1000).unwrap().complete {}
    assert_eq!(session.stats(), Some(&s));
    for q in [
        Query::Locate(Locate::Start),
        Query::Locate(Locate::End),
        Query::Rows(Rows {
            view: 0,
            first: 0,
            count: 1000,
        }),
        Query::Registers(Registers {
            node: summary.nodes.saturating_sub(1),
            mark: RegMark::None,
        }),
    ] {
        let r = session.answer(q.clone());
        if summary.nodes > 0 {
            assert!(!matches!(r, Reply::Error(_)), "{q:?}: {r:?}");
        }
    }

    Outcome {
        unparsed: s
            .unparsed_details
            .iter()
            .map(|u| (u.line, u.reason.clone()))
            .collect(),
        nodes: summary.nodes,
        instructions: summary.instructions,
        stats: s,
    }
}

/// A short well-formed AArch64 trace: 4 instructions with register and
/// memory lines.
const GOOD: &str = "\
0 clk R cpsr 000003cd
0 clk E 00000000:000000000000 00000000 CoreEvent_Reset
1 clk IT (1) 00008000 d2a00200 O EL3h_s : MOV      x0,#0x100000
1 clk R X0 0000000000100000
2 clk IT (2) 00008004 9100001f O EL3h_s : MOV      sp,x0
2 clk R SP_EL3 0000000000100000
3 clk IT (3) 00008008 94000001 O EL3h_s : BL       {pc}+4 ; 0x800c
3 clk R X30 000000000000800c
4 clk IT (4) 0000800c a9bf4ffe O EL3h_s : STP      x30,x19,[sp,#-0x10]!
4 clk MW8 000ffff0:0000000ffff0 00000000_0000800c
4 clk MW8 000ffff8:0000000ffff8 00000000_00000000
4 clk R SP_EL3 00000000000ffff0
";

/// The records of the good trace, line by line, as (kind, time).
fn kinds(data: &[u8]) -> Vec<(&'static str, u64)> {
    let mut parser = tarmac_lens_core::Parser::for_sample(ParseOptions::default(), data);
    tarmac_lens_core::SliceLines::new(data)
        .map(|l| {
            let r = parser.parse_line(l.text);
            (r.kind.name(), r.time)
        })
        .collect()
}

/// `GOOD` with line `n` (1-based) replaced.
fn good_with(n: usize, line: &str) -> String {
    GOOD.lines()
        .enumerate()
        .map(|(i, l)| format!("{}\n", if i + 1 == n { line } else { l }))
        .collect()
}

/// Asserts exactly these lines are unparsed (and listed) and every other
/// line gives the record it gives in `GOOD`.
fn only_these_lines_lost(data: &[u8], o: &Outcome, lost: &[u64]) {
    let listed: Vec<u64> = o.unparsed.iter().map(|u| u.0).collect();
    assert_eq!(listed, lost, "{:?}", o.unparsed);
    let want = kinds(GOOD.as_bytes());
    for (i, k) in kinds(data).iter().enumerate() {
        if !lost.contains(&(i as u64 + 1)) && i < want.len() {
            assert_eq!(k.0, want[i].0, "line {}", i + 1);
        }
    }
}

#[test]
fn a_good_trace_is_the_baseline() {
    let o = analyse(GOOD.as_bytes());
    assert_eq!(o.stats.lines, 12);
    assert!(o.unparsed.is_empty());
    assert_eq!((o.nodes, o.instructions), (5, 4));
}

#[test]
fn empty_file_indexes_as_nothing() {
    let o = analyse(b"");
    assert_eq!((o.stats.lines, o.nodes, o.stats.unparsed), (0, 0, 0));
    assert!(o.records().is_empty());
}

/// Deterministic xorshift, so failures reproduce.
fn garbage(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

#[test]
fn binary_garbage_lists_every_line_as_unparsed() {
    let data = garbage(256 << 10, 0x9e37_79b9_7f4a_7c15);
    let o = analyse(&data);
    assert!(o.stats.lines > 900, "{}", o.stats.lines);
    // Random bytes almost never form a record: all lines but blank or
    // comment ones are listed (the first 100) with a reason.
    let understood = o.stats.lines - o.count("unparsed") - o.count("blank") - o.count("comment");
    assert!(understood * 100 < o.stats.lines, "{:?}", o.records());
    assert_eq!(o.unparsed.len(), MAX_LISTED_UNPARSED);
    assert_eq!(o.instructions, 0);
}

#[test]
fn truncated_last_line_is_listed_and_the_rest_kept() {
    // Cut inside the last register line's value, and inside its time.
    let cut = &GOOD[..GOOD.len() - 10];
    let o = analyse(cut.as_bytes());
    only_these_lines_lost(cut.as_bytes(), &o, &[12]);
    assert_eq!(
        o.unparsed[0].1,
        "expected register contents to be a whole number of bytes"
    );
    assert_eq!((o.nodes, o.instructions), (5, 4));
    let cut = &GOOD[..GOOD.len() - 40];
    let o = analyse(cut.as_bytes());
    assert_eq!(o.stats.lines, 11);
    assert_eq!(o.instructions, 4);
}

#[test]
fn a_one_megabyte_line_is_one_unparsed_line() {
    for (len, what) in [(1_000_000, "1 MB"), (5 << 20, "5 MiB, over the line cap")] {
        let mut data = good_with(6, "").into_bytes();
        let at = GOOD.lines().take(5).map(|l| l.len() + 1).sum::<usize>();
        let long = garbage(len, 7)
            .into_iter()
            .map(|b| if b == b'\n' { b'x' } else { b })
            .collect::<Vec<u8>>();
        data.splice(at..at, long);
        let o = analyse(&data);
        assert_eq!(o.stats.lines, 12, "{what}");
        only_these_lines_lost(&data, &o, &[6]);
        // The lines after it keep their numbers and offsets.
        let mut session = Session::open(SliceSource(&data), ParseOptions::default()).unwrap();
        while !session.index_step(1 << 20).unwrap().complete {}
        let Some(n) = session.ask(Locate::Line(7)).unwrap() else {
            panic!("line 7")
        };
        assert_eq!(n.offset, (at + len + 1) as u64, "{what}");
    }
}

#[test]
fn crlf_and_mixed_line_endings_parse_as_lf() {
    let crlf = GOOD.replace('\n', "\r\n");
    let o = analyse(crlf.as_bytes());
    only_these_lines_lost(crlf.as_bytes(), &o, &[]);
    assert_eq!(o.records(), analyse(GOOD.as_bytes()).records());
    let mixed: String = GOOD
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{l}{}", ["\n", "\r\n", "\r\r\n"][i % 3]))
        .collect();
    let o = analyse(mixed.as_bytes());
    only_these_lines_lost(mixed.as_bytes(), &o, &[]);
    assert_eq!((o.nodes, o.instructions), (5, 4));
    // A lone CR is not a line end, as for the reference tools (no trace
    // writer uses it): the two lines are one, read as its first record.
    let cr = GOOD.replacen('\n', "\r", 1);
    let o = analyse(cr.as_bytes());
    assert_eq!(o.stats.lines, 11);
    assert_eq!((o.nodes, o.instructions), (5, 4));
}

#[test]
fn nul_bytes_spoil_only_their_line() {
    let data = GOOD
        .replace("R X30", "R X\x0030")
        .replace("MOV      sp", "MOV\0\0\0\0\0\0sp");
    let o = analyse(data.as_bytes());
    only_these_lines_lost(data.as_bytes(), &o, &[8]);
    assert_eq!(o.unparsed[0].1, "expected register contents");
    // A line of NULs, as a crashed writer leaves at the end of a file.
    let mut data = GOOD.as_bytes().to_vec();
    data.extend_from_slice(&[0; 4096]);
    let o = analyse(&data);
    only_these_lines_lost(&data, &o, &[13]);
}

#[test]
fn non_utf8_bytes_in_text_fields_are_kept() {
    let mut data = GOOD.as_bytes().to_vec();
    let p = GOOD.find("MOV      x0").unwrap();
    data[p + 4] = 0xff;
    data[p + 5] = 0xc3;
    let o = analyse(&data);
    only_these_lines_lost(&data, &o, &[]);
    // Shown lossily, never refused.
    let mut session = Session::open(SliceSource(&data), ParseOptions::default()).unwrap();
    while !session.index_step(1 << 20).unwrap().complete {}
    let rows = session
        .ask(Rows {
            view: 0,
            first: 0,
            count: 20,
        })
        .unwrap();
    let text = format!("{rows:?}");
    assert!(text.contains("MOV \u{fffd}\u{fffd}   x0"), "{text}");
    // In a field that must be hex, the line is listed.
    let data = GOOD.replace("R X0 0000000000100000", "R X0 00000000001000\u{e9}");
    let o = analyse(data.as_bytes());
    only_these_lines_lost(data.as_bytes(), &o, &[4]);
}

/// Node times of an index, in order.
fn node_times(data: &[u8]) -> Vec<u64> {
    let index = Index::build_from_slice(data, IndexOptions::default(), |_| {});
    let mut src = SliceSource(data);
    (0..index.nodes())
        .map(|n| index.node(&mut src, n).unwrap().at.time)
        .collect()
}

#[test]
fn timestamps_going_backwards_are_clamped_like_the_reference_tools() {
    let data = GOOD.replace("3 clk", "1 clk").replace("4 clk", "2 clk");
    let o = analyse(data.as_bytes());
    only_these_lines_lost(data.as_bytes(), &o, &[]);
    assert_eq!((o.nodes, o.instructions), (5, 4));
    assert_eq!(node_times(data.as_bytes()), [0, 1, 2, 2, 2]);
    assert_eq!(node_times(GOOD.as_bytes()), [0, 1, 2, 3, 4]);
}

#[test]
fn duplicate_and_missing_timestamps_keep_every_instruction() {
    let dup = GOOD.replace("2 clk", "1 clk");
    let o = analyse(dup.as_bytes());
    only_these_lines_lost(dup.as_bytes(), &o, &[]);
    assert_eq!((o.nodes, o.instructions), (5, 4));
    // Lines without a timestamp take the previous one.
    let missing = GOOD.replace("2 clk ", "").replace("4 clk ", "");
    let o = analyse(missing.as_bytes());
    only_these_lines_lost(missing.as_bytes(), &o, &[]);
    assert_eq!((o.nodes, o.instructions), (5, 4));
    assert_eq!(node_times(missing.as_bytes()), [0, 1, 1, 3, 3]);
}

#[test]
fn registers_with_impossible_widths_are_listed() {
    for (n, line, reason) in [
        (
            4,
            "1 clk R X0 000000000000000000100000",
            "register value longer than the register",
        ),
        (
            8,
            "3 clk R W30 000000000000800c",
            "register value longer than the register",
        ),
    ] {
        let data = good_with(n, line);
        let o = analyse(data.as_bytes());
        only_these_lines_lost(data.as_bytes(), &o, &[n as u64]);
        assert_eq!(o.unparsed[0].1, reason, "{line}");
        assert_eq!(o.instructions, 4);
    }
    // A register name no architecture has: kept as a register record of an
    // unknown register (as the reference tools do), affecting no state.
    let data = good_with(4, "1 clk R X99 0000000000100000");
    let o = analyse(data.as_bytes());
    only_these_lines_lost(data.as_bytes(), &o, &[]);
    assert_eq!(o.instructions, 4);
}

#[test]
fn memory_lines_with_odd_sizes() {
    // Sizes 1 to 16 are what the reference tools take (a 3-byte access
    // writes 3 bytes); others are listed.
    let data = good_with(10, "4 clk MW3 000ffff0:0000000ffff0 0000800c");
    let o = analyse(data.as_bytes());
    only_these_lines_lost(data.as_bytes(), &o, &[]);
    for (line, reason) in [
        (
            "4 clk MW0 000ffff0:0000000ffff0 0000800c",
            "unsupported memory access size",
        ),
        (
            "4 clk MW17 000ffff0:0000000ffff0 0000800c",
            "unsupported memory access size",
        ),
        (
            "4 clk MW99999999999999999999999 000ffff0:0000000ffff0 0000800c",
            "unsupported memory access size",
        ),
        (
            "4 clk MW8 000ffff0:0000000ffff0 00000000_0000800c_00000000_0000800c_00",
            "memory value longer than 16 bytes",
        ),
    ] {
        let data = good_with(10, line);
        let o = analyse(data.as_bytes());
        only_these_lines_lost(data.as_bytes(), &o, &[10]);
        assert_eq!(o.unparsed[0].1, reason, "{line}");
    }
    // A memory write across the top of the address space.
    let data = good_with(
        10,
        "4 clk MW16 fffffffffffffff8 00000000_0000800c_00000000_0000800c",
    );
    let o = analyse(data.as_bytes());
    only_these_lines_lost(data.as_bytes(), &o, &[]);
}

#[test]
fn files_with_only_events_or_only_memory_lines() {
    let only = |pat: &str| -> String {
        GOOD.lines()
            .filter(|l| l.contains(pat))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let events = only(" E ");
    let o = analyse(events.as_bytes());
    assert_eq!((o.count("exception"), o.nodes, o.instructions), (1, 1, 0));
    let mem = only(" MW");
    let o = analyse(mem.as_bytes());
    assert_eq!((o.count("memory"), o.nodes, o.instructions), (2, 1, 0));
    // Their memory is still known after the (instruction-less) node.
    let mut session = Session::open(SliceSource(mem.as_bytes()), ParseOptions::default()).unwrap();
    while !session.index_step(1 << 20).unwrap().complete {}
    let m = session
        .ask(Memory {
            node: 0,
            addr: 0xffff0,
            len: 16,
            compare: None,
        })
        .unwrap();
    assert_eq!(m.bytes[..4], [0x0c, 0x80, 0, 0]);
    assert!(m.known.iter().all(|&k| k));
    let regs = only(" R ");
    let o = analyse(regs.as_bytes());
    assert_eq!((o.count("register"), o.instructions), (5, 0));
}

#[test]
fn memory_write_searches_over_all_of_memory_are_bounded() {
    // Found by fuzzing: the search visited every 16-byte block of the range.
    let opts = IndexOptions {
        checkpoint_bytes: 1,
        ..IndexOptions::default()
    };
    let index = Index::build_from_slice(GOOD.as_bytes(), opts, |_| {});
    let mut src = SliceSource(GOOD.as_bytes());
    let t = std::time::Instant::now();
    let next = index.next_mem_write(&mut src, 0, 0, u64::MAX).unwrap();
    assert_eq!(next.map(|n| n.at.node), Some(4));
    let prev = index.prev_mem_write(&mut src, 4, 0, u64::MAX).unwrap();
    assert_eq!(prev.map(|n| n.at.node), Some(4));
    assert!(index
        .prev_mem_write(&mut src, 3, 0, u64::MAX)
        .unwrap()
        .is_none());
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    // Found by fuzzing: a window running past the top of memory to 0.
    let m = index
        .memory_after(&mut src, 4, u64::MAX - 7, 0x10_0000)
        .unwrap();
    assert_eq!(m.bytes.len(), 0x10_0000);
    let at = |a: u64| a.wrapping_sub(u64::MAX - 7) as usize;
    assert_eq!(m.bytes[at(0xffff0)..at(0xffff4)], [0x0c, 0x80, 0, 0]);
    assert!(m.known[at(0xffff0)] && !m.known[at(0xfffef)]);
}

/// A real ELF of the test data.
fn elf() -> Vec<u8> {
    common::read(&common::data("elf/quicksort-aarch64-O2-fastmodel-2M.elf"))
}

#[test]
fn truncated_elf_fails_with_one_message_or_loads_what_it_holds() {
    let data = elf();
    let full = SymbolTable::from_elf_bytes(&data, 0)
        .unwrap()
        .symbols()
        .len();
    assert!(full > 10);
    let mut errors = 0;
    for len in (0..data.len()).step_by(7) {
        match SymbolTable::from_elf_bytes(&data[..len], 0) {
            Ok(t) => assert!(t.symbols().len() <= full),
            Err(e) => {
                let e = e.to_string();
                assert!(!e.is_empty() && !e.contains('\n'), "{len}: {e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 0);
    let e = SymbolTable::from_elf_bytes(&data[..100], 0)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    // Through the browser session, as a dropped image.
    let mut session = Session::open(SliceSource(GOOD.as_bytes()), ParseOptions::default()).unwrap();
    assert!(session.load_elf(&data[..100], 0, false).is_err());
    assert_eq!(session.load_elf(&data, 0, false).unwrap(), (full, None));
}

#[test]
fn a_file_that_is_not_an_elf_is_refused_clearly() {
    for bytes in [&b""[..], b"\x7fEL", GOOD.as_bytes(), &garbage(4096, 3)] {
        let e = SymbolTable::from_elf_bytes(bytes, 0)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e, "not an ELF file (no ELF magic number at its start)");
    }
    let mut data = elf();
    data[4] = 9;
    let e = SymbolTable::from_elf_bytes(&data, 0)
        .err()
        .unwrap()
        .to_string();
    assert!(e.starts_with("unsupported ELF class 9"), "{e}");
    // Garbage after a valid identification: an error or an empty table.
    let mut data = b"\x7fELF\x02\x01\x01".to_vec();
    data.extend(garbage(8192, 11));
    if let Ok(t) = SymbolTable::from_elf_bytes(&data, 0) {
        let _ = t.symbolic_address(0x8000, true);
    }
}

#[test]
fn sparse_file_larger_than_4_gib() {
    // Good lines, a hole of zeros running past 4 GiB (one line, never held
    // in memory), then the good lines again at offsets above 4 GiB.
    let tmp = Dir::new("sparse");
    let dir = tmp.path();
    let path = dir.join("sparse.tarmac");
    let hole_end = (4u64 << 30) + 4096;
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::File::create(&path).unwrap();
        f.write_all_at(GOOD.as_bytes(), 0).unwrap();
        f.write_all_at(b"\n", hole_end).unwrap();
        f.write_all_at(GOOD.as_bytes(), hole_end + 1).unwrap();
    }
    let total = hole_end + 1 + GOOD.len() as u64;
    let result = std::panic::catch_unwind(|| {
        let s = compute_stats(
            FileSource::open(&path).unwrap(),
            ParseOptions::default(),
            |_| {},
        )
        .unwrap();
        assert_eq!((s.lines, s.bytes), (25, total));
        assert_eq!(s.unparsed_lines, [13]);
        assert_eq!(s.count("instruction"), 8);
        let mut src = FileSource::open(&path).unwrap();
        let index = Index::build(&mut src, IndexOptions::default(), |_| {}).unwrap();
        assert_eq!(index.summary().instructions, 8);
        // Line 17 is the second copy's line 4, in the node of its line 3.
        let n = index.node_at_line(&mut src, 17).unwrap();
        assert_eq!(
            n.at.offset,
            hole_end + 1 + GOOD.find("1 clk IT").unwrap() as u64
        );
        assert_eq!((n.at.line, n.at.pc), (16, 0x8000));
        let regs = index.registers_after(&mut src, index.nodes() - 1);
        assert!(regs.is_ok());
    });
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

#[test]
fn indexing_stops_at_the_memory_budget_and_the_part_indexed_stays_browsable() {
    let data = common::read(&common::data(
        "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac",
    ));
    let mut session = Session::open(SliceSource(&data), ParseOptions::default()).unwrap();
    session.set_index_budget(32 << 10);
    let mut p = session.index_step(64 << 10).unwrap();
    while !p.complete && p.stopped.is_none() {
        p = session.index_step(64 << 10).unwrap();
    }
    let reason = p.stopped.clone().expect("stopped");
    assert!(reason.contains("memory budget"), "{reason}");
    assert!(p.done_bytes < data.len() as u64 / 2, "{p:?}");
    assert!(p.nodes > 512, "{p:?}");
    // Stopped for good, and says so every time.
    assert_eq!(session.index_step(1 << 20).unwrap(), p);
    assert!(!session.is_complete());
    let Some(last) = session.ask(Locate::End).unwrap() else {
        panic!("end")
    };
    assert!(last.node > 0 && last.node < p.nodes, "{last:?}");
    let rows = session
        .ask(Rows {
            view: 0,
            first: 0,
            count: 50,
        })
        .unwrap();
    assert_eq!(rows.rows.len(), 50);
    assert!(session
        .ask(Registers {
            node: last.node,
            mark: RegMark::None
        })
        .is_ok());
}
