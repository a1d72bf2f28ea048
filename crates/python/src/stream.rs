//! `Trace.iter_instructions`: the trace's instructions, each with the
//! register writes and memory accesses of its lines, read front to back
//! from a line on (at the node holding it) a megabyte of text at a time,
//! so a trace of any size streams through constant memory.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use tarmac_lens_core::{read_sample, Effect, ISet, LineReader, MemDirection, Parser, RecordKind};

use crate::errors::core;
use crate::source::Source;
use crate::trace::Trace;

/// Bytes of text read at a time.
const CHUNK: usize = 1 << 20;

/// A register write of an instruction.
struct RegOut {
    name: String,
    /// Most significant byte first; `--` for bytes the line leaves as they were.
    value: String,
}

/// A memory access of an instruction.
struct MemOut {
    kind: &'static str,
    address: u64,
    size: u8,
    /// In address order.
    bytes: Vec<u8>,
    value: String,
}

/// An instruction being gathered.
struct InsnOut {
    line: u64,
    time: u64,
    pc: u64,
    encoding: u64,
    iset: &'static str,
    mode: Option<String>,
    executed: bool,
    disassembly: String,
    registers: Vec<RegOut>,
    memory: Vec<MemOut>,
}

impl InsnOut {
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("line", self.line)?;
        d.set_item("time", self.time)?;
        d.set_item("pc", self.pc)?;
        d.set_item("encoding", self.encoding)?;
        d.set_item("iset", self.iset)?;
        d.set_item("mode", self.mode)?;
        d.set_item("executed", self.executed)?;
        d.set_item("disassembly", self.disassembly)?;
        let regs = PyList::empty(py);
        for r in self.registers {
            let e = PyDict::new(py);
            e.set_item("name", r.name)?;
            e.set_item("value", r.value)?;
            regs.append(e)?;
        }
        d.set_item("registers", regs)?;
        let mem = PyList::empty(py);
        for m in self.memory {
            let e = PyDict::new(py);
            e.set_item("kind", m.kind)?;
            e.set_item("address", m.address)?;
            e.set_item("size", m.size)?;
            e.set_item("bytes", PyBytes::new(py, &m.bytes))?;
            e.set_item("value", m.value)?;
            mem.append(e)?;
        }
        d.set_item("memory", mem)?;
        Ok(d)
    }
}

fn iset_name(i: ISet) -> &'static str {
    match i {
        ISet::Arm => "A32",
        ISet::Thumb => "T32",
        ISet::A64 => "A64",
        ISet::ThumbEE => "ThumbEE",
        ISet::C64 => "C64",
    }
}

struct State {
    reader: LineReader<Source>,
    parser: Parser,
    pending: Option<InsnOut>,
    last: u64,
    done: bool,
}

/// An iterator over a trace's instructions (see `Trace.iter_instructions`).
#[pyclass(module = "tarmac_lens")]
pub struct Instructions {
    /// Boxed for the alignment a Python object's memory lacks (as `Trace`).
    state: Mutex<Box<State>>,
}

impl State {
    /// The next whole instruction, or `None` at the end.
    fn next(&mut self) -> tarmac_lens_core::Result<Option<InsnOut>> {
        let State {
            reader,
            parser,
            pending,
            last,
            done,
        } = self;
        if *done {
            return Ok(None);
        }
        while let Some(line) = reader.next_line()? {
            if line.number > *last {
                break;
            }
            let number = line.number;
            let record = parser.parse_line(line.text);
            match &record.kind {
                RecordKind::Instruction(i) => {
                    let next = InsnOut {
                        line: number,
                        time: record.time,
                        pc: i.pc,
                        encoding: i.encoding,
                        iset: iset_name(i.iset),
                        mode: i.mode.map(|m| String::from_utf8_lossy(m).into_owned()),
                        executed: i.effect == Effect::Executed,
                        disassembly: String::from_utf8_lossy(i.disassembly).trim().to_string(),
                        registers: Vec::new(),
                        memory: Vec::new(),
                    };
                    if let Some(out) = pending.replace(next) {
                        return Ok(Some(out));
                    }
                }
                RecordKind::Register(r) => {
                    if let Some(p) = pending.as_mut() {
                        let value = r
                            .bytes
                            .iter()
                            .zip(r.known)
                            .rev()
                            .map(|(b, &k)| {
                                if k != 0 {
                                    format!("{b:02x}")
                                } else {
                                    "--".into()
                                }
                            })
                            .collect();
                        p.registers.push(RegOut {
                            name: String::from_utf8_lossy(r.name).to_ascii_lowercase(),
                            value,
                        });
                    }
                }
                RecordKind::Memory(m) => {
                    if let Some(p) = pending.as_mut() {
                        p.memory.push(MemOut {
                            kind: match m.direction {
                                MemDirection::Read => "r",
                                MemDirection::Write => "w",
                                MemDirection::Update => "u",
                            },
                            address: m.addr,
                            size: m.size,
                            bytes: m.bytes.to_vec(),
                            value: String::from_utf8_lossy(m.value_text).into_owned(),
                        });
                    }
                }
                _ => {}
            }
        }
        *done = true;
        Ok(pending.take())
    }
}

#[pymethods]
impl Instructions {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match state.next().map_err(|e| core(py, e))? {
            Some(i) => Ok(Some(i.into_py(py)?)),
            None => Ok(None),
        }
    }
}

impl Trace {
    /// [`Trace::iter_instructions`].
    pub(crate) fn instructions_from(
        &self,
        py: Python<'_>,
        first_line: u64,
        last_line: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let mut inner = self.lock();
        let start = inner.node_view_at(py, first_line)?;
        let mut source = inner.opener.open().map_err(|e| core(py, e))?;
        let sample = read_sample(&mut source).map_err(|e| core(py, e))?;
        let parser = Parser::for_sample(inner.parse, &sample);
        let end = self.summary.bytes;
        let reader = LineReader::with_range(source, start.offset, end, start.first_line, CHUNK);
        let iter = Instructions {
            state: Mutex::new(Box::new(State {
                reader,
                parser,
                pending: None,
                last: last_line.unwrap_or(u64::MAX),
                done: false,
            })),
        };
        Ok(Py::new(py, iter)?.into_any())
    }
}
