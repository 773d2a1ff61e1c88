//! Linear algebra: mm, mv, bmm, addmm, addmv, addr, addbmm, baddbmm, dot, ger, cross, trace, diag,
//! tril, triu, and torch.setnumthreads/getnumthreads.
//!
//! Float and Double products go through OpenBLAS (`blas.rs`): a strided matrix is handed to BLAS
//! as it is whenever a leading dimension and a transpose flag describe it (a transposed or
//! narrowed matrix costs no copy); only matrices BLAS cannot describe (both strides > 1, or
//! expanded with stride 0) are copied to a contiguous buffer first. Integer types, and floats
//! when no OpenBLAS is installed, use plain Rust loops with the same semantics (integer arithmetic
//! wraps, as Torch's C does).
//!
//! Argument forms follow Torch's cwrap declarations:
//! - `torch.addmm([res,] [beta,] M, [alpha,] m1, m2)`; `res:addmm([M,] [alpha,] m1, m2)` and
//!   `res:addmm(beta, [M,] alpha, m1, m2)` (M defaults to res). The same for addmv, addr, addbmm
//!   and baddbmm.
//! - `torch.mm([res,] m1, m2)` and `res:mm(m1, m2)`; the same for mv, ger and bmm.
//! - `torch.cross([res,] a, b [, dim])`, `torch.diag([res,] x [, k])`, `torch.tril/triu([res,] x
//!   [, k])`: the method forms are the same functions, so `x:diag()` returns a new tensor and
//!   `res:diag(x)` writes into res.
//! - `x:dot(y)`, `x:trace()`: numbers.

use std::ptr::NonNull;

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::reduce::integer;
use super::{add, one};
use crate::dispatch;
use crate::torch::apply::{self, Offsets};
use crate::torch::args::{self, Args, error, int_arg, number, type_name};
use crate::torch::blas;
use crate::torch::construct;
use crate::torch::dtype::{DType, Element};
use crate::torch::layout::Tensor;
use crate::torch::methods::copy::clone_tensor;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

// ---------------------------------------------------------------------------------------------
// Kernels on strided views

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
    unsafe fn at(&self, i: usize, j: usize) -> *mut T {
        unsafe { self.ptr.add(i * self.rs + j * self.cs) }
    }
}

impl<T> Vector<T> {
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

/// The arithmetic the loops need: wrapping for integers (Torch's C arithmetic), IEEE for floats.
/// The float types override the products with OpenBLAS.
pub trait Scalar: Element {
    fn plus(self, o: Self) -> Self;
    fn minus(self, o: Self) -> Self;
    fn times(self, o: Self) -> Self;

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

macro_rules! integer_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            #[inline(always)]
            fn plus(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)]
            fn minus(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)]
            fn times(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
integer_scalar!(u8, i8, i16, i32, i64);

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
            #[inline(always)]
            fn plus(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn minus(self, o: Self) -> Self {
                self - o
            }
            #[inline(always)]
            fn times(self, o: Self) -> Self {
                self * o
            }
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
                *p = if beta == zero { zero } else { beta.times(*p) };
            }
            for kk in 0..k {
                let aik = alpha.times(*a.at(i, kk));
                for j in 0..n {
                    let p = c.at(i, j);
                    *p = (*p).plus(aik.times(*b.at(kk, j)));
                }
            }
        }
    }
}

/// # Safety
/// As for `Scalar::dot`.
unsafe fn dot_loop<T: Element>(x: Vector<T>, y: Vector<T>) -> f64 {
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

/// The leading dimension that presents `x` to BLAS as a column-major matrix (element (i, j) at
/// `i + j*ld`, `ld >= max(1, rows)`), if its strides allow. Strides of size-1 dimensions are
/// free, so a row or a column always fits unless it repeats elements (stride 0).
fn col_major_ld<T>(x: &Mat<T>) -> Option<usize> {
    if x.rows > 1 && x.rs != 1 {
        return None;
    }
    let ld = if x.cols > 1 { x.cs } else { x.rows.max(1) };
    (ld >= x.rows.max(1)).then_some(ld)
}

/// A row-major contiguous copy of `x`.
///
/// # Safety
/// `x` must be valid.
unsafe fn gather<T: Copy>(x: &Mat<T>) -> Vec<T> {
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
    if let Some(ld) = col_major_ld(&x) {
        return Some(Operand {
            ptr: x.ptr,
            trans: blas::NO_TRANS,
            ld: blas::int(ld)?,
            _copy: None,
        });
    }
    if let Some(ld) = col_major_ld(&x.t()) {
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
        col_major_ld(&c).and_then(blas::int),
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
        if col_major_ld(&c).is_some() {
            return gemm_col_major(api, alpha, a, b, beta, c);
        }
        // A row-major c is the column-major c' = b' a'.
        if col_major_ld(&c.t()).is_some() {
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
unsafe fn copy_mat<T: Copy>(src: Mat<T>, dst: Mat<T>) {
    for i in 0..src.rows {
        for j in 0..src.cols {
            unsafe { *dst.at(i, j) = *src.at(i, j) };
        }
    }
}

/// A BLAS increment for a vector, None when BLAS cannot step through it (stride 0 repeats an
/// element, which BLAS rejects, or the stride does not fit a C int).
fn increment<T>(v: &Vector<T>) -> Option<i32> {
    if v.len <= 1 {
        return Some(1);
    }
    if v.inc == 0 {
        return None;
    }
    blas::int(v.inc)
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
    let (Some(incy), Some(bm), Some(bn)) = (increment(&y), blas::int(m), blas::int(n)) else {
        return false;
    };
    let xcopy;
    let (xptr, incx) = match increment(&x) {
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
        if let Some(ld) = col_major_ld(&a).and_then(blas::int) {
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
        } else if let Some(ld) = col_major_ld(&a.t()).and_then(blas::int) {
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
    let (xp, incx) = match increment(&x) {
        Some(inc) => (x.ptr as *const T, inc),
        None => {
            xcopy = unsafe { gather(&x.column()) };
            (xcopy.as_ptr(), 1)
        }
    };
    let (yp, incy) = match increment(&y) {
        Some(inc) => (y.ptr as *const T, inc),
        None => {
            ycopy = unsafe { gather(&y.column()) };
            (ycopy.as_ptr(), 1)
        }
    };
    let ger = T::routines(api).ger;
    unsafe {
        if let Some(ld) = col_major_ld(&a).and_then(blas::int) {
            ger(blas::COL_MAJOR, bm, bn, alpha, xp, incx, yp, incy, a.ptr, ld);
        } else if let Some(ld) = col_major_ld(&a.t()).and_then(blas::int) {
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
    let (incx, incy) = (increment(&x)?, increment(&y)?);
    Some(unsafe { (T::routines(api).dot)(n, x.ptr, incx, y.ptr, incy) }.to_f64())
}

// ---------------------------------------------------------------------------------------------
// Tensors to views

/// The address of a tensor's first element (a dangling pointer for an empty tensor, which is
/// never read).
fn base<T: Element>(t: &Tensor, method: &str) -> Result<*mut T> {
    if t.numel() == 0 {
        return Ok(NonNull::<T>::dangling().as_ptr());
    }
    let s = args::lift_in(method, t.storage_checked())?;
    // SAFETY: the storage covers the view (checked), so the offset is inside it.
    Ok(unsafe { s.ptr::<T>().add(t.offset) })
}

fn mat<T: Element>(t: &Tensor, method: &str) -> Result<Mat<T>> {
    Ok(Mat {
        ptr: base(t, method)?,
        rows: t.size[0],
        cols: t.size[1],
        rs: t.stride[0],
        cs: t.stride[1],
    })
}

fn vector<T: Element>(t: &Tensor, method: &str) -> Result<Vector<T>> {
    Ok(Vector {
        ptr: base(t, method)?,
        len: t.size[0],
        inc: t.stride[0],
    })
}

/// Torch's size description: `[2 x 3]`.
fn desc(t: &Tensor) -> String {
    let s: Vec<String> = t.size.iter().map(|s| s.to_string()).collect();
    format!("[{}]", s.join(" x "))
}

/// Whether two views are the same tensor (same memory, offset, sizes and strides).
fn same_view(a: &Tensor, b: &Tensor) -> bool {
    let same_storage = match (&a.storage, &b.storage) {
        (Some(x), Some(y)) => x.same(y),
        (None, None) => true,
        _ => false,
    };
    same_storage && a.offset == b.offset && a.size == b.size && a.stride == b.stride
}

fn shares_storage(a: &Tensor, b: &Tensor) -> bool {
    matches!((&a.storage, &b.storage), (Some(x), Some(y)) if x.same(y))
}

/// `t` itself, or a copy when it lives in the memory the result is written to (`res:mm(res, b)`
/// must read the old res).
fn detach(t: Tensor, out: &Tensor) -> Result<Tensor> {
    if shares_storage(&t, out) && t.numel() > 0 {
        clone_tensor(&t)
    } else {
        Ok(t)
    }
}

/// Multiplies every element of `t` by `v` (v == 0 writes zeros, whatever was there).
fn scale(t: &Tensor, v: f64, method: &str) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = args::lift_in(method, t.storage_checked())?;
    dispatch!(t.dtype, T => unsafe {
        let v = T::from_f64(v);
        if v == T::zero() {
            apply::for_each_mut(s.ptr::<T>(), t, |x| *x = T::zero());
        } else if v != T::one() {
            apply::for_each_mut(s.ptr::<T>(), t, |x| *x = x.times(v));
        }
    });
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Arguments

enum Tok {
    T(Value, Tensor),
    N(f64),
    Other,
}

/// The arguments, classified; trailing nils dropped (an optional argument passed as nil is absent).
fn tokens(a: &Args) -> Vec<Tok> {
    let mut n = a.len();
    while n > 0 && matches!(a[n - 1], Value::Nil) {
        n -= 1;
    }
    a.iter()
        .take(n)
        .map(|v| match tensor_of(v) {
            Some(t) => Tok::T(v.clone(), t),
            None => match number(v) {
                Some(x) => Tok::N(x),
                None => Tok::Other,
            },
        })
        .collect()
}

fn invalid(name: &str, a: &Args, usage: &str) -> mlua::Error {
    let got: Vec<String> = a.iter().map(type_name).collect();
    error(
        name,
        format!("invalid arguments ({}); expected {usage}", got.join(", ")),
    )
}

/// Every tensor argument must have the type of the first one (cwrap's typed overloads).
fn check_types(name: &str, a: &Args) -> Result<()> {
    let mut want: Option<DType> = None;
    for (i, v) in a.iter().enumerate() {
        if let Some(t) = tensor_of(v) {
            match want {
                None => want = Some(t.dtype),
                Some(d) if d != t.dtype => {
                    return Err(error(
                        name,
                        format!(
                            "bad argument #{} ({} expected, got {})",
                            i + 1,
                            d.tensor_typename(),
                            t.dtype.tensor_typename()
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Method,
    Function,
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Mv,
    Mm,
    Ger,
    Bmm,
    AddBmm,
}

struct Spec {
    name: &'static str,
    op: Op,
}

const ADDMV: Spec = Spec {
    name: "addmv",
    op: Op::Mv,
};
const ADDMM: Spec = Spec {
    name: "addmm",
    op: Op::Mm,
};
const ADDR: Spec = Spec {
    name: "addr",
    op: Op::Ger,
};
const BADDBMM: Spec = Spec {
    name: "baddbmm",
    op: Op::Bmm,
};
const ADDBMM: Spec = Spec {
    name: "addbmm",
    op: Op::AddBmm,
};
const MV: Spec = Spec { name: "mv", op: Op::Mv };
const MM: Spec = Spec { name: "mm", op: Op::Mm };
const GER: Spec = Spec {
    name: "ger",
    op: Op::Ger,
};
const BMM: Spec = Spec {
    name: "bmm",
    op: Op::Bmm,
};

/// Checks the two operands; returns the size of the product.
fn check_operands(s: &Spec, x: &Tensor, y: &Tensor) -> Result<Vec<usize>> {
    let name = s.name;
    match s.op {
        Op::Mv => {
            if x.dim() != 2 || y.dim() != 1 {
                return Err(error(
                    name,
                    format!("matrix and vector expected, got {}D, {}D", x.dim(), y.dim()),
                ));
            }
            if x.size[1] != y.size[0] {
                return Err(error(name, format!("size mismatch, {}, {}", desc(x), desc(y))));
            }
            Ok(vec![x.size[0]])
        }
        Op::Mm => {
            if x.dim() != 2 || y.dim() != 2 {
                return Err(error(
                    name,
                    format!("matrices expected, got {}D, {}D tensors", x.dim(), y.dim()),
                ));
            }
            if x.size[1] != y.size[0] {
                return Err(error(name, format!("size mismatch, m1: {}, m2: {}", desc(x), desc(y))));
            }
            Ok(vec![x.size[0], y.size[1]])
        }
        Op::Ger => {
            if x.dim() != 1 || y.dim() != 1 {
                return Err(error(
                    name,
                    format!("vector and vector expected, got {}D, {}D tensors", x.dim(), y.dim()),
                ));
            }
            Ok(vec![x.size[0], y.size[0]])
        }
        Op::Bmm | Op::AddBmm => {
            for (t, what) in [(x, "batch1"), (y, "batch2")] {
                if t.dim() != 3 {
                    return Err(error(name, format!("expected 3D tensor for {what}, got {}D", t.dim())));
                }
            }
            if x.size[0] != y.size[0] {
                return Err(error(
                    name,
                    format!("equal number of batches expected, got {}, {}", x.size[0], y.size[0]),
                ));
            }
            if x.size[2] != y.size[1] {
                return Err(error(
                    name,
                    format!(
                        "wrong matrix size, batch1: {}x{}, batch2: {}x{}",
                        x.size[1], x.size[2], y.size[1], y.size[2]
                    ),
                ));
            }
            Ok(if s.op == Op::Bmm {
                vec![x.size[0], x.size[1], y.size[2]]
            } else {
                vec![x.size[1], y.size[2]]
            })
        }
    }
}

/// Checks the added tensor M of an add* operation against the product's size.
fn check_added(s: &Spec, m: &Tensor, x: &Tensor, y: &Tensor, size: &[usize]) -> Result<()> {
    let name = s.name;
    if m.size == size {
        return Ok(());
    }
    Err(match s.op {
        Op::Mv if m.dim() != 1 => error(name, format!("vector expected, got t: {}D", m.dim())),
        Op::Mv => error(name, format!("size mismatch, t: {}, mat: {}", desc(m), desc(x))),
        Op::Mm if m.dim() != 2 => error(name, format!("matrix expected, got {}D tensor for t", m.dim())),
        Op::Mm => error(
            name,
            format!("size mismatch, t: {}, m1: {}, m2: {}", desc(m), desc(x), desc(y)),
        ),
        Op::Ger if m.dim() != 2 => error(name, format!("expected matrix, got {}D tensor for t", m.dim())),
        Op::Ger => error(
            name,
            format!("size mismatch, t: {}, vec1: {}, vec2: {}", desc(m), desc(x), desc(y)),
        ),
        Op::Bmm | Op::AddBmm => {
            let want = Tensor {
                size: size.to_vec(),
                ..m.clone()
            };
            error(
                name,
                format!(
                    "output tensor of incorrect size (M: {}, expected {})",
                    desc(m),
                    desc(&want)
                ),
            )
        }
    })
}

/// `out = beta*out + alpha*op(x, y)`; `out` already holds M's values when beta != 0.
fn compute(s: &Spec, out: &Tensor, beta: f64, alpha: f64, x: &Tensor, y: &Tensor) -> Result<()> {
    let name = s.name;
    if out.numel() > 0 {
        args::lift_in(name, out.storage_checked())?;
    }
    dispatch!(out.dtype, T => {
        let (beta_t, alpha_t) = (T::from_f64(beta), T::from_f64(alpha));
        // SAFETY: every view was checked against its storage by `base`; out does not share
        // memory with x or y (see `detach`).
        unsafe {
            match s.op {
                Op::Mv => T::gemv(alpha_t, mat(x, name)?, vector(y, name)?, beta_t, vector(out, name)?),
                Op::Mm => T::gemm(alpha_t, mat(x, name)?, mat(y, name)?, beta_t, mat(out, name)?),
                Op::Ger => {
                    scale(out, beta, name)?;
                    T::ger(alpha_t, vector(x, name)?, vector(y, name)?, mat(out, name)?);
                }
                Op::Bmm => {
                    for b in 0..x.size[0] {
                        let (xb, yb, ob) = (x.select(0, b), y.select(0, b), out.select(0, b));
                        let (xb, yb, ob) = (args::lift(xb)?, args::lift(yb)?, args::lift(ob)?);
                        T::gemm(alpha_t, mat(&xb, name)?, mat(&yb, name)?, beta_t, mat(&ob, name)?);
                    }
                }
                Op::AddBmm => {
                    if x.size[0] == 0 {
                        scale(out, beta, name)?;
                    }
                    let mut beta_b = beta_t;
                    for b in 0..x.size[0] {
                        let (xb, yb) = (args::lift(x.select(0, b))?, args::lift(y.select(0, b))?);
                        T::gemm(alpha_t, mat(&xb, name)?, mat(&yb, name)?, beta_b, mat(out, name)?);
                        // The batches accumulate into the result.
                        beta_b = T::one();
                    }
                }
            }
        }
    });
    Ok(())
}

/// Finishes a result: resizes `res` (its userdata gets the new view) or makes a new tensor.
fn result_tensor(res: Option<&(Value, Tensor)>, dtype: DType, size: &[usize], name: &str) -> Result<Tensor> {
    match res {
        Some((v, t)) => {
            let mut t = t.clone();
            args::lift_in(name, construct::resize(&mut t, size))?;
            set_view(v, t.clone())?;
            Ok(t)
        }
        None => args::lift_in(name, Tensor::zeros(dtype, size)),
    }
}

fn returned(lua: &Lua, res: Option<(Value, Tensor)>, out: Tensor) -> Result<MultiValue> {
    match res {
        Some((v, _)) => one(v),
        None => one(push_tensor(lua, out)?),
    }
}

/// addmm, addmv, addr, addbmm, baddbmm in both forms.
fn add_product(lua: &Lua, a: Args, form: Form, s: &Spec) -> Result<MultiValue> {
    let name = s.name;
    let usage = match form {
        Form::Function => format!("torch.{name}([res,] [beta,] M, [alpha,] x, y)"),
        Form::Method => format!("res:{name}([M,] [alpha,] x, y) or res:{name}(beta, [M,] alpha, x, y)"),
    };
    let mut toks = tokens(&a);
    let bad = || invalid(name, &a, &usage);
    // Read from the end: y, x, [alpha], M, [beta], [res].
    let take_t = |toks: &mut Vec<Tok>| match toks.last() {
        Some(Tok::T(..)) => match toks.pop() {
            Some(Tok::T(v, t)) => Some((v, t)),
            _ => None,
        },
        _ => None,
    };
    let take_n = |toks: &mut Vec<Tok>| match toks.last() {
        Some(Tok::N(x)) => {
            let x = *x;
            toks.pop();
            Some(x)
        }
        _ => None,
    };
    let res = if form == Form::Method {
        if toks.is_empty() || !matches!(toks[0], Tok::T(..)) {
            return Err(bad());
        }
        match toks.remove(0) {
            Tok::T(v, t) => Some((v, t)),
            _ => None,
        }
    } else {
        None
    };
    let (y, x) = match (take_t(&mut toks), take_t(&mut toks)) {
        (Some(y), Some(x)) => (y.1, x.1),
        _ => return Err(bad()),
    };
    let alpha = take_n(&mut toks);
    let m = take_t(&mut toks);
    let beta = take_n(&mut toks);
    let (res, m) = match form {
        Form::Method => {
            // cwrap's method forms: beta only together with alpha; M defaults to res.
            if !toks.is_empty() || (beta.is_some() && alpha.is_none()) {
                return Err(bad());
            }
            let res = res.expect("method form has a receiver");
            let m = m.map(|m| m.1).unwrap_or_else(|| res.1.clone());
            (Some(res), m)
        }
        Form::Function => {
            let Some(m) = m else { return Err(bad()) };
            let res = take_t(&mut toks);
            if !toks.is_empty() {
                return Err(bad());
            }
            (res, m.1)
        }
    };
    check_types(name, &a)?;
    let (beta, alpha) = (beta.unwrap_or(1.0), alpha.unwrap_or(1.0));
    let size = check_operands(s, &x, &y)?;
    check_added(s, &m, &x, &y, &size)?;

    let dtype = m.dtype;
    let beta_zero = dispatch!(dtype, T => T::from_f64(beta) == T::zero());
    let (x, y, m) = match &res {
        Some((_, r)) => {
            let m = if same_view(&m, r) { m } else { detach(m, r)? };
            (detach(x, r)?, detach(y, r)?, m)
        }
        None => (x, y, m),
    };
    let out = match &res {
        Some((_, r)) if same_view(r, &m) => r.clone(),
        _ => {
            let out = result_tensor(res.as_ref(), dtype, &size, name)?;
            if !beta_zero {
                super::copy::copy_into(&out, &m, name)?;
            }
            out
        }
    };
    compute(s, &out, beta, alpha, &x, &y)?;
    returned(lua, res, out)
}

/// mm, mv, ger, bmm: `torch.f([res,] x, y)`, `res:f(x, y)`.
fn product(lua: &Lua, a: Args, form: Form, s: &Spec) -> Result<MultiValue> {
    let name = s.name;
    let usage = match form {
        Form::Function => format!("torch.{name}([res,] x, y)"),
        Form::Method => format!("res:{name}(x, y)"),
    };
    let toks = tokens(&a);
    let mut ts = Vec::new();
    for t in toks {
        match t {
            Tok::T(v, t) => ts.push((v, t)),
            _ => return Err(invalid(name, &a, &usage)),
        }
    }
    let (res, x, y) = match (form, ts.len()) {
        (Form::Function, 2) => {
            let y = ts.pop().expect("two").1;
            (None, ts.pop().expect("one").1, y)
        }
        (_, 3) => {
            let y = ts.pop().expect("three").1;
            let x = ts.pop().expect("two").1;
            (ts.pop(), x, y)
        }
        _ => return Err(invalid(name, &a, &usage)),
    };
    check_types(name, &a)?;
    let size = check_operands(s, &x, &y)?;
    let (x, y) = match &res {
        Some((_, r)) => (detach(x, r)?, detach(y, r)?),
        None => (x, y),
    };
    let out = result_tensor(res.as_ref(), x.dtype, &size, name)?;
    compute(s, &out, 0.0, 1.0, &x, &y)?;
    returned(lua, res, out)
}

macro_rules! forms {
    ($lua:expr, $tensor:expr, $functions:expr, $f:ident, $spec:expr, $name:literal) => {
        add($lua, $tensor, $name, |lua, a| $f(lua, a, Form::Method, &$spec))?;
        add($lua, $functions, $name, |lua, a| $f(lua, a, Form::Function, &$spec))?;
    };
}

// ---------------------------------------------------------------------------------------------
// dot, trace, cross, diag, tril, triu

fn dot(_: &Lua, a: Args) -> Result<MultiValue> {
    let toks = tokens(&a);
    let (x, y) = match toks.as_slice() {
        [Tok::T(_, x), Tok::T(_, y)] => (x.clone(), y.clone()),
        _ => return Err(invalid("dot", &a, "x:dot(y) or torch.dot(x, y)")),
    };
    check_types("dot", &a)?;
    if x.numel() != y.numel() {
        return Err(error(
            "dot",
            format!("sizes do not match ({} elements vs {})", x.numel(), y.numel()),
        ));
    }
    if x.numel() == 0 {
        return one(Value::Number(0.0));
    }
    let (xs, ys) = (
        args::lift_in("dot", x.storage_checked())?,
        args::lift_in("dot", y.storage_checked())?,
    );
    let gx = apply::Geometry::of(&x);
    let gy = apply::Geometry::of(&y);
    let v = dispatch!(x.dtype, T => unsafe {
        let (px, py) = (xs.ptr::<T>(), ys.ptr::<T>());
        if gx.size == gy.size {
            // Same runs on both sides (always true for two vectors): one BLAS call per run.
            let (n, ix) = gx.inner();
            let (_, iy) = gy.inner();
            let mut s = 0.0;
            gx.for_each_run_with(&gy, |ox, oy| {
                s += T::dot(
                    Vector { ptr: px.add(ox), len: n, inc: ix },
                    Vector { ptr: py.add(oy), len: n, inc: iy },
                );
            });
            s
        } else {
            let vx: Vec<T> = Offsets::new(&x).map(|o| *px.add(o)).collect();
            let vy: Vec<T> = Offsets::new(&y).map(|o| *py.add(o)).collect();
            T::dot(
                Vector { ptr: vx.as_ptr() as *mut T, len: vx.len(), inc: 1 },
                Vector { ptr: vy.as_ptr() as *mut T, len: vy.len(), inc: 1 },
            )
        }
    });
    one(Value::Number(v))
}

fn trace(_: &Lua, a: Args) -> Result<MultiValue> {
    let toks = tokens(&a);
    let t = match toks.as_slice() {
        [Tok::T(_, t)] => t.clone(),
        _ => return Err(invalid("trace", &a, "x:trace() or torch.trace(x)")),
    };
    if t.dim() != 2 {
        return Err(error("trace", format!("expected a matrix, got {}D tensor", t.dim())));
    }
    let n = t.size[0].min(t.size[1]);
    if n == 0 {
        return one(Value::Number(0.0));
    }
    let step = t.stride[0] + t.stride[1];
    let v = dispatch!(t.dtype, T => {
        let v = Vector { ptr: base::<T>(&t, "trace")?, len: n, inc: step };
        // SAFETY: the diagonal lies inside the checked view.
        unsafe {
            if T::DTYPE.is_floating() {
                (0..n).map(|i| (*v.ptr.add(i * step)).to_f64()).sum::<f64>()
            } else {
                (0..n).fold(0i64, |s, i| s.wrapping_add((*v.ptr.add(i * step)).to_i64())) as f64
            }
        }
    });
    one(Value::Number(v))
}

/// `([res,] t1, ..., tn [, number])`: the optional result, the n tensors, the optional number.
#[allow(clippy::type_complexity)]
fn res_tensors_number(
    a: &Args,
    n: usize,
    name: &str,
    usage: &str,
) -> Result<(Option<(Value, Tensor)>, Vec<Tensor>, Option<f64>)> {
    let mut toks = tokens(a);
    let num = match toks.last() {
        Some(Tok::N(x)) => {
            let x = *x;
            toks.pop();
            Some(x)
        }
        _ => None,
    };
    let mut ts = Vec::new();
    for t in toks {
        match t {
            Tok::T(v, t) => ts.push((v, t)),
            _ => return Err(invalid(name, a, usage)),
        }
    }
    let res = if ts.len() == n + 1 {
        Some(ts.remove(0))
    } else if ts.len() == n {
        None
    } else {
        return Err(invalid(name, a, usage));
    };
    check_types(name, a)?;
    Ok((res, ts.into_iter().map(|(_, t)| t).collect(), num))
}

fn cross(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (res, ts, dim) = res_tensors_number(&a, 2, "cross", "torch.cross([res,] a, b [, dim]) or a:cross(b [, dim])")?;
    let (x, y) = (&ts[0], &ts[1]);
    if x.dim() != y.dim() {
        return Err(error(
            "cross",
            format!("inconsistent tensor dimension {}D, {}D", x.dim(), y.dim()),
        ));
    }
    if x.size != y.size {
        return Err(error(
            "cross",
            format!("inconsistent tensor sizes {}, {}", desc(x), desc(y)),
        ));
    }
    let d = match dim {
        Some(v) => {
            let d = integer(v, "cross", "dimension")?;
            if d < 1 || d as usize > x.dim() {
                return Err(error("cross", format!("dimension {d} out of range")));
            }
            d as usize - 1
        }
        None => match x.size.iter().position(|&s| s == 3) {
            Some(d) => d,
            None => return Err(error("cross", format!("no dimension of size 3 in a: {}", desc(x)))),
        },
    };
    if x.size[d] != 3 {
        return Err(error("cross", format!("dimension {} does not have size 3", d + 1)));
    }
    let (x, y) = match &res {
        Some((_, r)) if !same_view(r, x) && !same_view(r, y) => (detach(x.clone(), r)?, detach(y.clone(), r)?),
        _ => (x.clone(), y.clone()),
    };
    let out = result_tensor(res.as_ref(), x.dtype, &x.size, "cross")?;
    // Start offsets of every 3-vector along d, in the same logical order for the three tensors.
    let starts = |t: &Tensor| -> Result<Vec<usize>> {
        if t.dim() == 1 {
            Ok(vec![t.offset])
        } else {
            Ok(Offsets::new(&args::lift(t.select(d, 0))?).collect())
        }
    };
    let (sx, sy, so) = (starts(&x)?, starts(&y)?, starts(&out)?);
    let (dx, dy, dout) = (x.stride[d], y.stride[d], out.stride[d]);
    let (xs, ys, os) = (
        args::lift_in("cross", x.storage_checked())?,
        args::lift_in("cross", y.storage_checked())?,
        args::lift_in("cross", out.storage_checked())?,
    );
    dispatch!(x.dtype, T => unsafe {
        let (px, py, po) = (xs.ptr::<T>(), ys.ptr::<T>(), os.ptr::<T>());
        for ((&ox, &oy), &oo) in sx.iter().zip(&sy).zip(&so) {
            // Read all six inputs first: res may be a or b itself.
            let [a0, a1, a2] = [0, 1, 2].map(|i| *px.add(ox + i * dx));
            let [b0, b1, b2] = [0, 1, 2].map(|i| *py.add(oy + i * dy));
            *po.add(oo) = a1.times(b2).minus(a2.times(b1));
            *po.add(oo + dout) = a2.times(b0).minus(a0.times(b2));
            *po.add(oo + 2 * dout) = a0.times(b1).minus(a1.times(b0));
        }
    });
    returned(lua, res, out)
}

fn diag(lua: &Lua, a: Args) -> Result<MultiValue> {
    let (res, ts, k) = res_tensors_number(&a, 1, "diag", "torch.diag([res,] x [, k]) or x:diag([k])")?;
    let k = integer(k.unwrap_or(0.0), "diag", "k")?;
    let x = ts.into_iter().next().expect("one tensor");
    let x = match &res {
        Some((_, r)) => detach(x, r)?,
        None => x,
    };
    match x.dim() {
        1 => {
            let n = x.size[0];
            let shift = usize::try_from(k.unsigned_abs()).unwrap_or(usize::MAX);
            let sz = n
                .checked_add(shift)
                .ok_or_else(|| error("diag", format!("k = {k} is too large")))?;
            let out = result_tensor(res.as_ref(), x.dtype, &[sz, sz], "diag")?;
            scale(&out, 0.0, "diag")?;
            if n > 0 {
                let (row, col) = if k >= 0 { (0, shift) } else { (shift, 0) };
                let first = args::lift(args::lift(out.narrow(0, row, n))?.narrow(1, col, n))?;
                dispatch!(x.dtype, T => unsafe {
                    let (src, dst) = (vector::<T>(&x, "diag")?, mat::<T>(&first, "diag")?);
                    for i in 0..n {
                        *dst.at(i, i) = *src.ptr.add(i * src.inc);
                    }
                });
            }
            returned(lua, res, out)
        }
        2 => {
            let (rows, cols) = (x.size[0] as i64, x.size[1] as i64);
            let sz = if k >= 0 {
                rows.min(cols - k)
            } else {
                (rows + k).min(cols)
            };
            if sz <= 0 {
                // No element on that diagonal: an empty result, as Torch's size-0 resize gives.
                let out = result_tensor(res.as_ref(), x.dtype, &[], "diag")?;
                return returned(lua, res, out);
            }
            let sz = sz as usize;
            let (row, col) = if k >= 0 { (0, k as usize) } else { ((-k) as usize, 0) };
            let src = args::lift(args::lift(x.narrow(0, row, sz))?.narrow(1, col, sz))?;
            let out = result_tensor(res.as_ref(), x.dtype, &[sz], "diag")?;
            dispatch!(x.dtype, T => unsafe {
                let (src, dst) = (mat::<T>(&src, "diag")?, vector::<T>(&out, "diag")?);
                for i in 0..sz {
                    *dst.ptr.add(i * dst.inc) = *src.at(i, i);
                }
            });
            returned(lua, res, out)
        }
        d => Err(error("diag", format!("matrix or a vector expected, got {d}D tensor"))),
    }
}

/// tril (`lower`) and triu: keep the elements on and below (above) diagonal k, zero the rest.
fn triangle(lua: &Lua, a: Args, lower: bool) -> Result<MultiValue> {
    let name = if lower { "tril" } else { "triu" };
    let usage = format!("torch.{name}([res,] x [, k]) or x:{name}([k])");
    let (res, ts, k) = res_tensors_number(&a, 1, name, &usage)?;
    let k = integer(k.unwrap_or(0.0), name, "k")?;
    let x = ts.into_iter().next().expect("one tensor");
    if x.dim() != 2 {
        return Err(error(name, format!("expected a matrix, got {}D tensor", x.dim())));
    }
    let in_place = matches!(&res, Some((_, r)) if same_view(r, &x));
    let x = match &res {
        Some((_, r)) if !in_place => detach(x, r)?,
        _ => x,
    };
    let out = if in_place {
        x.clone()
    } else {
        result_tensor(res.as_ref(), x.dtype, &x.size, name)?
    };
    dispatch!(x.dtype, T => unsafe {
        let (src, dst) = (mat::<T>(&x, name)?, mat::<T>(&out, name)?);
        for i in 0..src.rows {
            for j in 0..src.cols {
                let offset = j as i64 - i as i64;
                let keep = if lower { offset <= k } else { offset >= k };
                *dst.at(i, j) = if keep { *src.at(i, j) } else { T::zero() };
            }
        }
    });
    returned(lua, res, out)
}

fn tril(lua: &Lua, a: Args) -> Result<MultiValue> {
    triangle(lua, a, true)
}

fn triu(lua: &Lua, a: Args) -> Result<MultiValue> {
    triangle(lua, a, false)
}

fn setnumthreads(_: &Lua, a: Args) -> Result<MultiValue> {
    let n = int_arg(&a, 1, "setnumthreads")?;
    if n < 1 {
        return Err(error(
            "setnumthreads",
            format!("number of threads must be at least 1, got {n}"),
        ));
    }
    blas::set_num_threads(n as usize);
    super::none()
}

fn getnumthreads(_: &Lua, _: Args) -> Result<MultiValue> {
    one(Value::Number(blas::num_threads() as f64))
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    forms!(lua, tensor, functions, add_product, ADDMM, "addmm");
    forms!(lua, tensor, functions, add_product, ADDMV, "addmv");
    forms!(lua, tensor, functions, add_product, ADDR, "addr");
    forms!(lua, tensor, functions, add_product, ADDBMM, "addbmm");
    forms!(lua, tensor, functions, add_product, BADDBMM, "baddbmm");
    forms!(lua, tensor, functions, product, MM, "mm");
    forms!(lua, tensor, functions, product, MV, "mv");
    forms!(lua, tensor, functions, product, GER, "ger");
    forms!(lua, tensor, functions, product, BMM, "bmm");
    for table in [tensor, functions] {
        add(lua, table, "dot", dot)?;
        add(lua, table, "trace", trace)?;
        add(lua, table, "cross", cross)?;
        add(lua, table, "diag", diag)?;
        add(lua, table, "tril", tril)?;
        add(lua, table, "triu", triu)?;
    }
    add(lua, functions, "setnumthreads", setnumthreads)?;
    add(lua, functions, "getnumthreads", getnumthreads)?;
    Ok(())
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
    fn layouts_for_blas() {
        let mut v = [0.0f32; 12];
        // Row-major 3x4: not column-major, its transpose is (ld 4).
        let r = m(&mut v, 3, 4, 4, 1);
        assert_eq!(col_major_ld(&r), None);
        assert_eq!(col_major_ld(&r.t()), Some(4));
        // A single row: any stride works as the leading dimension of its columns.
        assert_eq!(col_major_ld(&m(&mut v, 1, 4, 99, 2)), Some(2));
        // Expanded (stride 0) rows repeat elements: no layout.
        assert_eq!(col_major_ld(&m(&mut v, 3, 4, 0, 1).t()), None);
        // Narrowed columns keep the parent's leading dimension.
        assert_eq!(col_major_ld(&m(&mut v, 2, 2, 1, 3)), Some(3));
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
