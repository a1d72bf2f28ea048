//! The Reports panel's flame graph (`model::flame_graph`), pointed at and
//! clicked as a person does, its zooms answered by reports computed
//! natively over a checked-in trace and its ELF image: every frame is
//! drawn inside its caller's width, one row above it; the point at a
//! frame's middle hits that frame; a click zooms into it and one on the
//! bottom frame zooms back out; Esc goes all the way; the search
//! highlights names in any case.

use super::quicksort_reports;
use tarmac_lens::model::flame_graph::{FlameGraphState, FlameMsg, ROW};
use tarmac_lens_core::report::Reports;

const WIDTH: f64 = 1200.0;

/// Answers the graph's zooms as the report worker does; the roots asked.
fn settle(graph: &mut FlameGraphState, r: &Reports) -> Vec<u32> {
    let asked = graph.take_asks();
    for &root in &asked {
        let view = r.flame(root).ok_or_else(|| "no such frame".to_string());
        graph.update(FlameMsg::View(root, view));
    }
    asked
}

/// The middle of frame `i` as drawn.
fn middle(graph: &FlameGraphState, i: usize) -> (f64, f64) {
    let (_, x, y, w) = graph.placed().nth(i).unwrap();
    (x + w / 2.0, y + ROW / 2.0)
}

/// Every frame sits on its caller, inside its width, and the point at its
/// middle hits it.
fn check_layout(graph: &FlameGraphState) {
    let placed: Vec<_> = graph.placed().collect();
    let (root, rx, ry, rw) = placed[0];
    assert_eq!((rx, rw), (0.0, WIDTH), "the zoom root spans the width");
    assert_eq!(ry, f64::from(graph.max_depth()) * ROW, "at the bottom");
    for (i, &(f, x, y, w)) in placed.iter().enumerate().skip(1) {
        let &(parent, px, py, pw) = placed
            .iter()
            .find(|(p, ..)| Some(p.id) == f.parent)
            .expect("its caller is drawn");
        assert_eq!(y, py - ROW, "{} one row above {}", f.name, parent.name);
        assert!(
            x >= px - 1e-6 && x + w <= px + pw + 1e-6,
            "{} inside {}",
            f.name,
            parent.name
        );
        assert!(f.depth > root.depth);
        let (mx, my) = middle(graph, i);
        assert_eq!(graph.hit(mx, my), Some(i), "{}", f.name);
    }
    assert_eq!(graph.hit(WIDTH + 1.0, ry + 1.0), None);
}

#[test]
fn frames_are_drawn_on_their_callers_and_clicks_zoom_in_and_out() {
    let r = quicksort_reports();
    let mut graph = FlameGraphState::default();
    assert_eq!(settle(&mut graph, &r), [0]);
    assert!(graph.update(FlameMsg::Width(WIDTH)));
    assert!(!graph.update(FlameMsg::Width(WIDTH)), "the same width");
    check_layout(&graph);
    let whole = graph.view.clone().unwrap();
    assert_eq!(whole.frames[0].name, "_start");
    assert!(whole.ancestors.is_empty());

    // Hovering a frame names it; leaving forgets it.
    let partition = whole
        .frames
        .iter()
        .position(|f| f.name == "partition")
        .unwrap();
    let (x, y) = middle(&graph, partition);
    assert!(graph.update(FlameMsg::Hover(x, y)));
    assert_eq!(graph.hovered().unwrap().name, "partition");
    assert!(!graph.update(FlameMsg::Hover(x, y)), "the same frame");
    assert!(graph.update(FlameMsg::Leave));
    assert!(graph.hovered().is_none());

    // A click zooms into it: it is the root, its callers the way out.
    let id = whole.frames[partition].id;
    graph.update(FlameMsg::Click(x, y));
    assert_eq!(settle(&mut graph, &r), [id]);
    let zoomed = graph.view.clone().unwrap();
    assert_eq!(
        (zoomed.frames[0].id, zoomed.frames[0].name.as_str()),
        (id, "partition")
    );
    assert_eq!(zoomed.ancestors.first().map(|a| a.id), Some(0));
    check_layout(&graph);
    assert!(zoomed.frames.iter().skip(1).all(|f| f.name != "_start"));

    // The bottom frame: one level out.
    let out = zoomed.ancestors.last().unwrap().id;
    let (x, y) = middle(&graph, 0);
    graph.update(FlameMsg::Click(x, y));
    assert_eq!(settle(&mut graph, &r), [out]);
    assert_eq!(graph.view.as_ref().unwrap().frames[0].id, out);

    // Esc: all the way out; there, nothing more.
    assert!(graph.update(FlameMsg::Escape));
    assert_eq!(settle(&mut graph, &r), [0]);
    assert_eq!(graph.view.as_ref(), Some(&whole));
    assert!(!graph.update(FlameMsg::Escape));
    assert!(graph.take_asks().is_empty());
    // A click on the whole graph's root has nowhere to go.
    let (x, y) = middle(&graph, 0);
    assert!(!graph.update(FlameMsg::Click(x, y)));
}

#[test]
fn the_search_highlights_in_any_case_and_late_frames_are_dropped() {
    let r = quicksort_reports();
    let mut graph = FlameGraphState::default();
    settle(&mut graph, &r);
    graph.update(FlameMsg::Width(WIDTH));
    let frames = graph.view.clone().unwrap().frames;
    let cmp = frames.iter().filter(|f| f.name.contains("cmp")).count();
    assert!(cmp > 0);
    for text in ["cmp", "CMP", "cMp"] {
        graph.update(FlameMsg::Search(text.into()));
        let n = frames.iter().filter(|f| graph.matches(f)).count();
        assert_eq!(n, cmp, "{text}");
    }
    graph.update(FlameMsg::Search(String::new()));
    assert!(frames.iter().all(|f| !graph.matches(f)));

    // Zoomed in, then out before the first answer: it is dropped.
    let id = frames[1].id;
    graph.update(FlameMsg::Zoom(id));
    graph.update(FlameMsg::Zoom(0));
    let late = r.flame(id).ok_or_else(String::new);
    assert!(!graph.update(FlameMsg::View(id, late)));
    assert_eq!(graph.view.as_ref().unwrap().frames, frames);

    // A frame the worker does not know.
    graph.update(FlameMsg::Zoom(u32::MAX));
    settle(&mut graph, &r);
    assert_eq!(graph.error.as_deref(), Some("no such frame"));
    assert!(graph.view.is_none() && graph.hit(1.0, 1.0).is_none());
}
