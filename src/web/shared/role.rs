//! The roles of the worker bin. Every worker the page starts runs the same
//! file; the name it is started with (`new Worker(url, { name })`) says
//! what it is to do, and the worker reads it once, when it starts
//! (`worker::start`).

/// What a worker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The browsing session's worker (started unnamed): owns the trace and
    /// its index, answers the page's questions. The page starts one ahead
    /// of any drop (the spare), which warms up before a file comes.
    Session,
    /// Indexes one byte range of a dropped file for a session worker: it
    /// skips the warm-up meant for the first screenful.
    Range,
    /// Computes the Reports panel's reports: it reads its file without a
    /// nested reader.
    Report,
    /// Compares two traces: no warm-up, no index.
    Diff,
}

const RANGE_NAME: &str = "tarmac-lens-range";
/// A session worker started while a trace is open, for the next one.
const NEXT_SESSION_NAME: &str = "tarmac-lens-next";
const REPORT_NAME: &str = "tarmac-lens-report";
const DIFF_NAME: &str = "tarmac-lens-diff";

impl Role {
    /// The name a worker of this role is started with; a session worker
    /// has none.
    pub fn worker_name(self) -> Option<&'static str> {
        match self {
            Role::Session => None,
            Role::Range => Some(RANGE_NAME),
            Role::Report => Some(REPORT_NAME),
            Role::Diff => Some(DIFF_NAME),
        }
    }

    /// The name of a session worker started while a trace is open, ready
    /// for the next one (a session's, as any name no other role has).
    pub fn next_session_name() -> &'static str {
        NEXT_SESSION_NAME
    }

    /// Whether a worker started with `name` makes its nested reader's
    /// buffers as it starts (`read_ahead::start_spare_reader`): a session
    /// worker does, but not one started for the next trace, whose buffers
    /// would sit in the tab all the while the open one is browsed (128 MiB
    /// of its 390 MB with a 1 GB trace indexed).
    pub fn prefaults_reader(name: &str) -> bool {
        name != NEXT_SESSION_NAME && Role::of_worker_name(name) == Role::Session
    }

    /// The role of a worker started with `name`: any name that is not
    /// another role's (the empty one of an unnamed worker) is a session's.
    pub fn of_worker_name(name: &str) -> Role {
        match name {
            RANGE_NAME => Role::Range,
            REPORT_NAME => Role::Report,
            DIFF_NAME => Role::Diff,
            _ => Role::Session,
        }
    }
}
