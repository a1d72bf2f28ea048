//! Perfetto's own trace format (protobuf `TracePacket`s, what
//! ui.perfetto.dev and its trace processor read natively): the calls as
//! slices, exceptions and mode changes as instant events, the instruction
//! rate as a counter, for traces whose Chrome JSON no viewer can open.
//!
//! Per core, a group track holds one track of calls per exception level
//! the core ran at (`levels`), a track of events and one of the
//! instruction rate. Function and event names are interned (each sent
//! once per file). The calls come from `export/stream.rs`: two passes,
//! memory for the open calls and a bit per node, whatever the trace's
//! size; each packet is written as soon as it is made.
//!
//! Asked for a size limit, the export is cut into parts that each load on
//! their own: a part ends the calls open at the cut and the next begins
//! them again at the same time, after the tracks and names it needs.
//!
//! Times are in nanoseconds, Perfetto's unit: a trace's nanoseconds as
//! they are, picoseconds (and microseconds, which the parser keeps in
//! picoseconds) in whole nanoseconds, rounded down; a time of unknown
//! unit (clock ticks, cycles) counts one tick as a nanosecond; a trace
//! without timestamps counts instructions.

mod cpu;
mod levels;
mod packets;
mod proto;

use super::stream::Entries;
use super::ExportReport;
use crate::engine::EngineOptions;
use crate::parse::ParseOptions;
use crate::source::TraceSource;
use crate::Result;

pub use packets::OpenPart;

/// Writes the export, a core at a time.
pub struct PerfettoWriter<'w> {
    packets: packets::Packets<'w>,
    trace: String,
    next_uuid: u64,
    next_sequence: u32,
    /// Time is the instruction count even where the trace has times (see
    /// [`super::chrome::ChromeWriter::instruction_time`]).
    pub instruction_time: bool,
}

/// Track UUIDs are global in a trace: these start from a constant of
/// their own, so that an export merged with another trace keeps them
/// apart, and two exports of one trace are the same bytes.
const UUID_BASE: u64 = 0x746c_656e_7300_0000;

impl<'w> PerfettoWriter<'w> {
    /// An export of the trace named `trace`, whose parts `open` makes:
    /// one part holding everything, or parts of at most `max_part_bytes`
    /// each.
    pub fn new(
        trace: &str,
        open: Box<OpenPart<'w>>,
        max_part_bytes: Option<u64>,
    ) -> PerfettoWriter<'w> {
        PerfettoWriter {
            packets: packets::Packets::new(open, max_part_bytes),
            trace: trace.to_string(),
            next_uuid: UUID_BASE,
            next_sequence: 1,
            instruction_time: false,
        }
    }

    /// One core's calls, events and instruction rate under a track named
    /// `label`, from two passes over the trace (`open` gives a fresh
    /// source each time). `name` gives a function's name (empty: its
    /// address).
    pub fn core<S: TraceSource>(
        &mut self,
        label: &str,
        mut open: impl FnMut() -> Result<S>,
        parse_opts: ParseOptions,
        engine_opts: EngineOptions,
        name: &dyn Fn(u64) -> String,
    ) -> Result<ExportReport> {
        let (entries, unparsed) = Entries::scan(open()?, parse_opts, engine_opts)?;
        let mut report = self.core_with(label, &entries, open()?, parse_opts, engine_opts, name)?;
        report.unparsed = unparsed;
        Ok(report)
    }

    /// [`PerfettoWriter::core`] with the first pass's entries known.
    pub(crate) fn core_with<S: TraceSource>(
        &mut self,
        label: &str,
        entries: &Entries,
        source: S,
        parse_opts: ParseOptions,
        engine_opts: EngineOptions,
        name: &dyn Fn(u64) -> String,
    ) -> Result<ExportReport> {
        let sequence = self.next_sequence;
        self.next_sequence += 2;
        let mut sink = cpu::CoreSink::new(
            &mut self.packets,
            &mut self.next_uuid,
            sequence,
            label,
            &self.trace,
            name,
        )?;
        let report = super::walk(
            source,
            parse_opts,
            engine_opts,
            super::Calls::Stream(entries),
            !self.instruction_time,
            &mut sink,
        )?;
        sink.finish()?;
        Ok(report)
    }

    /// Ends the export; says how many parts it made.
    pub fn finish(self) -> Result<u32> {
        self.packets.finish()
    }
}
