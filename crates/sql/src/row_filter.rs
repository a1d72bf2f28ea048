//! Filters a scan applies itself (`Exact` pushdown): `mnemonic = 'BL'` and
//! `mnemonic IN ('BL', 'BLR')` on `instructions`. A line another mnemonic
//! gives no row at all, so no column is built for it, and DataFusion
//! neither filters again nor asks for the column (`count(*)` then counts
//! rows of no column).

use std::collections::HashSet;

use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use tarmac_lens_core::{Record, RecordKind};

use crate::rows::instructions::mnemonic;
use crate::schema::Table;

/// What a scan keeps of the lines it reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowFilter {
    /// The mnemonics an instruction row may have; `None`: any.
    mnemonics: Option<HashSet<Vec<u8>>>,
}

impl RowFilter {
    /// What `filters` (a conjunction) say that `table`'s scan can apply.
    pub(crate) fn of(table: Table, filters: &[Expr]) -> RowFilter {
        let mut f = RowFilter::default();
        if table != Table::Instructions {
            return f;
        }
        for set in filters.iter().filter_map(mnemonic_set) {
            f.mnemonics = Some(match f.mnemonics.take() {
                Some(kept) => kept.intersection(&set).cloned().collect(),
                None => set,
            });
        }
        f
    }

    /// Whether `filter` on `table` is one [`RowFilter::of`] applies, so
    /// exactly: no row the scan gives fails it.
    pub(crate) fn is_exact(table: Table, filter: &Expr) -> bool {
        table == Table::Instructions && mnemonic_set(filter).is_some()
    }

    /// Whether `rec` may give a row (lines other than instructions give
    /// none in `instructions` anyway).
    #[inline]
    pub(crate) fn admits(&self, rec: &Record<'_>) -> bool {
        match (&self.mnemonics, &rec.kind) {
            (Some(set), RecordKind::Instruction(ins)) => set.contains(&*mnemonic(ins.disassembly)),
            _ => true,
        }
    }
}

/// The mnemonics `e` allows, if it is `mnemonic = 'X'` (either way round)
/// or `mnemonic IN ('X', ...)` of string literals.
fn mnemonic_set(e: &Expr) -> Option<HashSet<Vec<u8>>> {
    match e {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) => {
            let text = match (is_mnemonic(left), is_mnemonic(right)) {
                (true, false) => text_of(right)?,
                (false, true) => text_of(left)?,
                _ => return None,
            };
            Some(HashSet::from([text.as_bytes().to_vec()]))
        }
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) if is_mnemonic(expr) => list
            .iter()
            .map(|v| text_of(v).map(|t| t.as_bytes().to_vec()))
            .collect(),
        _ => None,
    }
}

fn is_mnemonic(e: &Expr) -> bool {
    matches!(e, Expr::Column(c) if c.name == "mnemonic")
}

/// A string literal's text, through casts (a literal may be coerced to
/// the column's string type).
fn text_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::Utf8View(Some(s))
            | ScalarValue::LargeUtf8(Some(s)),
            _,
        ) => Some(s),
        Expr::Cast(c) => text_of(&c.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{col, lit};

    #[test]
    fn mnemonic_equality_and_lists_are_applied_by_the_scan() {
        let exact = |e: &Expr| RowFilter::is_exact(Table::Instructions, e);
        let eq = col("mnemonic").eq(lit("BL"));
        assert!(exact(&eq) && exact(&lit("BL").eq(col("mnemonic"))));
        assert!(!RowFilter::is_exact(Table::Memory, &eq));
        assert!(!exact(&col("mnemonic").not_eq(lit("BL"))));
        assert!(!exact(&col("operands").eq(lit("BL"))));
        assert!(!exact(&col("mnemonic").eq(col("operands"))));
        let list = col("mnemonic").in_list(vec![lit("BL"), lit("B")], false);
        assert!(exact(&list));
        assert!(!exact(&col("mnemonic").in_list(vec![lit("BL")], true)));
        let f = RowFilter::of(Table::Instructions, &[list, eq]);
        assert_eq!(f.mnemonics, Some(HashSet::from([b"BL".to_vec()])));
        let none = RowFilter::of(Table::Instructions, &[col("line").gt(lit(3u64))]);
        assert_eq!(none.mnemonics, None);
    }
}
