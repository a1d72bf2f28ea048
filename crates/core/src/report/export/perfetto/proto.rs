//! Perfetto's trace messages, as `build.rs` generates them from the
//! trimmed copies of its `.proto` files in `proto/` (Apache-2.0,
//! Perfetto's authors).

#![allow(missing_docs, dead_code, clippy::all, clippy::pedantic)]

include!(concat!(env!("OUT_DIR"), "/perfetto.protos.rs"));
