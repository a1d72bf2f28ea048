//! The position in the page's URL fragment: `#line=N`, `#t=T`, `#pc=ADDR`,
//! `#src=FILE:LINE` (the first execution of a source line).

/// Where a fragment asks to go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HashTarget {
    /// The instruction whose block contains this line.
    Line(u64),
    /// The first node at this time, or the last before it (`#t=`).
    Time(u64),
    /// An address expression (`0x8000`, `main+4`), evaluated by the session.
    Pc(String),
    /// The first execution of a source line: a file (its DWARF path, or
    /// its last components) and a line.
    Source(String, u32),
    /// A position key with a value that is none (`#line=abc`): what to
    /// tell the person, as the position does not move.
    Invalid(String),
}

/// Reads a fragment, with or without its `#`. Unknown keys give `None`, so
/// a stray fragment (`#section`) never moves the position; a known key with
/// a bad number gives [`HashTarget::Invalid`].
pub fn parse(hash: &str) -> Option<HashTarget> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    for part in hash.split('&') {
        let (key, value) = part.split_once('=')?;
        let value = value.trim();
        match key {
            "line" | "t" | "time" => {
                let Some(n) = number(value) else {
                    return Some(HashTarget::Invalid(format!(
                        "#{key}={value}: \"{value}\" is not a {}",
                        if key == "line" { "line number" } else { "time" }
                    )));
                };
                return Some(if key == "line" {
                    HashTarget::Line(n)
                } else {
                    HashTarget::Time(n)
                });
            }
            "pc" if !value.is_empty() => return Some(HashTarget::Pc(decode(value))),
            "src" => {
                let value = decode(value);
                return Some(match value.rsplit_once(':') {
                    Some((file, line)) if !file.is_empty() => match line.trim().parse() {
                        Ok(n) if n > 0 => HashTarget::Source(file.to_string(), n),
                        _ => HashTarget::Invalid(format!(
                            "#src={value}: \"{line}\" is not a line number"
                        )),
                    },
                    _ => HashTarget::Invalid(format!("#src={value}: give FILE:LINE")),
                });
            }
            _ => {}
        }
    }
    None
}

/// The fragment for a position (lines are what `#line=` round-trips exactly).
pub fn for_line(line: u64) -> String {
    format!("#line={line}")
}

/// A decimal or `0x` hexadecimal number, as the prompts and fragments take.
pub fn number(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Percent-decoding for the few characters expressions use (`+` stays `+`).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
