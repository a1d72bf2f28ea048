//! The page's own states (`model::page`: idle, indexing, ready, stopped,
//! error), driven by the events a real session makes while it indexes a
//! checked-in trace, in the order the page's worker posts them; what the
//! status shows (its `data-state`, the line count, whether rows show) is
//! checked against the session's own figures.

use super::data;
use tarmac_lens::model::page::{FileInfo, PageEvent, PageMsg, PageState, Phase, Reading, Tab};
use tarmac_lens_core::{
    identify, protocol::Progress, FileKind, ParseOptions, Session, SliceSource,
};

const TRACE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

/// The page's session handle: here, the job it was made for.
type Page = PageState<u32>;

fn start(page: &mut Page, job: u32, name: &str, bytes: u64) {
    let file = FileInfo {
        name: name.into(),
        bytes,
    };
    assert!(page.update(PageMsg::Start {
        job,
        file,
        now_ms: f64::from(job) * 1000.0,
    }));
}

fn event(page: &mut Page, job: u32, event: PageEvent) -> bool {
    page.update(PageMsg::Event {
        job,
        event,
        now_ms: 0.0,
    })
}

/// Opens `trace` as job `job`, as the worker does: the page's start, the
/// worker's session, what the file is.
fn open<'t>(page: &mut Page, job: u32, trace: &'t [u8]) -> Session<SliceSource<'t>> {
    let session = Session::open(SliceSource(trace), ParseOptions::default()).unwrap();
    start(page, job, "quicksort.tarmac", trace.len() as u64);
    assert!(page.update(PageMsg::Opened { job, session: job }));
    assert!(event(
        page,
        job,
        PageEvent::Opened {
            bytes: trace.len() as u64,
            reading: Reading::File,
            kind: session.file_kind().clone(),
        },
    ));
    session
}

/// Indexes in steps of `step` bytes, posting each step's progress; the
/// progress posted last.
fn index(page: &mut Page, job: u32, session: &mut Session<SliceSource>, step: u64) -> Progress {
    loop {
        let progress = session.index_step(step).unwrap();
        let before = page.progress.as_ref().map_or(0, |p| p.done_bytes);
        assert!(event(page, job, PageEvent::Progress(progress.clone())));
        if progress.complete || progress.stopped.is_some() {
            return progress;
        }
        assert!(progress.done_bytes >= before, "progress never goes back");
        assert_eq!(page.phase.name(), "indexing");
        assert_eq!(
            page.phase,
            Phase::Indexing {
                done: progress.done_bytes,
                total: session.progress().total_bytes,
            }
        );
        assert_eq!(page.lines(), Some(progress.lines));
        assert!(page.indexing() && page.open() && page.shows_rows());
    }
}

#[test]
fn a_trace_goes_from_indexing_to_ready_with_the_sessions_figures() {
    let trace = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let mut page = Page::default();
    assert_eq!(page.phase.name(), "idle");
    assert!(!page.open() && page.lines().is_none());

    let mut session = open(&mut page, 1, &trace);
    assert_eq!(page.reading.map(Reading::name), Some("file"));
    assert_eq!(page.file_kind, Some(FileKind::Trace));
    assert_eq!(page.file.as_ref().unwrap().bytes, trace.len() as u64);

    let last = index(&mut page, 1, &mut session, 64 << 10);
    assert!(last.complete);
    let stats = session.stats().expect("statistics once complete").clone();
    assert!(event(
        &mut page,
        1,
        PageEvent::Stats(Box::new(stats.clone()))
    ));
    assert_eq!(page.phase.name(), "ready");
    assert_eq!(page.phase, Phase::Ready(stats.clone().into()));
    // The status's line count: the statistics', which the trace's lines are.
    let lines = trace.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(page.lines(), Some(lines));
    assert!(page.progress.as_ref().unwrap().complete);
    assert!(!page.indexing() && page.open() && page.shows_rows());

    // Its ELF image, loaded twice: each load is a new one for the panes.
    let elf = std::fs::read(data(&format!("{TRACE}.elf"))).unwrap();
    for load in 1..=2 {
        let (symbols, warning) = session.load_elf(&elf, 0, false).unwrap();
        assert!(event(
            &mut page,
            1,
            PageEvent::ElfLoaded { symbols, warning }
        ));
        let loaded = page.elf.unwrap();
        assert_eq!((loaded.symbols, loaded.load), (symbols, load));
        assert!(symbols > 0 && page.elf_warning.is_none());
    }
    let refused = session.load_elf(b"not an ELF image", 0, false).unwrap_err();
    assert!(event(
        &mut page,
        1,
        PageEvent::ElfFailed(refused.to_string())
    ));
    assert_eq!(
        page.elf_error.as_deref(),
        Some(refused.to_string().as_str())
    );
    assert_eq!(page.elf.unwrap().load, 2, "the image in use stays");
}

#[test]
fn a_late_message_of_a_file_given_up_changes_nothing() {
    let trace = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let mut page = Page::default();
    let mut first = open(&mut page, 1, &trace);
    first.index_step(64 << 10).unwrap();
    page.update(PageMsg::Tab(Tab::Summary));

    // Another file dropped before the first is indexed.
    let mut second = open(&mut page, 2, &trace[..trace.len() / 2]);
    assert_eq!(page.tab, Tab::Summary, "the tab shown stays");
    assert_eq!(page.session, Some(2));
    let before = page.clone();
    let late = [
        PageEvent::Progress(index_all(&mut first)),
        PageEvent::Stats(Box::new(first.stats().unwrap().clone())),
        PageEvent::IndexCached,
        PageEvent::Failed("the first file's worker was stopped".into()),
    ];
    for e in late {
        assert!(!event(&mut page, 1, e.clone()), "{e:?}");
    }
    assert!(!page.update(PageMsg::Opened { job: 1, session: 1 }));
    assert_eq!(page, before);

    let last = index(&mut page, 2, &mut second, 64 << 10);
    assert!(last.complete);
    assert_eq!(page.lines(), Some(last.lines));
    assert!(last.lines < first.progress().lines);
}

fn index_all(session: &mut Session<SliceSource>) -> Progress {
    loop {
        let p = session.index_step(1 << 20).unwrap();
        if p.complete {
            return p;
        }
    }
}

#[test]
fn indexing_stopped_at_its_memory_budget_stays_browsable() {
    let trace = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let mut page = Page::default();
    let mut session = open(&mut page, 1, &trace);
    session.set_index_budget(16 << 10);
    let last = index(&mut page, 1, &mut session, 16 << 10);
    let reason = last.stopped.clone().expect("stopped at the budget");
    assert!(reason.contains("memory budget"), "{reason}");
    assert_eq!(page.phase, Phase::Stopped(reason));
    assert_eq!(page.lines(), Some(last.lines));
    assert!(last.lines > 0 && (last.done_bytes as usize) < trace.len());
    assert!(!page.indexing() && page.open() && page.shows_rows());
    // The worker posts its progress again; the phase stays.
    assert!(event(&mut page, 1, PageEvent::Progress(session.progress())));
    assert_eq!(page.phase.name(), "stopped");
}

#[test]
fn a_file_that_is_no_text_shows_no_rows_and_a_failure_says_why() {
    let gzip = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03compressed bytes";
    let kind = identify(gzip, gzip.len() as u64, ParseOptions::default());
    assert!(matches!(kind, FileKind::Compressed { .. }), "{kind:?}");
    let mut page = Page::default();
    start(&mut page, 7, "trace.tarmac.gz", gzip.len() as u64);
    page.update(PageMsg::Opened { job: 7, session: 7 });
    event(
        &mut page,
        7,
        PageEvent::Opened {
            bytes: gzip.len() as u64,
            reading: Reading::File,
            kind,
        },
    );
    assert!(page.open() && !page.shows_rows());

    event(
        &mut page,
        7,
        PageEvent::Failed("line 1: not a trace".into()),
    );
    assert_eq!(page.phase, Phase::Error("line 1: not a trace".into()));
    assert!(!page.open() && !page.shows_rows());

    // A worker that could not start: no session, the reason shown.
    start(&mut page, 8, "trace.tarmac", 10);
    assert!(page.update(PageMsg::StartFailed("no workers".into())));
    assert_eq!(page.phase.name(), "error");
    assert!(page.file_kind.is_none() && page.session.is_none() && !page.open());
}

#[test]
fn an_elf_image_chosen_alone_waits_and_a_download_shows_its_progress() {
    let elf = std::fs::read(data(&format!("{TRACE}.elf"))).unwrap();
    let symbols = tarmac_lens_core::SymbolTable::from_elf_bytes(&elf, 0)
        .unwrap()
        .symbols()
        .len();
    let mut page = Page::default();
    page.update(PageMsg::ElfAlone("quicksort.elf".into(), Ok(symbols)));
    assert_eq!(page.elf_alone, Some(("quicksort.elf".into(), Ok(symbols))));
    assert_eq!(page.phase.name(), "idle");

    // A URL whose server serves no ranges: downloaded whole first.
    start(&mut page, 1, "quicksort.tarmac", 0);
    assert!(page.elf_alone.is_none(), "the trace opened takes it");
    event(
        &mut page,
        1,
        PageEvent::Downloading {
            done: 4096,
            total: Some(8192),
        },
    );
    assert_eq!(page.download, Some((4096, Some(8192))));
    event(
        &mut page,
        1,
        PageEvent::Opened {
            bytes: 8192,
            reading: Reading::Downloaded,
            kind: FileKind::Trace,
        },
    );
    assert_eq!(page.file.as_ref().unwrap().bytes, 8192);
    assert_eq!(
        page.phase,
        Phase::Indexing {
            done: 0,
            total: 8192
        }
    );
    assert_eq!(page.reading.map(Reading::name), Some("downloaded"));
}
