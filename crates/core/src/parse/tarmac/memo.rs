//! What the fast path ([`super::fast`]) remembers from line to line, held
//! by the parser between lines.

use super::super::record::{ISet, TimeUnit};

/// What the fast path remembers of the last lines it read: runs of bytes
/// that most lines repeat from an earlier one, and what they said, so that
/// a line with the same bytes is read with a few comparisons of eight bytes
/// instead of words cut byte by byte and numbers converted.
///
/// A memo of text to values, not inter-line state: whatever it holds, a
/// line reads as it would without it.
#[derive(Clone, Copy, Default)]
pub(in crate::parse) struct Memo {
    pub(super) prefix: Option<Prefix>,
    pub(super) state: Option<StateText>,
}

/// Up to `8 * W` bytes, compared eight at a time.
#[derive(Clone, Copy)]
pub(super) struct Window<const W: usize> {
    words: [u64; W],
    /// Which bytes of `words` count.
    masks: [u64; W],
    pub(super) len: usize,
}

impl<const W: usize> Window<W> {
    /// `bytes[..len]`, if `bytes` has at least `8 * W` bytes and `len` is no
    /// more than that.
    #[inline(always)]
    pub(super) fn of(bytes: &[u8], len: usize) -> Option<Self> {
        if len > 8 * W {
            return None;
        }
        let mut window = Window {
            words: [0; W],
            masks: [0; W],
            len,
        };
        for i in 0..W {
            window.words[i] = u64::from_le_bytes(*bytes.get(8 * i..)?.first_chunk::<8>()?);
            let bits = len.saturating_sub(8 * i).min(8) * 8;
            window.masks[i] = u64::MAX.checked_shr(64 - bits as u32).unwrap_or(0);
        }
        Some(window)
    }

    /// Whether `bytes` starts with these.
    #[inline(always)]
    pub(super) fn starts(&self, bytes: &[u8]) -> bool {
        let mut diff = 0;
        for i in 0..W {
            let Some(word) = bytes.get(8 * i..).and_then(<[u8]>::first_chunk::<8>) else {
                return false;
            };
            diff |= (u64::from_le_bytes(*word) ^ self.words[i]) & self.masks[i];
        }
        diff == 0
    }
}

/// The bytes before the event type (timestamp, unit, cpu). A trace gives
/// each instruction about two lines with the same timestamp, and the
/// timestamp is most often the instruction's id too. The prefix ends where
/// the event type starts; where the matching line has a unit or a `cpu`
/// word instead, that word is no event type of these shapes, so the general
/// grammar reads it.
#[derive(Clone, Copy)]
pub(super) struct Prefix {
    pub(super) text: Window<3>,
    pub(super) time: u64,
    /// The timestamp's digits: `line[..digits]` of any line it matches.
    pub(super) digits: usize,
    pub(super) raw_time: u64,
    pub(super) unit: Option<TimeUnit>,
    pub(super) cpu: Option<(usize, usize)>,
}

/// An instruction's state and mode and the `:` after them (` O EL3h_s :`),
/// the same from one instruction to the next until the mode changes.
#[derive(Clone, Copy)]
pub(super) struct StateText {
    pub(super) text: Window<2>,
    pub(super) iset: ISet,
    /// The mode's bytes, from the start of `text`.
    pub(super) mode: Option<(usize, usize)>,
}
