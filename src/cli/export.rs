//! `tarmac-lens export`: the calls as other tools' viewers read them,
//! Perfetto's own protobuf format (ui.perfetto.dev, its trace processor),
//! Chrome trace-event JSON (Perfetto UI, speedscope, Firefox Profiler),
//! Callgrind (KCachegrind, QCachegrind), or the executed basic blocks as
//! drcov (lighthouse, Cartographer, bncov); or every trace table as Parquet
//! (`parquet.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use tarmac_lens_core::{
    report,
    report::export::chrome::ChromeWriter,
    report::export::perfetto::PerfettoWriter,
    report::export::{callgrind, ExportReport},
    report::{calltree, names},
    CpuName, EngineOptions, ParseOptions,
};

use super::{display_name, engine_options, Common};

/// Export the calls for other tools: Perfetto's protobuf trace, Chrome
/// trace-event JSON (Perfetto UI, speedscope, Firefox Profiler) or
/// Callgrind (KCachegrind, QCachegrind); or the executed basic blocks as
/// drcov coverage (lighthouse, Cartographer, bncov); or the trace tables
/// as Parquet (DuckDB, Spark, Polars, pandas).
#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    common: Common,
    /// `perfetto`: Perfetto's protobuf trace, calls as slices on a track
    /// per core and exception level, exceptions as instant events, the
    /// instruction rate as a counter, in constant memory; `chrome`:
    /// trace-event JSON, calls as nested slices per core, exceptions and
    /// mode changes as instant events; `callgrind`: instructions per
    /// address (and source line, with DWARF) and call edges with counts
    /// and inclusive cost; `drcov`: the basic blocks of --image the trace
    /// executed, with the image as the module table; `parquet`: every
    /// trace table (docs/tables.md) as Parquet under the directory -o
    /// names, `TABLE/run=NAME/`, for each TRACE given.
    #[arg(long, value_name = "FORMAT", value_parser = ["perfetto", "chrome", "callgrind", "drcov", "parquet"])]
    format: String,
    /// parquet: more traces, each its own run.
    #[arg(value_name = "TRACE")]
    more: Vec<PathBuf>,
    /// Write to FILE instead of standard output (parquet: the directory).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// perfetto, chrome: what time counts: `trace` (the trace's
    /// timestamps; instructions when it has none) or `instructions`.
    #[arg(long, value_name = "CLOCK", default_value = "trace", value_parser = ["trace", "instructions"])]
    time: String,
    /// perfetto: cut the export into parts of at most SIZE bytes (`512M`,
    /// `2G`), each one a trace a viewer loads on its own, written as
    /// FILE-001.EXT, FILE-002.EXT, … for `-o FILE.EXT`.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "output")]
    split: Option<u64>,
}

/// Bytes, with an optional K, M or G (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 10),
        Some((i, 'm' | 'M')) => (&t[..i], 20),
        Some((i, 'g' | 'G')) => (&t[..i], 30),
        _ => (t, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{text}` is not a size: give bytes, or a number with K, M or G"))
}

/// Part `n` of a split export written as `base`: `out.pftrace` gives
/// `out-001.pftrace`.
fn part_path(base: &Path, n: u32) -> PathBuf {
    let stem = base
        .file_stem()
        .map_or_else(|| std::ffi::OsString::from("export"), |s| s.to_os_string());
    let mut name = stem;
    name.push(format!("-{n:03}"));
    if let Some(ext) = base.extension() {
        name.push(".");
        name.push(ext);
    }
    base.with_file_name(name)
}

pub fn run(args: &ExportArgs) -> i32 {
    match export(args) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("tarmac-lens: {msg}");
            1
        }
    }
}

fn export(args: &ExportArgs) -> Result<(), String> {
    let common = &args.common;
    if args.split.is_some() && args.format != "perfetto" {
        return Err("--split cuts a Perfetto export (--format perfetto) only".into());
    }
    if args.format == "parquet" {
        return super::parquet::export(common, &args.more, args.output.as_deref());
    }
    if !args.more.is_empty() {
        return Err("only --format parquet takes more than one trace".into());
    }
    if common.only_index || common.force_index || common.index.is_some() {
        super::index::obtain(common)?;
        if common.only_index {
            return Ok(());
        }
    }
    // Two passes at least (the calls, then the walk): standard input and
    // compressed traces go to a temporary file first.
    common.open_random()?;
    let image = common.image()?;
    let name = |addr: u64| names::function_name(image.as_ref(), addr, true);
    let trace = display_name(&common.trace);
    if args.format == "perfetto" {
        return perfetto(args, common, &name, &trace);
    }
    if args.format == "drcov" {
        return super::coverage::export_drcov(common, args.output.as_deref());
    }
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {}", path.display(), e))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let written = write(args, common, &name, &trace, &mut *out);
    match written {
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.contains("Broken pipe") => Ok(()),
        Err(e) => Err(e),
        Ok(reports) => {
            for r in &reports {
                warn_backwards(common, r);
            }
            Ok(())
        }
    }
}

/// Perfetto's format: a core at a time, each read twice (the calls that
/// return, then the walk), written as it goes into the output or its
/// parts.
fn perfetto(
    args: &ExportArgs,
    common: &Common,
    name: &dyn Fn(u64) -> String,
    trace: &str,
) -> Result<(), String> {
    let created = std::cell::RefCell::new(Vec::<PathBuf>::new());
    let open: Box<tarmac_lens_core::report::export::perfetto::OpenPart<'_>> =
        match (&args.output, args.split) {
            (Some(path), split) => {
                let created = &created;
                Box::new(move |n| {
                    let path = if split.is_some() {
                        part_path(path, n)
                    } else {
                        path.clone()
                    };
                    let file = std::fs::File::create(&path).map_err(|e| {
                        std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
                    })?;
                    created.borrow_mut().push(path);
                    Ok(Box::new(std::io::BufWriter::new(file)) as Box<dyn Write>)
                })
            }
            (None, _) => Box::new(|_| {
                Ok(Box::new(std::io::BufWriter::new(std::io::stdout().lock())) as Box<dyn Write>)
            }),
        };
    let mut w = PerfettoWriter::new(trace, open, args.split);
    w.instruction_time = args.time == "instructions";
    let mut written = || -> Result<Vec<ExportReport>, String> {
        let mut reports = Vec::new();
        for (label, popts, eopts) in threads(common)? {
            let r = w
                .core(
                    &label,
                    || common.open().map_err(tarmac_lens_core::Error::Read),
                    popts,
                    eopts,
                    name,
                )
                .map_err(|e| e.to_string())?;
            super::warn_unparsed(common, &r.unparsed);
            reports.push(r);
        }
        Ok(reports)
    };
    let result = written();
    let result = result.and_then(|r| w.finish().map(|_| r).map_err(|e| e.to_string()));
    match result {
        Err(e) if e.contains("Broken pipe") => Ok(()),
        Err(e) => {
            // Nothing half-written is left behind.
            for path in created.borrow().iter() {
                let _ = std::fs::remove_file(path);
            }
            Err(e)
        }
        Ok(reports) => {
            for r in &reports {
                warn_backwards(common, r);
            }
            let parts = created.borrow();
            if args.split.is_some() && !common.quiet {
                eprintln!(
                    "tarmac-lens: {} part(s): {}",
                    parts.len(),
                    parts
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            Ok(())
        }
    }
}

fn write(
    args: &ExportArgs,
    common: &Common,
    name: &dyn Fn(u64) -> String,
    trace: &str,
    out: &mut dyn Write,
) -> Result<Vec<ExportReport>, String> {
    Ok(if args.format == "chrome" {
        let mut w = ChromeWriter::new(out, trace).map_err(|e| e.to_string())?;
        w.instruction_time = args.time == "instructions";
        let mut reports = Vec::new();
        for (tid, (label, popts, eopts)) in threads(common)?.into_iter().enumerate() {
            let Some(tree) = calls(common, popts, eopts)? else {
                continue;
            };
            let r = w
                .thread(
                    tid as u32 + 1,
                    &label,
                    common.open()?,
                    popts,
                    eopts,
                    tree.root(),
                    name,
                )
                .map_err(|e| e.to_string())?;
            reports.push(r);
        }
        w.finish().map_err(|e| e.to_string())?;
        reports
    } else {
        let dwarf = match &common.image {
            Some(path) => super::lines::load(common, path)?,
            None => None,
        };
        let popts = common.parse_options();
        let eopts = engine_options(common, false);
        let tree = calls(common, popts, eopts)?;
        let r = callgrind::write(
            common.open_engine()?,
            popts,
            eopts,
            tree.as_ref().map(calltree::CallTree::root),
            trace,
            name,
            dwarf.as_ref(),
            out,
        )
        .map_err(|e| e.to_string())?;
        vec![r]
    })
}

/// The cores to export, each with its options: the one `--cpu` names,
/// every core of a trace that interleaves several (a thread each), or
/// the trace's one.
fn threads(common: &Common) -> Result<Vec<(String, ParseOptions, EngineOptions)>, String> {
    let popts = common.parse_options();
    let eopts = engine_options(common, false);
    if let Some(cpu) = common.cpu {
        return Ok(vec![(cpu.to_string(), popts, eopts)]);
    }
    let mut source = common.open()?;
    if tarmac_lens_core::check_single_core(&mut source, popts).is_ok() {
        return Ok(vec![("cpu".into(), popts, eopts)]);
    }
    let cores = tarmac_lens_core::count_cores(common.open()?, popts).map_err(|e| e.to_string())?;
    cores
        .iter()
        .map(|c| {
            let cpu = CpuName::new(c.name.as_bytes()).map_err(|e| e.to_string())?;
            Ok((
                c.name.clone(),
                ParseOptions {
                    cpu: Some(cpu),
                    ..popts
                },
                EngineOptions {
                    cpu: Some(cpu),
                    ..eopts
                },
            ))
        })
        .collect()
}

/// The activation tree every call report uses.
fn calls(
    common: &Common,
    popts: ParseOptions,
    eopts: EngineOptions,
) -> Result<Option<calltree::CallTree>, String> {
    let source = if popts.cpu.is_some() {
        common.open()?
    } else {
        common.open_engine()?
    };
    let mut analysis = report::analyse_calls(source, popts, eopts).map_err(|e| e.to_string())?;
    super::warn_unparsed(common, &analysis.unparsed);
    Ok(calltree::build_taking_calls(&mut analysis))
}

/// As `vcd --use-tarmac-timestamps` says it: time in the export cannot go
/// back either.
fn warn_backwards(common: &Common, r: &ExportReport) {
    if r.backwards_count == 0 || common.quiet {
        return;
    }
    let name = display_name(&common.trace);
    eprintln!(
        "tarmac-lens: warning: {name}: {} line(s) have a timestamp earlier than one before them; \
         each is held at the latest time before it",
        r.backwards_count
    );
    for b in &r.backwards {
        eprintln!(
            "tarmac-lens: {name}:{}: timestamp {} is before {}; held at {}",
            b.line, b.time, b.held_at, b.held_at
        );
    }
}
