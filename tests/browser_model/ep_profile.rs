//! An EP trace's cycle profile (`model::ep_profile`), sorted by a
//! header's clicks and paged as a person does, each page answered by the
//! EP reports computed natively over a checked-in TI C64x+ trace: every
//! sort orders the rows so, a page from a later row starts there, a late
//! page is dropped, and each row's first line holds its address in the
//! trace text.

use super::data;
use tarmac_lens::model::ep_profile::{EpMsg, EpProfileState};
use tarmac_lens_core::{
    report::ep_profile::PcCycles,
    report::{EpReports, EpSort, MAX_PAGE},
    ParseOptions, SliceSource,
};

const EP: &str = "ep/sploop-loop.ept.txt";

fn settle(table: &mut EpProfileState, r: &EpReports) {
    for asked in table.take_asks() {
        let page = r.by_pc(asked.sort, asked.descending, asked.offset, MAX_PAGE);
        table.update(EpMsg::Page(asked, Ok(page)));
    }
}

fn rows(table: &EpProfileState) -> &[PcCycles] {
    &table.page.as_ref().expect("a page").rows
}

#[test]
fn each_sort_and_page_of_the_cycle_profile() {
    let text = std::fs::read(data(EP)).unwrap();
    let r = EpReports::compute(SliceSource(&text), ParseOptions::default()).unwrap();
    let lines: Vec<&str> = std::str::from_utf8(&text).unwrap().lines().collect();
    let mut table = EpProfileState::default();
    settle(&mut table, &r);
    let all = rows(&table).to_vec();
    assert!(all.len() > 3, "{} addresses", all.len());
    assert_eq!(table.page.as_ref().unwrap().total, all.len() as u64);
    // Each address's first line is a record at it.
    for row in &all {
        let line = lines[row.first_line as usize - 1].to_ascii_lowercase();
        assert!(line.contains(&format!("{:08x}", row.pc)), "{line}");
    }

    type Key = fn(&PcCycles) -> u64;
    let clicks: [(EpSort, bool, Key); 5] = [
        // The CLI's order clicked again: the other way round.
        (EpSort::Cycles, false, |r| r.cycles),
        (EpSort::Pc, false, |r| r.pc),
        (EpSort::Pc, true, |r| r.pc),
        (EpSort::Packets, true, |r| r.packets),
        (EpSort::Stalls, true, |r| r.stall_cycles),
    ];
    for (sort, descending, key) in clicks {
        table.update(EpMsg::Sort(sort));
        assert_eq!((table.at.sort, table.at.descending), (sort, descending));
        settle(&mut table, &r);
        let keys: Vec<u64> = rows(&table).iter().map(key).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        if descending {
            sorted.reverse();
        }
        assert_eq!(keys, sorted, "{sort:?} descending {descending}");
        let mut pcs: Vec<u64> = rows(&table).iter().map(|r| r.pc).collect();
        pcs.sort_unstable();
        let mut every: Vec<u64> = all.iter().map(|r| r.pc).collect();
        every.sort_unstable();
        assert_eq!(pcs, every, "each address once");
    }

    // A later page starts at its row; a sort goes back to the first.
    let sorted = rows(&table).to_vec();
    table.update(EpMsg::Offset(2));
    settle(&mut table, &r);
    assert_eq!(table.page.as_ref().unwrap().offset, 2);
    assert_eq!(rows(&table), &sorted[2..]);
    table.update(EpMsg::Sort(EpSort::Cycles));
    assert_eq!(table.at.offset, 0);

    // The page of the sort before comes late: dropped.
    let asked = table.take_asks();
    let shown = table.page.clone();
    let mut old = asked[0];
    old.sort = EpSort::Stalls;
    assert!(!table.update(EpMsg::Page(
        old,
        Ok(r.by_pc(old.sort, old.descending, 0, MAX_PAGE))
    )));
    assert_eq!(table.page, shown);

    table.update(EpMsg::Jump(all[1].pc));
    assert_eq!(table.selected, Some(all[1].pc));
}
