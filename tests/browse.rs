//! The browser's session answering the page's queries, natively: what the
//! worker will answer in the page.

use std::path::Path;

use tarmac_lens_core::{compute_stats, protocol, protocol::*, ParseOptions, Session, SliceSource};

fn data(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(rel),
    )
    .unwrap()
}

fn open(bytes: &[u8]) -> Session<SliceSource<'_>> {
    let mut s = Session::open(SliceSource(bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    s
}

fn rows(s: &mut Session<SliceSource<'_>>, view: u32, first: u64, count: u32) -> RowsReply {
    s.ask(Rows { view, first, count }).unwrap()
}

/// The node a question found (a step always finds one).
fn node(answer: tarmac_lens_core::Result<impl Into<Option<NodeView>>>) -> NodeView {
    answer.unwrap().into().expect("a node")
}

#[test]
fn browse_while_indexing_then_stats() {
    let bytes = data("ttu/quicksort.tarmac");
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    let p = s.index_step(16 << 10).unwrap();
    assert!(!p.complete && p.done_bytes > 0 && p.lines > 0);
    // The first screenful is there before indexing ends.
    let r = rows(&mut s, 0, 0, 30);
    assert_eq!(r.rows.len(), 30);
    let text: Vec<&str> = std::str::from_utf8(&bytes).unwrap().lines().collect();
    for (i, row) in r.rows.iter().enumerate() {
        match row {
            Row::Line { line, text: t, .. } => {
                assert_eq!(*line, i as u64 + 1);
                assert_eq!(t, text[i]);
            }
            Row::Fold { .. } => panic!("no folds yet"),
        }
    }
    // Beyond the indexed part there is nothing yet.
    let beyond = rows(&mut s, 0, r.total_rows + 10, 5);
    assert!(beyond.rows.is_empty());
    let mut last = p;
    while !last.complete {
        let p = s.index_step(16 << 10).unwrap();
        assert!(p.done_bytes >= last.done_bytes && p.lines >= last.lines);
        last = p;
    }
    assert_eq!(last.done_bytes, bytes.len() as u64);
    let whole = compute_stats(SliceSource(&bytes), ParseOptions::default(), |_| {}).unwrap();
    assert_eq!(s.stats().unwrap(), &whole);
    assert_eq!(rows(&mut s, 0, 0, 1).total_rows, text.len() as u64);
}

#[test]
fn stepping_registers_memory_and_writes() {
    let bytes = data("ttu/quicksort.tarmac");
    let mut s = open(&bytes);
    let start = node(s.ask(Locate::Start));
    let next = node(s.ask(Step {
        view: 0,
        node: start.node,
        delta: 1,
    }));
    assert_eq!(next.node, start.node + 1);
    let back = node(s.ask(Step {
        view: 0,
        node: next.node,
        delta: -1,
    }));
    assert_eq!(back.node, start.node);
    // Line 4290 holds the first instruction of the call to 0x80ec.
    let at = node(s.ask(Locate::Line(4290)));
    assert_eq!((at.first_line, at.time, at.pc), (4290, 2030, Some(0x80ec)));
    let t = node(s.ask(Locate::Time(2030)));
    assert_eq!(t.node, at.node);
    // Registers after the BL at line 4288 show lr = 0x802c, changed.
    let bl = node(s.ask(Locate::Line(4288)));
    let r = s
        .ask(Registers {
            node: bl.node,
            mark: RegMark::ChangedSince(bl.node - 1),
        })
        .unwrap();
    assert!(r.aarch64);
    let x30 = r.panels[0].cells.iter().find(|c| c.name == "x30").unwrap();
    assert_eq!(x30.text, "000000000000802c");
    assert!(x30.changed);
    let pc = r.panels[0].cells.iter().find(|c| c.name == "pc").unwrap();
    assert_eq!(pc.text, "0000000000008028");
    // Previous write of x30 from a later node is the BL's node.
    let w = node(s.ask(Write {
        node: at.node,
        target: WriteTarget::Register("x30".into()),
        forward: false,
    }));
    assert_eq!(w.node, bl.node);
    // sp as an expression, and memory around it.
    let sp = s
        .ask(Eval {
            node: at.node,
            expr: "sp".into(),
        })
        .unwrap();
    let sp16 = s
        .ask(Eval {
            node: at.node,
            expr: "sp+0x10".into(),
        })
        .unwrap();
    assert_eq!(sp16, sp + 0x10);
    assert!(s
        .ask(Eval {
            node: at.node,
            expr: "nosuchsymbol".into()
        })
        .is_err());
    let m = s
        .ask(Memory {
            node: at.node,
            addr: sp,
            len: 64,
            compare: None,
        })
        .unwrap();
    assert_eq!(m.bytes.len(), 64);
    assert!(m.known.iter().any(|&k| k));
    // The PC search finds the next visit of the same instruction.
    let entry = node(s.ask(Locate::Line(177)));
    assert_eq!(entry.pc, Some(0x8038));
    let again = node(s.ask(FindPc {
        node: entry.node,
        pc: 0x8038,
        forward: true,
    }));
    assert!(again.node > entry.node && again.pc == entry.pc);
    let back = node(s.ask(FindPc {
        node: again.node,
        pc: 0x8038,
        forward: false,
    }));
    assert_eq!(back.node, entry.node);
    assert_eq!(
        s.ask(FindPc {
            node: entry.node,
            pc: 0x8038,
            forward: false
        })
        .unwrap(),
        None
    );
    let l = s.ask(NodeLines { node: bl.node }).unwrap();
    assert_eq!(l.len(), 2);
    assert_eq!(l[1].target, Some(WriteTarget::Register("x30".into())));
}

#[test]
fn folding_hides_a_call_behind_one_row() {
    let bytes = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let elf = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf");
    let mut s = open(&bytes);
    assert!(s.load_elf(&elf, 0, false).unwrap().0 > 10);
    let total = rows(&mut s, 1, 0, 1).total_rows;
    // Find the first BL and fold the call it makes.
    let r = rows(&mut s, 1, 0, 1000);
    let bl = r
        .rows
        .iter()
        .find_map(|row| match row {
            Row::Line {
                text,
                node,
                branch_symbol,
                ..
            } if text.contains(" BL ") => Some((*node, branch_symbol.clone())),
            _ => None,
        })
        .expect("a BL near the start");
    assert!(
        bl.1.as_deref().is_some_and(|s| !s.is_empty()),
        "branch target named: {:?}",
        bl.1
    );
    let Folded { total_rows, cursor } = s
        .ask(Fold {
            view: 1,
            node: bl.0,
            op: FoldOp::FoldCall,
        })
        .unwrap();
    assert!(total_rows < total);
    assert_eq!(cursor, bl.0);
    let r = rows(&mut s, 1, 0, 1000);
    let fold = r.rows.iter().find_map(|row| match row {
        Row::Fold {
            name, call_node, ..
        } => Some((name.clone(), *call_node)),
        _ => None,
    });
    let (name, call_node) = fold.expect("a fold row");
    assert_eq!(call_node, bl.0);
    assert!(!name.is_empty());
    // Stepping over the fold lands after the call.
    let after = node(s.ask(Step {
        view: 1,
        node: bl.0,
        delta: 1,
    }));
    let stack = s.ask(CallStack { node: bl.0 + 1 }).unwrap();
    let inner = stack.last().unwrap();
    assert_eq!(Some(after.node), inner.resume_node);
    let before = node(s.ask(Step {
        view: 1,
        node: after.node,
        delta: -1,
    }));
    assert_eq!(before.node, bl.0);
    // Another view is unaffected; fold all / unfold all.
    assert_eq!(rows(&mut s, 2, 0, 1).total_rows, total);
    let Folded {
        total_rows: all, ..
    } = s
        .ask(Fold {
            view: 2,
            node: 0,
            op: FoldOp::FoldAll,
        })
        .unwrap();
    assert!(all <= total_rows && all < total);
    let Folded {
        total_rows: none, ..
    } = s
        .ask(Fold {
            view: 2,
            node: 0,
            op: FoldOp::UnfoldAll,
        })
        .unwrap();
    assert_eq!(none, total);
    // Row of a node inside the fold is the fold's row.
    let row = s
        .ask(RowOfNode {
            view: 1,
            node: bl.0 + 2,
        })
        .unwrap();
    assert!(matches!(rows(&mut s, 1, row, 1).rows[0], Row::Fold { .. }));
}

#[test]
fn fold_children_folds_the_calls_made_by_the_current_function() {
    let bytes = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut s = open(&bytes);
    // Outside every call (before _start calls tg_main) and inside tg_main.
    for line in [100u64, 771] {
        let at = node(s.ask(Locate::Line(line)));
        let stack = s.ask(CallStack { node: at.node + 1 }).unwrap();
        let view = line as u32;
        let total = rows(&mut s, view, 0, 1).total_rows;
        let Folded { total_rows, .. } = s
            .ask(Fold {
                view,
                node: at.node,
                op: FoldOp::FoldChildren,
            })
            .unwrap();
        assert!(
            total_rows < total,
            "line {} (stack depth {}): calls folded",
            line,
            stack.len()
        );
        // The function itself stays open: its own lines around the cursor show.
        let r = s
            .ask(RowOfNode {
                view,
                node: at.node,
            })
            .unwrap();
        assert!(matches!(rows(&mut s, view, r, 1).rows[0], Row::Line { .. }));
        let Folded {
            total_rows: back, ..
        } = s
            .ask(Fold {
                view,
                node: at.node,
                op: FoldOp::UnfoldInside,
            })
            .unwrap();
        assert_eq!(back, total);
    }
}

#[test]
fn aarch64_register_names_before_the_first_instruction() {
    let bytes = data("ttu/quicksort.tarmac");
    let mut s = open(&bytes);
    let r = s
        .ask(Registers {
            node: 0,
            mark: RegMark::None,
        })
        .unwrap();
    assert!(r.aarch64);
    assert!(r.panels[0].cells.iter().any(|c| c.name == "x30"));
}

/// The page saves a session a piece at a time (the index cache, the
/// test digest), never holding the whole: the pieces, in order, are the
/// bytes of one `save`.
#[test]
fn a_session_saved_piece_by_piece_is_the_bytes_of_one_save() {
    use tarmac_lens_core::TraceIdentity;
    let bytes = data("ttu/quicksort.tarmac");
    let s = open(&bytes);
    let id = TraceIdentity {
        len: bytes.len() as u64,
        mtime: 42,
    };
    let whole = s.save(id).expect("complete session saves");
    for budget in [1, 1000, 1 << 16] {
        let mut saving = s.save_start(id).unwrap();
        let (mut taken, mut pieces) = (Vec::new(), 0);
        loop {
            let done = s.save_step(&mut saving, budget).unwrap();
            let piece = saving.take_output();
            pieces += usize::from(!piece.is_empty());
            taken.extend_from_slice(&piece);
            if done {
                break;
            }
        }
        assert!(taken == whole, "budget {budget}: the bytes differ");
        if budget == 1 {
            assert!(pieces > 10, "budget {budget}: {pieces} pieces");
        }
    }
}

#[test]
fn restored_session_answers_as_the_indexed_one() {
    use tarmac_lens_core::TraceIdentity;
    let bytes = data("ttu/quicksort.tarmac");
    let mut indexed = open(&bytes);
    let id = TraceIdentity {
        len: bytes.len() as u64,
        mtime: 42,
    };
    let saved = indexed.save(id).expect("complete session saves");
    let mut restored =
        Session::restore(SliceSource(&bytes), &saved, id, ParseOptions::default()).unwrap();
    assert!(restored.progress().complete);
    assert_eq!(restored.stats(), indexed.stats());
    for line in [1, 500, 2000] {
        let q = || Locate::Line(line);
        let want = node(indexed.ask(q()));
        assert_eq!(node(restored.ask(q())), want);
        let regs = |s: &mut Session<SliceSource<'_>>| {
            format!(
                "{:?}",
                s.ask(Registers {
                    node: want.node,
                    mark: RegMark::None
                })
            )
        };
        assert_eq!(regs(&mut restored), regs(&mut indexed));
    }
    // Another trace version (mtime) or other options are refused.
    let other = TraceIdentity { mtime: 43, ..id };
    assert!(Session::restore(SliceSource(&bytes), &saved, other, ParseOptions::default()).is_err());
    let thumb = ParseOptions {
        implicit_thumb: true,
        ..ParseOptions::default()
    };
    assert!(Session::restore(SliceSource(&bytes), &saved, id, thumb).is_err());
    let core = ParseOptions {
        cpu: Some("cpu1".parse().unwrap()),
        ..ParseOptions::default()
    };
    assert!(Session::restore(SliceSource(&bytes), &saved, id, core).is_err());
}

/// The calls of a TTU call tree (`calltree --image` of the reference
/// tools), one per call site and callee: (call line, entry line, callee
/// name).
fn reference_calls(tree: &str) -> Vec<(u64, u64, String)> {
    let field = |line: &str, key: &str| -> u64 {
        line.split(key)
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let mut calls = Vec::new();
    let mut sites = std::collections::HashSet::new();
    let mut call = None;
    for line in tree.lines() {
        let line = line.trim_start();
        if line.starts_with("- ") {
            let pc = line
                .split(" pc:")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap();
            call = Some((field(line, " l:"), pc.to_string()));
        } else if let (Some(rest), Some((call_line, pc))) = (line.strip_prefix("o "), call.take()) {
            let name = rest.split_once(" : ").map_or("", |(_, n)| n).to_string();
            if sites.insert((pc, name.clone())) {
                calls.push((call_line, field(rest, " l:"), name));
            }
        }
    }
    calls
}

/// The symbol part of a name: TTU's reports write an entry inside a
/// function as `name + 0xADDRESS`, the browser as `name + 0xOFFSET`.
fn symbol_of(name: &str) -> &str {
    name.split(" + ").next().unwrap()
}

/// Every call of the generated A64, A32 and Thumb traces is named in the
/// browser's rows (the branch target after `BL`) and call stack as in the
/// reference tools' call tree: one address lookup for the reports and the
/// page, with or without the Thumb bit on the address.
#[test]
fn every_call_target_is_named_as_the_reference_call_tree_names_it() {
    for name in [
        "quicksort-aarch64-O2-fastmodel-2M",
        "quicksort-arm-O2-fastmodel-2M",
        "quicksort-thumb-O2-fastmodel-2M",
        "quicksort-thumb-O2-gem5-2M",
    ] {
        let bytes = data(&format!("tracegen/{name}.tarmac"));
        let elf = data(&format!("tracegen/{name}.elf"));
        let tree = String::from_utf8(data(&format!("tracegen/{name}.calltree.ref"))).unwrap();
        let calls = reference_calls(&tree);
        assert!(calls.len() > 10, "{name}: {} call sites", calls.len());
        let mut s = open(&bytes);
        let (_, warning) = s.load_elf(&elf, 0, false).unwrap();
        assert_eq!(warning, None, "{name}");
        let mut named_rows = 0;
        for (call_line, entry_line, callee) in &calls {
            let r = rows(&mut s, 0, call_line - 1, 1);
            let Some(Row::Line {
                text,
                branch_symbol,
                ..
            }) = r.rows.first()
            else {
                panic!("{name}: no row at line {call_line}");
            };
            // A branch to a register names nothing; one to an address
            // names the callee.
            if let Some(symbol) = branch_symbol {
                assert_eq!(
                    symbol_of(symbol),
                    symbol_of(callee),
                    "{name} line {call_line}: {text}"
                );
                if !callee.contains(" + ") {
                    assert_eq!(symbol, callee, "{name} line {call_line}: {text}");
                }
                named_rows += 1;
            }
            let entry = node(s.ask(Locate::Line(*entry_line)));
            let frames = s.ask(CallStack { node: entry.node }).unwrap();
            let innermost = frames.last().expect("a call is active at its entry");
            assert_eq!(
                symbol_of(&innermost.name),
                symbol_of(callee),
                "{name}: stack at line {entry_line}"
            );
        }
        assert!(named_rows > 5, "{name}: only {named_rows} call rows named");
    }
}

/// The stale-names fix on the session side: an ELF for another
/// architecture is said to be one.
#[test]
fn an_image_for_another_architecture_is_loaded_with_a_warning() {
    let bytes = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut s = open(&bytes);
    let (n, warning) = s
        .load_elf(
            &data("tracegen/quicksort-thumb-O2-fastmodel-2M.elf"),
            0,
            false,
        )
        .unwrap();
    assert!(n > 10);
    let warning = warning.expect("a Thumb image on an AArch64 trace");
    assert!(
        warning.contains("AArch32") && warning.contains("AArch64"),
        "{warning}"
    );
    let (_, warning) = s
        .load_elf(
            &data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf"),
            0,
            false,
        )
        .unwrap();
    assert_eq!(warning, None);
    // The names follow the image loaded last.
    let r = rows(&mut s, 0, 0, 2000);
    assert!(r.rows.iter().any(
        |row| matches!(row, Row::Line { branch_symbol: Some(b), .. } if b == "run_iteration")
    ));
}

/// The core register pane marks what the position's own lines wrote (as
/// the reference tools' browser does), not what changed since some other
/// position: every node of the first hundreds, checked against its `R`
/// lines.
#[test]
fn the_registers_an_instruction_wrote_are_marked() {
    for (trace, aarch64) in [
        ("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac", true),
        ("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac", false),
    ] {
        let bytes = data(trace);
        let mut s = open(&bytes);
        let core_name = |reg: &str| -> Option<String> {
            let (class, index) =
                reg.split_at(reg.find(|c: char| c.is_ascii_digit()).unwrap_or(reg.len()));
            Some(match (class, aarch64) {
                ("x" | "w", true) => format!("x{index}"),
                ("xsp" | "wsp", true) => "sp".into(),
                ("r", false) if index == "13" => "sp".into(),
                ("r", false) if index == "14" => "lr".into(),
                ("r", false) => format!("r{index}"),
                ("psr" | "cpsr", _) => "psr".into(),
                _ => return None,
            })
        };
        let mut marked_any = 0;
        for n in 0..300 {
            let lines = s.ask(NodeLines { node: n }).unwrap();
            let mut wrote: Vec<String> = lines
                .iter()
                .filter_map(|l| match &l.target {
                    Some(WriteTarget::Register(r)) if !l.read => core_name(r),
                    _ => None,
                })
                .collect();
            wrote.sort();
            wrote.dedup();
            let r = s
                .ask(Registers {
                    node: n,
                    mark: RegMark::Written,
                })
                .unwrap();
            let mut marked: Vec<String> = r.panels[0]
                .cells
                .iter()
                .filter(|c| c.changed)
                .map(|c| c.name.clone())
                .collect();
            marked.sort();
            assert_eq!(marked, wrote, "{trace}: node {n}: {lines:?}");
            marked_any += usize::from(!marked.is_empty());
        }
        assert!(marked_any > 100, "{trace}: {marked_any}");
    }
}

/// The watch pane's list, asked a piece at a time, is the index's list;
/// next and previous from a position are its neighbours.
#[test]
fn watch_queries_page_through_the_accesses() {
    let bytes = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut s = open(&bytes);
    let index = tarmac_lens_core::Index::build(
        &mut SliceSource(&bytes),
        tarmac_lens_core::IndexOptions::default(),
        |_| {},
    )
    .unwrap();
    let sp = index
        .eval_at(&mut SliceSource(&bytes), 5000, "sp", None)
        .unwrap();
    for (target, what) in [
        (
            WriteTarget::Memory {
                addr: sp & !0xff,
                len: 0x100,
            },
            tarmac_lens_core::Watched::Mem {
                addr: sp & !0xff,
                len: 0x100,
            },
        ),
        (
            WriteTarget::Register("x19".into()),
            tarmac_lens_core::Watched::Reg(index.register_named("x19").unwrap()),
        ),
    ] {
        for kind in [AccessKind::Any, AccessKind::Read, AccessKind::Write] {
            let mut want = Vec::new();
            index
                .accesses(
                    &mut SliceSource(&bytes),
                    what,
                    kind,
                    0..=index.nodes() - 1,
                    &mut |h| {
                        want.push((h.node.at.node, h.kind_text().to_string()));
                        true
                    },
                    &mut |_| true,
                )
                .unwrap();
            let mut got = Vec::new();
            let mut from = 0;
            let mut replies = 0;
            while from < index.nodes() {
                let f = from;
                let q = Accesses {
                    target: target.clone(),
                    kind,
                    from: f,
                    max: 7,
                };
                let r = s.ask(q).unwrap();
                assert!(r.hits.len() <= 7);
                got.extend(r.hits.iter().map(|h| (h.node.node, h.kind.clone())));
                assert!(r.next > f, "the list moves on");
                from = r.next;
                replies += 1;
            }
            assert_eq!(got, want, "{target:?} {kind:?}");
            assert!(replies > want.len() / 7, "{target:?}: asked in pieces");
            // Next and previous from the middle hit are its neighbours.
            if want.len() >= 3 {
                let mid = want.len() / 2;
                for (forward, other) in [(true, mid + 1), (false, mid - 1)] {
                    let q = Access {
                        node: want[mid].0,
                        target: target.clone(),
                        kind,
                        forward,
                    };
                    let Some(a) = s.ask(q).unwrap() else {
                        panic!("no neighbour");
                    };
                    assert_eq!(a.node.node, want[other].0);
                    assert!(!a.detail.is_empty());
                }
            }
        }
    }
    let bad = Access {
        node: 0,
        target: WriteTarget::Register("bogus".into()),
        kind: AccessKind::Any,
        forward: true,
    };
    assert!(matches!(s.ask(bad), Err(e) if e.to_string().contains("bogus")));
}

/// A condition asked in small pieces, each from where the last stopped,
/// finds the hits `Index::find_condition` finds, both ways; a text that is
/// not a condition is answered with its column.
#[test]
fn a_condition_is_searched_in_pieces() {
    use tarmac_lens_core::{Condition as Parsed, ExprContext};
    struct NoSymbols;
    impl ExprContext for NoSymbols {
        fn register(&self, _: &str) -> Option<u64> {
            None
        }
        fn symbol(&self, _: &str) -> Option<u64> {
            None
        }
    }
    // Long enough for several checkpoint intervals, each a piece.
    let bytes = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut s = open(&bytes);
    let index =
        tarmac_lens_core::Index::build(&mut SliceSource(&bytes), Default::default(), |_| {})
            .unwrap();
    let text = "x0 > 0x40 && x1 != 0";
    let cond = Parsed::parse(text, &NoSymbols).unwrap();
    let nodes = index.nodes();
    for forward in [true, false] {
        let from = if forward { 0 } else { nodes - 1 };
        let want: Vec<u64> = index
            .find_condition(
                &mut SliceSource(&bytes),
                &cond,
                Some(from),
                forward,
                usize::MAX,
            )
            .unwrap()
            .iter()
            .map(|h| h.node.at.node)
            .collect();
        assert!(want.len() >= 3, "{text}: {want:?}");
        let mut got = Vec::new();
        let mut at = from;
        let mut pieces = 0;
        loop {
            let q = Condition {
                text: text.into(),
                node: at,
                forward,
                budget: 1,
            };
            match s.ask(q).unwrap() {
                ConditionReply::Hit(n) => {
                    got.push(n.node);
                    at = n.node;
                }
                ConditionReply::Continue(next) => {
                    assert!(if forward { next > at } else { next < at });
                    at = next;
                    pieces += 1;
                }
                ConditionReply::NotFound => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(got, want, "forward {forward}");
        assert!(pieces > 0, "asked in pieces");
    }
    let q = Condition {
        text: "[sp+8 == 0".into(),
        node: 0,
        forward: true,
        budget: 8,
    };
    assert_eq!(
        s.ask(q).unwrap(),
        ConditionReply::Invalid {
            column: 11,
            message: "expected closing ']'".into()
        }
    );
}

fn why_tree(s: &mut Session<SliceSource<'_>>, q: protocol::WhyQuery) -> protocol::WhyStep {
    *s.ask(q).unwrap()
}

/// `lazy` (a follow-up question's tree) is `deep`'s subtree at the same
/// step: the same values, writers and sources, down to a step one of them
/// says is expanded elsewhere (the follow-up starts with none seen) or
/// past the node limit. Returns the steps compared.
fn same_subtree(deep: &protocol::WhyStep, lazy: &protocol::WhyStep) -> usize {
    let fields = |n: &protocol::WhyStep| {
        (
            n.what.clone(),
            n.value.clone(),
            n.writer,
            n.instruction.clone(),
            n.function.clone(),
        )
    };
    assert_eq!(fields(deep), fields(lazy));
    let cut = |n: &protocol::WhyStep| {
        matches!(
            n.source,
            tarmac_lens_core::dataflow::Source::SeeAbove
                | tarmac_lens_core::dataflow::Source::NodeLimit
        )
    };
    if cut(deep) || cut(lazy) {
        return 1;
    }
    assert_eq!(deep.source, lazy.source, "{}", deep.what);
    assert_eq!(deep.not_followed, lazy.not_followed);
    assert_eq!(deep.inputs.len(), lazy.inputs.len(), "{}", deep.what);
    1 + (deep.inputs.iter().zip(&lazy.inputs))
        .map(|(d, l)| same_subtree(d, l))
        .sum::<usize>()
}

/// Walks a shallow tree beside a deeper one; each step the shallow one
/// left for later is asked for as its `more` says, and must be the deeper
/// tree's subtree there. Returns (follow-ups asked, steps compared).
fn expand_lazily(
    s: &mut Session<SliceSource<'_>>,
    shallow: &protocol::WhyStep,
    deep: &protocol::WhyStep,
    below: u32,
) -> (usize, usize) {
    if shallow.source == tarmac_lens_core::dataflow::Source::DepthLimit {
        let mut q = shallow
            .more
            .clone()
            .expect("a step left for later says how to expand it");
        q.depth = below;
        let lazy = why_tree(s, q);
        return (1, same_subtree(deep, &lazy));
    }
    if shallow.inputs.len() != deep.inputs.len() {
        return (0, 0);
    }
    let mut total = (0, 0);
    for (a, b) in shallow.inputs.iter().zip(&deep.inputs) {
        let (n, c) = expand_lazily(s, a, b, below);
        total = (total.0 + n, total.1 + c);
    }
    total
}

#[test]
fn why_trees_expand_lazily_as_a_deeper_question_would() {
    for (name, elf) in [
        (
            "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac",
            "elf/quicksort-aarch64-O2-fastmodel-2M.elf",
        ),
        (
            "tracegen/quicksort-arm-O2-fastmodel-2M.tarmac",
            "elf/quicksort-arm-O2-fastmodel-2M.elf",
        ),
        (
            "tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac",
            "elf/quicksort-thumb-O2-fastmodel-2M.elf",
        ),
    ] {
        let bytes = data(name);
        let mut s = open(&bytes);
        s.load_elf(&data(elf), 0, false).unwrap();
        let nodes = node(s.ask(Locate::End)).node;
        let (mut asked, mut compared, mut trees) = (0, 0, 0);
        for i in 1..40 {
            let at = nodes * i / 40;
            let lines = s.ask(NodeLines { node: at }).unwrap();
            let Some(target) = lines.iter().find_map(|l| match &l.target {
                Some(t @ WriteTarget::Register(_)) => Some(t.clone()),
                _ => None,
            }) else {
                continue;
            };
            let q = |depth| protocol::WhyQuery {
                node: at,
                target: target.clone(),
                depth,
                loaded: None,
            };
            let shallow = why_tree(&mut s, q(2));
            let deep = why_tree(&mut s, q(5));
            assert_eq!(
                shallow.writer.map(|w| w.node),
                Some(at),
                "{name}: {target:?}"
            );
            let (n, c) = expand_lazily(&mut s, &shallow, &deep, 3);
            asked += n;
            compared += c;
            trees += 1;
        }
        assert!(trees >= 20, "{name}: {trees} trees");
        assert!(
            asked >= 10 && compared >= 3 * asked,
            "{name}: {asked} follow-ups, {compared} steps"
        );
    }
}

/// Every step of a tree, depth first.
fn steps(t: &protocol::WhyStep) -> Vec<&protocol::WhyStep> {
    let mut out = vec![t];
    for i in &t.inputs {
        out.extend(steps(i));
    }
    out
}

#[test]
fn why_takes_never_written_memory_from_the_image_and_refuses_bad_questions() {
    use tarmac_lens_core::dataflow::Source;
    let bytes = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut s = open(&bytes);
    // `_start` loads its stack pointer from a literal at 0x10038 that
    // the trace never writes: the image says what it holds.
    let mov = node(s.ask(Locate::Line(1)));
    let sp_set = (mov.node..mov.node + 40)
        .find(|&n| {
            let lines = s.ask(NodeLines { node: n }).unwrap();
            lines.iter().any(|l| l.text.contains("MOV      sp,x0"))
        })
        .expect("sp is set near the start");
    let ask = protocol::WhyQuery {
        node: sp_set,
        target: WriteTarget::Register("sp".into()),
        depth: 6,
        loaded: None,
    };
    let image_source = |t: &protocol::WhyStep| {
        steps(t).iter().find_map(|n| match &n.source {
            Source::NeverWritten {
                addr: 0x10038,
                image_value,
            } => Some(image_value.clone()),
            _ => None,
        })
    };
    let t = why_tree(&mut s, ask.clone());
    assert_eq!(image_source(&t), Some(None), "no image yet: {t:#?}");
    s.load_elf(&data("elf/quicksort-aarch64-O2-fastmodel-2M.elf"), 0, false)
        .unwrap();
    let t = why_tree(&mut s, ask.clone());
    assert_eq!(image_source(&t), Some(Some("0x0000000000400000".into())));
    assert!(
        t.function.is_some(),
        "the image names the writer's function"
    );

    let error = |s: &mut Session<SliceSource<'_>>, q: protocol::WhyQuery| {
        s.ask(q).expect_err("an error").to_string()
    };
    let bad = protocol::WhyQuery {
        target: WriteTarget::Register("x99".into()),
        ..ask.clone()
    };
    assert!(error(&mut s, bad).contains("x99"));
    let empty = protocol::WhyQuery {
        target: WriteTarget::Memory {
            addr: 0x1000,
            len: 0,
        },
        ..ask.clone()
    };
    assert!(error(&mut s, empty).contains("1 to 4096"));
    let beyond = protocol::WhyQuery {
        node: u64::MAX,
        ..ask.clone()
    };
    assert!(error(&mut s, beyond).contains("beyond"));
    let mismatch = protocol::WhyQuery {
        target: WriteTarget::Memory {
            addr: 0x10038,
            len: 8,
        },
        loaded: Some((vec![0; 4], vec![true; 4])),
        ..ask
    };
    assert!(error(&mut s, mismatch).contains("4 bytes"));
}

/// Owned bytes as a source (a compressed file in memory).
#[cfg(not(target_arch = "wasm32"))]
struct Owned(Vec<u8>);

#[cfg(not(target_arch = "wasm32"))]
impl tarmac_lens_core::TraceSource for Owned {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        SliceSource(&self.0).read_at(offset, buf)
    }
}

/// A gzip or Zstandard trace read in place, as the page opens one (the
/// table built first, then indexed; or restored from a saved index with
/// its table) answers every sample question as the plain trace does.
/// (Native only: the encoders are native dependencies.)
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn compressed_sessions_answer_as_the_plain_one() {
    use std::io::Write;
    use tarmac_lens::sample;
    use tarmac_lens_core::{
        compressed::{bundle, unbundle, Compressed, GzipSource},
        TraceIdentity, TraceSource,
    };

    type Boxed = Box<dyn TraceSource>;
    fn asked<S: TraceSource>(s: &mut Session<S>) -> Vec<(Query, Reply)> {
        s.load_debug_info(sample::ELF.into(), 0).unwrap();
        sample::ask_all(|q| s.answer(q))
    }
    let text = sample::TRACE;
    let mut plain = open(text);
    let want = asked(&mut plain);

    // gzip members of 5 KiB, access points every 4 KiB of text, so the
    // questions' reads start from many of them; Zstandard in 8 KiB frames.
    let mut gz = Vec::new();
    for part in text.chunks(5 << 10) {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(part).unwrap();
        gz.extend(e.finish().unwrap());
    }
    let zst: Vec<u8> = text
        .chunks(8 << 10)
        .flat_map(|c| zstd::encode_all(c, 3).unwrap())
        .collect();
    let sources: Vec<(&str, Compressed<Boxed>)> = vec![
        (
            "gzip",
            Compressed::Gzip(Box::new(
                GzipSource::with_spacing(Box::new(Owned(gz.clone())) as Boxed, 4096).unwrap(),
            )),
        ),
        (
            "zstd",
            Compressed::open(Box::new(Owned(zst.clone())) as Boxed, None)
                .unwrap()
                .unwrap(),
        ),
    ];
    for (name, mut source) in sources {
        source.build_table(|_| {}).unwrap();
        assert_eq!(source.len(), text.len() as u64, "{name}");
        let table = source.table();
        assert!(table.points() > 3, "{name}: {} points", table.points());
        let mut s = Session::open(source, ParseOptions::default()).unwrap();
        while !s.index_step(1 << 20).unwrap().complete {}
        let got = asked(&mut s);
        assert_eq!(got.len(), want.len());
        for ((q, a), (_, b)) in want.iter().zip(&got) {
            assert_eq!(a, b, "{name}: {q:?}");
        }

        // Saved with its table and restored, as the page's index cache does.
        let id = TraceIdentity {
            len: text.len() as u64,
            mtime: 1,
        };
        let saved = bundle(&table, &s.save(id).unwrap());
        let (table, index) = unbundle(&saved).unwrap();
        let file: Boxed = Box::new(Owned(if name == "gzip" {
            gz.clone()
        } else {
            zst.clone()
        }));
        let source = Compressed::open(file, table).unwrap().unwrap();
        assert_eq!(
            source.len(),
            text.len() as u64,
            "{name}: the table says the length"
        );
        let mut r = Session::restore(source, index, id, ParseOptions::default()).unwrap();
        let got = asked(&mut r);
        for ((q, a), (_, b)) in want.iter().zip(&got) {
            assert_eq!(a, b, "{name}, restored: {q:?}");
        }
    }
}

#[test]
fn a_session_over_an_index_built_elsewhere_answers_as_one_that_indexed() {
    let trace = data("ttu/quicksort.tarmac");
    let index = tarmac_lens_core::Index::build_from_slice(
        &trace,
        tarmac_lens_core::IndexOptions::default(),
        |_| {},
    );
    let mut given = Session::from_index(SliceSource(&trace), index, ParseOptions::default())
        .expect("a finished index of this trace");
    assert!(given.is_complete());
    assert!(given.stats().is_none(), "the index holds no statistics");
    let mut indexed = open(&trace);
    for q in [
        Query::from(Rows {
            view: 0,
            first: 0,
            count: 50,
        }),
        Locate::Line(2000).into(),
        Registers {
            node: 900,
            mark: RegMark::Written,
        }
        .into(),
        CallStack { node: 900 }.into(),
        Locate::End.into(),
    ] {
        assert_eq!(given.answer(q.clone()), indexed.answer(q.clone()), "{q:?}");
    }
    // Another trace's index, or one cut short, is refused.
    let shorter = &trace[..trace.len() / 2];
    let index = tarmac_lens_core::Index::build_from_slice(
        &trace,
        tarmac_lens_core::IndexOptions::default(),
        |_| {},
    );
    assert!(Session::from_index(SliceSource(shorter), index, ParseOptions::default()).is_err());
}
