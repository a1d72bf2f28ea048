//! Filter pushdown: the `line` and `time` ranges a query's `WHERE` keeps
//! (`line BETWEEN a AND b`, `time >= t`, `line = n`, ...), so a scan reads
//! only the checkpoint intervals that can hold such rows. The filters stay
//! in the plan as well (`Inexact`): this only narrows what is read.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Operator};

/// Closed ranges of lines and times a row must lie in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) lines: (u64, u64),
    pub(crate) times: (u64, u64),
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            lines: (0, u64::MAX),
            times: (0, u64::MAX),
        }
    }
}

impl Bounds {
    /// What `filters` (a conjunction) say of `line` and `time`.
    pub(crate) fn of(filters: &[Expr]) -> Bounds {
        let mut b = Bounds::default();
        for f in filters {
            b.narrow(f);
        }
        b
    }

    /// Whether nothing can match.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.0 > self.lines.1 || self.times.0 > self.times.1
    }

    fn range(&mut self, column: &str) -> Option<&mut (u64, u64)> {
        match column {
            "line" => Some(&mut self.lines),
            "time" => Some(&mut self.times),
            _ => None,
        }
    }

    fn narrow(&mut self, e: &Expr) {
        match e {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) if *op == Operator::And => {
                self.narrow(left);
                self.narrow(right);
            }
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                let (column, value, op) = match (column_of(left), literal_of(right)) {
                    (Some(c), Some(v)) => (c, v, *op),
                    _ => match (literal_of(left), column_of(right)) {
                        (Some(v), Some(c)) => match op.swap() {
                            Some(op) => (c, v, op),
                            None => return,
                        },
                        _ => return,
                    },
                };
                let Some(r) = self.range(column) else { return };
                // A bound outside u64 clamps (`line > -1` keeps every line).
                let at_least = |v: i128| v.clamp(0, u64::MAX as i128) as u64;
                match op {
                    Operator::Eq => {
                        r.0 = r.0.max(at_least(value));
                        r.1 = r.1.min(at_least(value));
                        if value < 0 {
                            *r = (1, 0);
                        }
                    }
                    Operator::GtEq => r.0 = r.0.max(at_least(value)),
                    Operator::Gt => r.0 = r.0.max(at_least(value.saturating_add(1))),
                    Operator::LtEq if value < 0 => *r = (1, 0),
                    Operator::LtEq => r.1 = r.1.min(at_least(value)),
                    Operator::Lt if value <= 0 => *r = (1, 0),
                    Operator::Lt => r.1 = r.1.min(at_least(value - 1)),
                    _ => {}
                }
            }
            Expr::Between(Between {
                expr,
                negated: false,
                low,
                high,
            }) => {
                let (Some(c), Some(lo), Some(hi)) =
                    (column_of(expr), literal_of(low), literal_of(high))
                else {
                    return;
                };
                let Some(r) = self.range(c) else { return };
                if hi < 0 || lo > hi {
                    *r = (1, 0);
                    return;
                }
                r.0 = r.0.max(lo.clamp(0, u64::MAX as i128) as u64);
                r.1 = r.1.min(hi.clamp(0, u64::MAX as i128) as u64);
            }
            _ => {}
        }
    }
}

/// Whether `e` says something of `line` or `time` that [`Bounds::of`] uses.
pub(crate) fn is_pushable(e: &Expr) -> bool {
    Bounds::of(std::slice::from_ref(e)) != Bounds::default()
}

/// The column an expression is, through casts.
fn column_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Column(c) => Some(c.name.as_str()),
        Expr::Cast(c) => column_of(&c.expr),
        Expr::TryCast(c) => column_of(&c.expr),
        _ => None,
    }
}

/// An integer literal's value, through casts.
fn literal_of(e: &Expr) -> Option<i128> {
    match e {
        Expr::Literal(v, _) => integer(v),
        Expr::Cast(c) => literal_of(&c.expr),
        Expr::TryCast(c) => literal_of(&c.expr),
        _ => None,
    }
}

fn integer(v: &ScalarValue) -> Option<i128> {
    Some(match v {
        ScalarValue::Int8(Some(x)) => i128::from(*x),
        ScalarValue::Int16(Some(x)) => i128::from(*x),
        ScalarValue::Int32(Some(x)) => i128::from(*x),
        ScalarValue::Int64(Some(x)) => i128::from(*x),
        ScalarValue::UInt8(Some(x)) => i128::from(*x),
        ScalarValue::UInt16(Some(x)) => i128::from(*x),
        ScalarValue::UInt32(Some(x)) => i128::from(*x),
        ScalarValue::UInt64(Some(x)) => i128::from(*x),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{col, lit};

    #[test]
    fn ranges_come_from_comparisons_and_between() {
        let b = Bounds::of(&[col("line").between(lit(10u64), lit(20u64))]);
        assert_eq!(b.lines, (10, 20));
        let b = Bounds::of(&[col("line").gt(lit(10i64)), lit(20i64).gt(col("line"))]);
        assert_eq!(b.lines, (11, 19));
        let b = Bounds::of(&[col("time").eq(lit(7i32)).and(col("line").lt_eq(lit(3u8)))]);
        assert_eq!((b.times, b.lines), ((7, 7), (0, 3)));
        assert!(Bounds::of(&[col("line").lt(lit(0i64))]).is_empty());
        assert_eq!(Bounds::of(&[col("pc").eq(lit(5i64))]), Bounds::default());
        assert!(!is_pushable(&col("line").not_eq(lit(5i64))));
        assert!(is_pushable(&col("line").gt_eq(lit(5i64))));
    }
}
