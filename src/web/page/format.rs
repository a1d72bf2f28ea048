//! Human-readable numbers for the page.

use super::i18n::{decimal, number, t, tf};

/// `1234567` as the page's language writes it: `"1,234,567"`, `"1 234 567"`.
pub fn thousands(n: u64) -> String {
    number(n)
}

/// Binary-prefixed size, e.g. `"17.9 KiB"` (`"17,9 Kio"` in French); exact
/// below 1 KiB.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return tf("{} B", &[&n]);
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", decimal(value, 1), t(UNITS[unit]))
}

/// Throughput in decimal megabytes per second, as download tools show it.
pub fn rate(bytes: u64, elapsed_ms: f64) -> String {
    if elapsed_ms <= 0.0 {
        return t("– MB/s").to_string();
    }
    tf(
        "{} MB/s",
        &[&decimal(bytes as f64 / 1e6 / (elapsed_ms / 1000.0), 1)],
    )
}

/// Whole percent, never showing 100 before the work is really done.
pub fn percent(done: u64, total: u64) -> u32 {
    if total == 0 || done >= total {
        return 100;
    }
    ((done as u128 * 100 / total as u128) as u32).min(99)
}

/// Time left at the rate so far, e.g. `"12 s left"`, `"3 min 5 s left"`.
pub fn time_left(done: u64, total: u64, elapsed_ms: f64) -> String {
    if done == 0 || elapsed_ms <= 0.0 || done >= total {
        return t("– left").to_string();
    }
    let seconds = ((total - done) as f64 * elapsed_ms / done as f64 / 1000.0).ceil() as u64;
    if seconds < 60 {
        tf("{} s left", &[&seconds])
    } else {
        tf("{} min {} s left", &[&(seconds / 60), &(seconds % 60)])
    }
}
