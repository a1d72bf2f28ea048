//! `tarmac-lens index` and the index-file options every command shares
//! (`--index=PATH`, `--force-index`, `--no-index`, `--only-index`), with the
//! reference tools' rules: the index lives next to the trace as
//! `TRACE.index` unless told otherwise, and is rebuilt when missing, when
//! the trace changed since, or when forced. A gzip or Zstandard trace is
//! indexed over its decompressed text, read in place; its index file is
//! `TRACE.gz.index`, tied to the compressed file, and holds the
//! decompressor table too (before the index's own bytes: one file, so the
//! table is reused exactly when the index is and goes stale with it). An
//! index of the plain text is never taken for it or the other way round.
//! An xz trace is indexed over a temporary copy. Standard input
//! has no name to put an index beside: its index is written only to
//! `--index=PATH`, and always rebuilt.

use std::path::{Path, PathBuf};
use std::time::{Instant, UNIX_EPOCH};

use tarmac_lens_core::{
    compressed::{bundle, unbundle, Table},
    Index, IndexOptions, TraceIdentity, TraceSource,
};

use super::Common;

fn identity(path: &Path) -> Result<TraceIdentity, String> {
    let md = std::fs::metadata(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let mtime = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    Ok(TraceIdentity {
        len: md.len(),
        mtime,
    })
}

pub fn index_path(common: &Common) -> PathBuf {
    common.index.clone().unwrap_or_else(|| {
        let mut p = common.trace.clone().into_os_string();
        p.push(".index");
        PathBuf::from(p)
    })
}

/// Why an existing index file cannot be reused, or `None` if it can.
fn stale_reason(
    common: &Common,
    index: &Index,
    built_for: TraceIdentity,
) -> Result<Option<String>, String> {
    let now = identity(&common.trace)?;
    if built_for != now {
        return Ok(Some("the trace changed since the index was built".into()));
    }
    // A plain trace's index covers as many bytes as the file has; a
    // compressed one's covers more.
    let compressed = super::input::compression_of(&common.trace).is_some();
    if (index.summary().bytes == now.len) == compressed {
        return Ok(Some(if compressed {
            "it was built for the plain trace, and this one is compressed".into()
        } else {
            "it was built for a compressed trace, and this one is plain".into()
        }));
    }
    let o = index.options().parse;
    if o.big_endian != common.bi || o.implicit_thumb != common.implicit_thumb {
        return Ok(Some(
            "it was built with different --li/--bi or --implicit-thumb options".into(),
        ));
    }
    // An index following one core holds that core's registers and calls.
    if o.cpu != common.cpu {
        return Ok(Some("it was built following another --cpu".into()));
    }
    Ok(None)
}

/// Figures of one index build, printed as a JSON line by `index`.
pub struct Built {
    pub index: Index,
    pub seconds: f64,
    pub file_bytes: Option<u64>,
    pub reused: bool,
    /// A compressed trace's decompressor table: its checkpoints.
    pub points: Option<usize>,
}

/// Loads the index file if it is current, otherwise builds (and, unless
/// `--no-index`, writes) it.
pub fn obtain(common: &Common) -> Result<Built, String> {
    let path = index_path(common);
    let verbose = common.verbose;
    let stdin = super::input::is_stdin(&common.trace);
    let no_index = common.no_index || (stdin && common.index.is_none());
    if !common.force_index && !stdin && path.exists() {
        match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                let (table, bytes) = unbundle(&b).map_err(|e| e.to_string())?;
                Index::from_bytes(bytes)
                    .map(|(i, id)| (i, id, table, b.len()))
                    .map_err(|e| e.to_string())
            }) {
            Ok((index, id, table, len)) => match stale_reason(common, &index, id)? {
                // A compressed trace's index is of no use without its
                // table: reads would decompress from the start.
                None if table.is_some() || !compressed_in_place(common) => {
                    if verbose {
                        eprintln!("tarmac-lens: reusing index {}", path.display());
                    }
                    let points = table.as_ref().map(Table::points);
                    common.input.set_table(table);
                    return Ok(Built {
                        index,
                        seconds: 0.0,
                        file_bytes: Some(len as u64),
                        reused: true,
                        points,
                    });
                }
                None => {
                    let why = "it has no decompressor table";
                    if verbose {
                        eprintln!("tarmac-lens: rebuilding index {}: {}", path.display(), why);
                    }
                }
                Some(why) if no_index => {
                    if verbose {
                        eprintln!(
                            "tarmac-lens: index {} is stale ({}), but --no-index",
                            path.display(),
                            why
                        );
                    }
                }
                Some(why) => {
                    if verbose {
                        eprintln!("tarmac-lens: rebuilding index {}: {}", path.display(), why);
                    }
                }
            },
            Err(e) => {
                if verbose {
                    eprintln!("tarmac-lens: rebuilding index {}: {}", path.display(), e);
                }
            }
        }
    } else if verbose {
        eprintln!(
            "tarmac-lens: building index {}{}",
            path.display(),
            if common.force_index { " (forced)" } else { "" }
        );
    }
    let mut source = common.open_random()?;
    let id = if stdin {
        TraceIdentity { len: 0, mtime: 0 }
    } else {
        identity(&common.trace)?
    };
    let total = source.len();
    let bar = common.progress(total);
    let start = Instant::now();
    let opts = IndexOptions {
        parse: common.parse_options(),
        ..IndexOptions::default()
    };
    let progress = |done| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    if let super::input::Opened::InPlace(in_place) = source {
        // One pass builds the index and the decompressor table together;
        // with a thread to spare, the decompressing runs on it, ahead of
        // the parse.
        let (index, in_place) = if common.jobs() > 1 {
            let mut ahead = super::input::Ahead::spawn(in_place);
            let index = Index::build(&mut ahead, opts, progress).map_err(|e| e.to_string())?;
            (index, ahead.finish()?)
        } else {
            let mut in_place = in_place;
            let index = Index::build(&mut in_place, opts, progress).map_err(|e| e.to_string())?;
            (index, in_place)
        };
        let seconds = start.elapsed().as_secs_f64();
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let table = Some(in_place.table());
        let points = table.as_ref().map(Table::points);
        let file_bytes = match &table {
            Some(table) if !no_index => write_index(&path, &bundle(table, &index.to_bytes(id))),
            _ => None,
        };
        common.input.set_table(table);
        return Ok(Built {
            index,
            seconds,
            file_bytes,
            reused: false,
            points,
        });
    }
    // Memory-mapped when possible (no copying from the page cache); reading
    // in slices otherwise (pipes, special files).
    let file = match source.spooled_file() {
        Some(f) => f.try_clone(),
        None => std::fs::File::open(&common.trace),
    }
    .map_err(|e| format!("{}: {}", common.trace.display(), e))?;
    // SAFETY: the map is read-only and lives only for this build; if another
    // process truncates the trace meanwhile, the process may fault, as any
    // reader of a file being truncated under it may; traces are not modified
    // while being analysed.
    let jobs = common.jobs().max(1);
    let index = match unsafe { memmap2::Mmap::map(&file) } {
        // Ranges under a few MB are not worth a thread.
        Ok(map) if map.len() as u64 == total && jobs > 1 && total >= 8 << 20 => {
            let _ = map.advise(memmap2::Advice::Sequential);
            let (bar, map) = (&bar, &map);
            let (index, stats) =
                tarmac_lens_core::build_parallel_slice(map, opts, jobs, &|done, span| {
                    if let Some(b) = bar {
                        b.set_position(done);
                    }
                    // As below: indexed pages leave the resident set.
                    let page = 4096;
                    let (from, to) = (span.start.div_ceil(page) * page, span.end / page * page);
                    if to > from {
                        // SAFETY: as below; each range is read once, by its
                        // thread, and the stitch re-reads what it needs from
                        // the file.
                        let _ = unsafe {
                            map.unchecked_advise_range(
                                memmap2::UncheckedAdvice::DontNeed,
                                from as usize,
                                (to - from) as usize,
                            )
                        };
                    }
                });
            if verbose {
                eprintln!(
                    "tarmac-lens: {} ranges in {:.2} s, stitched in {:.3} s: {} joined, {} bytes parsed again",
                    stats.ranges, stats.ranges_seconds, stats.stitch_seconds, stats.joined, stats.replayed_bytes
                );
            }
            index
        }
        Ok(map) if map.len() as u64 == total => {
            let _ = map.advise(memmap2::Advice::Sequential);
            let page = 4096u64;
            let mut released = 0u64;
            Index::build_from_slice(&map, opts, |done| {
                progress(done);
                // Drop what has been indexed from this process's resident
                // set: the pages stay in the page cache, but the figure a
                // person reads (peak RSS) should measure the index, not the
                // trace.
                let upto = done / page * page;
                if upto > released {
                    // SAFETY: DontNeed on a read-only file mapping only drops
                    // our view of those pages (a later access re-reads the
                    // file), and indexing never reads behind `done` again.
                    let _ = unsafe {
                        map.unchecked_advise_range(
                            memmap2::UncheckedAdvice::DontNeed,
                            released as usize,
                            (upto - released) as usize,
                        )
                    };
                    released = upto;
                }
            })
        }
        _ => Index::build(&mut source, opts, progress).map_err(|e| e.to_string())?,
    };
    let seconds = start.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let file_bytes = if no_index {
        None
    } else {
        write_index(&path, &index.to_bytes(id))
    };
    Ok(Built {
        index,
        seconds,
        file_bytes,
        reused: false,
        points: None,
    })
}

/// Whether the trace is a gzip or Zstandard file, read in place.
fn compressed_in_place(common: &Common) -> bool {
    use super::input::Compression;
    matches!(
        super::input::compression_of(&common.trace),
        Some(Compression::Gzip | Compression::Zstd)
    )
}

/// Writes the index file; its length, or `None` if it could not be
/// written (not fatal: the index still serves this run).
fn write_index(path: &Path, bytes: &[u8]) -> Option<u64> {
    match std::fs::write(path, bytes) {
        Ok(()) => Some(bytes.len() as u64),
        Err(e) => {
            eprintln!(
                "tarmac-lens: warning: cannot write index {}: {}",
                path.display(),
                e
            );
            None
        }
    }
}

/// Peak resident set size, where the OS reports it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `tarmac-lens index TRACE`: build (or reuse) the index and print one JSON line.
pub fn cmd_index(common: &Common) -> Result<(), String> {
    let built = obtain(common)?;
    let s = built.index.summary();
    let resident = built.index.resident_bytes() as u64;
    let mb_per_s = if built.seconds > 0.0 {
        s.bytes as f64 / 1e6 / built.seconds
    } else {
        0.0
    };
    let v = serde_json::json!({
        "trace": common.trace.display().to_string(),
        "bytes": s.bytes,
        "lines": s.lines,
        "instructions": s.instructions,
        "nodes": s.nodes,
        "calls": s.calls,
        "seconds": built.seconds,
        "mb_per_s": mb_per_s,
        "index_bytes": resident,
        "index_bytes_per_trace_byte": if s.bytes > 0 { resident as f64 / s.bytes as f64 } else { 0.0 },
        "index_bytes_by_part": built
            .index
            .resident_parts()
            .iter()
            .map(|&(part, n)| (part.to_string(), n.into()))
            .collect::<serde_json::Map<_, _>>(),
        // Standard input's index is written only where --index says.
        "index_file": (!super::input::is_stdin(&common.trace) || common.index.is_some())
            .then(|| index_path(common).display().to_string()),
        "index_file_bytes": built.file_bytes,
        "reused": built.reused,
        "decompressor_points": built.points,
        "peak_rss_bytes": peak_rss_bytes(),
    });
    super::write_stdout(&format!("{}\n", v))
}
