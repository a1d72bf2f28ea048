//! The exceptions `tarmac_lens` raises. Each carries `reason` (the
//! sentence) and `line` (the trace line it is about, or `None`); a query's
//! error its `position` too, a condition's its `column`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::PyTypeInfo;

create_exception!(
    tarmac_lens,
    Error,
    PyException,
    "What went wrong with a trace, an image or a question: `reason` says what, `line` names the trace line when there is one."
);
create_exception!(
    tarmac_lens,
    NotATraceError,
    Error,
    "The file is not a Tarmac trace; the message says what it is."
);
create_exception!(
    tarmac_lens,
    ImageError,
    Error,
    "The ELF image cannot serve this trace: unreadable, or built for another architecture."
);
create_exception!(
    tarmac_lens,
    ConditionError,
    Error,
    "A condition (`find`) that does not parse; `column` is where, 1-based."
);
create_exception!(
    tarmac_lens,
    QueryError,
    Error,
    "A SQL query that failed; `position` is its (line, column) in the query when known."
);

/// The first `line N` a message names.
fn line_in(message: &str) -> Option<u64> {
    let at = message.find("line ")?;
    let digits: String = message[at + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// An exception of type `E` saying `message`, its `line` the one the
/// message names.
pub fn error<E: PyTypeInfo>(py: Python<'_>, message: impl Into<String>) -> PyErr {
    let message = message.into();
    let line = line_in(&message);
    with_attrs::<E>(py, message, line, &[])
}

/// An exception of type `E` with `reason`, `line` and more attributes.
pub fn with_attrs<E: PyTypeInfo>(
    py: Python<'_>,
    message: String,
    line: Option<u64>,
    more: &[(&str, Py<PyAny>)],
) -> PyErr {
    let err = PyErr::new::<E, _>(message.clone());
    let value = err.value(py);
    // Setting attributes of a fresh exception object cannot fail.
    let _ = value.setattr("reason", message);
    let _ = value.setattr("line", line);
    for (k, v) in more {
        let _ = value.setattr(*k, v);
    }
    err
}

/// A core error as an [`Error`].
pub fn core(py: Python<'_>, e: tarmac_lens_core::Error) -> PyErr {
    error::<Error>(py, e.to_string())
}

/// Registers the exceptions in the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("NotATraceError", py.get_type::<NotATraceError>())?;
    m.add("ImageError", py.get_type::<ImageError>())?;
    m.add("ConditionError", py.get_type::<ConditionError>())?;
    m.add("QueryError", py.get_type::<QueryError>())?;
    Ok(())
}
