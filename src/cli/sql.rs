//! `tarmac-lens sql`: a SQL query over a trace's tables (docs/tables.md),
//! or over a farm of traces at once (`--farm`, a `run` column naming each),
//! written as it streams in a table, CSV, JSON, Arrow IPC or Parquet; and
//! the traces those commands and `export --format parquet` read, each
//! indexed (or its index reused) and named.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use tarmac_lens_core::{DebugInfo, FileSource, TraceSource};
use tarmac_lens_sql::output::Format;
use tarmac_lens_sql::Trace;

use super::Common;

/// Ask a trace anything in SQL: `sql TRACE 'SELECT ...'`, or over many
/// traces with `sql --farm DIR_OR_GLOB 'SELECT ...'` (a `run` column names
/// each trace). The tables and their columns: docs/tables.md.
#[derive(Args)]
#[command(
    override_usage = "tarmac-lens sql [OPTIONS] TRACE QUERY\n       tarmac-lens sql [OPTIONS] --farm <DIR_OR_GLOB> QUERY"
)]
pub struct SqlArgs {
    /// TRACE and QUERY (with --farm, QUERY alone).
    #[arg(value_name = "TRACE QUERY", num_args = 1..=2, required = true)]
    args: Vec<String>,
    /// Query every trace a directory holds (its `*.tarmac` files) or a
    /// glob matches (`'runs/*/trace.log'`), in parallel; a `run` column
    /// names each by its file name without the extension.
    #[arg(long, value_name = "DIR_OR_GLOB")]
    farm: Option<String>,
    /// How the result is written: table, csv, json, arrow (IPC stream) or
    /// parquet.
    #[arg(long, value_name = "FORMAT", default_value = "table", value_parser = ["table", "csv", "json", "arrow", "parquet"])]
    format: String,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    traces: TraceOptions,
}

/// How the traces of `sql` and `export --format parquet` are read.
#[derive(Args, Clone)]
pub struct TraceOptions {
    /// ELF image of the traced program (names, `functions`,
    /// `source_lines`). With many traces, each without it takes its own
    /// `NAME.elf` beside it, if there is one.
    #[arg(long, value_name = "ELF")]
    image: Option<PathBuf>,
    /// Offset from ELF symbol addresses to their addresses in the trace.
    #[arg(long, value_name = "OFFSET", value_parser = super::parse_c_integer, allow_hyphen_values = true)]
    load_offset: Option<i64>,
    /// Instruction lines without an instruction-set state are Thumb.
    #[arg(long)]
    implicit_thumb: bool,
    /// The traced CPU is big-endian.
    #[arg(long)]
    bi: bool,
    /// Rebuild the index even if it looks current.
    #[arg(long)]
    force_index: bool,
    /// Never write an index file.
    #[arg(long)]
    no_index: bool,
    /// Traces indexed and partitions read at once (default: the available
    /// cores, at most 8).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// No notes on standard error.
    #[arg(short, long)]
    quiet: bool,
}

impl TraceOptions {
    /// The same options as another command's.
    pub fn from_common(c: &Common) -> TraceOptions {
        TraceOptions {
            image: c.image.clone(),
            load_offset: c.load_offset,
            implicit_thumb: c.implicit_thumb,
            bi: c.bi,
            force_index: c.force_index,
            no_index: c.no_index,
            jobs: c.jobs,
            quiet: c.quiet,
        }
    }

    pub fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
            .max(1)
    }

    /// The options the other commands take, for one trace.
    fn common(&self, trace: &Path, image: Option<PathBuf>) -> Common {
        Common {
            trace: trace.to_path_buf(),
            input: Default::default(),
            implicit_thumb: self.implicit_thumb,
            li: false,
            bi: self.bi,
            dialect: None,
            cpu: None,
            image,
            load_offset: self.load_offset,
            index: None,
            force_index: self.force_index,
            no_index: self.no_index,
            only_index: false,
            quiet: true,
            verbose: false,
            show_progress_meter: false,
            jobs: Some(1),
        }
    }
}

/// A trace's name as a `run`: its file name without the last extension.
fn run_name(path: &Path) -> String {
    path.file_stem().or_else(|| path.file_name()).map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// The ELF for `trace`: `--image`, or with many traces its `NAME.elf`.
fn image_for(opts: &TraceOptions, trace: &Path, many: bool) -> Option<PathBuf> {
    if opts.image.is_some() {
        return opts.image.clone();
    }
    let beside = trace.with_extension("elf");
    (many && beside != trace && beside.is_file()).then_some(beside)
}

/// `path` indexed (or its index reused) and opened for the tables.
fn load_one(opts: &TraceOptions, path: &Path, name: String, many: bool) -> Result<Trace, String> {
    let shown = super::display_name(path);
    if super::input::is_stdin(path) || super::input::compression_of(path).is_some() {
        return Err(format!(
            "{shown}: sql and export --format parquet read a plain trace file at random \
             offsets; decompress it first"
        ));
    }
    let common = opts.common(path, image_for(opts, path, many));
    let index = super::index::obtain(&common)?.index;
    if index.summary().bytes != FileSource::open(path).map_err(|e| e.to_string())?.len() {
        return Err(format!("{shown}: its index does not cover the whole file"));
    }
    let file = path.to_path_buf();
    let open = Arc::new(move || {
        FileSource::open(&file).map(|f| Box::new(f) as Box<dyn TraceSource + Send>)
    });
    let mut trace = Trace::new(name, Arc::new(index), open);
    if let Some(elf) = &common.image {
        let symbols = common.image()?.expect("an image was given");
        let bytes = std::fs::read(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
        let dwarf = DebugInfo::from_elf_bytes(bytes.into(), opts.load_offset.unwrap_or(0))
            .map_err(|e| format!("{}: {e}", elf.display()))?;
        trace = trace.with_image(symbols, dwarf);
    }
    Ok(trace)
}

/// `paths` loaded, `jobs` at a time, named by their file names (made
/// unique by their directory when two share one).
pub fn load(opts: &TraceOptions, paths: &[PathBuf]) -> Result<Vec<Arc<Trace>>, String> {
    let many = paths.len() > 1;
    let mut names: Vec<String> = paths.iter().map(|p| run_name(p)).collect();
    for i in 0..names.len() {
        if names.iter().filter(|n| **n == names[i]).count() > 1 {
            let dir = paths[i]
                .parent()
                .and_then(|d| d.file_name())
                .map_or(String::new(), |d| d.to_string_lossy().into_owned());
            names[i] = format!("{dir}-{}", run_name(&paths[i]));
        }
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(format!(
                "two traces would both be the run `{n}`: rename one"
            ));
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<Trace, String>>>> =
        paths.iter().map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for _ in 0..opts.jobs().min(paths.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(path) = paths.get(i) else { break };
                let r = load_one(opts, path, names[i].clone(), many);
                *slots[i].lock().expect("slot") = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .expect("slot")
                .expect("every trace loaded")
                .map(Arc::new)
        })
        .collect()
}

/// The traces `--farm` names: a directory's `*.tarmac` files, or a glob's
/// matches, in name order.
fn farm(spec: &str) -> Result<Vec<PathBuf>, String> {
    let dir = Path::new(spec);
    let mut paths: Vec<PathBuf> = if dir.is_dir() {
        std::fs::read_dir(dir)
            .map_err(|e| format!("{spec}: {e}"))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "tarmac"))
            .collect()
    } else {
        glob::glob(spec)
            .map_err(|e| format!("--farm {spec}: {e}"))?
            .filter_map(|p| p.ok())
            .filter(|p| p.is_file())
            .collect()
    };
    paths.sort();
    if paths.is_empty() {
        return Err(format!(
            "--farm {spec}: no trace there (a directory's *.tarmac files, or a glob's matches)"
        ));
    }
    Ok(paths)
}

pub fn run(args: &SqlArgs) -> i32 {
    match sql(args) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("tarmac-lens: {msg}");
            1
        }
    }
}

fn sql(args: &SqlArgs) -> Result<(), String> {
    let (paths, query) = match (&args.farm, args.args.as_slice()) {
        (Some(spec), [query]) => (farm(spec)?, query),
        (None, [trace, query]) => (vec![PathBuf::from(trace)], query),
        (Some(_), _) => return Err("with --farm, give the query alone".into()),
        (None, _) => return Err("give a trace and a query: sql TRACE 'SELECT ...'".into()),
    };
    let format = Format::from_name(&args.format).expect("clap checked the format");
    if format.is_binary()
        && args.output.is_none()
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        return Err(format!(
            "--format {} is binary: give -o FILE or redirect standard output",
            args.format
        ));
    }
    let traces = load(&args.traces, &paths)?;
    let jobs = args.traces.jobs();
    let out: Box<dyn Write + Send> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let with_run = args.farm.is_some();
    let written = tarmac_lens_sql::block_on(jobs, async move {
        let ctx = tarmac_lens_sql::session(traces, with_run, jobs).map_err(|e| e.to_string())?;
        tarmac_lens_sql::write_query(&ctx, query, format, out).await
    })
    .map_err(|e| e.to_string())?;
    match written {
        Err(e) if e.contains("Broken pipe") => Ok(()),
        r => r.map(|_| ()),
    }
}
