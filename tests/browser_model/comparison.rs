//! The trace comparison (`model::comparison`), fed the messages a real
//! comparison makes (`diff_with_progress` over two checked-in traces, as
//! the comparison worker posts them) and driven as a person does: the
//! views go to the selected divergence's lines in each trace (checked
//! against the trace texts), a divergence chosen again moves them again,
//! and a closed comparison's late messages change nothing.

use super::data;
use tarmac_lens::model::comparison::{CompareMsg, CompareState, Comparison, DiffMsg};
use tarmac_lens::model::page::PageEvent;
use tarmac_lens_core::{diff::diff_with_progress, ParseOptions, Session, SliceSource};

/// Session handles and worker handles: numbers here.
type Model = Comparison<u32, &'static str>;

fn trace() -> Vec<u8> {
    std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap()
}

/// The messages the comparison worker posts for `a` against `b`, at most
/// `max` divergences listed.
fn worker_messages(a: &[u8], b: &[u8], max: usize) -> Vec<DiffMsg> {
    let opts = ParseOptions::default();
    let mut messages = vec![DiffMsg::Ready];
    let report = diff_with_progress(
        SliceSource(a),
        opts,
        SliceSource(b),
        opts,
        max,
        |done, total| messages.push(DiffMsg::Progress { done, total }),
    )
    .unwrap();
    messages.push(DiffMsg::Done {
        compared: report.compared,
        capped: report.divergences.len() >= max,
        divergences: report.divergences,
    });
    messages
}

/// Starts a comparison with `b` as the page does: close the last, start,
/// its worker, the other trace's session.
fn start(model: &mut Model, a: &[u8], b: &[u8]) -> u32 {
    model.update(CompareMsg::Close);
    let seq = model.seq;
    model.update(CompareMsg::Start {
        name: "b.tarmac".into(),
        total: (a.len() + b.len()) as u64,
        now_ms: 0.0,
    });
    model.update(CompareMsg::Worker("worker"));
    model.update(CompareMsg::OtherOpened(1_000_000 + seq));
    seq
}

fn run(model: &mut Model, seq: u32, messages: Vec<DiffMsg>) {
    for msg in messages {
        let progress = matches!(msg, DiffMsg::Progress { .. });
        let changed = model.update(CompareMsg::Job {
            seq,
            msg,
            now_ms: 1.0,
        });
        if progress {
            assert!(changed);
            assert!(matches!(model.state, CompareState::Running { .. }));
            assert!(!model.side_by_side(), "nothing selected while it runs");
        }
    }
}

/// The text of line `line` (1-based).
fn line(text: &[u8], line: u64) -> &str {
    let l = text.split(|&b| b == b'\n').nth(line as usize - 1).unwrap();
    std::str::from_utf8(l).unwrap()
}

#[test]
fn the_views_go_to_each_divergence_in_both_traces() {
    let a = trace();
    let text = String::from_utf8(a.clone()).unwrap();
    // Every cpsr write flipped in B: one divergence per such write.
    let b = text
        .replace("R cpsr 800003cd", "R cpsr 600003cd")
        .into_bytes();
    let mut model = Model::default();
    assert!(!model.update(CompareMsg::Job {
        seq: model.seq,
        msg: DiffMsg::Ready,
        now_ms: 0.0
    }));
    let seq = start(&mut model, &a, &b);
    assert_eq!(
        model.state,
        CompareState::Running {
            done: 0,
            total: (a.len() + b.len()) as u64
        }
    );
    run(&mut model, seq, worker_messages(&a, &b, 5));
    let CompareState::Done {
        divergences,
        capped,
        ..
    } = model.state.clone()
    else {
        panic!("{:?}", model.state)
    };
    assert_eq!(divergences.len(), 5);
    assert!(capped);
    assert!(model.job.is_none(), "the worker is done with");
    assert!(model.side_by_side());

    let mut moves = model.moves;
    for (i, d) in divergences.iter().enumerate() {
        model.update(CompareMsg::Select(i));
        moves += 1;
        let (at_a, at_b) = (d.a.as_ref().unwrap().line, d.b.as_ref().unwrap().line);
        assert_eq!(model.goto_a(), Some((moves, at_a)));
        assert_eq!(model.goto_b(), Some((moves, at_b)));
        // Both lines are the same instruction, in the two traces.
        assert_eq!(line(&a, at_a), line(&b, at_b));
        assert!(line(&a, at_a).contains(" IT ") || line(&a, at_a).contains(" IS "));
    }
    // Chosen again: the views move again, to the same lines.
    let before = model.goto_a().unwrap();
    model.update(CompareMsg::Select(divergences.len() - 1));
    assert_eq!(model.goto_a(), Some((before.0 + 1, before.1)));

    let marked = model.marked_a();
    assert_eq!(marked.len(), 5);
    assert!(marked.windows(2).all(|w| w[0] <= w[1]));
    let mut expected: Vec<u64> = divergences
        .iter()
        .map(|d| d.a.as_ref().unwrap().line)
        .collect();
    expected.sort_unstable();
    assert_eq!(marked, expected);

    // Closed: a late message of it changes nothing.
    model.update(CompareMsg::Close);
    let closed = model.clone();
    assert_eq!(closed.state, CompareState::Idle);
    assert!(closed.other.is_none() && closed.goto_a().is_none() && closed.marked_a().is_empty());
    for msg in worker_messages(&a, &b, 1) {
        assert!(!model.update(CompareMsg::Job {
            seq,
            msg,
            now_ms: 2.0
        }));
    }
    assert!(!model.update(CompareMsg::Other {
        seq,
        event: PageEvent::Failed("gone".into())
    }));
    assert_eq!(model, closed);
}

#[test]
fn no_divergence_leaves_nothing_to_see_side_by_side() {
    let a = trace();
    let mut model = Model::default();
    let seq = start(&mut model, &a, &a);
    run(&mut model, seq, worker_messages(&a, &a, 10));
    match &model.state {
        CompareState::Done {
            compared,
            divergences,
            capped,
        } => {
            let instructions = a
                .split(|&b| b == b'\n')
                .filter(|l| l.windows(4).any(|w| w == b" IT " || w == b" IS "))
                .count() as u64;
            assert_eq!(*compared, instructions);
            assert!(divergences.is_empty() && !capped);
        }
        other => panic!("{other:?}"),
    }
    assert!(model.other.is_none() && !model.side_by_side() && model.goto_b().is_none());
}

#[test]
fn the_other_traces_session_indexes_takes_the_elf_and_may_fail() {
    let a = trace();
    let mut model = Model::default();
    let seq = start(&mut model, &a, &a);
    // The other trace indexed by its own session, as its worker does.
    let mut session = Session::open(SliceSource(&a), ParseOptions::default()).unwrap();
    loop {
        let p = session.index_step(256 << 10).unwrap();
        assert!(model.update(CompareMsg::Other {
            seq,
            event: PageEvent::Progress(p.clone())
        }));
        if p.complete {
            break;
        }
    }
    let stats = session.stats().unwrap().clone();
    model.update(CompareMsg::Other {
        seq,
        event: PageEvent::Stats(Box::new(stats)),
    });
    assert!(model.other_progress.as_ref().unwrap().complete);
    // The open trace's image, loaded into the other session twice.
    let elf = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf")).unwrap();
    for load in 1..=2 {
        let (symbols, warning) = session.load_elf(&elf, 0, false).unwrap();
        model.update(CompareMsg::Other {
            seq,
            event: PageEvent::ElfLoaded { symbols, warning },
        });
        assert_eq!(
            model.other_elf.map(|e| (e.symbols, e.load)),
            Some((symbols, load))
        );
    }
    // What the page's own trace says is not the comparison's business.
    assert!(!model.update(CompareMsg::Other {
        seq,
        event: PageEvent::IndexCached
    }));

    model.update(CompareMsg::Other {
        seq,
        event: PageEvent::Failed("reading b.tarmac failed".into()),
    });
    assert_eq!(
        model.state,
        CompareState::Failed("reading b.tarmac failed".into())
    );
    assert!(model.other.is_none());

    // A worker that panics: said, and nothing left to browse.
    let seq = start(&mut model, &a, &a);
    model.update(CompareMsg::Job {
        seq,
        msg: DiffMsg::Panicked {
            message: "panicked at diff.rs".into(),
        },
        now_ms: 0.0,
    });
    assert_eq!(
        model.state,
        CompareState::Failed("panicked at diff.rs".into())
    );
    assert!(model.job.is_none() && model.other.is_none());
}
