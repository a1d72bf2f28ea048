//! Every input a fuzzer crashed on (`tests/data/fuzz/TARGET/NAME`, named
//! for the bug), replayed through the same check the fuzz target runs
//! (`tests/common/fuzz_checks.rs`): each once panicked or hung.
#[path = "common/fuzz_checks.rs"]
mod fuzz_checks;

use crate::common;

#[test]
fn inputs_that_once_crashed_a_fuzzer_pass() {
    let root = common::data("fuzz");
    let mut n = 0;
    for target in std::fs::read_dir(&root).expect("tests/data/fuzz") {
        let target = target.unwrap().path();
        if !target.is_dir() {
            continue;
        }
        let name = target.file_name().unwrap().to_str().unwrap().to_string();
        for input in std::fs::read_dir(&target).unwrap() {
            let input = input.unwrap().path();
            let data = common::read(&input);
            let t = std::time::Instant::now();
            fuzz_checks::run(&name, &data);
            // A hang is a bug too: each input once ran for minutes.
            assert!(
                t.elapsed().as_secs() < 20,
                "{}: {:?}",
                input.display(),
                t.elapsed()
            );
            n += 1;
        }
    }
    assert!(n >= 2, "expected the recorded crash inputs, found {n}");
}
