//! The Reports panel's profile (`model::profile_table`), its questions
//! answered by reports computed natively as the report worker computes
//! them, over a checked-in trace and its ELF image: every sort a header's
//! clicks give orders the rows so, each function's count and time are
//! the reference tools' (`*.profile.ref`), a page asked for a sort no
//! longer shown is dropped, and a function's calls are listed a page at a
//! time.

use std::collections::HashMap;

use super::{data, quicksort_reports};
use tarmac_lens::model::profile_table::{ProfileAsk, ProfileMsg, ProfileTableState};
use tarmac_lens_core::report::{ProfileRow, ProfileSort, Reports, MAX_PAGE};

const TRACE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

/// Answers the table's questions as the report worker does.
fn settle(table: &mut ProfileTableState, r: &Reports) {
    for ask in table.take_asks() {
        table.update(match ask {
            ProfileAsk::Page { sort, descending } => ProfileMsg::Page(
                sort,
                descending,
                Ok(r.profile(sort, descending, 0, MAX_PAGE)),
            ),
            ProfileAsk::Calls { addr, offset } => {
                ProfileMsg::CallsPage(addr, Ok(r.calls_of(addr, offset, MAX_PAGE)))
            }
        });
    }
}

/// The reference profile: function name -> (count, inclusive time).
fn reference() -> HashMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(data(&format!("{TRACE}.profile.ref"))).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[3].to_string(),
                (f[1].parse().unwrap(), f[2].parse().unwrap()),
            )
        })
        .collect()
}

fn rows(table: &ProfileTableState) -> &[ProfileRow] {
    &table.page.as_ref().expect("a page").rows
}

#[test]
fn each_sort_orders_the_reference_tools_counts_and_times() {
    let r = quicksort_reports();
    let reference = reference();
    let mut table = ProfileTableState::new(None);
    settle(&mut table, &r);
    assert_eq!(
        (table.sort, table.descending),
        (ProfileSort::Inclusive, true)
    );
    let shown: HashMap<String, (u64, u64)> = rows(&table)
        .iter()
        .map(|row| (row.name.clone(), (row.count, row.inclusive)))
        .collect();
    assert_eq!(shown, reference);

    type Key = fn(&ProfileRow) -> String;
    let clicks: [(ProfileSort, bool, Key); 6] = [
        // Clicked again: the other way round.
        (ProfileSort::Inclusive, false, |r| {
            format!("{:020}", r.inclusive)
        }),
        (ProfileSort::Name, false, |r| r.name.clone()),
        (ProfileSort::Name, true, |r| r.name.clone()),
        (ProfileSort::Count, true, |r| format!("{:020}", r.count)),
        (ProfileSort::Address, false, |r| format!("{:020}", r.addr)),
        (ProfileSort::Exclusive, true, |r| {
            format!("{:020}", r.exclusive)
        }),
    ];
    for (sort, descending, key) in clicks {
        table.update(ProfileMsg::Sort(sort));
        assert_eq!((table.sort, table.descending), (sort, descending));
        settle(&mut table, &r);
        let keys: Vec<String> = rows(&table).iter().map(key).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        if descending {
            sorted.reverse();
        }
        assert_eq!(keys, sorted, "{sort:?} descending {descending}");
        assert_eq!(rows(&table).len(), reference.len());
    }

    // A page for the sort before the last click comes late: dropped.
    let shown = table.page.clone();
    table.update(ProfileMsg::Sort(ProfileSort::Count));
    let late = ProfileMsg::Page(
        ProfileSort::Exclusive,
        true,
        Ok(r.profile(ProfileSort::Exclusive, true, 0, MAX_PAGE)),
    );
    assert!(!table.update(late));
    assert_eq!(table.page, shown);
}

#[test]
fn a_functions_calls_are_listed_a_page_at_a_time() {
    let r = quicksort_reports();
    let reference = reference();
    let mut table = ProfileTableState::new(None);
    settle(&mut table, &r);
    let cmp = rows(&table)
        .iter()
        .find(|row| row.name == "cmp_ascending")
        .unwrap()
        .clone();
    let calls = reference["cmp_ascending"].0;
    assert!(calls > MAX_PAGE as u64, "more calls than a page");

    table.update(ProfileMsg::Calls(cmp.addr, 0));
    assert!(table.listed(cmp.addr));
    assert_eq!(table.calls_name().as_deref(), Some("cmp_ascending"));
    settle(&mut table, &r);
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let (_, Some(page)) = table.calls.clone().unwrap() else {
            panic!("no page")
        };
        assert_eq!(page.total, calls);
        assert_eq!(page.offset, seen.len() as u64);
        seen.extend(page.calls.iter().map(|c| c.entry.line));
        pages += 1;
        let (earlier, later) = table.calls_around();
        assert_eq!(earlier.is_some(), page.offset > 0);
        let Some(next) = later else { break };
        // The page shown stays while the next is asked for.
        table.update(ProfileMsg::Calls(cmp.addr, next));
        assert!(matches!(&table.calls, Some((_, Some(p))) if p.offset == page.offset));
        settle(&mut table, &r);
    }
    assert_eq!(seen.len() as u64, calls);
    assert_eq!(pages, calls.div_ceil(MAX_PAGE as u64));
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "in trace order");

    // Another function's late page is dropped; closing clears the list.
    let swap = rows(&table)
        .iter()
        .find(|row| row.name == "swap")
        .unwrap()
        .addr;
    assert!(!table.update(ProfileMsg::CallsPage(
        swap,
        Ok(r.calls_of(swap, 0, MAX_PAGE))
    )));
    table.update(ProfileMsg::CloseCalls);
    assert!(table.calls.is_none() && !table.listed(cmp.addr));

    // Chosen in the palette before the table opens: listed at once.
    let mut table = ProfileTableState::new(Some(swap));
    settle(&mut table, &r);
    assert!(
        matches!(&table.calls, Some((a, Some(p))) if *a == swap && p.total == reference["swap"].0)
    );
}
