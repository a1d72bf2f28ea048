//! Is this a trace at all? A URL can serve anything (an HTML error page, a
//! login form), and indexing it would only list every line as unparsed.
//! The first lines decide: a trace has records among them.

use crate::parse::{ParseOptions, Parser, RecordKind};

/// Non-empty lines looked at.
const LINES: usize = 50;

/// Why a sample is not a trace: its first non-empty line, which no dialect
/// understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotATrace {
    pub line: u64,
    pub text: String,
    /// Whether it looks like HTML (a web page served instead of the trace).
    pub html: bool,
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
/// (in the dialect detected, or forced by `opts`). An empty sample passes:
/// an empty trace is a trace.
pub fn check_trace(sample: &[u8], opts: ParseOptions) -> Result<(), NotATrace> {
    // The last line of a sample may be cut short.
    let whole = match sample.iter().rposition(|&b| b == b'\n') {
        Some(i) if sample.len() as u64 >= crate::source::SAMPLE_BYTES => &sample[..i],
        _ => sample,
    };
    let mut parser = Parser::for_sample(opts, whole);
    let mut first = None;
    for (n, line) in whole.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        first.get_or_insert((n as u64 + 1, line));
        if !matches!(parser.parse_line(line).kind, RecordKind::Unparsed(_)) {
            return Ok(());
        }
        if n >= LINES {
            break;
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

    #[test]
    fn every_test_trace_passes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
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
                    checked += 1;
                }
            }
        }
        assert!(checked > 20, "only {checked} traces found");
    }
}
