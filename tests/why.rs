//! `dataflow::why`: hand-checked trees on small traces in each instruction
//! set (a copy, a store and reload, an add of two sources, a load of
//! never-written memory, a value passed across a call), and on a real
//! trace a check of every step against the trace text: each writer's
//! lines hold a write of what it is said to write, each input was written
//! no later than what it fed, and each register value is the register
//! file's after its writer.

use tarmac_lens_core::{
    dataflow::{why, Source, WhyImage, WhyNode},
    register_location, Index, IndexOptions, SliceSource, Watched,
};

use crate::common::data;

fn index(trace: &[u8]) -> Index {
    let opts = IndexOptions {
        checkpoint_bytes: 16 << 10,
        ..IndexOptions::default()
    };
    Index::build(&mut SliceSource(trace), opts, |_| {}).unwrap()
}

/// The tree of register `reg` after the node holding line `line`.
fn tree(trace: &str, line: u64, reg: &str, depth: u32) -> WhyNode {
    let idx = index(trace.as_bytes());
    let mut src = SliceSource(trace.as_bytes());
    let node = idx.node_at_line(&mut src, line).unwrap().at.node;
    let what = Watched::Reg(idx.register_named(reg).unwrap());
    why(&idx, &mut src, node, what, depth, WhyImage::default()).unwrap()
}

/// `what = value ← line`, the shape the assertions read.
fn step(n: &WhyNode) -> (String, String, Option<u64>) {
    (n.what.clone(), n.value.clone(), n.writer.map(|w| w.line))
}

fn s(what: &str, value: &str, line: Option<u64>) -> (String, String, Option<u64>) {
    (what.into(), value.into(), line)
}

// Each trace runs the same program (encodings from GNU as + objdump):
// line 3 MOV r0/x0,#5; 5 MOV r1,r0; 7 STR r1,[sp,#off]; 9 LDR r2,[sp,#off];
// 12 ADD r3,r2,r0; 14 LDR r4,[r5] (0x9000, never written); 17 BL f;
// 19 f: ADD r0,r0,#1.
const A64: &str = "\
0 clk R X5 0000000000009000
0 clk R SP_EL3 0000000000400000
1 clk IT (1) 00008000 d28000a0 O EL3h_s : MOV      x0,#5
1 clk R X0 0000000000000005
2 clk IT (2) 00008004 aa0003e1 O EL3h_s : MOV      x1,x0
2 clk R X1 0000000000000005
3 clk IT (3) 00008008 f90007e1 O EL3h_s : STR      x1,[sp,#8]
3 clk MW8 00400008:000000400008 00000000_00000005
4 clk IT (4) 0000800c f94007e2 O EL3h_s : LDR      x2,[sp,#8]
4 clk MR8 00400008:000000400008 00000000_00000005
4 clk R X2 0000000000000005
5 clk IT (5) 00008010 8b000043 O EL3h_s : ADD      x3,x2,x0
5 clk R X3 000000000000000A
6 clk IT (6) 00008014 f94000a4 O EL3h_s : LDR      x4,[x5]
6 clk MR8 00009000:000000009000 00000000_12345678
6 clk R X4 0000000012345678
7 clk IT (7) 00008018 94000002 O EL3h_s : BL       {pc}+0x8 ; 0x8020
7 clk R X30 000000000000801C
8 clk IT (8) 00008020 91000400 O EL3h_s : ADD      x0,x0,#1
8 clk R X0 0000000000000006
";

const A32: &str = "\
0 clk R r5 00009000
0 clk R r13_svc 00400000
1 clk IT (1) 00008000 e3a00005 A svc_s : MOV      r0,#5
1 clk R r0 00000005
2 clk IT (2) 00008004 e1a01000 A svc_s : MOV      r1,r0
2 clk R r1 00000005
3 clk IT (3) 00008008 e58d1004 A svc_s : STR      r1,[sp,#4]
3 clk MW4 00400004:000000400004 00000005
4 clk IT (4) 0000800c e59d2004 A svc_s : LDR      r2,[sp,#4]
4 clk MR4 00400004:000000400004 00000005
4 clk R r2 00000005
5 clk IT (5) 00008010 e0823000 A svc_s : ADD      r3,r2,r0
5 clk R r3 0000000a
6 clk IT (6) 00008014 e5954000 A svc_s : LDR      r4,[r5]
6 clk MR4 00009000:000000009000 12345678
6 clk R r4 12345678
7 clk IT (7) 00008018 eb000000 A svc_s : BL       {pc}+0x8 ; 0x8020
7 clk R r14_svc 0000801c
8 clk IT (8) 00008020 e2800001 A svc_s : ADD      r0,r0,#1
8 clk R r0 00000006
";

const T32: &str = "\
0 clk R r5 00009000
0 clk R r13_svc 00400000
1 clk IT (1) 00008000 2005 T svc_s : MOVS     r0,#5
1 clk R r0 00000005
2 clk IT (2) 00008002 4601 T svc_s : MOV      r1,r0
2 clk R r1 00000005
3 clk IT (3) 00008004 9101 T svc_s : STR      r1,[sp,#4]
3 clk MW4 00400004:000000400004 00000005
4 clk IT (4) 00008006 9a01 T svc_s : LDR      r2,[sp,#4]
4 clk MR4 00400004:000000400004 00000005
4 clk R r2 00000005
5 clk IT (5) 00008008 1813 T svc_s : ADDS     r3,r2,r0
5 clk R r3 0000000a
6 clk IT (6) 0000800a 682c T svc_s : LDR      r4,[r5,#0]
6 clk MR4 00009000:000000009000 12345678
6 clk R r4 12345678
7 clk IT (7) 0000800c f000f801 T svc_s : BL       {pc}+0x6 ; 0x8012
7 clk R r14_svc 00008011
8 clk IT (8) 00008012 3001 T svc_s : ADDS     r0,#1
8 clk R r0 00000006
";

/// The register names of each trace: (trace, r0, r1, r2, r3, r4, r5, sp,
/// memory slot, word size in hex digits).
struct Case {
    trace: &'static str,
    r: [&'static str; 6],
    sp: &'static str,
    slot: &'static str,
    digits: usize,
}

fn cases() -> [Case; 3] {
    [
        Case {
            trace: A64,
            r: ["x0", "x1", "x2", "x3", "x4", "x5"],
            sp: "sp",
            slot: "[0x400008:8]",
            digits: 16,
        },
        Case {
            trace: A32,
            r: ["r0", "r1", "r2", "r3", "r4", "r5"],
            sp: "r13",
            slot: "[0x400004:4]",
            digits: 8,
        },
        Case {
            trace: T32,
            r: ["r0", "r1", "r2", "r3", "r4", "r5"],
            sp: "r13",
            slot: "[0x400004:4]",
            digits: 8,
        },
    ]
}

fn hex(v: u64, digits: usize) -> String {
    format!("0x{v:0digits$x}")
}

#[test]
fn copy_through_mov() {
    for c in cases() {
        let t = tree(c.trace, 5, c.r[1], 4);
        assert_eq!(
            step(&t),
            s(c.r[1], &hex(5, c.digits), Some(5)),
            "{}",
            c.r[0]
        );
        assert_eq!(t.source, Source::Computed);
        assert_eq!(t.inputs.len(), 1);
        let x0 = &t.inputs[0];
        assert_eq!(step(x0), s(c.r[0], &hex(5, c.digits), Some(3)));
        assert_eq!(x0.source, Source::Immediate);
        assert!(x0.inputs.is_empty());
    }
}

#[test]
fn store_then_reload() {
    for c in cases() {
        let t = tree(c.trace, 10, c.r[2], 4);
        assert_eq!(step(&t), s(c.r[2], &hex(5, c.digits), Some(9)));
        // The load's input is the memory it read; its base register is
        // the address, named but not followed.
        let what: Vec<&str> = t.inputs.iter().map(|n| n.what.as_str()).collect();
        assert_eq!(what, [c.slot], "{}", c.r[0]);
        assert_eq!(t.not_followed, [c.sp]);
        let slot = &t.inputs[0];
        assert_eq!(slot.writer.map(|w| w.line), Some(7), "the store");
        assert_eq!(slot.value, hex(5, c.digits));
        // Through the store to the stored register, and on to its source.
        let stored = slot.inputs.iter().find(|n| n.what == c.r[1]).unwrap();
        assert_eq!(step(stored), s(c.r[1], &hex(5, c.digits), Some(5)));
        assert_eq!(
            step(&stored.inputs[0]),
            s(c.r[0], &hex(5, c.digits), Some(3))
        );
        assert_eq!(slot.inputs.len(), 1);
        assert_eq!(slot.not_followed, [c.sp]);
    }
}

#[test]
fn addresses_are_followed_when_asked() {
    for c in cases() {
        // The stack pointer itself: the register lines before the first
        // instruction (node 0).
        let sp = tree(c.trace, 10, c.sp, 4);
        assert_eq!(sp.source, Source::TraceStart);
        assert_eq!(sp.writer.map(|w| (w.node, w.line)), Some((0, 1)));
    }
}

#[test]
fn add_of_two_sources() {
    for c in cases() {
        let t = tree(c.trace, 13, c.r[3], 4);
        assert_eq!(step(&t), s(c.r[3], &hex(10, c.digits), Some(12)));
        let mut ins: Vec<_> = t.inputs.iter().map(step).collect();
        ins.sort();
        let mut want = vec![
            s(c.r[2], &hex(5, c.digits), Some(9)),
            s(c.r[0], &hex(5, c.digits), Some(3)),
        ];
        want.sort();
        // A Thumb ADDS also reads nothing else; none reads the flags.
        assert_eq!(ins, want, "{}", c.r[0]);
    }
}

#[test]
fn load_of_never_written_memory() {
    for c in cases() {
        let t = tree(c.trace, 15, c.r[4], 4);
        assert_eq!(step(&t), s(c.r[4], &hex(0x12345678, c.digits), Some(14)));
        let mem = t.inputs.iter().find(|n| n.what.starts_with('[')).unwrap();
        assert_eq!(
            mem.source,
            Source::NeverWritten {
                addr: 0x9000,
                image_value: None
            }
        );
        assert_eq!(mem.writer, None);
        assert_eq!(mem.value, hex(0x12345678, c.digits));
        assert_eq!(t.inputs.len(), 1);
        assert_eq!(t.not_followed, [c.r[5]]);
    }
}

#[test]
fn passed_across_a_call() {
    for c in cases() {
        // The callee's r0/x0 comes from the caller's MOV, before the BL.
        let t = tree(c.trace, 19, c.r[0], 4);
        assert_eq!(step(&t), s(c.r[0], &hex(6, c.digits), Some(19)));
        assert_eq!(t.inputs.len(), 1, "{}", c.r[0]);
        assert_eq!(step(&t.inputs[0]), s(c.r[0], &hex(5, c.digits), Some(3)));
        // The link register's source is the call itself.
        let lr = if c.digits == 16 { "x30" } else { "r14" };
        let l = tree(c.trace, 19, lr, 4);
        assert_eq!(l.writer.map(|w| w.line), Some(17));
        assert_eq!(l.source, Source::Immediate);
    }
}

#[test]
fn depth_limit_and_asking_again() {
    let t = tree(A64, 10, "x2", 1);
    let slot = &t.inputs[0];
    assert_eq!(slot.source, Source::DepthLimit);
    assert!(slot.inputs.is_empty());
    // Asking again from the store's line expands it.
    let idx = index(A64.as_bytes());
    let mut src = SliceSource(A64.as_bytes());
    let at = idx.node_at_line(&mut src, 7).unwrap().at.node;
    let what = Watched::Mem {
        addr: 0x400008,
        len: 8,
    };
    let again = why(&idx, &mut src, at, what, 4, WhyImage::default()).unwrap();
    assert_eq!(again.writer, slot.writer);
    assert_eq!(again.source, Source::Computed);
    assert!(again.inputs.iter().any(|n| n.what == "x1"));
}

// Where the walk stops short of an instruction's inputs: a system
// register read, an exception entry, an encoding the decoder does not
// know (SVE), a register line the instruction does not explain.
const STOPS: &str = "\
0 clk R cpsr 000003cd
1 clk IT (1) 00008000 d53be040 O EL3h_s : MRS      x0,cntvct_el0
1 clk R X0 0000000000001234
2 clk IT (2) 00008004 d4000001 O EL3h_s : SVC      #0x0
2 clk E 00008008:000000008008 00000015 CoreEvent_SVC
2 clk R X1 0000000000000007
3 clk IT (3) 00008400 04e10000 O EL3h_s : ADD      z0.d,z0.d,z1.d
3 clk R X2 0000000000000002
4 clk IT (4) 00008404 d2800023 O EL3h_s : MOV      x3,#1
4 clk R X3 0000000000000001
4 clk R X4 0000000000000004
";

#[test]
fn stops_short_of_inputs() {
    let reason = |what: &str| match tree(STOPS, 11, what, 4).source {
        Source::SystemOrException { reason } => reason,
        Source::Undecoded { reason } => format!("undecoded: {reason}"),
        other => format!("{other:?}"),
    };
    assert_eq!(reason("x0"), "system register");
    assert_eq!(reason("x1"), "exception entry");
    assert!(reason("x2").starts_with("undecoded: "), "{}", reason("x2"));
    assert_eq!(
        reason("x4"),
        "written by a line its instruction does not explain"
    );
    assert_eq!(reason("x3"), "Immediate");
    assert_eq!(reason("x5"), "TraceStart");
}

// A pair pushed with writeback and popped: each register of the pair
// comes from its own half, and the stack pointer from the writebacks.
const PAIRS: &str = "\
0 clk R X1 0000000000000011
0 clk R X2 0000000000000022
0 clk R SP_EL3 0000000000400000
1 clk IT (1) 00008000 a9bf0be1 O EL3h_s : STP      x1,x2,[sp,#-16]!
1 clk MW8 003ffff0:0000003ffff0 00000000_00000011
1 clk MW8 003ffff8:0000003ffff8 00000000_00000022
1 clk R SP_EL3 00000000003FFFF0
2 clk IT (2) 00008004 a8c113e3 O EL3h_s : LDP      x3,x4,[sp],#16
2 clk MR8 003ffff0:0000003ffff0 00000000_00000011
2 clk MR8 003ffff8:0000003ffff8 00000000_00000022
2 clk R X3 0000000000000011
2 clk R X4 0000000000000022
2 clk R SP_EL3 0000000000400000
";

#[test]
fn pairs_and_written_back_bases() {
    let x4 = tree(PAIRS, 9, "x4", 4);
    assert_eq!(step(&x4), s("x4", "0x0000000000000022", Some(8)));
    assert_eq!(x4.inputs.len(), 1);
    let half = &x4.inputs[0];
    assert_eq!(step(half), s("[0x3ffff8:8]", "0x0000000000000022", Some(4)));
    let what: Vec<&str> = half.inputs.iter().map(|n| n.what.as_str()).collect();
    assert_eq!(what, ["x2"]);
    assert_eq!(half.not_followed, ["x1", "sp"]);
    // The written-back stack pointer: from the store's writeback, not from
    // the memory the pop read or the registers the push stored.
    let sp = tree(PAIRS, 9, "sp", 4);
    assert_eq!(step(&sp), s("sp", "0x0000000000400000", Some(8)));
    assert_eq!(sp.not_followed, ["[0x3ffff0:8]", "[0x3ffff8:8]"]);
    assert_eq!(sp.inputs.len(), 1);
    let pushed = &sp.inputs[0];
    assert_eq!(step(pushed), s("sp", "0x00000000003ffff0", Some(4)));
    assert_eq!(pushed.not_followed, ["x1", "x2"]);
    assert_eq!(pushed.inputs[0].source, Source::TraceStart);
}

/// Whether trace line `l` is an `R` line of register `what` (`X5`, `SP_EL3`,
/// `r13_svc`, `cpsr` as the fast models write them).
fn writes_reg(l: &str, what: &str) -> bool {
    let f: Vec<&str> = l.split_whitespace().collect();
    f.get(2) == Some(&"R")
        && f.get(3).is_some_and(|n| {
            let n = n.to_ascii_lowercase();
            n.split('_').next() == Some(what)
        })
}

fn check(
    aarch64: bool,
    idx: &Index,
    src: &mut SliceSource<'_>,
    lines: &[&str],
    n: &WhyNode,
    visited: &mut usize,
) {
    *visited += 1;
    let Some(w) = n.writer else { return };
    let node = idx.node(src, w.node).unwrap();
    let text = &lines[node.at.line as usize - 1..(node.at.line + node.lines) as usize - 1];
    if n.what.starts_with('[') {
        assert!(
            text.iter().any(|l| l.contains(" MW")),
            "{} written by {text:?}",
            n.what
        );
    } else {
        assert!(
            text.iter().any(|l| writes_reg(l, &n.what)),
            "{} written by {text:?}",
            n.what
        );
        let reg = idx.register_named(&n.what).unwrap();
        let regs = idx.registers_after(src, w.node).unwrap();
        let (off, size) = register_location(reg, aarch64);
        assert_eq!(n.bytes, regs.bytes[off..off + size], "{} at {w:?}", n.what);
    }
    for i in &n.inputs {
        if let Some(iw) = i.writer {
            assert!(
                iw.node < w.node,
                "{} at {iw:?} feeds {} at {w:?}",
                i.what,
                n.what
            );
        }
        check(aarch64, idx, src, lines, i, visited);
    }
}

#[test]
fn real_traces_steps_are_writes_the_traces_show() {
    for (name, aarch64) in [
        ("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac", true),
        ("tracegen/quicksort-arm-O2-fastmodel-2M.tarmac", false),
        ("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac", false),
    ] {
        real_trace(name, aarch64);
    }
}

fn real_trace(name: &str, aarch64: bool) {
    let trace = std::fs::read(data(name)).unwrap();
    let idx = index(&trace);
    let text = std::str::from_utf8(&trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut src = SliceSource(&trace);
    let mut trees = 0;
    let mut visited = 0;
    // After every 997th line, the next register line: the register it
    // writes, after its node.
    for i in (0..lines.len()).step_by(997) {
        let Some(pos) = lines[i..].iter().position(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(2) == Some(&"R") && f.len() == 5
        }) else {
            continue;
        };
        let l = lines[i + pos];
        let written = l.split_whitespace().nth(3).unwrap().to_ascii_lowercase();
        let reg = written.split('_').next().unwrap();
        let line = (i + pos + 1) as u64;
        let node = idx.node_at_line(&mut src, line).unwrap().at.node;
        let what = Watched::Reg(idx.register_named(reg).unwrap());
        let t = why(&idx, &mut src, node, what, 3, WhyImage::default()).unwrap();
        assert_eq!(
            t.writer.map(|w| w.node),
            Some(node),
            "{name}: {reg} at {line}"
        );
        check(aarch64, &idx, &mut src, &lines, &t, &mut visited);
        trees += 1;
    }
    assert!(trees >= 25, "{name}: {trees} trees");
    assert!(visited >= 60, "{name}: {visited} nodes");
}
