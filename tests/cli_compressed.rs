//! Compressed and piped traces: a gzip, Zstandard or xz copy of a trace
//! (known by its magic bytes, not its name), or the trace on standard
//! input, gives every command the same output as the plain file; a gzip or
//! Zstandard trace is read in place by the commands that read at offsets,
//! its decompressor table saved with the index and reused; a cut or
//! damaged compressed file is an error naming the file, never a shorter
//! trace; another compression format is named, not read as text.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::common::{data, tarmac_lens, Dir};

const TRACE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

fn zstd(text: &[u8]) -> Vec<u8> {
    zstd::encode_all(text, 3).unwrap()
}

/// Zstandard in frames of `frame` bytes of text: the frame starts are the
/// access points of a file read in place.
fn zstd_frames(text: &[u8], frame: usize) -> Vec<u8> {
    text.chunks(frame).flat_map(zstd).collect()
}

fn xz(text: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// The test trace's first lines (the whole trace takes long to read
/// through every command in a debug build).
fn text() -> Vec<u8> {
    let mut text = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let cut = text[..256 << 10].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    text.truncate(cut);
    text
}

/// The plain trace and its compressed copies, named without a telling
/// extension: the magic bytes decide.
fn copies(dir: &Dir) -> (PathBuf, Vec<PathBuf>) {
    let text = text();
    let plain = dir.write("plain.tarmac", &text);
    let packed = vec![
        dir.write("gzip.tarmac", gzip(&text)),
        dir.write("zstd.trace", zstd(&text)),
        dir.write("xz.txt", xz(&text)),
    ];
    (plain, packed)
}

/// Standard output without the lines that name the file or time the run.
fn output(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("trace:") && !l.starts_with("time:"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn commands(elf: &str) -> Vec<Vec<String>> {
    let image = format!("--image={elf}");
    [
        vec!["stats"],
        vec!["dump"],
        vec!["calltree", &image],
        vec!["profile", &image],
        vec!["flamegraph", &image],
        vec!["callinfo", &image, "quicksort"],
        vec!["search", "-E", "--kind", "instructions", r"\bBL\b"],
        vec!["cores"],
        vec!["convert", "--style", "es"],
        vec!["truncate"],
        vec!["vcd", "--no-date", "-o", "/dev/stdout"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect()
}

/// The command line with TRACE where the command wants it: after the
/// options, before a pattern or address.
fn run_command(cmd: &[String], trace: &Path, stdin: Option<&[u8]>) -> Output {
    let (head, tail) = match cmd[0].as_str() {
        "search" | "callinfo" => cmd.split_at(cmd.len() - 1),
        _ => (cmd, &[][..]),
    };
    let mut c = tarmac_lens();
    c.args(head).arg(trace).args(tail);
    match stdin {
        None => c.output().unwrap(),
        Some(bytes) => {
            c.stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut child = c.spawn().unwrap();
            let mut pipe = child.stdin.take().unwrap();
            let bytes = bytes.to_vec();
            let writer = std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
            let out = child.wait_with_output().unwrap();
            writer.join().unwrap();
            out
        }
    }
}

#[test]
fn compressed_copies_give_the_plain_outputs() {
    let dir = Dir::new("same");
    let (plain, packed) = copies(&dir);
    let elf = data(&format!("{TRACE}.elf"));
    for cmd in commands(elf.to_str().unwrap()) {
        let want = output(&run_command(&cmd, &plain, None), &cmd.join(" "));
        assert!(!want.is_empty(), "{cmd:?}");
        for p in &packed {
            let got = output(&run_command(&cmd, p, None), &format!("{cmd:?} {p:?}"));
            assert!(got == want, "{cmd:?} on {}", p.display());
        }
    }
}

#[test]
fn standard_input_gives_the_plain_outputs_plain_or_compressed() {
    let dir = Dir::new("stdin");
    let (plain, packed) = copies(&dir);
    let elf = data(&format!("{TRACE}.elf"));
    let stdin = Path::new("-");
    for cmd in commands(elf.to_str().unwrap()) {
        let want = output(&run_command(&cmd, &plain, None), &cmd.join(" "));
        for p in std::iter::once(&plain).chain(&packed) {
            let bytes = std::fs::read(p).unwrap();
            let got = output(
                &run_command(&cmd, stdin, Some(&bytes)),
                &format!("{cmd:?} < {p:?}"),
            );
            assert!(got == want, "{cmd:?} < {}", p.display());
        }
    }
}

#[test]
fn diff_reads_compressed_and_piped_traces() {
    let dir = Dir::new("diff");
    let (plain, packed) = copies(&dir);
    let want = tarmac_lens()
        .arg("diff")
        .arg(&plain)
        .arg(&plain)
        .output()
        .unwrap();
    assert_eq!(want.status.code(), Some(0));
    for p in &packed {
        for (a, b) in [(&plain, p), (p, &plain), (p, p)] {
            let o = tarmac_lens().arg("diff").arg(a).arg(b).output().unwrap();
            assert_eq!(o.status.code(), Some(0), "{a:?} {b:?}");
            assert_eq!(o.stdout, want.stdout);
        }
        let bytes = std::fs::read(p).unwrap();
        let o = run_command(
            &["diff".to_string(), plain.display().to_string()],
            Path::new("-"),
            Some(&bytes),
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.stdout, want.stdout);
    }
}

#[test]
fn a_compressed_trace_is_indexed_over_its_text_under_its_own_name() {
    let dir = Dir::new("index");
    let (plain, packed) = copies(&dir);
    let figures = |p: &Path| -> serde_json::Value {
        let o = tarmac_lens()
            .arg("index")
            .arg("-q")
            .arg(p)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let want = figures(&plain);
    for p in &packed {
        let got = figures(p);
        for key in ["bytes", "lines", "instructions", "nodes", "calls"] {
            assert_eq!(got[key], want[key], "{key} of {}", p.display());
        }
        let mut index = p.clone().into_os_string();
        index.push(".index");
        assert_eq!(got["index_file"], Path::new(&index).display().to_string());
        assert!(Path::new(&index).exists());
        assert_eq!(figures(p)["reused"], true);
    }
    // gzip and Zstandard are read in place, xz through a temporary copy,
    // which is said (without -q).
    for (p, copied) in [(&packed[0], false), (&packed[1], false), (&packed[2], true)] {
        let o = tarmac_lens()
            .arg("index")
            .arg("--force-index")
            .arg(p)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&o.stderr).contains("temporary file");
        assert_eq!(said, copied, "{}", p.display());
    }
}

/// Commands that read the trace at offsets (through its index): the
/// same output on gzip and Zstandard copies (one frame, and many) read
/// in place, nothing decompressed to a temporary file, and the index file
/// holds the decompressor table.
#[test]
fn random_access_commands_read_compressed_traces_in_place() {
    let dir = Dir::new("in-place");
    let text = text();
    let plain = dir.write("plain.tarmac", &text);
    let packed = [
        dir.write("gzip.tarmac", gzip(&text)),
        dir.write("zstd.trace", zstd(&text)),
        dir.write("frames.trace", zstd_frames(&text, 40 << 10)),
    ];
    let commands: [&[&str]; 5] = [
        &["find", "--all", "x1 == 0"],
        &["watch", "--reg", "x0", "--lines", "100..900"],
        &[
            "watch",
            "--reg",
            "sp",
            "--from",
            "3000",
            "--backward",
            "--max",
            "3",
        ],
        &["why", "--line", "2500", "x0"],
        &["index", "-q"],
    ];
    let run = |cmd: &[&str], trace: &Path| {
        let mut c = tarmac_lens();
        c.arg(cmd[0]).arg(trace).args(&cmd[1..]);
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "{cmd:?} {}: {}",
            trace.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !String::from_utf8_lossy(&o.stderr).contains("temporary"),
            "{cmd:?} {}",
            trace.display()
        );
        o.stdout
    };
    for cmd in commands {
        let want = run(cmd, &plain);
        assert!(!want.is_empty(), "{cmd:?}");
        for p in &packed {
            let got = run(cmd, p);
            if cmd[0] == "index" {
                let (w, g): (serde_json::Value, serde_json::Value) = (
                    serde_json::from_slice(&want).unwrap(),
                    serde_json::from_slice(&got).unwrap(),
                );
                for key in ["bytes", "lines", "instructions", "nodes", "calls"] {
                    assert_eq!(g[key], w[key], "{key} of {}", p.display());
                }
                assert_eq!(g["reused"], true, "{}", p.display());
                assert!(g["decompressor_points"].as_u64().unwrap() >= 1);
                assert!(w["decompressor_points"].is_null());
            } else {
                assert!(
                    got == want,
                    "{cmd:?} on {}:\n{}\nwant\n{}",
                    p.display(),
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want)
                );
            }
        }
    }
    // The frames file has one access point per frame.
    let o = run(&["index", "-q", "--force-index"], &packed[2]);
    let v: serde_json::Value = serde_json::from_slice(&o).unwrap();
    assert_eq!(v["decompressor_points"], text.len().div_ceil(40 << 10));
}

/// The decompressor table saved with the index is what a later command
/// reads through: after the first run, a stretch of the compressed file
/// between two access points is damaged (length and time kept, so the
/// index stays current). A later command reading past it answers as
/// before, which it could not if it decompressed from the start; with
/// the index rebuilt, the damage is met and named.
#[test]
fn a_later_command_reads_through_the_saved_table() {
    let dir = Dir::new("table");
    // About 11.7 MB of text: access points every 4 MiB.
    let one = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let text = one.repeat(7);
    let lines = text.iter().filter(|&&b| b == b'\n').count();
    let late = (lines - 2000).to_string();
    let p = dir.write("big.tarmac", gzip(&text));
    let watch = |extra: &[&str]| {
        tarmac_lens()
            .arg("watch")
            .arg(&p)
            .args(["--reg", "x0", "--from", &late, "--max", "2"])
            .args(extra)
            .output()
            .unwrap()
    };
    let index = tarmac_lens()
        .arg("index")
        .arg("-q")
        .arg(&p)
        .output()
        .unwrap();
    let figures: serde_json::Value = serde_json::from_slice(&index.stdout).unwrap();
    assert!(figures["decompressor_points"].as_u64().unwrap() >= 3);
    let want = watch(&[]);
    assert!(want.status.success());
    assert!(!want.stdout.is_empty());

    // Damage in the middle of the file: between the access points at
    // 4 MiB and 8 MiB of text, well before the lines watched.
    let mut gz = std::fs::read(&p).unwrap();
    let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
    let middle = gz.len() / 2;
    for b in &mut gz[middle..middle + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(&p, &gz).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(mtime)
        .unwrap();

    let again = watch(&[]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(again.stdout, want.stdout);
    let rebuilt = watch(&["--force-index"]);
    assert!(!rebuilt.status.success());
    let e = String::from_utf8_lossy(&rebuilt.stderr);
    assert!(e.contains("big.tarmac") && e.contains("gzip"), "{e}");
}

/// `index` inflates a gzip or Zstandard trace on a thread ahead of the
/// parse when it has more than one (`--jobs`): the index file, with its
/// decompressor table, is byte for byte the one a single thread writes;
/// a cut or damaged stream is the same error either way, naming the
/// file and the problem, never a hang.
#[test]
fn indexing_with_the_inflating_thread_writes_the_one_thread_file() {
    let dir = Dir::new("ahead");
    let one = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let text = one.repeat(3);
    let packed = [
        dir.write("t.gz", gzip(&text)),
        dir.write("t.zst", zstd_frames(&text, 1 << 20)),
    ];
    let index = |p: &Path, jobs: &str| {
        let o = tarmac_lens()
            .args(["index", "-q", "--force-index", "--jobs", jobs])
            .arg(p)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut file = p.as_os_str().to_owned();
        file.push(".index");
        std::fs::read(file).unwrap()
    };
    for p in &packed {
        let alone = index(p, "1");
        assert!(index(p, "2") == alone, "{}", p.display());
    }

    let mut gz = gzip(&text);
    let cut = dir.write("cut.gz", &gz[..gz.len() / 2]);
    let at = gz.len() * 2 / 3;
    for b in &mut gz[at..at + 64] {
        *b ^= 0x5a;
    }
    let damaged = dir.write("damaged.gz", &gz);
    for (p, name, problem) in [
        (&cut, "cut.gz", "the file ends inside a deflate stream"),
        (&damaged, "damaged.gz", "stream damaged at compressed byte"),
    ] {
        let errors: Vec<String> = ["1", "2"]
            .iter()
            .map(|jobs| {
                let o = tarmac_lens()
                    .args(["index", "-q", "--no-index", "--jobs", jobs])
                    .arg(p)
                    .output()
                    .unwrap();
                assert!(!o.status.success());
                String::from_utf8_lossy(&o.stderr).into_owned()
            })
            .collect();
        let e = &errors[0];
        assert!(
            e.contains(name) && e.contains("gzip") && e.contains(problem),
            "{e}"
        );
        assert_eq!(errors[0], errors[1]);
    }
}

fn refused(p: &Path) -> String {
    let o = tarmac_lens().arg("stats").arg(p).output().unwrap();
    assert!(!o.status.success(), "{} was read", p.display());
    assert!(o.stdout.is_empty());
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_cut_or_damaged_file_is_an_error_naming_it() {
    let dir = Dir::new("bad");
    let text = text();
    let gz = gzip(&text);
    for (name, bytes) in [
        ("half.gz", &gz[..gz.len() / 2]),
        // All the data, without the trailer's checksum and length.
        ("notrailer.gz", &gz[..gz.len() - 8]),
    ] {
        let p = dir.write(name, bytes);
        let e = refused(&p);
        assert!(
            e.contains(name) && e.contains("gzip") && e.contains("cut short"),
            "{e}"
        );
        // As the stream on standard input, too.
        let o = run_command(&["stats".to_string()], Path::new("-"), Some(bytes));
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("cut short"));
    }
    let mut zst = zstd(&text);
    let middle = zst.len() / 2;
    for b in &mut zst[middle..middle + 16] {
        *b ^= 0x55;
    }
    let p = dir.write("damaged.zst", &zst);
    let e = refused(&p);
    assert!(
        e.contains("damaged.zst") && e.contains("Zstandard") && e.contains("corrupt"),
        "{e}"
    );
    let x = xz(&text);
    let p = dir.write("cut.xz", &x[..x.len() - 20]);
    let e = refused(&p);
    assert!(e.contains("cut.xz") && e.contains("xz"), "{e}");
    // Random-access commands read the whole stream first: the same error.
    let o = tarmac_lens()
        .arg("index")
        .arg("--no-index")
        .arg(dir.path().join("half.gz"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("half.gz"));
}

#[test]
fn other_compression_formats_are_named() {
    let dir = Dir::new("other");
    for (name, bytes, format) in [
        ("t.bz2", &b"BZh91AY&SY\x00\x01\x02\x03"[..], "bzip2"),
        ("t.lz4", &b"\x04\x22\x4d\x18\x64\x40\xa7"[..], "LZ4"),
        ("t.zip", &b"PK\x03\x04\x14\x00\x00\x00"[..], "ZIP"),
    ] {
        let p = dir.write(name, bytes);
        let e = refused(&p);
        assert!(e.contains(name) && e.contains(format), "{e}");
        // Also inside a gzip file.
        let p = dir.write(&format!("{name}.gz"), gzip(bytes));
        let e = refused(&p);
        assert!(e.contains(format), "{e}");
    }
}
