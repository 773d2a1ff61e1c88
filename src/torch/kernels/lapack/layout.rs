//! What the LAPACK functions share: the element types and the routines, the column-major
//! buffers LAPACK works in, placing results as Torch7 lays them out, and the argument checks.

use std::ffi::{c_char, c_int};

use super::library::{Real, Routines, lapack};

use crate::error::{Error, Result};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::{Tensor, checked_numel, contiguous_strides};
use crate::torch::kernels::copy::copy;

/// A one-letter option as LAPACK reads it: a pointer to the letter.
pub(super) fn letter(c: u8) -> *const c_char {
    // The letters are 'static: LAPACK reads them through pointers.
    const LETTERS: &[u8] = b"ALNRSTUV";
    match LETTERS.iter().position(|&l| l == c) {
        Some(i) => LETTERS[i..].as_ptr() as *const c_char,
        None => b"?".as_ptr() as *const c_char,
    }
}

/// Whether LAPACK could be loaded.
pub fn available() -> bool {
    lapack().is_some()
}

/// The error of every LAPACK function when there is no LAPACK.
pub fn unavailable() -> Error {
    Error::device("LAPACK is not available (install libopenblas-dev)")
}

/// The routines of element type T, or the error that there are none.
pub(super) fn routines<T: Real>() -> Result<&'static Routines<T>> {
    lapack().map(T::routines).ok_or_else(unavailable)
}

/// Runs `$body` with `$t` the Float or Double element type of `$dtype`; other types are an error.
macro_rules! real {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::torch::base::dtype::DType::Float => {
                type $t = f32;
                $body
            }
            $crate::torch::base::dtype::DType::Double => {
                type $t = f64;
                $body
            }
            d => Err($crate::torch::kernels::lapack::layout::unsupported(d)),
        }
    };
}
pub(super) use real;

/// The error for a tensor type LAPACK does not work in.
pub fn unsupported(d: DType) -> Error {
    let name = d.tensor_typename();
    Error::dtype(format!(
        "{} is not supported (FloatTensor or DoubleTensor expected)",
        name.strip_prefix("torch.").unwrap_or(name)
    ))
}

/// A dimension as a LAPACK integer.
pub(super) fn int(n: usize) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| Error::shape(format!("dimension {n} is too large for LAPACK")))
}

/// The outcome of a LAPACK call: `info < 0` is an argument LAPACK rejected (a bug here, or sizes
/// LAPACK cannot take), `info > 0` the routine's own failure, in `failure`'s words.
pub(super) fn check(routine: &str, info: c_int, failure: impl FnOnce(c_int) -> String) -> Result<()> {
    match info {
        0 => Ok(()),
        i if i < 0 => Err(Error::argument(format!(
            "LAPACK's {routine} rejected its argument {}",
            -i
        ))),
        i => Err(Error::shape(failure(i))),
    }
}

/// The workspace size a query (`lwork = -1`) answered.
pub(super) fn workspace<T: Element>(w: T) -> usize {
    (w.to_f64().max(1.0)) as usize
}

/// A new zero `rows x cols` column-major matrix (strides `1, rows`).
pub(super) fn column_major(dtype: DType, rows: usize, cols: usize) -> Result<Tensor> {
    Tensor::zeros(dtype, &[cols, rows])?.transpose(0, 1)
}

/// `src`, a matrix, copied into a new column-major matrix of `ld >= rows` rows (the rows below
/// src's are zero).
pub(super) fn gather(src: &Tensor, ld: usize) -> Result<Tensor> {
    let (rows, cols) = (src.size[0], src.size[1]);
    let m = column_major(src.dtype, ld.max(1), cols)?;
    copy(&m.narrow(0, 0, rows)?, src)?;
    Ok(m)
}

/// A right-hand side as a matrix: a vector is one column (Torch7's `B` of 1 dimension).
pub(super) fn as_matrix(b: &Tensor) -> Tensor {
    if b.dim() == 1 {
        Tensor {
            size: vec![b.size[0], 1],
            stride: vec![b.stride[0], 1],
            ..b.clone()
        }
    } else {
        b.clone()
    }
}

/// The first element of a buffer made here (`column_major`, `vector`).
pub(super) fn ptr<T: Element>(t: &Tensor) -> *mut T {
    t.storage
        .as_ref()
        .expect("a LAPACK buffer has storage")
        .ptr::<T>()
        .wrapping_add(t.offset)
}

/// A vector's elements, in order.
pub(super) fn elements<T: Element>(t: &Tensor) -> Result<Vec<T>> {
    let c = Tensor::zeros(t.dtype, &[t.numel()])?;
    copy(&c, t)?;
    // SAFETY: a fresh buffer of T, read before anything else touches it.
    Ok(unsafe { c.storage_checked()?.as_slice::<T>() }.to_vec())
}

/// A new vector of these elements.
pub(super) fn vector<T: Element>(v: &[T]) -> Result<Tensor> {
    Ok(Tensor::of_storage(Storage::from_slice(v)?))
}

/// Torch's resize (THTensor_resizeNd): the same size keeps the layout, another makes the tensor
/// contiguous at its offset, its storage growing to hold it.
pub(super) fn resized(mut t: Tensor, size: &[usize]) -> Result<Tensor> {
    if t.size == size && t.storage.is_some() {
        return Ok(t);
    }
    let needed = t.offset + checked_numel(size)?;
    t.size = size.to_vec();
    t.stride = contiguous_strides(size);
    match &t.storage {
        Some(s) if s.len() >= needed => {}
        Some(s) => s.resize(needed)?,
        None => t.storage = Some(Storage::new(t.dtype, needed)?),
    }
    Ok(t)
}

/// Places a computed column-major matrix in the result tensor `out` (None: a new one, the buffer
/// itself); `input` is the operand that `out` may be (then it keeps its layout).
pub(super) fn place_matrix(out: Option<&Tensor>, input: Option<&Tensor>, computed: Tensor) -> Result<Tensor> {
    let Some(r) = out else {
        return Ok(computed);
    };
    let (m, n) = (computed.size[0], computed.size[1]);
    let r = if input.is_some_and(|i| i.same_view(r)) {
        resized(r.clone(), &[m, n])?
    } else if r.size == [m, n] && !r.is_contiguous() && r.storage.is_some() {
        r.clone()
    } else {
        // Torch7's resize to n x m, then the transpose of it.
        let mut fresh = r.clone();
        fresh.size.clear();
        resized(fresh, &[n, m])?.transpose(0, 1)?
    };
    copy(&r, &computed)?;
    Ok(r)
}

/// Places a computed tensor in `out` as Torch7 does for vectors and the few matrices it resizes
/// and copies into (svd's V, qr's R): resized to its size (the same size keeps the layout), then
/// a copy; None: a new contiguous tensor.
pub(super) fn place_plain(out: Option<&Tensor>, computed: &Tensor) -> Result<Tensor> {
    match out {
        None if computed.is_contiguous() => Ok(computed.clone()),
        None => {
            let r = Tensor::zeros(computed.dtype, &computed.size)?;
            copy(&r, computed)?;
            Ok(r)
        }
        Some(r) => {
            let r = resized(r.clone(), &computed.size)?;
            copy(&r, computed)?;
            Ok(r)
        }
    }
}

/// Zeroes the triangle of a square column-major matrix that an 'U' ('L') factor does not use:
/// below (above) the diagonal (Torch7's clearUpLoTriangle).
pub(super) fn clear_triangle<T: Element>(m: &Tensor, upper: bool) {
    let n = m.size[0];
    let (p, ld) = (ptr::<T>(m), m.stride[1]);
    for j in 0..n {
        let rows = if upper { j + 1..n } else { 0..j };
        for i in rows {
            // SAFETY: (i, j) is inside the n x n buffer.
            unsafe { *p.add(i + j * ld) = T::zero() };
        }
    }
}

/// Copies the triangle `upper` of a square column-major matrix onto the other one (Torch7's
/// copyUpLoTriangle): the full symmetric matrix.
pub(super) fn mirror_triangle<T: Element>(m: &Tensor, upper: bool) {
    let n = m.size[0];
    let (p, ld) = (ptr::<T>(m), m.stride[1]);
    for j in 0..n {
        for i in j + 1..n {
            // (i, j) is below the diagonal, (j, i) above it.
            let (below, above) = (i + j * ld, j + i * ld);
            // SAFETY: both inside the n x n buffer.
            unsafe {
                if upper {
                    *p.add(below) = *p.add(above);
                } else {
                    *p.add(above) = *p.add(below);
                }
            }
        }
    }
}

pub(super) fn expect_dims(t: &Tensor, what: &str) -> Result<()> {
    if t.dim() != 2 {
        return Err(Error::shape(format!("{what} should be 2 dimensional")));
    }
    Ok(())
}

/// `A should be 2 dimensional` and `A should be square` (syev, geev, getri, potrf, ...).
pub(super) fn expect_square(a: &Tensor) -> Result<usize> {
    expect_dims(a, "A")?;
    if a.size[0] != a.size[1] {
        return Err(Error::shape("A should be square"));
    }
    Ok(a.size[0])
}

/// The checks of the solvers of `A X = B` (gesv, trtrs, potrs; gels without `square`).
pub(super) fn expect_system(b: &Tensor, a: &Tensor, square: bool) -> Result<()> {
    if a.dim() != 2 {
        return Err(Error::shape(format!("A should have 2 dimensions, but has {}", a.dim())));
    }
    if b.dim() != 1 && b.dim() != 2 {
        return Err(Error::shape(format!(
            "B should have 1 or 2 dimensions, but has {}",
            b.dim()
        )));
    }
    if square && a.size[0] != a.size[1] {
        return Err(Error::shape(format!(
            "A should be square, but is {}x{}",
            a.size[0], a.size[1]
        )));
    }
    if a.size[0] != b.size[0] {
        return Err(Error::shape(format!(
            "A,B size incompatible - A has {} rows, B has {}",
            a.size[0], b.size[0]
        )));
    }
    Ok(())
}

/// Every tensor of a call has the first one's type (the forms check it; here for kernels called
/// from elsewhere).
pub(super) fn same_types(ts: &[&Tensor]) -> Result<DType> {
    let d = ts[0].dtype;
    match ts.iter().find(|t| t.dtype != d) {
        Some(t) => Err(Error::dtype(format!(
            "{} expected, got {}",
            d.tensor_typename(),
            t.dtype.tensor_typename()
        ))),
        None => Ok(d),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A contiguous rows x cols Double matrix of `v` (row-major), for the tests here and in solve.
    pub(in super::super) fn matrix(rows: usize, cols: usize, v: &[f64]) -> Tensor {
        let mut t = vector(v).unwrap();
        t.size = vec![rows, cols];
        t.stride = vec![cols, 1];
        t
    }

    #[test]
    fn results_are_laid_out_as_torch7_does() {
        let a = matrix(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let m = gather(&a, 2).unwrap();
        assert_eq!((m.size.clone(), m.stride.clone()), (vec![2, 3], vec![1, 2]));
        assert_eq!(elements::<f64>(&m).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        // A contiguous result becomes the transpose of a contiguous one.
        let r = place_matrix(Some(&Tensor::zeros(DType::Double, &[2, 3]).unwrap()), None, m.clone()).unwrap();
        assert_eq!(r.stride, vec![1, 2]);
        // The input itself keeps its layout.
        let r = place_matrix(Some(&a), Some(&a), m.clone()).unwrap();
        assert_eq!(r.stride, vec![3, 1]);
        // A result of the right size with a layout of its own keeps it.
        let odd = Tensor::zeros(DType::Double, &[2, 2, 3]).unwrap().select(1, 1).unwrap();
        let r = place_matrix(Some(&odd), None, m).unwrap();
        assert_eq!(r.stride, vec![6, 1]);
        assert_eq!(elements::<f64>(&r).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn triangles() {
        let m = gather(&matrix(2, 2, &[1.0, 2.0, 3.0, 4.0]), 2).unwrap();
        clear_triangle::<f64>(&m, true);
        assert_eq!(elements::<f64>(&m).unwrap(), vec![1.0, 2.0, 0.0, 4.0]);
        mirror_triangle::<f64>(&m, true);
        assert_eq!(elements::<f64>(&m).unwrap(), vec![1.0, 2.0, 2.0, 4.0]);
        assert!(
            unsupported(DType::Long)
                .to_string()
                .starts_with("LongTensor is not supported")
        );
    }
}
