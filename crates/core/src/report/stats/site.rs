//! What the pass keeps per instruction executed ([`Site`]) and per frame
//! ([`Frame`], [`Prev`]): the exception and loop trackers read them, so
//! they sit below the pass rather than in it.

use crate::decode::{self, InsnClass};
use crate::parse::ISet;

/// No site: the end of a chain of variants.
pub(crate) const NONE: u32 = u32::MAX;

/// One instruction as executed: its address, encoding and mode, and what
/// happened each time it ran.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    /// The address, with the Thumb bit for Thumb code.
    pub(crate) pc: u64,
    pub(crate) encoding: u32,
    pub(crate) width: u8,
    pub(crate) iset: ISet,
    /// Index into [`Collector::contexts`].
    pub(crate) ctx: u16,
    pub(crate) class: InsnClass,
    pub(crate) flow: decode::Flow,
    /// Index into [`Collector::mnemonics`].
    pub(crate) mnemonic: u32,
    pub(crate) executed: u64,
    /// Reached but not executed (condition failed).
    pub(crate) failed: u64,
    /// Times the next instruction in its frame was not the next in memory
    /// (branches taken), calls aside.
    pub(crate) taken: u64,
    /// Calls it made.
    pub(crate) calls: u64,
    /// Times its frame ended after it (a return).
    pub(crate) returns: u64,
    /// Trace time from it to the next instruction.
    pub(crate) time: u64,
    /// Times an exception was taken right after it, before its successor.
    pub(crate) interrupted: u64,
    /// Another site at the same address (other encoding or mode).
    pub(super) next_variant: u32,
    /// Its last execution: instruction number and time.
    pub(crate) last_index: u64,
    pub(crate) last_time: u64,
    /// The loop it heads, plus one (0: none).
    pub(crate) loop_header: u32,
}

impl Site {
    /// The address without the Thumb bit.
    pub(crate) fn addr(&self) -> u64 {
        self.pc & !1
    }

    /// Times it was reached.
    pub(crate) fn reached(&self) -> u64 {
        self.executed + self.failed
    }
}

/// The instruction before, in a frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prev {
    /// Address without the Thumb bit.
    pub(crate) addr: u64,
    pub(crate) width: u8,
    pub(crate) site: u32,
    pub(crate) executed: bool,
    /// Its line, time, node and instruction number.
    pub(crate) line: u64,
    pub(crate) time: u64,
    pub(crate) node: u64,
    pub(crate) index: u64,
}

impl Prev {
    pub(crate) fn next_addr(&self) -> u64 {
        self.addr.wrapping_add(u64::from(self.width))
    }
}

/// Why a frame was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// The trace's first frame.
    Base,
    /// A call, returning to this address (without the Thumb bit).
    Call(u64),
    /// An exception handler: the exception's number in the tracker.
    Exception(u32),
}

/// A transfer of control within a frame, for finding where a loop first
/// seen by its back-edge was entered.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Transfer {
    pub(crate) from: u64,
    pub(crate) to: u64,
    /// Instruction number and time of the instruction at `to`.
    pub(crate) index: u64,
    pub(crate) time: u64,
}

/// Most transfers a frame remembers.
pub(crate) const TRANSFER_LOG: usize = 32;

/// One level of the flow: the base, a call, or an exception handler.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub(crate) kind: FrameKind,
    pub(crate) prev: Option<Prev>,
    /// Instruction number at its start.
    pub(crate) start_index: u64,
    /// The loops being run in it: (loop, visit).
    pub(crate) visits: Vec<Visit>,
    log: [Transfer; TRANSFER_LOG],
    log_len: usize,
    log_next: usize,
}

impl Frame {
    pub(super) fn new(kind: FrameKind, start_index: u64) -> Frame {
        Frame {
            kind,
            prev: None,
            start_index,
            visits: Vec::new(),
            log: [Transfer::default(); TRANSFER_LOG],
            log_len: 0,
            log_next: 0,
        }
    }

    pub(super) fn log(&mut self, t: Transfer) {
        self.log[self.log_next] = t;
        self.log_next = (self.log_next + 1) % TRANSFER_LOG;
        self.log_len = (self.log_len + 1).min(TRANSFER_LOG);
    }

    /// The remembered transfers, latest first.
    pub(crate) fn transfers(&self) -> impl Iterator<Item = &Transfer> {
        (1..=self.log_len)
            .map(move |k| &self.log[(self.log_next + TRANSFER_LOG - k) % TRANSFER_LOG])
    }
}

/// A loop visit in progress (`loops.rs`), kept by its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Visit {
    pub(crate) id: u32,
    pub(super) start_index: u64,
    pub(super) start_time: u64,
    pub(super) header_runs: u64,
}
