//! `tarmac_lens.open` and the `Trace` it gives: the browse session's
//! questions (registers, memory, rows, call stack, conditions, watches,
//! "why?"), the CLI's reports, and the trace tables (`tables.rs`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::{PyFileNotFoundError, PyIsADirectoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde::Serialize;
use tarmac_lens_core::{
    protocol::{
        AccessKind, Accesses, CallStack, Locate, Memory, NodeView, Row, Rows, WhyQuery, WriteTarget,
    },
    read_sample, report,
    report::{calltree, names, profile},
    Condition, CpuName, DebugInfo, EngineOptions, ExprContext, Index, IndexSummary,
    InstructionSets, ParseOptions, Session, SymbolTable, TraceSource,
};

use crate::errors::{core, error, with_attrs, ConditionError, Error, ImageError, NotATraceError};
use crate::indexing::{self, IndexFile};
use crate::source::{storage_of, Opener, Source, Storage};

/// An ELF image given to `open`.
pub struct Image {
    pub path: PathBuf,
    pub bytes: Arc<[u8]>,
    pub load_offset: i64,
}

impl Image {
    /// Its symbols (already checked when the trace was opened).
    pub fn symbols(&self) -> tarmac_lens_core::Result<SymbolTable> {
        SymbolTable::from_elf_bytes(&self.bytes, self.load_offset)
    }

    /// Its DWARF, if it has any.
    pub fn dwarf(&self) -> tarmac_lens_core::Result<Option<DebugInfo>> {
        DebugInfo::from_elf_bytes(self.bytes.clone(), self.load_offset)
    }
}

/// What a `Trace` holds, behind one lock (a session answers one question
/// at a time).
pub struct Inner {
    pub session: Session<Source>,
    pub opener: Opener,
    pub parse: ParseOptions,
    pub image: Option<Image>,
    pub symbols: Option<SymbolTable>,
    /// The index as its file holds it, until the tables first need their
    /// own copy of it (the session owns the other).
    pub index_bytes: Option<Vec<u8>>,
    /// The index's second copy, once made from `index_bytes`.
    pub index: Option<Arc<Index>>,
    /// The trace as the tables read it, once made.
    pub tables: Option<Arc<tarmac_lens_sql::Trace>>,
}

/// An open, indexed Tarmac trace.
///
/// Made by :func:`tarmac_lens.open`. Lines are numbered from 1, as in the
/// trace file; a position is the instruction holding the line with its
/// register and memory lines (a *node*), and "at a line" means after that
/// node's lines.
#[pyclass(module = "tarmac_lens", frozen)]
pub struct Trace {
    /// Boxed: the session holds types aligned more strictly than the
    /// 16 bytes a Python object's memory is.
    pub(crate) inner: Mutex<Box<Inner>>,
    pub(crate) summary: IndexSummary,
    pub(crate) path: PathBuf,
    pub(crate) reused: bool,
}

/// A profile: the CLI's text and its rows.
#[pyclass(module = "tarmac_lens", frozen, get_all)]
pub struct Profile {
    /// `tarmac-lens profile`'s output, byte for byte.
    pub text: String,
    /// One dict per function: `address`, `name`, `calls`, `time`.
    pub functions: Py<PyList>,
}

#[pymethods]
impl Profile {
    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<Profile of {} functions>", self.functions.bind(py).len())
    }
}

/// Symbol names in conditions, from the image.
struct Names<'a>(Option<&'a SymbolTable>);

impl ExprContext for Names<'_> {
    fn register(&self, _: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.0?.address_of(name)
    }
}

/// A value as Python objects, through JSON (u64s stay exact ints).
fn to_py<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let json = py.import("json")?;
    Ok(json.call_method1("loads", (text,))?.unbind())
}

fn parse_kind(kind: &str) -> PyResult<AccessKind> {
    Ok(match kind {
        "r" | "read" => AccessKind::Read,
        "w" | "write" => AccessKind::Write,
        "rw" | "any" => AccessKind::Any,
        other => {
            return Err(PyValueError::new_err(format!(
                "kind '{other}': 'r', 'w' or 'rw'"
            )))
        }
    })
}

fn target(register: Option<String>, address: Option<u64>, size: u64) -> PyResult<WriteTarget> {
    match (register, address) {
        (Some(r), None) => Ok(WriteTarget::Register(r.to_ascii_lowercase())),
        (None, Some(addr)) if (1..=4096).contains(&size) => {
            Ok(WriteTarget::Memory { addr, len: size })
        }
        (None, Some(_)) => Err(PyValueError::new_err("size must be 1 to 4096 bytes")),
        _ => Err(PyValueError::new_err(
            "give a register, or an address (and a size)",
        )),
    }
}

impl Inner {
    fn ask<Q: tarmac_lens_core::protocol::Answerable>(
        &mut self,
        py: Python<'_>,
        q: Q,
    ) -> PyResult<Q::Answer> {
        self.session.ask(q).map_err(|e| core(py, e))
    }

    /// The node holding 1-based `line`.
    pub fn node_view_at(&mut self, py: Python<'_>, line: u64) -> PyResult<NodeView> {
        self.node_at(py, line)
    }

    fn node_at(&mut self, py: Python<'_>, line: u64) -> PyResult<NodeView> {
        self.check_line(py, line)?;
        match self.ask(py, Locate::Line(line))? {
            Some(v) => Ok(v),
            None => Err(error::<Error>(py, format!("the trace has no line {line}"))),
        }
    }

    /// A line of the trace, or the error saying which lines it has.
    fn check_line(&self, py: Python<'_>, line: u64) -> PyResult<()> {
        let lines = self.session.progress().lines;
        if line == 0 || line > lines {
            return Err(error::<Error>(
                py,
                format!("the trace has no line {line} (it has lines 1 to {lines})"),
            ));
        }
        Ok(())
    }

    fn view_of(&mut self, py: Python<'_>, node: u64) -> PyResult<NodeView> {
        self.ask(py, Locate::Node(node))?
            .ok_or_else(|| error::<Error>(py, format!("no node {node}")))
    }

    /// The index's second copy (conditions and tables read it; the
    /// session owns the first).
    pub fn index(&mut self, py: Python<'_>) -> PyResult<Arc<Index>> {
        if let Some(i) = &self.index {
            return Ok(i.clone());
        }
        let bytes = self.index_bytes.take().unwrap_or_default();
        let index = Arc::new(
            Index::from_bytes(&bytes)
                .map(|(i, _)| i)
                .map_err(|e| core(py, e))?,
        );
        self.index = Some(index.clone());
        Ok(index)
    }

    fn engine_options(&self) -> EngineOptions {
        EngineOptions {
            big_endian: self.parse.big_endian,
            cpu: self.parse.cpu,
            ..EngineOptions::default()
        }
    }
}

impl Trace {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Box<Inner>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The calls of the whole trace, as the CLI's reports take them (a pass
/// of their own over the trace, without the interpreter).
fn analyse(
    py: Python<'_>,
    opener: &Opener,
    parse: ParseOptions,
    engine: EngineOptions,
) -> PyResult<report::CallAnalysis> {
    py.detach(|| {
        let mut source = opener.open()?;
        tarmac_lens_core::check_single_core(&mut source, parse)?;
        report::analyse_calls(source, parse, engine)
    })
    .map_err(|e| error::<Error>(py, format!("{}: {e}", opener.path.display())))
}

#[pymethods]
impl Trace {
    fn __repr__(&self) -> String {
        format!(
            "<tarmac_lens.Trace {} ({} lines, {} instructions)>",
            self.path.display(),
            self.summary.lines,
            self.summary.instructions
        )
    }

    /// The trace file's path.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Lines in the trace.
    #[getter]
    fn lines(&self) -> u64 {
        self.summary.lines
    }

    /// Instructions in the trace.
    #[getter]
    fn instructions(&self) -> u64 {
        self.summary.instructions
    }

    /// Bytes of trace text (decompressed, for a packed trace).
    #[getter]
    fn size(&self) -> u64 {
        self.summary.bytes
    }

    /// Calls the index found.
    #[getter]
    fn calls(&self) -> u64 {
        self.summary.calls
    }

    /// Whether the index came from the index file beside the trace.
    #[getter]
    fn index_reused(&self) -> bool {
        self.reused
    }

    /// The core registers after the node holding ``line``: a dict from
    /// lower-case name to hex text, most significant digit first, ``?``
    /// for digits not known there; in display order.
    fn registers_at<'py>(&self, py: Python<'py>, line: u64) -> PyResult<Bound<'py, PyDict>> {
        let mut inner = self.lock();
        inner.check_line(py, line)?;
        let Some((_, reply)) = inner
            .session
            .registers_at_line(line)
            .map_err(|e| core(py, e))?
        else {
            return Err(error::<Error>(py, format!("the trace has no line {line}")));
        };
        let out = PyDict::new(py);
        for cell in reply
            .panels
            .iter()
            .filter(|p| p.kind == "core")
            .flat_map(|p| &p.cells)
        {
            out.set_item(&cell.name, &cell.text)?;
        }
        Ok(out)
    }

    /// Memory after the node holding ``line``: a dict with ``address``,
    /// ``bytes`` (``size`` of them, at most 4096; an unknown byte reads 0)
    /// and ``known`` (a bool per byte).
    fn memory_at<'py>(
        &self,
        py: Python<'py>,
        line: u64,
        address: u64,
        size: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        if !(1..=4096).contains(&size) {
            return Err(PyValueError::new_err("size must be 1 to 4096 bytes"));
        }
        let mut inner = self.lock();
        let node = inner.node_at(py, line)?.node;
        let m = inner.ask(
            py,
            Memory {
                node,
                addr: address,
                len: size,
                compare: None,
            },
        )?;
        let out = PyDict::new(py);
        out.set_item("address", m.addr)?;
        out.set_item("bytes", PyBytes::new(py, &m.bytes))?;
        out.set_item("known", m.known)?;
        Ok(out)
    }

    /// Lines ``first`` to ``last`` (inclusive, 1-based) as dicts: ``line``,
    /// ``text``, ``node``, ``first_of_node``, ``time``, ``pc``, and with an
    /// image ``function`` and ``source`` (``file:line``).
    #[pyo3(signature = (first, last))]
    fn rows(&self, py: Python<'_>, first: u64, last: u64) -> PyResult<Py<PyAny>> {
        #[derive(Serialize)]
        struct RowOut {
            line: u64,
            text: String,
            node: u64,
            first_of_node: bool,
            time: u64,
            pc: Option<u64>,
            function: Option<String>,
            source: Option<String>,
        }
        let mut inner = self.lock();
        let lines = inner.session.progress().lines;
        if first == 0 || first > lines || last < first {
            return Err(error::<Error>(
                py,
                format!("no lines {first} to {last}: the trace has lines 1 to {lines}"),
            ));
        }
        let last = last.min(lines);
        let mut out = Vec::new();
        let mut at: Option<(u64, u64, Option<u64>)> = None;
        let mut next = first;
        while next <= last {
            let count = (last - next + 1).min(1000) as u32;
            let reply = inner.ask(
                py,
                Rows {
                    view: 0,
                    first: next - 1,
                    count,
                },
            )?;
            if reply.rows.is_empty() {
                break;
            }
            next += reply.rows.len() as u64;
            for row in reply.rows {
                // View 0 is never folded: every row is a line.
                let Row::Line {
                    line,
                    node,
                    first_of_node,
                    text,
                    function,
                    source,
                    ..
                } = row
                else {
                    continue;
                };
                if at.is_none_or(|(n, _, _)| n != node) {
                    let v = inner.view_of(py, node)?;
                    at = Some((node, v.time, v.pc));
                }
                let (_, time, pc) = at.unwrap_or_default();
                out.push(RowOut {
                    line,
                    text,
                    node,
                    first_of_node,
                    time,
                    pc,
                    function,
                    source,
                });
            }
        }
        drop(inner);
        to_py(py, &out)
    }

    /// The calls active at the node holding ``line``, outermost first:
    /// dicts with ``function`` (address), ``name`` (with an image),
    /// ``call_line`` (the call instruction), ``entry_line`` (the callee's
    /// first) and ``return_line`` (where it returned to; ``None`` if it
    /// never did).
    fn call_stack_at(&self, py: Python<'_>, line: u64) -> PyResult<Py<PyAny>> {
        #[derive(Serialize)]
        struct Frame {
            function: u64,
            name: String,
            call_line: u64,
            entry_line: u64,
            return_line: Option<u64>,
        }
        let mut inner = self.lock();
        let node = inner.node_at(py, line)?.node;
        let frames = inner.ask(py, CallStack { node })?;
        let mut out = Vec::with_capacity(frames.len());
        for f in frames {
            let call_line = inner.view_of(py, f.call_node)?.first_line;
            let entry_line = inner.view_of(py, f.entry_node)?.first_line;
            let return_line = match f.resume_node {
                Some(n) => Some(inner.view_of(py, n)?.first_line),
                None => None,
            };
            out.push(Frame {
                function: f.function,
                name: f.name,
                call_line,
                entry_line,
                return_line,
            });
        }
        drop(inner);
        to_py(py, &out)
    }

    /// The nodes where ``condition`` becomes true, as ``tarmac-lens find``
    /// finds them: after the node holding ``after_line`` (before it, with
    /// ``backward``; default: from the trace's start, or its end), at most
    /// ``limit`` of them (``None``: all). Each is a dict: ``line``,
    /// ``node``, ``time``, ``pc``, ``function`` (with an image) and
    /// ``operands`` (each register or memory operand's value there). The
    /// grammar is the CLI's (``x5 == 0``, ``[sp+8:4] != 0``, ``pc == main
    /// && x0 == 1``); a condition that does not parse raises
    /// :class:`ConditionError` with its ``column``. Ctrl-C stops a long
    /// search.
    #[pyo3(signature = (condition, after_line = None, backward = false, limit = Some(1)))]
    fn find(
        &self,
        py: Python<'_>,
        condition: String,
        after_line: Option<u64>,
        backward: bool,
        limit: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        #[derive(Serialize)]
        struct Hit {
            line: u64,
            node: u64,
            time: u64,
            pc: Option<u64>,
            function: Option<String>,
            operands: std::collections::BTreeMap<String, Option<u64>>,
        }
        let mut inner = self.lock();
        let cond = Condition::parse_at(&condition, &Names(inner.symbols.as_ref())).map_err(
            |(column, message)| {
                let column = column as u64;
                with_attrs::<ConditionError>(
                    py,
                    format!("condition '{condition}': column {column}: {message}"),
                    None,
                    &[(
                        "column",
                        column
                            .into_pyobject(py)
                            .map(|c| c.into_any().unbind())
                            .unwrap_or_else(|_| py.None()),
                    )],
                )
            },
        )?;
        let from = match after_line {
            Some(line) => Some(inner.node_at(py, line)?.node),
            None => None,
        };
        let index = inner.index(py)?;
        let mut source = inner.opener.open().map_err(|e| core(py, e))?;
        let max = limit.unwrap_or(usize::MAX);
        let mut hits = Vec::new();
        let mut resume = from;
        let mut interrupted = None;
        while hits.len() < max {
            let page = index
                .find_condition_until(
                    &mut source,
                    &cond,
                    resume,
                    !backward,
                    max - hits.len(),
                    &mut |_| match py.check_signals() {
                        Ok(()) => true,
                        Err(e) => {
                            interrupted = Some(e);
                            false
                        }
                    },
                )
                .map_err(|e| core(py, e))?;
            if let Some(e) = interrupted.take() {
                return Err(e);
            }
            hits.extend(page.hits);
            match page.resume {
                Some(next) => resume = Some(next),
                None => break,
            }
        }
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            let n = &hit.node;
            let operands = index
                .condition_operands(&mut source, &cond, n)
                .map_err(|e| core(py, e))?;
            let pc = n.has_instruction().then_some(n.at.pc);
            let function = match (&inner.symbols, pc) {
                (Some(i), Some(pc)) => {
                    Some(i.symbolic_address(pc, false)).filter(|f| !f.is_empty())
                }
                _ => None,
            };
            out.push(Hit {
                line: n.at.line,
                node: n.at.node,
                time: n.own_time,
                pc,
                function,
                operands: operands.into_iter().collect(),
            });
        }
        drop(inner);
        to_py(py, &out)
    }

    /// The nodes that read or write a register (``register="x5"``) or a
    /// memory range (``address=0x1000, size=8``), from ``first_line`` to
    /// ``last_line``: dicts with ``line``, ``node``, ``time``, ``pc``,
    /// ``kind`` (``r``, ``w``, ``rw``), ``detail`` (the accesses, or a
    /// register's value after the node) and ``function``. ``kind`` picks
    /// reads, writes or both; at most ``limit`` are given.
    #[pyo3(signature = (register = None, *, address = None, size = 8, kind = "rw", first_line = 1, last_line = None, limit = None))]
    #[allow(clippy::too_many_arguments)]
    fn watch(
        &self,
        py: Python<'_>,
        register: Option<String>,
        address: Option<u64>,
        size: u64,
        kind: &str,
        first_line: u64,
        last_line: Option<u64>,
        limit: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        #[derive(Serialize)]
        struct Hit {
            line: u64,
            node: u64,
            time: u64,
            pc: Option<u64>,
            kind: String,
            detail: String,
            function: String,
        }
        let target = target(register, address, size)?;
        let kind = parse_kind(kind)?;
        let mut inner = self.lock();
        let mut from = inner.node_at(py, first_line)?.node;
        let last = last_line.unwrap_or(self.summary.lines);
        let limit = limit.unwrap_or(usize::MAX);
        let mut out = Vec::new();
        'pages: while out.len() < limit && from < self.summary.nodes {
            let reply = inner.ask(
                py,
                Accesses {
                    target: target.clone(),
                    kind,
                    from,
                    max: 1000,
                },
            )?;
            if reply.hits.is_empty() && reply.next <= from {
                break;
            }
            for h in reply.hits {
                if h.node.first_line > last || out.len() == limit {
                    break 'pages;
                }
                out.push(Hit {
                    line: h.node.first_line,
                    node: h.node.node,
                    time: h.node.time,
                    pc: h.node.pc,
                    kind: h.kind,
                    detail: h.detail,
                    function: h.function,
                });
            }
            from = reply.next;
            py.check_signals()?;
        }
        drop(inner);
        to_py(py, &out)
    }

    /// Where a value came from: the tree of writes that made a register's
    /// (``register="x0"``) or memory's (``address=..., size=...``) value
    /// after the node holding ``line``, ``depth`` levels deep (at most
    /// 16). Each step is a dict: ``what``, ``value``, ``writer`` (its
    /// ``line``, ``time``, ``pc``...), ``instruction``, ``function``,
    /// ``source``, ``inputs`` (the steps below it).
    #[pyo3(signature = (line, register = None, *, address = None, size = 8, depth = 4))]
    fn why(
        &self,
        py: Python<'_>,
        line: u64,
        register: Option<String>,
        address: Option<u64>,
        size: u64,
        depth: u32,
    ) -> PyResult<Py<PyAny>> {
        let target = target(register, address, size)?;
        let mut inner = self.lock();
        let node = inner.node_at(py, line)?.node;
        let tree = inner.ask(
            py,
            WhyQuery {
                node,
                target,
                depth: depth.min(tarmac_lens_core::protocol::MAX_DEPTH),
                loaded: None,
            },
        )?;
        drop(inner);
        to_py(py, &tree)
    }

    /// Runs a SQL query over the trace tables (docs/tables.md: the same
    /// as ``tarmac-lens sql``'s) and returns its result as a
    /// ``pyarrow.Table``; ``.to_pandas()`` and ``polars.from_arrow`` take
    /// it. A query that fails raises :class:`QueryError` naming its
    /// ``position`` (line, column) in the query. Ctrl-C stops the query
    /// and raises ``KeyboardInterrupt``.
    fn sql(&self, py: Python<'_>, query: &str) -> PyResult<Py<PyAny>> {
        self.run_sql(py, query)
    }

    /// Like :meth:`sql`, but the result streams: a
    /// ``pyarrow.RecordBatchReader`` whose batches are computed as they
    /// are read, so a result larger than memory can be written out or
    /// folded batch by batch.
    fn sql_reader(&self, py: Python<'_>, query: &str) -> PyResult<Py<PyAny>> {
        self.run_sql_reader(py, query)
    }

    /// A whole trace table (``instructions``, ``registers``, ``memory``,
    /// ``calls``, ``functions``, ``source_lines``, ``events``,
    /// ``unparsed``) as a ``pyarrow.Table``; ``columns`` picks some of
    /// its columns.
    #[pyo3(signature = (name, columns = None))]
    fn table(
        &self,
        py: Python<'_>,
        name: &str,
        columns: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        self.whole_table(py, name, columns)
    }

    /// The instructions from the one holding ``first_line`` to ``last_line``
    /// (default: the end), streamed: each a dict with ``line``, ``time``,
    /// ``pc``, ``encoding``, ``iset`` (``A64``, ``A32``, ``T32``...),
    /// ``mode``, ``executed`` (false for a failed condition),
    /// ``disassembly``, ``registers`` (``name``, ``value``: hex as the
    /// trace writes it, ``--`` for bytes a write leaves) and ``memory``
    /// (``kind`` ``r``/``w``/``u``, ``address``, ``size``, ``bytes`` in
    /// address order, ``value`` as written) of its lines.
    #[pyo3(signature = (first_line = 1, last_line = None))]
    fn iter_instructions(
        &self,
        py: Python<'_>,
        first_line: u64,
        last_line: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        self.instructions_from(py, first_line, last_line)
    }

    /// The image's coverage by this trace, as ``tarmac-lens coverage TRACE
    /// --image ELF`` gives it: a dict with ``text`` (its summary, byte for
    /// byte), ``json`` (its ``--json`` document, parsed: functions, lines,
    /// instructions and branches) and ``lcov`` (its ``--lcov`` file; ``None``
    /// for an image without DWARF line information). Needs the trace opened
    /// with an ``image``.
    fn coverage(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        use tarmac_lens_core::coverage::{count_trace, Coverage, Image as CodeImage};
        let inner = self.lock();
        let Some(image) = &inner.image else {
            return Err(error::<Error>(
                py,
                "coverage needs the traced program's ELF: open(..., image=ELF)",
            ));
        };
        let name = inner.opener.path.display().to_string();
        let (opener, parse) = (&inner.opener, inner.parse);
        let made = py.detach(|| -> tarmac_lens_core::Result<_> {
            let mut source = opener.open()?;
            tarmac_lens_core::check_single_core(&mut source, parse)?;
            let counts = count_trace(source, parse)?;
            let code = CodeImage::from_elf_bytes(
                &image.path.display().to_string(),
                image.bytes.clone(),
                image.load_offset,
            )?;
            let mut cov = Coverage::new(&code)?;
            cov.add_trace(0, &name, &counts, &code)?;
            let lcov = if code.has_dwarf() {
                Some(cov.to_lcov()?)
            } else {
                None
            };
            Ok((cov.to_text(), cov.to_json(), lcov))
        });
        let (text, json, lcov) = made.map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
        let out = PyDict::new(py);
        out.set_item("text", text)?;
        out.set_item("json", py.import("json")?.call_method1("loads", (json,))?)?;
        out.set_item("lcov", lcov)?;
        Ok(out.into_any().unbind())
    }

    /// ``tarmac-lens calltree``'s text (with the image's names).
    fn calltree(&self, py: Python<'_>) -> PyResult<String> {
        let inner = self.lock();
        let mut analysis = analyse(py, &inner.opener, inner.parse, inner.engine_options())?;
        let Some(tree) = calltree::build_taking_calls(&mut analysis) else {
            return Ok(String::new());
        };
        let image = inner.symbols.as_ref();
        let name = |addr: u64| image.map_or(String::new(), |i| i.function_name(addr));
        Ok(calltree::render(&tree, &analysis, &name))
    }

    /// ``tarmac-lens profile``: a :class:`Profile` with the CLI's ``text``
    /// (byte for byte) and its ``functions`` (dicts: ``address``, ``name``,
    /// ``calls``, ``time``).
    fn profile(&self, py: Python<'_>) -> PyResult<Profile> {
        let inner = self.lock();
        let mut analysis = analyse(py, &inner.opener, inner.parse, inner.engine_options())?;
        let table = calltree::build_taking_calls(&mut analysis)
            .as_ref()
            .map(|t| profile::compute(t.root()))
            .unwrap_or_default();
        let image = inner.symbols.as_ref();
        let name = |addr: u64| names::function_name(image, addr, true);
        let text = profile::render(&table, &name);
        let functions = PyList::empty(py);
        for (&address, e) in &table {
            let row = PyDict::new(py);
            row.set_item("address", address)?;
            row.set_item("name", name(address))?;
            row.set_item("calls", e.count())?;
            row.set_item("time", e.time())?;
            functions.append(row)?;
        }
        Ok(Profile {
            text,
            functions: functions.unbind(),
        })
    }
}

/// `tarmac_lens.open`: see the stub's docstring.
#[allow(clippy::too_many_arguments)]
pub fn open(
    py: Python<'_>,
    path: PathBuf,
    image: Option<PathBuf>,
    cpu: Option<String>,
    progress: Option<&Bound<'_, PyAny>>,
    index: bool,
    index_path: Option<PathBuf>,
    force_index: bool,
    load_offset: i64,
    implicit_thumb: bool,
    big_endian: bool,
    jobs: Option<usize>,
) -> PyResult<Trace> {
    let name = path.display().to_string();
    let md = std::fs::metadata(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            PyFileNotFoundError::new_err((2, format!("{name}: no such file"), name.clone()))
        } else {
            error::<Error>(py, format!("{name}: {e}"))
        }
    })?;
    if md.is_dir() {
        return Err(PyIsADirectoryError::new_err((
            21,
            format!("{name}: is a directory, not a trace"),
            name.clone(),
        )));
    }
    let cpu = match cpu {
        Some(c) => Some(
            c.parse::<CpuName>()
                .map_err(|e| PyValueError::new_err(format!("cpu '{c}': {e}")))?,
        ),
        None => None,
    };
    let parse = ParseOptions {
        implicit_thumb,
        big_endian,
        cpu,
        ..ParseOptions::default()
    };
    let storage = storage_of(&path).map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
    if storage == Storage::Xz {
        return Err(error::<NotATraceError>(
            py,
            format!(
                "{name} is an xz-compressed file: it cannot be read at offsets; \
                 decompress it first (unxz {name}), or recompress it with gzip or zstd"
            ),
        ));
    }
    let mut opener = Opener {
        path: path.clone(),
        storage,
        table: None,
    };
    // What the file is, from its first bytes, before any indexing.
    let sample = {
        let mut first = opener
            .open()
            .map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
        let sample =
            read_sample(&mut first).map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
        let total = if storage == Storage::Plain {
            first.len()
        } else {
            sample.len() as u64
        };
        let kind = tarmac_lens_core::identify(&sample, total, parse);
        if let Some(problem) = kind.problem(&name) {
            return Err(error::<NotATraceError>(py, problem));
        }
        sample
    };
    // The image before the (long) indexing: a wrong one is said at once.
    let (image, symbols) = match image {
        Some(elf) => {
            let shown = elf.display().to_string();
            let bytes: Arc<[u8]> = std::fs::read(&elf)
                .map_err(|e| error::<ImageError>(py, format!("{shown}: {e}")))?
                .into();
            let table = SymbolTable::from_elf_bytes(&bytes, load_offset)
                .and_then(|t| t.check_endianness(big_endian).map(|()| t))
                .map_err(|e| error::<ImageError>(py, format!("{shown}: {e}")))?;
            let sets = InstructionSets::of_sample(&sample, parse);
            if let Some(problem) = table.architecture_mismatch(&sets) {
                return Err(error::<ImageError>(py, format!("{shown}: {problem}")));
            }
            let image = Image {
                path: elf,
                bytes,
                load_offset,
            };
            (Some(image), Some(table))
        }
        None => (None, None),
    };
    let file = IndexFile {
        path: index_path.unwrap_or_else(|| indexing::default_index_path(&path)),
        write: index,
        force: force_index,
    };
    let jobs = jobs.unwrap_or_else(indexing::default_jobs).max(1);
    let got = indexing::obtain(py, &opener, &file, parse, jobs, progress)?;
    opener.table = got.table;
    let summary = got.index.summary();
    let index_bytes = got.bytes;
    let source = opener
        .open()
        .map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
    let mut session = Session::from_index(source, got.index, parse)
        .map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
    if let Some(i) = &image {
        session
            .load_elf(&i.bytes, i.load_offset, big_endian)
            .map_err(|e| error::<ImageError>(py, format!("{}: {e}", i.path.display())))?;
        // DWARF only adds rows' `source`: an image whose DWARF cannot be
        // read still names functions, as the CLI's reports do.
        let _ = session.load_debug_info(i.bytes.clone(), i.load_offset);
    }
    Ok(Trace {
        inner: Mutex::new(Box::new(Inner {
            session,
            opener,
            parse,
            image,
            symbols,
            index_bytes: Some(index_bytes),
            index: None,
            tables: None,
        })),
        summary,
        path,
        reused: got.reused,
    })
}
