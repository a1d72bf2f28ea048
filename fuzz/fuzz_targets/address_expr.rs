//! The address-expression parser (`sp+0x100`, `main+4`, `(x0-8)*2`) and its
//! evaluation, with and without registers and symbols.
#![no_main]

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::address_expr(data));
