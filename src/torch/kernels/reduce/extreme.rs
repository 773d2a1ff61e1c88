//! Max and min, of a whole tensor and along a dimension: Torch's rule (the first extreme wins,
//! the first NaN sticks), in loops that vectorise (independent lanes with NaN flags; values and
//! positions in separate arrays), also compiled for AVX2.

use super::accumulate::{Reduce, has_avx2};
use super::plan::{Plan, data, result_like, scatter};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::{Runs, each_run_in_memory_order, offsets_or_single};

/// Torch's max/min update rule: the first extreme wins, and the first NaN sticks.
#[inline(always)]
fn beats<T: Reduce, const MAX: bool>(v: T, cur: T) -> bool {
    if cur.is_nan() {
        return false;
    }
    // cur is a number: v beats it when larger (smaller) or NaN.
    if MAX {
        v > cur || v.is_nan()
    } else {
        v < cur || v.is_nan()
    }
}

#[inline(always)]
fn pick<T: Reduce, const MAX: bool>(v: T, cur: T) -> T {
    if (MAX && v > cur) || (!MAX && v < cur) { v } else { cur }
}

/// The extreme non-NaN value of a non-empty slice and whether it holds a NaN; independent lanes
/// (and a NaN flag per lane) so that the loop vectorises.
#[inline(always)]
fn extreme_slice_impl<T: Reduce, const MAX: bool>(s: &[T]) -> (T, bool) {
    let mut acc = [s[0]; 8];
    let mut nan = [false; 8];
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        for i in 0..8 {
            acc[i] = pick::<T, MAX>(c[i], acc[i]);
            nan[i] |= c[i].is_nan();
        }
    }
    let mut has_nan = nan.iter().any(|&b| b);
    let mut best = acc[0];
    for &v in &acc[1..] {
        best = pick::<T, MAX>(v, best);
    }
    for &v in chunks.remainder() {
        best = pick::<T, MAX>(v, best);
        has_nan |= v.is_nan();
    }
    (best, has_nan)
}

/// The extreme non-NaN value of a lane (`n >= 1`) and whether it holds a NaN.
///
/// # Safety
/// The elements must be readable.
pub unsafe fn extreme_lane<T: Reduce, const MAX: bool>(q: *const T, n: usize, st: usize) -> (T, bool) {
    if st == 1 {
        let s = unsafe { std::slice::from_raw_parts(q, n) };
        #[cfg(target_arch = "x86_64")]
        if n >= 64 && has_avx2() {
            // SAFETY: the CPU has AVX2.
            return unsafe { avx2::extreme_slice::<T, MAX>(s) };
        }
        return extreme_slice_impl::<T, MAX>(s);
    }
    let mut best = unsafe { *q };
    let mut has_nan = false;
    for i in 0..n {
        let v = unsafe { *q.add(i * st) };
        best = pick::<T, MAX>(v, best);
        has_nan |= v.is_nan();
    }
    (best, has_nan)
}

/// The max (min) of every element as a number, NaN when one is NaN.
pub fn extreme_all<T: Reduce, const MAX: bool>(x: &Tensor) -> Result<f64> {
    if x.numel() == 0 {
        return Err(Error::shape("empty tensor"));
    }
    let p = data::<T>(x)?;
    let mut best: Option<T> = None;
    let mut has_nan = false;
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run_in_memory_order(p, x, |q, n, st| {
            let (v, nan) = extreme_lane::<T, MAX>(q, n, st);
            has_nan |= nan;
            best = Some(match best {
                Some(b) if !((MAX && v > b) || (!MAX && v < b)) => b,
                _ => v,
            });
        })
    };
    Ok(if has_nan {
        f64::NAN
    } else {
        best.map_or(f64::NAN, |b| b.to_f64())
    })
}

/// Max (min) along `dim`: the values and their 1-based positions, size 1 along `dim`.
pub fn extreme_dim<T: Reduce, const MAX: bool>(x: &Tensor, dim: usize) -> Result<(Tensor, Tensor)> {
    let vals = result_like(T::DTYPE, x, dim, 1)?;
    let idx = result_like(DType::Long, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok((vals, idx));
    }
    if plan.n == 0 {
        return Err(Error::shape("cannot reduce a dimension of size 0"));
    }
    let p = data::<T>(x)?;
    // Positions as u32 in the slab walk: the same width as float32 values, so that the update
    // vectorises (a longer dimension walks lane by lane).
    let slabs = plan.slabs.as_ref().filter(|_| plan.n <= u32::MAX as usize);
    // SAFETY: p is x's data, checked above.
    let (best, pos): (Vec<T>, Vec<usize>) = unsafe {
        match slabs {
            Some(r) => {
                let mut best = vec![T::zero(); plan.m];
                let mut pos = vec![0u32; plan.m];
                #[cfg(target_arch = "x86_64")]
                if has_avx2() {
                    avx2::slab_extreme::<T, MAX>(&plan, r, p, &mut best, &mut pos);
                } else {
                    slab_extreme::<T, MAX>(&plan, r, p, &mut best, &mut pos);
                }
                #[cfg(not(target_arch = "x86_64"))]
                slab_extreme::<T, MAX>(&plan, r, p, &mut best, &mut pos);
                (best, pos.into_iter().map(|k| k as usize).collect())
            }
            None => offsets_or_single(&plan.rest)
                .map(|start| lane_extreme::<T, MAX>(p.add(start), plan.n, plan.st))
                .unzip(),
        }
    };
    // SAFETY: vals and idx are fresh.
    unsafe {
        scatter(&plan, &vals, best.into_iter());
        scatter(&plan, &idx, pos.into_iter().map(|k| k as i64 + 1));
    }
    Ok((vals, idx))
}

/// Torch's max/min of a lane (`n >= 1`) with its position: the first extreme, or the first NaN.
///
/// # Safety
/// The elements must be readable.
unsafe fn lane_extreme<T: Reduce, const MAX: bool>(q: *const T, n: usize, st: usize) -> (T, usize) {
    if st == 1 {
        // Two vectorised passes: the value, then where it first occurs.
        let s = unsafe { std::slice::from_raw_parts(q, n) };
        let (v, has_nan) = unsafe { extreme_lane::<T, MAX>(q, n, 1) };
        let i = if has_nan {
            s.iter().position(|x| x.is_nan())
        } else {
            s.iter().position(|&x| x == v)
        };
        let i = i.unwrap_or(0);
        return (s[i], i);
    }
    let mut b = (unsafe { *q }, 0);
    for i in 1..n {
        let v = unsafe { *q.add(i * st) };
        if beats::<T, MAX>(v, b.0) {
            b = (v, i);
        }
    }
    b
}

/// Max/min slab by slab, values and positions in separate arrays so that the update vectorises.
///
/// # Safety
/// As for `Plan::fold`; `r` are the runs of slab 0; `vals` and `pos` have one element per lane.
#[inline(always)]
unsafe fn slab_extreme<T: Reduce, const MAX: bool>(
    plan: &Plan,
    r: &Runs,
    p: *const T,
    vals: &mut [T],
    pos: &mut [u32],
) {
    for k in 0..plan.n {
        for (ri, &s) in r.starts.iter().enumerate() {
            let j0 = ri * r.len;
            let vs = &mut vals[j0..j0 + r.len];
            let ps = &mut pos[j0..j0 + r.len];
            let q = unsafe { p.add(s + k * plan.st) };
            if k == 0 {
                for (i, v) in vs.iter_mut().enumerate() {
                    *v = unsafe { *q.add(i * r.stride) };
                }
                continue;
            }
            let update = |v: &mut T, p: &mut u32, x: T| {
                let b = beats::<T, MAX>(x, *v);
                *v = if b { x } else { *v };
                *p = if b { k as u32 } else { *p };
            };
            if r.stride == 1 {
                let src = unsafe { std::slice::from_raw_parts(q, r.len) };
                for ((v, p), &x) in vs.iter_mut().zip(ps.iter_mut()).zip(src) {
                    update(v, p, x);
                }
            } else {
                for (i, (v, p)) in vs.iter_mut().zip(ps.iter_mut()).enumerate() {
                    update(v, p, unsafe { *q.add(i * r.stride) });
                }
            }
        }
    }
}

/// AVX2 builds of the hot loops: each wraps an `#[inline(always)]` kernel, which is compiled
/// inside it with AVX2 enabled. Callers check `has_avx2()` first.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;

    #[target_feature(enable = "avx2")]
    pub(super) fn extreme_slice<T: Reduce, const MAX: bool>(s: &[T]) -> (T, bool) {
        extreme_slice_impl::<T, MAX>(s)
    }

    /// # Safety
    /// As for `super::slab_extreme`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn slab_extreme<T: Reduce, const MAX: bool>(
        plan: &Plan,
        r: &Runs,
        p: *const T,
        vals: &mut [T],
        pos: &mut [u32],
    ) {
        unsafe { super::slab_extreme::<T, MAX>(plan, r, p, vals, pos) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_lane_flags_nan() {
        let v = [1.0f64, 5.0, f64::NAN, 2.0, 3.0, 0.0, -1.0, 9.0, 4.0];
        let (m, nan) = unsafe { extreme_lane::<f64, true>(v.as_ptr(), v.len(), 1) };
        assert_eq!((m, nan), (9.0, true));
        let (m, nan) = unsafe { extreme_lane::<f64, false>(v.as_ptr(), 3, 2) };
        assert_eq!((m, nan), (1.0, true));
        let (m, nan) = unsafe { extreme_lane::<i32, false>([3, -2, 7].as_ptr(), 3, 1) };
        assert_eq!((m, nan), (-2, false));
    }
}
