//! The sorting methods of device tensors (Lua glue), `sort`, `topk`, `kthvalue`, `median` and
//! `mode`, in the host tensors' argument forms and with their results (torch/methods/reduce.rs:
//! `order`), bound by the same table of forms, which `math` installs them from; the sorting is
//! `ops::sort`. The receiver of a method call is the first argument, as on the host:
//!
//! ```text
//! sort([resval, resind,] x [, dim] [, descending])
//! topk([resval, resind,] x [, k] [, dim] [, dir] [, sort])   (dir true: the k largest)
//! kthvalue([resval, resind,] x, k [, dim])
//! median([resval, resind,] x [, dim]), mode([resval, resind,] x [, dim])
//! ```
//!
//! Values in x's type and 1-based indices in a CudaLongTensor; the default dimension is the last.

use mlua::{Lua, MultiValue, Value};

use crate::args::{self, Args, error, integer};
use crate::cuda::device::Device;
use crate::cuda::family::Cuda;
use crate::cuda::ops::copy;
use crate::cuda::ops::operands::{common_device, empty_like, tensor_typename};
use crate::cuda::ops::sort::{Pick, overlaps, per_lane};
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::construct;
use crate::torch::family::Family;
use crate::torch::forms::bind::{Bound, Dest, Mode, bind};
use crate::torch::forms::computes::{Computes, Order};
use crate::torch::forms::table::Entry;

/// The result tensors, `[resval,] [resind,] x`: one alone is the values when it has x's element
/// type, the indices otherwise (as on the host). Checked to be of the right types. Also the
/// results of max and min along a dimension (`math`).
pub(super) fn results<'a>(
    b: &'a Bound,
    x: &Tensor,
    method: &str,
) -> mlua::Result<(Option<&'a Dest>, Option<&'a Dest>)> {
    let mut given = b.results();
    let (v, i) = match (given.next(), given.next()) {
        (Some(d), None) if d.1.dtype != x.dtype => (None, Some(d)),
        (v, i) => (v, i),
    };
    for (given, want, what) in [(v, x.dtype, "values"), (i, DType::Long, "indices")] {
        if let Some((_, t)) = given
            && t.dtype != want
        {
            return Err(error(
                method,
                format!(
                    "the {what} result must be a {}, got a {}",
                    tensor_typename(want),
                    tensor_typename(t.dtype)
                ),
            ));
        }
    }
    Ok((v, i))
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
    given: Option<&Dest>,
    dtype: DType,
    size: &[usize],
    dev: &Device,
    method: &str,
) -> mlua::Result<(Value, Tensor)> {
    match given {
        Some((v, t)) => {
            let mut t = t.clone();
            if t.size != size || t.storage.is_none() {
                construct::resize_in::<Cuda>(&mut t, size).named(method)?;
                Cuda::set_view(v, t.clone())?;
            }
            Ok((v.clone(), t))
        }
        None => {
            let t = empty_like(dev, dtype, size).named(method)?;
            Ok((Cuda::push_tensor(lua, t.clone())?, t))
        }
    }
}

/// sort, topk, kthvalue, median, mode, as the bound form names it: the values and the indices of
/// each lane along a dimension.
pub(super) fn order(lua: &Lua, a: Args, mode: Mode, e: &'static Entry) -> mlua::Result<MultiValue> {
    let method = e.name;
    let b = bind::<Cuda>(&a, mode, e)?;
    let Computes::Order(order) = b.computes() else {
        unreachable!("{method}: not an order statistic")
    };
    let x = b.source().expect("every sorting form has a source");
    let (given_v, given_i) = results(&b, x, method)?;
    let (dim, desc, pick) = match order {
        Order::Sort => (dim_of(b.number(0), x, method)?, b.boolean(0), Pick::Sort),
        Order::TopK => {
            // As on the host: k an integer, then the dimension, then k within it.
            let k = integer(b.number(0).expect("k or its default"), method, "k")?;
            let dim = dim_of(b.number(1), x, method)?;
            let k = k_in(k, x.size[dim], method)?;
            // dir: true for the k largest (a decreasing sort), false for the k smallest. The
            // results are sorted either way (the host's `sort` flag is accepted and ignored).
            (dim, b.boolean(0), Pick::First(k))
        }
        Order::KthValue => {
            let k = integer(b.number(0).expect("k"), method, "k")?;
            let dim = dim_of(b.number(1), x, method)?;
            (dim, false, Pick::Kth(k_in(k, x.size[dim], method)?))
        }
        Order::Median | Order::Mode => {
            let dim = dim_of(b.number(0), x, method)?;
            let len = x.size[dim];
            if len == 0 {
                return Err(error(method, "cannot reduce a dimension of size 0"));
            }
            // The median is the lower one: element ceil(n / 2) of the sorted lane.
            let pick = if order == Order::Mode {
                Pick::Mode
            } else {
                Pick::Kth(len.div_ceil(2))
            };
            (dim, false, pick)
        }
    };
    let mut size = x.size.clone();
    size[dim] = pick.window(x.size[dim]).0;
    let dev = common_device(&[x]).named(method)?;
    let (vv, values) = result(lua, given_v, x.dtype, &size, &dev, method)?;
    let (iv, indices) = result(lua, given_i, DType::Long, &size, &dev, method)?;
    // Results that share memory with x are written after the kernels have read all of x.
    let staged = |t: &Tensor| -> mlua::Result<Option<Tensor>> {
        if overlaps(t, x) {
            empty_like(&dev, t.dtype, &t.size).map(Some).named(method)
        } else {
            Ok(None)
        }
    };
    let (sv, si) = (staged(&values)?, staged(&indices)?);
    per_lane(
        x,
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
