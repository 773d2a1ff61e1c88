//! Sorting along a dimension of device tensors (tensor operations layer), what `sort`, `topk`,
//! `kthvalue`, `median` and `mode` are made of: each lane (the elements along the dimension at one
//! position of the others) is sorted by (key, position), the host's order: `key` is the host's
//! `Reduce::key` of the value (complemented for decreasing order), and positions break ties, so the
//! order is stable and equal values, -0 and +0, and NaNs come out exactly as on the host. Then what
//! is needed is read from the sorted lanes: all of them (sort), the first k (topk), the k-th
//! (kthvalue, median), or the longest run of one key (mode).
//!
//! The sort is a bitonic network on the device over work buffers of (key, position) pairs, one
//! row of P (a power of two) per lane: short steps run in shared memory, a block per chunk of
//! rows (`sort_block`), long ones a launch each (`sort_step`). The kernels are in
//! `kernels::source::sort`.

use super::operands::{addr, common_device, suffix};
use crate::cuda::device::Device;
use crate::cuda::kernels::{self, BLOCK, Geo, param};
use crate::cuda::memory;
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;

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
    pub fn window(self, len: usize) -> (usize, usize) {
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
fn dim_last(t: &Tensor, dim: usize) -> Result<Geo> {
    let (mut size, mut stride) = (t.size.clone(), t.stride.clone());
    let (s, st) = (size.remove(dim), stride.remove(dim));
    size.push(s);
    stride.push(st);
    Geo::new(&size, &stride)
}

/// Sorts every lane of `x` along `dim` (decreasing when `desc`) and writes what `pick` takes from
/// each into `values` (x's type) and `indices` (Long, 1-based positions along `dim`), both sized as
/// `x` but with the pick's count along `dim`. The caller has checked the arguments (k in range, a
/// lane to take the median or mode of) and that the results do not overlap `x`.
pub fn per_lane(x: &Tensor, dim: usize, desc: bool, pick: Pick, values: &Tensor, indices: &Tensor) -> Result<()> {
    let len = x.size[dim];
    let (count, start) = pick.window(len);
    let mut expect = x.size.clone();
    expect[dim] = count;
    if values.size != expect || indices.size != expect || values.dtype != x.dtype || indices.dtype != DType::Long {
        return Err(Error::shape("internal error: results of the wrong size or type"));
    }
    if x.numel() == 0 || values.numel() == 0 {
        return Ok(());
    }
    if start + count > len {
        return Err(Error::shape("internal error: picking past the end of a lane"));
    }
    let dev = common_device(&[x, values, indices])?;
    let rows = x.numel() / len;
    let width = len.next_power_of_two();
    let total = rows
        .checked_mul(width)
        .ok_or_else(|| Error::shape("the tensor is too large to sort"))?;
    // The keys (unsigned 64-bit on the device) and positions, a row of `width` per lane.
    let keys = memory::alloc(&dev, DType::Long, total)?;
    let positions = memory::alloc(&dev, DType::Long, total)?;
    let sfx = suffix(x.dtype)?;
    let (mut pk, mut pp) = (memory::address(&keys, 0)?, memory::address(&positions, 0)?);
    let mut pa = addr(x)?;
    let mut ga = dim_last(x, dim)?;
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
    unsafe { kernels::launch(&dev, &format!("sort_init_{sfx}"), grid, &mut params)? };
    sort_rows(&dev, total, width, pk, pp)?;

    let mut pr = addr(values)?;
    let mut pi = addr(indices)?;
    let mut gr = dim_last(values, dim)?;
    let mut gi = dim_last(indices, dim)?;
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
            kernels::launch(
                &dev,
                &format!("sort_mode_{sfx}"),
                kernels::grid_for(rows, MAX_GRID),
                &mut params,
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
            kernels::launch(
                &dev,
                &format!("sort_out_{sfx}"),
                kernels::grid_for(n, MAX_GRID),
                &mut params,
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
fn sort_rows(dev: &Device, total: usize, width: usize, keys: u64, positions: u64) -> Result<()> {
    if width < 2 {
        return Ok(());
    }
    let chunks = total.div_ceil(CHUNK).clamp(1, MAX_GRID as usize) as u32;
    let steps = kernels::grid_for(total, MAX_GRID);
    let block = |k0: usize, k1: usize, j0: usize| -> Result<()> {
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
        unsafe { kernels::launch(dev, "sort_block", chunks, &mut params) }
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
            unsafe { kernels::launch(dev, "sort_step", steps, &mut params)? };
            j /= 2;
        }
        block(k, k, CHUNK / 2)?;
        k *= 2;
    }
    Ok(())
}

/// Whether the memory of two device tensors' storages overlaps.
pub fn overlaps(a: &Tensor, b: &Tensor) -> bool {
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
        let g = format!("{:?}", dim_last(&t, 1).unwrap());
        assert!(g.starts_with("Geo { nd: 3, size: [2, 4, 3, 1,"), "{g}");
        assert!(g.contains("stride: [12, 1, 4, 0,"), "{g}");
    }
}
