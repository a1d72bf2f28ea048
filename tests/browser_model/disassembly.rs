//! The disassembly pane (`panes::disassembly`), driven as a person drives
//! it (the ELF loaded, `i`, `p memcpy`, a click on a row), against two
//! oracles: the per-PC counts of the trace text, counted here line by line
//! (`IT` executed, `IS` failed its condition), and `objdump -d` of the same
//! ELF (Debian's cross binutils) for the instruction boundaries and
//! mnemonics, at every address of one function of an A64, an A32 and a
//! Thumb image.

use std::collections::HashMap;

use super::{data, Page};
use crate::common::{objdump_instructions, oracle};
use tarmac_lens::model::layout::Slot;
use tarmac_lens::model::pane_state::PaneAction;
use tarmac_lens::model::{Config, Msg, PaneMsg};
use tarmac_lens::panes::disassembly::{Disassembly, Line};
use tarmac_lens_core::SymbolTable;

/// One function per instruction set: in each trace, some of its
/// instructions never ran and some failed their condition.
const FUNCTION: &str = "memcpy";

const CASES: [(&str, &str, &str); 3] = [
    (
        "quicksort-aarch64-O2-fastmodel-2M",
        "aarch64-linux-gnu-objdump",
        "binutils-aarch64-linux-gnu",
    ),
    (
        "quicksort-arm-O2-fastmodel-2M",
        "arm-none-eabi-objdump",
        "binutils-arm-none-eabi",
    ),
    (
        "quicksort-thumb-O2-fastmodel-2M",
        "arm-none-eabi-objdump",
        "binutils-arm-none-eabi",
    ),
];

/// Per address, the instruction lines of the trace text: executed (`IT`),
/// failed their condition (`IS`), and the line numbers of the first.
#[derive(Default)]
struct TextCounts {
    executed: HashMap<u64, u64>,
    failed: HashMap<u64, u64>,
    lines: HashMap<u64, Vec<u64>>,
}

fn count_text(trace: &[u8]) -> TextCounts {
    let mut c = TextCounts::default();
    for (i, line) in String::from_utf8_lossy(trace).lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(k) = words.iter().position(|w| *w == "IT" || *w == "IS") else {
            continue;
        };
        let Some(addr) = words
            .get(k + 2)
            .and_then(|a| u64::from_str_radix(a, 16).ok())
        else {
            continue;
        };
        if words[k] == "IT" {
            *c.executed.entry(addr).or_default() += 1;
            c.lines.entry(addr).or_default().push(i as u64 + 1);
        } else {
            *c.failed.entry(addr).or_default() += 1;
        }
    }
    c
}

/// An instruction's mnemonic, the spellings known to differ between
/// yaxpeax-arm and objdump made one:
/// - case (lowered);
/// - objdump marks Thumb widths (`bne.n`, `bic.w`), yaxpeax-arm does not;
/// - yaxpeax-arm writes an A32 shift by an immediate as the `mov` it is
///   (`mov r5, ip, lsr 2`), objdump as its alias (`lsr r5, ip, #2`).
fn mnemonic(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let m = words.first().cloned().unwrap_or_default();
    // A32 `mov rd, rm, lsr 2` is objdump's `lsr rd, rm, #2`.
    let shift = words
        .get(3)
        .filter(|w| ["lsl", "lsr", "asr", "ror"].contains(&w.as_str()));
    let m = match (m.as_str(), shift) {
        ("mov", Some(shift)) => shift.clone(),
        ("movs", Some(shift)) => format!("{shift}s"),
        _ => m,
    };
    m.strip_suffix(".n")
        .or_else(|| m.strip_suffix(".w"))
        .unwrap_or(&m)
        .to_string()
}

fn listing<'p>(page: &'p Page<'_>) -> &'p Disassembly {
    page.model
        .panes
        .iter()
        .find_map(|p| p.body.state.as_any().downcast_ref::<Disassembly>())
        .expect("the disassembly pane")
}

#[test]
fn the_disassembly_pane_matches_the_trace_text_and_objdump() {
    let mut failed_seen = 0;
    for (name, tool, package) in CASES {
        let trace = std::fs::read(data(&format!("tracegen/{name}.tarmac"))).unwrap();
        let elf_path = data(&format!("tracegen/{name}.elf"));
        let elf = std::fs::read(&elf_path).unwrap();
        let symbols = SymbolTable::from_elf_bytes(&elf, 0).unwrap();
        let sym = symbols.find_all_by_name(FUNCTION)[0].clone();
        let (start, end) = (sym.addr & !1, (sym.addr & !1) + sym.size);

        let mut page = Page::open(&trace, Config::default());
        page.load_elf(&elf);
        page.key("i");
        assert!(
            page.model.shown(Slot::named("disassembly").unwrap()),
            "{name}: i opens it"
        );
        page.prompt("p", FUNCTION);
        let d = listing(&page).listing.clone().expect("a listing");
        assert_eq!(d.note, None, "{name}");
        assert_eq!(d.function, FUNCTION, "{name}");
        assert_eq!(d.pc, start, "{name}: at the function's first visit");
        assert!(d.complete, "{name}");

        // Boundaries and mnemonics: objdump's, at every address.
        let want = objdump_instructions(&elf_path, oracle(tool, package));
        let want: Vec<(u64, String)> = want
            .range(start..end)
            .map(|(a, t)| (*a, t.clone()))
            .collect();
        let got: Vec<u64> = d.rows.iter().map(|r| r.addr).collect();
        assert_eq!(
            got,
            want.iter().map(|(a, _)| *a).collect::<Vec<_>>(),
            "{name}"
        );
        let differ: Vec<String> = d
            .rows
            .iter()
            .zip(&want)
            .filter(|(row, (_, text))| mnemonic(&row.text) != mnemonic(text))
            .map(|(row, (addr, text))| {
                format!("{addr:#x}: ours {:?}, objdump's {text:?}", row.text)
            })
            .collect();
        assert!(differ.is_empty(), "{name}:\n{}", differ.join("\n"));

        // Counts: the trace text's, per address, failures apart.
        let text = count_text(&trace);
        for row in &d.rows {
            let executed = text.executed.get(&row.addr).copied().unwrap_or(0);
            let failed = text.failed.get(&row.addr).copied().unwrap_or(0);
            assert_eq!(
                (row.executed, row.failed),
                (executed, failed),
                "{name} at {:#x}",
                row.addr
            );
            failed_seen += failed;
        }
        let kinds = listing(&page).lines();
        for (row, line) in &kinds {
            let expected = if row.addr == d.pc {
                Line::Here
            } else if row.executed + row.failed == 0 {
                Line::NeverRun
            } else {
                Line::Reached
            };
            assert_eq!(*line, expected, "{name} at {:#x}", row.addr);
        }
        assert!(
            kinds.iter().any(|(_, l)| *l == Line::NeverRun),
            "{name}: some instruction never ran, to grey"
        );

        // A click on a row goes to that instruction's next execution after
        // the position, as the trace text has it.
        let here = page.line();
        let (addr, next) = d
            .rows
            .iter()
            .filter(|r| r.addr != d.pc)
            .find_map(|r| {
                let next = text.lines.get(&r.addr)?.iter().find(|&&l| l > here)?;
                Some((r.addr, *next))
            })
            .expect("an instruction run again later");
        let pane = page
            .model
            .pane_of(Slot::named("disassembly").unwrap())
            .map(|p| p.id)
            .unwrap();
        page.send(Msg::Pane(
            pane,
            PaneMsg::Action(PaneAction::NextExecution(addr)),
        ));
        assert_eq!(page.line(), next, "{name}: the click at {addr:#x}");
        assert_eq!(listing(&page).listing.as_ref().unwrap().pc, addr, "{name}");
    }
    assert!(
        failed_seen > 0,
        "no listed instruction failed its condition"
    );
}
