//! Browsing traces without calls: a TI C64x+ EP trace (a banner before its
//! first record) and a branch-only trace answer like any trace, and the
//! first node's row is where its rows start (the banner), so going to the
//! start shows the row the pane marks as the position.

use crate::common::{data, read};

use tarmac_lens_core::{protocol::*, ParseOptions, Session, SliceSource};

fn open(bytes: &[u8]) -> Session<SliceSource<'_>> {
    let mut s = Session::open(SliceSource(bytes), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    s
}

fn node(answer: tarmac_lens_core::Result<Option<NodeView>>) -> NodeView {
    answer.unwrap().expect("a node")
}

/// The row of `n` and the row list from there: the row must be the
/// node's first, as the trace pane marks the position by it.
fn check_position_row(s: &mut Session<SliceSource<'_>>, n: &NodeView) {
    let row = s
        .ask(RowOfNode {
            view: 0,
            node: n.node,
        })
        .unwrap();
    // Rows fetched from before it, as the pane fetches a screenful.
    let from = row.saturating_sub(8);
    let r = s
        .ask(Rows {
            view: 0,
            first: from,
            count: 16,
        })
        .unwrap();
    let first = r
        .rows
        .iter()
        .position(|x| matches!(x, Row::Line { node, first_of_node: true, .. } if *node == n.node));
    assert_eq!(first, Some((row - from) as usize), "{n:?}: row {row}");
}

#[test]
fn an_ep_trace_browses_from_its_banner_to_its_end() {
    let bytes = read(&data("ep/sploop-loop.ept.txt"));
    let mut s = open(&bytes);
    let text: Vec<&str> = std::str::from_utf8(&bytes).unwrap().lines().collect();
    let start = node(s.ask(Locate::Start));
    check_position_row(&mut s, &start);
    let end = node(s.ask(Locate::End));
    check_position_row(&mut s, &end);
    assert_eq!(end.first_line as usize, text.len());
    // A record's line is in the node the page goes to for it.
    for line in [6u64, 100, 4321] {
        let n = node(s.ask(Locate::Line(line)));
        assert!(
            n.first_line <= line && line < n.first_line + n.lines.max(1),
            "{n:?}"
        );
        assert_eq!(
            n.time,
            text[line as usize - 1]
                .split(':')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        );
        check_position_row(&mut s, &n);
    }
}

#[test]
fn a_branch_only_trace_browses_like_any_trace() {
    let bytes = b"1 clk FD (1) 00001000 00002000 A\n\
5 clk FI (5) 00002010 00003000 T\n\
6 clk FR (9) 00003004 00002008 A\n";
    let mut s = open(bytes);
    let start = node(s.ask(Locate::Start));
    check_position_row(&mut s, &start);
    let n = node(s.ask(Locate::Line(2)));
    assert_eq!((n.first_line, n.time), (2, 5));
    check_position_row(&mut s, &n);
    let end = node(s.ask(Locate::End));
    assert_eq!(end.first_line, 3);
}
