//! Renders records in the reference tools' parser-test format (placeholder
//! while being written).

mod extra;
