//! The methods (Lua glue) that move elements by position on the device: along a dimension (`index`,
//! `indexCopy`, `indexAdd`, `indexFill`, `gather`, `scatter`, `scatterAdd`) and by mask
//! (`maskedSelect`, `maskedCopy`, `nonzero`), with the host tensors' argument forms and checks;
//! the moves themselves are `ops::moves`.
//!
//! Positions are checked on the device (their least and greatest) before anything moves. Masks
//! are read back to the host once, to count and place the selected elements; the elements
//! themselves stay on the device.

use mlua::{Lua, MultiValue, Result, Table};

use super::args::{device_of_tensor, result, tensor_arg};
use crate::args::{Args, arg, error, number, number_arg, type_name};
use crate::calls;
use crate::cuda::device::Device;
use crate::cuda::family::Cuda;
use crate::cuda::kernels::Geo;
use crate::cuda::ops::moves::{Mode, Move, expanded, over};
use crate::cuda::ops::operands::{empty_like, host_longs, tensor_typename};
use crate::cuda::ops::{copy, reduce};
use crate::dispatch;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::{Tensor, contiguous_strides};
use crate::torch::family::Family;
use crate::torch::methods::copy::clone_tensor;
use crate::torch::methods::index::{check_same_except, check_scatter_source, nonzero_coords};
use crate::torch::methods::{one, receiver};
use crate::torch::tensor_args::dim_arg;
use crate::torch::userdata::tensor_of;

/// Positions at `pos`: a CudaLongTensor as it is, or a LongTensor copied to `dev`.
fn positions(a: &Args, pos: usize, dev: &Device, method: &str) -> Result<Tensor> {
    let v = arg(a, pos);
    if let Some(t) = Cuda::tensor_of(v).filter(|t| t.dtype == DType::Long) {
        return Ok(t);
    }
    if let Some(t) = tensor_of(v).filter(|t| t.dtype == DType::Long) {
        return upload(&t, dev, method);
    }
    Err(error(
        method,
        format!(
            "bad argument #{pos} (the index must be a torch.LongTensor or torch.CudaLongTensor, got {})",
            type_name(v)
        ),
    ))
}

/// A device copy of a host tensor (no storage when it has no element).
fn upload(t: &Tensor, dev: &Device, method: &str) -> Result<Tensor> {
    if t.numel() == 0 {
        return Ok(Tensor::empty(t.dtype));
    }
    let d = empty_like(dev, t.dtype, &t.size).named(method)?;
    copy::from_host(&d, t).named(method)?;
    Ok(d)
}

/// Every position in `idx` must be within 1..=size (checked on the device).
fn check_positions(idx: &Tensor, size: usize, dim: usize, method: &str) -> Result<()> {
    if idx.numel() == 0 {
        return Ok(());
    }
    // One pass counts the positions outside; only then are the extremes looked for, to name one.
    if reduce::reduce_all("outside", idx, size as f64).named(method)? == 0.0 {
        return Ok(());
    }
    let lo = reduce::reduce_all("min", idx, 0.0).named(method)?;
    let hi = reduce::reduce_all("max", idx, 0.0).named(method)?;
    let bad = if lo < 1.0 {
        lo
    } else if hi > size as f64 {
        hi
    } else {
        return Ok(());
    };
    Err(error(
        method,
        format!(
            "index {} out of range for dimension {} of size {size}",
            bad as i64,
            dim + 1
        ),
    ))
}

/// A vector of positions within dimension `dim` of `t`.
fn position_vector(a: &Args, pos: usize, t: &Tensor, dim: usize, method: &str) -> Result<Tensor> {
    let idx = positions(a, pos, &*device_of_tensor(t, method)?, method)?;
    if idx.dim() > 1 {
        return Err(error(
            method,
            format!("the index must be a vector (got a {}D tensor)", idx.dim()),
        ));
    }
    check_positions(&idx, t.size[dim], dim, method)?;
    Ok(idx)
}

/// A device tensor of `dtype` at `pos` (what is moved in or out).
fn same_type(a: &Args, pos: usize, dtype: DType, method: &str) -> Result<Tensor> {
    let t = tensor_arg(a, pos, method)?;
    if t.dtype != dtype {
        return Err(error(
            method,
            format!(
                "bad argument #{pos} (source must be a {}, got {})",
                tensor_typename(dtype),
                tensor_typename(t.dtype)
            ),
        ));
    }
    Ok(t)
}

/// The forms `x:f(dim, ...)` (a new result) and `res:f(src, dim, ...)`: (source, result
/// position or 0, position of dim).
fn source_and_result(a: &Args, method: &str) -> Result<(Tensor, usize, usize)> {
    match Cuda::tensor_of(arg(a, 2)) {
        Some(src) => {
            tensor_arg(a, 1, method)?;
            Ok((src, 1, 3))
        }
        None => Ok((tensor_arg(a, 1, method)?, 0, 2)),
    }
}

/// `x:index(dim, positions)`, `res:index(src, dim, positions)`, `torch.index([res,] src, dim,
/// positions)`: the slices of src along dim at the positions.
fn index(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "index";
    let (src, res, p) = source_and_result(&a, M)?;
    let dim = dim_arg(&a, p, &src, M)?;
    let idx = position_vector(&a, p + 1, &src, dim, M)?;
    let mut shape = src.size.clone();
    shape[dim] = idx.numel();
    let gi = expanded(&shape, &idx, dim).named(M)?;
    gather_into(lua, &a, res, &src, dim, &shape, &idx, gi, M)
}

/// The result at `res` (0: a new one) of `shape`, filled with the elements of src along dim at
/// the positions `idx` seen through `gi`.
#[allow(clippy::too_many_arguments)]
fn gather_into(
    lua: &Lua,
    a: &Args,
    res: usize,
    src: &Tensor,
    dim: usize,
    shape: &[usize],
    idx: &Tensor,
    gi: Geo,
    method: &str,
) -> Result<MultiValue> {
    let (rv, r) = result(lua, a, res, src.dtype, shape, src, method)?;
    Move::gather(&r, src, dim, idx, gi)
        .and_then(|work| work.run(r.numel()))
        .named(method)?;
    one(rv)
}

/// `src` as slices along `dim` shaped as `t`'s: itself when its other sizes are `t`'s, else a
/// contiguous copy with `dim` first, viewed with `t`'s other sizes (Torch's indexCopy takes any
/// source whose slices have as many elements as `t`'s, in their logical order).
fn slices_like(src: &Tensor, t: &Tensor, dim: usize, method: &str) -> Result<Tensor> {
    let same = src.dim() == t.dim() && (0..t.dim()).all(|d| d == dim || src.size[d] == t.size[d]);
    if same {
        return Ok(src.clone());
    }
    let mut moved = src.clone();
    let (s, st) = (moved.size.remove(dim), moved.stride.remove(dim));
    moved.size.insert(0, s);
    moved.stride.insert(0, st);
    let c = copy::contiguous(&moved).named(method)?;
    let mut rest = t.size.clone();
    rest.remove(dim);
    rest.insert(0, s);
    let mut stride = contiguous_strides(&rest);
    let first = stride.remove(0);
    stride.insert(dim, first);
    let mut size = t.size.clone();
    size[dim] = s;
    Ok(Tensor { size, stride, ..c })
}

/// `x:indexCopy(dim, positions, src)`: in place on x.
fn index_copy(_: &Lua, a: Args) -> Result<MultiValue> {
    copy_indexed(&a, "indexCopy", false)
}

/// `x:indexAdd(dim, positions, src)`: in place on x.
fn index_add(_: &Lua, a: Args) -> Result<MultiValue> {
    copy_indexed(&a, "indexAdd", true)
}

/// What `indexCopy` and `indexAdd` do, the second adding.
fn copy_indexed(a: &Args, method: &str, adding: bool) -> Result<MultiValue> {
    let t = tensor_arg(a, 1, method)?;
    let src = same_type(a, 4, t.dtype, method)?;
    let dim = dim_arg(a, 2, &t, method)?;
    if dim >= src.dim() {
        return Err(error(
            method,
            format!("dimension {} out of range of the {}D source", dim + 1, src.dim()),
        ));
    }
    let idx = position_vector(a, 3, &t, dim, method)?;
    if idx.numel() != src.size[dim] {
        return Err(error(
            method,
            format!(
                "number of indices ({}) should be equal to source:size({}) ({})",
                idx.numel(),
                dim + 1,
                src.size[dim]
            ),
        ));
    }
    let per_slice = |x: &Tensor| x.numel().checked_div(x.size[dim]).unwrap_or(0);
    if t.size[dim] > 0 && per_slice(&t) != per_slice(&src) {
        return Err(error(
            method,
            format!(
                "inconsistent tensor sizes: slices along dimension {} have {} elements in the tensor and {} in the source",
                dim + 1,
                per_slice(&t),
                per_slice(&src)
            ),
        ));
    }
    let src = slices_like(&src, &t, dim, method)?;
    let mode = if adding { Mode::ScatterAdd } else { Mode::Scatter };
    let (gs, gi) = (Geo::of(&src), expanded(&src.size, &idx, dim));
    gs.and_then(|gs| Move::scatter(mode, &t, dim, &src.size, Some((&src, gs)), 0.0, &idx, gi?))
        .and_then(|work| work.run(src.numel()))
        .named(method)?;
    receiver(a)
}

/// `x:indexFill(dim, positions, v)`: in place on x.
fn index_fill(_: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "indexFill";
    let t = tensor_arg(&a, 1, M)?;
    let dim = dim_arg(&a, 2, &t, M)?;
    let idx = position_vector(&a, 3, &t, dim, M)?;
    let v = number_arg(&a, 4, M)?;
    let mut shape = t.size.clone();
    shape[dim] = idx.numel();
    expanded(&shape, &idx, dim)
        .and_then(|gi| Move::scatter(Mode::ScatterFill, &t, dim, &shape, None, v, &idx, gi))
        .and_then(|work| work.run(shape.iter().product()))
        .named(M)?;
    receiver(&a)
}

/// Positions of any shape at `pos`, with as many dimensions as `like` and within its `dim`.
fn position_tensor(a: &Args, pos: usize, like: &Tensor, what: &str, dim: usize, method: &str) -> Result<Tensor> {
    let idx = positions(a, pos, &*device_of_tensor(like, method)?, method)?;
    check_same_except(&idx, "the index", like, what, dim, method)?;
    check_positions(&idx, like.size[dim], dim, method)?;
    Ok(idx)
}

/// `x:gather(dim, positions)` (a new tensor of the positions' sizes), `res:gather(src, dim,
/// positions)`, `torch.gather([res,] src, dim, positions)`.
fn gather(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "gather";
    let (src, res, p) = source_and_result(&a, M)?;
    let dim = dim_arg(&a, p, &src, M)?;
    let idx = position_tensor(&a, p + 1, &src, "the source", dim, M)?;
    let gi = Geo::of(&idx).named(M)?;
    gather_into(lua, &a, res, &src, dim, &idx.size, &idx, gi, M)
}

/// `x:scatter(dim, positions, src | v)`: in place on x.
fn scatter(_: &Lua, a: Args) -> Result<MultiValue> {
    scatter_into(&a, "scatter", false)
}

/// `x:scatterAdd(dim, positions, src)`: in place on x.
fn scatter_add(_: &Lua, a: Args) -> Result<MultiValue> {
    scatter_into(&a, "scatterAdd", true)
}

/// What `scatter` and `scatterAdd` do, the second adding.
fn scatter_into(a: &Args, method: &str, adding: bool) -> Result<MultiValue> {
    let t = tensor_arg(a, 1, method)?;
    let dim = dim_arg(a, 2, &t, method)?;
    let idx = position_tensor(a, 3, &t, "the tensor", dim, method)?;
    let gi = Geo::of(&idx).named(method)?;
    let value = arg(a, 4);
    let src = match (number(value), adding, Cuda::tensor_of(value)) {
        (Some(_), false, _) => None,
        (_, _, Some(_)) => Some(same_type(a, 4, t.dtype, method)?),
        _ => {
            let expected = if adding { "CUDA tensor" } else { "CUDA tensor or number" };
            return Err(error(
                method,
                format!("bad argument #4 ({expected} expected, got {})", type_name(value)),
            ));
        }
    };
    let work = match &src {
        None => Move::scatter(
            Mode::ScatterFill,
            &t,
            dim,
            &idx.size,
            None,
            number(value).unwrap_or(0.0),
            &idx,
            gi,
        ),
        Some(src) => {
            check_scatter_source(src, &t, &idx, dim, method)?;
            let mode = if adding { Mode::ScatterAdd } else { Mode::Scatter };
            over(&idx.size, src, None)
                .and_then(|gs| Move::scatter(mode, &t, dim, &idx.size, Some((src, gs)), 0.0, &idx, gi))
        }
    }
    .named(method)?;
    work.run(idx.numel()).named(method)?;
    receiver(a)
}

/// The mask at `pos` on the host: a device tensor of any type, or a host tensor, with as many
/// elements as `t`.
fn host_mask(a: &Args, pos: usize, t: &Tensor, method: &str) -> Result<Tensor> {
    let v = arg(a, pos);
    let mask = match (Cuda::tensor_of(v), tensor_of(v)) {
        (Some(m), _) => copy::to_host(&m).named(method)?,
        (None, Some(m)) => m,
        _ => {
            return Err(error(
                method,
                format!("bad argument #{pos} (mask tensor expected, got {})", type_name(v)),
            ));
        }
    };
    if mask.numel() != t.numel() {
        return Err(error(
            method,
            format!("mask has {} elements, tensor has {}", mask.numel(), t.numel()),
        ));
    }
    Ok(mask)
}

/// The 1-based logical positions where a host mask is not zero, on `dev`.
fn selected(mask: &Tensor, dev: &Device, method: &str) -> Result<Tensor> {
    let n = mask.numel();
    if n == 0 {
        return Ok(Tensor::empty(DType::Long));
    }
    // The coordinates of a vector's elements are their positions.
    let flat = if mask.is_contiguous() {
        mask.clone()
    } else {
        clone_tensor(mask)?
    };
    let flat = Tensor {
        size: vec![n],
        stride: vec![1],
        ..flat
    };
    let (count, places) = dispatch!(mask.dtype, T => nonzero_coords::<T>(&flat, method))?;
    if count == 0 {
        return Ok(Tensor::empty(DType::Long));
    }
    let places = host_longs(&places, &[count]).named(method)?;
    upload(&places, dev, method)
}

/// `x:maskedSelect(mask)` (a new vector), `res:maskedSelect(src, mask)`,
/// `torch.maskedSelect([res,] src, mask)`.
fn masked_select(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "maskedSelect";
    // x:maskedSelect(mask) or res:maskedSelect(src, mask): both first arguments are tensors.
    let (src, res, p) = if arg(&a, 3).is_nil() {
        (tensor_arg(&a, 1, M)?, 0, 2)
    } else {
        (tensor_arg(&a, 2, M)?, 1, 3)
    };
    let mask = host_mask(&a, p, &src, M)?;
    let idx = selected(&mask, &*device_of_tensor(&src, M)?, M)?;
    let n = idx.numel();
    if n == 0 {
        return empty_result(lua, &a, res, src.dtype);
    }
    let (rv, r) = result(lua, &a, res, src.dtype, &[n], &src, M)?;
    Move::take(&r, &src, &idx).and_then(|work| work.run(n)).named(M)?;
    one(rv)
}

/// `x:maskedCopy(mask, src)`: the elements of src, in order, where mask is not zero.
fn masked_copy(_: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "maskedCopy";
    let t = tensor_arg(&a, 1, M)?;
    let mask = host_mask(&a, 2, &t, M)?;
    let src = same_type(&a, 3, t.dtype, M)?;
    let idx = selected(&mask, &*device_of_tensor(&t, M)?, M)?;
    let n = idx.numel();
    if src.numel() < n {
        return Err(error(
            M,
            format!("source has {} elements, mask selects {}", src.numel(), n),
        ));
    }
    if n == 0 {
        return receiver(&a);
    }
    let flat = copy::contiguous(&src).named(M)?;
    Move::put(&t, &flat, &idx).and_then(|work| work.run(n)).named(M)?;
    receiver(&a)
}

/// `x:nonzero()` and `torch.nonzero([res,] x)`: a CudaLongTensor of the 1-based coordinates of
/// the elements that are not zero, one row each (read on the host).
fn nonzero(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "nonzero";
    let (src, res) = match Cuda::tensor_of(arg(&a, 2)) {
        Some(src) => (src, 1),
        None => (tensor_arg(&a, 1, M)?, 0),
    };
    let host = copy::to_host(&src).named(M)?;
    let (count, coords) = if host.numel() == 0 {
        (0, Vec::new())
    } else {
        dispatch!(host.dtype, T => nonzero_coords::<T>(&host, M))?
    };
    if res == 1 {
        check_long(&tensor_arg(&a, 1, M)?, M)?;
    }
    if count == 0 {
        return empty_result(lua, &a, res, DType::Long);
    }
    let size = [count, src.dim()];
    let (rv, r) = result(lua, &a, res, DType::Long, &size, &src, M)?;
    let coords = host_longs(&coords, &size).named(M)?;
    copy::from_host(&r, &coords).named(M)?;
    one(rv)
}

/// A result with no element: a new empty tensor, or the one at position 1 (`res`) made empty.
fn empty_result(lua: &Lua, a: &Args, res: usize, dtype: DType) -> Result<MultiValue> {
    let empty = Tensor::empty(dtype);
    if res == 0 {
        return one(Cuda::push_tensor(lua, empty)?);
    }
    Cuda::set_view(arg(a, 1), empty)?;
    receiver(a)
}

fn check_long(r: &Tensor, method: &str) -> Result<()> {
    if r.dtype != DType::Long {
        return Err(error(
            method,
            format!(
                "bad argument #1 (torch.CudaLongTensor expected, got {})",
                tensor_typename(r.dtype)
            ),
        ));
    }
    Ok(())
}

/// Adds the methods to the device classes' table (the torch.* forms are in
/// lua/cutorch/Tensor.lua, which call these).
pub fn install(lua: &Lua, tensor: &Table) -> Result<()> {
    calls::add(lua, tensor, "index", index)?;
    calls::add(lua, tensor, "indexCopy", index_copy)?;
    calls::add(lua, tensor, "indexAdd", index_add)?;
    calls::add(lua, tensor, "indexFill", index_fill)?;
    calls::add(lua, tensor, "gather", gather)?;
    calls::add(lua, tensor, "scatter", scatter)?;
    calls::add(lua, tensor, "scatterAdd", scatter_add)?;
    calls::add(lua, tensor, "maskedSelect", masked_select)?;
    calls::add(lua, tensor, "maskedCopy", masked_copy)?;
    calls::add(lua, tensor, "nonzero", nonzero)?;
    Ok(())
}
