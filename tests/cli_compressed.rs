//! Compressed and piped traces: a gzip, Zstandard or xz copy of a trace
//! (known by its magic bytes, not its name), or the trace on standard
//! input, gives every command the same output as the plain file; a cut or
//! damaged compressed file is an error naming the file, never a shorter
//! trace; another compression format is named, not read as text.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::data;

const TRACE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tarmac-lens"))
}

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let p = std::env::temp_dir().join(format!(
            "tarmac-lens-compressed-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

fn zstd(text: &[u8]) -> Vec<u8> {
    zstd::encode_all(text, 3).unwrap()
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
        dir.write("gzip.tarmac", &gzip(&text)),
        dir.write("zstd.trace", &zstd(&text)),
        dir.write("xz.txt", &xz(&text)),
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
    let mut c = bin();
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
    let want = bin().arg("diff").arg(&plain).arg(&plain).output().unwrap();
    assert_eq!(want.status.code(), Some(0));
    for p in &packed {
        for (a, b) in [(&plain, p), (p, &plain), (p, p)] {
            let o = bin().arg("diff").arg(a).arg(b).output().unwrap();
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
        let o = bin().arg("index").arg("-q").arg(p).output().unwrap();
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
    // Without -q, the temporary copy is said.
    let o = bin()
        .arg("index")
        .arg("--force-index")
        .arg(&packed[0])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("temporary file"));
}

fn refused(p: &Path) -> String {
    let o = bin().arg("stats").arg(p).output().unwrap();
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
    let o = bin()
        .arg("index")
        .arg("--no-index")
        .arg(dir.0.join("half.gz"))
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
        let p = dir.write(&format!("{name}.gz"), &gzip(bytes));
        let e = refused(&p);
        assert!(e.contains(format), "{e}");
    }
}
