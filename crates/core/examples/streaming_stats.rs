//! Record counts of a trace in one streaming pass, without an index: a
//! file, or standard input (`-`), so a compressed trace can be piped in.
//!
//! ```text
//! cargo run -p tarmac-lens-core --example streaming_stats -- TRACE [--json]
//! zcat trace.tarmac.gz | cargo run -p tarmac-lens-core --example streaming_stats -- - --json
//! ```
//!
//! [`compute_stats`] reads a [`TraceSource`] once, front to back. A pipe
//! has no length and cannot be read at offsets, so `ReadSource` below makes
//! any [`Read`] a source of length [`UNKNOWN_LEN`]: the one-pass readers
//! then take the end of the trace from where its lines end. The only read
//! that goes back is of the first [`SAMPLE_BYTES`] (the sample the dialect
//! is told from, read again as the first lines), so those are kept. The
//! counts are `tarmac-lens stats`'s, as a table or as JSON.

#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::error::Error;
use std::io::{ErrorKind, Read, Write};

use tarmac_lens_core::{
    compute_stats, ParseOptions, Stats, TraceSource, SAMPLE_BYTES, UNKNOWN_LEN,
};

/// A [`Read`] as a [`TraceSource`] read front to back.
pub struct ReadSource<R> {
    reader: R,
    /// The first bytes of the stream (at most [`SAMPLE_BYTES`]).
    head: Vec<u8>,
    /// Bytes taken from `reader` so far.
    pos: u64,
}

impl<R: Read> ReadSource<R> {
    /// Reads `reader` from its current position, which is offset 0.
    pub fn new(reader: R) -> Self {
        ReadSource {
            reader,
            head: Vec::new(),
            pos: 0,
        }
    }
}

impl<R: Read> TraceSource for ReadSource<R> {
    fn len(&self) -> u64 {
        UNKNOWN_LEN
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let at = offset + done as u64;
            if at < self.head.len() as u64 {
                // Read again from the kept head.
                let from = at as usize;
                let n = (buf.len() - done).min(self.head.len() - from);
                buf[done..done + n].copy_from_slice(&self.head[from..from + n]);
                done += n;
                continue;
            }
            if at != self.pos {
                return Err(tarmac_lens_core::Error::Read(format!(
                    "a stream is read front to back: offset {at} asked for at {}",
                    self.pos
                )));
            }
            let n = match self.reader.read(&mut buf[done..]) {
                Ok(0) => break, // The end of the stream.
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(tarmac_lens_core::Error::Read(e.to_string())),
            };
            if self.pos < SAMPLE_BYTES {
                let keep = n.min((SAMPLE_BYTES - self.pos) as usize);
                self.head.extend_from_slice(&buf[done..done + keep]);
            }
            self.pos += n as u64;
            done += n;
        }
        Ok(done)
    }
}

/// Counts the records of the trace `input` gives.
pub fn compute(input: impl Read) -> tarmac_lens_core::Result<Stats> {
    // The closure hears how many bytes have been read, every 4 MiB: a
    // progress bar would go there.
    compute_stats(ReadSource::new(input), ParseOptions::default(), |_| {})
}

/// Writes the counts of the trace `input` gives, as a table or as JSON (the
/// fields of [`Stats`]).
pub fn run(input: impl Read, json: bool, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let stats = compute(input)?;
    if json {
        serde_json::to_writer_pretty(&mut *out, &stats)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "dialect   {}", stats.dialect)?;
    writeln!(out, "bytes     {}", stats.bytes)?;
    writeln!(out, "lines     {}", stats.lines)?;
    for (kind, count) in &stats.records {
        writeln!(out, "  {kind:<18} {count:>10}")?;
    }
    writeln!(out, "unparsed  {}", stats.unparsed)?;
    for line in stats.unparsed_details.iter().take(10) {
        writeln!(out, "  line {}: {}: {}", line.line, line.reason, line.text)?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, json) = match &args[..] {
        [path] => (path, false),
        [path, flag] if flag == "--json" => (path, true),
        _ => {
            eprintln!("usage: streaming_stats TRACE|- [--json]");
            std::process::exit(2)
        }
    };
    let out = &mut std::io::stdout().lock();
    let result = if path == "-" {
        run(std::io::stdin().lock(), json, out)
    } else {
        std::fs::File::open(path)
            .map_err(|e| format!("{path}: {e}").into())
            .and_then(|file| run(file, json, out))
    };
    if let Err(e) = result {
        eprintln!("streaming_stats: {e}");
        std::process::exit(1);
    }
}
