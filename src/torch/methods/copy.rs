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
    dispatch!(dst.dtype, A => dispatch!(src.dtype, B => unsafe {
        apply::for_each_pair(ds.ptr::<A>(), dst, ss.ptr::<B>(), src, |a, b| *a = convert::<A, B>(*b));
    }));
    Ok(())
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
