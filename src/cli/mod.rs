//! Command-line parsing and the commands. Options follow the reference tools'
//! manual (`--li`/`--bi`, `--implicit-thumb`, `-q`/`-v`,
//! `--show-progress-meter`).

mod coverage;
mod diff;
mod export;
mod find;
mod gdb;
mod index;
mod input;
mod lines;
mod parquet;
mod reports;
mod serve;
mod sql;
mod statistics;
mod stats;
mod watch;
mod why;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser as ClapParser, Subcommand};

use tarmac_lens_core::{
    report, Dialect, EngineOptions, InstructionSets, ParseOptions, SymbolTable, TraceSource,
    UNKNOWN_LEN,
};

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
    /// Rewrite a trace in the other style (`fastmodel`: IT/IS and MR/MW lines; `es`: ES lines and LD/ST diagrams), keeping its events.
    Convert {
        #[command(flatten)]
        common: Common,
        /// The style to write: `fastmodel` or `es`.
        #[arg(long, value_name = "STYLE", value_parser = parse_style)]
        style: tarmac_lens_core::Style,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Print the tree of function calls and returns.
    Calltree {
        #[command(flatten)]
        common: Common,
        /// Diagnostics: `call_heuristics` prints how each transfer of control was judged.
        #[arg(long, value_name = "WHAT")]
        debug: Option<String>,
        /// Print each function's `file:line` beside its name (from the
        /// image's DWARF; needs --image).
        #[arg(long)]
        lines: bool,
        /// After the tree, list the calls still open at the trace's end
        /// (a hung simulation's stack), which the tree leaves out.
        #[arg(long)]
        open: bool,
    },
    /// Per function: number of calls and total time (as tarmac-profile).
    Profile {
        #[command(flatten)]
        common: Common,
        /// Name functions entered past their start without `+ offset`.
        #[arg(long)]
        no_offsets: bool,
        /// Print each function's `file:line` beside its name (from the
        /// image's DWARF; needs --image).
        #[arg(long)]
        lines: bool,
    },
    /// Folded call stacks for FlameGraph (as tarmac-flamegraph).
    Flamegraph {
        #[command(flatten)]
        common: Common,
        /// Name the outermost function without `+ offset`.
        #[arg(long)]
        no_offsets: bool,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Every visit to the given addresses or functions (as tarmac-callinfo).
    Callinfo {
        #[command(flatten)]
        common: Common,
        /// `0x` address, ELF symbol name, or address expression (`main+0x10`).
        #[arg(value_name = "ADDR", required = true)]
        addrs: Vec<String>,
    },
    /// Value-change dump of registers, memory accesses and functions (as tarmac-vcd).
    Vcd {
        #[command(flatten)]
        common: Common,
        /// Name functions entered past their start without `+ offset`.
        #[arg(long)]
        no_offsets: bool,
        /// VCD file to write (default: TRACE.vcd).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Leave out the `$date` section.
        #[arg(long)]
        no_date: bool,
        /// Use the trace's timestamps as VCD times instead of counting nodes.
        #[arg(long)]
        use_tarmac_timestamps: bool,
    },
    /// Cut the trace where the program got stuck in a loop (as tarmac-truncate).
    Truncate {
        #[command(flatten)]
        common: Common,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// How many times each source line ran, from the image's DWARF line
    /// information (needs --image): `file:line:count` with the
    /// instructions of each line, or the source annotated like gcov's
    /// when --source-dir finds it.
    Lines {
        #[command(flatten)]
        common: Common,
        /// Directory to find the source files under (the DWARF's file
        /// names are tried in it, then with their leading directories cut).
        #[arg(long, value_name = "DIR")]
        source_dir: Option<PathBuf>,
        /// Output format: text or json.
        #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    Coverage(coverage::CoverageArgs),
    Export(export::ExportArgs),
    Sql(sql::SqlArgs),
    /// Build (or reuse) the index and print its figures as one JSON line.
    Index {
        #[command(flatten)]
        common: Common,
    },
    /// The first instructions where two traces of the same program differ
    /// (address, encoding, outcome, register results, memory accesses),
    /// compared by meaning, so the traces may come from different tools.
    Diff {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        args: diff::DiffArgs,
    },
    /// The nodes where a condition on registers and memory becomes true
    /// (`x5 == 0`, `[sp+8:4] != 0`, `pc == main+0x20 && x0 == 1`), with
    /// the operands' values there. Exit status 0: found, 1: not found,
    /// 2: trouble.
    Find {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        args: find::FindArgs,
    },
    /// The nodes that read or write a register or a memory range
    /// (`--reg x5`, `--mem buf:64`, `--mem sp:0x40 --at 1200`): every one in
    /// --lines, or the next (--backward: previous) from --from, with the
    /// values accessed. Exit status 0: found, 1: not found, 2: trouble.
    Watch {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        args: watch::WatchArgs,
    },
    /// Where a value came from: the tree of writes that made a register's
    /// or memory's value after the node holding --line (`why TRACE --line
    /// 1200 x0`, `why TRACE --line 1200 sp+8:8 --depth 6`), down to
    /// immediates, never-written memory, the trace's start or --depth.
    /// Exit status 0: made, 2: trouble.
    Why {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        args: why::WhyArgs,
    },
    /// Cycle profile of a TI C64x+ EP trace: cycles and stalls by execute
    /// packet address, the discontinuities in order, SPLOOP memory and
    /// loop-buffer cycles.
    EpProfile {
        #[command(flatten)]
        common: Common,
        /// Addresses listed in the table (most cycles first).
        #[arg(long, value_name = "N", default_value_t = report::ep_profile::DEFAULT_TOP)]
        top: usize,
    },
    /// Program flow of a branch-only trace (FD/FI/FR lines): the
    /// straight-line blocks between branches, with instruction counts.
    Flow {
        #[command(flatten)]
        common: Common,
        /// Stop after N blocks.
        #[arg(long, value_name = "N")]
        max: Option<usize>,
    },
    /// Lines matching a text or regular expression, as `LINE:TEXT`.
    Search {
        #[command(flatten)]
        common: Common,
        /// Text to find (a regular expression with --regex).
        #[arg(value_name = "PATTERN")]
        pattern: String,
        /// PATTERN is a regular expression.
        #[arg(short = 'E', long)]
        regex: bool,
        /// Ignore case.
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// Only lines of this kind: instructions, registers, memory, events (repeatable).
        #[arg(long = "kind", value_name = "KIND", value_parser = parse_kind)]
        kinds: Vec<tarmac_lens_core::KindFilter>,
        /// Only lines FIRST..LAST (1-based, inclusive).
        #[arg(long, value_name = "FIRST..LAST", value_parser = parse_line_range)]
        lines: Option<(u64, u64)>,
        /// Print only the number of matching lines.
        #[arg(short = 'c', long)]
        count: bool,
        /// Stop after N matching lines.
        #[arg(short = 'm', long = "max-count", value_name = "N")]
        max: Option<u64>,
    },
    /// The cores of a multi-core trace (its `<cpu>` names), with their
    /// line and instruction counts: what `--cpu` can pick.
    Cores {
        #[command(flatten)]
        common: Common,
    },
    /// Serve the trace browser on 127.0.0.1 for this trace: the web page,
    /// its questions answered here from the index (built with every core,
    /// or reused). Prints the URL to open, which holds a secret token; from
    /// another machine, through an SSH tunnel (docs/serve.md).
    Serve {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        args: serve::ServeArgs,
    },
    /// Debug the trace with gdb: a GDB remote stub on 127.0.0.1 (or
    /// --stdio) over the index, forward and backward (reverse-step,
    /// reverse-continue), with breakpoints, watchpoints and, with
    /// --image, source lines (docs/gdb.md).
    Gdbserver {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        args: gdb::GdbArgs,
    },
    #[command(flatten)]
    Statistics(statistics::StatsCommand),
    /// Count records per kind, list unparsed lines, and measure throughput.
    Stats {
        #[command(flatten)]
        common: Common,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
}

impl Command {
    fn common(&self) -> Option<&Common> {
        match self {
            Command::Index { .. } | Command::Coverage(_) | Command::Export(_) | Command::Sql(_) => {
                None
            }
            Command::Statistics(c) => Some(c.common()),
            Command::Dump { common, .. }
            | Command::Convert { common, .. }
            | Command::Calltree { common, .. }
            | Command::Profile { common, .. }
            | Command::Lines { common, .. }
            | Command::Flamegraph { common, .. }
            | Command::Callinfo { common, .. }
            | Command::Vcd { common, .. }
            | Command::Truncate { common, .. }
            | Command::Diff { common, .. }
            | Command::Find { common, .. }
            | Command::Watch { common, .. }
            | Command::Why { common, .. }
            | Command::Search { common, .. }
            | Command::EpProfile { common, .. }
            | Command::Flow { common, .. }
            | Command::Stats { common, .. }
            | Command::Serve { common, .. }
            | Command::Gdbserver { common, .. }
            | Command::Cores { common } => Some(common),
        }
    }
}

#[derive(Args)]
pub struct Common {
    /// Trace file to read (gzip, zstd and xz too; `-`: standard input).
    #[arg(value_name = "TRACE")]
    trace: PathBuf,
    #[arg(skip)]
    input: input::Cache,
    /// Instruction lines without an instruction-set state are Thumb (an
    /// address and an encoding with nothing bracketed, as Cortex-M RTL
    /// loggers write, are Thumb without it).
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
    /// In a multi-core trace, follow this core's instructions, registers and
    /// calls (the `<cpu>` field, e.g. cpu1 or cluster0.cpu2); memory stays
    /// shared. See `cores`.
    #[arg(long, value_name = "CPU")]
    cpu: Option<tarmac_lens_core::CpuName>,
    /// ELF image of the traced program, for symbol names.
    #[arg(long, value_name = "ELF")]
    image: Option<PathBuf>,
    /// Offset from ELF symbol addresses to their addresses in the trace (C integer syntax).
    #[arg(long, value_name = "OFFSET", value_parser = parse_c_integer, allow_hyphen_values = true)]
    load_offset: Option<i64>,
    /// Where the index file lives (default: TRACE.index).
    #[arg(long, value_name = "PATH")]
    index: Option<PathBuf>,
    /// Rebuild the index even if it looks current.
    #[arg(long)]
    force_index: bool,
    /// Never write or rebuild the index file.
    #[arg(long)]
    no_index: bool,
    /// Build the index (if needed) and stop.
    #[arg(long)]
    only_index: bool,
    /// Quieter: no progress meter, no notes (diff: no output, only the status).
    #[arg(short, long)]
    quiet: bool,
    /// More verbose.
    #[arg(short, long)]
    verbose: bool,
    /// Show a progress meter even when standard error is not a terminal.
    #[arg(long)]
    show_progress_meter: bool,
    /// Threads that build the index, each over a byte range of the trace
    /// (default: the available cores, at most 8); a gzip or Zstandard
    /// trace is decompressed on a thread of its own with more than one.
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
}

/// C integer literal: decimal, 0x hex, leading-0 octal, optional sign.
fn parse_c_integer(s: &str) -> Result<i64, String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8)
    } else {
        body.parse::<u64>()
    }
    .map_err(|_| format!("'{}' is not an integer", s))?;
    let v = v as i64;
    Ok(if neg { v.wrapping_neg() } else { v })
}

fn parse_kind(s: &str) -> Result<tarmac_lens_core::KindFilter, String> {
    tarmac_lens_core::KindFilter::from_name(s)
        .ok_or_else(|| format!("unknown kind '{s}' (instructions, registers, memory, events)"))
}

fn parse_line_range(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("'{s}' is not a line range such as 100..200");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let a = a.trim().parse().map_err(|_| bad())?;
    let b = if b.trim().is_empty() {
        u64::MAX
    } else {
        b.trim().parse().map_err(|_| bad())?
    };
    Ok((a, b))
}

fn parse_style(s: &str) -> Result<tarmac_lens_core::Style, String> {
    tarmac_lens_core::Style::from_name(s)
        .ok_or_else(|| format!("unknown style '{s}' (expected fastmodel or es)"))
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
            cpu: self.cpu,
            instruction_form: None,
        }
    }

    /// The ELF image, if one was given, checked against `--li`/`--bi`.
    fn image(&self) -> Result<Option<SymbolTable>, String> {
        let Some(path) = &self.image else {
            return Ok(None);
        };
        let data = std::fs::read(path).map_err(|e| format!("{}: {}", path.display(), e))?;
        let table = SymbolTable::from_elf_bytes(&data, self.load_offset.unwrap_or(0))
            .map_err(|e| format!("{}: {}", path.display(), e))?;
        table
            .check_endianness(self.bi)
            .map_err(|e| format!("{}: {}", path.display(), e))?;
        // An image of another program names nothing right: said, not
        // refused, as the reference tools take any image.
        let mut source = self.open()?;
        let sample = tarmac_lens_core::read_sample(&mut source).map_err(|e| e.to_string())?;
        self.input.put_back(source);
        let sets = InstructionSets::of_sample(&sample, self.parse_options());
        if let Some(problem) = table.architecture_mismatch(&sets) {
            if !self.quiet {
                eprintln!("tarmac-lens: warning: {}: {problem}", path.display());
            }
        }
        Ok(Some(table))
    }

    fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
    }

    fn open(&self) -> Result<input::Opened, String> {
        (self.input).open(
            &self.trace,
            self.parse_options(),
            input::Mode::Stream,
            self.quiet,
        )
    }

    /// The trace for a command that reads it at offsets or more than once.
    fn open_random(&self) -> Result<input::Opened, String> {
        (self.input).open(
            &self.trace,
            self.parse_options(),
            input::Mode::Random,
            self.quiet,
        )
    }

    /// The trace for a command that models one CPU: refused when it
    /// interleaves cores and `--cpu` picks none.
    fn open_engine(&self) -> Result<input::Opened, String> {
        let mut source = self.open()?;
        tarmac_lens_core::check_single_core(&mut source, self.parse_options())
            .map_err(|e| format!("{}: {}", display_name(&self.trace), e))?;
        Ok(source)
    }

    /// A progress bar on stderr for big files when interactive (or asked for).
    fn progress(&self, total: u64) -> Option<indicatif::ProgressBar> {
        let wanted = self.show_progress_meter
            || (!self.quiet && std::io::stderr().is_terminal() && total >= 64 << 20);
        if !wanted || self.quiet || total == UNKNOWN_LEN {
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
    input::display_name(p)
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
    if let Some(common) = cli.command.common() {
        // The reference tools' index options apply to every command.
        if common.only_index || common.force_index || common.index.is_some() {
            if let Err(msg) = index::obtain(common) {
                eprintln!("tarmac-lens: {}", msg);
                return match cli.command {
                    Command::Diff { .. } => diff::TROUBLE,
                    Command::Find { .. } | Command::Watch { .. } | Command::Why { .. } => {
                        find::TROUBLE
                    }
                    _ => 1,
                };
            }
            if common.only_index {
                return 0;
            }
        }
    }
    let result = match cli.command {
        Command::Dump { common, output } => cmd_dump(&common, output.as_deref()),
        Command::Convert {
            common,
            style,
            output,
        } => cmd_convert(&common, style, output.as_deref()),
        Command::Stats { common, json } => stats::cmd_stats(&common, json),
        Command::Statistics(cmd) => statistics::run(&cmd),
        Command::Cores { common } => cmd_cores(&common),
        Command::Serve { common, args } => serve::cmd_serve(&common, &args),
        Command::Gdbserver { common, args } => gdb::cmd_gdbserver(&common, &args),
        Command::Index { common } => index::cmd_index(&common),
        Command::Coverage(args) => coverage::run(args),
        Command::Export(args) => return export::run(&args),
        Command::Sql(args) => return sql::run(&args),
        Command::Calltree {
            common,
            debug,
            lines,
            open,
        } => cmd_calltree(&common, debug.as_deref(), lines, open),
        Command::Profile {
            common,
            no_offsets,
            lines,
        } => reports::cmd_profile(&common, no_offsets, lines),
        Command::Lines {
            common,
            source_dir,
            format,
        } => lines::cmd_lines(&common, source_dir.as_deref(), format == "json"),
        Command::Flamegraph {
            common,
            no_offsets,
            output,
        } => reports::cmd_flamegraph(&common, no_offsets, output.as_deref()),
        Command::Callinfo { common, addrs } => reports::cmd_callinfo(&common, &addrs),
        Command::Vcd {
            common,
            no_offsets,
            output,
            no_date,
            use_tarmac_timestamps,
        } => reports::cmd_vcd(
            &common,
            no_offsets,
            output.as_deref(),
            no_date,
            use_tarmac_timestamps,
        ),
        Command::Truncate { common, output } => reports::cmd_truncate(&common, output.as_deref()),
        Command::Diff { common, args } => return diff::run(&common, &args),
        Command::Find { common, args } => return find::run(&common, &args),
        Command::Watch { common, args } => return watch::run(&common, &args),
        Command::Why { common, args } => return why::run(&common, &args),
        Command::EpProfile { common, top } => cmd_ep_profile(&common, top),
        Command::Flow { common, max } => cmd_flow(&common, max),
        Command::Search {
            common,
            pattern,
            regex,
            ignore_case,
            kinds,
            lines,
            count,
            max,
        } => cmd_search(
            &common,
            &tarmac_lens_core::SearchSpec {
                pattern,
                regex,
                ignore_case,
                kinds,
                lines,
            },
            count,
            max,
        ),
    };
    match result {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("tarmac-lens: {}", msg);
            1
        }
    }
}

fn print(text: &str) -> Result<(), String> {
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())
}

fn cmd_flow(common: &Common, max: Option<usize>) -> Result<(), String> {
    let image = common.image()?;
    let source = common.open()?;
    let flow = report::flow::flow(source, common.parse_options(), max.unwrap_or(usize::MAX))
        .map_err(|e| e.to_string())?;
    let name = display_name(&common.trace);
    if flow.blocks.is_empty() {
        return Err(format!(
            "{name}: no program-flow lines (FD/FI/FR){}",
            if flow.instruction_lines > 0 {
                "; its instruction lines show the flow themselves"
            } else {
                ""
            }
        ));
    }
    warn_unparsed(common, &flow.unparsed);
    print(&report::flow::render(&flow, image.as_ref()))
}

fn cmd_ep_profile(common: &Common, top: usize) -> Result<(), String> {
    let source = common.open()?;
    let profile = report::ep_profile::ep_profile(source, common.parse_options())
        .map_err(|e| e.to_string())?;
    let name = display_name(&common.trace);
    if profile.records.iter().sum::<u64>() == 0 {
        return Err(format!(
            "{name}: no EP trace records (is it a TI C64x+ EP trace?)"
        ));
    }
    warn_unparsed(common, &profile.unparsed);
    print(&report::ep_profile::render(&profile, top))
}

fn cmd_search(
    common: &Common,
    spec: &tarmac_lens_core::SearchSpec,
    count_only: bool,
    max: Option<u64>,
) -> Result<(), String> {
    let mut source = common.open()?;
    let sample = tarmac_lens_core::read_sample(&mut source).map_err(|e| e.to_string())?;
    let mut search =
        tarmac_lens_core::Search::new(spec, source.len(), &sample, common.parse_options())
            .map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut found = 0u64;
    let mut failed = None;
    let limit = max.unwrap_or(u64::MAX);
    while found < limit {
        let progress = search
            .step(&mut source, 64 << 20, |hit, text| {
                if found >= limit || failed.is_some() {
                    return;
                }
                found += 1;
                if count_only {
                    return;
                }
                let r = write!(out, "{}:", hit.line)
                    .and_then(|_| out.write_all(text))
                    .and_then(|_| out.write_all(b"\n"));
                if let Err(e) = r {
                    failed = Some(e.to_string());
                }
            })
            .map_err(|e| e.to_string())?;
        if let Some(e) = failed {
            return Err(e);
        }
        if progress.complete {
            break;
        }
    }
    if count_only {
        writeln!(out, "{found}").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

fn cmd_dump(common: &Common, output: Option<&Path>) -> Result<(), String> {
    let source = common.open()?;
    let opts = common.parse_options();
    match output {
        Some(path) => {
            let file =
                std::fs::File::create(path).map_err(|e| format!("{}: {}", path.display(), e))?;
            let mut w = std::io::BufWriter::new(file);
            tarmac_lens_core::dump(source, opts, &mut w).map_err(|e| e.to_string())
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = stdout.lock();
            match tarmac_lens_core::dump(source, opts, &mut w) {
                // A closed pipe (`| head`) is not an error worth reporting.
                Err(tarmac_lens_core::Error::Write(e))
                    if e.kind() == std::io::ErrorKind::BrokenPipe =>
                {
                    Ok(())
                }
                r => r.map_err(|e| e.to_string()),
            }
        }
    }
}

fn cmd_convert(
    common: &Common,
    style: tarmac_lens_core::Style,
    output: Option<&Path>,
) -> Result<(), String> {
    let source = common.open()?;
    let opts = common.parse_options();
    match output {
        Some(path) => {
            let file =
                std::fs::File::create(path).map_err(|e| format!("{}: {}", path.display(), e))?;
            let mut w = std::io::BufWriter::new(file);
            tarmac_lens_core::convert(source, opts, style, &mut w).map_err(|e| e.to_string())
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = stdout.lock();
            match tarmac_lens_core::convert(source, opts, style, &mut w) {
                Err(tarmac_lens_core::Error::Write(e))
                    if e.kind() == std::io::ErrorKind::BrokenPipe =>
                {
                    Ok(())
                }
                r => r.map_err(|e| e.to_string()),
            }
        }
    }
}

fn cmd_cores(common: &Common) -> Result<(), String> {
    let cores = tarmac_lens_core::count_cores(common.open()?, common.parse_options())
        .map_err(|e| e.to_string())?;
    if cores.is_empty() {
        return print("no <cpu> field in this trace: it is one core's\n");
    }
    let mut out = format!("{:<16} {:>14} {:>14}\n", "CPU", "LINES", "INSTRUCTIONS");
    for c in &cores {
        out.push_str(&format!(
            "{:<16} {:>14} {:>14}\n",
            c.name, c.lines, c.instructions
        ));
    }
    print(&out)
}

/// Reports' passes treat unparsable lines as text; say so, naming lines.
pub fn warn_unparsed(common: &Common, u: &report::run::UnparsedLines) {
    warn_unparsed_in(common, &display_name(&common.trace), u);
}

/// The same for another file than `common.trace` (the second trace of `diff`).
pub fn warn_unparsed_in(common: &Common, name: &str, u: &report::run::UnparsedLines) {
    if u.count == 0 || common.quiet {
        return;
    }
    eprintln!(
        "tarmac-lens: warning: {name}: {} line(s) could not be parsed and were treated as text",
        u.count
    );
    for (line, reason) in &u.first {
        eprintln!("tarmac-lens: {name}:{line}: {reason}");
    }
}

pub fn write_stdout(text: &str) -> Result<(), String> {
    write_stdout_bytes(text.as_bytes())
}

/// Writes to standard output; a closed pipe (`| head`) is not an error.
pub fn write_stdout_bytes(bytes: &[u8]) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    lock.write_all(bytes)
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

fn engine_options(common: &Common, debug_calls: bool) -> EngineOptions {
    EngineOptions {
        big_endian: common.bi,
        debug_calls,
        cpu: common.cpu,
    }
}

fn cmd_calltree(
    common: &Common,
    debug: Option<&str>,
    lines: bool,
    open: bool,
) -> Result<(), String> {
    let debug_calls = match debug {
        None => false,
        Some("call_heuristics") => true,
        Some(other) => {
            return Err(format!(
                "unknown --debug value '{}' (supported: call_heuristics)",
                other
            ))
        }
    };
    let image = common.image()?;
    let dwarf = lines::beside_names(common, lines)?;
    let mut analysis = report::analyse_calls(
        common.open_engine()?,
        common.parse_options(),
        engine_options(common, debug_calls),
    )
    .map_err(|e| e.to_string())?;
    warn_unparsed(common, &analysis.unparsed);
    let mut out = String::new();
    for d in &analysis.debug {
        out.push_str(d);
        out.push('\n');
    }
    let name = |addr: u64| {
        let name = image
            .as_ref()
            .map_or(String::new(), |i| i.function_name(addr));
        lines::with_location(name, dwarf.as_ref(), addr)
    };
    if let Some(tree) = report::calltree::build_taking_calls(&mut analysis) {
        out.push_str(&report::calltree::render(&tree, &analysis, &name));
    }
    let still_open = report::calltree::open_count(&analysis);
    if open {
        out.push_str(&report::calltree::render_open(&analysis, &name));
    } else if still_open > 0 && !common.quiet {
        // The tree is the reference tool's, byte for byte: the stack it
        // leaves out is said on standard error.
        eprintln!(
            "tarmac-lens: note: {still_open} call(s) still open at the end of the trace (--open lists them)"
        );
    }
    write_stdout(&out)
}
