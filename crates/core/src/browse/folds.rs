//! Folded calls of one trace view and the mapping between view rows and
//! trace lines. A fold hides a call's lines (from the callee's first line up
//! to, not including, the line it returned to) behind one row.
//!
//! Invariants: folds are sorted by first hidden line and never overlap
//! (folding a call inside a fold does nothing; folding around folds absorbs
//! them); rows are 0-based, lines 1-based.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fold {
    pub(crate) call: u64,
    pub(crate) call_node: u64,
    pub(crate) entry_node: u64,
    pub(crate) resume_node: Option<u64>,
    pub(crate) function: u64,
    /// Hidden lines: `first..end`.
    pub(crate) first: u64,
    pub(crate) end: u64,
}

impl Fold {
    fn len(&self) -> u64 {
        self.end - self.first
    }
}

/// Where a row leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowTarget {
    Line(u64),
    Fold(usize),
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Folds {
    folds: Vec<Fold>,
    /// `skip[i]`: rows saved by folds before `i` (each fold of n lines is one row).
    skip: Vec<u64>,
}

impl Folds {
    fn rebuild(&mut self) {
        self.skip.clear();
        let mut s = 0;
        for f in &self.folds {
            self.skip.push(s);
            s += f.len().saturating_sub(1);
        }
        self.skip.push(s);
    }

    pub(crate) fn folds(&self) -> &[Fold] {
        &self.folds
    }

    pub(crate) fn total_rows(&self, lines: u64) -> u64 {
        lines - self.skip.last().copied().unwrap_or(0)
    }

    /// Row of fold `i`.
    fn fold_row(&self, i: usize) -> u64 {
        self.folds[i].first - 1 - self.skip[i]
    }

    pub(crate) fn at_row(&self, row: u64) -> RowTarget {
        // Fold rows increase with the fold index: binary search for the
        // last fold whose row is at or before `row`.
        let (mut lo, mut hi) = (0, self.folds.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.fold_row(mid) <= row {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let k = lo;
        if k == 0 {
            return RowTarget::Line(row + 1);
        }
        let j = k - 1;
        if self.fold_row(j) == row {
            RowTarget::Fold(j)
        } else {
            RowTarget::Line(row + 1 + self.skip[j + 1])
        }
    }

    /// The fold hiding `line`, if any.
    pub(crate) fn hiding(&self, line: u64) -> Option<usize> {
        let k = self.folds.partition_point(|f| f.first <= line);
        (k > 0 && line < self.folds[k - 1].end).then(|| k - 1)
    }

    /// The row showing `line` (the fold's row when it is hidden).
    pub(crate) fn row_of_line(&self, line: u64) -> u64 {
        let k = self.folds.partition_point(|f| f.first <= line);
        if k == 0 {
            return line - 1;
        }
        let j = k - 1;
        if line < self.folds[j].end {
            self.fold_row(j)
        } else {
            line - 1 - self.skip[j + 1]
        }
    }

    /// Adds a fold unless it lies inside an existing one; folds inside it
    /// are absorbed.
    pub(crate) fn add(&mut self, fold: Fold) {
        if fold.end <= fold.first || self.hiding(fold.first).is_some() {
            return;
        }
        self.folds
            .retain(|f| !(f.first >= fold.first && f.end <= fold.end));
        let at = self.folds.partition_point(|f| f.first < fold.first);
        self.folds.insert(at, fold);
        self.rebuild();
    }

    pub(crate) fn retain(&mut self, keep: impl FnMut(&Fold) -> bool) {
        self.folds.retain(keep);
        self.rebuild();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(first: u64, end: u64) -> Fold {
        Fold {
            call: first,
            call_node: 0,
            entry_node: 0,
            resume_node: None,
            function: 0,
            first,
            end,
        }
    }

    #[test]
    fn rows_and_lines() {
        let mut f = Folds::default();
        f.rebuild();
        assert_eq!(f.total_rows(100), 100);
        f.add(fold(10, 20)); // lines 10..19 -> one row (row 9)
        f.add(fold(30, 35)); // lines 30..34 -> row 20
        assert_eq!(f.total_rows(100), 100 - 9 - 4);
        assert_eq!(f.at_row(8), RowTarget::Line(9));
        assert_eq!(f.at_row(9), RowTarget::Fold(0));
        assert_eq!(f.at_row(10), RowTarget::Line(20));
        assert_eq!(f.at_row(19), RowTarget::Line(29));
        assert_eq!(f.at_row(20), RowTarget::Fold(1));
        assert_eq!(f.at_row(21), RowTarget::Line(35));
        for line in 1..=100u64 {
            let r = f.row_of_line(line);
            match f.at_row(r) {
                RowTarget::Line(l) => assert_eq!(l, line),
                RowTarget::Fold(i) => {
                    assert!(f.folds()[i].first <= line && line < f.folds()[i].end)
                }
            }
        }
        // A fold inside an existing one changes nothing; one around absorbs.
        f.add(fold(12, 15));
        assert_eq!(f.folds().len(), 2);
        f.add(fold(5, 40));
        assert_eq!(f.folds().len(), 1);
        assert_eq!(f.total_rows(100), 100 - 34);
        f.retain(|_| false);
        assert_eq!(f.total_rows(100), 100);
    }
}
