//! What each fuzz target does with its input, shared by the cargo-fuzz
//! targets (`fuzz/fuzz_targets/*.rs` include this file) and by
//! `tests/fuzz_regressions.rs`, which replays every input a fuzzer once
//! crashed on (`tests/data/fuzz/TARGET/`). Each function must not panic,
//! whatever the bytes.
#![allow(dead_code)]

use tarmac_lens_core::{
    detect_dialect, parse_expr,
    protocol::{
        CallStack, Eval, Fold, FoldOp, Locate, Memory, NodeLines, Query, RegMark, Registers,
        RowOfNode, Rows, Step, Symbolize, Write, WriteTarget,
    },
    Dialect, ExprContext, Index, IndexOptions, NoContext, ParseOptions, Parser, RegId, Session,
    SliceSource, SymbolTable,
};

/// Runs the check of fuzz target `target` on `data`.
pub fn run(target: &str, data: &[u8]) {
    match target {
        "parse_line" => parse_line(data),
        "detect_dialect" => detect_dialect_then_parse(data),
        "index_trace" => index_trace(data),
        "elf_symbols" => elf_symbols(data),
        "address_expr" => address_expr(data),
        _ => panic!("no fuzz target {target}"),
    }
}

/// The line parser, fed every line of the input in turn (state carries
/// across lines: timestamps, LD/ST continuation columns). The first byte
/// picks the dialect and options.
pub fn parse_line(data: &[u8]) {
    let Some((&mode, text)) = data.split_first() else {
        return;
    };
    let dialect = [Dialect::Tarmac, Dialect::Armulator, Dialect::TiEp][(mode % 3) as usize];
    let opts = ParseOptions {
        implicit_thumb: mode & 4 != 0,
        big_endian: mode & 8 != 0,
        dialect: Some(dialect),
        ..ParseOptions::default()
    };
    let mut parser = Parser::new(opts, dialect);
    for line in text.split(|&b| b == b'\n') {
        let rec = parser.parse_line(line);
        std::hint::black_box(rec.kind.name());
    }
}

/// Dialect detection on any first bytes of a file, then the chosen parser on
/// those bytes (what opening a file does).
pub fn detect_dialect_then_parse(data: &[u8]) {
    let dialect = detect_dialect(data);
    let mut parser = Parser::for_sample(ParseOptions::default(), data);
    assert_eq!(parser.dialect(), dialect);
    for line in data.split(|&b| b == b'\n').take(64) {
        std::hint::black_box(parser.parse_line(line).kind.name());
    }
}

/// The indexer on a whole random trace, then queries on the index: built
/// with tiny checkpoint intervals (so short inputs still exercise
/// checkpoints, snapshots and replay), streamed and from a slice (they must
/// agree), and the browser session's queries over it.
pub fn index_trace(data: &[u8]) {
    let opts = IndexOptions {
        parse: ParseOptions::default(),
        checkpoint_bytes: 96,
    };
    let index = Index::build_from_slice(data, opts, |_| {});
    let streamed = Index::build(&mut SliceSource(data), opts, |_| {}).expect("slices never fail");
    assert_eq!(index.summary(), streamed.summary());
    let mut src = SliceSource(data);
    let nodes = index.nodes();
    let x0 = RegId::lookup(b"x0").expect("x0 is a register");
    for n in (0..nodes.min(16)).chain(nodes.saturating_sub(2)..nodes + 1) {
        if let Ok(info) = index.node(&mut src, n) {
            let _ = index.registers_after(&mut src, n);
            let _ = index.memory_after(&mut src, n, info.at.pc.wrapping_sub(8), 32);
            let _ = index.prev_reg_write(&mut src, n, x0);
            let _ = index.next_mem_write(&mut src, n, 0, u64::MAX);
            let _ = index.prev_mem_write(&mut src, n, u64::MAX - 4, 16);
            let _ = index.find_pc(&mut src, n, info.at.pc, n % 2 == 0);
            let _ = index.node_at_line(&mut src, info.at.line + info.lines);
            let _ = index.node_at_time(&mut src, info.at.time);
        }
    }
    let _ = index.node_at_offset(&mut src, data.len() as u64 / 2);
    let _ = index.node_at_instruction(&mut src, 1);
    let mut lines = 0;
    let _ = index.scan_lines(&mut src, 1, 64, &mut |_, _, _| lines += 1);

    let Ok(mut session) = Session::open(SliceSource(data), ParseOptions::default()) else {
        return;
    };
    while !session.index_step(97).expect("slices never fail").complete {}
    let last = nodes.saturating_sub(1);
    for q in [
        Query::Rows(Rows {
            view: 0,
            first: 0,
            count: 50,
        }),
        Query::Locate(Locate::End),
        Query::Locate(Locate::Line(3)),
        Query::Locate(Locate::Time(u64::MAX)),
        Query::Fold(Fold {
            view: 0,
            node: last / 2,
            op: FoldOp::FoldAll,
        }),
        Query::Rows(Rows {
            view: 0,
            first: 1,
            count: 50,
        }),
        Query::Step(Step {
            view: 0,
            node: 0,
            delta: i64::MAX,
        }),
        Query::Step(Step {
            view: 0,
            node: last,
            delta: i64::MIN,
        }),
        Query::RowOfNode(RowOfNode {
            view: 0,
            node: last,
        }),
        Query::Fold(Fold {
            view: 0,
            node: last,
            op: FoldOp::UnfoldInside,
        }),
        Query::Registers(Registers {
            node: last,
            mark: RegMark::ChangedSince(0),
        }),
        Query::Memory(Memory {
            node: last,
            addr: u64::MAX - 7,
            len: 4096,
            compare: Some(0),
        }),
        Query::Write(Write {
            node: last,
            target: WriteTarget::Register("sp".into()),
            forward: false,
        }),
        Query::Write(Write {
            node: 0,
            target: WriteTarget::Memory {
                addr: 0,
                len: u64::MAX,
            },
            forward: true,
        }),
        Query::Eval(Eval {
            node: last,
            expr: "sp+0x100".into(),
        }),
        Query::CallStack(CallStack { node: last }),
        Query::NodeLines(NodeLines { node: last }),
        Query::Symbolize(Symbolize {
            addrs: vec![0, u64::MAX],
        }),
    ] {
        std::hint::black_box(session.answer(q));
    }
}

/// The ELF reader: any bytes as an image, then every lookup the browser and
/// the reports make.
pub fn elf_symbols(data: &[u8]) {
    let Ok(table) = SymbolTable::from_elf_bytes(data, 0) else {
        return;
    };
    let _ = table.check_endianness(false);
    let _ = table.check_endianness(true);
    for sym in table.symbols().iter().take(64) {
        let name = sym.display_name();
        std::hint::black_box(table.find_all_by_name(&sym.name).len());
        std::hint::black_box(table.address_of(&sym.name));
        for addr in [
            sym.addr,
            sym.addr.wrapping_add(sym.size),
            sym.addr.wrapping_sub(1),
        ] {
            std::hint::black_box(table.symbolic_address(addr, true));
            std::hint::black_box(table.function_name(addr));
        }
        std::hint::black_box(name);
    }
    for addr in [0, 1, u64::MAX, 0x8000_0000] {
        std::hint::black_box(table.find_by_address(addr).map(|(s, o)| (s.addr, o)));
    }
    // A load offset moves every address; extreme ones must not overflow.
    for offset in [i64::MIN, -1, 1, i64::MAX] {
        if let Ok(t) = SymbolTable::from_elf_bytes(data, offset) {
            std::hint::black_box(t.symbolic_address(u64::MAX, true));
        }
    }
}

/// No registers and no symbols: only constant expressions parse.
struct Ctx;

impl ExprContext for Ctx {
    fn register(&self, name: &str) -> Option<u64> {
        (name != "x1").then_some((name.len() as u64).wrapping_mul(0x0123_4567_89ab_cdef))
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        matches!(name, "main" | "foo::bar" | "quicksort").then_some(u64::MAX - 3)
    }
}

/// The address-expression parser (`sp+0x100`, `main+4`, `(x0-8)*2`) and its
/// evaluation, with and without registers and symbols.
pub fn address_expr(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = parse_expr(text, &NoContext) {
        assert!(e.is_constant());
        let _ = e.eval(&NoContext);
        std::hint::black_box(e.display());
    }
    if let Ok(e) = parse_expr(text, &Ctx) {
        let _ = e.eval(&Ctx);
        std::hint::black_box(e.display());
    }
}
