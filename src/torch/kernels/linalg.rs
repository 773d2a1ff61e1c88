//! Linear algebra on tensors: the products (mv, mm, ger, bmm, addbmm and their add* forms) with
//! their shape checks, dot, trace, cross, diag and the triangles. Tensors become the strided views
//! of `blas::gemm` here; the products themselves are there.

use std::ptr::NonNull;

use super::arith::Arith;
use super::blas::gemm::{Mat, Scalar, Vector};
use super::copy;
use super::strided::{Geometry, Offsets, for_each_mut};
use crate::error::{Error, Result};
use crate::torch::base::dtype::Element;
use crate::torch::base::tensor::Tensor;
use crate::{dispatch, dispatch_math};

/// A product, as the operands' shapes say: matrix-vector, matrix-matrix, outer (vector-vector),
/// batched matrix-matrix, and batched products summed into one matrix.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Product {
    Mv,
    Mm,
    Ger,
    Bmm,
    AddBmm,
}

/// The address of a tensor's first element (a dangling pointer for an empty tensor, which is
/// never read).
fn base<T: Element>(t: &Tensor) -> Result<*mut T> {
    if t.numel() == 0 {
        return Ok(NonNull::<T>::dangling().as_ptr());
    }
    let s = t.storage_checked()?;
    // SAFETY: the storage covers the view (checked), so the offset is inside it.
    Ok(unsafe { s.ptr::<T>().add(t.offset) })
}

fn mat<T: Element>(t: &Tensor) -> Result<Mat<T>> {
    Ok(Mat {
        ptr: base(t)?,
        rows: t.size[0],
        cols: t.size[1],
        rs: t.stride[0],
        cs: t.stride[1],
    })
}

fn vector<T: Element>(t: &Tensor) -> Result<Vector<T>> {
    Ok(Vector {
        ptr: base(t)?,
        len: t.size[0],
        inc: t.stride[0],
    })
}

/// Torch's size description: `[2 x 3]`.
pub fn desc(t: &Tensor) -> String {
    let s: Vec<String> = t.size.iter().map(|s| s.to_string()).collect();
    format!("[{}]", s.join(" x "))
}

/// `t` itself, or a copy when it lives in the memory the result is written to (`res:mm(res, b)`
/// must read the old res).
pub fn detach(t: Tensor, out: &Tensor) -> Result<Tensor> {
    if t.shares_storage(out) && t.numel() > 0 {
        copy::clone(&t)
    } else {
        Ok(t)
    }
}

/// Multiplies every element of `t` by `v` (v == 0 writes zeros, whatever was there).
pub fn scale(t: &Tensor, v: f64) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = t.storage_checked()?;
    // SAFETY: a checked view, not accessed elsewhere during the call.
    dispatch_math!(t.dtype, T => unsafe {
        let v = T::from_f64(v);
        if v == T::zero() {
            for_each_mut(s.ptr::<T>(), t, |x| *x = T::zero());
        } else if v != T::one() {
            for_each_mut(s.ptr::<T>(), t, |x| *x = x.mul(v));
        }
    }, half => return Err(crate::torch::base::dtype::no_half_math()));
    Ok(())
}

/// Checks the two operands of `op`; returns the size of the product.
pub fn product_size(op: Product, x: &Tensor, y: &Tensor) -> Result<Vec<usize>> {
    match op {
        Product::Mv => {
            if x.dim() != 2 || y.dim() != 1 {
                return Err(Error::shape(format!(
                    "matrix and vector expected, got {}D, {}D",
                    x.dim(),
                    y.dim()
                )));
            }
            if x.size[1] != y.size[0] {
                return Err(Error::shape(format!("size mismatch, {}, {}", desc(x), desc(y))));
            }
            Ok(vec![x.size[0]])
        }
        Product::Mm => {
            if x.dim() != 2 || y.dim() != 2 {
                return Err(Error::shape(format!(
                    "matrices expected, got {}D, {}D tensors",
                    x.dim(),
                    y.dim()
                )));
            }
            if x.size[1] != y.size[0] {
                return Err(Error::shape(format!("size mismatch, m1: {}, m2: {}", desc(x), desc(y))));
            }
            Ok(vec![x.size[0], y.size[1]])
        }
        Product::Ger => {
            if x.dim() != 1 || y.dim() != 1 {
                return Err(Error::shape(format!(
                    "vector and vector expected, got {}D, {}D tensors",
                    x.dim(),
                    y.dim()
                )));
            }
            Ok(vec![x.size[0], y.size[0]])
        }
        Product::Bmm | Product::AddBmm => {
            for (t, what) in [(x, "batch1"), (y, "batch2")] {
                if t.dim() != 3 {
                    return Err(Error::shape(format!("expected 3D tensor for {what}, got {}D", t.dim())));
                }
            }
            if x.size[0] != y.size[0] {
                return Err(Error::shape(format!(
                    "equal number of batches expected, got {}, {}",
                    x.size[0], y.size[0]
                )));
            }
            if x.size[2] != y.size[1] {
                return Err(Error::shape(format!(
                    "wrong matrix size, batch1: {}x{}, batch2: {}x{}",
                    x.size[1], x.size[2], y.size[1], y.size[2]
                )));
            }
            Ok(if op == Product::Bmm {
                vec![x.size[0], x.size[1], y.size[2]]
            } else {
                vec![x.size[1], y.size[2]]
            })
        }
    }
}

/// Checks the added tensor M of an add* product against the product's size.
pub fn check_added(op: Product, m: &Tensor, x: &Tensor, y: &Tensor, size: &[usize]) -> Result<()> {
    if m.size == size {
        return Ok(());
    }
    Err(Error::shape(match op {
        Product::Mv if m.dim() != 1 => format!("vector expected, got t: {}D", m.dim()),
        Product::Mv => format!("size mismatch, t: {}, mat: {}", desc(m), desc(x)),
        Product::Mm if m.dim() != 2 => format!("matrix expected, got {}D tensor for t", m.dim()),
        Product::Mm => format!("size mismatch, t: {}, m1: {}, m2: {}", desc(m), desc(x), desc(y)),
        Product::Ger if m.dim() != 2 => format!("expected matrix, got {}D tensor for t", m.dim()),
        Product::Ger => format!("size mismatch, t: {}, vec1: {}, vec2: {}", desc(m), desc(x), desc(y)),
        Product::Bmm | Product::AddBmm => {
            let want = Tensor {
                size: size.to_vec(),
                ..m.clone()
            };
            format!(
                "output tensor of incorrect size (M: {}, expected {})",
                desc(m),
                desc(&want)
            )
        }
    }))
}

/// `out = beta*out + alpha*op(x, y)`; `out` already holds M's values when beta != 0 and must not
/// share memory with x or y (see `detach`).
pub fn accumulate_product(op: Product, out: &Tensor, beta: f64, alpha: f64, x: &Tensor, y: &Tensor) -> Result<()> {
    if out.numel() > 0 {
        out.storage_checked()?;
    }
    dispatch_math!(out.dtype, T => {
        let (beta_t, alpha_t) = (T::from_f64(beta), T::from_f64(alpha));
        // SAFETY: every view was checked against its storage by `base`; out does not share
        // memory with x or y.
        unsafe {
            match op {
                Product::Mv => T::gemv(alpha_t, mat(x)?, vector(y)?, beta_t, vector(out)?),
                Product::Mm => T::gemm(alpha_t, mat(x)?, mat(y)?, beta_t, mat(out)?),
                Product::Ger => {
                    scale(out, beta)?;
                    T::ger(alpha_t, vector(x)?, vector(y)?, mat(out)?);
                }
                Product::Bmm => {
                    for b in 0..x.size[0] {
                        let (xb, yb, ob) = (x.select(0, b)?, y.select(0, b)?, out.select(0, b)?);
                        T::gemm(alpha_t, mat(&xb)?, mat(&yb)?, beta_t, mat(&ob)?);
                    }
                }
                Product::AddBmm => {
                    if x.size[0] == 0 {
                        scale(out, beta)?;
                    }
                    let mut beta_b = beta_t;
                    for b in 0..x.size[0] {
                        let (xb, yb) = (x.select(0, b)?, y.select(0, b)?);
                        T::gemm(alpha_t, mat(&xb)?, mat(&yb)?, beta_b, mat(out)?);
                        // The batches accumulate into the result.
                        beta_b = T::one();
                    }
                }
            }
        }
    }, half => return Err(crate::torch::base::dtype::no_half_math()));
    Ok(())
}

/// The sum of x[i]*y[i] over two tensors of as many elements, accumulated as Torch's accreal.
pub fn dot(x: &Tensor, y: &Tensor) -> Result<f64> {
    if x.numel() != y.numel() {
        return Err(Error::shape(format!(
            "sizes do not match ({} elements vs {})",
            x.numel(),
            y.numel()
        )));
    }
    if x.numel() == 0 {
        return Ok(0.0);
    }
    let (xs, ys) = (x.storage_checked()?, y.storage_checked()?);
    let gx = Geometry::of(x);
    let gy = Geometry::of(y);
    // SAFETY: runs and offsets of checked views.
    let v = dispatch_math!(x.dtype, T => unsafe {
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
            let vx: Vec<T> = Offsets::new(x).map(|o| *px.add(o)).collect();
            let vy: Vec<T> = Offsets::new(y).map(|o| *py.add(o)).collect();
            T::dot(
                Vector { ptr: vx.as_ptr() as *mut T, len: vx.len(), inc: 1 },
                Vector { ptr: vy.as_ptr() as *mut T, len: vy.len(), inc: 1 },
            )
        }
    }, half => return Err(crate::torch::base::dtype::no_half_math()));
    Ok(v)
}

/// "expected a matrix" unless `t` is 2-D.
pub fn expect_matrix(t: &Tensor) -> Result<()> {
    if t.dim() != 2 {
        return Err(Error::shape(format!("expected a matrix, got {}D tensor", t.dim())));
    }
    Ok(())
}

/// The sum of a matrix's diagonal, accumulated as Torch's accreal.
pub fn trace(t: &Tensor) -> Result<f64> {
    expect_matrix(t)?;
    let n = t.size[0].min(t.size[1]);
    if n == 0 {
        return Ok(0.0);
    }
    let step = t.stride[0] + t.stride[1];
    let v = dispatch!(t.dtype, T => {
        let v = Vector { ptr: base::<T>(t)?, len: n, inc: step };
        // SAFETY: the diagonal lies inside the checked view.
        unsafe {
            if T::DTYPE.is_floating() {
                (0..n).map(|i| (*v.ptr.add(i * step)).to_f64()).sum::<f64>()
            } else {
                (0..n).fold(0i64, |s, i| s.wrapping_add((*v.ptr.add(i * step)).to_i64())) as f64
            }
        }
    });
    Ok(v)
}

/// `cross` needs two operands of the same sizes.
pub fn check_cross_operands(x: &Tensor, y: &Tensor) -> Result<()> {
    if x.dim() != y.dim() {
        return Err(Error::shape(format!(
            "inconsistent tensor dimension {}D, {}D",
            x.dim(),
            y.dim()
        )));
    }
    if x.size != y.size {
        return Err(Error::shape(format!(
            "inconsistent tensor sizes {}, {}",
            desc(x),
            desc(y)
        )));
    }
    Ok(())
}

/// The dimension of size 3 that `cross` works along: `requested` (1-based) or the first one of
/// size 3.
pub fn cross_dimension(x: &Tensor, requested: Option<i64>) -> Result<usize> {
    let d = match requested {
        Some(d) => {
            if d < 1 || d as usize > x.dim() {
                return Err(Error::shape(format!("dimension {d} out of range")));
            }
            d as usize - 1
        }
        None => match x.size.iter().position(|&s| s == 3) {
            Some(d) => d,
            None => return Err(Error::shape(format!("no dimension of size 3 in a: {}", desc(x)))),
        },
    };
    if x.size[d] != 3 {
        return Err(Error::shape(format!("dimension {} does not have size 3", d + 1)));
    }
    Ok(d)
}

/// `out = x × y` along dimension `d` (of size 3 in all three); out may be x or y itself.
pub fn cross(out: &Tensor, x: &Tensor, y: &Tensor, d: usize) -> Result<()> {
    // Start offsets of every 3-vector along d, in the same logical order for the three tensors.
    let starts = |t: &Tensor| -> Result<Vec<usize>> {
        if t.dim() == 1 {
            Ok(vec![t.offset])
        } else {
            Ok(Offsets::new(&t.select(d, 0)?).collect())
        }
    };
    let (sx, sy, so) = (starts(x)?, starts(y)?, starts(out)?);
    let (dx, dy, dout) = (x.stride[d], y.stride[d], out.stride[d]);
    let (xs, ys, os) = (x.storage_checked()?, y.storage_checked()?, out.storage_checked()?);
    // SAFETY: offsets of checked views.
    dispatch_math!(x.dtype, T => unsafe {
        let (px, py, po) = (xs.ptr::<T>(), ys.ptr::<T>(), os.ptr::<T>());
        for ((&ox, &oy), &oo) in sx.iter().zip(&sy).zip(&so) {
            // Read all six inputs first: out may be x or y itself.
            let [a0, a1, a2] = [0, 1, 2].map(|i| *px.add(ox + i * dx));
            let [b0, b1, b2] = [0, 1, 2].map(|i| *py.add(oy + i * dy));
            *po.add(oo) = a1.mul(b2).sub(a2.mul(b1));
            *po.add(oo + dout) = a2.mul(b0).sub(a0.mul(b2));
            *po.add(oo + 2 * dout) = a0.mul(b1).sub(a1.mul(b0));
        }
    }, half => return Err(crate::torch::base::dtype::no_half_math()));
    Ok(())
}

/// The size of `diag(x, k)`: a square matrix holding a vector on diagonal k, or the vector of a
/// matrix's diagonal k (no dimension when that diagonal is empty).
pub fn diag_size(x: &Tensor, k: i64) -> Result<Vec<usize>> {
    match x.dim() {
        1 => {
            let shift = usize::try_from(k.unsigned_abs()).unwrap_or(usize::MAX);
            let sz = x.size[0]
                .checked_add(shift)
                .ok_or_else(|| Error::shape(format!("k = {k} is too large")))?;
            Ok(vec![sz, sz])
        }
        2 => {
            let (rows, cols) = (x.size[0] as i64, x.size[1] as i64);
            let sz = if k >= 0 {
                rows.min(cols - k)
            } else {
                (rows + k).min(cols)
            };
            // No element on that diagonal: an empty result, as Torch's size-0 resize gives.
            Ok(if sz <= 0 { vec![] } else { vec![sz as usize] })
        }
        d => Err(Error::shape(format!("matrix or a vector expected, got {d}D tensor"))),
    }
}

/// Writes `diag(x, k)` into `out`, of `diag_size(x, k)`.
pub fn diag(out: &Tensor, x: &Tensor, k: i64) -> Result<()> {
    if x.dim() == 1 {
        scale(out, 0.0)?;
        let n = x.size[0];
        if n > 0 {
            let shift = k.unsigned_abs() as usize;
            let (row, col) = if k >= 0 { (0, shift) } else { (shift, 0) };
            let first = out.narrow(0, row, n)?.narrow(1, col, n)?;
            // SAFETY: views checked by `vector` and `mat`; the diagonal is inside both.
            dispatch!(x.dtype, T => unsafe {
                let (src, dst) = (vector::<T>(x)?, mat::<T>(&first)?);
                for i in 0..n {
                    *dst.at(i, i) = *src.ptr.add(i * src.inc);
                }
            });
        }
        return Ok(());
    }
    let Some(&sz) = out.size.first() else { return Ok(()) };
    let (row, col) = if k >= 0 { (0, k as usize) } else { ((-k) as usize, 0) };
    let src = x.narrow(0, row, sz)?.narrow(1, col, sz)?;
    // SAFETY: as above.
    dispatch!(x.dtype, T => unsafe {
        let (src, dst) = (mat::<T>(&src)?, vector::<T>(out)?);
        for i in 0..sz {
            *dst.ptr.add(i * dst.inc) = *src.at(i, i);
        }
    });
    Ok(())
}

/// tril (`lower`) and triu: `out` gets the elements of the matrix `x` on and below (above)
/// diagonal k, zeros elsewhere; out may be x itself.
pub fn triangle(out: &Tensor, x: &Tensor, k: i64, lower: bool) -> Result<()> {
    // SAFETY: both views checked by `mat`; (i, j) stays inside them.
    dispatch!(x.dtype, T => unsafe {
        let (src, dst) = (mat::<T>(x)?, mat::<T>(out)?);
        for i in 0..src.rows {
            for j in 0..src.cols {
                let offset = j as i64 - i as i64;
                let keep = if lower { offset <= k } else { offset >= k };
                *dst.at(i, j) = if keep { *src.at(i, j) } else { T::zero() };
            }
        }
    });
    Ok(())
}
