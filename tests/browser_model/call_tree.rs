//! The Reports panel's call tree (`model::call_tree`), its questions
//! answered by reports computed natively as the report worker computes
//! them, over a trace made here with a known number of calls: expanding
//! loads a page of calls and "more" the rest, showing a position's call
//! pages up to it and selects it, or says it is past what showing loads.
//! Call lines are checked against the trace text written.

use tarmac_lens::model::call_tree::{CallTreeState, TreeAsk, TreeMsg, TreeRow, PAGE, REVEAL_LIMIT};
use tarmac_lens_core::{report::Reports, EngineOptions, ParseOptions, SliceSource};

/// A trace whose root makes `n` calls of one function (at 0x1048), each
/// six lines: the call (`BL`, line 3 + 6i), its register write, the
/// callee's two instructions and a write, the branch back.
fn many_calls(n: usize) -> String {
    let mut lines = vec![
        "1 clk IT (1) 00000ffc e3a0d901 A svc_s : MOV      r13,#0x400000".to_string(),
        "1 clk R r13_svc 00400000".to_string(),
    ];
    let mut t = 2;
    for i in 0..n {
        lines.push(format!(
            "{t} clk IT ({t}) 00001000 eb000010 A svc_s : BL       {{pc}}+0x48 ; 0x1048"
        ));
        lines.push(format!("{t} clk R r14_svc 00001004"));
        t += 1;
        lines.push(format!(
            "{t} clk IT ({t}) 00001048 e2800001 A svc_s : ADD      r0,r0,#1"
        ));
        lines.push(format!("{t} clk R r0 {:08x}", i + 1));
        t += 1;
        lines.push(format!(
            "{t} clk IT ({t}) 0000104c e12fff1e A svc_s : BX       lr"
        ));
        t += 1;
        lines.push(format!(
            "{t} clk IT ({t}) 00001004 eafffffd A svc_s : B        {{pc}}-0x4 ; 0x1000"
        ));
        t += 1;
    }
    lines.join("\n") + "\n"
}

fn reports(trace: &str) -> Reports {
    Reports::compute(
        SliceSource(trace.as_bytes()),
        ParseOptions::default(),
        EngineOptions::default(),
        None,
    )
    .unwrap()
}

/// The call line of the root's `i`th call, from the text written.
fn call_line(i: usize) -> u64 {
    3 + 6 * i as u64
}

/// Answers the tree's questions, and those the answers raise, as the
/// report worker does; how many were asked.
fn settle(tree: &mut CallTreeState, r: &Reports) -> usize {
    let mut asked = 0;
    loop {
        let asks = tree.take_asks();
        if asks.is_empty() {
            return asked;
        }
        for ask in asks {
            asked += 1;
            let no_call = || "no such call".to_string();
            tree.update(match ask {
                TreeAsk::Root => TreeMsg::Root(r.tree(None, 0, 1).ok_or_else(no_call)),
                TreeAsk::Children {
                    path,
                    offset,
                    limit,
                } => {
                    let page = r.tree(Some(&path), offset, limit as usize);
                    TreeMsg::Children(path, page.ok_or_else(no_call))
                }
                TreeAsk::PathAt(node) => TreeMsg::Path(Ok(r.path_at(node))),
            });
        }
    }
}

/// The calls drawn under the root, as (path, call line).
fn calls_shown(tree: &CallTreeState) -> Vec<(Vec<u32>, u64)> {
    tree.rows()
        .iter()
        .filter_map(|row| match row {
            TreeRow::Call { depth: 1, node, .. } => {
                Some((node.path.clone(), node.call.unwrap().line))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn expanding_a_call_loads_a_page_of_its_calls_and_more_loads_the_rest() {
    let n = PAGE as usize + 50;
    let r = reports(&many_calls(n));
    let mut tree = CallTreeState::new(None);
    settle(&mut tree, &r);
    let root = tree.root.clone().expect("a root call");
    assert_eq!(root.children, n as u64);
    assert_eq!(tree.rows().len(), 1, "closed at first");

    tree.update(TreeMsg::Toggle(Vec::new()));
    assert_eq!(settle(&mut tree, &r), 1);
    let expected = |k: usize| -> Vec<(Vec<u32>, u64)> {
        (0..k).map(|i| (vec![i as u32], call_line(i))).collect()
    };
    assert_eq!(calls_shown(&tree), expected(PAGE as usize));
    assert!(matches!(
        tree.rows().last(),
        Some(TreeRow::More {
            depth: 1,
            left: 50,
            asking: false,
            ..
        })
    ));
    for row in tree.rows().iter().skip(1) {
        if let TreeRow::Call { node, .. } = row {
            assert_eq!(node.name, "0x1048");
        }
    }

    tree.update(TreeMsg::More(Vec::new()));
    // Asked for, the button waits; asked again meanwhile, nothing more goes.
    assert!(matches!(
        tree.rows().last(),
        Some(TreeRow::More { asking: true, .. })
    ));
    tree.update(TreeMsg::More(Vec::new()));
    assert_eq!(settle(&mut tree, &r), 1);
    assert_eq!(calls_shown(&tree), expected(n));
    assert!(!matches!(tree.rows().last(), Some(TreeRow::More { .. })));

    // Closed and opened again: drawn from what is loaded, nothing asked.
    tree.update(TreeMsg::Toggle(Vec::new()));
    assert_eq!(tree.rows().len(), 1);
    tree.update(TreeMsg::Toggle(Vec::new()));
    assert_eq!(settle(&mut tree, &r), 0);
    assert_eq!(calls_shown(&tree), expected(n));

    // A call the worker does not know: said.
    tree.update(TreeMsg::Toggle(vec![n as u32 + 7]));
    settle(&mut tree, &r);
    assert_eq!(tree.error.as_deref(), Some("no such call"));
}

#[test]
fn showing_a_positions_call_pages_up_to_it_and_selects_it() {
    let n = REVEAL_LIMIT as usize + 200;
    let r = reports(&many_calls(n));
    let entry = |i: u64| r.tree(Some(&[]), i, 1).unwrap().nodes[0].entry.node;

    // A call past several pages: loaded up to it, selected.
    let shown = 3 * PAGE as usize + 17;
    let mut tree = CallTreeState::new(Some(entry(shown as u64)));
    settle(&mut tree, &r);
    assert_eq!(tree.selected, Some(vec![shown as u32]));
    assert!(tree.scroll_to_selected && tree.beyond_reveal.is_none());
    assert!(tree.open.contains(&Vec::new()));
    let loaded = calls_shown(&tree);
    assert!(loaded.len() > shown && loaded.len() < n);
    let selected: Vec<u64> = tree
        .rows()
        .iter()
        .filter_map(|row| match row {
            TreeRow::Call {
                selected: true,
                node,
                ..
            } => Some(node.call.unwrap().line),
            _ => None,
        })
        .collect();
    assert_eq!(selected, [call_line(shown)]);

    // Another position in the same tree: its call selected, the pages
    // already there kept.
    tree.update(TreeMsg::Reveal(entry(5)));
    settle(&mut tree, &r);
    assert_eq!(tree.selected, Some(vec![5]));
    assert_eq!(calls_shown(&tree).len(), loaded.len());

    // Past what showing loads: the caller selected, the call's number said.
    let far = REVEAL_LIMIT as usize + 100;
    let mut tree = CallTreeState::new(Some(entry(far as u64)));
    settle(&mut tree, &r);
    assert_eq!(tree.selected, Some(Vec::new()));
    assert_eq!(tree.beyond_reveal, Some(far as u32 + 1));
}
