//! Offsets beyond 4 GiB: read from a synthetic 5 GiB source (generated on
//! the fly, nothing stored) around and past the 4 GiB mark. Also run in
//! wasm32, where `usize` is 32 bits (a module of the wasm worker tests too,
//! `tests/wasm_worker.rs`).

use tarmac_lens_core::{read_sample, LineReader, ParseOptions, Parser, RecordKind, TraceSource};

/// A trace of identical 64-byte instruction lines, `len` bytes long.
pub struct Synthetic {
    pub len: u64,
}

const LINE: &[u8; 64] = b"1 clk IT (1) 00001000 d503201f O EL3h_s : NOP                  \n";

impl TraceSource for Synthetic {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let n = (self.len.saturating_sub(offset)).min(buf.len() as u64) as usize;
        for (i, b) in buf[..n].iter_mut().enumerate() {
            *b = LINE[((offset + i as u64) % 64) as usize];
        }
        Ok(n)
    }
}

pub fn check_lines_past_4_gib() {
    let four = 4u64 << 30;
    let mut src = Synthetic { len: 5 << 30 };
    assert_eq!(read_sample(&mut src).unwrap().len(), 16384);
    let start = four - 64 * 10;
    let first_line = start / 64 + 1;
    let mut r = LineReader::with_range(
        Synthetic { len: 5 << 30 },
        start,
        start + 64 * 30,
        first_line,
        4096,
    );
    let mut parser = Parser::new(ParseOptions::default(), tarmac_lens_core::Dialect::Tarmac);
    let mut n = 0;
    while let Some(l) = r.next_line().unwrap() {
        assert_eq!(l.offset, start + 64 * n);
        assert_eq!(l.number, first_line + n);
        assert!(matches!(
            parser.parse_line(l.text).kind,
            RecordKind::Instruction(_)
        ));
        n += 1;
    }
    assert_eq!(n, 30);
    // A range ending exactly 4 GiB after its start is read whole.
    let mut r = LineReader::with_range(Synthetic { len: 9 << 30 }, 0, four, 1, 1 << 16);
    let mut last = None;
    let mut count = 0u64;
    while let Some(l) = r.next_line().unwrap() {
        count += 1;
        if count > 3 {
            last = Some(l.offset);
            break;
        }
    }
    assert_eq!(last, Some(192));
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn lines_past_4_gib() {
    check_lines_past_4_gib();
}
