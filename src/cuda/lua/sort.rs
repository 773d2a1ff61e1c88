//! The sorting methods of device tensors (Lua glue), `sort`, `topk`, `kthvalue`, `median` and
//! `mode`, in the host tensors' argument forms and with their results (torch/methods/reduce.rs:
//! `sort_method`, `topk_method`, `kthvalue_method`, `median_mode`); the sorting is `ops::sort`.

use mlua::{Lua, MultiValue, Value};

use crate::cuda::device::Device;
use crate::cuda::family::Cuda;
use crate::cuda::ops::copy;
use crate::cuda::ops::operands::{common_device, empty_like, tensor_typename};
use crate::cuda::ops::sort::{Pick, overlaps, per_lane};
use crate::error::Named;
use crate::torch::args::{self, Args, arg, error, type_name};
use crate::torch::construct;
use crate::torch::dtype::DType;
use crate::torch::family::Family;
use crate::torch::layout::Tensor;
use crate::torch::methods::reduce::{Classified, classify, integer, invalid};
use crate::torch::userdata::tensor_of;

/// A tensor argument: its view, and whether it is a device tensor.
struct Given {
    tensor: Tensor,
    device: bool,
}

type Call = Classified<Given>;

/// A tensor argument with its Lua value (what a result is written back to).
type Arg = (Value, Given);

fn parse(a: &[Value], method: &str, forms: &str) -> mlua::Result<Call> {
    let c = classify(a, method, forms, |v| match Cuda::tensor_of(v) {
        Some(tensor) => Some(Given { tensor, device: true }),
        None => tensor_of(v).map(|tensor| Given { tensor, device: false }),
    })?;
    match c.tensors.last() {
        None => Err(invalid(a, method, forms)),
        Some((value, x)) if !x.device => Err(error(
            method,
            format!("expected a CUDA tensor to work on, got a {}", type_name(value)),
        )),
        Some(_) => Ok(c),
    }
}

impl Call {
    /// The tensor worked on: the last tensor argument.
    fn x(&self) -> &Tensor {
        &self.tensors[self.tensors.len() - 1].1.tensor
    }

    /// The result tensors, `[resval,] [resind,] x`: one alone is the values when it has x's
    /// element type, the indices otherwise (as on the host). Checked to be device tensors of the
    /// right types.
    fn results(&self, method: &str) -> mlua::Result<(Option<&Arg>, Option<&Arg>)> {
        let dtype = self.x().dtype;
        let (v, i) = match self.tensors.len() {
            1 => (None, None),
            2 if self.tensors[0].1.tensor.dtype == dtype => (Some(&self.tensors[0]), None),
            2 => (None, Some(&self.tensors[0])),
            3 => (Some(&self.tensors[0]), Some(&self.tensors[1])),
            _ => return Err(error(method, "too many tensor arguments")),
        };
        for (given, want, what) in [(v, dtype, "values"), (i, DType::Long, "indices")] {
            if let Some(g) = given
                && (!g.1.device || g.1.tensor.dtype != want)
            {
                return Err(error(
                    method,
                    format!(
                        "the {what} result must be a {}, got a {}",
                        tensor_typename(want),
                        type_name(&g.0)
                    ),
                ));
            }
        }
        Ok((v, i))
    }
}

/// A 1-based dimension argument, or the last dimension when absent (the default of all five).
fn dim_of(v: Option<f64>, x: &Tensor, method: &str) -> mlua::Result<usize> {
    match v {
        Some(d) => args::check_dim(integer(d, method, "dimension")?, x.dim(), method),
        None if x.dim() == 0 => Err(error(method, "empty tensor")),
        None => Ok(x.dim() - 1),
    }
}

/// k, 1-based, within a dimension of `len`.
fn k_in(k: i64, len: usize, method: &str) -> mlua::Result<usize> {
    if k < 1 || k as usize > len {
        return Err(error(
            method,
            format!("k ({k}) out of range for a dimension of size {len}"),
        ));
    }
    Ok(k as usize)
}

/// A result: the caller's tensor resized to `size` (which is returned), or a new one on `dev`.
fn result(
    lua: &Lua,
    given: Option<&Arg>,
    dtype: DType,
    size: &[usize],
    dev: &Device,
    method: &str,
) -> mlua::Result<(Value, Tensor)> {
    match given {
        Some(g) => {
            let mut t = g.1.tensor.clone();
            if t.size != size || t.storage.is_none() {
                args::lift_in(method, construct::resize_in::<Cuda>(&mut t, size))?;
                Cuda::set_view(&g.0, t.clone())?;
            }
            Ok((g.0.clone(), t))
        }
        None => {
            let t = empty_like(dev, dtype, size).named(method)?;
            Ok((Cuda::push_tensor(lua, t.clone())?, t))
        }
    }
}

/// `sortLanes(name, ...)`: `name` (sort, topk, kthvalue, median or mode) with the caller's
/// arguments, in the host's forms; returns the values and the indices.
pub fn sort_lanes(lua: &Lua, a: Args) -> mlua::Result<MultiValue> {
    let method = match arg(&a, 1) {
        Value::String(s) => s.to_string_lossy(),
        _ => {
            return Err(mlua::Error::runtime(
                "sortLanes: internal error: operation name expected",
            ));
        }
    };
    let method = method.as_str();
    let mut rest: &[Value] = a.get(1..).unwrap_or(&[]);
    while let [init @ .., Value::Nil] = rest {
        rest = init;
    }
    let forms = match method {
        "sort" => "([resval, resind,] tensor [, dim] [, descending])",
        "topk" => "([resval, resind,] tensor [, k] [, dim] [, dir] [, sort])",
        "kthvalue" => "([resval, resind,] tensor, k [, dim])",
        "median" | "mode" => "([resval, resind,] tensor [, dim])",
        _ => {
            return Err(mlua::Error::runtime(format!(
                "sortLanes: internal error: no operation {method}"
            )));
        }
    };
    let c = parse(rest, method, forms)?;
    let shape = (c.tensors.len(), c.nums.len(), c.bools.len());
    let fits = match method {
        "sort" => matches!(shape, (1..=3, 0 | 1, 0 | 1)),
        "topk" => matches!(shape, (1..=3, 0..=2, 0..=2)),
        "kthvalue" => matches!(shape, (1..=3, 1 | 2, 0)),
        _ => matches!(shape, (1..=3, 0 | 1, 0)),
    };
    if !fits {
        return Err(invalid(rest, method, forms));
    }
    let x = c.x().clone();
    let (given_v, given_i) = c.results(method)?;
    let (dim, desc, pick) = match method {
        "sort" => (
            dim_of(c.nums.first().copied(), &x, method)?,
            c.bools.first().copied().unwrap_or(false),
            Pick::Sort,
        ),
        "topk" => {
            // As on the host: k an integer, then the dimension, then k within it.
            let k = integer(c.nums.first().copied().unwrap_or(1.0), method, "k")?;
            let dim = dim_of(c.nums.get(1).copied(), &x, method)?;
            let k = k_in(k, x.size[dim], method)?;
            // dir: true for the k largest (a decreasing sort), false for the k smallest. The
            // results are sorted either way (the host's `sort` flag is accepted and ignored).
            (dim, c.bools.first().copied().unwrap_or(false), Pick::First(k))
        }
        "kthvalue" => {
            let k = integer(c.nums[0], method, "k")?;
            let dim = dim_of(c.nums.get(1).copied(), &x, method)?;
            (dim, false, Pick::Kth(k_in(k, x.size[dim], method)?))
        }
        _ => {
            let dim = dim_of(c.nums.first().copied(), &x, method)?;
            let len = x.size[dim];
            if len == 0 {
                return Err(error(method, "cannot reduce a dimension of size 0"));
            }
            // The median is the lower one: element ceil(n / 2) of the sorted lane.
            let pick = if method == "mode" {
                Pick::Mode
            } else {
                Pick::Kth(len.div_ceil(2))
            };
            (dim, false, pick)
        }
    };
    let mut size = x.size.clone();
    size[dim] = pick.window(x.size[dim]).0;
    let dev = common_device(&[&x]).named(method)?;
    let (vv, values) = result(lua, given_v, x.dtype, &size, &dev, method)?;
    let (iv, indices) = result(lua, given_i, DType::Long, &size, &dev, method)?;
    // Results that share memory with x are written after the kernels have read all of x.
    let staged = |t: &Tensor| -> mlua::Result<Option<Tensor>> {
        if overlaps(t, &x) {
            empty_like(&dev, t.dtype, &t.size).map(Some).named(method)
        } else {
            Ok(None)
        }
    };
    let (sv, si) = (staged(&values)?, staged(&indices)?);
    per_lane(
        &x,
        dim,
        desc,
        pick,
        sv.as_ref().unwrap_or(&values),
        si.as_ref().unwrap_or(&indices),
    )
    .named(method)?;
    for (tmp, dst) in [(sv, &values), (si, &indices)] {
        if let Some(tmp) = tmp {
            copy::on_device(dst, &tmp).named(method)?;
        }
    }
    Ok(MultiValue::from_vec(vec![vv, iv]))
}
