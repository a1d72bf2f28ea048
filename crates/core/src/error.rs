//! The core's one error type. Variants say what failed; the text each
//! carries is the sentence a person sees (the CLI prints it after
//! `tarmac-lens: `, the page shows it), so it names the file, line or value
//! involved where one is known.

use std::fmt;

/// Why an operation of the core failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading the trace failed: the file could not be opened or read at an
    /// offset, it is not a regular file (a pipe cannot be read at random
    /// offsets), or a browser read of a `Blob` or URL failed.
    Read(String),
    /// A position beyond the part of the trace indexed so far, or one the
    /// trace does not have (a node number past the last node).
    OutOfRange(String),
    /// Saved index bytes that cannot be used: an index file, saved session
    /// or range index that is truncated, corrupt, of another format version,
    /// or for another trace or other parse options. Rebuilding the index
    /// from the trace is the remedy.
    IndexFile(String),
    /// Parallel indexing's ranges do not join into one trace: none given,
    /// or not following each other from byte 0 to the end.
    Stitch(String),
    /// Writing an output (a dump, a report) failed; a reader that went away
    /// (`| head`) shows as [`std::io::ErrorKind::BrokenPipe`].
    Write(std::io::Error),
    /// An ELF image that cannot be read, or is of the other byte order than
    /// the trace.
    Elf(String),
    /// An address expression that does not parse (in the reference tools'
    /// wording), or a call target that names no symbol.
    Expression(String),
    /// A search that cannot start: an empty pattern, a regular expression
    /// that does not compile, an empty line range.
    Search(String),
    /// A core name that is not one: the trace's `<cpu>` field is a word
    /// starting with `cpu`.
    CoreName(String),
    /// The trace interleaves several cores and none was chosen; holds their
    /// names in order of appearance. One register file and call stack fed
    /// from several CPUs would give nonsense, not a report.
    MixedCores(Vec<String>),
    /// A VCD asked to use the trace's timestamps met one going backwards.
    TimestampsBackwards,
    /// A trace `convert` cannot rewrite: one not in the Tarmac dialect.
    Convert(String),
    /// A coverage result that cannot be read or merged: not one, of another
    /// format version, or of another image.
    Coverage(String),
    /// An export that cannot be written as asked: parts too small for
    /// what one must hold, a drcov file of code the image does not have.
    Export(String),
    /// A browse question that cannot be answered as asked: no trace open,
    /// an unknown register, a file the DWARF does not name, a range too
    /// long.
    Query(String),
}

/// The core's result type: [`Error`] unless said otherwise.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A read failure met while answering a query: the message says the
    /// trace was being read, as the read itself (a `Blob`, a file offset)
    /// may not.
    pub(crate) fn in_query(self) -> Error {
        match self {
            Error::Read(e) => Error::Read(format!("reading trace: {e}")),
            e => e,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(s)
            | Error::OutOfRange(s)
            | Error::IndexFile(s)
            | Error::Stitch(s)
            | Error::Elf(s)
            | Error::Expression(s)
            | Error::Search(s)
            | Error::CoreName(s) => f.write_str(s),
            Error::Write(e) => write!(f, "writing output: {e}"),
            Error::MixedCores(names) => write!(
                f,
                "the trace interleaves {} cores ({}): choose one with --cpu (e.g. --cpu {}); \
                 `tarmac-lens cores` lists them",
                names.len(),
                names.join(", "),
                names.first().map_or("", String::as_str)
            ),
            Error::Convert(m) | Error::Coverage(m) | Error::Export(m) | Error::Query(m) => {
                f.write_str(m)
            }
            Error::TimestampsBackwards => {
                f.write_str("Error when using the instruction timestamp from the tarmac trace")
            }
        }
    }
}

// No `source()`: each message already holds its cause's text, and a chain
// printer would repeat it.
impl std::error::Error for Error {}
