//! Matrix products of device tensors through cuBLAS (tensor operations layer; Float and Double;
//! cutorch had no integer BLAS either). The cuBLAS handle of a device lives in the device's slot.
//!
//! cuBLAS is column-major and Torch row-major. A row-major matrix with unit column stride is, read
//! column-major, its own transpose; so a row-major product C = A·B is computed as the
//! column-major C^T = B^T·A^T with the operands swapped, each one taken as stored ("N") or
//! transposed ("T") as its strides say. Operands with no unit stride (expanded, or strided in
//! both dimensions) are copied to contiguous memory first; a result with no unit stride is
//! computed in contiguous memory and copied back.

use std::ffi::c_int;
use std::sync::Mutex;

use cudarc::cublas::result as blas;
use cudarc::cublas::sys as blas_sys;
use cudarc::cublas::sys::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};

use super::copy::{contiguous, on_device};
use super::operands::{addr, empty_like, tensor_typename};
use crate::cuda::device::Device;
use crate::cuda::driver::guard;
use crate::cuda::libraries::{self, Lib};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::blas::operand::{self, Order};

/// The cuBLAS handle of one device, made on first use (used under the lock: handles are not for
/// concurrent use).
#[derive(Default)]
struct Handle(Mutex<Option<usize>>);

/// Runs `f` with `dev`'s handle bound to the current stream.
fn with_handle<R>(dev: &Device, f: impl FnOnce(blas_sys::cublasHandle_t) -> Result<R>) -> Result<R> {
    libraries::ensure(Lib::Cublas)?;
    let stream = dev.current_stream()?;
    let mut slot = dev
        .slot(Handle::default)
        .0
        .lock()
        .map_err(|_| Error::device("cuBLAS handle poisoned"))?;
    guard("cuBLAS", || {
        let h = match *slot {
            Some(h) => h,
            None => {
                let h = blas::create_handle().map_err(|e| Error::device(format!("cannot start cuBLAS: {e:?}")))?;
                *slot = Some(h as usize);
                h as usize
            }
        } as blas_sys::cublasHandle_t;
        // SAFETY: a live handle of this device's context (bound by current_stream).
        unsafe { blas::set_stream(h, stream as blas_sys::cudaStream_t) }
            .map_err(|e| Error::device(format!("{e:?}")))?;
        f(h)
    })
}

fn int(v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| Error::shape(format!("{v} is too large for cuBLAS")))
}

/// How cuBLAS reads `t` (a matrix) in place: row-major first, as cuBLAS's own transposes suit
/// Torch's row-major tensors; the layout rules are the host's (`kernels::blas::operand`).
fn order(t: &Tensor) -> Option<Order> {
    let (r, c, s0, s1) = (t.size[0], t.size[1], t.stride[0], t.stride[1]);
    operand::row_major_ld(r, c, s0, s1)
        .map(Order::Rows)
        .or_else(|| operand::column_major_ld(r, c, s0, s1).map(Order::Cols))
}

fn readable(t: &Tensor) -> Result<(Tensor, Order)> {
    if let Some(o) = order(t) {
        return Ok((t.clone(), o));
    }
    let c = contiguous(t)?;
    let o = order(&c).ok_or_else(|| Error::shape("internal error: contiguous matrix not readable"))?;
    Ok((c, o))
}

fn check_type(d: DType) -> Result<()> {
    match d {
        DType::Float | DType::Double => Ok(()),
        _ => Err(Error::dtype(format!(
            "not supported for {} (cuBLAS has no integer matrix products; use torch.CudaTensor or torch.CudaDoubleTensor)",
            tensor_typename(d)
        ))),
    }
}

fn transposed(t: &Tensor) -> Tensor {
    let mut u = t.clone();
    u.size.swap(0, 1);
    u.stride.swap(0, 1);
    u
}

/// `c = beta*c + alpha*(a @ b)` for 2-D views a (m x k), b (k x n), c (m x n) on one device;
/// with beta 0, c is not read.
pub fn gemm(dev: &Device, c: &Tensor, beta: f64, alpha: f64, a: &Tensor, b: &Tensor) -> Result<()> {
    check_type(c.dtype)?;
    let (m, k, n) = (a.size[0], a.size[1], b.size[1]);
    if b.size[0] != k || c.size != [m, n] {
        return Err(Error::shape(format!(
            "size mismatch ({m}x{k} times {}x{n} into {}x{})",
            b.size[0], c.size[0], c.size[1]
        )));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    match order(c) {
        // A row-major result reads column-major as C^T = B^T A^T.
        Some(Order::Rows(ldc)) => gemm_cm(dev, c, ldc, beta, alpha, &transposed(b), &transposed(a)),
        // A column-major one as C = A B.
        Some(Order::Cols(ldc)) => gemm_cm(dev, c, ldc, beta, alpha, a, b),
        None => {
            let tmp = empty_like(dev, c.dtype, &c.size)?;
            if beta != 0.0 {
                on_device(&tmp, c)?;
            }
            gemm(dev, &tmp, beta, alpha, a, b)?;
            on_device(c, &tmp)
        }
    }
}

/// The batch count of 3-D operands, which must agree.
fn batches(c: &Tensor, a: &Tensor, b: &Tensor, c_batched: bool) -> Result<usize> {
    let n = a.size[0];
    if b.size[0] != n || (c_batched && c.size[0] != n) {
        return Err(Error::shape(format!(
            "batch counts differ ({} and {}{})",
            n,
            b.size[0],
            if c_batched {
                format!(", result {}", c.size[0])
            } else {
                String::new()
            }
        )));
    }
    Ok(n)
}

/// `c[i] = beta*c[i] + alpha*(a[i] @ b[i])` for every batch i of 3-D views (bmm, baddbmm): one
/// product per batch, each view in whatever layout it has.
pub fn gemm_batched(dev: &Device, c: &Tensor, beta: f64, alpha: f64, a: &Tensor, b: &Tensor) -> Result<()> {
    for i in 0..batches(c, a, b, true)? {
        gemm(dev, &select(c, i)?, beta, alpha, &select(a, i)?, &select(b, i)?)?;
    }
    Ok(())
}

/// Matrix `i` of a batch.
fn select(t: &Tensor, i: usize) -> Result<Tensor> {
    t.select(0, i)
}

/// `c = beta*c + alpha * (a[1] @ b[1] + a[2] @ b[2] + ...)` for 3-D a and b and 2-D c (addbmm).
pub fn gemm_summed(dev: &Device, c: &Tensor, beta: f64, alpha: f64, a: &Tensor, b: &Tensor) -> Result<()> {
    let n = batches(c, a, b, false)?;
    if n == 0 {
        // No batch: c = beta*c, as a product over nothing (k = 0) gives.
        let empty = |rows: usize, cols: usize| Tensor {
            dtype: a.dtype,
            storage: a.storage.clone(),
            offset: 0,
            size: vec![rows, cols],
            stride: vec![cols.max(1), 1],
        };
        return gemm(dev, c, beta, alpha, &empty(c.size[0], 0), &empty(0, c.size[1]));
    }
    for i in 0..n {
        let beta = if i == 0 { beta } else { 1.0 };
        gemm(dev, c, beta, alpha, &select(a, i)?, &select(b, i)?)?;
    }
    Ok(())
}

/// cuBLAS's product Xc = P Q, where Xc is the column-major matrix at `x`'s first element with
/// leading dimension `ldx`, and P (mc x k) and Q (k x nc) are the logical matrices of the views
/// `p` and `q` (each read as stored when column-major, transposed when row-major).
fn gemm_cm(dev: &Device, x: &Tensor, ldx: usize, beta: f64, alpha: f64, p: &Tensor, q: &Tensor) -> Result<()> {
    let (mc, nc, k) = (p.size[0], q.size[1], p.size[1]);
    let (pm, po) = readable(p)?;
    let (qm, qo) = readable(q)?;
    let op = |o: Order| match o {
        Order::Cols(ld) => (CUBLAS_OP_N, ld),
        Order::Rows(ld) => (CUBLAS_OP_T, ld),
    };
    let ((op_a, lda), (op_b, ldb)) = (op(po), op(qo));
    let (mm, nn, kk) = (int(mc)?, int(nc)?, int(k)?);
    let (lda, ldb, ldc) = (int(lda)?, int(ldb)?, int(ldx)?);
    let (pa, pb, pc) = (addr(&pm)?, addr(&qm)?, addr(x)?);
    with_handle(dev, |h| {
        // SAFETY: every view is checked against its storage and its leading dimension is at
        // least its column length, so cuBLAS reads and writes only their elements.
        let r = unsafe {
            match x.dtype {
                DType::Float => {
                    let (al, be) = (alpha as f32, beta as f32);
                    blas::sgemm(
                        h,
                        op_a,
                        op_b,
                        mm,
                        nn,
                        kk,
                        &al,
                        pa as *const f32,
                        lda,
                        pb as *const f32,
                        ldb,
                        &be,
                        pc as *mut f32,
                        ldc,
                    )
                }
                _ => blas::dgemm(
                    h,
                    op_a,
                    op_b,
                    mm,
                    nn,
                    kk,
                    &alpha,
                    pa as *const f64,
                    lda,
                    pb as *const f64,
                    ldb,
                    &beta,
                    pc as *mut f64,
                    ldc,
                ),
            }
        };
        r.map_err(|e| Error::device(format!("cuBLAS gemm failed: {e:?}")))
    })
}

/// A 1-D view cuBLAS can step through (positive increment): `t` or a contiguous copy.
fn vector(t: &Tensor) -> Result<(Tensor, c_int)> {
    if t.size[0] <= 1 {
        return Ok((t.clone(), 1));
    }
    if t.stride[0] >= 1 {
        return Ok((t.clone(), int(t.stride[0])?));
    }
    Ok((contiguous(t)?, 1))
}

/// `y = beta*y + alpha*(a @ x)` for a (m x n), x (n), y (m); with beta 0, y is not read.
pub fn gemv(dev: &Device, y: &Tensor, beta: f64, alpha: f64, a: &Tensor, x: &Tensor) -> Result<()> {
    check_type(y.dtype)?;
    let (m, n) = (a.size[0], a.size[1]);
    if x.size != [n] || y.size != [m] {
        return Err(Error::shape(format!(
            "size mismatch ({m}x{n} matrix, vector of {}, result of {})",
            x.size.first().copied().unwrap_or(0),
            y.size.first().copied().unwrap_or(0)
        )));
    }
    if m == 0 {
        return Ok(());
    }
    if y.size[0] > 1 && y.stride[0] == 0 {
        let tmp = empty_like(dev, y.dtype, &y.size)?;
        if beta != 0.0 {
            on_device(&tmp, y)?;
        }
        gemv(dev, &tmp, beta, alpha, a, x)?;
        return on_device(y, &tmp);
    }
    let (am, ao) = readable(a)?;
    let (xm, incx) = vector(x)?;
    let incy = if y.size[0] <= 1 { 1 } else { int(y.stride[0])? };
    // Row-major a is stored column-major as a^T (n x m): y = (a^T)^T x.
    let (op, rows, cols, lda) = match ao {
        Order::Rows(ld) => (CUBLAS_OP_T, n, m, ld),
        Order::Cols(ld) => (CUBLAS_OP_N, m, n, ld),
    };
    let (rows, cols, lda) = (int(rows)?, int(cols)?, int(lda)?);
    let (pa, px, py) = (addr(&am)?, addr(&xm)?, addr(y)?);
    with_handle(dev, |h| {
        // SAFETY: views checked against their storages; increments and leading dimension match them.
        let r = unsafe {
            match y.dtype {
                DType::Float => {
                    let (al, be) = (alpha as f32, beta as f32);
                    blas::sgemv(
                        h,
                        op,
                        rows,
                        cols,
                        &al,
                        pa as *const f32,
                        lda,
                        px as *const f32,
                        incx,
                        &be,
                        py as *mut f32,
                        incy,
                    )
                }
                _ => blas::dgemv(
                    h,
                    op,
                    rows,
                    cols,
                    &alpha,
                    pa as *const f64,
                    lda,
                    px as *const f64,
                    incx,
                    &beta,
                    py as *mut f64,
                    incy,
                ),
            }
        };
        r.map_err(|e| Error::device(format!("cuBLAS gemv failed: {e:?}")))
    })
}

/// The dot product of two vectors with as many elements.
pub fn dot(dev: &Device, x: &Tensor, y: &Tensor) -> Result<f64> {
    check_type(x.dtype)?;
    let n = x.numel();
    if y.numel() != n {
        return Err(Error::shape(format!(
            "inconsistent tensor size: {n} and {} elements",
            y.numel()
        )));
    }
    if n == 0 {
        return Ok(0.0);
    }
    // Flat views: contiguous tensors as they are, others copied.
    let flat = |t: &Tensor| -> Result<(Tensor, c_int)> {
        let t = if t.dim() == 1 { t.clone() } else { contiguous(t)? };
        let mut f = t.clone();
        if t.dim() != 1 {
            f.size = vec![n];
            f.stride = vec![1];
        }
        vector(&f)
    };
    let ((xm, incx), (ym, incy)) = (flat(x)?, flat(y)?);
    let nn = int(n)?;
    let (px, py) = (addr(&xm)?, addr(&ym)?);
    with_handle(dev, |h| {
        // SAFETY: both views checked; the result is written to host memory (the handle's default
        // pointer mode), after which the call returns.
        unsafe {
            match x.dtype {
                DType::Float => {
                    let mut r = 0f32;
                    blas_sys::cublasSdot_v2(h, nn, px as *const f32, incx, py as *const f32, incy, &mut r)
                        .result()
                        .map(|()| r as f64)
                }
                _ => {
                    let mut r = 0f64;
                    blas_sys::cublasDdot_v2(h, nn, px as *const f64, incx, py as *const f64, incy, &mut r)
                        .result()
                        .map(|()| r)
                }
            }
        }
        .map_err(|e| Error::device(format!("cuBLAS dot failed: {e:?}")))
    })
}

/// `a = beta*a + alpha * x y^T` (the outer product, as a product with inner size 1).
pub fn ger(dev: &Device, a: &Tensor, beta: f64, alpha: f64, x: &Tensor, y: &Tensor) -> Result<()> {
    let col = |t: &Tensor| {
        let mut u = t.clone();
        u.size = vec![t.size[0], 1];
        u.stride = vec![t.stride[0], 1];
        u
    };
    gemm(dev, a, beta, alpha, &col(x), &transposed(&col(y)))
}
