//! `tarmac_lens`, the Python package: the Tarmac Lens core and its trace
//! tables for notebooks and verification scripts (`docs/python.md`),
//! built into a wheel by `scripts/build-python.sh` with maturin.
//!
//! The key design choice: Python gets the core's answers, never the
//! trace. A `Trace` holds the index and the same browse session the page
//! and the npm package ask (registers, memory, rows, call stacks,
//! conditions, watches, "why?"), and tables come out as Arrow: DataFusion
//! computes them over the index and the trace text, and `pyarrow` takes
//! its batches through the Arrow C data interface, so a column of
//! millions of u64 addresses reaches pandas or Polars without a
//! per-row conversion or a copy. Long work (indexing, reports, queries)
//! runs without the interpreter lock; indexing keeps the calling thread
//! to run signal handlers and the progress callback, so Ctrl-C stops it
//! (`indexing.rs`). The index file is the CLI's (`TRACE.index`), reused
//! by both.

#![deny(missing_docs)]

mod errors;
mod indexing;
mod source;
mod stream;
mod tables;
mod trace;

use std::path::PathBuf;

use pyo3::prelude::*;

/// Opens a Tarmac trace (plain, gzip or Zstandard) and indexes it, or
/// reuses its index file (see the stub for the arguments).
#[pyfunction]
#[pyo3(signature = (path, image = None, cpu = None, progress = None, *, index = true, index_path = None, force_index = false, load_offset = 0, implicit_thumb = false, big_endian = false, jobs = None))]
#[allow(clippy::too_many_arguments)]
fn open(
    py: Python<'_>,
    path: PathBuf,
    image: Option<PathBuf>,
    cpu: Option<String>,
    progress: Option<Bound<'_, PyAny>>,
    index: bool,
    index_path: Option<PathBuf>,
    force_index: bool,
    load_offset: i64,
    implicit_thumb: bool,
    big_endian: bool,
    jobs: Option<usize>,
) -> PyResult<trace::Trace> {
    trace::open(
        py,
        path,
        image,
        cpu,
        progress.as_ref(),
        index,
        index_path,
        force_index,
        load_offset,
        implicit_thumb,
        big_endian,
        jobs,
    )
}

/// Tarmac (Arm CPU execution trace) analysis with the Tarmac Lens core:
/// `open(path)` gives a `Trace` to ask for registers, memory, lines,
/// reports and SQL tables (as pyarrow). See docs/python.md.
#[pymodule]
fn tarmac_lens(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<trace::Trace>()?;
    m.add_class::<trace::Profile>()?;
    m.add_class::<stream::Instructions>()?;
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
