//! The trace comparison's state: the open trace compared with another in
//! a worker of its own, its progress, the divergences found and the one
//! selected, and the other trace's own session, browsed beside the open
//! one at the selected divergence's lines. Each comparison has its number
//! ([`Comparison::seq`]): closing or starting another moves it on, so a
//! late message of the last one changes nothing. The Yew component
//! (`web::components::diff_view`) starts the workers and renders this;
//! `tests/browser_model/comparison.rs` drives it with a real comparison's
//! messages.
//!
//! `S` is the page's session handle, `J` its handle on the comparison's
//! worker (dropped to stop it); the model keeps them, never looks inside.

use serde::{Deserialize, Serialize};
use tarmac_lens_core::{diff::Divergence, protocol::Progress};

use super::page::{ElfLoad, PageEvent};

/// Comparison worker -> page (`worker::diff`). JSON text like the session
/// worker's messages; `Ready`, `Failed` and `Panicked` are spelled as
/// there, because the worker's start and its panic hook post those.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DiffMsg {
    /// The worker is started.
    Ready,
    /// Bytes of both traces read, of both sizes.
    Progress {
        /// Read.
        done: u64,
        /// Both traces' lengths.
        total: u64,
    },
    /// The comparison ended.
    Done {
        /// Instruction pairs compared.
        compared: u64,
        /// What differs, in order.
        divergences: Vec<Divergence>,
        /// The list stopped at the limit: there may be more.
        capped: bool,
    },
    /// It failed: why.
    Failed {
        /// Why.
        message: String,
    },
    /// Its Rust code panicked.
    Panicked {
        /// The panic's message.
        message: String,
    },
}

/// How far the comparison got.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareState {
    /// None asked for, or closed.
    Idle,
    /// Reading both traces.
    Running {
        /// Bytes read.
        done: u64,
        /// Of both traces' lengths.
        total: u64,
    },
    /// Done.
    Done {
        /// Instruction pairs compared.
        compared: u64,
        /// What differs, in order.
        divergences: Vec<Divergence>,
        /// There may be more than listed.
        capped: bool,
    },
    /// It failed: why.
    Failed(String),
}

/// What changes the comparison. The page makes the workers and says what
/// came of it; the workers' messages carry the comparison's number.
pub enum CompareMsg<S, J> {
    /// A comparison with the trace `name` starts (the open trace and it:
    /// `total` bytes), numbered [`Comparison::seq`] as it is after
    /// [`CompareMsg::Close`].
    Start {
        /// The other trace's name.
        name: String,
        /// Both traces' lengths.
        total: u64,
        /// The page's clock now.
        now_ms: f64,
    },
    /// Its worker is started: the handle that stops it when dropped.
    Worker(J),
    /// The other trace's session for browsing, opened beside the worker.
    OtherOpened(S),
    /// A worker could not be started: why.
    StartFailed(String),
    /// Comparison `seq`'s worker says `msg`.
    Job {
        /// The comparison.
        seq: u32,
        /// What it says.
        msg: DiffMsg,
        /// The page's clock now.
        now_ms: f64,
    },
    /// Comparison `seq`'s other session says `event`.
    Other {
        /// The comparison.
        seq: u32,
        /// What it says.
        event: PageEvent,
    },
    /// A divergence chosen (by its place in the list).
    Select(usize),
    /// The comparison closed, or the open trace replaced.
    Close,
}

/// The comparison's state (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison<S, J> {
    /// The comparison's number: messages of another are late.
    pub seq: u32,
    /// Its worker, while it runs.
    pub job: Option<J>,
    /// The other trace's name.
    pub other_name: Option<String>,
    /// How far it got.
    pub state: CompareState,
    /// The page's clock when it started.
    pub started_ms: f64,
    /// The page's clock at its last progress.
    pub now_ms: f64,
    /// The divergence selected.
    pub selected: usize,
    /// The other trace's session, while there is something to browse.
    pub other: Option<S>,
    /// The other session's indexing.
    pub other_progress: Option<Progress>,
    /// The open trace's ELF image as loaded into the other session too,
    /// so both name the same functions; counted per load.
    pub other_elf: Option<ElfLoad>,
    /// Bumped per move, so selecting the same divergence again moves the
    /// views again.
    pub moves: u32,
}

impl<S, J> Default for Comparison<S, J> {
    fn default() -> Self {
        Comparison {
            seq: 0,
            job: None,
            other_name: None,
            state: CompareState::Idle,
            started_ms: 0.0,
            now_ms: 0.0,
            selected: 0,
            other: None,
            other_progress: None,
            other_elf: None,
            moves: 0,
        }
    }
}

impl<S, J> Comparison<S, J> {
    /// Applies `msg`; `false` when it changed nothing (a late or an
    /// ignored message), so the page need not render.
    pub fn update(&mut self, msg: CompareMsg<S, J>) -> bool {
        match msg {
            CompareMsg::Start {
                name,
                total,
                now_ms,
            } => {
                self.other_name = Some(name);
                self.state = CompareState::Running { done: 0, total };
                self.started_ms = now_ms;
                self.now_ms = now_ms;
            }
            CompareMsg::Worker(job) => self.job = Some(job),
            CompareMsg::OtherOpened(session) => self.other = Some(session),
            CompareMsg::StartFailed(message) => self.state = CompareState::Failed(message),
            CompareMsg::Job { seq, msg, now_ms } => {
                if seq != self.seq {
                    return false;
                }
                return self.job_says(msg, now_ms);
            }
            CompareMsg::Other { seq, event } => {
                if seq != self.seq {
                    return false;
                }
                return self.other_says(event);
            }
            CompareMsg::Select(i) => {
                self.selected = i;
                self.moves += 1;
            }
            CompareMsg::Close => {
                *self = Comparison {
                    seq: self.seq + 1,
                    moves: self.moves,
                    ..Comparison::default()
                }
            }
        }
        true
    }

    fn job_says(&mut self, msg: DiffMsg, now_ms: f64) -> bool {
        match msg {
            DiffMsg::Progress { done, total } => {
                self.state = CompareState::Running { done, total };
                self.now_ms = now_ms;
            }
            DiffMsg::Done {
                compared,
                divergences,
                capped,
            } => {
                self.job = None;
                if divergences.is_empty() {
                    // Nothing to look at side by side.
                    self.other = None;
                }
                self.state = CompareState::Done {
                    compared,
                    divergences,
                    capped,
                };
                self.selected = 0;
                self.moves += 1;
            }
            DiffMsg::Failed { message } | DiffMsg::Panicked { message } => {
                self.job = None;
                self.other = None;
                self.state = CompareState::Failed(message);
            }
            DiffMsg::Ready => return false,
        }
        true
    }

    fn other_says(&mut self, event: PageEvent) -> bool {
        match event {
            PageEvent::Progress(p) => self.other_progress = Some(p),
            PageEvent::Stats(_) => {
                if let Some(p) = &mut self.other_progress {
                    p.complete = true;
                }
            }
            PageEvent::Failed(message) => {
                self.other = None;
                self.state = CompareState::Failed(message);
            }
            PageEvent::ElfLoaded { symbols, .. } => {
                let load = self.other_elf.map_or(1, |e| e.load + 1);
                self.other_elf = Some(ElfLoad { symbols, load });
            }
            _ => return false,
        }
        true
    }

    /// The divergence selected, once done.
    pub fn selected(&self) -> Option<&Divergence> {
        match &self.state {
            CompareState::Done { divergences, .. } => divergences.get(self.selected),
            _ => None,
        }
    }

    /// Where trace A's view goes: the selected divergence's line there,
    /// with [`Comparison::moves`] so that choosing it again moves again.
    pub fn goto_a(&self) -> Option<(u32, u64)> {
        let d = self.selected()?;
        Some((self.moves, d.a.as_ref()?.line))
    }

    /// The same in trace B.
    pub fn goto_b(&self) -> Option<(u32, u64)> {
        let d = self.selected()?;
        Some((self.moves, d.b.as_ref()?.line))
    }

    /// Trace A's lines with a divergence, sorted (its view marks them).
    pub fn marked_a(&self) -> Vec<u64> {
        self.marked(|d| d.a.as_ref().map(|s| s.line))
    }

    /// The same in trace B.
    pub fn marked_b(&self) -> Vec<u64> {
        self.marked(|d| d.b.as_ref().map(|s| s.line))
    }

    fn marked(&self, line: impl Fn(&Divergence) -> Option<u64>) -> Vec<u64> {
        let mut lines: Vec<u64> = match &self.state {
            CompareState::Done { divergences, .. } => divergences.iter().filter_map(line).collect(),
            _ => Vec::new(),
        };
        lines.sort_unstable();
        lines
    }

    /// Whether the two traces are shown side by side: the other has its
    /// session and a divergence is selected.
    pub fn side_by_side(&self) -> bool {
        self.other.is_some() && self.selected().is_some()
    }
}
