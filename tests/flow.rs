//! `flow`: a branch-only trace made from a full instruction trace gives back
//! the straight-line blocks the full trace shows, with their lengths.

use crate::common::{data, read};
use tarmac_lens_core::{
    report::flow::{flow, render},
    BranchKind, ParseOptions, Parser, RecordKind, SliceSource, SymbolTable,
};

/// (tick, pc, line text) of every instruction of a trace.
fn instructions(text: &[u8]) -> Vec<(u64, u64)> {
    let mut parser = Parser::for_sample(ParseOptions::default(), text);
    text.split(|&b| b == b'\n')
        .filter_map(|line| match parser.parse_line(line).kind {
            RecordKind::Instruction(i) => Some((i.inst_id.expect("fast models ticks"), i.pc)),
            _ => None,
        })
        .collect()
}

#[test]
fn branches_alone_give_back_the_blocks_of_the_full_trace() {
    let full = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"));
    let ins = instructions(&full);
    assert!(ins.len() > 10_000);
    // The branch-only trace Fast Models' program-flow source would write:
    // one FD line per instruction whose successor is not the next word.
    let mut branches = String::new();
    let mut expected = Vec::new(); // (start, end, count) of each block
    let mut block_start: Option<(u64, u64)> = None; // (pc, tick)
    for w in ins.windows(2) {
        let ((tick, pc), (_, next)) = (w[0], w[1]);
        if next != pc + 4 {
            branches.push_str(&format!("{tick} clk FD ({tick}) {pc:08x} {next:08x} O\n"));
            if let Some((s, t0)) = block_start {
                expected.push((Some(s), pc, Some(tick - t0 + 1)));
            } else {
                expected.push((None, pc, None));
            }
            block_start = Some((next, tick + 1));
        }
    }
    assert!(expected.len() > 1000);
    let f = flow(
        SliceSource(branches.as_bytes()),
        ParseOptions::default(),
        usize::MAX,
    )
    .unwrap();
    assert_eq!(f.unparsed.count, 0);
    assert_eq!(f.instruction_lines, 0);
    let got: Vec<_> = f
        .blocks
        .iter()
        .map(|b| (b.start, b.end, b.instructions))
        .collect();
    assert_eq!(got, expected);
    assert!(f
        .blocks
        .iter()
        .all(|b| b.kind == BranchKind::Direct && !b.interrupted));
    // Every instruction is in exactly one block (the first block's start
    // aside, which the branches cannot tell).
    let counted: u64 = f.blocks.iter().filter_map(|b| b.instructions).sum();
    let first_block = ins
        .iter()
        .position(|&(_, pc)| pc == f.blocks[0].end)
        .unwrap() as u64
        + 1;
    let after_last = ins.len() as u64
        - (ins
            .iter()
            .rposition(|&(_, pc)| pc == f.blocks.last().unwrap().target)
            .unwrap() as u64);
    assert_eq!(counted + first_block + after_last, ins.len() as u64);

    // With the ELF, blocks and targets are named.
    let elf = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf"));
    let symbols = SymbolTable::from_elf_bytes(&elf, 0).unwrap();
    let text = render(&f, Some(&symbols));
    assert!(text.lines().count() == 2 * f.blocks.len());
    assert!(text.contains(" <"), "{}", &text[..400]);
}

#[test]
fn an_exception_between_branches_is_flagged_and_other_lines_are_kept_apart() {
    let trace = b"1 clk FD (1) 00001000 00002000 A\n\
2 clk E 00002004 00000001 IRQ\n\
5 clk FI (5) 00002010 00003000 T\n\
6 clk FR (9) 00003004 00002008 A\n";
    let f = flow(SliceSource(trace), ParseOptions::default(), 10).unwrap();
    assert_eq!(f.blocks.len(), 3);
    assert_eq!(
        (
            f.blocks[1].start,
            f.blocks[1].end,
            f.blocks[1].instructions,
            f.blocks[1].interrupted
        ),
        (Some(0x2000), 0x2010, Some(4), true)
    );
    assert_eq!(f.blocks[2].kind, BranchKind::ExceptionReturn);
    assert_eq!(f.blocks[2].instructions, Some(4));
    assert!(!f.blocks[2].interrupted);
    let text = render(&f, None);
    assert!(
        text.contains("0x00002000..0x00002010      4 instr A32   (an exception came in between)"),
        "{text}"
    );
    assert!(
        text.contains("    FR 0x00003004 -> 0x00002008  (line 4, time 6)"),
        "{text}"
    );
}
