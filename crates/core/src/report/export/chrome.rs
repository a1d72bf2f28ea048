//! Chrome trace-event JSON (the "JSON Object Format" of the Trace Event
//! Format document), which Perfetto UI, speedscope and Firefox Profiler
//! open: each activation a `B`/`E` pair named by its function,
//! exceptions and mode changes instant events (`ph: "i"`), one thread per
//! core.
//!
//! `ts` is in microseconds, as the format says: times in a known unit
//! (ns, ps, µs) are converted; any other (clock ticks, cycles) counts one
//! unit as 1 µs; a trace without timestamps counts instructions.

use std::io::Write;

use super::{walk, Act, Calls, ExportReport, Sink, Timing};
use crate::engine::EngineOptions;
use crate::parse::ParseOptions;
use crate::report::calltree::Activation;
use crate::source::TraceSource;
use crate::{Error, Result};

/// Writes one document, a thread at a time.
pub struct ChromeWriter<'w> {
    out: &'w mut dyn Write,
    first: bool,
    /// Time is the instruction count even where the trace has times:
    /// coarse timestamps (an ES trace's `tic` moves every few
    /// instructions) make many calls zero long, which time-based
    /// viewers do not draw.
    pub instruction_time: bool,
}

/// JSON string literal of `s`.
fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// `ticks / per_us` in decimal, exactly.
fn ts_text(ticks: u64, per_us: u64) -> String {
    if per_us <= 1 {
        return ticks.to_string();
    }
    let digits = per_us.ilog10() as usize;
    let frac = ticks % per_us;
    if frac == 0 {
        (ticks / per_us).to_string()
    } else {
        let f = format!("{frac:0digits$}");
        format!("{}.{}", ticks / per_us, f.trim_end_matches('0'))
    }
}

impl<'w> ChromeWriter<'w> {
    /// Starts the document; `process` names the one process (the trace).
    pub fn new(out: &'w mut dyn Write, process: &str) -> Result<Self> {
        let mut w = ChromeWriter {
            out,
            first: true,
            instruction_time: false,
        };
        w.raw("{\"traceEvents\":[")?;
        w.event(&format!(
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}",
            json_str(process)
        ))?;
        Ok(w)
    }

    fn raw(&mut self, s: &str) -> Result<()> {
        self.out.write_all(s.as_bytes()).map_err(Error::Write)
    }

    fn event(&mut self, e: &str) -> Result<()> {
        let sep = if self.first { "\n" } else { ",\n" };
        self.first = false;
        self.raw(sep)?;
        self.raw(e)
    }

    /// One core's activations and events as thread `tid` (from 1) named
    /// `thread`. `name` gives a function's name (empty: its address).
    #[allow(clippy::too_many_arguments)]
    pub fn thread<S: TraceSource>(
        &mut self,
        tid: u32,
        thread: &str,
        source: S,
        parse_opts: ParseOptions,
        engine_opts: EngineOptions,
        root: Activation<'_>,
        name: &dyn Fn(u64) -> String,
    ) -> Result<ExportReport> {
        self.event(&format!(
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}",
            json_str(thread)
        ))?;
        let timestamps = !self.instruction_time;
        let mut sink = ChromeSink {
            w: self,
            tid,
            per_us: 1,
            name,
        };
        walk(
            source,
            parse_opts,
            engine_opts,
            Calls::Tree(Some(root)),
            timestamps,
            &mut sink,
        )
    }

    /// Ends the document.
    pub fn finish(mut self) -> Result<()> {
        self.raw("\n]}\n")?;
        self.out.flush().map_err(Error::Write)
    }
}

struct ChromeSink<'a, 'w> {
    w: &'a mut ChromeWriter<'w>,
    tid: u32,
    per_us: u64,
    name: &'a dyn Fn(u64) -> String,
}

impl ChromeSink<'_, '_> {
    fn function(&self, pc: u64) -> String {
        let n = (self.name)(pc);
        if n.is_empty() {
            format!("0x{pc:x}")
        } else {
            n
        }
    }
}

impl Sink for ChromeSink<'_, '_> {
    fn enter(&mut self, open: &[Act], ts: u64, _instructions: u64) -> Result<()> {
        let pc = open.last().map_or(0, |a| a.pc);
        let e = format!(
            "{{\"ph\":\"B\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":{},\"cat\":\"call\"}}",
            self.tid,
            ts_text(ts, self.per_us),
            json_str(&self.function(pc))
        );
        self.w.event(&e)
    }

    fn leave(&mut self, open: &[Act], ts: u64, _instructions: u64) -> Result<()> {
        let pc = open.last().map_or(0, |a| a.pc);
        // Named as its `B`, and neither has `args`: speedscope pairs them
        // by name and arguments, and shows the arguments in the name.
        let e = format!(
            "{{\"ph\":\"E\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":{},\"cat\":\"call\"}}",
            self.tid,
            ts_text(ts, self.per_us),
            json_str(&self.function(pc))
        );
        self.w.event(&e)
    }

    fn instruction(&mut self, _open: &[Act], _pc: u64, _ts: u64) {}

    fn timing(&mut self, timing: &Timing) {
        if timing.timestamps {
            self.per_us = super::ticks_per_us(timing.unit);
        }
    }

    fn instant(&mut self, ts: u64, name: &str, category: &str) -> Result<()> {
        let e = format!(
            "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":{},\"cat\":{}}}",
            self.tid,
            ts_text(ts, self.per_us),
            json_str(name),
            json_str(category)
        );
        self.w.event(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::ts_text;

    #[test]
    fn times_print_exactly_in_microseconds() {
        assert_eq!(ts_text(1234, 1), "1234");
        assert_eq!(ts_text(1234, 1000), "1.234");
        assert_eq!(ts_text(1200, 1000), "1.2");
        assert_eq!(ts_text(5, 1_000_000), "0.000005");
        assert_eq!(ts_text(3_000_000, 1_000_000), "3");
    }
}
