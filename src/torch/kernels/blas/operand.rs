//! How a strided matrix or vector reaches BLAS, which is column-major: a matrix is passed as
//! stored ("N") when its columns are contiguous, as its transpose ("T") when its rows are, and
//! needs a contiguous copy otherwise; a vector needs a positive increment. Written once for the
//! host products (OpenBLAS) and the device ones (cuBLAS).

/// How BLAS reads a matrix in place, with the leading dimension to give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Column-major: passed as stored ("N"), leading dimension the column stride.
    Cols(usize),
    /// Row-major: its transpose is column-major ("T"), leading dimension the row stride.
    Rows(usize),
}

/// The leading dimension that presents a `rows` x `cols` matrix with strides `rs` (between rows)
/// and `cs` (between columns) to BLAS as column-major (element (i, j) at `i + j*ld`,
/// `ld >= max(1, rows)`), if its strides allow. Strides of size-1 dimensions are free, so a row or
/// a column always fits unless it repeats elements (stride 0).
pub fn column_major_ld(rows: usize, cols: usize, rs: usize, cs: usize) -> Option<usize> {
    if rows > 1 && rs != 1 {
        return None;
    }
    let ld = if cols > 1 { cs } else { rows.max(1) };
    (ld >= rows.max(1)).then_some(ld)
}

/// The leading dimension that presents the matrix's transpose as column-major (the matrix is
/// row-major), if its strides allow.
pub fn row_major_ld(rows: usize, cols: usize, rs: usize, cs: usize) -> Option<usize> {
    column_major_ld(cols, rows, cs, rs)
}

impl Order {
    /// How BLAS can read the matrix in place, column-major first; None when it needs a copy
    /// (both strides above 1, or a repeated row or column).
    pub fn of(rows: usize, cols: usize, rs: usize, cs: usize) -> Option<Order> {
        column_major_ld(rows, cols, rs, cs)
            .map(Order::Cols)
            .or_else(|| row_major_ld(rows, cols, rs, cs).map(Order::Rows))
    }
}

/// The BLAS increment of a vector of `len` elements `inc` apart: None when BLAS cannot step
/// through it (stride 0 repeats an element, which BLAS rejects).
pub fn increment(len: usize, inc: usize) -> Option<usize> {
    if len <= 1 {
        return Some(1);
    }
    (inc != 0).then_some(inc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_for_blas() {
        // Row-major 3x4: not column-major, its transpose is (ld 4).
        assert_eq!(column_major_ld(3, 4, 4, 1), None);
        assert_eq!(row_major_ld(3, 4, 4, 1), Some(4));
        assert_eq!(Order::of(3, 4, 4, 1), Some(Order::Rows(4)));
        // A single row: any stride works as the leading dimension of its columns.
        assert_eq!(column_major_ld(1, 4, 99, 2), Some(2));
        // Expanded (stride 0) rows repeat elements: no layout.
        assert_eq!(row_major_ld(3, 4, 0, 1), None);
        assert_eq!(Order::of(3, 4, 0, 2), None);
        // Narrowed columns keep the parent's leading dimension.
        assert_eq!(column_major_ld(2, 2, 1, 3), Some(3));
        assert_eq!(Order::of(2, 2, 1, 3), Some(Order::Cols(3)));
        assert_eq!(
            (increment(1, 0), increment(3, 0), increment(3, 2)),
            (Some(1), None, Some(2))
        );
    }
}
