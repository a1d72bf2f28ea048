//! The program flow as the page explores it (`report::flow_explore`): its
//! text, written from a fresh pass, is `tarmac-lens flow`'s byte for byte
//! (with and without an ELF image); its pages hold the blocks that text
//! lists, named from the image, and stay bounded.

use tarmac_lens_core::{
    report::{FlowReports, MAX_BLOCKS, MAX_PAGE},
    ParseOptions, Parser, RecordKind, SliceSource, SymbolTable,
};

use crate::common::{cli_stdout, data, read, Dir};

const BASE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

/// The branch-only trace Fast Models' program-flow source would write for
/// the full trace: an FD line per instruction not followed by the next word.
fn branch_only() -> String {
    let full = read(&data(&format!("{BASE}.tarmac")));
    let mut parser = Parser::for_sample(ParseOptions::default(), &full);
    let ins: Vec<(u64, u64)> = full
        .split(|&b| b == b'\n')
        .filter_map(|line| match parser.parse_line(line).kind {
            RecordKind::Instruction(i) => Some((i.inst_id.unwrap(), i.pc)),
            _ => None,
        })
        .collect();
    let mut out = String::new();
    for w in ins.windows(2) {
        let ((tick, pc), (_, next)) = (w[0], w[1]);
        if next != pc + 4 {
            out.push_str(&format!("{tick} clk FD ({tick}) {pc:08x} {next:08x} O\n"));
        }
    }
    out
}

fn symbols() -> SymbolTable {
    SymbolTable::from_elf_bytes(&read(&data(&format!("{BASE}.elf"))), 0).unwrap()
}

#[test]
fn the_text_is_the_cli_output_byte_for_byte() {
    let trace = branch_only();
    let tmp = Dir::new("flow-explore");
    let dir = tmp.path();
    let file = dir.join("branches.tarmac");
    std::fs::write(&file, &trace).unwrap();
    let elf = data(&format!("{BASE}.elf"));
    for image in [None, Some(symbols())] {
        let with = image.is_some();
        let r = FlowReports::compute(
            SliceSource(trace.as_bytes()),
            ParseOptions::default(),
            image,
        )
        .unwrap();
        let mut got = Vec::new();
        r.write_text(SliceSource(trace.as_bytes()), &mut got)
            .unwrap();
        let mut args = vec!["flow", file.to_str().unwrap(), "--no-index"];
        if with {
            args.extend(["--image", elf.to_str().unwrap()]);
        }
        let want = cli_stdout(&args);
        assert!(
            got == want,
            "with ELF: {with}: {} vs {} bytes",
            got.len(),
            want.len()
        );
    }
}

#[test]
fn pages_hold_the_blocks_named_from_the_image() {
    let trace = branch_only();
    let image = symbols();
    let plain =
        FlowReports::compute(SliceSource(trace.as_bytes()), ParseOptions::default(), None).unwrap();
    let named = FlowReports::compute(
        SliceSource(trace.as_bytes()),
        ParseOptions::default(),
        Some(image),
    )
    .unwrap();
    let s = named.summary();
    assert!(s.has_symbols && !plain.summary().has_symbols);
    assert!(s.blocks as usize > MAX_PAGE && s.blocks as usize <= MAX_BLOCKS);
    assert_eq!(
        (s.listed, s.instruction_lines, s.unparsed),
        (s.blocks, 0, 0)
    );
    // The CLI text's blocks, in order: start, end, count, kind, target, line.
    let text = String::from_utf8({
        let mut v = Vec::new();
        named
            .write_text(SliceSource(trace.as_bytes()), &mut v)
            .unwrap();
        v
    })
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut offset = 0;
    let mut seen = 0u64;
    let mut instructions = 0u64;
    loop {
        let page = named.blocks(offset, usize::MAX);
        assert!(page.rows.len() <= MAX_PAGE);
        assert_eq!(page.total, s.blocks);
        if page.rows.is_empty() {
            break;
        }
        for row in &page.rows {
            assert_eq!(row.index, seen);
            let (head, branch) = (lines[2 * seen as usize], lines[2 * seen as usize + 1]);
            let start = row
                .start
                .map_or_else(|| "?".repeat(10), |s| format!("0x{s:08x}"));
            assert!(
                head.starts_with(&format!("{start}..0x{:08x} ", row.end)),
                "{head}"
            );
            let count = row.instructions.map_or("?".into(), |n| n.to_string());
            assert_eq!(
                head.split_whitespace().nth(1),
                Some(count.as_str()),
                "{head}"
            );
            if !row.function.is_empty() {
                assert!(head.ends_with(&format!(" <{}>", row.function)), "{head}");
            }
            let target = if row.target_function.is_empty() {
                String::new()
            } else {
                format!(" <{}>", row.target_function)
            };
            assert_eq!(
                branch,
                format!(
                    "    {} 0x{:08x} -> 0x{:08x}{target}  (line {}, time {})",
                    row.kind, row.end, row.target, row.line, row.time
                )
            );
            instructions += row.instructions.unwrap_or(0);
            seen += 1;
        }
        offset += page.rows.len() as u64;
    }
    assert_eq!(seen, s.blocks);
    assert_eq!(instructions, s.instructions);
    assert_eq!(2 * seen as usize, lines.len());
    // Names come from the image; without it there are none.
    let p = named.blocks(1, 50);
    assert!(p.rows.iter().any(|r| !r.function.is_empty()));
    assert!(plain
        .blocks(0, 50)
        .rows
        .iter()
        .all(|r| r.function.is_empty()));
    assert!(named.blocks(u64::MAX, 10).rows.is_empty());
}

#[test]
fn a_long_flow_keeps_the_first_blocks_and_counts_the_rest() {
    let mut trace = String::new();
    let n = MAX_BLOCKS + 10;
    for i in 0..n as u64 {
        let t = 2 * i + 1;
        trace.push_str(&format!("{t} clk FD ({t}) 00001004 00001000 A\n"));
    }
    let r =
        FlowReports::compute(SliceSource(trace.as_bytes()), ParseOptions::default(), None).unwrap();
    let s = r.summary();
    assert_eq!((s.blocks, s.listed), (n as u64, MAX_BLOCKS as u64));
    // Two instructions per loop, the first block's length unknown.
    assert_eq!(s.instructions, 2 * (n as u64 - 1));
    assert_eq!(r.blocks(MAX_BLOCKS as u64 - 1, 10).rows.len(), 1);
    // The text still has every block.
    let mut text = Vec::new();
    r.write_text(SliceSource(trace.as_bytes()), &mut text)
        .unwrap();
    assert_eq!(text.iter().filter(|&&b| b == b'\n').count(), 2 * n);
}
