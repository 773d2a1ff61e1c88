//! Sorting and selecting along a dimension of device tensors: `sort`, `topk`, `kthvalue`,
//! `median` and `mode`, with the host tensors' argument forms and results (torch/methods/reduce.rs:
//! `sort_method`, `topk_method`, `kthvalue_method`, `median_mode`).
//!
//! Every one of them sorts each lane (the elements along the dimension at one position of the
//! others) by (key, position), the host's order: `key` is the host's `Reduce::key` of the value
//! (complemented for decreasing order), and positions break ties, so the order is stable and equal
//! values, -0 and +0, and NaNs come out exactly as on the host. Then it reads what it needs from
//! the sorted lanes: all of them (sort), the first k (topk), the k-th (kthvalue, median), or the
//! longest run of one key (mode).
//!
//! The sort is a bitonic network on the device over work buffers of (key, position) pairs, one
//! row of P (a power of two) per lane: short steps run in shared memory, a block per chunk of
//! rows (`sort_block`), long ones a launch each (`sort_step`). The kernels are in
//! kernels/source.rs (`SORT_COMMON`, `SORT_PER_TYPE`).

use std::ffi::c_void;

use mlua::{Lua, MultiValue, Value};

use super::family::Cuda;
use super::kernels::{self, BLOCK, Geo, param};
use super::memory;
use super::ops;
use crate::torch::args::{self, Args, arg, error, type_name};
use crate::torch::construct;
use crate::torch::dtype::DType;
use crate::torch::family::Family;
use crate::torch::layout::Tensor;
use crate::torch::methods::reduce::{Classified, classify, integer, invalid};
use crate::torch::userdata::tensor_of;

/// Pairs a `sort_block` launch holds in shared memory (twice the threads of a block: a pair each).
const CHUNK: usize = 2 * BLOCK as usize;

/// Most blocks of a launch (kernels loop over the rest).
const MAX_GRID: u32 = 8192;

/// What to take from each sorted lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Every element in order.
    Sort,
    /// The k first in order.
    First(usize),
    /// The k-th (1-based) in order.
    Kth(usize),
    /// The most frequent value (the smallest among the most frequent), at its last position.
    Mode,
}

impl Pick {
    /// How many results a lane of `len` gives, and the first place of the sorted lane they start at.
    fn window(self, len: usize) -> (usize, usize) {
        match self {
            Pick::Sort => (len, 0),
            Pick::First(k) => (k, 0),
            Pick::Kth(k) => (1, k - 1),
            Pick::Mode => (1, 0),
        }
    }
}

/// The geometry of `t` with dimension `dim` moved last: logical index `row * n + c` is then
/// element `c` along `dim` of lane `row` (lanes in the order of the other dimensions).
fn dim_last(t: &Tensor, dim: usize, method: &str) -> Result<Geo, String> {
    let (mut size, mut stride) = (t.size.clone(), t.stride.clone());
    let (s, st) = (size.remove(dim), stride.remove(dim));
    size.push(s);
    stride.push(st);
    Geo::new(&size, &stride).map_err(|e| format!("{method}: {e}"))
}

/// Launches `name` over `grid` blocks, naming `method` in errors.
///
/// # Safety
/// As `kernels::launch`.
unsafe fn run(
    dev: &super::device::Device,
    name: &str,
    grid: u32,
    params: &mut [*mut c_void],
    method: &str,
) -> Result<(), String> {
    // SAFETY: as the caller promises.
    unsafe { kernels::launch(dev, name, grid, params) }.map_err(|e| format!("{method}: {e}"))
}

/// Sorts every lane of `x` along `dim` (decreasing when `desc`) and writes what `pick` takes from
/// each into `values` (x's type) and `indices` (Long, 1-based positions along `dim`), both sized as
/// `x` but with the pick's count along `dim`. The caller has checked the arguments (k in range, a
/// lane to take the median or mode of) and that the results do not overlap `x`.
pub fn per_lane(
    x: &Tensor,
    dim: usize,
    desc: bool,
    pick: Pick,
    values: &Tensor,
    indices: &Tensor,
    method: &str,
) -> Result<(), String> {
    let len = x.size[dim];
    let (count, start) = pick.window(len);
    let mut expect = x.size.clone();
    expect[dim] = count;
    if values.size != expect || indices.size != expect || values.dtype != x.dtype || indices.dtype != DType::Long {
        return Err(format!("{method}: internal error: results of the wrong size or type"));
    }
    if x.numel() == 0 || values.numel() == 0 {
        return Ok(());
    }
    if start + count > len {
        return Err(format!("{method}: internal error: picking past the end of a lane"));
    }
    let dev = ops::common_device(&[x, values, indices], method)?;
    let rows = x.numel() / len;
    let width = len.next_power_of_two();
    let total = rows
        .checked_mul(width)
        .ok_or_else(|| format!("{method}: the tensor is too large to sort"))?;
    // The keys (unsigned 64-bit on the device) and positions, a row of `width` per lane.
    let keys = memory::alloc(&dev, DType::Long, total)?;
    let positions = memory::alloc(&dev, DType::Long, total)?;
    let sfx = ops::suffix(x.dtype)?;
    let (mut pk, mut pp) = (memory::addr_of(&keys, 0)?, memory::addr_of(&positions, 0)?);
    let mut pa = ops::addr(x, method)?;
    let mut ga = dim_last(x, dim, method)?;
    let (mut n_total, mut p, mut l) = (total as i64, width as i64, len as i64);
    // Decreasing order is increasing order of the complemented keys (float keys are 32 bits).
    let mut flip: u64 = match (desc, x.dtype) {
        (false, _) => 0,
        (true, DType::Float) => u32::MAX as u64,
        (true, _) => u64::MAX,
    };
    let grid = kernels::grid_for(total, MAX_GRID);
    let mut params = [
        param(&mut n_total),
        param(&mut p),
        param(&mut l),
        param(&mut pa),
        param(&mut ga),
        param(&mut flip),
        param(&mut pk),
        param(&mut pp),
    ];
    // SAFETY: parameters as sort_init_*; `x` is checked against its storage and the buffers hold
    // `total` elements.
    unsafe { run(&dev, &format!("sort_init_{sfx}"), grid, &mut params, method)? };
    sort_rows(&dev, total, width, pk, pp, method)?;

    let mut pr = ops::addr(values, method)?;
    let mut pi = ops::addr(indices, method)?;
    let mut gr = dim_last(values, dim, method)?;
    let mut gi = dim_last(indices, dim, method)?;
    if pick == Pick::Mode {
        let mut n_rows = rows as i64;
        let mut params = [
            param(&mut n_rows),
            param(&mut p),
            param(&mut l),
            param(&mut pk),
            param(&mut pp),
            param(&mut pa),
            param(&mut ga),
            param(&mut pr),
            param(&mut gr),
            param(&mut pi),
            param(&mut gi),
        ];
        // SAFETY: parameters as sort_mode_*; a result per lane, each view checked.
        unsafe {
            run(
                &dev,
                &format!("sort_mode_{sfx}"),
                kernels::grid_for(rows, MAX_GRID),
                &mut params,
                method,
            )?
        };
    } else {
        let n = rows * count;
        let (mut n_out, mut k, mut first) = (n as i64, count as i64, start as i64);
        let mut params = [
            param(&mut n_out),
            param(&mut k),
            param(&mut first),
            param(&mut p),
            param(&mut l),
            param(&mut pp),
            param(&mut pa),
            param(&mut ga),
            param(&mut pr),
            param(&mut gr),
            param(&mut pi),
            param(&mut gi),
        ];
        // SAFETY: parameters as sort_out_*; start + count <= len, so every position read is a
        // sorted element of its row; the results are checked views of `count` per lane.
        unsafe {
            run(
                &dev,
                &format!("sort_out_{sfx}"),
                kernels::grid_for(n, MAX_GRID),
                &mut params,
                method,
            )?
        };
    }
    // The work buffers are freed when this returns, safely while the kernels run: see
    // memory::Release (a cached block is reused only after them, cuMemFree waits for them).
    Ok(())
}

/// Sorts the `total / width` rows of `width` (a power of two) pairs at `keys` and `positions` by
/// (key, position), increasing: the bitonic network, stage k merging sorted runs of k / 2 into
/// runs of k. Stages up to CHUNK run whole in one `sort_block` launch; each later one runs its
/// steps of distance CHUNK or more as `sort_step` launches and the rest in one `sort_block`.
fn sort_rows(
    dev: &super::device::Device,
    total: usize,
    width: usize,
    keys: u64,
    positions: u64,
    method: &str,
) -> Result<(), String> {
    if width < 2 {
        return Ok(());
    }
    let chunks = total.div_ceil(CHUNK).clamp(1, MAX_GRID as usize) as u32;
    let steps = kernels::grid_for(total, MAX_GRID);
    let block = |k0: usize, k1: usize, j0: usize| -> Result<(), String> {
        let (mut n, mut p, mut k0, mut k1, mut j0) = (total as i64, width as i64, k0 as i64, k1 as i64, j0 as i64);
        let (mut pk, mut pp) = (keys, positions);
        let mut params = [
            param(&mut n),
            param(&mut p),
            param(&mut k0),
            param(&mut k1),
            param(&mut j0),
            param(&mut pk),
            param(&mut pp),
        ];
        // SAFETY: parameters as sort_block; the buffers hold `total` pairs; j0 <= CHUNK / 2 and
        // j0 <= k0 / 2, so no step leaves a chunk or a row.
        unsafe { run(dev, "sort_block", chunks, &mut params, method) }
    };
    block(2, width.min(CHUNK), 1)?;
    let mut k = 2 * CHUNK;
    while k <= width {
        let mut j = k / 2;
        while j >= CHUNK {
            let (mut n, mut p, mut jj, mut kk) = (total as i64, width as i64, j as i64, k as i64);
            let (mut pk, mut pp) = (keys, positions);
            let mut params = [
                param(&mut n),
                param(&mut p),
                param(&mut jj),
                param(&mut kk),
                param(&mut pk),
                param(&mut pp),
            ];
            // SAFETY: parameters as sort_step; the buffers hold `total` pairs; j < width, so a
            // pair's partner is in its row.
            unsafe { run(dev, "sort_step", steps, &mut params, method)? };
            j /= 2;
        }
        block(k, k, CHUNK / 2)?;
        k *= 2;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Arguments, as the host's (torch/methods/reduce.rs) with device tensors.

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
                        ops::tensor_typename(want),
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

/// Whether the memory of two device tensors' storages overlaps.
fn overlaps(a: &Tensor, b: &Tensor) -> bool {
    let range = |t: &Tensor| {
        t.storage.as_ref().and_then(|s| {
            let base = s.device_addr()?;
            Some((base, base + (s.len() * s.dtype().size_of()) as u64))
        })
    };
    match (range(a), range(b)) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => false,
    }
}

/// A result: the caller's tensor resized to `size` (which is returned), or a new one on `dev`.
fn result(
    lua: &Lua,
    given: Option<&Arg>,
    dtype: DType,
    size: &[usize],
    dev: &super::device::Device,
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
            let t = ops::empty_like(dev, dtype, size).map_err(|e| lift(method, e))?;
            Ok((Cuda::push_tensor(lua, t.clone())?, t))
        }
    }
}

/// A Lua error from an operation's message, named after `method` if it is not already.
fn lift(method: &str, e: String) -> mlua::Error {
    if e.starts_with(method) {
        mlua::Error::RuntimeError(e)
    } else {
        error(method, e)
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
    let dev = ops::common_device(&[&x], method).map_err(|e| lift(method, e))?;
    let (vv, values) = result(lua, given_v, x.dtype, &size, &dev, method)?;
    let (iv, indices) = result(lua, given_i, DType::Long, &size, &dev, method)?;
    // Results that share memory with x are written after the kernels have read all of x.
    let staged = |t: &Tensor| -> mlua::Result<Option<Tensor>> {
        if overlaps(t, &x) {
            ops::empty_like(&dev, t.dtype, &t.size)
                .map(Some)
                .map_err(|e| lift(method, e))
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
        method,
    )
    .map_err(|e| lift(method, e))?;
    for (tmp, dst) in [(sv, &values), (si, &indices)] {
        if let Some(tmp) = tmp {
            ops::copy_device(dst, &tmp, method).map_err(|e| lift(method, e))?;
        }
    }
    Ok(MultiValue::from_vec(vec![vv, iv]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_take_the_right_window() {
        assert_eq!(Pick::Sort.window(7), (7, 0));
        assert_eq!(Pick::First(3).window(7), (3, 0));
        assert_eq!(Pick::Kth(4).window(7), (1, 3));
        assert_eq!(Pick::Mode.window(7), (1, 0));
    }

    #[test]
    fn the_sorted_dimension_goes_last() {
        // A 2x3x4 contiguous tensor sorted along dimension 1 (size 3): lanes of 3 elements 4
        // apart, lanes numbered over dimensions 0 and 2.
        let t = Tensor {
            dtype: DType::Float,
            storage: None,
            offset: 0,
            size: vec![2, 3, 4],
            stride: vec![12, 4, 1],
        };
        let g = format!("{:?}", dim_last(&t, 1, "sort").unwrap());
        assert!(g.starts_with("Geo { nd: 3, size: [2, 4, 3, 1,"), "{g}");
        assert!(g.contains("stride: [12, 1, 4, 0,"), "{g}");
    }
}
