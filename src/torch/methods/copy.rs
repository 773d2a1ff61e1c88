//! copy (between any two types), fill, zero, clone, contiguous; the storage counterparts.

use mlua::{Lua, Result, Table};

use super::convention::{add, one, receiver};
use crate::args::{self, Args, arg, error, number_arg};
use crate::error::{Error, Named};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::{copy, fill as fills};
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::{push_tensor, storage_of, tensor_of};

/// Copies `src` into `dst` element by element in logical order (same element count), errors
/// named after `method`.
pub fn copy_into(dst: &Tensor, src: &Tensor, method: &str) -> Result<()> {
    copy::copy(dst, src).named(method)
}

/// A contiguous copy of `t`, same type.
pub fn clone_tensor(t: &Tensor) -> Result<Tensor> {
    copy::clone(t).named("clone")
}

/// Sets every element of `t` to `value`, errors named after `method`.
pub fn fill(t: &Tensor, value: f64, method: &str) -> Result<()> {
    fills::fill(t, value).named(method)
}

fn copy_storage(dst: &Storage, src: &Storage) -> crate::error::Result<()> {
    if dst.len() != src.len() {
        return Err(Error::shape(format!(
            "sizes do not match ({} vs {})",
            dst.len(),
            src.len()
        )));
    }
    copy::copy(&Tensor::of_storage(dst.clone()), &Tensor::of_storage(src.clone()))
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
        copy_storage(&dst, &src).named("copy")?;
        receiver(&a)
    })?;
    add(lua, storage, "fill", |_, a: Args| {
        let s = storage_of(arg(&a, 1)).ok_or_else(|| error("fill", "expected a storage"))?;
        fill(&Tensor::of_storage(s), number_arg(&a, 2, "fill")?, "fill")?;
        receiver(&a)
    })?;
    Ok(())
}
