//! Indexing by index tensors: index, indexCopy, indexAdd, indexFill, gather, scatter,
//! scatterAdd, nonzero. Argument forms follow Torch's cwrap overloads: a tensor where the source
//! would be means a result tensor came first (`res:index(src, dim, idx)`), otherwise the receiver
//! is the source and the result is new (`x:index(dim, idx)`). The loops are `kernels::index`.

use mlua::{Lua, MultiValue, Result, Table};

use super::convention::{Method, add, receiver};
use super::copy::fill;
use super::output::{Output, source_and_output};
use crate::args::{self, Args, arg, error, number, number_arg};
use crate::error::Named;
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::fill::fill_indexed;
use crate::torch::kernels::index::{
    self as kernel, check_index_copy, index_select_into, index_vector, normalize, slice,
};
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::tensor_of;
use crate::{dispatch, dispatch_math};

/// A LongTensor of indices at `pos`.
fn index_tensor(a: &Args, pos: usize, method: &str) -> Result<Tensor> {
    let v = arg(a, pos);
    match tensor_of(v) {
        Some(t) if t.dtype == DType::Long => Ok(t),
        _ => Err(error(
            method,
            format!(
                "bad argument #{pos} (the index must be a torch.LongTensor, got {})",
                args::type_name(v)
            ),
        )),
    }
}

/// `x:index(dim, idx)` (new tensor) or `res:index(src, dim, idx)`.
fn index(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "index";
    let (mut out, src, p) = source_and_output(&a, M)?;
    let idx = index_tensor(&a, p + 1, M)?;
    if idx.dim() != 1 {
        return Err(error(
            M,
            format!("the index must be a vector (got a {}D tensor)", idx.dim()),
        ));
    }
    if src.dim() == 0 {
        return Err(error(M, "the source tensor is empty"));
    }
    let dim = crate::torch::tensor_args::dim_arg(&a, p, &src, M)?;
    let ks = index_vector(&idx, src.size[dim], dim).named(M)?;
    let mut size = src.size.clone();
    size[dim] = ks.len();
    let dst = out.target(&normalize(size), &[&src, &idx], M)?;
    if dst.numel() > 0 {
        dispatch!(src.dtype, T => index_select_into::<T>(&dst, &src, dim, &ks)).named(M)?;
    }
    out.finish(lua, dst, M)
}

/// Shared checks of indexCopy and indexAdd: `x:f(dim, idx, src)`.
fn index_update(a: &Args, method: &str) -> Result<(Tensor, usize, Vec<usize>, Tensor)> {
    let t = tensor_arg(a, 1, method)?;
    let idx = index_tensor(a, 3, method)?;
    let src = tensor_arg(a, 4, method)?;
    if src.dtype != t.dtype {
        return Err(error(
            method,
            format!(
                "bad argument #4 (source must be a {}, got {})",
                t.dtype.tensor_typename(),
                src.dtype.tensor_typename()
            ),
        ));
    }
    let dim = crate::torch::tensor_args::dim_arg(a, 2, &t, method)?;
    if dim >= src.dim() {
        return Err(error(
            method,
            format!("dimension {} out of range of the {}D source", dim + 1, src.dim()),
        ));
    }
    let ks = index_vector(&idx, t.size[dim], dim).named(method)?;
    check_index_copy(&t, dim, &ks, &src).named(method)?;
    Ok((t, dim, ks, src))
}

fn index_fill(_: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "indexFill";
    let t = tensor_arg(&a, 1, M)?;
    let idx = index_tensor(&a, 3, M)?;
    let v = number_arg(&a, 4, M)?;
    let dim = crate::torch::tensor_args::dim_arg(&a, 2, &t, M)?;
    for k in index_vector(&idx, t.size[dim], dim).named(M)? {
        fill(&slice(&t, dim, k), v, M)?;
    }
    receiver(&a)
}

/// `x:gather(dim, idx)` (new tensor of idx's size) or `res:gather(src, dim, idx)`.
fn gather(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "gather";
    let (mut out, src, p) = source_and_output(&a, M)?;
    let idx = index_tensor(&a, p + 1, M)?;
    let dim = crate::torch::tensor_args::dim_arg(&a, p, &src, M)?;
    check_same_except(&idx, "the index", &src, "the source", dim, M)?;
    let dst = out.target(&normalize(idx.size.clone()), &[&src, &idx], M)?;
    if dst.numel() > 0 {
        dispatch!(src.dtype, T => kernel::gather::<T>(&dst, &src, dim, &idx)).named(M)?;
    }
    out.finish(lua, dst, M)
}

/// `x:scatter(dim, idx, src|value)` and `x:scatterAdd(dim, idx, src)`: in place on x.
fn scatter_impl(a: &Args, method: &str, add: bool) -> Result<MultiValue> {
    let t = tensor_arg(a, 1, method)?;
    let idx = index_tensor(a, 3, method)?;
    let dim = crate::torch::tensor_args::dim_arg(a, 2, &t, method)?;
    check_same_except(&idx, "the index", &t, "the tensor", dim, method)?;
    let value = arg(a, 4);
    if let (Some(v), false) = (number(value), add) {
        if t.numel() > 0 && idx.numel() > 0 {
            dispatch!(t.dtype, T => kernel::scatter_fill::<T>(&t, dim, &idx, v)).named(method)?;
        }
        return receiver(a);
    }
    let src = tensor_of(value).ok_or_else(|| {
        let expected = if add { "tensor" } else { "tensor or number" };
        error(
            method,
            format!("bad argument #4 ({expected} expected, got {})", args::type_name(value)),
        )
    })?;
    if src.dtype != t.dtype {
        return Err(error(
            method,
            format!(
                "bad argument #4 (source must be a {}, got {})",
                t.dtype.tensor_typename(),
                src.dtype.tensor_typename()
            ),
        ));
    }
    check_scatter_source(&src, &t, &idx, dim, method)?;
    if t.numel() > 0 && idx.numel() > 0 {
        dispatch_math!(t.dtype, T => kernel::scatter::<T>(&t, dim, &idx, &src, add), half => Err(crate::torch::base::dtype::no_half_math())).named(method)?;
    }
    receiver(a)
}

/// `x:nonzero()` / `torch.nonzero(x)` (new LongTensor) or `res:nonzero(x)` (res a LongTensor).
fn nonzero(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "nonzero";
    let first = tensor_arg(&a, 1, M)?;
    let (mut out, src) = match tensor_of(arg(&a, 2)) {
        Some(src) => (Output::into(arg(&a, 1), DType::Long, M)?, src),
        None => (Output::new(DType::Long), first),
    };
    let (count, coords) = if src.numel() == 0 {
        (0, Vec::new())
    } else {
        dispatch!(src.dtype, T => nonzero_coords::<T>(&src, M))?
    };
    let dst = out.target(&normalize(vec![count, src.dim()]), &[&src], M)?;
    if count > 0 {
        let mut it = coords.iter();
        fill_indexed::<i64>(&dst, |_| *it.next().expect("one coordinate per element")).named(M)?;
    }
    out.finish(lua, dst, M)
}

// The checks and coordinates under their old names and error style, for crate::cuda's gather,
// scatter and nonzero, which share them with the host.

/// Sizes must agree except along `dim`.
pub(crate) fn check_same_except(
    t: &Tensor,
    what: &str,
    reference: &Tensor,
    ref_what: &str,
    dim: usize,
    method: &str,
) -> Result<()> {
    kernel::check_same_except(t, what, reference, ref_what, dim).named(method)
}

/// A scatter's source: `t`'s sizes but along `dim`, where it has at least the index's.
pub(crate) fn check_scatter_source(src: &Tensor, t: &Tensor, idx: &Tensor, dim: usize, method: &str) -> Result<()> {
    kernel::check_scatter_source(src, t, idx, dim).named(method)
}

/// 1-based coordinates of the non-zero elements of `t`, in logical order, as an N x dim list.
pub(crate) fn nonzero_coords<T: Element>(t: &Tensor, method: &str) -> Result<(usize, Vec<i64>)> {
    kernel::nonzero_coords::<T>(t).named(method)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    // Methods that also exist as torch.* functions with the same argument list.
    let both: [(&str, Method); 8] = [
        ("index", index),
        ("indexCopy", |_, a| {
            let (t, dim, ks, src) = index_update(&a, "indexCopy")?;
            dispatch_math!(t.dtype, T => kernel::index_copy::<T>(&t, dim, &ks, &src, false), half => Err(crate::torch::base::dtype::no_half_math())).named("indexCopy")?;
            receiver(&a)
        }),
        ("indexAdd", |_, a| {
            let (t, dim, ks, src) = index_update(&a, "indexAdd")?;
            dispatch_math!(t.dtype, T => kernel::index_copy::<T>(&t, dim, &ks, &src, true), half => Err(crate::torch::base::dtype::no_half_math())).named("indexAdd")?;
            receiver(&a)
        }),
        ("indexFill", index_fill),
        ("gather", gather),
        ("scatter", |_, a| scatter_impl(&a, "scatter", false)),
        ("scatterAdd", |_, a| scatter_impl(&a, "scatterAdd", true)),
        ("nonzero", nonzero),
    ];
    for (name, f) in both {
        add(lua, tensor, name, f)?;
        add(lua, functions, name, f)?;
    }

    Ok(())
}
