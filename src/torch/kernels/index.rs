//! Indexing kernels: selecting, copying, adding and filling along a dimension by a list of
//! indices (index, indexCopy, indexAdd, indexFill), gather and scatter by an index tensor, the
//! non-zero coordinates, and the masked forms (maskedSelect, maskedFill, maskedCopy). Indices here
//! are 0-based; index tensors hold Torch's 1-based ones and are checked as they are read.

use super::arith::Arith;
use super::copy;
use super::element::write;
use super::strided::{Offsets, for_each_line, for_each_pair};
use crate::dispatch;
use crate::error::{Error, Result};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;

/// `2x3` as Torch prints sizes.
pub fn size_text(size: &[usize]) -> String {
    if size.is_empty() {
        return "(empty)".into();
    }
    size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

/// Torch has no tensor with a dimension of size 0: such a result is the empty tensor.
pub fn normalize(size: Vec<usize>) -> Vec<usize> {
    if size.contains(&0) { Vec::new() } else { size }
}

/// The values of a 1-D index tensor, checked against a dimension of `size` and made 0-based.
pub fn index_vector(idx: &Tensor, size: usize, dim: usize) -> Result<Vec<usize>> {
    if idx.dim() != 1 {
        return Err(Error::shape(format!(
            "the index must be a vector (got a {}D tensor)",
            idx.dim()
        )));
    }
    let s = idx.storage_checked()?;
    let p = s.ptr::<i64>();
    Offsets::new(idx)
        .map(|o| {
            // SAFETY: offsets of a checked view.
            let k = unsafe { *p.add(o) };
            check_index(k, size, dim)
        })
        .collect()
}

fn check_index(k: i64, size: usize, dim: usize) -> Result<usize> {
    if k < 1 || k as u64 > size as u64 {
        return Err(Error::shape(format!(
            "index {k} out of range for dimension {} of size {size}",
            dim + 1
        )));
    }
    Ok(k as usize - 1)
}

/// `t.narrow(dim, i, 1)`: the slice at `i` keeping the dimension, so that 1-D tensors give one
/// element instead of a tensor with no dimension.
pub fn slice(t: &Tensor, dim: usize, i: usize) -> Tensor {
    let mut s = t.clone();
    s.offset += i * t.stride[dim];
    s.size[dim] = 1;
    s
}

/// Elements per slice along `dim`.
fn slice_numel(t: &Tensor, dim: usize) -> usize {
    t.size
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != dim)
        .map(|(_, &s)| s)
        .product()
}

fn ptr<T: Element>(t: &Tensor) -> Result<*mut T> {
    Ok(t.storage_checked()?.ptr::<T>())
}

/// dst[i] = src[idx[i]] along `dim`; `dst` already has the result's size.
pub fn index_select_into<T: Element>(dst: &Tensor, src: &Tensor, dim: usize, idx: &[usize]) -> Result<()> {
    let pd = ptr::<T>(dst)?;
    let ps = ptr::<T>(src)?;
    // SAFETY: every access is inside the checked views (indices were range-checked).
    unsafe {
        if src.dim() == 1 {
            let (sd, ss) = (dst.stride[0], src.stride[0]);
            for (i, &k) in idx.iter().enumerate() {
                *pd.add(dst.offset + i * sd) = *ps.add(src.offset + k * ss);
            }
        } else if dim == 0 && src.is_contiguous() && dst.is_contiguous() {
            let row = slice_numel(src, 0);
            for (i, &k) in idx.iter().enumerate() {
                std::ptr::copy_nonoverlapping(ps.add(src.offset + k * row), pd.add(dst.offset + i * row), row);
            }
        } else if dim == 0 {
            for (i, &k) in idx.iter().enumerate() {
                for_each_pair(pd, &slice(dst, dim, i), ps, &slice(src, dim, k), |a, b| *a = *b);
            }
        } else {
            // Along an inner dimension, walking line by line reads each source row once instead
            // of striding through it once per index.
            let (sd, ss) = (dst.stride[dim], src.stride[dim]);
            for_each_line::<2, Error>([dst, src], dim, |[bd, bs]| {
                for (i, &k) in idx.iter().enumerate() {
                    *pd.add(bd + i * sd) = *ps.add(bs + k * ss);
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

pub fn index_copy<T: Arith>(t: &Tensor, dim: usize, ks: &[usize], src: &Tensor, add: bool) -> Result<()> {
    let pt = ptr::<T>(t)?;
    let ps = ptr::<T>(src)?;
    let same_shape = t.dim() == src.dim() && (0..t.dim()).all(|d| d == dim || t.size[d] == src.size[d]);
    if dim > 0 && same_shape && !t.shares_storage(src) {
        // Line by line, as in index_select_into; without aliasing the order of writes cannot
        // change the result.
        let (st, ss) = (t.stride[dim], src.stride[dim]);
        return for_each_line([t, src], dim, |[bt, bs]| {
            for (i, &k) in ks.iter().enumerate() {
                // SAFETY: lines of checked views; k was range-checked.
                unsafe {
                    let x = pt.add(bt + k * st);
                    let y = *ps.add(bs + i * ss);
                    *x = if add { (*x).add(y) } else { y };
                }
            }
            Ok(())
        });
    }
    for (i, &k) in ks.iter().enumerate() {
        let (d, s) = (slice(t, dim, k), slice(src, dim, i));
        // SAFETY: slices of checked views; aliasing is allowed by for_each_pair.
        unsafe {
            if add {
                for_each_pair(pt, &d, ps, &s, |x, y| *x = x.add(*y));
            } else {
                for_each_pair(pt, &d, ps, &s, |x, y| *x = *y);
            }
        }
    }
    Ok(())
}

/// Sizes must agree except along `dim`.
pub fn check_same_except(t: &Tensor, what: &str, reference: &Tensor, ref_what: &str, dim: usize) -> Result<()> {
    if t.dim() != reference.dim() {
        return Err(Error::shape(format!(
            "{what} must have as many dimensions as {ref_what} ({} vs {})",
            t.dim(),
            reference.dim()
        )));
    }
    for d in 0..t.dim() {
        if d != dim && t.size[d] != reference.size[d] {
            return Err(Error::shape(format!(
                "inconsistent tensor size: {what} is {} and {ref_what} is {}, which differ in dimension {}",
                size_text(&t.size),
                size_text(&reference.size),
                d + 1
            )));
        }
    }
    Ok(())
}

pub fn gather<T: Element>(dst: &Tensor, src: &Tensor, dim: usize, idx: &Tensor) -> Result<()> {
    let (pd, ps, pi) = (ptr::<T>(dst)?, ptr::<T>(src)?, ptr::<i64>(idx)?);
    let n = idx.size[dim];
    let (sd, ss, si) = (dst.stride[dim], src.stride[dim], idx.stride[dim]);
    let src_size = src.size[dim];
    for_each_line([dst, src, idx], dim, |[bd, bs, bi]| {
        for i in 0..n {
            // SAFETY: lines of checked views; k is range-checked before the read.
            unsafe {
                let k = check_index(*pi.add(bi + i * si), src_size, dim)?;
                *pd.add(bd + i * sd) = *ps.add(bs + k * ss);
            }
        }
        Ok(())
    })
}

pub fn scatter<T: Arith>(t: &Tensor, dim: usize, idx: &Tensor, src: &Tensor, add: bool) -> Result<()> {
    let (pt, ps, pi) = (ptr::<T>(t)?, ptr::<T>(src)?, ptr::<i64>(idx)?);
    let n = idx.size[dim];
    let (st, ss, si) = (t.stride[dim], src.stride[dim], idx.stride[dim]);
    let size = t.size[dim];
    for_each_line([t, src, idx], dim, |[bt, bs, bi]| {
        for i in 0..n {
            // SAFETY: lines of checked views; k is range-checked before the write.
            unsafe {
                let k = check_index(*pi.add(bi + i * si), size, dim)?;
                let x = pt.add(bt + k * st);
                let y = *ps.add(bs + i * ss);
                *x = if add { (*x).add(y) } else { y };
            }
        }
        Ok(())
    })
}

pub fn scatter_fill<T: Element>(t: &Tensor, dim: usize, idx: &Tensor, v: f64) -> Result<()> {
    let (pt, pi) = (ptr::<T>(t)?, ptr::<i64>(idx)?);
    let n = idx.size[dim];
    let (st, si) = (t.stride[dim], idx.stride[dim]);
    let size = t.size[dim];
    let v = T::from_f64(v);
    for_each_line([t, idx], dim, |[bt, bi]| {
        for i in 0..n {
            // SAFETY: lines of checked views; k is range-checked before the write.
            unsafe {
                let k = check_index(*pi.add(bi + i * si), size, dim)?;
                *pt.add(bt + k * st) = v;
            }
        }
        Ok(())
    })
}

/// A scatter's source: `t`'s sizes but along `dim`, where it has at least the index's.
pub fn check_scatter_source(src: &Tensor, t: &Tensor, idx: &Tensor, dim: usize) -> Result<()> {
    check_same_except(src, "the source", t, "the tensor", dim)?;
    if idx.dim() > 0 && idx.size[dim] > src.size[dim] {
        return Err(Error::shape(format!(
            "the index has {} elements along dimension {}, more than the source's {}",
            idx.size[dim],
            dim + 1,
            src.size[dim]
        )));
    }
    Ok(())
}

/// 1-based coordinates of the non-zero elements of `t`, in logical order, as an N x dim list.
pub fn nonzero_coords<T: Element>(t: &Tensor) -> Result<(usize, Vec<i64>)> {
    let p = ptr::<T>(t)?;
    let nd = t.dim();
    let mut coords = vec![0usize; nd];
    let mut out = Vec::new();
    let mut count = 0;
    for o in Offsets::new(t) {
        // SAFETY: offsets of a checked view.
        if unsafe { *p.add(o) } != T::zero() {
            out.extend(coords.iter().map(|&c| c as i64 + 1));
            count += 1;
        }
        // Advance the coordinates in row-major order.
        for d in (0..nd).rev() {
            coords[d] += 1;
            if coords[d] < t.size[d] {
                break;
            }
            coords[d] = 0;
        }
    }
    Ok((count, out))
}

/// The checks of indexCopy and indexAdd beyond their arguments' types: `src` has `t`'s slices
/// along `dim`, one per index.
pub fn check_index_copy(t: &Tensor, dim: usize, ks: &[usize], src: &Tensor) -> Result<()> {
    if ks.len() != src.size[dim] {
        return Err(Error::shape(format!(
            "number of indices ({}) should be equal to source:size({}) ({})",
            ks.len(),
            dim + 1,
            src.size[dim]
        )));
    }
    if slice_numel(t, dim) != slice_numel(src, dim) {
        return Err(Error::shape(format!(
            "inconsistent tensor sizes: slices of the {} tensor along dimension {} have {} elements, slices of the {} source have {}",
            size_text(&t.size),
            dim + 1,
            slice_numel(t, dim),
            size_text(&src.size),
            slice_numel(src, dim)
        )));
    }
    Ok(())
}

/// `mask` must be a ByteTensor with as many elements as `t`.
fn check_mask(t: &Tensor, mask: &Tensor) -> Result<()> {
    if mask.dtype != DType::Byte {
        return Err(Error::dtype("mask must be a ByteTensor"));
    }
    if mask.numel() != t.numel() {
        return Err(Error::shape(format!(
            "mask has {} elements, tensor has {}",
            mask.numel(),
            t.numel()
        )));
    }
    Ok(())
}

/// The offsets of `t`'s elements where `mask` is non-zero, in logical order.
pub fn masked_offsets(t: &Tensor, mask: &Tensor) -> Result<Vec<usize>> {
    check_mask(t, mask)?;
    if t.numel() == 0 {
        return Ok(Vec::new());
    }
    let ms = mask.storage_checked()?;
    // SAFETY: mask view checked; read only.
    let mdata = unsafe { ms.as_slice::<u8>() };
    Ok(Offsets::new(t)
        .zip(Offsets::new(mask))
        .filter(|&(_, mo)| mdata[mo] != 0)
        .map(|(o, _)| o)
        .collect())
}

/// maskedSelect: a new 1-D tensor of the selected elements.
pub fn masked_select(t: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let offs = masked_offsets(t, mask)?;
    let out = Tensor::zeros(t.dtype, &[offs.len()])?;
    if offs.is_empty() {
        return Ok(Tensor::empty(t.dtype));
    }
    let src = t.storage_checked()?;
    let dst = out.storage.as_ref().expect("zeros has storage");
    dispatch!(t.dtype, T => unsafe {
        let (p, q) = (src.ptr::<T>(), dst.ptr::<T>());
        for (i, &o) in offs.iter().enumerate() {
            *q.add(i) = *p.add(o);
        }
    });
    Ok(out)
}

pub fn masked_fill(t: &Tensor, mask: &Tensor, v: f64) -> Result<()> {
    let s = t.storage_checked()?.clone();
    for o in masked_offsets(t, mask)? {
        write(&s, o, v);
    }
    Ok(())
}

pub fn masked_copy(t: &Tensor, mask: &Tensor, src: &Tensor) -> Result<()> {
    let offs = masked_offsets(t, mask)?;
    if src.numel() < offs.len() {
        return Err(Error::shape(format!(
            "source has {} elements, mask selects {}",
            src.numel(),
            offs.len()
        )));
    }
    let flat = copy::clone(src)?;
    let converted = Tensor::zeros(t.dtype, &[src.numel().max(1)])?;
    if src.numel() > 0 {
        copy::copy(&converted.narrow(0, 0, src.numel())?, &flat)?;
    }
    let s = t.storage_checked()?;
    let c = converted.storage.as_ref().expect("zeros has storage");
    let es = t.dtype.size_of();
    for (i, o) in offs.into_iter().enumerate() {
        // SAFETY: o is a checked element offset of t; i < src.numel() <= converted length.
        unsafe { std::ptr::copy_nonoverlapping(c.data_ptr().add(i * es), s.data_ptr().add(o * es), es) };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::kernels::strided::for_each_mut;

    fn filled(size: &[usize]) -> Tensor {
        let t = Tensor::zeros(DType::Double, size).unwrap();
        let mut i = 0.0;
        // SAFETY: a fresh contiguous tensor.
        unsafe {
            for_each_mut(t.storage.as_ref().unwrap().ptr::<f64>(), &t, |x| {
                i += 1.0;
                *x = i;
            })
        };
        t
    }

    #[test]
    fn zero_sized_results_are_empty() {
        assert_eq!(normalize(vec![3, 0, 2]), Vec::<usize>::new());
        assert_eq!(normalize(vec![3, 2]), vec![3, 2]);
        assert_eq!(size_text(&[2, 3]), "2x3");
    }

    #[test]
    fn nonzero_gives_one_based_coordinates() {
        let t = filled(&[2, 2]);
        // SAFETY: fresh tensor.
        unsafe { *t.storage.as_ref().unwrap().ptr::<f64>().add(1) = 0.0 };
        let (n, coords) = nonzero_coords::<f64>(&t).unwrap();
        assert_eq!(n, 3);
        assert_eq!(coords, vec![1, 1, 2, 1, 2, 2]);
    }

    #[test]
    fn index_select_on_strided_views() {
        let src = filled(&[3, 2]).transpose(0, 1).unwrap(); // [[1,3,5],[2,4,6]]
        let dst = Tensor::zeros(DType::Double, &[2, 2]).unwrap();
        index_select_into::<f64>(&dst, &src, 1, &[2, 0]).unwrap();
        // SAFETY: read-only.
        let got = unsafe { dst.storage.as_ref().unwrap().as_slice::<f64>() }.to_vec();
        assert_eq!(got, vec![5.0, 1.0, 6.0, 2.0]);
    }
}
