//! Round trips through the adaptors against the plain bytes, with inputs
//! made by other encoders (flate2, libzstd).

use std::io::Write;

use super::*;
use crate::source::{SliceSource, UNKNOWN_LEN};
use crate::testing::Rng;

/// Owned compressed bytes as a source.
struct Owned(Vec<u8>);

impl TraceSource for Owned {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        SliceSource(&self.0).read_at(offset, buf)
    }
}

fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

fn trace(name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(name)).unwrap()
}

/// About 8 MB, past two default spacings: a real trace repeated, each
/// copy with its lines slightly changed so the copies do not compress to
/// nothing.
fn big_trace() -> Vec<u8> {
    let one = trace("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let mut out = Vec::with_capacity(one.len() * 5);
    for i in 0..5u8 {
        out.extend(
            one.iter()
                .map(|&b| if b == b'0' { b'0' + i % 3 } else { b }),
        );
    }
    out
}

fn gzip(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Several members (pigz, bgzip, `cat a.gz b.gz`), of varied sizes and
/// levels, with header fields, and an empty member at the end as bgzip's.
fn gzip_members(data: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    let mut at = 0;
    let mut k = 0;
    while at < data.len() {
        let n = (1 + rng.below(3 << 20) as usize).min(data.len() - at);
        let mut e = flate2::GzBuilder::new()
            .filename(format!("part{k}"))
            .comment("a comment")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), flate2::Compression::new(k % 10));
        e.write_all(&data[at..at + n]).unwrap();
        out.extend(e.finish().unwrap());
        at += n;
        k += 1;
    }
    out.extend(gzip(b"", 6));
    out
}

fn zstd_frames(data: &[u8], frame: usize, checksum: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(frame.max(1)) {
        let mut e = ::zstd::Encoder::new(Vec::new(), 3).unwrap();
        e.include_checksum(checksum).unwrap();
        e.write_all(chunk).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

/// The seekable format: frames, then the seek table in a skippable frame.
fn zstd_seekable(data: &[u8], frame: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut entries = Vec::new();
    for chunk in data.chunks(frame) {
        let c = ::zstd::encode_all(chunk, 3).unwrap();
        entries.extend((c.len() as u32).to_le_bytes());
        entries.extend((chunk.len() as u32).to_le_bytes());
        out.extend(c);
    }
    let n = (entries.len() / 8) as u32;
    out.extend(0x184d_2a5eu32.to_le_bytes());
    out.extend((entries.len() as u32 + 9).to_le_bytes());
    out.extend(entries);
    out.extend(n.to_le_bytes());
    out.push(0);
    out.extend(0x8f92_eab1u32.to_le_bytes());
    out
}

fn read_all<S: TraceSource>(s: &mut S) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0; 1 << 20];
    loop {
        let n = s.read_at(out.len() as u64, &mut buf)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Reads at random offsets and lengths, some past the end, some tiny,
/// some long, against the plain bytes.
fn random_reads<S: TraceSource>(s: &mut S, plain: &[u8], n: usize, seed: u64) {
    let mut rng = Rng(seed);
    let len = plain.len() as u64;
    for i in 0..n {
        let offset = match i % 10 {
            0 => len + rng.below(1000),
            1 => len.saturating_sub(rng.below(100)),
            _ => rng.below(len + 1),
        };
        let size = match i % 3 {
            0 => rng.below(16) as usize,
            1 => rng.below(64 << 10) as usize,
            _ => rng.below(1 << 20) as usize,
        };
        let mut buf = vec![0xa5; size];
        let got = s.read_at(offset, &mut buf).unwrap();
        let start = offset.min(len) as usize;
        let want = &plain[start..(start + size).min(plain.len())];
        assert_eq!(got, want.len(), "read {i}: {size} at {offset}");
        assert!(buf[..got] == *want, "read {i}: {size} at {offset}");
    }
}

fn check_gzip(plain: &[u8], gz: Vec<u8>, spacing: u64, reads: usize) {
    // Random reads on a fresh adaptor: the table grows as they jump ahead.
    let mut lazy = GzipSource::with_spacing(Owned(gz.clone()), spacing).unwrap();
    assert_eq!(lazy.len(), UNKNOWN_LEN);
    random_reads(&mut lazy, plain, (reads / 10).max(10), 7);
    assert_eq!(lazy.len(), plain.len() as u64);

    let mut s = GzipSource::with_spacing(Owned(gz.clone()), spacing).unwrap();
    assert_eq!(read_all(&mut s).unwrap(), plain);
    assert_eq!(s.len(), plain.len() as u64);
    assert_eq!(
        s.table(),
        lazy.table(),
        "the same table however it was read"
    );
    random_reads(&mut s, plain, reads, 1);

    let bytes = s.table().encode();
    let table = GzipTable::decode(&bytes).unwrap();
    assert_eq!(&table, s.table());
    let mut again = GzipSource::with_table(Owned(gz), table).unwrap();
    assert_eq!(again.len(), plain.len() as u64);
    random_reads(&mut again, plain, (reads / 10).max(10), 2);
    assert_eq!(read_all(&mut again).unwrap(), plain);
}

#[test]
fn gzip_checked_in_traces() {
    for name in [
        "tracegen/quicksort-aarch64-O2-es-2M.tarmac",
        "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac",
        "coverage/branches-a64.tarmac",
    ] {
        let plain = trace(name);
        for level in [0, 1, 6, 9] {
            check_gzip(&plain, gzip(&plain, level), 256 << 10, 60);
        }
        check_gzip(&plain, gzip_members(&plain, 3), 128 << 10, 60);
    }
}

#[test]
fn gzip_big_trace() {
    let plain = big_trace();
    check_gzip(&plain, gzip(&plain, 6), 1 << 20, 200);
    check_gzip(&plain, gzip_members(&plain, 5), DEFAULT_SPACING, 60);
}

/// Compressed bytes as a source that counts what is read of it.
struct Counted(Vec<u8>, u64);

impl TraceSource for Counted {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let n = SliceSource(&self.0).read_at(offset, buf)?;
        self.1 += n as u64;
        Ok(n)
    }
}

/// The first pass, read front to back in pieces of any size, inflates
/// the stream once: the access points it makes do not send it on ahead
/// to check them, nor back to inflate again from them.
#[test]
fn gzip_first_pass_inflates_once() {
    let plain = big_trace();
    let gz = gzip(&plain, 6);
    for (spacing, piece) in [
        (1 << 20, 64 << 10),
        (DEFAULT_SPACING, 1 << 20),
        (1 << 20, 5000),
    ] {
        let mut s = GzipSource::with_spacing(Counted(gz.clone(), 0), spacing).unwrap();
        let mut buf = vec![0u8; piece];
        let mut at = 0;
        loop {
            let n = s.read_at(at, &mut buf).unwrap();
            if n == 0 {
                break;
            }
            assert!(buf[..n] == plain[at as usize..at as usize + n]);
            at += n as u64;
        }
        assert_eq!(at, plain.len() as u64);
        assert!(s.table().points() > 1);
        let read = s.into_inner().1;
        assert!(
            read <= gz.len() as u64 + (256 << 10),
            "{read} bytes read of {} ({spacing} spacing, pieces of {piece})",
            gz.len()
        );
    }
}

#[test]
fn gzip_tiny_and_empty() {
    check_gzip(b"", gzip(b"", 6), 1, 20);
    check_gzip(b"x\n", gzip(b"x\n", 6), 1, 20);
    let mut two = gzip(b"a\n", 6);
    two.extend(gzip(b"b\n", 1));
    check_gzip(b"a\nb\n", two, 1, 50);
    // A zero-byte file is not a gzip stream.
    assert!(read_all(&mut GzipSource::new(Owned(Vec::new())).unwrap()).is_err());
}

fn assert_damaged<S: TraceSource>(s: &mut S, plain: &[u8], what: &str) {
    match read_all(s) {
        // A flipped bit that changes nothing (padding, an unused code).
        Ok(got) if got == plain => {}
        Ok(got) => panic!(
            "{what}: read {} of {} bytes, no error",
            got.len(),
            plain.len()
        ),
        Err(e) => assert!(e.to_string().contains("compressed byte"), "{what}: {e}"),
    }
}

#[test]
fn gzip_damage_is_an_error() {
    let plain = trace("tracegen/quicksort-aarch64-O2-es-2M.tarmac");
    for gz in [gzip(&plain, 6), gzip_members(&plain, 9)] {
        let mut rng = Rng(11);
        for _ in 0..40 {
            let cut = rng.below(gz.len() as u64) as usize;
            let mut s = GzipSource::with_spacing(Owned(gz[..cut].to_vec()), 64 << 10).unwrap();
            assert_damaged(&mut s, &plain, &format!("cut at {cut}"));
        }
        for _ in 0..40 {
            let mut bad = gz.clone();
            let at = 20 + rng.below(gz.len() as u64 - 20) as usize;
            bad[at] ^= 1 << rng.below(8);
            let mut s = GzipSource::with_spacing(Owned(bad), 64 << 10).unwrap();
            assert_damaged(&mut s, &plain, &format!("bit flipped at {at}"));
        }
        // Damage met by a random read with the good file's table.
        let mut good = GzipSource::with_spacing(Owned(gz.clone()), 64 << 10).unwrap();
        good.build_table(|_| {}).unwrap();
        let table = good.table().clone();
        let mut bad = gz.clone();
        let at = gz.len() / 2;
        bad[at] ^= 0x10;
        let mut s = GzipSource::with_table(Owned(bad), table).unwrap();
        let mut rng = Rng(5);
        let mut errors = 0;
        for _ in 0..50 {
            let mut buf = vec![0; 1 << 20];
            let off = rng.below(plain.len() as u64);
            match s.read_at(off, &mut buf) {
                Ok(n) => assert!(buf[..n] == plain[off as usize..off as usize + n]),
                Err(_) => errors += 1,
            }
        }
        assert!(errors > 0);
    }
    // A table that is not one.
    assert!(GzipTable::decode(b"nonsense").is_err());
    let mut good = GzipSource::with_spacing(Owned(gzip(&plain, 6)), 64 << 10).unwrap();
    good.build_table(|_| {}).unwrap();
    let bytes = good.table().encode();
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        assert!(GzipTable::decode(&bytes[..cut]).is_err());
    }
    assert!(GzipSource::with_table(Owned(vec![0; 5]), good.table().clone()).is_err());
}

fn check_zstd(plain: &[u8], z: Vec<u8>, reads: usize, complete_at_open: bool) {
    let mut lazy = ZstdSource::new(Owned(z.clone())).unwrap();
    assert_eq!(lazy.table().is_complete(), complete_at_open);
    random_reads(&mut lazy, plain, (reads / 10).max(10), 7);
    assert_eq!(lazy.len(), plain.len() as u64);

    let mut s = ZstdSource::new(Owned(z.clone())).unwrap();
    assert_eq!(read_all(&mut s).unwrap(), plain);
    random_reads(&mut s, plain, reads, 1);
    let table = ZstdTable::decode(&s.table().encode()).unwrap();
    assert_eq!(&table, s.table());
    let mut again = ZstdSource::with_table(Owned(z), table).unwrap();
    random_reads(&mut again, plain, (reads / 10).max(10), 2);
}

#[test]
fn zstd_round_trips() {
    let plain = trace("tracegen/quicksort-aarch64-O2-es-2M.tarmac");
    check_zstd(&plain, zstd_frames(&plain, usize::MAX, true), 30, false);
    check_zstd(&plain, zstd_frames(&plain, 300 << 10, true), 60, false);
    check_zstd(&plain, zstd_frames(&plain, 1 << 20, false), 60, false);
    check_zstd(&plain, zstd_seekable(&plain, 256 << 10), 60, true);
    // A skippable frame between data frames.
    let mut z = zstd_frames(&plain[..1000], usize::MAX, true);
    z.extend(0x184d_2a53u32.to_le_bytes());
    z.extend(5u32.to_le_bytes());
    z.extend(b"hello");
    z.extend(zstd_frames(&plain[1000..], 500 << 10, true));
    check_zstd(&plain, z, 60, false);
    let big = big_trace();
    check_zstd(&big, zstd_frames(&big, 1 << 20, true), 150, false);
}

#[test]
fn zstd_damage_is_an_error() {
    let plain = trace("tracegen/quicksort-aarch64-O2-es-2M.tarmac");
    let z = zstd_frames(&plain, 700 << 10, true);
    let mut rng = Rng(13);
    for _ in 0..30 {
        let cut = rng.below(z.len() as u64) as usize;
        let mut s = ZstdSource::new(Owned(z[..cut].to_vec())).unwrap();
        assert_damaged(&mut s, &plain, &format!("cut at {cut}"));
    }
    for _ in 0..30 {
        let mut bad = z.clone();
        let at = 8 + rng.below(z.len() as u64 - 8) as usize;
        bad[at] ^= 1 << rng.below(8);
        let mut s = ZstdSource::new(Owned(bad)).unwrap();
        assert_damaged(&mut s, &plain, &format!("bit flipped at {at}"));
    }
    assert!(ZstdTable::decode(b"nonsense").is_err());
}

#[test]
fn open_by_magic() {
    let plain = trace("coverage/branches-a64.tarmac");
    let mut g = open(Owned(gzip(&plain, 6))).unwrap().unwrap();
    assert_eq!(read_all(&mut g).unwrap(), plain);
    let mut z = open(Owned(zstd_frames(&plain, usize::MAX, true)))
        .unwrap()
        .unwrap();
    assert_eq!(read_all(&mut z).unwrap(), plain);
    assert!(open(Owned(plain.clone())).unwrap().is_none());
}

#[test]
fn index_a_gzip_trace() {
    use crate::browse::protocol::{CallStack, Locate, NodeLines, RegMark, Registers};
    use crate::{Index, IndexOptions, ParseOptions, Query, Session};

    let plain = trace("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let gz = gzip_members(&plain, 21);
    let mut src = GzipSource::with_spacing(Owned(gz.clone()), 256 << 10).unwrap();
    // The Session takes the length at its start: the table first.
    src.build_table(|_| {}).unwrap();
    let want = Index::build(&mut SliceSource(&plain), IndexOptions::default(), |_| {}).unwrap();
    let got = Index::build(&mut src, IndexOptions::default(), |_| {}).unwrap();
    assert_eq!(got.summary(), want.summary());
    // The table built by the index's own pass.
    let mut lazy = GzipSource::with_spacing(Owned(gz.clone()), 256 << 10).unwrap();
    let got = Index::build(&mut lazy, IndexOptions::default(), |_| {}).unwrap();
    assert_eq!(got.summary(), want.summary());
    assert_eq!(lazy.table(), src.table());

    // Queries at random places of the trace.
    let mut a = Session::open(SliceSource(&plain), ParseOptions::default()).unwrap();
    let mut b = Session::open(src, ParseOptions::default()).unwrap();
    while !a.index_step(1 << 20).unwrap().complete {}
    while !b.index_step(1 << 20).unwrap().complete {}
    let lines = want.summary().lines;
    let mut rng = Rng(3);
    for _ in 0..30 {
        let line = 1 + rng.below(lines);
        let q = || Query::Locate(Locate::Line(line));
        let (ra, rb) = (a.answer(q()), b.answer(q()));
        assert_eq!(ra, rb);
        if let crate::Reply::Locate(Some(node)) = ra {
            for q in [
                Query::from(Registers {
                    node: node.node,
                    mark: RegMark::None,
                }),
                NodeLines { node: node.node }.into(),
                CallStack { node: node.node }.into(),
            ] {
                assert_eq!(a.answer(q.clone()), b.answer(q));
            }
        }
    }
}
