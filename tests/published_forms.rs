//! Trace forms from excerpts other projects published
//! (`tests/data/published/`, origins in its README): every line is read,
//! with the instructions, register writes and memory accesses the text
//! holds, and what each form adds is kept: a core named by its cluster, an
//! address written as a Morello capability in the capability state `C`, an
//! RTL logger's lines without state or mode and its instruction fetches
//! apart from data accesses, an exception announced in an ES log.

use tarmac_lens_core::{
    compute_stats,
    protocol::{Events, Memory, Row, Rows},
    CpuName, Effect, ISet, Index, IndexOptions, LineReader, ParseOptions, Parser, Record,
    RecordKind, Session, SliceSource,
};

use crate::common::data;

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(&format!("published/{name}"))).unwrap()
}

/// Calls `f` with each line's number (from 1) and record.
fn each_record(bytes: &[u8], mut f: impl FnMut(u64, &Record<'_>)) {
    let mut parser = Parser::for_sample(ParseOptions::default(), bytes);
    let mut lines = LineReader::new(SliceSource(bytes));
    while let Some(line) = lines.next_line().unwrap() {
        let n = line.number;
        f(n, &parser.parse_line(line.text));
    }
}

const MORELLO: &str = "morello-fvp/clusters-and-capabilities.tarmac";
const RTL: &str = "cortex-m-rtl-logger/indented.tarmac";
const ES: &str = "emulator-es/serror-in-es-log.tarmac";

/// Each file's records by kind, counted from its text by hand: no line is
/// left unparsed, and the index counts the same instructions.
#[test]
fn every_line_is_read_with_the_counts_the_text_holds() {
    // (file, instructions, register writes, memory accesses, fetches,
    // exceptions)
    for (name, instructions, registers, memory, fetches, exceptions) in [
        (MORELLO, 10, 13, 4, 0, 0),
        (RTL, 8, 10, 9, 5, 0),
        (ES, 8, 9, 2, 0, 2),
    ] {
        let bytes = read(name);
        let s = compute_stats(SliceSource(&bytes), ParseOptions::default(), |_| {}).unwrap();
        assert_eq!(s.unparsed, 0, "{name}: {:?}", s.unparsed_details);
        assert_eq!(
            (
                s.count("instruction"),
                s.count("register"),
                s.count("memory"),
                s.count("bus"),
                s.count("exception"),
            ),
            (instructions, registers, memory, fetches, exceptions),
            "{name}: {:?}",
            s.records
        );
        let index =
            Index::build(&mut SliceSource(&bytes), IndexOptions::default(), |_| {}).unwrap();
        assert_eq!(index.summary().instructions, instructions, "{name}");
    }
}

/// `cluster0.cpu2` after the time is the core's whole name; the
/// capability's value is the pc, its tag and metadata are kept, `C` is the
/// capability state, and a core followed alone has its own instructions.
#[test]
fn a_cluster_s_core_and_a_capability_address_are_read_whole() {
    let bytes = read(MORELLO);
    let mut cpus = Vec::new();
    let mut capability_lines = 0;
    each_record(&bytes, |n, rec| {
        let cpu = String::from_utf8_lossy(rec.cpu.expect("every line names its core"));
        if !cpus.contains(&cpu.to_string()) {
            cpus.push(cpu.to_string());
        }
        if let RecordKind::Instruction(i) = &rec.kind {
            if let Some(c) = i.capability {
                capability_lines += 1;
                assert_eq!(cpu, "cluster0.cpu2", "line {n}");
                assert_eq!(i.iset, ISet::C64, "line {n}");
                assert!(c.tag && c.meta == 0xb05d_c000_137a_0004, "line {n}");
                assert_eq!(i.phys, Some(0xfa00_0000 | i.pc), "line {n}");
            } else {
                assert_eq!(i.iset, ISet::A64, "line {n}");
            }
        }
        if n == 11 {
            let RecordKind::Instruction(i) = &rec.kind else {
                panic!("line 11: {:?}", rec.kind);
            };
            assert_eq!((i.pc, i.encoding, i.width), (0x120a40, 0x71000d3f, 32));
            assert_eq!(i.mode, Some(&b"EL0t_n"[..]));
            assert_eq!(i.inst_id, Some(5_200_341));
            assert_eq!(i.disassembly, b"CMP      w9,#3");
        }
        if n == 16 {
            let RecordKind::Instruction(i) = &rec.kind else {
                panic!("line 16: {:?}", rec.kind);
            };
            assert_eq!(i.effect, Effect::CondFail);
        }
    });
    assert_eq!(capability_lines, 6);
    assert_eq!(cpus, ["cluster0.cpu0", "cluster0.cpu2"]);
    let s = compute_stats(SliceSource(&bytes), ParseOptions::default(), |_| {}).unwrap();
    assert_eq!(s.cores, ["cluster0.cpu0", "cluster0.cpu2"]);
    for (cpu, instructions) in [("cluster0.cpu0", 4), ("cluster0.cpu2", 6)] {
        let opts = IndexOptions {
            parse: ParseOptions {
                cpu: Some(CpuName::new(cpu.as_bytes()).unwrap()),
                ..ParseOptions::default()
            },
            ..IndexOptions::default()
        };
        let index = Index::build(&mut SliceSource(&bytes), opts, |_| {}).unwrap();
        assert_eq!(index.summary().instructions, instructions, "{cpu}");
    }
    // The page's row for a capability instruction says what it is.
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    let rows = s
        .ask(Rows {
            view: 0,
            first: 10,
            count: 1,
        })
        .unwrap();
    let Row::Line { capability, .. } = &rows.rows[0] else {
        panic!("{:?}", rows.rows[0])
    };
    let capability = capability.as_deref().unwrap_or_default();
    assert!(
        capability.starts_with("capability tag 1, bounds 0x0-0x29bc00000000000"),
        "{capability}"
    );
}

/// An RTL logger's `IT`/`IS` with an address and encoding only: Thumb,
/// 16 or 32 bits by the encoding's digits, the rest the disassembly (the
/// `IT` instruction's own mnemonic too); its fetches (`MR4_I`) are no
/// data reads, its `MR4_D`/`MW4_D` are, and a register's bank note stays.
#[test]
fn an_rtl_logger_s_lines_are_thumb_and_its_fetches_are_no_data_reads() {
    let bytes = read(RTL);
    let mut instructions = Vec::new();
    each_record(&bytes, |n, rec| match &rec.kind {
        RecordKind::Instruction(i) => {
            assert_eq!(i.iset, ISet::Thumb, "line {n}");
            assert_eq!(i.mode, None, "line {n}");
            instructions.push((
                i.pc,
                i.width,
                i.effect,
                String::from_utf8_lossy(i.disassembly).into_owned(),
            ));
        }
        RecordKind::Bus(b) => {
            assert_eq!(b.instruction_side, Some(true), "line {n}");
            assert!(b.opcode_fetch && b.read == Some(true), "line {n}");
        }
        RecordKind::Register(r) if n == 1 => {
            assert_eq!(r.interpretation, b"(MSP)");
        }
        RecordKind::Memory(m) => {
            assert!(m.type_word.ends_with(b"_D"), "line {n}");
        }
        _ => {}
    });
    assert_eq!(instructions.len(), 8);
    assert_eq!(
        instructions[3],
        (0x1a36, 16, Effect::Executed, "IT       CS".into())
    );
    assert_eq!(instructions[4].2, Effect::CondFail);
    assert_eq!(
        instructions[5],
        (0x1a3a, 32, Effect::Executed, "BL       0x1a48".into())
    );
    // The memory pane: code fetched is not memory read (unknown); data
    // read and written is.
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    let last = s.progress().nodes - 1;
    let memory = |s: &mut Session<SliceSource<'_>>, addr: u64| {
        s.ask(Memory {
            node: last,
            addr,
            len: 4,
            compare: None,
        })
        .unwrap()
    };
    let code = memory(&mut s, 0x1a30);
    assert!(code.known.iter().all(|k| !k), "{code:?}");
    let stack = memory(&mut s, 0x2000_3ff4);
    assert!(stack.known.iter().all(|&k| k), "{stack:?}");
    assert_eq!(stack.bytes, [5, 0, 0, 0]);
}

/// `ES  System Error (Abort)` announces an exception whose vector and
/// description the `EXC` line after it gives: both are exceptions, and
/// the events list shows them.
#[test]
fn an_exception_in_an_es_log_is_read_as_its_class_vector_and_description() {
    let bytes = read(ES);
    let mut seen = Vec::new();
    each_record(&bytes, |n, rec| {
        if let RecordKind::Exception(e) = &rec.kind {
            seen.push((n, e.number, String::from_utf8_lossy(e.name).into_owned()));
        }
    });
    assert_eq!(
        seen,
        [
            (8, None, "System Error (Abort)".to_string()),
            (
                9,
                Some(0x380),
                "SError/vSError Current EL with SP_ELx".to_string()
            ),
        ]
    );
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    let events = s
        .ask(Events {
            first: 0,
            count: 10,
        })
        .unwrap();
    let listed: Vec<(u64, String)> = events
        .events
        .iter()
        .map(|e| (e.line, format!("{:?}", e.kind)))
        .collect();
    assert_eq!(
        listed,
        [(8, "Exception".to_string()), (9, "Exception".to_string())]
    );
    assert!(events.events[1].text.contains("EXC [0x380] SError"));
}
