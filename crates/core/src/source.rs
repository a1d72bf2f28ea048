//! Random-access byte sources. The trace text never has to be resident: every
//! consumer reads the slices it needs through [`TraceSource`].

use crate::Result;

/// A trace's bytes, readable at any offset. Offsets are u64: traces beyond
/// 4 GiB are normal.
///
/// Indexing and the one-pass readers read front to back; a [`crate::Session`]
/// answering queries reads again at any offset. The core has
/// [`SliceSource`] (bytes in memory) and, natively, `FileSource`; a source
/// read once whose length is not known says [`UNKNOWN_LEN`] (see the
/// crate's `streaming_stats` example for one over any `Read`).
///
/// # Examples
///
/// A trace owned in memory:
///
/// ```
/// use tarmac_lens_core::{compute_stats, ParseOptions, Result, TraceSource};
///
/// struct Owned(Vec<u8>);
///
/// impl TraceSource for Owned {
///     fn len(&self) -> u64 {
///         self.0.len() as u64
///     }
///
///     fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
///         let start = usize::try_from(offset).map_or(self.0.len(), |o| o.min(self.0.len()));
///         let n = buf.len().min(self.0.len() - start);
///         buf[..n].copy_from_slice(&self.0[start..start + n]);
///         Ok(n)
///     }
/// }
///
/// let trace = b"1 clk IT (1) 00008000 e3a00005 A svc_s : MOV r0,#5\n".to_vec();
/// let stats = compute_stats(Owned(trace), ParseOptions::default(), |_| {})?;
/// assert_eq!(stats.count("instruction"), 1);
/// # Ok::<(), tarmac_lens_core::Error>(())
/// ```
pub trait TraceSource {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// Whether the source has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` from `offset`, returning how many bytes were read (fewer
    /// than `buf.len()` only at the end of the source).
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize>;
}

/// The [`TraceSource::len`] of a source read once from front to back whose
/// length is known only at its end (a decompressed stream, a pipe). The
/// one-pass readers (statistics, dump, search, the reports' engine pass,
/// diff) take the end of the trace from where their lines end, so they
/// give the same answers for such a source as for the file it came from.
pub const UNKNOWN_LEN: u64 = u64::MAX;

/// Bytes read from the start of a source to detect its dialect.
pub const SAMPLE_BYTES: u64 = 16384;

/// The first [`SAMPLE_BYTES`] of a source (fewer if it is shorter).
pub fn read_sample<S: TraceSource + ?Sized>(source: &mut S) -> Result<Vec<u8>> {
    // Compare in u64: in wasm32 a usize cast of a 4 GiB length would wrap.
    let mut sample = vec![0u8; source.len().min(SAMPLE_BYTES) as usize];
    let n = source.read_at(0, &mut sample)?;
    sample.truncate(n);
    Ok(sample)
}

/// An in-memory source (tests, small inputs).
pub struct SliceSource<'a>(pub &'a [u8]);

impl TraceSource for SliceSource<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let start = (offset.min(self.0.len() as u64)) as usize;
        let n = buf.len().min(self.0.len() - start);
        buf[..n].copy_from_slice(&self.0[start..start + n]);
        Ok(n)
    }
}

/// A file on disk, read with positioned reads (native only).
#[cfg(not(target_arch = "wasm32"))]
pub struct FileSource {
    file: std::fs::File,
    len: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSource {
    /// Opens a regular file; a pipe or device is refused, as it cannot be read
    /// at offsets.
    pub fn open(path: &std::path::Path) -> Result<FileSource> {
        let file = std::fs::File::open(path)
            .map_err(|e| crate::Error::Read(format!("{}: {}", path.display(), e)))?;
        let meta = file
            .metadata()
            .map_err(|e| crate::Error::Read(format!("{}: {}", path.display(), e)))?;
        // A pipe or device reports length 0 and cannot be read at offsets:
        // it would look like an empty trace.
        if !meta.is_file() {
            return Err(crate::Error::Read(format!(
                "{}: not a regular file (traces are read at random offsets; save it to a file first)",
                path.display()
            )));
        }
        Ok(FileSource {
            file,
            len: meta.len(),
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl TraceSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        use std::os::unix::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(crate::Error::Read(e.to_string())),
            }
        }
        Ok(done)
    }
}

/// A source's first lines: its bytes up to the first line end at or after
/// a given length. The page answers a statistic from such a prefix within
/// a second, while the whole trace's pass runs (`Statistics` of 64 MiB:
/// about 0.6 s in a worker, of 1 GB about 9.5).
pub struct Prefix<S> {
    inner: S,
    end: u64,
}

impl<S: TraceSource> Prefix<S> {
    /// The prefix of at least `bytes` that ends a line; `None` if there is
    /// nothing after it to leave out (or the source's length is unknown).
    pub fn new(mut inner: S, bytes: u64) -> Result<Option<Prefix<S>>> {
        let len = inner.len();
        if len == UNKNOWN_LEN || bytes >= len {
            return Ok(None);
        }
        let mut at = bytes.saturating_sub(1);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = inner.read_at(at, &mut buf)?;
            if n == 0 {
                return Ok(None);
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                let end = at + i as u64 + 1;
                return Ok((end < len).then_some(Prefix { inner, end }));
            }
            at += n as u64;
        }
    }
}

impl<S: TraceSource> TraceSource for Prefix<S> {
    fn len(&self) -> u64 {
        self.end
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let room = self.end.saturating_sub(offset).min(buf.len() as u64) as usize;
        self.inner.read_at(offset, &mut buf[..room])
    }
}

/// A boxed source is a source: the web worker reads a dropped file or a URL
/// through one session type.
impl<T: TraceSource + ?Sized> TraceSource for Box<T> {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        (**self).read_at(offset, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(mut s: impl TraceSource) -> Vec<u8> {
        let mut out = vec![0u8; s.len() as usize + 10];
        let n = s.read_at(0, &mut out).unwrap();
        out.truncate(n);
        out
    }

    #[test]
    fn a_prefix_ends_at_the_first_line_end_at_or_after_its_length() {
        let text = b"one\ntwo\nthree\n";
        for (bytes, want) in [
            (1, "one\n"),
            (4, "one\n"),
            (5, "one\ntwo\n"),
            (8, "one\ntwo\n"),
        ] {
            let p = Prefix::new(SliceSource(text), bytes).unwrap().unwrap();
            assert_eq!(p.len(), want.len() as u64, "{bytes}");
            assert_eq!(read_all(p), want.as_bytes(), "{bytes}");
        }
        let mut p = Prefix::new(SliceSource(text), 5).unwrap().unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(
            p.read_at(6, &mut buf).unwrap(),
            2,
            "a read stops at its end"
        );
        assert_eq!(p.read_at(8, &mut buf).unwrap(), 0);
    }

    #[test]
    fn no_prefix_when_nothing_would_be_left_out() {
        let text = b"one\ntwo\nthree";
        assert!(
            Prefix::new(SliceSource(text), 9).unwrap().is_none(),
            "the last line has no end"
        );
        assert!(Prefix::new(SliceSource(text), 100).unwrap().is_none());
        assert!(Prefix::new(SliceSource(b"one\ntwo\n"), 5)
            .unwrap()
            .is_none());
    }
}
