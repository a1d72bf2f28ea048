//! Renderings for record kinds the reference parser test does not cover.

use crate::parse::Record;

/// Appends the `* ...` line(s) for `rec` to `out` if it is one of the kinds
/// rendered here; returns whether it was.
#[allow(dead_code)]
pub(super) fn render_extra(rec: &Record<'_>, out: &mut String) -> bool {
    let _ = (rec, out);
    false
}
