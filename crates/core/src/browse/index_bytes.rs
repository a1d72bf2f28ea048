//! The finished index as bytes ([`crate::Index::from_bytes`] reads them):
//! what the page's query engine, a worker of its own with its own wasm,
//! loads instead of indexing the trace again. Asked once, when the Query
//! pane first runs; the bytes travel as base64 text, so the JSON wire
//! carries a quarter of what a list of numbers would be.

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::question::{Answerable, Example};
use super::Session;
use crate::index::TraceIdentity;
use crate::source::TraceSource;
use crate::{Error, Result};

/// The question: the finished index, encoded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexBytes {}

/// Its answer: [`crate::Index::to_bytes`] of the session's index, with the
/// trace's length as its identity (the reader checks it against the
/// file it reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedIndex(pub Vec<u8>);

impl Serialize for EncodedIndex {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for EncodedIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map(EncodedIndex)
            .map_err(serde::de::Error::custom)
    }
}

impl Answerable for IndexBytes {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<EncodedIndex> {
        let index = session.index.as_ref().ok_or_else(|| {
            Error::Query("the trace is still being indexed: ask again once it is done".into())
        })?;
        let trace = TraceIdentity {
            len: session.total,
            mtime: 0,
        };
        Ok(EncodedIndex(index.to_bytes(trace)))
    }

    fn examples(_: &Example) -> Vec<IndexBytes> {
        vec![IndexBytes {}]
    }
}
