//! `tests/large_offsets.rs` in wasm32, where `usize` is 32 bits.
use wasm_bindgen_test::*;

use crate::large_offsets;

#[wasm_bindgen_test]
fn lines_past_4_gib_in_wasm32() {
    large_offsets::check_lines_past_4_gib();
}
