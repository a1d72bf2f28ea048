//! SQL over the trace tables (`crates/sql`, `tarmac-lens sql`, `export
//! --format parquet`): the documented columns are the engine's, a `line`
//! range reads only its part of the trace, results stream, errors say
//! where and what, tables the trace cannot fill say so, unparsed lines are
//! a table of their own, and every output format holds the same rows.
//! Counts against an independent reading of the trace text, and the farm
//! against DuckDB and Spark, are in `tests/python/`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tarmac_lens_core::{Index, IndexOptions, SymbolTable, TraceSource};
use tarmac_lens_sql::datafusion::arrow::array::AsArray;
use tarmac_lens_sql::datafusion::arrow::datatypes::UInt64Type;
use tarmac_lens_sql::datafusion::arrow::record_batch::RecordBatch;
use tarmac_lens_sql::output::{Format, ResultWriter};
use tarmac_lens_sql::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use tarmac_lens_sql::{schema, Table, Trace};

use crate::common::{cli_stdout, data, tarmac_lens, Dir};

const QUICKSORT: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

/// A trace held in memory whose reads are counted.
struct Counted {
    data: Arc<Vec<u8>>,
    read: Arc<AtomicU64>,
}

impl TraceSource for Counted {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let start = (offset as usize).min(self.data.len());
        let n = buf.len().min(self.data.len() - start);
        buf[..n].copy_from_slice(&self.data[start..start + n]);
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// `text` indexed, as a table trace whose reads `read` counts.
fn trace_of(text: Vec<u8>, image: Option<&Path>) -> (Trace, Arc<AtomicU64>) {
    let data = Arc::new(text);
    let index = Index::build_from_slice(&data, IndexOptions::default(), |_| {});
    let read = Arc::new(AtomicU64::new(0));
    let (d, r) = (data.clone(), read.clone());
    let open = Arc::new(move || {
        Ok(Box::new(Counted {
            data: d.clone(),
            read: r.clone(),
        }) as Box<dyn TraceSource + Send>)
    });
    let mut trace = Trace::new("t", Arc::new(index), open);
    if let Some(elf) = image {
        let bytes = std::fs::read(elf).unwrap();
        let symbols = SymbolTable::from_elf_bytes(&bytes, 0).unwrap();
        let dwarf = tarmac_lens_core::DebugInfo::from_elf_bytes(bytes.into(), 0).unwrap();
        trace = trace.with_image(symbols, dwarf);
    }
    (trace, read)
}

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    tarmac_lens_sql::block_on(2, f).unwrap()
}

/// The rows of `sql` over `trace`.
fn query(trace: Trace, sql: &str) -> Result<Vec<RecordBatch>, String> {
    let ctx = tarmac_lens_sql::session(vec![Arc::new(trace)], false, 2).unwrap();
    run(async {
        let df = ctx
            .sql(sql)
            .await
            .map_err(|e| tarmac_lens_sql::QueryError::new(e, sql).to_string())?;
        df.collect()
            .await
            .map_err(|e| tarmac_lens_sql::QueryError::new(e, sql).to_string())
    })
}

fn one_u64(batches: &[RecordBatch]) -> u64 {
    let b = batches.iter().find(|b| b.num_rows() > 0).expect("a row");
    b.column(0)
        .as_primitive_opt::<UInt64Type>()
        .map(|a| a.value(0))
        .or_else(|| {
            b.column(0)
                .as_primitive_opt::<tarmac_lens_sql::datafusion::arrow::datatypes::Int64Type>()
                .map(|a| a.value(0) as u64)
        })
        .expect("an integer")
}

#[test]
fn the_tables_doc_lists_every_column_with_its_type_and_meaning() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tables.md"))
        .unwrap();
    for table in Table::ALL {
        let heading = format!("## `{}`", table.name());
        let at = doc
            .find(&heading)
            .unwrap_or_else(|| panic!("docs/tables.md has no {heading}"));
        let section = &doc[at + heading.len()..];
        let section = &section[..section.find("\n## ").unwrap_or(section.len())];
        let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
        let wanted: Vec<String> = table
            .columns()
            .iter()
            .map(|c| {
                format!(
                    "| `{}` | {} | {} | {} |",
                    c.name,
                    c.ty.name(),
                    if c.nullable { "yes" } else { "no" },
                    c.doc
                )
            })
            .collect();
        assert_eq!(rows, wanted, "docs/tables.md, {heading}");
    }
}

#[test]
fn a_line_range_reads_only_the_intervals_holding_it() {
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    let total = text.len() as u64;
    let (trace, read) = trace_of(text.clone(), None);
    let intervals = trace.index().interval_count() as u64;
    assert!(intervals >= 6, "{intervals} intervals");
    let window = query(
        trace,
        "SELECT count(*) FROM instructions WHERE line BETWEEN 20000 AND 21000",
    )
    .unwrap();
    // At most the two intervals the window straddles, of about 256 KiB.
    let bytes = read.load(Ordering::Relaxed);
    assert!(
        bytes <= 2 * (300 << 10) && bytes < total / 3,
        "{bytes} of {total} bytes read"
    );
    let (whole, read) = trace_of(text, None);
    let all = query(
        whole,
        "SELECT count(*) FROM instructions WHERE (line + pc) - pc BETWEEN 20000 AND 21000",
    )
    .unwrap();
    assert!(
        read.load(Ordering::Relaxed) >= total,
        "the unpushed filter read everything"
    );
    assert_eq!(one_u64(&window), one_u64(&all));
    assert!(one_u64(&window) > 100);
}

#[test]
fn a_time_range_reads_only_the_intervals_holding_it() {
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    let total = text.len() as u64;
    let (trace, read) = trace_of(text.clone(), None);
    let got = query(
        trace,
        "SELECT count(*), min(time), max(time) FROM registers WHERE time >= 5000 AND time < 5100",
    )
    .unwrap();
    assert!(read.load(Ordering::Relaxed) < total / 3);
    let (whole, _) = trace_of(text, None);
    let all = query(whole, "SELECT count(*) FROM registers WHERE (time + line) - line >= 5000 AND (time + line) - line < 5100").unwrap();
    assert_eq!(one_u64(&got), one_u64(&all));
    assert!(one_u64(&got) > 50);
}

/// A consumer that takes the first bytes of a result and stops (as
/// `| head` does), noting how much of the trace had been read by then.
struct FirstBytes {
    read: Arc<AtomicU64>,
    seen: Arc<AtomicU64>,
}

impl std::io::Write for FirstBytes {
    fn write(&mut self, _buf: &[u8]) -> std::io::Result<usize> {
        self.seen
            .store(self.read.load(Ordering::Relaxed), Ordering::Relaxed);
        Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "enough",
        ))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_result_streams_before_the_trace_is_read_to_its_end() {
    // The trace eight times over: its first rows are a small part of it.
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac")))
        .unwrap()
        .repeat(8);
    let total = text.len() as u64;
    let (trace, read) = trace_of(text, None);
    let ctx = tarmac_lens_sql::session(vec![Arc::new(trace)], false, 1).unwrap();
    let seen = Arc::new(AtomicU64::new(u64::MAX));
    let out = FirstBytes {
        read: read.clone(),
        seen: seen.clone(),
    };
    let q = "SELECT line, register, value_hex FROM registers";
    let r = run(tarmac_lens_sql::write_query(
        &ctx,
        q,
        tarmac_lens_sql::output::Format::Csv,
        out,
    ));
    assert!(r.unwrap_err().contains("enough"));
    let bytes = seen.load(Ordering::Relaxed);
    assert!(
        bytes < total / 4,
        "{bytes} of {total} bytes read before the first rows"
    );
    assert!(
        read.load(Ordering::Relaxed) < total / 2,
        "the rest was not read"
    );
}

#[test]
fn query_errors_name_the_position_and_what_is_wrong() {
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    let err = query(
        trace_of(text.clone(), None).0,
        "SELECT pc, nosuch FROM instructions",
    )
    .unwrap_err();
    assert!(err.contains("nosuch"), "{err}");
    assert!(err.contains("line 1, column 12"), "{err}");
    let err = query(
        trace_of(text.clone(), None).0,
        "SELECT count(*) FROM instrucions",
    )
    .unwrap_err();
    assert!(err.contains("instrucions"), "{err}");
    assert!(err.contains("line 1, column 22"), "{err}");
    assert!(err.contains("instructions, registers, memory"), "{err}");
    let err = query(trace_of(text, None).0, "SELECT line\nFROM registers WHERE").unwrap_err();
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn tables_that_need_the_image_say_so_without_one() {
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    for table in ["functions", "source_lines"] {
        let err = query(
            trace_of(text.clone(), None).0,
            &format!("SELECT * FROM {table}"),
        )
        .unwrap_err();
        assert!(
            err.contains(&format!("`{table}` needs the traced program's ELF image")),
            "{err}"
        );
    }
    let elf = data(&format!("{QUICKSORT}.elf"));
    let rows = query(
        trace_of(text, Some(&elf)).0,
        "SELECT calls FROM functions WHERE name = 'quicksort'",
    )
    .unwrap();
    assert!(one_u64(&rows) > 0);
}

#[test]
fn unparsed_lines_are_listed_and_the_rest_still_answers() {
    let text = std::fs::read_to_string(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    let clean = query(
        trace_of(text.clone().into_bytes(), None).0,
        "SELECT count(*) FROM instructions",
    )
    .unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(5000, "this is not a trace line");
    lines.insert(9000, "12 clk IT (12) zzzz");
    let damaged = lines.join("\n") + "\n";
    let rows = query(
        trace_of(damaged.clone().into_bytes(), None).0,
        "SELECT line, text, reason FROM unparsed ORDER BY line",
    )
    .unwrap();
    let b = &rows[0];
    assert_eq!(b.num_rows(), 2);
    assert_eq!(
        b.column(0).as_primitive::<UInt64Type>().values(),
        &[5001, 9001]
    );
    assert_eq!(
        b.column(1).as_string::<i32>().value(0),
        "this is not a trace line"
    );
    assert!(!b.column(2).as_string::<i32>().value(1).is_empty());
    let still = query(
        trace_of(damaged.into_bytes(), None).0,
        "SELECT count(*) FROM instructions",
    )
    .unwrap();
    assert_eq!(one_u64(&still), one_u64(&clean));
}

#[test]
fn calls_and_instructions_agree_with_the_index() {
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    let (trace, _) = trace_of(text.clone(), None);
    let summary = trace.index().summary();
    let rows = query(trace, "SELECT count(*) FROM instructions").unwrap();
    assert_eq!(one_u64(&rows), summary.instructions);
    let (trace, _) = trace_of(text.clone(), None);
    let rows = query(trace, "SELECT count(*) FROM calls").unwrap();
    assert_eq!(one_u64(&rows), summary.calls);
    // A call's own instructions plus its callees' make its inclusive count;
    // the outermost calls' own instructions and the rest add up to all.
    let (trace, _) = trace_of(text.clone(), None);
    let rows = query(
        trace,
        "SELECT count(*) FROM calls c LEFT JOIN (SELECT parent, sum(instructions) AS s \
         FROM calls WHERE parent IS NOT NULL GROUP BY parent) k ON k.parent = c.id \
         WHERE c.instructions <> c.own_instructions + coalesce(k.s, 0)",
    )
    .unwrap();
    assert_eq!(one_u64(&rows), 0);
    // A call's depth is its parent's and one; the outermost calls' is 0.
    let (trace, _) = trace_of(text.clone(), None);
    let rows = query(
        trace,
        "SELECT count(*) FROM calls c LEFT JOIN calls p ON c.parent = p.id \
         WHERE c.depth <> coalesce(p.depth + 1, 0) OR (c.parent IS NULL) <> (p.id IS NULL)",
    )
    .unwrap();
    assert_eq!(one_u64(&rows), 0);
    // Depth per instruction equals the nesting of the calls holding it.
    let (trace, _) = trace_of(text, None);
    let rows = query(
        trace,
        "SELECT count(*) FROM (SELECT i.line, i.depth, count(c.id) AS n FROM instructions i \
         LEFT JOIN calls c ON c.entry_line <= i.line AND (c.return_line IS NULL OR i.line < c.return_line) \
         WHERE i.line % 97 = 0 GROUP BY i.line, i.depth) WHERE depth <> n",
    )
    .unwrap();
    assert_eq!(one_u64(&rows), 0);
}

#[test]
fn call_times_and_lines_read_from_the_trace_are_the_nodes() {
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    // Fast Models style: time counts instructions, so a call's time is its
    // instructions, and the call line is an instruction's.
    let (trace, _) = trace_of(text.clone(), None);
    let rows = query(
        trace,
        "SELECT count(*) FROM calls WHERE return_line IS NOT NULL AND time <> instructions",
    )
    .unwrap();
    assert_eq!(one_u64(&rows), 0);
    let (trace, _) = trace_of(text, None);
    let rows = query(
        trace,
        "SELECT count(*) FROM calls c LEFT JOIN instructions i ON i.line = c.call_line \
         WHERE i.pc IS NULL OR i.pc <> c.call_pc",
    )
    .unwrap();
    assert_eq!(one_u64(&rows), 0);
}

fn scratch_traces(dir: &Dir, names: &[&str]) -> Vec<PathBuf> {
    names
        .iter()
        .map(|n| {
            let base = Path::new(n).file_name().unwrap().to_str().unwrap();
            let p = dir.path().join(format!("{base}.tarmac"));
            std::fs::copy(data(&format!("{n}.tarmac")), &p).unwrap();
            std::fs::copy(
                data(&format!("{n}.elf")),
                dir.path().join(format!("{base}.elf")),
            )
            .unwrap();
            p
        })
        .collect()
}

#[test]
fn every_output_format_holds_the_same_rows() {
    let dir = Dir::new("sql-formats");
    let t = &scratch_traces(&dir, &[QUICKSORT])[0];
    let t = t.to_str().unwrap();
    let q = "SELECT line, mnemonic, pc FROM instructions WHERE line < 400 ORDER BY line";
    let csv = String::from_utf8(cli_stdout(&["sql", t, q, "--format", "csv"])).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "line,mnemonic,pc");
    let n = lines.len() - 1;
    assert!(n > 50);
    let json: serde_json::Value =
        serde_json::from_slice(&cli_stdout(&["sql", t, q, "--format", "json"])).unwrap();
    assert_eq!(json.as_array().unwrap().len(), n);
    let first: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(json[0]["line"].as_u64().unwrap().to_string(), first[0]);
    assert_eq!(json[0]["mnemonic"].as_str().unwrap(), first[1]);
    let table = String::from_utf8(cli_stdout(&["sql", t, q])).unwrap();
    assert_eq!(table.lines().count(), n + 2);
    assert!(table.lines().next().unwrap().starts_with("line"));
    let ipc = cli_stdout(&["sql", t, q, "--format", "arrow"]);
    let reader = tarmac_lens_sql::datafusion::arrow::ipc::reader::StreamReader::try_new(
        std::io::Cursor::new(ipc),
        None,
    )
    .unwrap();
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, n);
    let pq = dir.path().join("r.parquet");
    cli_stdout(&[
        "sql",
        t,
        q,
        "--format",
        "parquet",
        "-o",
        pq.to_str().unwrap(),
    ]);
    let file = std::fs::File::open(&pq).unwrap();
    let reader =
        tarmac_lens_sql::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            file,
        )
        .unwrap()
        .build()
        .unwrap();
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, n);
}

#[test]
fn export_writes_every_table_as_parquet_partitioned_by_run() {
    let dir = Dir::new("sql-export");
    let traces = scratch_traces(
        &dir,
        &[QUICKSORT, "tracegen/quicksort-thumb-O2-fastmodel-2M"],
    );
    let out = dir.path().join("out");
    let mut args = vec!["export", "--format", "parquet", "-o", out.to_str().unwrap()];
    args.extend(traces.iter().map(|p| p.to_str().unwrap()));
    cli_stdout(&args);
    for table in Table::ALL {
        for t in &traces {
            let run = t.file_stem().unwrap().to_str().unwrap();
            let part = out
                .join(table.name())
                .join(format!("run={run}"))
                .join("part-0.parquet");
            let file =
                std::fs::File::open(&part).unwrap_or_else(|e| panic!("{}: {e}", part.display()));
            let builder = tarmac_lens_sql::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
            let kv = builder
                .metadata()
                .file_metadata()
                .key_value_metadata()
                .cloned()
                .unwrap_or_default();
            let version = kv
                .iter()
                .find(|k| k.key == schema::VERSION_KEY)
                .and_then(|k| k.value.clone());
            assert_eq!(
                version,
                Some(schema::SCHEMA_VERSION.to_string()),
                "{}",
                part.display()
            );
            let names: Vec<String> = builder
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            let wanted: Vec<String> = table.columns().iter().map(|c| c.name.to_string()).collect();
            assert_eq!(names, wanted, "{}", part.display());
        }
    }
    // The rows the files hold are the rows `sql` gives, table by table
    // (the line tables are written from one read of the trace, the others
    // through their scans), in any order.
    let t = traces[0].to_str().unwrap();
    let run = traces[0].file_stem().unwrap().to_str().unwrap();
    let elf = traces[0].with_extension("elf");
    for table in Table::ALL {
        let want = String::from_utf8(cli_stdout(&[
            "sql",
            "--image",
            elf.to_str().unwrap(),
            t,
            &format!("SELECT * FROM {}", table.name()),
            "--format",
            "csv",
        ]))
        .unwrap();
        let mut parts: Vec<PathBuf> =
            std::fs::read_dir(out.join(table.name()).join(format!("run={run}")))
                .unwrap()
                .map(|f| f.unwrap().path())
                .collect();
        parts.sort();
        let mut batches = Vec::new();
        for part in &parts {
            let file = std::fs::File::open(part).unwrap();
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                .unwrap()
                .build()
                .unwrap();
            batches.extend(reader.map(|b| b.unwrap()));
        }
        let mut csv = Vec::new();
        if let Some(first) = batches.first() {
            let schema = first.schema();
            let mut w = ResultWriter::new(Format::Csv, schema.clone(), &mut csv).unwrap();
            for batch in &batches {
                w.write(batch).unwrap();
            }
            w.finish(&schema).unwrap();
        }
        let got = String::from_utf8(csv).unwrap();
        let sorted = |text: &str| {
            let mut rows: Vec<&str> = text.lines().skip(1).collect();
            rows.sort_unstable();
            rows.join("\n")
        };
        if matches!(
            table,
            Table::Instructions | Table::Registers | Table::Memory
        ) {
            assert!(want.lines().count() > 1, "{} has rows", table.name());
        }
        assert_eq!(sorted(&got), sorted(&want), "{}", table.name());
    }
}

#[test]
fn a_farm_query_names_each_run() {
    let dir = Dir::new("sql-farm");
    scratch_traces(
        &dir,
        &[
            QUICKSORT,
            "tracegen/quicksort-arm-O2-fastmodel-2M",
            "tracegen/quicksort-thumb-O2-fastmodel-2M",
        ],
    );
    let farm = dir.path().to_str().unwrap();
    let csv = String::from_utf8(cli_stdout(&[
        "sql",
        "--farm",
        farm,
        "--jobs",
        "2",
        "SELECT run, count(*) AS n, count(function) AS named FROM instructions GROUP BY run ORDER BY run",
        "--format",
        "csv",
    ]))
    .unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(rows[0][0], "quicksort-aarch64-O2-fastmodel-2M");
    for r in &rows {
        // Each trace took its own NAME.elf.
        assert_eq!(r[1], r[2], "{csv}");
        let t = dir.path().join(format!("{}.tarmac", r[0]));
        let one = String::from_utf8(cli_stdout(&[
            "sql",
            t.to_str().unwrap(),
            "SELECT count(*) FROM instructions",
            "--format",
            "csv",
        ]))
        .unwrap();
        assert_eq!(one.lines().nth(1).unwrap(), r[1]);
    }
}

#[test]
fn the_cli_refuses_what_it_cannot_read() {
    let dir = Dir::new("sql-refusals");
    let t = &scratch_traces(&dir, &[QUICKSORT])[0];
    let out = tarmac_lens()
        .args(["sql", t.to_str().unwrap(), "SELECT * FROM functions"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--image"), "{err}");
    let out = tarmac_lens()
        .args([
            "sql",
            "--farm",
            dir.path().join("nothing-*.log").to_str().unwrap(),
            "SELECT 1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no trace there"));
}

/// `(mnemonic, count)` of every mnemonic `trace` runs, most run first.
fn mnemonic_counts(text: &[u8], filter: &str) -> Vec<(String, u64)> {
    let (trace, _) = trace_of(text.to_vec(), None);
    let sql = format!(
        "SELECT mnemonic, count(*) AS n FROM instructions {filter} GROUP BY mnemonic ORDER BY n DESC, mnemonic"
    );
    let rows = query(trace, &sql).unwrap();
    let mut out = Vec::new();
    for b in &rows {
        let names = b.column(0).as_string::<i32>();
        let counts = b
            .column(1)
            .as_primitive::<tarmac_lens_sql::datafusion::arrow::datatypes::Int64Type>();
        for i in 0..b.num_rows() {
            out.push((names.value(i).to_string(), counts.value(i) as u64));
        }
    }
    out
}

#[test]
fn a_mnemonic_filter_applied_by_the_scan_keeps_exactly_its_rows() {
    // A64, A32 with CCFAIL before failed instructions, and gem5's Thumb.
    for name in [
        QUICKSORT,
        "tracegen/quicksort-arm-O2-es-2M",
        "tracegen/quicksort-thumb-O2-gem5-2M",
    ] {
        let text = std::fs::read(data(&format!("{name}.tarmac"))).unwrap();
        let count = |sql: &str| one_u64(&query(trace_of(text.clone(), None).0, sql).unwrap());
        // Grouped, the scan filters nothing: the counts to match.
        let groups = mnemonic_counts(&text, "");
        assert!(groups.len() > 5, "{name}: {groups:?}");
        for (m, n) in groups.iter().take(12) {
            let sql = format!("SELECT count(*) FROM instructions WHERE mnemonic = '{m}'");
            assert_eq!(count(&sql), *n, "{name}: {sql}");
        }
        let [(a, na), (b, nb), ..] = &groups[..] else {
            unreachable!()
        };
        let sql = format!("SELECT count(*) FROM instructions WHERE mnemonic IN ('{a}', '{b}')");
        assert_eq!(count(&sql), na + nb, "{name}: {sql}");
        let sql = format!(
            "SELECT count(*) FROM instructions WHERE '{a}' = mnemonic AND mnemonic = '{b}'"
        );
        assert_eq!(count(&sql), 0, "{name}: {sql}");
        let lower = a.to_ascii_lowercase();
        let sql = format!("SELECT count(*) FROM instructions WHERE mnemonic = '{lower}'");
        assert_eq!(count(&sql), 0, "{name}: {sql}");
        // With a line range (pushed down too) and with the column asked for.
        let part = mnemonic_counts(&text, "WHERE line BETWEEN 1000 AND 20000");
        let (m, n) = &part[0];
        let sql = format!(
            "SELECT count(*) FROM instructions WHERE mnemonic = '{m}' AND line BETWEEN 1000 AND 20000"
        );
        assert_eq!(count(&sql), *n, "{name}: {sql}");
        let sql = format!(
            "SELECT count(*) FROM (SELECT line, mnemonic FROM instructions WHERE mnemonic = '{m}') WHERE mnemonic <> '{m}'"
        );
        assert_eq!(count(&sql), 0, "{name}: {sql}");
    }
    // The scan applies it: no filter is left in the plan.
    let text = std::fs::read(data(&format!("{QUICKSORT}.tarmac"))).unwrap();
    let plan = query(
        trace_of(text, None).0,
        "EXPLAIN SELECT count(*) FROM instructions WHERE mnemonic = 'BL'",
    )
    .unwrap();
    let plan: Vec<String> = plan
        .iter()
        .flat_map(|b| {
            let c = b.column(1).as_string::<i32>();
            (0..b.num_rows()).map(move |i| c.value(i).to_string())
        })
        .collect();
    let physical = plan.last().expect("a physical plan");
    assert!(!physical.contains("FilterExec"), "{plan:#?}");
}
