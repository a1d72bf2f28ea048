//! The Reports panel's long lists (`model::paged_list`), paged through
//! with "later" and "earlier" as a person does, each page answered by the
//! program-flow report computed natively over a branch-only trace written
//! here: every branch is listed once, in order, with the addresses the
//! text gives, and a page that comes late for another offset is dropped.

use tarmac_lens::model::paged_list::{ListMsg, PagedList, Pager, LIST_PAGE};
use tarmac_lens_core::{
    report::{FlowPage, FlowReports},
    ParseOptions, SliceSource,
};

/// `n` taken branches, one per line: the `k`th from 0x1000 + 16k to
/// 0x8000 + 16k.
fn branches(n: u64) -> String {
    (0..n)
        .map(|k| {
            let t = 100 + 4 * k;
            format!(
                "{t} clk FD ({t}) {:08x} {:08x} O\n",
                0x1000 + 16 * k,
                0x8000 + 16 * k
            )
        })
        .collect()
}

fn settle(list: &mut PagedList<FlowPage>, r: &FlowReports) {
    for offset in list.take_asks() {
        list.update(ListMsg::Page(
            offset,
            Ok(r.blocks(offset, LIST_PAGE as usize)),
        ));
    }
}

#[test]
fn later_and_earlier_page_through_every_branch_once() {
    let n = 2 * LIST_PAGE + 50;
    let text = branches(n);
    let r =
        FlowReports::compute(SliceSource(text.as_bytes()), ParseOptions::default(), None).unwrap();
    let mut list = PagedList::default();
    settle(&mut list, &r);
    let mut seen = Vec::new();
    let mut offsets = Vec::new();
    loop {
        let page = list.page.clone().unwrap();
        assert_eq!(page.offset, list.offset);
        offsets.push(page.offset);
        seen.extend(page.rows.iter().map(|b| (b.end, b.target)));
        let pager = Pager::of(page.offset, page.rows.len() as u64, page.total, LIST_PAGE)
            .expect("more than a page");
        assert_eq!(pager.first, page.offset + 1);
        assert_eq!(pager.last, page.offset + page.rows.len() as u64);
        assert_eq!(pager.earlier.is_some(), page.offset > 0);
        let Some(later) = pager.later else { break };
        list.update(ListMsg::Offset(later));
        settle(&mut list, &r);
    }
    assert_eq!(offsets, [0, LIST_PAGE, 2 * LIST_PAGE]);
    let written: Vec<(u64, u64)> = (0..n).map(|k| (0x1000 + 16 * k, 0x8000 + 16 * k)).collect();
    // The block after the last branch has no branch: the list ends there.
    assert_eq!(seen[..written.len()], written[..]);

    // Earlier from the last page: the one before it.
    let last = list.page.clone().unwrap();
    let pager = Pager::of(last.offset, last.rows.len() as u64, last.total, LIST_PAGE).unwrap();
    assert_eq!(pager.later, None);
    list.update(ListMsg::Offset(pager.earlier.unwrap()));
    // Its page comes after another's asked before it: that one is dropped.
    assert!(!list.update(ListMsg::Page(0, Ok(r.blocks(0, LIST_PAGE as usize)))));
    settle(&mut list, &r);
    assert_eq!(list.page.as_ref().unwrap().offset, LIST_PAGE);

    // A row clicked is marked.
    let line = list.page.as_ref().unwrap().rows[3].line;
    list.update(ListMsg::Jump(line));
    assert_eq!(list.selected, Some(line));
}

#[test]
fn one_page_has_no_pager_and_a_failure_is_said() {
    assert_eq!(Pager::of(0, 7, 7, LIST_PAGE), None);
    assert_eq!(
        Pager::of(10, 5, 100, 5),
        Some(Pager {
            earlier: Some(5),
            later: Some(15),
            first: 11,
            last: 15,
            total: 100
        })
    );
    let mut list: PagedList<FlowPage> = PagedList::default();
    assert_eq!(list.take_asks(), [0]);
    list.update(ListMsg::Page(
        0,
        Err("this report is not one of this trace's".into()),
    ));
    assert_eq!(
        list.error.as_deref(),
        Some("this report is not one of this trace's")
    );
    assert!(list.page.is_none());
}
