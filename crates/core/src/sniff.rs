//! Is this a trace at all? A person drops whatever file is at hand (the
//! trace still gzip-compressed, a screenshot, the ELF image) and a URL can
//! serve anything (an HTML error page, a login form); indexing such a file
//! would only list every line as unparsed, or worse, read a random line
//! that starts with `E` as an exception. The first bytes decide: magic
//! numbers name compressed files, archives, images and ELF files; control
//! bytes and broken UTF-8 mark binary data; for text, a trace has records
//! among its first lines.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::parse::{ISet, ParseOptions, Parser, RecordKind};

/// Non-empty lines looked at.
const LINES: usize = 50;

/// Why a sample is not a trace: its first non-empty line, which no dialect
/// understands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotATrace {
    /// Its number, 1-based.
    pub line: u64,
    /// Its first 80 bytes, lossily decoded, trimmed.
    pub text: String,
    /// Whether it looks like HTML (a web page served instead of the trace).
    pub(crate) html: bool,
}

impl std::fmt::Display for NotATrace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "this is not a Tarmac trace{}: line {} (\"{}\") is not in any trace format",
            if self.html { " but an HTML page" } else { "" },
            self.line,
            self.text
        )
    }
}

/// Checks that some of the first lines of `sample` parse as trace records
/// (in the dialect detected, or forced by `opts`). Blank, comment and header
/// lines prove nothing either way (a Markdown file's `# Title` reads as a
/// comment); [`LINES`] other lines without a record decide against. An
/// empty sample passes: an empty trace is a trace.
pub(crate) fn check_trace(sample: &[u8], opts: ParseOptions) -> Result<(), NotATrace> {
    // The last line of a sample may be cut short.
    let whole = match sample.iter().rposition(|&b| b == b'\n') {
        Some(i) if sample.len() as u64 >= crate::source::SAMPLE_BYTES => &sample[..i],
        _ => sample,
    };
    let mut parser = Parser::for_sample(opts, whole);
    let mut first = None;
    let mut unparsed = 0;
    for (n, line) in whole.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parser.parse_line(line).kind {
            RecordKind::Unparsed(_) => {
                first.get_or_insert((n as u64 + 1, line));
                unparsed += 1;
                if unparsed >= LINES {
                    break;
                }
            }
            RecordKind::Blank | RecordKind::Comment | RecordKind::Header(_) => {}
            _ => return Ok(()),
        }
    }
    match first {
        None => Ok(()),
        Some((line, text)) => {
            let text = String::from_utf8_lossy(&text[..text.len().min(80)]);
            let text = text.trim().to_string();
            let lower = String::from_utf8_lossy(&whole[..whole.len().min(1024)]).to_lowercase();
            Err(NotATrace {
                line,
                html: lower.contains("<html") || lower.contains("<!doctype html"),
                text,
            })
        }
    }
}

/// What a file is, judged from its first bytes ([`identify`]). Names are
/// `Cow` so the page can receive a kind from its worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileKind {
    /// No bytes at all.
    Empty,
    /// Text whose first lines hold trace records.
    Trace,
    /// A compressed file: the format's name and the command that
    /// decompresses it.
    Compressed {
        /// The format's name.
        format: Cow<'static, str>,
        /// The command that decompresses it.
        tool: Cow<'static, str>,
    },
    /// An archive of files (ZIP, tar, 7-Zip).
    Archive {
        /// The format's name.
        format: Cow<'static, str>,
    },
    /// A picture or a document (PNG, JPEG, PDF, ...).
    Document {
        /// The format's name.
        format: Cow<'static, str>,
    },
    /// An ELF executable or object file: a trace's image, not a trace.
    Elf,
    /// Bytes that are not text.
    Binary,
    /// Text, but no trace: its first lines are in no trace format.
    NotATrace(NotATrace),
}

impl FileKind {
    /// Whether the file can be read as a trace (an empty one is a trace
    /// with nothing in it).
    pub fn is_trace(&self) -> bool {
        matches!(self, FileKind::Trace | FileKind::Empty)
    }

    /// A sentence for a person who gave this file as a trace, or `None` for
    /// a trace. `name` is the file's name, used in the advice.
    pub fn problem(&self, name: &str) -> Option<String> {
        Some(match self {
            FileKind::Trace | FileKind::Empty => return None,
            FileKind::Compressed { format, tool } => format!(
                "{name} is a {format}-compressed file, not a Tarmac trace: decompress it first ({tool} {name}) and open the result"
            ),
            FileKind::Archive { format } => format!(
                "{name} is a {format} archive, not a Tarmac trace: extract the trace from it first"
            ),
            FileKind::Document { format } => {
                format!("{name} is a {format} file, not a Tarmac trace")
            }
            FileKind::Elf => format!(
                "{name} is an ELF executable, not a Tarmac trace: give it as the trace's ELF image (for symbols) and open the trace itself"
            ),
            FileKind::Binary => format!("{name} holds binary data, not a Tarmac trace (a text file)"),
            FileKind::NotATrace(e) => format!("{name}: {e}"),
        })
    }
}

/// Magic numbers at a file's start, and what they mean.
const MAGIC: &[(&[u8], FileKind)] = &[
    (
        b"\x1f\x8b",
        FileKind::Compressed {
            format: Cow::Borrowed("gzip"),
            tool: Cow::Borrowed("gunzip"),
        },
    ),
    (
        b"\x28\xb5\x2f\xfd",
        FileKind::Compressed {
            format: Cow::Borrowed("Zstandard"),
            tool: Cow::Borrowed("unzstd"),
        },
    ),
    (
        b"\xfd7zXZ\x00",
        FileKind::Compressed {
            format: Cow::Borrowed("xz"),
            tool: Cow::Borrowed("unxz"),
        },
    ),
    (
        b"BZh",
        FileKind::Compressed {
            format: Cow::Borrowed("bzip2"),
            tool: Cow::Borrowed("bunzip2"),
        },
    ),
    (
        b"\x04\x22\x4d\x18",
        FileKind::Compressed {
            format: Cow::Borrowed("LZ4"),
            tool: Cow::Borrowed("unlz4"),
        },
    ),
    (
        b"\x1f\x9d",
        FileKind::Compressed {
            format: Cow::Borrowed("compress (.Z)"),
            tool: Cow::Borrowed("uncompress"),
        },
    ),
    (
        b"PK\x03\x04",
        FileKind::Archive {
            format: Cow::Borrowed("ZIP"),
        },
    ),
    (
        b"PK\x05\x06",
        FileKind::Archive {
            format: Cow::Borrowed("ZIP"),
        },
    ),
    (
        b"7z\xbc\xaf\x27\x1c",
        FileKind::Archive {
            format: Cow::Borrowed("7-Zip"),
        },
    ),
    (
        b"\x89PNG\r\n\x1a\n",
        FileKind::Document {
            format: Cow::Borrowed("PNG image"),
        },
    ),
    (
        b"\xff\xd8\xff",
        FileKind::Document {
            format: Cow::Borrowed("JPEG image"),
        },
    ),
    (
        b"GIF87a",
        FileKind::Document {
            format: Cow::Borrowed("GIF image"),
        },
    ),
    (
        b"GIF89a",
        FileKind::Document {
            format: Cow::Borrowed("GIF image"),
        },
    ),
    (
        b"%PDF-",
        FileKind::Document {
            format: Cow::Borrowed("PDF"),
        },
    ),
    (b"\x7fELF", FileKind::Elf),
];

/// What a file is, from its first bytes (up to [`crate::source::SAMPLE_BYTES`];
/// `total` is the whole file's length, for the empty case).
pub fn identify(sample: &[u8], total: u64, opts: ParseOptions) -> FileKind {
    if total == 0 {
        return FileKind::Empty;
    }
    for (magic, kind) in MAGIC {
        if sample.starts_with(magic) {
            // "BZh" is also how a text could start: bzip2 puts its block
            // size digit next.
            if *magic == b"BZh" && !sample.get(3).is_some_and(|b| (b'1'..=b'9').contains(b)) {
                continue;
            }
            return kind.clone();
        }
    }
    if sample.len() >= 262 && &sample[257..262] == b"ustar" {
        return FileKind::Archive {
            format: Cow::Borrowed("tar"),
        };
    }
    if sample.starts_with(b"RIFF") && sample.get(8..12) == Some(b"WEBP") {
        return FileKind::Document {
            format: Cow::Borrowed("WebP image"),
        };
    }
    if is_binary(sample) {
        return FileKind::Binary;
    }
    match check_trace(sample, opts) {
        Ok(()) => FileKind::Trace,
        Err(e) => FileKind::NotATrace(e),
    }
}

/// Binary, not text: more than 2% of the bytes are control characters a
/// text has no use for, or break UTF-8. A trace damaged here and there (a
/// few NUL bytes, a Latin-1 comment) stays far below that; random,
/// compressed and encrypted bytes are far above (about 10% and 40%).
fn is_binary(sample: &[u8]) -> bool {
    let control = sample
        .iter()
        .filter(|&&b| matches!(b, 0..=8 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f))
        .count();
    let mut invalid = 0;
    for chunk in sample.utf8_chunks() {
        if !chunk.invalid().is_empty() {
            invalid += chunk.invalid().len();
        }
    }
    // A multi-byte character cut at the sample's end is not an error.
    let invalid = invalid.saturating_sub(3);
    (control + invalid) * 50 > sample.len()
}

/// How many of a sample's instructions are in each instruction set: what
/// an ELF image is checked against (`SymbolTable::architecture_mismatch`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstructionSets {
    pub(crate) a64: u64,
    /// A32 (Arm) and T32 (Thumb, ThumbEE): AArch32.
    pub(crate) a32: u64,
    pub(crate) t32: u64,
}

impl InstructionSets {
    /// Counts the instructions of `sample` (the trace's first bytes).
    pub fn of_sample(sample: &[u8], opts: ParseOptions) -> InstructionSets {
        let whole = match sample.iter().rposition(|&b| b == b'\n') {
            Some(i) => &sample[..i],
            None => sample,
        };
        let mut parser = Parser::for_sample(opts, whole);
        let mut sets = InstructionSets::default();
        for line in whole.split(|&b| b == b'\n') {
            if let RecordKind::Instruction(i) = parser.parse_line(line).kind {
                match i.iset {
                    ISet::A64 | ISet::C64 => sets.a64 += 1,
                    ISet::Arm => sets.a32 += 1,
                    ISet::Thumb | ISet::ThumbEE => sets.t32 += 1,
                }
            }
        }
        sets
    }

    pub(crate) fn total(&self) -> u64 {
        self.a64 + self.a32 + self.t32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_pass_pages_do_not() {
        let trace = b"Tarmac trace\n0 clk IT (0) 00008000 e3a00001 A svc_mon : MOV r0,#1\n";
        assert_eq!(check_trace(trace, ParseOptions::default()), Ok(()));
        assert_eq!(check_trace(b"", ParseOptions::default()), Ok(()));
        let page = b"\n<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body>nothing here</body></html>\n";
        let e = check_trace(page, ParseOptions::default()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.html);
        assert_eq!(e.text, "<!DOCTYPE html>");
        assert!(e.to_string().contains("line 2"), "{e}");
        let text = b"hello world\nthis is a README\n";
        let e = check_trace(text, ParseOptions::default()).unwrap_err();
        assert!(!e.html && e.line == 1, "{e:?}");
    }

    fn identify_bytes(bytes: &[u8]) -> FileKind {
        let sample = &bytes[..bytes.len().min(crate::source::SAMPLE_BYTES as usize)];
        identify(sample, bytes.len() as u64, ParseOptions::default())
    }

    fn xorshift_bytes(len: usize) -> Vec<u8> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn files_that_are_not_traces_are_named() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let read = |p: &str| std::fs::read(root.join(p)).unwrap();
        assert_eq!(identify_bytes(b""), FileKind::Empty);
        assert_eq!(
            identify_bytes(&read("docs/screenshot.png")),
            FileKind::Document {
                format: Cow::Borrowed("PNG image")
            }
        );
        assert_eq!(
            identify_bytes(&read("tests/data/elf/quicksort-arm-O2-fastmodel-2M.elf")),
            FileKind::Elf
        );
        assert_eq!(identify_bytes(&xorshift_bytes(100_000)), FileKind::Binary);
        // What compressors write first (their headers; the rest is binary).
        let gzip = [&[0x1f, 0x8b, 8, 8][..], &xorshift_bytes(5000)].concat();
        assert_eq!(
            identify_bytes(&gzip),
            FileKind::Compressed {
                format: Cow::Borrowed("gzip"),
                tool: Cow::Borrowed("gunzip")
            }
        );
        let zstd = [&[0x28, 0xb5, 0x2f, 0xfd][..], &xorshift_bytes(50)].concat();
        assert!(matches!(
            identify_bytes(&zstd),
            FileKind::Compressed {
                format: Cow::Borrowed("Zstandard"),
                ..
            }
        ));
        assert!(matches!(
            identify_bytes(b"BZh91AY&SY\x01\x02"),
            FileKind::Compressed {
                format: Cow::Borrowed("bzip2"),
                ..
            }
        ));
        assert!(matches!(
            identify_bytes(b"PK\x03\x04\x14\x00"),
            FileKind::Archive {
                format: Cow::Borrowed("ZIP")
            }
        ));
        let mut tar = vec![0u8; 1024];
        tar[..9].copy_from_slice(b"trace.log");
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(
            identify_bytes(&tar),
            FileKind::Archive {
                format: Cow::Borrowed("tar")
            }
        );
        // Text that starts like a bzip2 file is still judged as text.
        assert!(matches!(
            identify_bytes(b"BZh is a word\nnothing here\n"),
            FileKind::NotATrace(_)
        ));
        // Random bytes hold lines that start with `E` (an exception line to
        // the parser): the bytes decide first.
        let e_lines = [b"E\x01\x02\x03 garbage\n".repeat(200), xorshift_bytes(2000)].concat();
        assert_eq!(identify_bytes(&e_lines), FileKind::Binary);
        let problem = FileKind::Compressed {
            format: Cow::Borrowed("gzip"),
            tool: Cow::Borrowed("gunzip"),
        }
        .problem("t.gz")
        .unwrap();
        assert!(problem.contains("gunzip t.gz"), "{problem}");
        assert_eq!(FileKind::Trace.problem("t"), None);
        assert_eq!(FileKind::Empty.problem("t"), None);
    }

    #[test]
    fn a_trace_damaged_here_and_there_is_still_a_trace() {
        let line = "0 clk IT (0) 00008000 e3a00001 A svc_mon : MOV r0,#1\n";
        let mut trace = line.repeat(200).into_bytes();
        // A few NUL bytes and a Latin-1 comment.
        for at in [100, 2000, 5000] {
            trace[at] = 0;
        }
        trace.extend_from_slice(b"; caf\xe9 au lait\n");
        assert_eq!(identify_bytes(&trace), FileKind::Trace);
        let sets = InstructionSets::of_sample(&trace, ParseOptions::default());
        assert!(
            sets.a32 >= 197 && sets.a64 == 0 && sets.t32 == 0,
            "{sets:?}"
        );
    }

    #[test]
    fn instruction_sets_of_the_generated_traces() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/tracegen");
        for (name, a64, a32, t32) in [
            (
                "quicksort-aarch64-O2-fastmodel-2M.tarmac",
                true,
                false,
                false,
            ),
            ("quicksort-arm-O2-es-2M.tarmac", false, true, false),
            ("quicksort-thumb-O2-gem5-2M.tarmac", false, false, true),
        ] {
            let bytes = std::fs::read(root.join(name)).unwrap();
            let sample = &bytes[..crate::source::SAMPLE_BYTES as usize];
            let sets = InstructionSets::of_sample(sample, ParseOptions::default());
            assert_eq!(
                (sets.a64 > 0, sets.a32 > 0, sets.t32 > 0),
                (a64, a32, t32),
                "{name}: {sets:?}"
            );
        }
    }

    #[test]
    fn every_test_trace_passes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let mut dirs = vec![root];
        let mut checked = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "tarmac")
                    || path.parent().is_some_and(|p| p.ends_with("samples"))
                {
                    let bytes = std::fs::read(&path).unwrap();
                    let sample = &bytes[..bytes.len().min(crate::source::SAMPLE_BYTES as usize)];
                    assert_eq!(
                        check_trace(sample, ParseOptions::default()),
                        Ok(()),
                        "{path:?}"
                    );
                    assert_eq!(identify_bytes(&bytes), FileKind::Trace, "{path:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 20, "only {checked} traces found");
    }
}
