//! The page's own state around the trace browser: the file open, how far
//! its indexing got (idle, indexing, ready, stopped, error), its ELF image,
//! how it is read, the tab shown. Messages come from the page (a drop, a
//! tab's click) and from the trace's worker ([`PageEvent`]); each of a
//! file's carries the job it is for, so a late message from a file given
//! up for another changes nothing. The Yew app (`web::components::app`)
//! only renders it; `tests/browser_model/page.rs` drives it with the
//! events a real session's indexing makes.
//!
//! The session handle `S` is the page's (a worker's client): the model
//! keeps it and compares jobs, never looks inside.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tarmac_lens_core::{protocol::Progress, FileKind, Stats};

/// The file being looked at.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    /// Its name, as dropped or as the URL's last part.
    pub name: String,
    /// Its length; 0 for a URL until its server has said.
    pub bytes: u64,
}

/// How far the open file got.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// No file yet.
    Idle,
    /// Being indexed: `done` of `total` bytes.
    Indexing {
        /// Bytes indexed.
        done: u64,
        /// The file's length.
        total: u64,
    },
    /// Indexed to its end, with its record statistics.
    Ready(Rc<Stats>),
    /// Indexing stopped before the end (memory budget); still browsable.
    Stopped(String),
    /// It could not be opened or read: why.
    Error(String),
}

impl Phase {
    /// The `data-state` value tests, styles and the embedding host key on.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Indexing { .. } => "indexing",
            Phase::Ready(_) => "ready",
            Phase::Stopped(_) => "stopped",
            Phase::Error(_) => "error",
        }
    }
}

/// The page's two tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// The trace browser.
    Browse,
    /// The record statistics and the reading's summary.
    Summary,
}

/// How the open trace is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reading {
    /// A dropped file, indexed now.
    File,
    /// A dropped file whose index came from the index cache.
    CachedIndex,
    /// A URL read in byte ranges.
    Ranges,
    /// A URL downloaded whole (its server serves no ranges).
    Downloaded,
    /// Answered by `tarmac-lens serve` (`page/server_link.rs`).
    Served,
}

impl Reading {
    /// The status's `data-reading` value.
    pub fn name(self) -> &'static str {
        match self {
            Reading::File => "file",
            Reading::CachedIndex => "cached-index",
            Reading::Ranges => "ranges",
            Reading::Downloaded => "downloaded",
            Reading::Served => "served",
        }
    }
}

/// An ELF image the worker loaded: components that show names fetch them
/// again when it changes, which a new image does even with as many symbols
/// as the last (`load` counts the page's loads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfLoad {
    /// Its symbols.
    pub symbols: usize,
    /// Which of the page's loads it is, from 1.
    pub load: u32,
}

/// What the page learns about the open trace from its worker, besides
/// answers to questions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PageEvent {
    /// How far indexing got.
    Progress(Progress),
    /// Record statistics, when indexing completes.
    Stats(Box<Stats>),
    /// The ELF image is loaded.
    ElfLoaded {
        /// Its symbols.
        symbols: usize,
        /// Why the image looks like another program's, if it does.
        warning: Option<String>,
    },
    /// The trace is open: its size, how it is read and what the file is.
    Opened {
        /// Its length.
        bytes: u64,
        /// How it is read.
        reading: Reading,
        /// What the file is.
        kind: FileKind,
    },
    /// A URL is being downloaded whole.
    Downloading {
        /// Bytes received.
        done: u64,
        /// Of this many, if the server said.
        total: Option<u64>,
    },
    /// The finished index is saved in the index cache.
    IndexCached,
    /// The ELF image was refused (the trace stays open).
    ElfFailed(String),
    /// Reading the trace failed.
    Failed(String),
}

/// What changes the page's state.
pub enum PageMsg<S> {
    /// A file is opened as job `job` (numbers only grow).
    Start {
        /// The job.
        job: u32,
        /// The file.
        file: FileInfo,
        /// The page's clock now, for the MB/s figure.
        now_ms: f64,
    },
    /// Job `job`'s worker is started; `session` talks to it.
    Opened {
        /// The job.
        job: u32,
        /// Its session.
        session: S,
    },
    /// Job `job`'s worker says `event`.
    Event {
        /// The job.
        job: u32,
        /// What it says.
        event: PageEvent,
        /// The page's clock now.
        now_ms: f64,
    },
    /// The last file's worker could not be started: why.
    StartFailed(String),
    /// A tab was chosen.
    Tab(Tab),
    /// An ELF image was chosen with no trace open: its name and symbols
    /// (or why it is no ELF image).
    ElfAlone(String, Result<usize, String>),
}

/// The page's state (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct PageState<S> {
    /// The file's job: messages of another job are late and ignored.
    pub job: u32,
    /// The file open.
    pub file: Option<FileInfo>,
    /// How far it got.
    pub phase: Phase,
    /// Its session, once its worker is started.
    pub session: Option<S>,
    /// The worker's last progress.
    pub progress: Option<Progress>,
    /// The ELF image loaded.
    pub elf: Option<ElfLoad>,
    /// ELF images loaded so far on this page (see [`ElfLoad::load`]).
    pub elf_loads: u32,
    /// Why the loaded ELF image looks like another program's.
    pub elf_warning: Option<String>,
    /// Why the last ELF image was refused.
    pub elf_error: Option<String>,
    /// An ELF image chosen before any trace: its name and symbol count
    /// (or why it is no ELF image), kept until a trace opens.
    pub elf_alone: Option<(String, Result<usize, String>)>,
    /// What the open file is, once its worker has looked at it.
    pub file_kind: Option<FileKind>,
    /// The tab shown.
    pub tab: Tab,
    /// The page's clock when the job started, for the MB/s figure.
    pub started_ms: f64,
    /// The page's clock at the job's last message.
    pub now_ms: f64,
    /// How the trace is read, once the worker has opened it.
    pub reading: Option<Reading>,
    /// A URL being downloaded whole: bytes received, of the total if known.
    pub download: Option<(u64, Option<u64>)>,
    /// The finished index is saved in the index cache.
    pub index_cached: bool,
}

impl<S> Default for PageState<S> {
    fn default() -> Self {
        PageState {
            job: 0,
            file: None,
            phase: Phase::Idle,
            session: None,
            progress: None,
            elf: None,
            elf_loads: 0,
            elf_warning: None,
            elf_error: None,
            elf_alone: None,
            file_kind: None,
            tab: Tab::Browse,
            started_ms: 0.0,
            now_ms: 0.0,
            reading: None,
            download: None,
            index_cached: false,
        }
    }
}

impl<S> PageState<S> {
    /// Applies `msg`; `false` when it changed nothing because it is a late
    /// message of another job (so the page need not render).
    pub fn update(&mut self, msg: PageMsg<S>) -> bool {
        match msg {
            PageMsg::Start { job, file, now_ms } => {
                // What belonged to the last file goes; the tab, the page's
                // ELF loads and an ELF image chosen alone stay.
                *self = PageState {
                    job,
                    phase: Phase::Indexing {
                        done: 0,
                        total: file.bytes,
                    },
                    file: Some(file),
                    started_ms: now_ms,
                    now_ms,
                    tab: self.tab,
                    elf_loads: self.elf_loads,
                    elf_alone: None,
                    ..PageState::default()
                };
            }
            PageMsg::Opened { job, session } => {
                if job != self.job {
                    return false;
                }
                self.session = Some(session);
            }
            PageMsg::Event { job, event, now_ms } => {
                if job != self.job {
                    return false;
                }
                self.now_ms = now_ms;
                self.event(event);
            }
            PageMsg::StartFailed(message) => self.phase = Phase::Error(message),
            PageMsg::Tab(tab) => self.tab = tab,
            PageMsg::ElfAlone(name, symbols) => self.elf_alone = Some((name, symbols)),
        }
        true
    }

    fn event(&mut self, event: PageEvent) {
        match event {
            PageEvent::Progress(p) => {
                if let Phase::Indexing { .. } = self.phase {
                    self.phase = match &p.stopped {
                        Some(reason) => Phase::Stopped(reason.clone()),
                        None => Phase::Indexing {
                            done: p.done_bytes,
                            total: p.total_bytes,
                        },
                    };
                }
                self.progress = Some(p);
            }
            PageEvent::Stats(stats) => {
                self.phase = Phase::Ready(Rc::from(stats));
                if let Some(p) = &mut self.progress {
                    p.complete = true;
                }
            }
            PageEvent::ElfLoaded { symbols, warning } => {
                self.elf_loads += 1;
                self.elf = Some(ElfLoad {
                    symbols,
                    load: self.elf_loads,
                });
                self.elf_warning = warning;
                self.elf_error = None;
            }
            PageEvent::ElfFailed(message) => self.elf_error = Some(message),
            PageEvent::Opened {
                bytes,
                reading,
                kind,
            } => {
                self.file_kind = Some(kind);
                self.reading = Some(reading);
                if let Some(f) = &mut self.file {
                    f.bytes = bytes;
                }
                if let Phase::Indexing { done, .. } = self.phase {
                    self.phase = Phase::Indexing { done, total: bytes };
                }
            }
            PageEvent::Downloading { done, total } => self.download = Some((done, total)),
            PageEvent::IndexCached => self.index_cached = true,
            PageEvent::Failed(message) => self.phase = Phase::Error(message),
        }
    }

    /// The trace's lines as far as they are known: all of them once
    /// indexed, else as far as indexing got.
    pub fn lines(&self) -> Option<u64> {
        match (&self.phase, &self.progress) {
            (Phase::Ready(stats), _) => Some(stats.lines),
            (Phase::Indexing { .. } | Phase::Stopped(_), Some(p)) => Some(p.lines),
            _ => None,
        }
    }

    /// Whether the file is being indexed.
    pub fn indexing(&self) -> bool {
        matches!(self.phase, Phase::Indexing { .. })
    }

    /// Whether there is a trace to browse: its worker started and nothing
    /// failed.
    pub fn open(&self) -> bool {
        self.session.is_some() && !matches!(self.phase, Phase::Error(_))
    }

    /// Whether the open file has rows to show: a trace, or text that may be
    /// one. A file that is no text (compressed, an archive, an ELF image,
    /// ...) has its notice and the Summary instead.
    pub fn shows_rows(&self) -> bool {
        self.open() && !self.file_kind.as_ref().is_some_and(shows_no_rows)
    }
}

/// Whether a file of this kind is not text, so its "lines" would be rows
/// of garbage: the browse view shows the notice alone.
pub fn shows_no_rows(kind: &FileKind) -> bool {
    matches!(
        kind,
        FileKind::Compressed { .. }
            | FileKind::Archive { .. }
            | FileKind::Document { .. }
            | FileKind::Elf
            | FileKind::Binary
    )
}
