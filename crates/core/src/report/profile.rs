//! `profile`: per function entry address, how many activations started
//! there and their total inclusive time, in the reference tool's table.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::calltree::Activation;

/// One function's activations and time, as the reference profile adds them up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProfileEntry {
    pub(crate) count: u64,
    /// Sum of `exit.time - entry.time + 1` over the activations. Wrapping,
    /// as the reference tool's unsigned arithmetic is: an activation still
    /// open at the end of the trace has an unset (zero) exit time.
    pub(crate) time: u64,
}

impl ProfileEntry {
    /// Activations that started at the address.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Their total time, wrapping as the reference tool's does (see the field).
    pub fn time(&self) -> u64 {
        self.time
    }
}

/// Entries keyed by entry address (Thumb bit included), ascending.
pub fn compute(root: Activation<'_>) -> BTreeMap<u64, ProfileEntry> {
    let mut map = BTreeMap::new();
    let mut stack = vec![root];
    // Order of visiting does not matter for sums; a stack avoids recursion
    // depth limits on deep traces.
    while let Some(act) = stack.pop() {
        let e: &mut ProfileEntry = map.entry(act.entry.pc).or_default();
        e.count += 1;
        e.time = e
            .time
            .wrapping_add(act.exit.time.wrapping_sub(act.entry.time).wrapping_add(1));
        stack.extend(act.calls.iter().map(|(_, _, callee)| callee));
    }
    map
}

/// The table: fixed 12-column fields, then the function name.
pub fn render(profile: &BTreeMap<u64, ProfileEntry>, name: &dyn Fn(u64) -> String) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12}{:<12}{:<12}Function name",
        "Address", "Count", "Time"
    );
    for (addr, e) in profile {
        let _ = writeln!(
            out,
            "{:<11} {:<11} {:<11} {}",
            format!("0x{:x}", addr),
            e.count,
            e.time,
            name(*addr)
        );
    }
    out
}
