//! The Reports panel's own state (`model::reports_panel`), fed the statuses
//! its worker posts for reports computed here as the worker computes them
//! (`report_kind` of the trace's first bytes, then the call reports, an EP
//! trace's cycle profile or a branch-only trace's flow, read through a
//! source that reports its progress): the tabs follow what the trace is,
//! a replaced worker's statuses change nothing, and downloads keep their
//! own states.

use std::cell::RefCell;

use super::data;
use tarmac_lens::model::reports_panel::{
    Computed, Download, ReportPass, ReportStatus, ReportsMsg, ReportsPanel, ReportsPhase,
};
use tarmac_lens::model::ReportTab;
use tarmac_lens_core::{
    read_sample,
    report::{report_kind, EpReports, FlowReports, Progressed, ReportKind, Reports, TextKind},
    EngineOptions, ParseOptions, SliceSource, SymbolTable,
};

/// A worker handle and a prepared text: a name and the text here.
type Panel = ReportsPanel<&'static str, String>;

/// What the report worker posts for `trace`, in order.
fn statuses(trace: &[u8], elf: Option<&[u8]>) -> Vec<ReportStatus> {
    let out = RefCell::new(Vec::new());
    let parse = ParseOptions::default();
    let image = match elf.map(|e| SymbolTable::from_elf_bytes(e, 0)) {
        Some(Err(e)) => {
            out.borrow_mut()
                .push(ReportStatus::ElfIgnored(e.to_string()));
            None
        }
        Some(Ok(t)) => Some(t),
        None => None,
    };
    let sample = read_sample(&mut SliceSource(trace)).unwrap();
    let posted = &out;
    let progressed = |pass| Progressed {
        inner: SliceSource(trace),
        on_read: move |done, total| {
            posted
                .borrow_mut()
                .push(ReportStatus::Progress { pass, done, total })
        },
    };
    let done = match report_kind(&sample, parse) {
        ReportKind::Calls => Reports::compute(
            progressed(ReportPass::Calls),
            parse,
            EngineOptions::default(),
            image,
        )
        .map(|r| ReportStatus::Ready(r.summary())),
        ReportKind::Ep => EpReports::compute(progressed(ReportPass::Records), parse)
            .map(|r| ReportStatus::ReadyEp(r.summary())),
        ReportKind::Flow => FlowReports::compute(progressed(ReportPass::Records), parse, image)
            .map(|r| ReportStatus::ReadyFlow(r.summary())),
    };
    let mut out = out.into_inner();
    out.push(done.unwrap_or_else(|e| ReportStatus::Failed(e.to_string())));
    out
}

/// Starts a worker for `name` and feeds it `statuses`; checks the phase
/// while it runs.
fn run(panel: &mut Panel, name: &str, statuses: Vec<ReportStatus>) {
    panel.update(ReportsMsg::Start {
        trace_name: name.into(),
    });
    panel.update(ReportsMsg::Started("worker"));
    assert_eq!(panel.phase, ReportsPhase::Starting);
    assert!(panel.tabs().is_empty(), "no tab before the kind is known");
    let generation = panel.generation;
    for status in statuses {
        let progress = match &status {
            ReportStatus::Progress { done, total, .. } => Some((*done, *total)),
            _ => None,
        };
        assert!(panel.update(ReportsMsg::Status { generation, status }));
        if let Some((done, total)) = progress {
            assert!(done <= total);
            assert!(matches!(panel.phase, ReportsPhase::Progress { done: d, .. } if d == done));
        }
    }
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(data(rel)).unwrap()
}

#[test]
fn the_tabs_follow_what_the_trace_is() {
    let calls = read("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let elf = read("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf");
    let mut panel = Panel::default();
    run(&mut panel, "quicksort.tarmac", statuses(&calls, Some(&elf)));
    let Some(Computed::Calls(summary)) = panel.computed().cloned() else {
        panic!("{:?}", panel.phase)
    };
    assert!(summary.has_symbols && summary.functions > 1 && summary.activations > 1);
    assert_eq!(panel.tabs(), &ReportTab::CALLS);
    assert_eq!(panel.tab(ReportTab::FlameGraph), ReportTab::FlameGraph);
    // An EP tab asked of a call trace: its first tab.
    assert_eq!(panel.tab(ReportTab::CycleProfile), ReportTab::CallTree);
    assert_eq!(panel.computed().unwrap().texts(), &TextKind::ALL);

    let ep = read("ep/sploop-loop.ept.txt");
    run(&mut panel, "sploop-loop.ept.txt", statuses(&ep, None));
    assert!(matches!(panel.computed(), Some(Computed::Ep(s)) if s.packet_cycles > 0));
    assert_eq!(panel.tabs(), &ReportTab::EP);
    assert_eq!(panel.tab(ReportTab::CallTree), ReportTab::CycleProfile);
    assert_eq!(panel.computed().unwrap().texts(), &[TextKind::EpProfile]);

    // A branch-only trace: one FD line per taken branch.
    let flow = "100 clk FD (100) 00001000 00002000 O\n\
                104 clk FD (104) 00002008 00001004 O\n";
    run(&mut panel, "flow.tarmac", statuses(flow.as_bytes(), None));
    assert!(matches!(panel.computed(), Some(Computed::Flow(s)) if s.blocks > 0));
    assert_eq!(panel.tabs(), &ReportTab::FLOW);
    assert_eq!(panel.tab(ReportTab::Statistics), ReportTab::ProgramFlow);
}

#[test]
fn a_replaced_workers_statuses_and_texts_change_nothing() {
    let calls = read("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut panel = Panel::default();
    run(&mut panel, "quicksort.tarmac", Vec::new());
    let first = panel.generation;
    assert!(panel.update(ReportsMsg::Download(TextKind::Calltree)));
    // Another ELF image: a new worker, the downloads and the refusal gone.
    run(
        &mut panel,
        "quicksort.tarmac",
        statuses(&calls, Some(b"not an ELF image")),
    );
    assert!(panel.downloads.is_empty());
    let refused = panel.elf_ignored.clone().expect("the refusal is said");
    assert!(!refused.is_empty());
    assert!(matches!(panel.computed(), Some(Computed::Calls(s)) if !s.has_symbols));
    let before = format!("{panel:?}");
    for status in statuses(&calls, None) {
        assert!(!panel.update(ReportsMsg::Status {
            generation: first,
            status
        }));
    }
    assert!(!panel.update(ReportsMsg::Downloaded {
        generation: first,
        kind: TextKind::Calltree,
        result: Ok("late".into()),
    }));
    assert_eq!(format!("{panel:?}"), before);
}

#[test]
fn downloads_keep_their_own_states_and_passes_their_bars() {
    let mut panel = Panel::default();
    // No worker (it could not start): nothing to ask.
    panel.update(ReportsMsg::Start {
        trace_name: "t.tarmac".into(),
    });
    panel.update(ReportsMsg::StartFailed("no workers".into()));
    assert_eq!(panel.phase, ReportsPhase::Failed("no workers".into()));
    assert!(!panel.update(ReportsMsg::Download(TextKind::Vcd)));
    assert!(panel.downloads.is_empty());

    run(&mut panel, "t.tarmac", Vec::new());
    let generation = panel.generation;
    for kind in [TextKind::Vcd, TextKind::Profile, TextKind::Vcd] {
        assert!(panel.update(ReportsMsg::Download(kind)));
    }
    // Asked again, a text is listed once, last.
    let kinds: Vec<TextKind> = panel.downloads.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, [TextKind::Profile, TextKind::Vcd]);
    assert_eq!(panel.download(TextKind::Vcd), Some(&Download::Preparing));

    // A VCD's and the coverage's passes have bars of their own, gone at
    // their end; the phase stays.
    for (pass, done) in [(ReportPass::Vcd, 10), (ReportPass::Coverage, 20)] {
        panel.update(ReportsMsg::Status {
            generation,
            status: ReportStatus::Progress {
                pass,
                done,
                total: 100,
            },
        });
    }
    assert_eq!(panel.vcd_progress, Some((10, 100)));
    assert_eq!(panel.coverage_progress, Some((20, 100)));
    assert_eq!(panel.phase, ReportsPhase::Starting);
    panel.update(ReportsMsg::Status {
        generation,
        status: ReportStatus::Progress {
            pass: ReportPass::Coverage,
            done: 100,
            total: 100,
        },
    });
    assert_eq!(panel.coverage_progress, None);

    panel.update(ReportsMsg::Downloaded {
        generation,
        kind: TextKind::Vcd,
        result: Ok("$timescale".into()),
    });
    assert_eq!(panel.vcd_progress, None, "the VCD is written");
    assert!(
        matches!(panel.download(TextKind::Vcd), Some(Download::Ready(t)) if **t == "$timescale")
    );
    assert_eq!(panel.failed_download(&TextKind::ALL), None);

    panel.update(ReportsMsg::Download(TextKind::Profile));
    panel.update(ReportsMsg::Downloaded {
        generation,
        kind: TextKind::Profile,
        result: Err("out of memory".into()),
    });
    assert_eq!(
        panel.failed_download(&TextKind::ALL),
        Some((TextKind::Profile, "out of memory"))
    );
    // Not among an EP trace's texts: not said there.
    assert_eq!(panel.failed_download(&[TextKind::EpProfile]), None);
}
