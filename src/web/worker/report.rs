//! The report worker's side of `report_protocol`: computes the reports of
//! the page's trace (a `Blob` or a range-serving URL) in one engine pass
//! (this worker does nothing else, so the pass may run to the end in one
//! task; questions wait in the queue), then answers questions about them.

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::JsValue;

use super::runtime::post;
use crate::web::reading::blob_source::BlobSource;
use crate::web::reading::compressed::decompressed;
use crate::web::reading::http_source::{self, Fetched, HttpSource, Target};
use crate::web::shared::protocol::ToPage;
use crate::web::shared::report_protocol::{
    PrefixCounted, ReportEvent, ReportFile, ReportPass, ReportQuery, ReportReply, ReportRequest,
    ReportStatus, Statistic, StatisticText, TextDone, TEXT_CHUNK,
};
use crate::web::shared::timing::now;
use tarmac_lens_core::{
    compressed::Table,
    coverage::{count_trace, Coverage, CoverageTable, Image},
    report::stats::{Report, Statistics},
    report::{report_kind, EpReports, FlowReports, Progressed, ReportKind, Reports, TextKind},
    EngineOptions, Error, ParseOptions, Prefix, SymbolTable, TraceSource, UNKNOWN_LEN,
};

/// The trace, to read again (a VCD, the program flow's text).
#[derive(Clone)]
enum Input {
    Blob(web_sys::Blob, Rc<RefCell<Option<Table>>>),
    Http(HttpSource, Rc<RefCell<Option<Table>>>),
}

impl Input {
    /// The trace's text: a gzip or Zstandard file is read decompressed
    /// (its checkpoints found by the first pass kept for the next).
    fn source(&self) -> Result<Box<dyn TraceSource>, Error> {
        let (raw, table): (Box<dyn TraceSource>, _) = match self {
            Input::Blob(blob, t) => (Box::new(BlobSource::new(blob.clone())?), t),
            Input::Http(http, t) => (Box::new(http.clone()), t),
        };
        decompressed(raw, table)
    }
}

/// The ELF image as read, for the coverage.
#[derive(Clone)]
struct Elf {
    name: String,
    bytes: Arc<[u8]>,
    load_offset: i64,
}

/// The reports that suit the trace (`report::kind`).
enum Computed {
    Calls {
        reports: Box<Reports>,
        input: Input,
        elf: Option<Elf>,
        parse: ParseOptions,
        engine: EngineOptions,
        /// The trace's name, for the exports.
        name: String,
        /// How much of a long trace a statistic's first answer counts.
        statistics_prefix: u64,
    },
    Ep(EpReports),
    Flow {
        reports: FlowReports,
        input: Input,
    },
}

thread_local! {
    static COMPUTED: RefCell<Option<Computed>> = const { RefCell::new(None) };
    /// The coverage, once asked for.
    static COVERAGE: RefCell<Option<CoverageTable>> = const { RefCell::new(None) };
    /// The statistics' pass, once a report of theirs is asked for.
    static STATISTICS: RefCell<Option<Rc<Statistics>>> = const { RefCell::new(None) };
    /// The whole trace's statistics pass has begun (after a first answer
    /// from a prefix): asked again, the statistics are not counted from a
    /// prefix again.
    static WHOLE_STATISTICS: Cell<bool> = const { Cell::new(false) };
}

/// Gap between progress messages.
const PROGRESS_MS: f64 = 50.0;

fn send(event: ReportEvent) {
    post(&ToPage::Report(event));
}

pub fn handle(request: ReportRequest) {
    match request {
        ReportRequest::Start {
            trace,
            elf,
            load_offset,
            options,
        } => wasm_bindgen_futures::spawn_local(async move {
            let name = trace.name().to_string();
            match open(&trace).await {
                Ok(input) => start(input, name, elf, load_offset, options),
                Err(e) => send(ReportEvent::Status(ReportStatus::Failed(e))),
            }
        }),
        ReportRequest::Ask { id, query } => ask(id, query),
    }
}

/// The trace to read: a range-serving URL is asked for its length (one
/// byte); a server that sends the whole file instead is read from that
/// download.
async fn open(trace: &ReportFile) -> Result<Input, String> {
    match trace {
        ReportFile::Blob { blob, .. } => Ok(Input::Blob(blob.clone(), Rc::default())),
        ReportFile::Url {
            url, cross_origin, ..
        } => {
            let target = Target {
                url: url.clone(),
                cross_origin: *cross_origin,
            };
            match http_source::fetch(&target, |_, _| {}).await? {
                Fetched::Ranges(http) => Ok(Input::Http(http, Rc::default())),
                Fetched::Whole(blob) => Ok(Input::Blob(blob, Rc::default())),
            }
        }
    }
}

/// A source over `input` that posts progress of `pass`.
fn progressed(input: &Input, pass: ReportPass) -> Result<impl TraceSource, Error> {
    Ok(progress(input.source()?, pass))
}

/// `inner`, posting progress of `pass`.
fn progress<S: TraceSource>(inner: S, pass: ReportPass) -> impl TraceSource {
    let last = Cell::new(f64::NEG_INFINITY);
    Progressed {
        inner,
        on_read: move |done: u64, total: u64| {
            let t = now();
            if t - last.get() >= PROGRESS_MS || done == total {
                last.set(t);
                send(ReportEvent::Status(ReportStatus::Progress {
                    pass,
                    done,
                    total,
                }));
            }
        },
    }
}

fn read_elf(
    elf: &ReportFile,
    load_offset: i64,
    big_endian: bool,
) -> Result<(SymbolTable, Elf), String> {
    let bytes = match elf {
        ReportFile::Blob { blob, .. } => {
            BlobSource::read_whole(blob.clone()).map_err(|e| e.to_string())?
        }
        ReportFile::Url {
            url, cross_origin, ..
        } => http_source::get_all(&Target {
            url: url.clone(),
            cross_origin: *cross_origin,
        })?,
    };
    let table = SymbolTable::from_elf_bytes(&bytes, load_offset).map_err(|e| e.to_string())?;
    table
        .check_endianness(big_endian)
        .map_err(|e| e.to_string())?;
    let elf = Elf {
        name: elf.name().to_string(),
        bytes: Arc::from(bytes),
        load_offset,
    };
    Ok((table, elf))
}

fn start(
    input: Input,
    name: String,
    elf: Option<ReportFile>,
    load_offset: i64,
    options: crate::web::shared::protocol::OpenOptions,
) {
    COVERAGE.with(|c| c.borrow_mut().take());
    STATISTICS.with(|c| c.borrow_mut().take());
    WHOLE_STATISTICS.with(|w| w.set(false));
    let statistics_prefix = options
        .statistics_prefix
        .unwrap_or(crate::web::shared::open_options::STATISTICS_PREFIX);
    let (image, elf) = match elf.map(|e| {
        read_elf(&e, load_offset, options.big_endian).map_err(|m| format!("{}: {m}", e.name()))
    }) {
        Some(Err(e)) => {
            send(ReportEvent::Status(ReportStatus::ElfIgnored(e)));
            (None, None)
        }
        Some(Ok((t, elf))) => (Some(t), Some(elf)),
        None => (None, None),
    };
    let parse = ParseOptions {
        implicit_thumb: options.implicit_thumb,
        big_endian: options.big_endian,
        dialect: None,
        // A multi-core trace's reports are the followed core's.
        cpu: options.cpu,
        instruction_form: None,
    };
    let engine = EngineOptions {
        big_endian: options.big_endian,
        debug_calls: false,
        cpu: options.cpu,
    };
    let started = now();
    let kind = input
        .source()
        .and_then(|mut s| tarmac_lens_core::read_sample(&mut s))
        .map(|sample| report_kind(&sample, parse));
    let computed = kind.and_then(|kind| match kind {
        ReportKind::Calls => progressed(&input, ReportPass::Calls)
            .and_then(|source| Reports::compute(source, parse, engine, image))
            .map(|reports| {
                send(ReportEvent::Status(ReportStatus::Ready(reports.summary())));
                Computed::Calls {
                    reports: Box::new(reports),
                    input: input.clone(),
                    elf,
                    parse,
                    engine,
                    name,
                    statistics_prefix,
                }
            }),
        ReportKind::Ep => progressed(&input, ReportPass::Records)
            .and_then(|source| EpReports::compute(source, parse))
            .map(|reports| {
                send(ReportEvent::Status(ReportStatus::ReadyEp(
                    reports.summary(),
                )));
                Computed::Ep(reports)
            }),
        ReportKind::Flow => progressed(&input, ReportPass::Records)
            .and_then(|source| FlowReports::compute(source, parse, image))
            .map(|reports| {
                send(ReportEvent::Status(ReportStatus::ReadyFlow(
                    reports.summary(),
                )));
                Computed::Flow {
                    reports,
                    input: input.clone(),
                }
            }),
    });
    crate::web::shared::timing::measure("reports", started);
    match computed {
        Ok(c) => COMPUTED.with(|cell| *cell.borrow_mut() = Some(c)),
        Err(e) => send(ReportEvent::Status(ReportStatus::Failed(e.to_string()))),
    }
}

fn ask(id: u32, query: ReportQuery) {
    let reply = COMPUTED.with(|c| {
        let c = c.borrow();
        let Some(c) = c.as_ref() else {
            return ReportReply::Error("the reports are not computed".into());
        };
        if let ReportQuery::Text(kind) = query {
            return text(id, c, kind);
        }
        if let (
            ReportQuery::Coverage(_),
            Computed::Calls {
                input, elf, parse, ..
            },
        ) = (&query, c)
        {
            return coverage(input, elf.as_ref(), *parse);
        }
        if let (
            ReportQuery::Statistic(q),
            Computed::Calls {
                input,
                elf,
                parse,
                engine,
                statistics_prefix,
                ..
            },
        ) = (&query, c)
        {
            let how = StatisticsPass {
                input: input.clone(),
                elf: elf.clone(),
                parse: *parse,
                engine: *engine,
            };
            return statistic(how, *statistics_prefix, q);
        }
        match c {
            Computed::Calls { reports, .. } => ask_calls(reports, query),
            Computed::Ep(r) => match query {
                ReportQuery::EpByPc(q) => {
                    ReportReply::EpByPc(r.by_pc(q.sort, q.descending, q.offset, q.limit as usize))
                }
                ReportQuery::EpFlow(q) => ReportReply::EpFlow(r.flow(q.offset, q.limit as usize)),
                _ => not_this_trace(),
            },
            Computed::Flow { reports, .. } => match query {
                ReportQuery::FlowBlocks(q) => {
                    ReportReply::FlowBlocks(reports.blocks(q.offset, q.limit as usize))
                }
                _ => not_this_trace(),
            },
        }
    });
    send(ReportEvent::Answer { id, reply });
}

/// The image's coverage by the trace: a parse-only pass over it the first
/// time (as `tarmac-lens coverage` makes), kept for the next asks.
fn coverage(input: &Input, elf: Option<&Elf>, parse: ParseOptions) -> ReportReply {
    if let Some(table) = COVERAGE.with(|c| c.borrow().clone()) {
        return ReportReply::Coverage(table);
    }
    let Some(elf) = elf else {
        return ReportReply::Error(
            "Coverage is of a program: load its ELF image (ELF image… above).".into(),
        );
    };
    let started = now();
    let table =
        Image::from_elf_bytes(&elf.name, elf.bytes.clone(), elf.load_offset).and_then(|image| {
            let counts = count_trace(progressed(input, ReportPass::Coverage)?, parse)?;
            let mut cov = Coverage::new(&image)?;
            cov.add_trace(0, "trace", &counts, &image)?;
            Ok(cov.table())
        });
    crate::web::shared::timing::measure("coverage", started);
    match table {
        Ok(table) => {
            COVERAGE.with(|c| *c.borrow_mut() = Some(table.clone()));
            ReportReply::Coverage(table)
        }
        Err(e) => ReportReply::Error(e.to_string()),
    }
}

/// What the statistics' pass reads, and how.
#[derive(Clone)]
struct StatisticsPass {
    input: Input,
    elf: Option<Elf>,
    parse: ParseOptions,
    engine: EngineOptions,
}

impl StatisticsPass {
    fn run(&self, source: impl TraceSource) -> Result<Statistics, Error> {
        let image = self
            .elf
            .as_ref()
            .map(|elf| SymbolTable::from_elf_bytes(&elf.bytes, elf.load_offset))
            .transpose()?;
        let started = now();
        let stats = Statistics::compute(
            progress(source, ReportPass::Statistics),
            self.parse,
            self.engine,
            image,
        );
        crate::web::shared::timing::measure("statistics", started);
        stats
    }

    /// The whole trace's statistics, kept for the next asks.
    fn whole(&self) -> Result<Rc<Statistics>, Error> {
        let stats = Rc::new(self.run(self.input.source()?)?);
        STATISTICS.with(|c| *c.borrow_mut() = Some(stats.clone()));
        Ok(stats)
    }

    /// The trace's first `bytes` (whole lines) when it is longer than twice
    /// that.
    fn prefix(&self, bytes: u64) -> Result<Option<Prefix<Box<dyn TraceSource>>>, Error> {
        let source = self.input.source()?;
        let len = source.len();
        if bytes == 0 || len == UNKNOWN_LEN || len / 2 <= bytes {
            return Ok(None);
        }
        Prefix::new(source, bytes)
    }
}

/// A statistics report: their pass over the trace the first time (as the
/// CLI's `mix`, `levels`, … make it), kept for the next asks. On a trace
/// longer than twice `prefix` bytes, the first answer counts its first
/// `prefix` bytes and says so, and the whole trace's pass runs right after
/// it (before the next question is read): the page asks again for that,
/// and shows the other reports' first answers (`also`) meanwhile.
fn statistic(how: StatisticsPass, prefix: u64, asked: &Statistic) -> ReportReply {
    let report = &asked.report;
    if let Some(stats) = STATISTICS.with(|c| c.borrow().clone()) {
        return statistic_text(&stats, report, None);
    }
    if !WHOLE_STATISTICS.with(|w| w.replace(true)) {
        let first = how.prefix(prefix).and_then(|source| {
            let Some(source) = source else {
                return Ok(None);
            };
            let bytes = source.len();
            let of = how.input.source()?.len();
            let stats = how.run(source)?;
            let counted = PrefixCounted {
                bytes,
                of,
                instructions: stats.instructions(),
            };
            let mut reply = statistic_text(&stats, report, Some(counted));
            if let ReportReply::Statistic(text) = &mut reply {
                text.also = asked
                    .also
                    .iter()
                    .filter_map(|r| Some((r.clone(), stats.text(r).ok()?)))
                    .collect();
            }
            Ok(Some(reply))
        });
        match first {
            Ok(Some(reply)) => {
                // Runs once this answer is posted, before the next message.
                wasm_bindgen_futures::spawn_local(async move {
                    // A failure is told when the page asks again.
                    let _ = how.whole();
                });
                return reply;
            }
            Ok(None) => {}
            Err(e) => return ReportReply::Error(e.to_string()),
        }
    }
    match how.whole() {
        Ok(stats) => statistic_text(&stats, report, None),
        Err(e) => ReportReply::Error(e.to_string()),
    }
}

/// `report`'s answer from `stats` (`model::statistics_tab`).
fn statistic_text(
    stats: &Statistics,
    report: &Report,
    prefix: Option<PrefixCounted>,
) -> ReportReply {
    StatisticText::of(stats, report, prefix).map_or_else(ReportReply::Error, ReportReply::Statistic)
}

fn not_this_trace() -> ReportReply {
    ReportReply::Error("this report is not one of this trace's".into())
}

fn ask_calls(r: &Reports, query: ReportQuery) -> ReportReply {
    match query {
        ReportQuery::Tree(q) => r
            .tree(q.parent.as_deref(), q.offset, q.limit as usize)
            .map_or_else(
                || ReportReply::Error("no such call".into()),
                ReportReply::Tree,
            ),
        ReportQuery::Profile(q) => {
            ReportReply::Profile(r.profile(q.sort, q.descending, q.offset, q.limit as usize))
        }
        ReportQuery::Flame(q) => r.flame(q.root).map_or_else(
            || ReportReply::Error("no such frame".into()),
            ReportReply::Flame,
        ),
        ReportQuery::PathAt(q) => ReportReply::PathAt(r.path_at(q.node)),
        ReportQuery::Calls(q) => ReportReply::Calls(r.calls_of(q.addr, q.offset, q.limit as usize)),
        _ => not_this_trace(),
    }
}

/// Posts the text in chunks as it is written, so a VCD of any size never
/// sits whole in this worker either. A binary export's chunks go as
/// `[id, Uint8Array]` messages of their own, their buffers transferred
/// (`report_protocol`'s JSON text carries no bytes).
struct Chunks {
    id: u32,
    buf: Vec<u8>,
    bytes: u64,
    binary: bool,
}

impl Chunks {
    fn flush_upto(&mut self, keep_partial: bool) {
        if self.binary {
            if self.buf.is_empty() {
                return;
            }
            let chunk = js_sys::Uint8Array::from(&self.buf[..]);
            self.bytes += self.buf.len() as u64;
            self.buf.clear();
            let message = js_sys::Array::of2(&JsValue::from(self.id), &chunk);
            let transfer = js_sys::Array::of1(&chunk.buffer());
            if let Err(e) = super::runtime::scope().post_message_with_transfer(&message, &transfer)
            {
                web_sys::console::error_2(&"tarmac-lens worker: postMessage failed".into(), &e);
            }
            return;
        }
        // A chunk ends on a character boundary: each is a JS string.
        let valid = match std::str::from_utf8(&self.buf) {
            Ok(s) => s.len(),
            Err(e) if keep_partial => e.valid_up_to(),
            Err(_) => self.buf.len(),
        };
        if valid == 0 {
            return;
        }
        let chunk = String::from_utf8_lossy(&self.buf[..valid]).into_owned();
        self.bytes += valid as u64;
        self.buf.drain(..valid);
        send(ReportEvent::Text { id: self.id, chunk });
    }
}

impl Write for Chunks {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= TEXT_CHUNK {
            self.flush_upto(true);
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn text(id: u32, c: &Computed, kind: TextKind) -> ReportReply {
    let mut out = Chunks {
        id,
        buf: Vec::new(),
        bytes: 0,
        binary: kind.is_binary(),
    };
    let whole = |text: String, out: &mut Chunks| {
        for piece in text.as_bytes().chunks(TEXT_CHUNK) {
            let _ = out.write(piece);
        }
        Ok(())
    };
    let written = match (c, kind) {
        (
            Computed::Calls {
                reports,
                input,
                name,
                ..
            },
            _,
        ) => match reports.text(kind) {
            Some(text) => whole(text, &mut out),
            None if kind.is_export() => input
                .source()
                .and_then(|source| reports.write_export(kind, name, source, &mut out))
                .map_err(|e| e.to_string()),
            None if kind == TextKind::Vcd => reports
                .write_vcd(|| progressed(input, ReportPass::Vcd), &mut out)
                .map_err(|e| e.to_string()),
            None => return not_this_trace(),
        },
        (Computed::Ep(r), TextKind::EpProfile) => whole(r.text(), &mut out),
        (Computed::Flow { reports, input }, TextKind::Flow) => input
            .source()
            .map_err(|e| e.to_string())
            .and_then(|source| {
                reports
                    .write_text(source, &mut out)
                    .map_err(|e| e.to_string())
            }),
        _ => return not_this_trace(),
    };
    out.flush_upto(false);
    match written {
        Ok(()) => ReportReply::Text(TextDone { bytes: out.bytes }),
        Err(e) => ReportReply::Error(e),
    }
}
