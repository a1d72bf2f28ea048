//! The events pane (`panes/events`), which draws the page the model keeps
//! (`model::nav`): `v` opens it and the page is asked for, the pager turns
//! it, `e` to an event off the page turns it there, and with the pane
//! closed the list is left alone. Checked against a trace written here
//! with 250 unparsed lines, the events, at lines known from its text.

use super::Page;
use crate::common::data;
use tarmac_lens::model::layout::Slot;
use tarmac_lens::model::nav::{NavMsg, EVENTS_PAGE};
use tarmac_lens::model::{Config, Msg};
use tarmac_lens_core::protocol::EventKind;

/// The 2 MB quicksort trace with a line of junk after every 100th line,
/// 250 of them, and their line numbers.
fn junk_trace() -> (Vec<u8>, Vec<u64>) {
    let text = String::from_utf8(original()).unwrap();
    let (mut out, mut junk) = (String::new(), Vec::new());
    let mut written = 0u64;
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        written += 1;
        if (i + 1) % 100 == 0 && junk.len() < 250 {
            out.push_str(&format!("junk {} here\n", junk.len()));
            written += 1;
            junk.push(written);
        }
    }
    assert_eq!(junk.len(), 250, "the trace is long enough");
    (out.into_bytes(), junk)
}

fn original() -> Vec<u8> {
    std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap()
}

/// The page shown: its first event's rank and its unparsed lines.
fn shown_lines(page: &Page) -> (u64, Vec<u64>) {
    let p = page
        .model
        .nav
        .events_page
        .as_ref()
        .expect("a page of events");
    let unparsed = p.events.iter().filter(|e| e.kind == EventKind::Unparsed);
    (p.first, unparsed.map(|e| e.line).collect())
}

#[test]
fn the_events_pane_shows_the_page_kept_and_e_turns_it_to_the_event_reached() {
    let (trace, junk) = junk_trace();
    let events = Slot::named("events").unwrap();
    let mut page = Page::open(&trace, Config::default());
    assert!(
        page.model.nav.events_page.is_none(),
        "not asked while hidden"
    );

    page.key("v");
    assert!(page.model.shown(events));
    // The junk, and the run's own events (its exit's exception, at its
    // end: after the junk).
    let one = original();
    let mut plain = Page::open(&one, Config::default());
    plain.key("v");
    let own = plain.model.nav.events_page.as_ref().unwrap().total;
    let total = page.model.nav.events_page.as_ref().unwrap().total;
    assert_eq!(total, 250 + own);
    let first_page = shown_lines(&page);
    assert_eq!(first_page.0, 0);

    // The pager's pages, one after another: every event once, the junk's
    // lines among them, in order.
    let (mut seen, mut unparsed) = (0, Vec::new());
    for first in (0..total).step_by(EVENTS_PAGE as usize) {
        page.send(Msg::Nav(NavMsg::EventsAt(first)));
        let p = page.model.nav.events_page.as_ref().unwrap();
        assert_eq!(p.first, first);
        seen += p.events.len() as u64;
        unparsed.extend(shown_lines(&page).1);
    }
    assert_eq!((seen, &unparsed), (total, &junk));

    // From the start, `e` reaches the first event after it, the first
    // junk line's (the run's own is at the start), off the last page
    // shown: the page turns to it.
    page.key("e");
    assert_eq!(shown_lines(&page), first_page);
    let p = page.model.nav.events_page.as_ref().unwrap();
    let reached = p.events.iter().find(|e| e.line == junk[0]).unwrap().node;
    assert_eq!(page.model.views[0].cursor.unwrap().node, reached);

    // Closed, the list is not asked for: the page stays as it was.
    page.key("v");
    assert!(!page.model.shown(events));
    page.send(Msg::Nav(NavMsg::EventsAt(100)));
    assert_eq!(page.model.nav.events_first, 100);
    page.key("E");
    page.key("e");
    page.key("e");
    assert_eq!(shown_lines(&page).0, 100, "no page asked while hidden");
}
