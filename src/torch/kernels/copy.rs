//! Copies between tensors of any two types (the element conversions of C casts), with the
//! layouts that need care: contiguous pairs as one move, transposed pairs in cache-sized tiles.

use super::strided::{Geometry, for_each_line, for_each_pair};
use crate::dispatch;
use crate::error::{Error, Result};
use crate::torch::base::dtype::Element;
use crate::torch::base::tensor::Tensor;

/// Element conversion as a C cast: integers convert exactly, through i64.
#[inline(always)]
pub fn convert<A: Element, B: Element>(b: B) -> A {
    if A::DTYPE.is_floating() || B::DTYPE.is_floating() {
        A::from_f64(b.to_f64())
    } else {
        A::from_i64(b.to_i64())
    }
}

/// Copies `src` into `dst` element by element in logical order, converting as C casts; same
/// element count required, any shapes.
pub fn copy(dst: &Tensor, src: &Tensor) -> Result<()> {
    if dst.numel() != src.numel() {
        return Err(Error::shape(format!(
            "sizes do not match ({} elements vs {})",
            dst.numel(),
            src.numel()
        )));
    }
    if dst.numel() == 0 {
        return Ok(());
    }
    let ds = dst.storage_checked()?;
    let ss = src.storage_checked()?;
    if dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous() {
        let es = dst.dtype.size_of();
        // SAFETY: both ranges are inside their storages (checked); ptr::copy allows overlap.
        unsafe {
            std::ptr::copy(
                ss.data_ptr().add(src.offset * es),
                ds.data_ptr().add(dst.offset * es),
                dst.numel() * es,
            )
        };
        return Ok(());
    }
    if let Some((gd, gs)) = transposed_pair(dst, src) {
        dispatch!(dst.dtype, A => dispatch!(src.dtype, B => unsafe {
            copy_transposed(ds.ptr::<A>(), &gd, ss.ptr::<B>(), &gs);
        }));
        return Ok(());
    }
    dispatch!(dst.dtype, A => dispatch!(src.dtype, B => unsafe {
        for_each_pair(ds.ptr::<A>(), dst, ss.ptr::<B>(), src, |a, b| *a = convert::<A, B>(*b));
    }));
    Ok(())
}

/// The merged geometries of `dst` and `src` when they are the same 2-D shape with the unit
/// stride in different dimensions (one is a transposed layout of the other), in separate memory.
fn transposed_pair(dst: &Tensor, src: &Tensor) -> Option<(Geometry, Geometry)> {
    if matches!((&dst.storage, &src.storage), (Some(a), Some(b)) if a.same(b)) {
        // Overlapping copies keep the plain element order.
        return None;
    }
    let (mut gd, mut gs) = (Geometry::of(dst), Geometry::of(src));
    // A contiguous side merges to one dimension: give it the other side's 2-D shape, row-major.
    let shape_as = |a: &mut Geometry, b: &Geometry| {
        if a.size.len() == 1 && a.stride[0] == 1 && b.size.len() == 2 {
            a.size = b.size.clone();
            a.stride = vec![b.size[1], 1];
        }
    };
    shape_as(&mut gd, &gs);
    shape_as(&mut gs, &gd);
    let crossed = |a: &Geometry, b: &Geometry| a.stride[1] == 1 && b.stride[0] == 1;
    (gd.size.len() == 2 && gd.size == gs.size && (crossed(&gd, &gs) || crossed(&gs, &gd))).then_some((gd, gs))
}

/// Copies a 2-D view into a 2-D view whose unit-stride dimension is the other one. Reading
/// straight along one of them strides through the other by a whole row per element, and with
/// power-of-two rows those lines all fall in the same few cache sets and evict each other. So
/// the copy walks strips 8 elements wide along dst's unit dimension (8 source lines in flight,
/// within L1's associativity) and 128 long along src's, reusing each loaded source line.
///
/// # Safety
/// Both geometries must be valid views of elements of their types, in separate memory.
unsafe fn copy_transposed<A: Element, B: Element>(pd: *mut A, gd: &Geometry, ps: *const B, gs: &Geometry) {
    const STRIP: usize = 8;
    const TILE: usize = 128;
    // u: dst's unit-stride dimension; v: src's.
    let (u, v) = if gd.stride[1] == 1 { (1, 0) } else { (0, 1) };
    let (nu, nv) = (gd.size[u], gd.size[v]);
    let (dv, su) = (gd.stride[v], gs.stride[u]);
    let mut v0 = 0;
    while v0 < nv {
        let v1 = (v0 + TILE).min(nv);
        let mut u0 = 0;
        while u0 < nu {
            let u1 = (u0 + STRIP).min(nu);
            for xv in v0..v1 {
                // SAFETY: (xu, xv) stays inside both views.
                unsafe {
                    let drow = pd.add(gd.offset + xv * dv);
                    let srow = ps.add(gs.offset + xv);
                    for xu in u0..u1 {
                        *drow.add(xu) = convert::<A, B>(*srow.add(xu * su));
                    }
                }
            }
            u0 = u1;
        }
        v0 = v1;
    }
}

/// A contiguous copy of `t`, same type.
pub fn clone(t: &Tensor) -> Result<Tensor> {
    let out = Tensor::zeros(t.dtype, &t.size)?;
    let out = if t.dim() == 0 { Tensor::empty(t.dtype) } else { out };
    copy(&out, t)?;
    Ok(out)
}

/// Copies between two tensors of the same shape and type row by row (innermost dimension), which
/// keeps the copy a run of contiguous moves when only the outer strides differ, as for a slice of
/// a result concatenated along an inner dimension. The two must not overlap.
pub fn copy_rows(dst: &Tensor, src: &Tensor) -> Result<()> {
    dispatch!(dst.dtype, T => copy_rows_typed::<T>(dst, src))
}

fn copy_rows_typed<T: Element>(dst: &Tensor, src: &Tensor) -> Result<()> {
    let (pd, ps) = (dst.storage_checked()?.ptr::<T>(), src.storage_checked()?.ptr::<T>());
    let last = dst.dim() - 1;
    let (n, sd, ss) = (dst.size[last], dst.stride[last], src.stride[last]);
    for_each_line([dst, src], last, |[bd, bs]| {
        // SAFETY: rows of checked views; the two tensors do not overlap (the caller's promise).
        unsafe {
            if sd == 1 && ss == 1 {
                std::ptr::copy_nonoverlapping(ps.add(bs), pd.add(bd), n);
            } else {
                for i in 0..n {
                    *pd.add(bd + i * sd) = *ps.add(bs + i * ss);
                }
            }
        }
        Ok(())
    })
}
