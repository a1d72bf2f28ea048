//! The fixtures the native integration tests share (`tests/tests.rs`):
//! test data, trace cases, the CLI runner, temporary folders. Each module
//! uses a different subset; this module uses none of them.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A file under tests/data.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e))
}

/// A folder of a test's own under the system's temporary one (`tag` in its
/// name), removed with everything in it when dropped. Native only, as its
/// users are.
#[cfg(not(target_arch = "wasm32"))]
pub struct Dir(tempfile::TempDir);

#[cfg(not(target_arch = "wasm32"))]
impl Dir {
    pub fn new(tag: &str) -> Dir {
        let prefix = format!("tarmac-lens-test-{tag}-");
        Dir(tempfile::Builder::new().prefix(&prefix).tempdir().unwrap())
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// Writes `bytes` as `name` (a relative path: its folders are made).
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

/// The `.tarmac` files of a folder under tests/data, by name.
pub fn tarmac_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data(dir))
        .unwrap_or_else(|e| panic!("tests/data/{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tarmac"))
        .collect();
    v.sort();
    v
}

/// The CLI under test, to add arguments to.
pub fn tarmac_lens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tarmac-lens"))
}

/// The CLI run with `args`, whatever its outcome.
pub fn run_cli(args: &[&str]) -> Output {
    tarmac_lens().args(args).output().expect("run tarmac-lens")
}

/// The standard output of the CLI run with `args`, which must succeed.
pub fn cli_stdout(args: &[&str]) -> Vec<u8> {
    let out = run_cli(args);
    assert!(
        out.status.success(),
        "tarmac-lens {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `cli_stdout` as text.
pub fn cli_text(args: &[&str]) -> String {
    String::from_utf8(cli_stdout(args)).expect("UTF-8 output")
}

/// Compares a report with the reference tool's output, naming the first
/// differing line before falling back to the whole text.
pub fn assert_same(got: &str, want: &str, what: &str) {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "{}: line {} differs", what, i + 1);
    }
    assert_eq!(
        got.lines().count(),
        want.lines().count(),
        "{}: line count",
        what
    );
    assert_eq!(got, want, "{}: bytes", what);
}

/// `trace` with each line's leading timestamp `n` (and an instruction's
/// `(n)`) written as `f(n)`.
pub fn retimed(trace: &[u8], f: impl Fn(u64) -> u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(trace.len() + trace.len() / 8);
    for line in trace.split_inclusive(|&b| b == b'\n') {
        let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            out.extend_from_slice(line);
            continue;
        }
        let n: u64 = std::str::from_utf8(&line[..digits])
            .unwrap()
            .parse()
            .unwrap();
        let text = String::from_utf8_lossy(&line[digits..])
            .replace(&format!("({n})"), &format!("({})", f(n)));
        out.extend_from_slice(f(n).to_string().as_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    out
}

/// `trace` with `lines` inserted after its line `after`.
pub fn inserted(trace: &[u8], after: usize, lines: &str) -> Vec<u8> {
    let at: usize = trace
        .split_inclusive(|&b| b == b'\n')
        .take(after)
        .map(<[u8]>::len)
        .sum();
    let mut out = trace[..at].to_vec();
    out.extend_from_slice(lines.as_bytes());
    out.extend_from_slice(&trace[at..]);
    out
}

/// Five lines the parser does not understand, one starting with a
/// timestamp later than any around line 15000 of the AArch64 quicksort
/// trace.
pub const GARBAGE: &str =
    "garbage line one\n12345 clk this is junk\n%%%\nxyz 1 2 3\nmore junk here\n";

/// Deterministic pseudo-random numbers (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A tool of the oracle, or a failure naming its Debian package.
pub fn oracle(tool: &'static str, package: &str) -> &'static str {
    let found = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "{tool} not found: install Debian's {package} (scripts/install-deps.sh does)"
    );
    tool
}

/// Addresses of the instructions `objdump -d -z` lists (`.word` and other
/// data directives left out: what the mapping symbols call data).
pub fn objdump_instructions(elf: &Path, tool: &str) -> BTreeMap<u64, String> {
    let out = Command::new(tool)
        .args(["-d", "-z"])
        .arg(elf)
        .output()
        .expect("run objdump");
    assert!(out.status.success());
    let mut v = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut fields = line.split('\t');
        let (Some(addr), Some(_enc), Some(mnemonic)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Some(addr) = addr.trim().strip_suffix(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        if mnemonic.starts_with('.') {
            continue;
        }
        let rest = fields.next().unwrap_or("");
        v.insert(addr, format!("{} {rest}", mnemonic.trim()));
    }
    v
}
