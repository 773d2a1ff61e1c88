//! The arguments and results of `libcutorch`'s functions (Lua glue), shared by its files:
//! device numbers, device tensors (and the device they are on), result tensors given or made.

use std::sync::Arc;

use mlua::{Lua, Result, Value, Variadic};

use crate::args::{Args, arg, error, int_arg, type_name};
use crate::cuda::device::{self, Device};
use crate::cuda::family::Cuda;
use crate::cuda::memory::device_of;
use crate::cuda::ops::operands::{empty_like, tensor_typename};
use crate::cuda::peer;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::family::Family;

/// The results of a device function.
pub fn ret(v: impl IntoIterator<Item = Value>) -> Result<Variadic<Value>> {
    Ok(Variadic::from_iter(v))
}

pub fn num(v: f64) -> Value {
    Value::Number(v)
}

/// A 1-based device argument at `pos` (the current device when absent), 0-based, checked.
pub fn device_arg(a: &Args, pos: usize, method: &str) -> Result<usize> {
    device::usable().named(method)?;
    if arg(a, pos).is_nil() {
        return Ok(device::current());
    }
    let d = int_arg(a, pos, method)?;
    if d < 1 || d as usize > device::count() {
        return Err(error(
            method,
            format!(
                "device {d} does not exist (devices are numbered 1 to {})",
                device::count()
            ),
        ));
    }
    Ok(d as usize - 1)
}

/// The device given at `pos` (the current one when absent), opened.
pub fn open_device(a: &Args, pos: usize, method: &str) -> Result<Arc<Device>> {
    let d = device_arg(a, pos, method)?;
    device::get(d).named(method)
}

/// The name of the operation at `pos` (the primitives take the Lua function's name first).
pub fn op_name(a: &Args, pos: usize) -> Result<String> {
    match arg(a, pos) {
        Value::String(s) => Ok(s.to_string_lossy()),
        _ => Err(mlua::Error::runtime("internal error: operation name expected")),
    }
}

pub fn tensor_arg(a: &Args, pos: usize, method: &str) -> Result<Tensor> {
    Cuda::tensor_arg(a, pos, method)
}

/// A device tensor of type `dtype` at `pos`, or None for nil.
pub fn opt_tensor(a: &Args, pos: usize, dtype: DType, method: &str) -> Result<Option<Tensor>> {
    match arg(a, pos) {
        Value::Nil => Ok(None),
        v => match Cuda::tensor_of(v) {
            Some(t) if t.dtype == dtype => Ok(Some(t)),
            // Positions are the primitive's, not the caller's: the types say what was wrong.
            _ => Err(error(
                method,
                format!(
                    "expected a {} (all tensors of one type), got a {}",
                    tensor_typename(dtype),
                    type_name(v)
                ),
            )),
        },
    }
}

/// The ordinal of the device of a tensor's memory (the current device for a tensor with none).
pub fn ordinal_of(t: &Tensor) -> usize {
    t.storage.as_ref().and_then(device_of).unwrap_or_else(device::current)
}

/// The device of a tensor's memory (the current device for a tensor with none), opened.
pub fn device_of_tensor(t: &Tensor, method: &str) -> Result<Arc<Device>> {
    device::get(ordinal_of(t)).named(method)
}

/// The result tensor at `pos` resized to `size`, or when nil (or `pos` is 0) a new one on the
/// device of the operand `on`: its value and view.
pub fn result(
    lua: &Lua,
    a: &Args,
    pos: usize,
    dtype: DType,
    size: &[usize],
    on: &Tensor,
    method: &str,
) -> Result<(Value, Tensor)> {
    let given = if pos == 0 {
        None
    } else {
        opt_tensor(a, pos, dtype, method)?
    };
    let given = given.map(|t| (arg(a, pos).clone(), t));
    result_given(lua, given.as_ref(), dtype, size, on, method)
}

/// The result tensor a bound call was given, checked to be of type `dtype` and resized to
/// `size`, or when None a new one on the device of the operand `on`: its value and view.
pub fn result_given(
    lua: &Lua,
    given: Option<&(Value, Tensor)>,
    dtype: DType,
    size: &[usize],
    on: &Tensor,
    method: &str,
) -> Result<(Value, Tensor)> {
    match given {
        Some((v, t)) => {
            if t.dtype != dtype {
                return Err(error(
                    method,
                    format!(
                        "the result must be a {}, got a {}",
                        tensor_typename(dtype),
                        tensor_typename(t.dtype)
                    ),
                ));
            }
            let mut t = t.clone();
            if t.size != size || t.storage.is_none() {
                construct::resize_in::<Cuda>(&mut t, size).named(method)?;
                Cuda::set_view(v, t.clone())?;
            }
            Ok((v.clone(), t))
        }
        None => {
            let t = empty_like(&*result_device(on, method)?, dtype, size).named(method)?;
            Ok((Cuda::push_tensor(lua, t.clone())?, t))
        }
    }
}

/// Where a new result of an operation on `on` goes: `on`'s device, where the work runs (cutorch
/// refused operands off the current device; running them where they are is kinder), or, once
/// kernels may reach other devices, the current device, which then does the work (as cutorch).
fn result_device(on: &Tensor, method: &str) -> Result<Arc<Device>> {
    match peer::kernel_access() {
        true => device::current_device().named(method),
        false => device_of_tensor(on, method),
    }
}

/// A new device tensor shaped like `like` (no storage when it has no dimension), on `like`'s
/// device (`here` false) or the current one.
pub fn new_like(like: &Tensor, here: bool, method: &str) -> Result<Tensor> {
    if like.dim() == 0 {
        return Ok(Tensor::empty(like.dtype));
    }
    let dev = match here {
        true => device::current_device().named(method)?,
        false => result_device(like, method)?,
    };
    empty_like(&dev, like.dtype, &like.size).named(method)
}
