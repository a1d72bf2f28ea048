//! The lean scan against the replay it stands for, interval by interval:
//! wherever it answers, its answer is the replay's; and it answers for most
//! intervals where the condition keeps its value (it is no use otherwise).
//! `tests/find.rs` holds whole searches, on either path, to a brute-force
//! pass over the trace.

use super::*;
use crate::expr::ExprContext;
use crate::parse::ParseOptions;
use crate::source::SliceSource;

/// Registers only: no symbols.
struct Names;

impl ExprContext for Names {
    fn register(&self, _: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, _: &str) -> Option<u64> {
        None
    }
}

fn data(rel: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first `max` bytes of a trace, cut after a line.
fn head(mut trace: Vec<u8>, max: usize) -> Vec<u8> {
    if trace.len() > max {
        let end = trace[..max]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        trace.truncate(end);
    }
    trace
}

#[derive(Debug, Default)]
struct Tally {
    /// Intervals the scan answered (each the replay's answer).
    lean: usize,
    /// Intervals where the replay found one value all through.
    constant: usize,
    /// Of those, the ones the scan answered.
    constant_lean: usize,
    /// Intervals it declined.
    declined: usize,
}

/// Compares the scan with the replay on every interval, for each condition.
fn compare(trace: &[u8], parse: ParseOptions, checkpoint_bytes: u64, conds: &[&str]) -> Tally {
    let opts = IndexOptions {
        parse,
        checkpoint_bytes,
    };
    let index = Index::build(&mut SliceSource(trace), opts, |_| {}).unwrap();
    assert!(index.checkpoints.len() > 4, "too few intervals");
    let mut src = SliceSource(trace);
    let mut t = Tally::default();
    for text in conds {
        let cond = Condition::parse(text, &Names).unwrap_or_else(|e| panic!("{text}: {e}"));
        let watched = watched_registers(&cond);
        for k in 0..index.checkpoints.len() {
            let full = index
                .replay_interval(&mut src, &cond, &watched, k, u64::MAX)
                .unwrap();
            let lean = index.lean_changes(&mut src, &cond, &watched, k).unwrap();
            let constant = full.len() == 1;
            t.constant += usize::from(constant);
            match lean {
                Some(lean) => {
                    assert_eq!(lean, full, "`{text}`, interval {k}");
                    t.lean += 1;
                    t.constant_lean += usize::from(constant);
                }
                None => t.declined += 1,
            }
        }
    }
    t
}

/// Whether the scan answered at least nine in ten of the intervals it
/// could.
fn mostly_lean(t: &Tally) -> bool {
    t.constant_lean * 10 >= t.constant * 9
}

const A64_REGISTERS: &[&str] = &[
    "x0 == 0x12345",
    "x0 != 0",
    "w1 == 0",
    "w3 < 0x10",
    "x19 > 0x1000",
    "x29 == x30",
    "sp != 0",
    "lr == 0",
    "cpsr & 0x20000000",
    "d0 == 0",
    "s1 != 0",
    "x2 - 1 >= x1",
    "!(x1 > 0x100)",
];

const A64_MEMORY: &[&str] = &[
    "[sp+8:8] == 1",
    "[sp]",
    "[sp + 4:4] < [sp:4]",
    "[x29:2] != 0",
    "[[sp:8]:1] == 0",
    "x0 == 0 && [sp:4] != 0",
    "x1 < 0x10 || [sp+16:8] == x2",
];

const A32: &[&str] = &[
    "r0 == 0x12345",
    "r0 != 0",
    "r3 < 0x10",
    "sp != 0",
    "lr == 0",
    "cpsr & 0x20000000",
    "[sp:4] == 1",
    "[sp + 4:2] != 0",
    "r1 < 0x10 || [r13:4] == r2",
];

#[test]
fn fast_models_aarch64_registers_and_memory() {
    let trace = head(
        data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"),
        300_000,
    );
    let regs = compare(&trace, ParseOptions::default(), 8192, A64_REGISTERS);
    assert!(mostly_lean(&regs), "{regs:?}");
    let mem = compare(&trace, ParseOptions::default(), 8192, A64_MEMORY);
    assert!(mem.lean > 0 && mem.declined > 0, "{mem:?}");
}

#[test]
fn semihosting_calls_are_replayed() {
    // Calls that may write memory: conditions on memory decline those
    // intervals; on registers, they do not matter.
    for (rel, conds) in [
        (
            "ttu/samples/calculator-aarch64-fastmodel.tarmac",
            A64_MEMORY,
        ),
        ("ttu/samples/calculator-aarch32-fastmodel.tarmac", A32),
    ] {
        let t = compare(&data(rel), ParseOptions::default(), 16384, conds);
        assert!(t.lean > 0 && t.declined > 0, "{rel}: {t:?}");
    }
    let t = compare(
        &data("ttu/samples/calculator-aarch64-fastmodel.tarmac"),
        ParseOptions::default(),
        16384,
        A64_REGISTERS,
    );
    assert!(mostly_lean(&t), "{t:?}");
}

/// A semihosting call (`SYS_READ` into a buffer) makes the buffer unknown
/// in the middle of an interval with no memory line: the scan must decline.
#[test]
fn a_semihosting_read_is_replayed() {
    let mut t = String::new();
    let mut time = 0;
    let mut pc = 0x1000;
    let mut line = |t: &mut String, rest: &str| {
        time += 1;
        pc += 4;
        t.push_str(&format!("{time} clk IT ({time}) {pc:08x} {rest}\n"));
        time
    };
    let now = line(&mut t, "f9000000 O EL3h_s : STRB");
    t.push_str(&format!("{now} clk MW1 00003000:000000003000 41\n"));
    for _ in 0..100 {
        line(&mut t, "d503201f O EL3h_s : NOP");
    }
    for (reg, value) in [("X0", 6), ("X1", 0x2000)] {
        let now = line(&mut t, "d2800000 O EL3h_s : MOV");
        t.push_str(&format!("{now} clk R {reg} {value:016x}\n"));
    }
    for (addr, value) in [(0x2000, 1), (0x2008, 0x3000), (0x2010, 0x10)] {
        let now = line(&mut t, "f9000000 O EL3h_s : STR");
        t.push_str(&format!(
            "{now} clk MW8 {addr:08x}:{addr:012x} {value:016x}\n"
        ));
    }
    let call = line(&mut t, "d45e0000 O EL3h_s : HLT      #0xf000");
    for _ in 0..100 {
        line(&mut t, "d503201f O EL3h_s : NOP");
    }
    let trace = t.into_bytes();
    let opts = IndexOptions {
        parse: ParseOptions::default(),
        checkpoint_bytes: 2048,
    };
    let index = Index::build(&mut SliceSource(&trace), opts, |_| {}).unwrap();
    let mut src = SliceSource(&trace);
    let cond = Condition::parse("[0x3000:1] == 0x41", &Names).unwrap();
    let watched = watched_registers(&cond);
    // Node `call - 1` is the call's (nodes count from 0).
    let k = index.interval_of(call - 1);
    let full = index
        .replay_interval(&mut src, &cond, &watched, k, u64::MAX)
        .unwrap();
    assert_eq!(
        full.iter().map(|c| c.1).collect::<Vec<_>>(),
        [true, false],
        "the call makes the byte unknown"
    );
    assert_eq!(
        index.lean_changes(&mut src, &cond, &watched, k).unwrap(),
        None
    );
    // Without memory operands the call does not matter.
    let cond = Condition::parse("x0 == 7", &Names).unwrap();
    let watched = watched_registers(&cond);
    let lean = index.lean_changes(&mut src, &cond, &watched, k).unwrap();
    let full = index
        .replay_interval(&mut src, &cond, &watched, k, u64::MAX)
        .unwrap();
    assert_eq!(lean, Some(full));
}

#[test]
fn other_dialect_shapes() {
    // ES with LD/ST diagrams and continuation lines, gem5 with cpu fields,
    // Thumb, AArch32 ES.
    for (rel, conds) in [
        (
            "ttu/samples/calculator-aarch64-es-ld-st-style.tarmac",
            A64_MEMORY,
        ),
        (
            "ttu/samples/calculator-aarch64-es-ld-st-style.tarmac",
            A64_REGISTERS,
        ),
        ("ttu/samples/calculator-aarch64-gem5.tarmac", A64_MEMORY),
        ("ttu/samples/calculator-aarch32-es-ld-st-style.tarmac", A32),
        ("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac", A32),
    ] {
        let trace = head(data(rel), 200_000);
        let t = compare(&trace, ParseOptions::default(), 8192, conds);
        assert!(t.lean > 0, "{rel}: {t:?}");
    }
}

#[test]
fn big_endian_memory() {
    let trace = data("ttu/indextest.tarmac");
    let parse = ParseOptions {
        big_endian: true,
        ..ParseOptions::default()
    };
    let conds = [
        "[0x10400:8] == 0x0123456789abcdef",
        "[0x10410:4] == 0xfedcba98",
        "[0x10000:2] != 0",
        "x9 == 0xfedcba9876543210",
    ];
    let t = compare(&trace, parse, 64, &conds);
    assert!(t.lean > 0, "{t:?}");
}

/// A chosen core and conditions on `pc` are always replayed.
#[test]
fn declines_what_it_does_not_model() {
    let trace = head(
        data("tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac"),
        100_000,
    );
    let cpu = ParseOptions {
        cpu: Some(crate::parse::CpuName::new(b"cpu0").unwrap()),
        ..ParseOptions::default()
    };
    let t = compare(&trace, cpu, 8192, &["x0 == 1"]);
    assert_eq!((t.lean, t.declined > 0), (0, true), "{t:?}");
    let t = compare(
        &trace,
        ParseOptions::default(),
        8192,
        &["pc == 0x10000 || x0 == 1"],
    );
    assert_eq!((t.lean, t.declined > 0), (0, true), "{t:?}");
    let t = compare(&trace, ParseOptions::default(), 8192, &["x0 == 1"]);
    assert!(mostly_lean(&t), "{t:?}");
}

#[test]
fn line_shapes() {
    let is = |line: &[u8], want: &str| {
        let got = match quick_shape(line) {
            Shape::Instruction(_) => "instruction",
            Shape::Register(name) => {
                return assert_eq!(name, want.as_bytes(), "{}", String::from_utf8_lossy(line))
            }
            Shape::Read => "read",
            Shape::Memory => "memory",
            Shape::Other => "other",
        };
        assert_eq!(got, want, "{}", String::from_utf8_lossy(line));
    };
    is(
        b"15907 clk IT (15907) 000100c0 d65f03c0 O EL3h_s : RET",
        "instruction",
    );
    is(b"15906 clk R X30 0000000000010030", "X30");
    is(b"15906 clk  R  sp_el3 0000000000010030", "sp_el3");
    is(b"0 clk cpu0 R X0 0000000000100000", "X0");
    is(b"                    R X0 0000000000100000", "X0");
    is(
        b"          0 tic ES  (00020150:e3a00601) A svc_s: MOV r0,#1",
        "instruction",
    );
    is(
        b"110 clk MR8 00010400:000000010400 01234567_89abcdef",
        "read",
    );
    is(
        b"110 clk MR16 00010400:000000010400 01234567_89abcdef",
        "read",
    );
    is(b"110 clk MRX8 00010400 01234567", "memory");
    is(
        b"120 clk MW8 00010410:000000010410 fedcba98_76543210",
        "memory",
    );
    is(b"120 clk MU8_ADD 00010410 fedcba98_76543210", "memory");
    is(b"120 clk W04 00010410 fedcba98", "memory");
    is(b"130 clk ST 0010000 66656463 62613938", "other");
    is(b"          ST 00000000000ffff0 ........ 00000000", "other");
    is(
        b"0 clk E 00000000:000000000000 00000000 CoreEvent_Reset",
        "other",
    );
    is(b"10.5 us R X0 0000000000100000", "other");
    is(b"271ns R X0 0000000000100000", "other");
    is(b"# R X0 0000000000100000", "other");
    is(b"Tarmac Text Rev 3t", "other");
    is(b"", "other");
    is(b"5 clk R (X0) 1", "other");
}

#[test]
fn semihosting_encodings() {
    assert!(may_call_semihosting(
        b" (34) 00210774 d45e0000 O EL3h_s : HLT #0xf000"
    ));
    assert!(may_call_semihosting(
        b"  (000202f0:ef123456) A svc_s: SVC #0x123456"
    ));
    assert!(may_call_semihosting(
        b" (7) 00008000 beab T thread : BKPT #0xab"
    ));
    assert!(!may_call_semihosting(
        b" (34) 00210774 d65f03c0 O EL3h_s : RET"
    ));
    assert!(a64_semihosting_text(
        b"x\n1 clk IT (1) 0 D45E0000 O EL3h_s : HLT"
    ));
    assert!(a64_semihosting_text(b"1 clk IT (1) 0 d45e0000 O"));
    assert!(!a64_semihosting_text(b"1 clk R X0 0000000045e00000"));
}
