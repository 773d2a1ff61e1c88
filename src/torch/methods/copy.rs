//! copy (between any two types), fill, zero, clone, contiguous; the storage counterparts.

use mlua::{Lua, Result, Table};

use super::{add, one, receiver};
use crate::dispatch;
use crate::torch::apply;
use crate::torch::args::{self, Args, arg, error, number_arg, tensor_arg};
use crate::torch::dtype::Element;
use crate::torch::layout::Tensor;
use crate::torch::storage::Storage;
use crate::torch::userdata::{push_tensor, storage_of, tensor_of};

/// Element conversion as a C cast: integers convert exactly, through i64.
#[inline(always)]
pub fn convert<A: Element, B: Element>(b: B) -> A {
    if A::DTYPE.is_floating() || B::DTYPE.is_floating() {
        A::from_f64(b.to_f64())
    } else {
        A::from_i64(b.to_i64())
    }
}

/// Copies `src` into `dst` element by element in logical order; same element count required.
pub fn copy_into(dst: &Tensor, src: &Tensor, method: &str) -> Result<()> {
    if dst.numel() != src.numel() {
        return Err(error(
            method,
            format!("sizes do not match ({} elements vs {})", dst.numel(), src.numel()),
        ));
    }
    if dst.numel() == 0 {
        return Ok(());
    }
    let ds = args::lift_in(method, dst.storage_checked())?;
    let ss = args::lift_in(method, src.storage_checked())?;
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
        apply::for_each_pair(ds.ptr::<A>(), dst, ss.ptr::<B>(), src, |a, b| *a = convert::<A, B>(*b));
    }));
    Ok(())
}

/// The merged geometries of `dst` and `src` when they are the same 2-D shape with the unit
/// stride in different dimensions (one is a transposed layout of the other), in separate memory.
fn transposed_pair(dst: &Tensor, src: &Tensor) -> Option<(apply::Geometry, apply::Geometry)> {
    if matches!((&dst.storage, &src.storage), (Some(a), Some(b)) if a.same(b)) {
        // Overlapping copies keep the plain element order.
        return None;
    }
    let (mut gd, mut gs) = (apply::Geometry::of(dst), apply::Geometry::of(src));
    // A contiguous side merges to one dimension: give it the other side's 2-D shape, row-major.
    let shape_as = |a: &mut apply::Geometry, b: &apply::Geometry| {
        if a.size.len() == 1 && a.stride[0] == 1 && b.size.len() == 2 {
            a.size = b.size.clone();
            a.stride = vec![b.size[1], 1];
        }
    };
    shape_as(&mut gd, &gs);
    shape_as(&mut gs, &gd);
    let crossed = |a: &apply::Geometry, b: &apply::Geometry| a.stride[1] == 1 && b.stride[0] == 1;
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
unsafe fn copy_transposed<A: Element, B: Element>(
    pd: *mut A,
    gd: &apply::Geometry,
    ps: *const B,
    gs: &apply::Geometry,
) {
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

/// Sets every element of `t` to `value` (a Lua number, cast to the element type).
pub fn fill(t: &Tensor, value: f64, method: &str) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = args::lift_in(method, t.storage_checked())?;
    dispatch!(t.dtype, T => unsafe {
        let v = T::from_f64(value);
        apply::for_each_mut(s.ptr::<T>(), t, |x| *x = v);
    });
    Ok(())
}

/// A contiguous copy of `t`, same type.
pub fn clone_tensor(t: &Tensor) -> Result<Tensor> {
    let out = args::lift(Tensor::zeros(t.dtype, &t.size))?;
    let out = if t.dim() == 0 { Tensor::empty(t.dtype) } else { out };
    copy_into(&out, t, "clone")?;
    Ok(out)
}

fn copy_storage(dst: &Storage, src: &Storage, method: &str) -> Result<()> {
    if dst.len() != src.len() {
        return Err(error(
            method,
            format!("sizes do not match ({} vs {})", dst.len(), src.len()),
        ));
    }
    copy_into(
        &Tensor::of_storage(dst.clone()),
        &Tensor::of_storage(src.clone()),
        method,
    )
}

pub fn install(lua: &Lua, tensor: &Table, storage: &Table) -> Result<()> {
    add(lua, tensor, "copy", |_, a: Args| {
        let dst = tensor_arg(&a, 1, "copy")?;
        match tensor_of(arg(&a, 2)) {
            Some(src) => copy_into(&dst, &src, "copy")?,
            None => {
                return Err(error(
                    "copy",
                    format!("bad argument #2 (tensor expected, got {})", args::type_name(arg(&a, 2))),
                ));
            }
        }
        receiver(&a)
    })?;
    add(lua, tensor, "fill", |_, a: Args| {
        let t = tensor_arg(&a, 1, "fill")?;
        fill(&t, number_arg(&a, 2, "fill")?, "fill")?;
        receiver(&a)
    })?;
    add(lua, tensor, "zero", |_, a: Args| {
        let t = tensor_arg(&a, 1, "zero")?;
        fill(&t, 0.0, "zero")?;
        receiver(&a)
    })?;
    add(lua, tensor, "clone", |lua, a: Args| {
        let t = tensor_arg(&a, 1, "clone")?;
        one(push_tensor(lua, clone_tensor(&t)?)?)
    })?;
    add(lua, tensor, "contiguous", |lua, a: Args| {
        let t = tensor_arg(&a, 1, "contiguous")?;
        if t.is_contiguous() {
            receiver(&a)
        } else {
            one(push_tensor(lua, clone_tensor(&t)?)?)
        }
    })?;

    add(lua, storage, "copy", |_, a: Args| {
        let (Some(dst), Some(src)) = (storage_of(arg(&a, 1)), storage_of(arg(&a, 2))) else {
            return Err(error("copy", "expected (storage, storage)"));
        };
        copy_storage(&dst, &src, "copy")?;
        receiver(&a)
    })?;
    add(lua, storage, "fill", |_, a: Args| {
        let s = storage_of(arg(&a, 1)).ok_or_else(|| error("fill", "expected a storage"))?;
        fill(&Tensor::of_storage(s), number_arg(&a, 2, "fill")?, "fill")?;
        receiver(&a)
    })?;
    Ok(())
}
