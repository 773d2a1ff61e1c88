//! Where the result of a method that makes a tensor goes: a new tensor, or a result tensor the
//! caller gave (resized to the result, or filled through a scratch tensor when it shares memory
//! with an input).

use mlua::{Lua, MultiValue, Result, Value};

use super::convention::one;
use super::copy::copy_into;
use crate::args::{Args, arg, error};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

fn new_tensor(dtype: DType, size: &[usize], method: &str) -> Result<Tensor> {
    if size.is_empty() {
        return Ok(Tensor::empty(dtype));
    }
    Tensor::zeros(dtype, size).named(method)
}

/// Where a result goes: a new tensor, or a result tensor given by the caller (kept as its Lua
/// value so that its view can be replaced).
pub struct Output {
    pub dtype: DType,
    pub into: Option<(Value, Tensor)>,
    /// The target is a scratch tensor, to be copied into the result tensor.
    scratch: bool,
}

impl Output {
    pub fn new(dtype: DType) -> Output {
        Output {
            dtype,
            into: None,
            scratch: false,
        }
    }

    /// The result tensor at `v`, which must have type `dtype`.
    pub fn into(v: &Value, dtype: DType, method: &str) -> Result<Output> {
        let t = tensor_of(v).ok_or_else(|| error(method, "expected a result tensor"))?;
        if t.dtype != dtype {
            return Err(error(
                method,
                format!(
                    "result tensor must be a {} (got {})",
                    dtype.tensor_typename(),
                    t.dtype.tensor_typename()
                ),
            ));
        }
        Ok(Output {
            dtype,
            into: Some((v.clone(), t)),
            scratch: false,
        })
    }

    /// A tensor of `size` to write the result into: the result tensor itself, resized, unless it
    /// shares memory with one of `inputs` (then a scratch tensor that `finish` copies over).
    pub fn target(&mut self, size: &[usize], inputs: &[&Tensor], method: &str) -> Result<Tensor> {
        match &mut self.into {
            None => new_tensor(self.dtype, size, method),
            Some((_, r)) if inputs.iter().any(|t| r.shares_storage(t)) => {
                self.scratch = true;
                new_tensor(self.dtype, size, method)
            }
            Some((v, r)) => {
                construct::resize(r, size).named(method)?;
                set_view(v, r.clone())?;
                Ok(r.clone())
            }
        }
    }

    /// Returns the result: the new tensor, or the result tensor (copying a scratch result in).
    pub fn finish(self, lua: &Lua, dst: Tensor, method: &str) -> Result<MultiValue> {
        match self.into {
            None => one(push_tensor(lua, dst)?),
            Some((v, mut r)) => {
                if self.scratch {
                    construct::resize(&mut r, &dst.size).named(method)?;
                    set_view(&v, r.clone())?;
                    copy_into(&r, &dst, method)?;
                }
                one(v)
            }
        }
    }
}

/// The two shapes of a method with an optional result: `x:f(...)` (a new result from x) and
/// `res:f(src, ...)`. Returns the output, the source and the position of the next argument.
pub fn source_and_output(a: &Args, method: &str) -> Result<(Output, Tensor, usize)> {
    let first = tensor_arg(a, 1, method)?;
    Ok(match tensor_of(arg(a, 2)) {
        Some(src) => (Output::into(arg(a, 1), src.dtype, method)?, src, 3),
        None => (Output::new(first.dtype), first, 2),
    })
}
