//! Reductions of device tensors (tensor operations layer; see `kernels::source`'s reductions): of
//! every element to a number, along a dimension, the extremes with their positions along a
//! dimension, and the inclusive scans (cumulative sums and products).

use std::ffi::c_void;

use super::operands::{addr, common_device, not_on_long, suffix};
use crate::cuda::device::Device;
use crate::cuda::kernels::{self, Geo, param, source};
use crate::cuda::memory;
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;

fn reduction(op: &str, d: DType) -> Result<i32> {
    let (code, r) =
        source::reduction_op(op).ok_or_else(|| Error::argument(format!("internal error: no reduction {op}")))?;
    let defined = if d == DType::Long {
        r.long.is_some()
    } else {
        r.float.is_some()
    };
    if !defined {
        return Err(not_on_long());
    }
    Ok(code)
}

/// The accumulator type of reductions over `d`.
fn acc_type(d: DType) -> DType {
    if d == DType::Long { DType::Long } else { DType::Double }
}

/// Reduction `op` (see `source::Reduction`) of every element of `t` with parameter `p`.
pub fn reduce_all(op: &str, t: &Tensor, p: f64) -> Result<f64> {
    let mut code = reduction(op, t.dtype)?;
    let n = t.numel();
    let dev = common_device(&[t])?;
    let acc = acc_type(t.dtype);
    let sfx = suffix(t.dtype)?;
    let contiguous = n > 0 && t.is_contiguous();
    // A contiguous input is read in one wave of blocks (see kernels::wave).
    let cap = if contiguous {
        kernels::wave(&dev, &format!("red_partc_{sfx}"), 1024)
    } else {
        1024
    };
    let grid = kernels::grid_for(n.max(1), cap);
    let part = memory::alloc(&dev, acc, grid as usize)?;
    let out = memory::alloc(&dev, acc, 1)?;
    let (mut pa, mut pp, mut po) = (addr(t)?, memory::address(&part, 0)?, memory::address(&out, 0)?);
    let mut ga = if n == 0 { Geo::NONE } else { Geo::of(t)? };
    let (mut count, mut m, mut pv) = (n as i64, grid as i64, p);
    if contiguous {
        let mut params = [
            param(&mut code),
            param(&mut count),
            param(&mut pa),
            param(&mut pp),
            param(&mut pv),
        ];
        // SAFETY: parameters as red_partc_*; the input is a checked contiguous view of n
        // elements; `part` has `grid` slots.
        unsafe { kernels::launch(&dev, &format!("red_partc_{sfx}"), grid, &mut params)? };
    } else {
        let mut params = [
            param(&mut code),
            param(&mut count),
            param(&mut pa),
            param(&mut ga),
            param(&mut pp),
            param(&mut pv),
        ];
        // SAFETY: parameters as red_part_*; the input view is checked; `part` has `grid` slots.
        unsafe { kernels::launch(&dev, &format!("red_part_{sfx}"), grid, &mut params)? };
    }
    let mut params = [
        param(&mut code),
        param(&mut m),
        param(&mut pp),
        param(&mut po),
        param(&mut count),
        param(&mut pv),
    ];
    // SAFETY: parameters as red_fin_*; `out` has one slot.
    unsafe { kernels::launch(&dev, &format!("red_fin_{sfx}"), 1, &mut params)? };
    memory::read(&out, 0)
}

/// Shapes of a reduction along `dim`: (elements reduced, outputs, input stride along `dim`).
fn along(t: &Tensor, out: &Tensor, dim: usize) -> Result<(usize, usize, i64)> {
    let r = t.size[dim];
    let mut expect = t.size.clone();
    expect[dim] = 1;
    if out.size != expect {
        return Err(Error::shape("internal error: result of the wrong size"));
    }
    Ok((r, out.numel(), t.stride[dim] as i64))
}

/// Block per output when the reduced elements are adjacent in memory (reading them together is
/// fast) or when there are few outputs and long reductions; a thread per output otherwise
/// (neighbouring outputs are then neighbours in memory).
fn block_per_output(r: usize, nout: usize, rs: i64) -> bool {
    (rs == 1 && r >= 32) || (nout < 2048 && r >= 256)
}

/// Reduction `op` of `t` along `dim` into `out` (sized as `t` with `dim` of size 1).
pub fn reduce_dim(op: &str, out: &Tensor, t: &Tensor, dim: usize, p: f64) -> Result<()> {
    let mut code = reduction(op, t.dtype)?;
    let (r, nout, mut rs) = along(t, out, dim)?;
    if nout == 0 {
        return Ok(());
    }
    let dev = common_device(&[t, out])?;
    let mut gin = Geo::without(t, dim)?;
    let mut gr = Geo::without(out, dim)?;
    let (mut pa, mut pr) = (if r == 0 { 0 } else { addr(t)? }, addr(out)?);
    let (mut n_out, mut n_red, mut pv) = (nout as i64, r as i64, p);
    let mut params = [
        param(&mut code),
        param(&mut n_out),
        param(&mut n_red),
        param(&mut pa),
        param(&mut gin),
        param(&mut rs),
        param(&mut pr),
        param(&mut gr),
        param(&mut pv),
    ];
    // SAFETY: parameters as red_dim*; both views are checked against their storages.
    unsafe { launch_along(&dev, "red", t.dtype, r, nout, rs, &mut params) }
}

/// Launches the `kind` (red, arg or scan) kernel along a dimension that fits: a block per output
/// or a thread per output (see `block_per_output`).
///
/// # Safety
/// As `kernels::launch`, for the kernels `{kind}_dimb_*` and `{kind}_dimt_*`.
unsafe fn launch_along(
    dev: &Device,
    kind: &str,
    dtype: DType,
    r: usize,
    nout: usize,
    rs: i64,
    params: &mut [*mut c_void],
) -> Result<()> {
    let sfx = suffix(dtype)?;
    let (name, grid) = if block_per_output(r, nout, rs) {
        (format!("{kind}_dimb_{sfx}"), nout.clamp(1, 8192) as u32)
    } else {
        (format!("{kind}_dimt_{sfx}"), kernels::grid_for(nout, 8192))
    };
    // SAFETY: as the caller promises.
    unsafe { kernels::launch(dev, &name, grid, params) }
}

/// max (`is_min` false) or min of `t` along `dim` into `values` and the 1-based `indices` (a
/// device Long tensor), both sized as `t` with `dim` of size 1.
pub fn arg_reduce_dim(is_min: bool, values: &Tensor, indices: &Tensor, t: &Tensor, dim: usize) -> Result<()> {
    let (r, nout, mut rs) = along(t, values, dim)?;
    if indices.size != values.size || indices.dtype != DType::Long {
        return Err(Error::shape("internal error: indices of the wrong size or type"));
    }
    if nout == 0 {
        return Ok(());
    }
    if r == 0 {
        return Err(Error::shape("cannot reduce a dimension of size 0"));
    }
    let dev = common_device(&[t, values, indices])?;
    let mut gin = Geo::without(t, dim)?;
    let mut gr = Geo::without(values, dim)?;
    let mut gi = Geo::without(indices, dim)?;
    let (mut pa, mut pr, mut pi) = (addr(t)?, addr(values)?, addr(indices)?);
    let (mut which, mut n_out, mut n_red) = (is_min as i32, nout as i64, r as i64);
    let mut params = [
        param(&mut which),
        param(&mut n_out),
        param(&mut n_red),
        param(&mut pa),
        param(&mut gin),
        param(&mut rs),
        param(&mut pr),
        param(&mut gr),
        param(&mut pi),
        param(&mut gi),
    ];
    // SAFETY: parameters as arg_dim*; the views are checked against their storages.
    unsafe { launch_along(&dev, "arg", t.dtype, r, nout, rs, &mut params) }
}

/// Inclusive sums (`prod` false) or products of `t` along `dim` into `out` (of `t`'s sizes),
/// accumulated in double for floating types as the reductions are.
pub fn scan_dim(prod: bool, out: &Tensor, t: &Tensor, dim: usize) -> Result<()> {
    if out.size != t.size || out.dtype != t.dtype {
        return Err(Error::shape("internal error: result of the wrong size or type"));
    }
    let r = t.size[dim];
    let nout = t.numel().checked_div(r).unwrap_or(0);
    if nout == 0 {
        return Ok(());
    }
    let dev = common_device(&[t, out])?;
    let mut gin = Geo::without(t, dim)?;
    let mut gr = Geo::without(out, dim)?;
    let (mut pa, mut pr) = (addr(t)?, addr(out)?);
    let (mut op, mut n_out, mut n_red) = (prod as i32, nout as i64, r as i64);
    let (mut rs, mut rsr) = (t.stride[dim] as i64, out.stride[dim] as i64);
    let mut params = [
        param(&mut op),
        param(&mut n_out),
        param(&mut n_red),
        param(&mut pa),
        param(&mut gin),
        param(&mut rs),
        param(&mut pr),
        param(&mut gr),
        param(&mut rsr),
    ];
    // SAFETY: parameters as scan_dim*; both views are checked against their storages, and a
    // lane's elements are read before they are written when out is t.
    unsafe { launch_along(&dev, "scan", t.dtype, r, nout, rs, &mut params) }
}

/// Whether any element of an integer tensor is zero (before dividing by it).
pub fn has_zero(t: &Tensor) -> Result<bool> {
    Ok(t.numel() > 0 && reduce_all("zeros", t, 0.0)? > 0.0)
}
