//! Command-line parsing and the commands. Options follow the reference tools'
//! manual (`--li`/`--bi`, `--implicit-thumb`, `-q`/`-v`,
//! `--show-progress-meter`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Parser as ClapParser, Subcommand};

use tarmac_lens::parse::{Dialect, ParseOptions};
use tarmac_lens::source::{FileSource, TraceSource};
use tarmac_lens::stats::{self, Stats};

#[derive(ClapParser)]
#[command(
    name = "tarmac-lens",
    version,
    about = "Tarmac execution-trace analyzer",
    after_help = "Common options go after the command: tarmac-lens stats --json trace.tarmac"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the parsed events of every line, in the reference parser-test format.
    Dump {
        #[command(flatten)]
        common: Common,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Count records per kind, list unparsed lines, and measure throughput.
    Stats {
        #[command(flatten)]
        common: Common,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct Common {
    /// Trace file to read.
    #[arg(value_name = "TRACE")]
    trace: PathBuf,
    /// Instruction lines without an instruction-set state are Thumb.
    #[arg(long)]
    implicit_thumb: bool,
    /// The traced CPU is little-endian (default).
    #[arg(long, overrides_with = "bi")]
    li: bool,
    /// The traced CPU is big-endian.
    #[arg(long, overrides_with = "li")]
    bi: bool,
    /// Force the trace dialect: tarmac, armulator or ti-ep (default: detect).
    #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
    dialect: Option<Dialect>,
    /// Quieter: no progress meter.
    #[arg(short, long)]
    quiet: bool,
    /// More verbose.
    #[arg(short, long)]
    verbose: bool,
    /// Show a progress meter even when standard error is not a terminal.
    #[arg(long)]
    show_progress_meter: bool,
}

fn parse_dialect(s: &str) -> Result<Dialect, String> {
    Dialect::from_name(s)
        .ok_or_else(|| format!("unknown dialect '{}' (tarmac, armulator, ti-ep)", s))
}

impl Common {
    fn parse_options(&self) -> ParseOptions {
        ParseOptions {
            implicit_thumb: self.implicit_thumb,
            big_endian: self.bi,
            dialect: self.dialect,
        }
    }

    fn open(&self) -> Result<FileSource, String> {
        FileSource::open(&self.trace).map_err(|e| e.to_string())
    }

    /// A progress bar on stderr for big files when interactive (or asked for).
    fn progress(&self, total: u64) -> Option<indicatif::ProgressBar> {
        let wanted = self.show_progress_meter
            || (!self.quiet && std::io::stderr().is_terminal() && total >= 64 << 20);
        if !wanted || self.quiet {
            return None;
        }
        let bar = indicatif::ProgressBar::new(total);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(display_name(&self.trace));
        Some(bar)
    }
}

fn display_name(p: &Path) -> String {
    p.display().to_string()
}

pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap prints help/version to stdout with exit 0 and usage errors
            // with exit 2.
            let _ = e.print();
            return e.exit_code();
        }
    };
    let result = match cli.command {
        Command::Dump { common, output } => cmd_dump(&common, output.as_deref()),
        Command::Stats { common, json } => cmd_stats(&common, json),
    };
    match result {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("tarmac-lens: {}", msg);
            1
        }
    }
}

fn cmd_dump(common: &Common, output: Option<&Path>) -> Result<(), String> {
    let source = common.open()?;
    let opts = common.parse_options();
    match output {
        Some(path) => {
            let file =
                std::fs::File::create(path).map_err(|e| format!("{}: {}", path.display(), e))?;
            let mut w = std::io::BufWriter::new(file);
            tarmac_lens::dump::dump(source, opts, &mut w).map_err(|e| e.to_string())
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = stdout.lock();
            match tarmac_lens::dump::dump(source, opts, &mut w) {
                // A closed pipe (`| head`) is not an error worth reporting.
                Err(e) if e.0.contains("Broken pipe") => Ok(()),
                r => r.map_err(|e| e.to_string()),
            }
        }
    }
}

fn cmd_stats(common: &Common, json: bool) -> Result<(), String> {
    let source = common.open()?;
    let total = source.len();
    let bar = common.progress(total);
    let start = Instant::now();
    let stats = stats::compute(source, common.parse_options(), |done| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    })
    .map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mb_per_s = if seconds > 0.0 {
        stats.bytes as f64 / 1e6 / seconds
    } else {
        0.0
    };
    let out = if json {
        stats_json(&stats, seconds, mb_per_s)
    } else {
        stats_table(&common.trace, &stats, seconds, mb_per_s, common.verbose)
    };
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    lock.write_all(out.as_bytes())
        .and_then(|_| lock.flush())
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(|e| format!("writing output: {}", e))
}

fn stats_json(stats: &Stats, seconds: f64, mb_per_s: f64) -> String {
    let mut v = serde_json::to_value(stats).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.insert("seconds".into(), serde_json::json!(seconds));
        obj.insert("mb_per_s".into(), serde_json::json!(mb_per_s));
    }
    format!("{}\n", v)
}

fn stats_table(trace: &Path, stats: &Stats, seconds: f64, mb_per_s: f64, verbose: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "trace:    {}", trace.display());
    let _ = writeln!(s, "dialect:  {}", stats.dialect);
    let _ = writeln!(s, "bytes:    {}", stats.bytes);
    let _ = writeln!(s, "lines:    {}", stats.lines);
    let _ = writeln!(s, "records:");
    for (kind, n) in &stats.records {
        let _ = writeln!(s, "  {:<18} {:>12}", kind, n);
    }
    let _ = writeln!(s, "unparsed: {}", stats.unparsed);
    let listed = if verbose {
        stats.unparsed_details.len()
    } else {
        stats.unparsed_details.len().min(20)
    };
    for u in &stats.unparsed_details[..listed] {
        let _ = writeln!(
            s,
            "  line {}: {} (column {}): {}",
            u.line, u.reason, u.column, u.text
        );
    }
    if stats.unparsed as usize > listed {
        let _ = writeln!(s, "  ... {} more", stats.unparsed as usize - listed);
    }
    let _ = writeln!(s, "time:     {:.3} s ({:.1} MB/s)", seconds, mb_per_s);
    s
}
