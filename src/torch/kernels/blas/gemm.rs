//! Matrix and vector products on strided views, for every element type: plain loops with Torch's
//! C arithmetic, and for Float and Double OpenBLAS (`openblas`), to which a strided matrix is
//! handed as it is whenever a leading dimension and a transpose flag describe it (a transposed or
//! narrowed matrix costs no copy); only matrices BLAS cannot describe (both strides > 1, or
//! expanded with stride 0) are copied to a contiguous buffer first.

use super::openblas as blas;
use super::operand::{column_major_ld, increment};
use crate::torch::base::dtype::Element;
use crate::torch::kernels::arith::Arith;

/// A strided matrix: element (i, j) is at `ptr + i*rs + j*cs`.
#[derive(Clone, Copy, Debug)]
pub struct Mat<T> {
    pub ptr: *mut T,
    pub rows: usize,
    pub cols: usize,
    pub rs: usize,
    pub cs: usize,
}

/// A strided vector: element i is at `ptr + i*inc`.
#[derive(Clone, Copy, Debug)]
pub struct Vector<T> {
    pub ptr: *mut T,
    pub len: usize,
    pub inc: usize,
}

impl<T> Mat<T> {
    /// Its leading dimension as a column-major BLAS matrix, if it has one (see `operand`).
    pub fn col_major_ld(&self) -> Option<usize> {
        column_major_ld(self.rows, self.cols, self.rs, self.cs)
    }

    pub fn t(self) -> Mat<T> {
        Mat {
            ptr: self.ptr,
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// # Safety
    /// (i, j) must be inside the matrix.
    #[inline(always)]
    pub unsafe fn at(&self, i: usize, j: usize) -> *mut T {
        unsafe { self.ptr.add(i * self.rs + j * self.cs) }
    }
}

impl<T> Vector<T> {
    /// Its BLAS increment, None when BLAS cannot step through it (a repeated element, or a stride
    /// past a C int).
    fn increment(&self) -> Option<i32> {
        increment(self.len, self.inc).and_then(blas::int)
    }

    /// As a len x 1 matrix.
    fn column(self) -> Mat<T> {
        Mat {
            ptr: self.ptr,
            rows: self.len,
            cols: 1,
            rs: self.inc,
            cs: 1,
        }
    }

    /// As a 1 x len matrix.
    fn row(self) -> Mat<T> {
        self.column().t()
    }
}

/// The products of every element type, as plain loops with Torch's C arithmetic (`Arith`:
/// wrapping for integers, IEEE for floats); the float types override them with OpenBLAS.
pub trait Scalar: Arith {
    /// `c = beta*c + alpha*a*b` (c is m x n, a m x k, b k x n). With beta == 0 the old contents
    /// of c are ignored, as BLAS does.
    ///
    /// # Safety
    /// The views must be valid for their sizes; c must not overlap a or b.
    unsafe fn gemm(alpha: Self, a: Mat<Self>, b: Mat<Self>, beta: Self, c: Mat<Self>) {
        unsafe { gemm_loop(alpha, a, b, beta, c) }
    }

    /// `y = beta*y + alpha*a*x`.
    ///
    /// # Safety
    /// As for gemm.
    unsafe fn gemv(alpha: Self, a: Mat<Self>, x: Vector<Self>, beta: Self, y: Vector<Self>) {
        unsafe { gemm_loop(alpha, a, x.column(), beta, y.column()) }
    }

    /// `a += alpha * x * y'`.
    ///
    /// # Safety
    /// As for gemm.
    unsafe fn ger(alpha: Self, x: Vector<Self>, y: Vector<Self>, a: Mat<Self>) {
        unsafe { gemm_loop(alpha, x.column(), y.row(), Self::one(), a) }
    }

    /// Sum of x[i]*y[i], accumulated as Torch's accreal (double for floats, long for integers).
    ///
    /// # Safety
    /// Both views must be valid for `x.len` elements.
    unsafe fn dot(x: Vector<Self>, y: Vector<Self>) -> f64 {
        unsafe { dot_loop(x, y) }
    }
}

impl Scalar for u8 {}
impl Scalar for i8 {}
impl Scalar for i16 {}
impl Scalar for i32 {}
impl Scalar for i64 {}

/// Float types: the BLAS routines of the type, picked from the loaded library.
pub trait BlasReal: Scalar {
    fn routines(api: &blas::Api) -> &blas::Routines<Self>;
}

macro_rules! float_scalar {
    ($t:ty, $field:ident) => {
        impl BlasReal for $t {
            fn routines(api: &blas::Api) -> &blas::Routines<Self> {
                &api.$field
            }
        }

        impl Scalar for $t {
            unsafe fn gemm(alpha: Self, a: Mat<Self>, b: Mat<Self>, beta: Self, c: Mat<Self>) {
                unsafe {
                    if !blas_gemm(alpha, a, b, beta, c) {
                        gemm_loop(alpha, a, b, beta, c)
                    }
                }
            }
            unsafe fn gemv(alpha: Self, a: Mat<Self>, x: Vector<Self>, beta: Self, y: Vector<Self>) {
                unsafe {
                    if !blas_gemv(alpha, a, x, beta, y) {
                        gemm_loop(alpha, a, x.column(), beta, y.column())
                    }
                }
            }
            unsafe fn ger(alpha: Self, x: Vector<Self>, y: Vector<Self>, a: Mat<Self>) {
                unsafe {
                    if !blas_ger(alpha, x, y, a) {
                        gemm_loop(alpha, x.column(), y.row(), 1.0, a)
                    }
                }
            }
            unsafe fn dot(x: Vector<Self>, y: Vector<Self>) -> f64 {
                unsafe { blas_dot(x, y).unwrap_or_else(|| dot_loop(x, y)) }
            }
        }
    };
}
float_scalar!(f32, s);
float_scalar!(f64, d);

/// The reference loop for every type: row by row, `c[i,:] = beta*c[i,:] + sum_k (alpha*a[i,k]) * b[k,:]`.
///
/// # Safety
/// As for `Scalar::gemm`.
pub unsafe fn gemm_loop<T: Scalar>(alpha: T, a: Mat<T>, b: Mat<T>, beta: T, c: Mat<T>) {
    let (m, n, k) = (c.rows, c.cols, a.cols);
    let zero = T::zero();
    unsafe {
        for i in 0..m {
            for j in 0..n {
                let p = c.at(i, j);
                *p = if beta == zero { zero } else { beta.mul(*p) };
            }
            for kk in 0..k {
                let aik = alpha.mul(*a.at(i, kk));
                for j in 0..n {
                    let p = c.at(i, j);
                    *p = (*p).add(aik.mul(*b.at(kk, j)));
                }
            }
        }
    }
}

/// # Safety
/// As for `Scalar::dot`.
pub unsafe fn dot_loop<T: Element>(x: Vector<T>, y: Vector<T>) -> f64 {
    unsafe {
        if T::DTYPE.is_floating() {
            let mut s = 0.0f64;
            for i in 0..x.len {
                s += (*x.ptr.add(i * x.inc)).to_f64() * (*y.ptr.add(i * y.inc)).to_f64();
            }
            s
        } else {
            let mut s = 0i64;
            for i in 0..x.len {
                let p = (*x.ptr.add(i * x.inc))
                    .to_i64()
                    .wrapping_mul((*y.ptr.add(i * y.inc)).to_i64());
                s = s.wrapping_add(p);
            }
            s as f64
        }
    }
}

/// A row-major contiguous copy of `x`.
///
/// # Safety
/// `x` must be valid.
pub unsafe fn gather<T: Copy>(x: &Mat<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(x.rows * x.cols);
    for i in 0..x.rows {
        for j in 0..x.cols {
            out.push(unsafe { *x.at(i, j) });
        }
    }
    out
}

/// How an operand goes to gemm: its transpose flag and leading dimension, and the buffer that
/// holds it when it had to be copied.
struct Operand<T> {
    ptr: *const T,
    trans: i32,
    ld: i32,
    _copy: Option<Vec<T>>,
}

/// # Safety
/// `x` must be valid.
unsafe fn operand<T: Copy>(x: Mat<T>) -> Option<Operand<T>> {
    if let Some(ld) = x.col_major_ld() {
        return Some(Operand {
            ptr: x.ptr,
            trans: blas::NO_TRANS,
            ld: blas::int(ld)?,
            _copy: None,
        });
    }
    if let Some(ld) = x.t().col_major_ld() {
        return Some(Operand {
            ptr: x.ptr,
            trans: blas::TRANS,
            ld: blas::int(ld)?,
            _copy: None,
        });
    }
    // A row-major copy is the column-major transpose, leading dimension `cols`.
    let copy = unsafe { gather(&x) };
    Some(Operand {
        ptr: copy.as_ptr(),
        trans: blas::TRANS,
        ld: blas::int(x.cols.max(1))?,
        _copy: Some(copy),
    })
}

/// gemm into a `c` that has a column-major layout (see `col_major_ld`).
///
/// # Safety
/// As for `Scalar::gemm`.
unsafe fn gemm_col_major<T: BlasReal>(api: &blas::Api, alpha: T, a: Mat<T>, b: Mat<T>, beta: T, c: Mat<T>) -> bool {
    let ints = (
        blas::int(c.rows),
        blas::int(c.cols),
        blas::int(a.cols),
        c.col_major_ld().and_then(blas::int),
    );
    let (Some(m), Some(n), Some(k), Some(ldc)) = ints else {
        return false;
    };
    unsafe {
        let (Some(oa), Some(ob)) = (operand(a), operand(b)) else {
            return false;
        };
        (T::routines(api).gemm)(
            blas::COL_MAJOR,
            oa.trans,
            ob.trans,
            m,
            n,
            k,
            alpha,
            oa.ptr,
            oa.ld,
            ob.ptr,
            ob.ld,
            beta,
            c.ptr,
            ldc,
        );
    }
    true
}

/// gemm through BLAS; false when BLAS cannot do it (no library, sizes past a C int, k == 0).
///
/// # Safety
/// As for `Scalar::gemm`.
unsafe fn blas_gemm<T: BlasReal>(alpha: T, a: Mat<T>, b: Mat<T>, beta: T, c: Mat<T>) -> bool {
    let Some(api) = blas::api() else { return false };
    let (m, n) = (c.rows, c.cols);
    if m == 0 || n == 0 {
        return true;
    }
    if a.cols == 0 {
        // Nothing to multiply: the loop does the beta scaling.
        return false;
    }
    unsafe {
        if c.col_major_ld().is_some() {
            return gemm_col_major(api, alpha, a, b, beta, c);
        }
        // A row-major c is the column-major c' = b' a'.
        if c.t().col_major_ld().is_some() {
            return gemm_col_major(api, alpha, b.t(), a.t(), beta, c.t());
        }
        // c has no BLAS layout (both strides > 1, or stride 0): work in a column-major buffer.
        let mut buf = vec![T::zero(); m * n];
        let tmp = Mat {
            ptr: buf.as_mut_ptr(),
            rows: m,
            cols: n,
            rs: 1,
            cs: m,
        };
        if beta != T::zero() {
            copy_mat(c, tmp);
        }
        if !gemm_col_major(api, alpha, a, b, beta, tmp) {
            return false;
        }
        copy_mat(tmp, c);
    }
    true
}

/// # Safety
/// Both views valid and of the same size.
pub unsafe fn copy_mat<T: Copy>(src: Mat<T>, dst: Mat<T>) {
    for i in 0..src.rows {
        for j in 0..src.cols {
            unsafe { *dst.at(i, j) = *src.at(i, j) };
        }
    }
}

/// # Safety
/// As for `Scalar::gemv`.
unsafe fn blas_gemv<T: BlasReal>(alpha: T, a: Mat<T>, x: Vector<T>, beta: T, y: Vector<T>) -> bool {
    let Some(api) = blas::api() else { return false };
    let (m, n) = (a.rows, a.cols);
    if m == 0 {
        return true;
    }
    if n == 0 {
        return false;
    }
    // A stride-0 x is read as a copy; a stride-0 y would be written many times: the loop's case.
    let (Some(incy), Some(bm), Some(bn)) = (y.increment(), blas::int(m), blas::int(n)) else {
        return false;
    };
    let xcopy;
    let (xptr, incx) = match x.increment() {
        Some(inc) => (x.ptr as *const T, inc),
        None => {
            xcopy = unsafe { gather(&x.column()) };
            (xcopy.as_ptr(), 1)
        }
    };
    unsafe {
        if beta == T::zero() {
            // Zero y ourselves: some OpenBLAS versions compute 0*NaN when scaling by beta = 0.
            for i in 0..m {
                *y.ptr.add(i * y.inc) = T::zero();
            }
        }
        let gemv = T::routines(api).gemv;
        if let Some(ld) = a.col_major_ld().and_then(blas::int) {
            gemv(
                blas::COL_MAJOR,
                blas::NO_TRANS,
                bm,
                bn,
                alpha,
                a.ptr,
                ld,
                xptr,
                incx,
                beta,
                y.ptr,
                incy,
            );
        } else if let Some(ld) = a.t().col_major_ld().and_then(blas::int) {
            gemv(
                blas::COL_MAJOR,
                blas::TRANS,
                bn,
                bm,
                alpha,
                a.ptr,
                ld,
                xptr,
                incx,
                beta,
                y.ptr,
                incy,
            );
        } else {
            let copy = gather(&a);
            let Some(ld) = blas::int(n) else { return false };
            gemv(
                blas::COL_MAJOR,
                blas::TRANS,
                bn,
                bm,
                alpha,
                copy.as_ptr(),
                ld,
                xptr,
                incx,
                beta,
                y.ptr,
                incy,
            );
        }
    }
    true
}

/// # Safety
/// As for `Scalar::ger`.
unsafe fn blas_ger<T: BlasReal>(alpha: T, x: Vector<T>, y: Vector<T>, a: Mat<T>) -> bool {
    let Some(api) = blas::api() else { return false };
    let (m, n) = (a.rows, a.cols);
    if m == 0 || n == 0 {
        return true;
    }
    let (Some(bm), Some(bn)) = (blas::int(m), blas::int(n)) else {
        return false;
    };
    let (xcopy, ycopy);
    let (xp, incx) = match x.increment() {
        Some(inc) => (x.ptr as *const T, inc),
        None => {
            xcopy = unsafe { gather(&x.column()) };
            (xcopy.as_ptr(), 1)
        }
    };
    let (yp, incy) = match y.increment() {
        Some(inc) => (y.ptr as *const T, inc),
        None => {
            ycopy = unsafe { gather(&y.column()) };
            (ycopy.as_ptr(), 1)
        }
    };
    let ger = T::routines(api).ger;
    unsafe {
        if let Some(ld) = a.col_major_ld().and_then(blas::int) {
            ger(blas::COL_MAJOR, bm, bn, alpha, xp, incx, yp, incy, a.ptr, ld);
        } else if let Some(ld) = a.t().col_major_ld().and_then(blas::int) {
            // a' += alpha * y x'
            ger(blas::COL_MAJOR, bn, bm, alpha, yp, incy, xp, incx, a.ptr, ld);
        } else {
            let mut buf = gather(&a);
            let Some(ld) = blas::int(n) else { return false };
            ger(blas::COL_MAJOR, bn, bm, alpha, yp, incy, xp, incx, buf.as_mut_ptr(), ld);
            let tmp = Mat {
                ptr: buf.as_mut_ptr(),
                rows: m,
                cols: n,
                rs: n,
                cs: 1,
            };
            copy_mat(tmp, a);
        }
    }
    true
}

/// # Safety
/// As for `Scalar::dot`.
unsafe fn blas_dot<T: BlasReal>(x: Vector<T>, y: Vector<T>) -> Option<f64> {
    let api = blas::api()?;
    let n = blas::int(x.len)?;
    let (incx, incy) = (x.increment()?, y.increment()?);
    Some(unsafe { (T::routines(api).dot)(n, x.ptr, incx, y.ptr, incy) }.to_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m<T>(v: &mut [T], rows: usize, cols: usize, rs: usize, cs: usize) -> Mat<T> {
        Mat {
            ptr: v.as_mut_ptr(),
            rows,
            cols,
            rs,
            cs,
        }
    }

    #[test]
    fn integer_loop_wraps_like_c() {
        let mut a = [200u8, 1];
        let mut b = [2u8, 3];
        let mut c = [7u8];
        unsafe {
            gemm_loop(
                1,
                m(&mut a, 1, 2, 2, 1),
                m(&mut b, 2, 1, 1, 1),
                0,
                m(&mut c, 1, 1, 1, 1),
            );
        }
        assert_eq!(c[0], (400u32 + 3) as u8);
    }

    #[test]
    fn float_paths_agree_with_the_loop_on_strided_views() {
        // 4x6 storage; a = rows 0..3, cols 1..4 with stride 2 in j (no BLAS layout: copied).
        let mut sa: Vec<f64> = (0..24).map(|i| i as f64).collect();
        let mut sb: Vec<f64> = (0..24).map(|i| (i * 7 % 5) as f64).collect();
        let a = m(&mut sa, 3, 2, 6, 2);
        let b = m(&mut sb, 2, 4, 1, 2);
        for (crs, ccs) in [(1usize, 3usize), (4, 1), (8, 2)] {
            let mut want = vec![1.0f64; 24];
            let mut got = want.clone();
            unsafe {
                gemm_loop(2.0, a, b, 0.5, m(&mut want, 3, 4, crs, ccs));
                <f64 as Scalar>::gemm(2.0, a, b, 0.5, m(&mut got, 3, 4, crs, ccs));
            }
            assert_eq!(want, got, "c strides {crs},{ccs}");
        }
    }
}
