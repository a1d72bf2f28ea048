//! The report worker's side of `report_protocol`: computes the reports of
//! the page's `File` in one engine pass (this worker does nothing else, so
//! the pass may run to the end in one task; questions wait in the queue),
//! then answers questions about them.

use std::cell::{Cell, RefCell};
use std::io::Write;

use wasm_bindgen::JsCast;

use super::blob_source::BlobSource;
use super::protocol::ToPage;
use super::report_protocol::{
    ReportEvent, ReportPass, ReportQuery, ReportReply, ReportRequest, TEXT_CHUNK,
};
use super::timing::now;
use super::worker::post;
use crate::engine::EngineOptions;
use crate::parse::ParseOptions;
use crate::report::explore::{Progressed, Reports, TextKind};
use crate::source::TraceSource;
use crate::symbols::SymbolTable;

struct Computed {
    reports: Reports,
    file: web_sys::File,
}

thread_local! {
    static COMPUTED: RefCell<Option<Computed>> = const { RefCell::new(None) };
}

/// Gap between progress messages.
const PROGRESS_MS: f64 = 50.0;

fn send(event: ReportEvent) {
    post(&ToPage::Report(event));
}

pub fn handle(request: ReportRequest) {
    match request {
        ReportRequest::Start {
            file,
            elf,
            load_offset,
            options,
        } => start(
            file,
            elf.dyn_into::<web_sys::File>().ok(),
            load_offset,
            options,
        ),
        ReportRequest::Ask { id, query } => ask(id, query),
    }
}

/// A source over `file` that posts progress of `pass`.
fn progressed(
    file: &web_sys::File,
    pass: ReportPass,
) -> Result<impl TraceSource, crate::source::SourceError> {
    let last = Cell::new(f64::NEG_INFINITY);
    Ok(Progressed {
        inner: BlobSource::new(file.clone().into())?,
        on_read: move |done: u64, total: u64| {
            let t = now();
            if t - last.get() >= PROGRESS_MS || done == total {
                last.set(t);
                send(ReportEvent::Progress { pass, done, total });
            }
        },
    })
}

fn read_elf(
    elf: &web_sys::File,
    load_offset: i64,
    big_endian: bool,
) -> Result<SymbolTable, String> {
    let mut src = BlobSource::new(elf.clone().into()).map_err(|e| e.0)?;
    let mut bytes = vec![0u8; src.len() as usize];
    src.read_at(0, &mut bytes).map_err(|e| e.0)?;
    let table = SymbolTable::from_elf_bytes(&bytes, load_offset)?;
    table.check_endianness(big_endian)?;
    Ok(table)
}

fn start(
    file: web_sys::File,
    elf: Option<web_sys::File>,
    load_offset: i64,
    options: super::protocol::OpenOptions,
) {
    let image = match elf.map(|e| {
        read_elf(&e, load_offset, options.big_endian).map_err(|m| format!("{}: {m}", e.name()))
    }) {
        Some(Err(e)) => {
            send(ReportEvent::ElfIgnored(e));
            None
        }
        Some(Ok(t)) => Some(t),
        None => None,
    };
    let parse = ParseOptions {
        implicit_thumb: options.implicit_thumb,
        big_endian: options.big_endian,
        dialect: None,
        // A multi-core trace's reports are the followed core's.
        cpu: options.cpu,
    };
    let engine = EngineOptions {
        big_endian: options.big_endian,
        debug_calls: false,
        cpu: options.cpu,
    };
    let started = now();
    let computed = progressed(&file, ReportPass::Calls)
        .and_then(|source| Reports::compute(source, parse, engine, image));
    super::timing::measure("reports", started);
    match computed {
        Ok(reports) => {
            send(ReportEvent::Ready(reports.summary()));
            COMPUTED.with(|c| *c.borrow_mut() = Some(Computed { reports, file }));
        }
        Err(e) => send(ReportEvent::Failed(e.0)),
    }
}

fn ask(id: u32, query: ReportQuery) {
    let reply = COMPUTED.with(|c| {
        let c = c.borrow();
        let Some(c) = c.as_ref() else {
            return ReportReply::Error("the reports are not computed".into());
        };
        let r = &c.reports;
        match query {
            ReportQuery::Tree {
                parent,
                offset,
                limit,
            } => r
                .tree(parent.as_deref(), offset, limit as usize)
                .map_or_else(
                    || ReportReply::Error("no such call".into()),
                    ReportReply::Tree,
                ),
            ReportQuery::Profile {
                sort,
                descending,
                offset,
                limit,
            } => ReportReply::Profile(r.profile(sort, descending, offset, limit as usize)),
            ReportQuery::Flame { root } => r.flame(root).map_or_else(
                || ReportReply::Error("no such frame".into()),
                ReportReply::Flame,
            ),
            ReportQuery::PathAt { node } => ReportReply::Path(r.path_at(node)),
            ReportQuery::Text(kind) => text(id, c, kind),
        }
    });
    send(ReportEvent::Answer { id, reply });
}

/// Posts the text in chunks as it is written, so a VCD of any size never
/// sits whole in this worker either.
struct Chunks {
    id: u32,
    buf: Vec<u8>,
    bytes: u64,
}

impl Chunks {
    fn flush_upto(&mut self, keep_partial: bool) {
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
    };
    let written = match c.reports.text(kind) {
        Some(text) => {
            for piece in text.as_bytes().chunks(TEXT_CHUNK) {
                let _ = out.write(piece);
            }
            Ok(())
        }
        None => c
            .reports
            .write_vcd(|| progressed(&c.file, ReportPass::Vcd), &mut out),
    };
    out.flush_upto(false);
    match written {
        Ok(()) => ReportReply::TextDone { bytes: out.bytes },
        Err(e) => ReportReply::Error(e),
    }
}
