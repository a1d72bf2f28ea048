//! Forms seen in traces from the wild (`tests/data/field/`): each file reads
//! with no unparsed line, dumps to its hand-checked `.ref`, and the fields
//! the dump does not show (second physical address, bus flags) hold.

use std::path::PathBuf;

use crate::common::{assert_same, data, read, tarmac_files};

use tarmac_lens_core::{
    dialect_of, dump, stitch, LineReader, ParseOptions, Parser, Record, RecordKind, SliceSource,
};

fn traces() -> Vec<PathBuf> {
    tarmac_files("field")
}

/// The options a file is read with: `--implicit-thumb` where its name says.
fn options(p: &std::path::Path) -> ParseOptions {
    ParseOptions {
        implicit_thumb: p.to_string_lossy().contains("implicit-thumb"),
        ..ParseOptions::default()
    }
}

/// Calls `f` with each line's number (from 1), text and record.
fn each_record(bytes: &[u8], opts: ParseOptions, mut f: impl FnMut(usize, &[u8], &Record<'_>)) {
    let mut parser = Parser::for_sample(opts, bytes);
    let mut lines = LineReader::new(SliceSource(bytes));
    let mut n = 0;
    while let Some(line) = lines.next_line().unwrap() {
        n += 1;
        let text = line.text.to_vec();
        let rec = parser.parse_line(line.text);
        f(n, &text, &rec);
    }
}

#[test]
fn every_form_reads_without_unparsed_lines_and_dumps_as_expected() {
    let files = traces();
    assert!(files.len() >= 9, "field traces missing: {files:?}");
    for p in files {
        let bytes = read(&p);
        let name = p.display().to_string();
        let mut records = 0;
        each_record(&bytes, options(&p), |n, text, rec| {
            records += 1;
            assert!(
                !matches!(rec.kind, RecordKind::Unparsed(_)),
                "{name}:{n}: {:?} unparsed: {:?}",
                String::from_utf8_lossy(text),
                rec.kind
            );
        });
        assert!(records >= 5, "{name}: {records} lines");
        let mut out = Vec::new();
        dump(SliceSource(&bytes), options(&p), &mut out).unwrap();
        let want = String::from_utf8(read(&p.with_extension("ref"))).unwrap();
        assert_same(&String::from_utf8(out).unwrap(), &want, &name);
    }
}

#[test]
fn memory_access_keeps_both_physical_addresses() {
    let bytes = read(&data("field/two-physical-addresses.tarmac"));
    let mut seen = Vec::new();
    each_record(&bytes, ParseOptions::default(), |_, _, rec| {
        if let RecordKind::Memory(m) = &rec.kind {
            seen.push((m.addr, m.phys, m.phys2, m.bytes.to_vec()));
        }
    });
    assert_eq!(
        seen,
        vec![
            (
                0xffff_0000_0040_1000,
                Some(0xc040_1000),
                Some(0x8040_1000),
                vec![0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0]
            ),
            (
                0xffff_0000_0040_1008,
                Some(0xc040_1008),
                Some(0x8040_1008),
                vec![0x0d, 0xf0, 0xfe, 0xca, 0, 0, 0, 0]
            ),
        ]
    );
}

#[test]
fn instruction_side_transfers_are_bus_cycles_with_their_flags() {
    let bytes = read(&data("field/palladium-flags.tarmac"));
    let mut bus = Vec::new();
    let mut data_side = Vec::new();
    each_record(&bytes, ParseOptions::default(), |_, _, rec| {
        match &rec.kind {
            RecordKind::Bus(b) => bus.push((
                String::from_utf8_lossy(b.type_word).into_owned(),
                b.read,
                b.size,
                b.opcode_fetch,
                b.instruction_side,
                b.addr,
                String::from_utf8_lossy(b.data).into_owned(),
            )),
            // Only data-side transfers may reach the memory the panes show.
            RecordKind::Memory(m) => data_side.push((rec.time, m.addr)),
            _ => {}
        }
    });
    let cycle = |w: &str, fetch: bool, addr: u64, data: &str| {
        (
            w.to_string(),
            Some(true),
            Some(4),
            fetch,
            Some(true),
            Some(addr),
            data.to_string(),
        )
    };
    assert_eq!(
        bus,
        vec![
            cycle("MNR4O__I", true, 0x22a7c, "48f62000"),
            cycle("BNR4O__I", true, 0x22a7c, "48f62000"),
            cycle("MNR4___I", false, 0x22a80, "bf006008"),
            cycle("BNR4___I", false, 0x22a80, "bf006008"),
        ]
    );
    assert_eq!(data_side, vec![(3042, 0x22e58), (3044, 0x2000_0000)]);
}

#[test]
fn bad_side_cycles_name_their_column() {
    for (line, reason) in [
        ("10 cyc BNR4___I", "expected memory address"),
        (
            "10 cyc BNR4___I 00008000",
            "expected memory contents in hex",
        ),
        (
            "10 cyc BNR4___I 00008000 zz",
            "expected memory contents in hex",
        ),
        (
            "10 cyc MR8 00001000:00002000_NS,zz 0123",
            "expected second physical memory address after ','",
        ),
    ] {
        let mut p = Parser::for_sample(ParseOptions::default(), line.as_bytes());
        match p.parse_line(line.as_bytes()).kind {
            RecordKind::Unparsed(u) => assert_eq!(u.reason, reason, "{line}"),
            k => panic!("{line}: {k:?}"),
        }
    }
}

#[test]
fn instruction_side_fetches_leave_the_memory_pane_alone() {
    use tarmac_lens_core::{
        protocol::{Locate, Memory},
        Session,
    };

    let bytes = read(&data("field/palladium-flags.tarmac"));
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    let Some(last) = s.ask(Locate::Line(9)).unwrap() else {
        panic!("line 9 has a node")
    };
    let mut memory = |addr: u64, len: u32| {
        let m = s
            .ask(Memory {
                node: last.node,
                addr,
                len,
                compare: None,
            })
            .unwrap();
        (m.bytes, m.known)
    };
    // The fetched words at 0x22a7c..0x22a84 are not data memory.
    let (_, known) = memory(0x22a7c, 8);
    assert_eq!(known, vec![false; 8]);
    // The data-side read at 0x22e58 is, in memory order as written.
    let (values, known) = memory(0x22e58, 4);
    assert_eq!(known, vec![true; 4]);
    assert_eq!(values, vec![0x20, 0x02, 0xfa, 0x00]);
}

/// A whole file is in one form: a line whose fields alone would be read in
/// the other form (an encoding of one digit, no state to count up to) is
/// read in the form the file's lines show, and so is it by every parser the
/// index makes: after saving, and in ranges built apart and stitched.
#[test]
fn a_whole_file_is_in_one_instruction_form() {
    use tarmac_lens_core::{Index, IndexOptions, InstructionForm, RangeIndex, TraceIdentity};

    let p = data("field/address-after-narrow-encoding-implicit-thumb.tarmac");
    let bytes = read(&p);
    let opts = options(&p);
    let narrow = b"12 ns IT (12) 00008a16 0 MOVS r0,r0";
    let pc_of = |parser: &mut Parser| match parser.parse_line(narrow).kind {
        RecordKind::Instruction(i) => i.pc,
        other => panic!("not an instruction: {other:?}"),
    };
    // Alone, the line's widths say the address is the bracketed value.
    assert_eq!(pc_of(&mut Parser::for_sample(opts, narrow)), 0x12);
    let mut in_file = Parser::for_sample(opts, &bytes);
    assert_eq!(
        in_file.options().instruction_form,
        Some(InstructionForm::AddressAfter)
    );
    assert_eq!(pc_of(&mut in_file), 0x8a16);
    let brackets = read(&data("field/pc-in-brackets-implicit-thumb.tarmac"));
    assert_eq!(
        Parser::for_sample(opts, &brackets)
            .options()
            .instruction_form,
        Some(InstructionForm::AddressInBrackets)
    );
    // Files without bracketed values leave it to each line.
    let plain = read(&data("field/state-without-mode.tarmac"));
    assert_eq!(
        Parser::for_sample(ParseOptions::default(), &plain)
            .options()
            .instruction_form,
        None
    );

    let id = TraceIdentity { len: 0, mtime: 0 };
    let o = IndexOptions {
        parse: opts,
        checkpoint_bytes: 64,
    };
    let seq = Index::build_from_slice(&bytes, o, |_| {});
    assert_eq!(
        seq.options().parse.instruction_form,
        Some(InstructionForm::AddressAfter)
    );
    let saved = seq.to_bytes(id);
    let (loaded, _) = Index::from_bytes(&saved).unwrap();
    assert_eq!(
        loaded.options().parse.instruction_form,
        Some(InstructionForm::AddressAfter)
    );
    // A longer file in that form, built in two ranges split at line starts
    // and stitched: the sequential index (a range that starts inside the
    // file takes the form from its first lines: `index::parallel`'s tests).
    let bytes: Vec<u8> = (0..40u64)
        .flat_map(|k| {
            let t = 10 + 4 * k;
            format!(
                "{} ns IT ({0}) 00008a10 2000 MOVS r0,#0\n{0} ns R r0 00000000\n\
                 {} ns IT ({1}) 00008a12 f1000101 ADD r1,r0,#1\n{1} ns R r1 00000001\n\
                 {} ns IT ({2}) 00008a16 0 MOVS r0,r0\n{2} ns R r0 00000000\n\
                 {} ns IT ({3}) 00008a18 e7fa B 0x8a10\n",
                t,
                t + 1,
                t + 2,
                t + 3
            )
            .into_bytes()
        })
        .collect();
    let seq = Index::build_from_slice(&bytes, o, |_| {});
    let saved = seq.to_bytes(id);
    let len = bytes.len() as u64;
    let dialect = dialect_of(&mut SliceSource(&bytes), &o).unwrap();
    let starts: Vec<u64> = std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|(i, &b)| b == b'\n' && (*i as u64) + 1 < len)
                .map(|(i, _)| i as u64 + 1),
        )
        .collect();
    for split in starts[1..].iter().step_by(7) {
        let parts = vec![
            RangeIndex::build_from_slice(&bytes, o, dialect, 0, *split, |_| {}),
            RangeIndex::from_bytes(
                &RangeIndex::build(&mut SliceSource(&bytes), o, dialect, *split, len, |_| {})
                    .unwrap()
                    .to_bytes(),
            )
            .unwrap(),
        ];
        let (par, _) = stitch(&mut SliceSource(&bytes), parts, len).unwrap();
        assert!(par.to_bytes(id) == saved, "split at byte {split}");
    }
}
