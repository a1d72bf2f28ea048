//! Byte-level tokenizer for one trace line.
//!
//! Tokens follow the reference tools' lexical rules: words are runs of
//! alphanumerics and `_-.#`, the characters `:()[],<>` are single-character
//! tokens, whitespace separates. Other bytes (`{`, `;`, `=`, non-ASCII) are
//! returned as [`TokKind::Other`] so callers decide whether they are an error
//! or the start of free text. Nothing here allocates.

/// Character classes, one lookup per byte on the hot path.
const WORD: u8 = 1;
const PUNCT: u8 = 2;
const SPACE: u8 = 4;
const HEX: u8 = 8;
const DEC: u8 = 16;

const fn build_classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        let mut v = 0;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.' || b == b'#' {
            v |= WORD;
        }
        if matches!(b, b':' | b'(' | b')' | b'[' | b']' | b',' | b'<' | b'>') {
            v |= PUNCT;
        }
        // isspace() in the C locale.
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            v |= SPACE;
        }
        if b.is_ascii_hexdigit() {
            v |= HEX;
        }
        if b.is_ascii_digit() {
            v |= DEC;
        }
        t[c] = v;
        c += 1;
    }
    t
}

static CLASS: [u8; 256] = build_classes();

#[inline(always)]
pub(crate) fn is_space(b: u8) -> bool {
    CLASS[b as usize] & SPACE != 0
}

#[inline(always)]
pub(crate) fn is_word(b: u8) -> bool {
    CLASS[b as usize] & WORD != 0
}

#[inline(always)]
pub(crate) fn is_hex(b: u8) -> bool {
    CLASS[b as usize] & HEX != 0
}

#[inline(always)]
pub(crate) fn is_dec(b: u8) -> bool {
    CLASS[b as usize] & DEC != 0
}

/// Value of a hex digit (caller has checked [`is_hex`]).
#[inline(always)]
pub(crate) fn hex_val(b: u8) -> u8 {
    (b & 0x0f) + if b >= b'A' { 9 } else { 0 }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokKind {
    Word,
    /// One of `:()[],<>`.
    Punct(u8),
    /// A byte that is neither word, punctuation nor space.
    Other(u8),
    Eol,
}

/// A token: its kind and byte range within the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tok {
    pub(crate) kind: TokKind,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Tok {
    #[inline]
    pub(crate) fn is_word(&self) -> bool {
        self.kind == TokKind::Word
    }
    #[inline]
    pub(crate) fn is_punct(&self, c: u8) -> bool {
        self.kind == TokKind::Punct(c)
    }
    #[inline]
    pub(crate) fn is_eol(&self) -> bool {
        self.kind == TokKind::Eol
    }
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }
}

/// Cursor over one line (already stripped of its line terminator).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lexer<'a> {
    pub(crate) line: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Lexer<'a> {
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Lexer { line, pos: 0 }
    }

    /// Next token, advancing past it.
    #[inline]
    pub(crate) fn next(&mut self) -> Tok {
        let line = self.line;
        let mut p = self.pos;
        while p < line.len() && is_space(line[p]) {
            p += 1;
        }
        if p == line.len() {
            self.pos = p;
            return Tok {
                kind: TokKind::Eol,
                start: p,
                end: p,
            };
        }
        let b = line[p];
        let class = CLASS[b as usize];
        if class & PUNCT != 0 {
            self.pos = p + 1;
            return Tok {
                kind: TokKind::Punct(b),
                start: p,
                end: p + 1,
            };
        }
        if class & WORD != 0 {
            let start = p;
            p += 1;
            while p < line.len() && is_word(line[p]) {
                p += 1;
            }
            self.pos = p;
            return Tok {
                kind: TokKind::Word,
                start,
                end: p,
            };
        }
        self.pos = p + 1;
        Tok {
            kind: TokKind::Other(b),
            start: p,
            end: p + 1,
        }
    }

    /// The token after the current position, without consuming it.
    #[inline]
    pub(crate) fn peek(&self) -> Tok {
        let mut copy = *self;
        copy.next()
    }

    /// Text of a token.
    #[inline]
    pub(crate) fn text(&self, t: Tok) -> &'a [u8] {
        &self.line[t.start..t.end]
    }

    /// Rest of the line from byte offset `from`.
    #[inline]
    pub(crate) fn rest_from(&self, from: usize) -> &'a [u8] {
        &self.line[from.min(self.line.len())..]
    }

    /// Rest of the line from the current position, leading whitespace skipped.
    #[inline]
    pub(crate) fn rest(&self) -> &'a [u8] {
        let mut p = self.pos;
        while p < self.line.len() && is_space(self.line[p]) {
            p += 1;
        }
        &self.line[p..]
    }

    /// Moves the cursor back to `pos` (a token's start).
    #[inline]
    pub(crate) fn rewind(&mut self, pos: usize) {
        self.pos = pos;
    }

    #[inline]
    pub(crate) fn is(&self, t: Tok, word: &[u8]) -> bool {
        t.is_word() && self.text(t) == word
    }
}

/// Whether every byte is a hex digit (and there is at least one).
#[inline]
pub(crate) fn all_hex(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| is_hex(b))
}

/// Whether every byte is a decimal digit (and there is at least one).
#[inline]
pub(crate) fn all_dec(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| is_dec(b))
}

/// Parses hex digits into a u64, ignoring `_` separators. `None` if a byte is
/// neither, if there are no digits, or if the value overflows 64 bits.
#[inline]
pub(crate) fn parse_hex(s: &[u8]) -> Option<u64> {
    let mut v: u64 = 0;
    let mut digits = 0u32;
    for &b in s {
        if b == b'_' {
            continue;
        }
        if !is_hex(b) {
            return None;
        }
        if digits >= 16 && v >> 60 != 0 {
            return None;
        }
        v = (v << 4) | u64::from(hex_val(b));
        digits += 1;
    }
    if digits == 0 {
        None
    } else {
        Some(v)
    }
}

/// Parses hex digits (no separators) in one pass. `None` if a byte is not a
/// hex digit, if there are none, or on overflow.
#[inline]
pub(crate) fn parse_hex_strict(s: &[u8]) -> Option<u64> {
    // Longer than 16 digits: only leading zeros may precede the value.
    if s.is_empty() || s.len() > 16 && s[..s.len() - 16].iter().any(|&b| b != b'0') {
        return None;
    }
    // Addresses and encodings are 8 digits, 64-bit values 16: eight at a time.
    if let Ok(eight) = <[u8; 8]>::try_from(s) {
        return hex8(eight).map(u64::from);
    }
    if let (Some(hi), Some(lo)) = (s.first_chunk::<8>(), s.last_chunk::<8>()) {
        if s.len() == 16 {
            return Some(u64::from(hex8(*hi)?) << 32 | u64::from(hex8(*lo)?));
        }
        // 9 to 15 digits, as the 12 of Fast Models' physical addresses: the
        // first eight bytes shifted so that only the high digits remain,
        // zeros in front of them.
        if s.len() < 16 {
            let high_digits = s.len() - 8;
            let zeros = u64::from_be_bytes([b'0'; 8]) << (8 * high_digits);
            let high = u64::from_be_bytes(*hi) >> (8 * (8 - high_digits)) | zeros;
            return Some(u64::from(hex8(high.to_be_bytes())?) << 32 | u64::from(hex8(*lo)?));
        }
    }
    let mut v: u64 = 0;
    for &b in s {
        if !is_hex(b) {
            return None;
        }
        v = (v << 4) | u64::from(hex_val(b));
    }
    Some(v)
}

/// Eight hex digits (most significant first) in a few 64-bit operations,
/// not a table lookup and a shift per digit. `None` if one is not a digit.
#[inline(always)]
pub(crate) fn hex8(digits: [u8; 8]) -> Option<u32> {
    let v = u64::from_be_bytes(digits);
    if v & HIGH != 0 {
        return None;
    }
    // With every byte below 0x80 these sums carry into no other byte: each
    // byte's top bit tells `byte >= lo` (resp. `byte > hi`).
    let within = |v: u64, lo: u8, hi: u8| (v + rep(0x80 - lo)) & !(v + rep(0x7f - hi)) & HIGH;
    let digit = within(v, b'0', b'9');
    // Bit 5 set, 'A'-'F' become 'a'-'f', and no other byte below 0x80
    // becomes one of those: one range test for both cases.
    let letter = within(v | rep(0x20), b'a', b'f');
    if digit | letter != HIGH {
        return None;
    }
    // Nibble values, one per byte: the low four bits, plus 9 for letters.
    let mut x = (v & rep(0x0f)) + (letter >> 7) * 9;
    x = (x | (x >> 4)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
    x = (x | (x >> 16)) & 0x0000_0000_ffff_ffff;
    Some(x as u32)
}

/// Up to eight decimal digits (most significant first) in a few 64-bit
/// operations: every line's timestamp is one, and a multiply and overflow
/// check per digit was 2% of indexing. `None` if one is not a digit.
#[inline(always)]
fn dec8(digits: &[u8]) -> Option<u64> {
    debug_assert!(!digits.is_empty() && digits.len() <= 8);
    // Left-padded with '0' to eight bytes, the first digit in the top byte.
    let mut v = rep(b'0');
    for &b in digits {
        v = v << 8 | u64::from(b);
    }
    dec8_padded(v)
}

/// The top bit of each byte of a `u64`.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// `b` in each byte of a `u64`.
const fn rep(b: u8) -> u64 {
    (b as u64) * 0x0101_0101_0101_0101
}

/// The value of eight decimal digits, the first in the top byte of `v`.
#[inline(always)]
fn dec8_padded(v: u64) -> Option<u64> {
    if v & HIGH != 0 {
        return None;
    }
    // As in `hex8`: each byte's top bit tells `b'0' <= byte <= b'9'`.
    if (v + rep(0x80 - b'0')) & !(v + rep(0x7f - b'9')) & HIGH != HIGH {
        return None;
    }
    // Digit values, then pairs, fours and the eight combined in place.
    let x = v & rep(0x0f);
    let x = (x >> 8 & 0x00ff_00ff_00ff_00ff) * 10 + (x & 0x00ff_00ff_00ff_00ff);
    let x = (x >> 16 & 0x0000_ffff_0000_ffff) * 100 + (x & 0x0000_ffff_0000_ffff);
    Some((x >> 32) * 10_000 + (x & 0xffff_ffff))
}

/// [`parse_dec`] of `bytes[..len]`, where `bytes` may go on past the
/// number (a line): eight bytes are loaded at once, not a byte at a time.
#[inline(always)]
pub(crate) fn parse_dec_within(bytes: &[u8], len: usize) -> Option<u64> {
    match bytes.first_chunk::<8>() {
        Some(eight) if (1..=8).contains(&len) => {
            let v = u64::from_be_bytes(*eight);
            // The bytes past the number dropped, '0's shifted in before it.
            let v = if len == 8 {
                v
            } else {
                v >> (64 - 8 * len) | rep(b'0') << (8 * len)
            };
            dec8_padded(v)
        }
        _ => parse_dec(bytes.get(..len)?),
    }
}

/// Parses a decimal number. `None` on a non-digit, no digits, or overflow.
#[inline]
pub(crate) fn parse_dec(s: &[u8]) -> Option<u64> {
    match s.len() {
        0 => return None,
        1..=8 => return dec8(s),
        // Sixteen digits cannot overflow.
        9..=16 => {
            let (high, low) = s.split_at(s.len() - 8);
            return Some(dec8(high)? * 100_000_000 + dec8(low)?);
        }
        _ => {}
    }
    let mut v: u64 = 0;
    for &b in s {
        if !is_dec(b) {
            return None;
        }
        v = mul10_add(v, b - b'0')?;
    }
    Some(v)
}

/// `v * 10 + d`, `None` on overflow. Not `checked_mul`: in wasm32 that
/// is a call to a 128-bit multiply (`__multi3`), about 4% of indexing time
/// with a timestamp on every line.
#[inline]
pub(crate) fn mul10_add(v: u64, d: u8) -> Option<u64> {
    const LIMIT: u64 = u64::MAX / 10;
    if v > LIMIT {
        return None;
    }
    (v * 10).checked_add(u64::from(d))
}

/// Parses `0x`-prefixed or bare hex.
#[inline]
pub(crate) fn parse_hex_0x(s: &[u8]) -> Option<u64> {
    let s = s
        .strip_prefix(b"0x")
        .or_else(|| s.strip_prefix(b"0X"))
        .unwrap_or(s);
    parse_hex(s)
}

/// Trims ASCII whitespace at both ends.
#[inline]
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let mut a = 0;
    let mut b = s.len();
    while a < b && is_space(s[a]) {
        a += 1;
    }
    while b > a && is_space(s[b - 1]) {
        b -= 1;
    }
    &s[a..b]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_reference_rules() {
        let line = b"  12 clk IT (12) 0000802c:1afb T svc_s : SUBNE {r3}";
        let mut lx = Lexer::new(line);
        let mut words = Vec::new();
        loop {
            let t = lx.next();
            match t.kind {
                TokKind::Eol => break,
                _ => words.push(String::from_utf8_lossy(lx.text(t)).into_owned()),
            }
        }
        assert_eq!(
            words,
            [
                "12", "clk", "IT", "(", "12", ")", "0000802c", ":", "1afb", "T", "svc_s", ":",
                "SUBNE", "{", "r3", "}"
            ]
        );
    }

    #[test]
    fn hex_eight_at_a_time_matches_digit_by_digit() {
        let slow = |s: &[u8]| {
            s.iter().try_fold(0u64, |v, &b| {
                is_hex(b).then(|| (v << 4) | u64::from(hex_val(b)))
            })
        };
        let mut cases: Vec<Vec<u8>> = vec![
            b"00000000".to_vec(),
            b"ffffffff".to_vec(),
            b"FFFFFFFF".to_vec(),
            b"0123abCD".to_vec(),
            b"89ABcdef".to_vec(),
            b"ffffffffffffffff".to_vec(),
            b"00000000_0000ca6".to_vec(),
            b"0000000g".to_vec(),
        ];
        // Every byte value in every position, around valid digits.
        for pos in 0..8 {
            for b in 0..=255u8 {
                let mut s = b"1a2B3c4D".to_vec();
                s[pos] = b;
                cases.push(s.clone());
                s.extend_from_slice(b"5e6F7a8b");
                cases.push(s.clone());
                // And 9 to 15 digits, the odd byte in the high or low part.
                for len in 9..16 {
                    cases.push(s[16 - len..].to_vec());
                    cases.push(s[..len].to_vec());
                }
            }
        }
        for s in cases {
            assert_eq!(
                parse_hex_strict(&s),
                slow(&s),
                "{:?}",
                String::from_utf8_lossy(&s)
            );
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_hex(b"00000000_0000ca68"), Some(0xca68));
        assert_eq!(parse_hex(b"fFfF"), Some(0xffff));
        assert_eq!(parse_hex(b"ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_hex(b"1ffffffffffffffff"), None);
        assert_eq!(parse_hex(b"xyz"), None);
        assert_eq!(parse_hex(b"_"), None);
        assert_eq!(parse_dec(b"18446744073709551615"), Some(u64::MAX));
        // Every length the eight-at-a-time path reads, and a non-digit in
        // each place (just below '0', just above '9', high bytes).
        for len in 1..=17 {
            let digits: Vec<u8> = (0..len).map(|i| b"9876543210"[i % 10]).collect();
            let text = std::str::from_utf8(&digits).unwrap();
            assert_eq!(parse_dec(&digits), text.parse().ok(), "{text}");
            for at in 0..len {
                for bad in [b'/', b':', b'a', 0x80 | b'5', b' '] {
                    let mut d = digits.clone();
                    d[at] = bad;
                    assert_eq!(parse_dec(&d), None, "{d:?}");
                }
            }
        }
        // Within a line: the same value whatever follows the number, and
        // whether or not eight bytes are there to load at once.
        for text in [
            "7",
            "42",
            "988786",
            "12345678",
            "123456789",
            "4x",
            "",
            "18446744073709551616",
        ] {
            for after in ["", " clk IT (1) 0", "9", "  "] {
                let line = format!("{text}{after}");
                assert_eq!(
                    parse_dec_within(line.as_bytes(), text.len()),
                    parse_dec(text.as_bytes()),
                    "{line:?}"
                );
            }
        }
        assert_eq!(parse_dec(b"00000000"), Some(0));
        assert_eq!(parse_dec(b"99999999"), Some(99_999_999));
        assert_eq!(parse_dec(b"9999999999999999"), Some(9_999_999_999_999_999));
        assert_eq!(parse_dec(b"18446744073709551616"), None);
        assert_eq!(parse_hex_0x(b"0x1f"), Some(0x1f));
        assert_eq!(trim(b"  a b \r"), b"a b");
    }
}
