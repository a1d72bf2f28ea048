//! Renders records in the reference tools' parser-test format.
