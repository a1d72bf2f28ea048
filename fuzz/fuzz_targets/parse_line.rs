//! The line parser, fed every line of the input in turn (state carries
//! across lines: timestamps, LD/ST continuation columns). The first byte
//! picks the dialect and options.
#![no_main]

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::parse_line(data));
