//! The Statistics tab (`model::statistics_tab`), clicked through as a
//! person does, its questions answered as the report worker answers them:
//! the first from statistics counted over the trace's first quarter (cut
//! at a line end, with the other reports' texts from the same lines), the
//! next from the whole trace's. Every report's first answer shows at once
//! and the whole one replaces it, never the other way round; the counted
//! instructions are the instruction lines of the cut text; a function's
//! graph is asked for only once it is typed and shown.

use std::rc::Rc;

use super::data;
use tarmac_lens::model::statistics::StatisticKind;
use tarmac_lens::model::statistics_tab::{
    PrefixCounted, StatisticAsk, StatisticText, StatisticsMsg, StatisticsTab, KEPT,
};
use tarmac_lens_core::{
    report::stats::{Report, Statistics},
    EngineOptions, ParseOptions, Prefix, SliceSource, SymbolTable, TraceSource,
};

const BASE: &str = "stats/exceptions-aarch64-O1-fastmodel";

/// A download here: the text itself.
type Tab = StatisticsTab<String>;

struct Worker {
    first: Statistics,
    counted: PrefixCounted,
    whole: Statistics,
    /// The first question is answered from the first lines.
    asked: bool,
}

impl Worker {
    fn new(trace: &[u8], elf: &[u8]) -> Worker {
        let image = || Some(SymbolTable::from_elf_bytes(elf, 0).unwrap());
        let stats = |s| {
            Statistics::compute(
                s,
                ParseOptions::default(),
                EngineOptions::default(),
                image(),
            )
            .unwrap()
        };
        let prefix = Prefix::new(SliceSource(trace), trace.len() as u64 / 4)
            .unwrap()
            .expect("a cut before the end");
        let bytes = prefix.len();
        let first = stats(Box::new(prefix) as Box<dyn TraceSource>);
        let counted = PrefixCounted {
            bytes,
            of: trace.len() as u64,
            instructions: first.instructions(),
        };
        Worker {
            first,
            counted,
            whole: stats(Box::new(SliceSource(trace))),
            asked: false,
        }
    }

    fn answer(&mut self, ask: &StatisticAsk) -> Result<StatisticText, String> {
        let first = !std::mem::replace(&mut self.asked, true);
        let stats = if first { &self.first } else { &self.whole };
        let mut text = StatisticText::of(stats, &ask.report, first.then_some(self.counted))?;
        if first {
            text.also = ask
                .also
                .iter()
                .map(|r| (r.clone(), stats.text(r).unwrap()))
                .collect();
        }
        Ok(text)
    }

    /// Answers the tab's questions (the page makes a whole text's
    /// download); how many.
    fn settle(&mut self, tab: &mut Tab) -> usize {
        let asks = tab.take_asks();
        for ask in &asks {
            let reply = self.answer(ask);
            let download = match &reply {
                Ok(t) if t.prefix.is_none() => Some(Ok(t.text.clone())),
                _ => None,
            };
            tab.update(StatisticsMsg::Answer {
                report: ask.report.clone(),
                reply: reply.map(Box::new),
                download,
            });
        }
        asks.len()
    }
}

fn read(ext: &str) -> Vec<u8> {
    std::fs::read(data(&format!("{BASE}.{ext}"))).unwrap()
}

fn shown_text(tab: &Tab) -> (String, Option<PrefixCounted>, Option<Rc<String>>) {
    let shown = tab.shown().expect("an answer for the report chosen");
    let (text, download, _) = shown.answer.as_ref().unwrap();
    (text.text.clone(), text.prefix, download.clone())
}

#[test]
fn first_answers_from_the_first_lines_then_the_whole_traces() {
    let (trace, elf) = (read("tarmac"), read("elf"));
    let mut worker = Worker::new(&trace, &elf);
    let counted = worker.counted;
    let cut = &trace[..counted.bytes as usize];
    assert_eq!(cut.last(), Some(&b'\n'), "cut at a line end");
    let instructions = cut
        .split(|&b| b == b'\n')
        .filter(|l| l.windows(4).any(|w| w == b" IT " || w == b" IS "))
        .count() as u64;
    assert_eq!(counted.instructions, instructions);

    let mut tab = Tab::default();
    let ask = tab.take_asks();
    assert_eq!(ask.len(), 1);
    assert_eq!(ask[0].report, Report::Mix);
    // Levels, exceptions, the functions both ways, loops, caches and TLBs.
    assert_eq!(ask[0].also.len(), 6);
    tab.update(StatisticsMsg::Answer {
        report: Report::Mix,
        reply: worker.answer(&ask[0]).map(Box::new),
        download: None,
    });
    let (text, prefix, download) = shown_text(&tab);
    assert_eq!(text, worker.first.text(&Report::Mix).unwrap());
    assert_eq!(prefix, Some(counted));
    assert!(download.is_none(), "no download for a first answer");
    assert_eq!(tab.asking, [Report::Mix], "the whole trace's asked for");

    // Another kind chosen meanwhile: its first answer at once.
    assert!(tab.update(StatisticsMsg::Kind(StatisticKind::Levels)));
    let (text, prefix, _) = shown_text(&tab);
    assert_eq!(text, worker.first.text(&Report::Levels).unwrap());
    assert_eq!(prefix, Some(counted));
    assert_eq!(
        worker.settle(&mut tab),
        2,
        "Mix and Levels, the whole trace's"
    );
    let (text, prefix, download) = shown_text(&tab);
    assert_eq!(text, worker.whole.text(&Report::Levels).unwrap());
    assert_eq!((prefix, download.as_deref()), (None, Some(&text)));
    assert_ne!(text, worker.first.text(&Report::Levels).unwrap());

    // Back to the mix: its whole answer is here, nothing asked.
    tab.update(StatisticsMsg::Kind(StatisticKind::Mix));
    assert!(tab.take_asks().is_empty());
    assert_eq!(shown_text(&tab).0, worker.whole.text(&Report::Mix).unwrap());
    // A first answer coming after the whole one does not replace it.
    let late = StatisticText {
        text: "late".into(),
        cfg: None,
        names: Vec::new(),
        prefix: Some(counted),
        also: Vec::new(),
    };
    tab.update(StatisticsMsg::Answer {
        report: Report::Mix,
        reply: Ok(Box::new(late)),
        download: None,
    });
    assert_eq!(shown_text(&tab).1, None);

    // The functions' switch: the other report, its first answer kept.
    tab.update(StatisticsMsg::Kind(StatisticKind::Functions));
    tab.update(StatisticsMsg::ExceptionsInCalls(false));
    let off = Report::Functions {
        exceptions_in_calls: false,
    };
    assert_eq!(tab.wanted(), Some(off.clone()));
    assert_eq!(shown_text(&tab).0, worker.first.text(&off).unwrap());
}

#[test]
fn a_graph_is_asked_for_once_typed_and_drawn_and_answers_are_kept_to_a_bound() {
    let (trace, elf) = (read("tarmac"), read("elf"));
    let mut worker = Worker::new(&trace, &elf);
    worker.asked = true;
    let mut tab = Tab::default();
    worker.settle(&mut tab);
    tab.update(StatisticsMsg::Kind(StatisticKind::Cfg));
    assert_eq!(tab.wanted(), None, "no function yet");
    assert!(tab.take_asks().is_empty());
    assert!(!tab.update(StatisticsMsg::Function("run_iteration".into())));
    assert!(tab.take_asks().is_empty(), "asked for once shown");
    tab.update(StatisticsMsg::ShowGraph);
    assert_eq!(worker.settle(&mut tab), 1);
    let shown = tab.shown().unwrap();
    let (text, download, graph) = shown.answer.as_ref().unwrap();
    let cfg = text.cfg.as_ref().unwrap();
    let graph = graph.as_ref().expect("the graph laid out");
    let boxes: Vec<&str> = graph
        .nodes
        .iter()
        .filter(|n| !n.oval)
        .map(|n| n.id.as_str())
        .collect();
    let blocks: Vec<String> = cfg
        .blocks
        .iter()
        .map(|b| format!("0x{:x}", b.start))
        .collect();
    assert!(!blocks.is_empty());
    assert_eq!(boxes, blocks, "a box per block, in address order");
    assert_eq!(download.as_deref(), Some(&text.text));

    tab.update(StatisticsMsg::Function("no_such_function".into()));
    tab.update(StatisticsMsg::ShowGraph);
    worker.settle(&mut tab);
    let error = tab.shown().unwrap().answer.as_ref().unwrap_err();
    assert!(error.contains("no_such_function"), "{error}");

    // Many functions' graphs: the latest KEPT answers stay.
    let functions = ["run_iteration", "fill", "partition", "swap", "quicksort"];
    for i in 0..KEPT + 4 {
        let f = format!(
            "{}+{}",
            functions[i % functions.len()],
            4 * (i / functions.len())
        );
        tab.update(StatisticsMsg::Function(f));
        tab.update(StatisticsMsg::ShowGraph);
        worker.settle(&mut tab);
    }
    assert_eq!(tab.answers.len(), KEPT);
}
