//! The ELF reader: any bytes as an image, then every lookup the browser and
//! the reports make.
#![no_main]

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::elf_symbols(data));
