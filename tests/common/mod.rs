//! Helpers shared by the native integration tests. Each test binary uses
//! a different subset.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A file under tests/data.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e))
}

/// A directory of a test's own under the system's temporary one (`tag` and
/// the process in its name), removed with everything in it when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(tag: &str) -> Dir {
        let p = std::env::temp_dir().join(format!(
            "tarmac-lens-test-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    /// Writes `bytes` as `name` (a relative path: its folders are made).
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
