//! The Statistics tab's state: the report chosen (its kind, the
//! functions' switch, the graph's function), the reports asked of the
//! report worker and the answers kept, the latest per report. On a long
//! trace the worker's first answer counts only the trace's first lines
//! and carries the other reports' texts from them (`also`): they are all
//! shown at once, and the whole trace's answer is asked for again and
//! replaces them; a first answer never replaces a whole one. The Yew view
//! (`web::components::reports::statistics_view`) carries
//! [`StatisticsTab::take_asks`], makes a whole text's download (`D`) and
//! draws the state; `tests/browser_model/statistics_tab.rs` answers as the
//! worker does, from statistics counted natively.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tarmac_lens_core::{
    report::stats::cfg::{CfgReport, Target},
    report::stats::{Report, Statistics},
};

use super::statistics::{picture, Picture, StatisticKind};

/// A statistics report as the worker answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatisticText {
    /// The text, byte for byte as the CLI prints it.
    pub text: String,
    /// For a control-flow graph, the graph, to draw.
    pub cfg: Option<CfgReport>,
    /// The names of the places out of the function the graph goes to, as
    /// the text names them.
    pub names: Vec<(u64, String)>,
    /// Set when the text counts only the trace's first lines (the first
    /// answer on a long trace, while the whole trace's pass runs: ask
    /// again for the whole trace's).
    pub prefix: Option<PrefixCounted>,
    /// With a text from the first lines, the texts of the reports asked
    /// `also`, from the same lines.
    pub also: Vec<(Report, String)>,
}

impl StatisticText {
    /// `report`'s answer from `stats`, counted over the trace's first
    /// lines when `prefix` says so: what the report worker answers (with
    /// no `also`), or why there is none.
    pub fn of(
        stats: &Statistics,
        report: &Report,
        prefix: Option<PrefixCounted>,
    ) -> Result<StatisticText, String> {
        let cfg = match report {
            Report::Cfg { function } => Some(stats.cfg(function).map_err(|e| e.to_string())?),
            _ => None,
        };
        let names = cfg
            .iter()
            .flat_map(|c| &c.edges)
            .filter_map(|e| match e.to {
                Target::Out(a) => Some((a, stats.symbolic(a))),
                _ => None,
            })
            .collect();
        Ok(StatisticText {
            text: stats.text(report).map_err(|e| e.to_string())?,
            cfg,
            names,
            prefix,
            also: Vec::new(),
        })
    }
}

/// What a first answer counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixCounted {
    /// The trace's first bytes, whole lines.
    pub bytes: u64,
    /// Of the trace's bytes.
    pub of: u64,
    /// The instructions in them.
    pub instructions: u64,
}

/// A question for the worker: `report`, and, were its answer counted from
/// the trace's first lines, the texts of `also` from them too.
#[derive(Clone, Debug, PartialEq)]
pub struct StatisticAsk {
    /// The report.
    pub report: Report,
    /// The tab's other reports.
    pub also: Vec<Report>,
}

/// What changes the tab; `D` is a whole text's download.
#[derive(Clone, Debug, PartialEq)]
pub enum StatisticsMsg<D> {
    /// A kind's button.
    Kind(StatisticKind),
    /// The functions' switch: exceptions taken inside a call counted in it.
    ExceptionsInCalls(bool),
    /// The graph's function as typed.
    Function(String),
    /// Draw the typed function's graph.
    ShowGraph,
    /// `report`'s answer, with its download when it is a whole text (the
    /// page makes it: `Err` when it could not).
    Answer {
        /// The report asked.
        report: Report,
        /// Its text, or why not.
        reply: Result<Box<StatisticText>, String>,
        /// The text's download, for a whole text.
        download: Option<Result<D, String>>,
    },
}

/// A report's answer: its text, its download (none while it counts only
/// the trace's first lines) and its graph laid out.
pub type Answered<D> = (StatisticText, Option<Rc<D>>, Option<Picture>);

/// A report and its answer, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown<D> {
    /// The report.
    pub report: Report,
    /// Its answer.
    pub answer: Result<Answered<D>, String>,
}

impl<D> Shown<D> {
    /// Not a first answer from the trace's first lines.
    pub fn whole(&self) -> bool {
        !matches!(&self.answer, Ok((text, ..)) if text.prefix.is_some())
    }
}

/// Answers kept, the latest last (a report chosen again shows at once).
pub const KEPT: usize = 16;

/// The tab's state (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct StatisticsTab<D> {
    /// The kind chosen.
    pub kind: StatisticKind,
    /// The functions' switch.
    pub exceptions_in_calls: bool,
    /// The graph's function as typed.
    pub function: String,
    /// Reports asked for and not answered yet.
    pub asking: Vec<Report>,
    /// Answers kept, the latest last, one per report.
    pub answers: Vec<Shown<D>>,
    asks: Vec<StatisticAsk>,
}

impl<D> Default for StatisticsTab<D> {
    /// The instruction mix, asked for.
    fn default() -> Self {
        let mut tab = StatisticsTab {
            kind: StatisticKind::Mix,
            exceptions_in_calls: true,
            function: String::new(),
            asking: Vec::new(),
            answers: Vec::new(),
            asks: Vec::new(),
        };
        tab.ask();
        tab
    }
}

impl<D> StatisticsTab<D> {
    /// The questions to ask now.
    pub fn take_asks(&mut self) -> Vec<StatisticAsk> {
        std::mem::take(&mut self.asks)
    }

    /// The report the tab's choices name (`None`: a graph with no
    /// function typed).
    pub fn wanted(&self) -> Option<Report> {
        self.kind.report(self.exceptions_in_calls, &self.function)
    }

    /// The answer kept for the report chosen.
    pub fn shown(&self) -> Option<&Shown<D>> {
        let wanted = self.wanted()?;
        self.answers.iter().rev().find(|s| s.report == wanted)
    }

    /// Applies `msg`; `false` when nothing shown changes.
    pub fn update(&mut self, msg: StatisticsMsg<D>) -> bool {
        match msg {
            StatisticsMsg::Kind(kind) => {
                self.kind = kind;
                self.ask();
            }
            StatisticsMsg::ExceptionsInCalls(on) => {
                self.exceptions_in_calls = on;
                self.ask();
            }
            StatisticsMsg::Function(f) => {
                self.function = f;
                return false;
            }
            StatisticsMsg::ShowGraph => self.ask(),
            StatisticsMsg::Answer {
                report,
                reply,
                download,
            } => self.answer(report, reply, download),
        }
        true
    }

    /// Asks for the report chosen unless it is asked for or its whole
    /// answer is here.
    fn ask(&mut self) {
        let Some(report) = self.wanted() else {
            return;
        };
        if self.asking.contains(&report)
            || self.answers.iter().any(|s| s.report == report && s.whole())
        {
            return;
        }
        self.send(report);
    }

    fn send(&mut self, report: Report) {
        self.asking.push(report.clone());
        // Every other report a kind button shows, for their first answers.
        let mut also: Vec<Report> = Vec::new();
        for kind in StatisticKind::ALL {
            for in_calls in [true, false] {
                if let Some(r) = kind.report(in_calls, "") {
                    if r != report && !also.contains(&r) {
                        also.push(r);
                    }
                }
            }
        }
        self.asks.push(StatisticAsk { report, also });
    }

    fn answer(
        &mut self,
        report: Report,
        reply: Result<Box<StatisticText>, String>,
        download: Option<Result<D, String>>,
    ) {
        self.asking.retain(|r| *r != report);
        // A first answer from the trace's first lines: the whole trace's
        // comes when asked again (the worker counts it right after); the
        // other reports' first answers came with it.
        if let Ok(StatisticText {
            prefix: Some(prefix),
            also,
            ..
        }) = reply.as_deref()
        {
            for (other, text) in also {
                let text = StatisticText {
                    text: text.clone(),
                    cfg: None,
                    names: Vec::new(),
                    prefix: Some(*prefix),
                    also: Vec::new(),
                };
                self.keep(Shown {
                    report: other.clone(),
                    answer: Ok((text, None, None)),
                });
            }
            self.send(report.clone());
        }
        let answer = reply.and_then(|text| {
            let mut text = *text;
            text.also = Vec::new();
            let download = match (text.prefix, download) {
                (None, Some(d)) => Some(Rc::new(d?)),
                _ => None,
            };
            let name = |a: u64| {
                text.names
                    .iter()
                    .find(|(at, _)| *at == a)
                    .map_or(String::new(), |(_, n)| n.clone())
            };
            let graph = text.cfg.as_ref().map(|cfg| picture(cfg, &name));
            Ok((text, download, graph))
        });
        self.keep(Shown { report, answer });
        // A first answer shown for the report now chosen: its whole
        // trace's is asked for too.
        self.ask();
    }

    /// Keeps `shown` as its report's answer, unless that is whole and
    /// `shown` is not.
    fn keep(&mut self, shown: Shown<D>) {
        if let Some(i) = self.answers.iter().position(|s| s.report == shown.report) {
            if self.answers[i].whole() && !shown.whole() {
                return;
            }
            self.answers.remove(i);
        }
        if self.answers.len() == KEPT {
            self.answers.remove(0);
        }
        self.answers.push(shown);
    }
}
