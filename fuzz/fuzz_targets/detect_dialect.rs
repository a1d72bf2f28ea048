//! Dialect detection on any first bytes of a file, then the chosen parser on
//! those bytes (what opening a file does).
#![no_main]

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::detect_dialect_then_parse(data));
