//! Reductions (sum, prod, mean, max, min, var, std, norm, dist, all, any), cumulative ops (cumsum,
//! cumprod), renorm, and the order statistics (sort, topk, kthvalue, median, mode): tensor methods
//! and `torch.*` functions with Torch7's argument forms (as its cwrap declarations resolve them)
//! and results.
//!
//! Results, as in Torch:
//! - With no dimension, sum/prod/mean/var/std/norm/dist return a Lua number accumulated in Torch's
//!   `accreal`: double for Float and Double, a 64-bit integer for the integer types (wrapping on
//!   overflow, as C's `long` does in practice). max/min return the element itself as a number;
//!   all/any (ByteTensor only, as in Torch) return a boolean.
//! - Along a dimension the result has the input's type and keeps the dimension with size 1; max,
//!   min, kthvalue, median and mode also return a LongTensor of 1-based indices. Integer results
//!   along a dimension are the `accreal` total cast back (a ByteTensor sum wraps modulo 256).
//! - mean, var, std, norm, renorm and dist exist for Float and Double tensors only, as in Torch;
//!   on the integer types they raise an error naming the method.
//! - `median` is the lower median (element (n+1)/2 in sorted order); `sort` is stable; `topk` with
//!   no `sort` flag still returns its k elements in sorted order (Torch leaves that order
//!   unspecified). NaN counts as larger than every number: sort puts NaNs last (first when
//!   descending) and max/min return NaN when a NaN is present, with the index of the first NaN.
//! - var/std use a two-pass (mean, then squared deviations) sum, more accurate than Torch's
//!   sum-of-squares formula; the unbiased estimate of one element is NaN, as in Torch.
//! - `norm(0)` counts the non-zero elements, `norm(math.huge)` is the largest absolute value;
//!   `dist(a, b, p)` is `norm(a - b, p)`.
//!
//! Speed: sums of contiguous runs use 16 independent double accumulators (so the loop vectorises)
//! over blocks of 2048 elements whose sums are combined pairwise: float32 and float64 sums are
//! memory-bound and at least as accurate as NumPy's pairwise sum. float32 accumulates in double,
//! Torch's `accreal` (the conversion is free in a memory-bound loop, and the result needs no
//! compensation). The crate targets baseline x86-64, so the hot loops also exist compiled for AVX2
//! and are picked at run time, as NumPy does. Reductions along a dimension walk either lane by lane
//! (when the reduced dimension is the innermost in memory) or slab by slab into per-lane
//! accumulators (otherwise), so memory is read in order; neither allocates per element. Sorting
//! works on integer keys in the order of the values (NaN last), packed with the position into one
//! u64 for types of 32 bits or less, with an LSD radix sort for long lanes.

use std::ops::Range;

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::{add, one, receiver};
use crate::dispatch;
use crate::torch::apply::{Geometry, Offsets};
use crate::torch::args::{self, Args, error};
use crate::torch::construct;
use crate::torch::dtype::{DType, Element};
use crate::torch::layout::Tensor;
use crate::torch::methods::copy::{clone_tensor, copy_into};
use crate::torch::userdata::{push_tensor, set_view, tensor_of};

// ------------------------------------------------------------------------------------------------
// Element arithmetic

/// Accumulation as Torch does it (`accreal`), plus the vectorised slice kernels.
trait Reduce: Element {
    type Acc: Copy + std::fmt::Debug;
    const ACC_ZERO: Self::Acc;
    const ACC_ONE: Self::Acc;
    fn widen(self) -> Self::Acc;
    fn acc_add(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    fn acc_mul(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The C cast of an accumulated value back to the element type.
    fn narrow(a: Self::Acc) -> Self;
    fn acc_to_f64(a: Self::Acc) -> f64;
    fn sum_slice(s: &[Self]) -> Self::Acc;
    fn is_nan(self) -> bool;
    /// Whether `key` needs more than 32 bits.
    const WIDE_KEY: bool;
    /// An unsigned key in the order of the values, NaN above every number (all NaNs equal, and
    /// -0 equal to +0): sorting keys sorts values.
    fn key(self) -> u64;
}

macro_rules! int_reduce {
    ($($t:ty: $wide:expr),*) => {$(
        impl Reduce for $t {
            const WIDE_KEY: bool = $wide;
            #[inline(always)]
            fn key(self) -> u64 {
                if $wide {
                    (self as u64) ^ (1 << 63)
                } else {
                    // Offset into 0..2^32: every narrow integer type fits.
                    (self as i64 + 0x8000_0000) as u64
                }
            }
            type Acc = i64;
            const ACC_ZERO: i64 = 0;
            const ACC_ONE: i64 = 1;
            #[inline(always)]
            fn widen(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn acc_add(a: i64, b: i64) -> i64 {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn acc_mul(a: i64, b: i64) -> i64 {
                a.wrapping_mul(b)
            }
            #[inline(always)]
            fn narrow(a: i64) -> Self {
                a as $t
            }
            #[inline(always)]
            fn acc_to_f64(a: i64) -> f64 {
                a as f64
            }
            fn sum_slice(s: &[$t]) -> i64 {
                // Integer addition is associative: independent lanes vectorise and are exact.
                let mut acc = [0i64; 8];
                let mut chunks = s.chunks_exact(8);
                for c in &mut chunks {
                    for i in 0..8 {
                        acc[i] = acc[i].wrapping_add(c[i] as i64);
                    }
                }
                let tail = chunks.remainder().iter().fold(0i64, |a, &v| a.wrapping_add(v as i64));
                acc.iter().fold(tail, |a, &v| a.wrapping_add(v))
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                false
            }
        }
    )*};
}

macro_rules! float_reduce {
    ($($t:ty: $bits:ty),*) => {$(
        impl Reduce for $t {
            const WIDE_KEY: bool = <$bits>::BITS > 32;
            #[inline(always)]
            fn key(self) -> u64 {
                if self.is_nan() {
                    return <$bits>::MAX as u64;
                }
                // -0 and +0 compare equal: one key for both.
                let v = if self == 0.0 { 0.0 } else { self };
                let b = v.to_bits();
                let sign = 1 << (<$bits>::BITS - 1);
                // Negative numbers: larger magnitudes are smaller; positive ones above them all.
                (if b & sign != 0 { !b } else { b | sign }) as u64
            }
            type Acc = f64;
            const ACC_ZERO: f64 = 0.0;
            const ACC_ONE: f64 = 1.0;
            #[inline(always)]
            fn widen(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn acc_add(a: f64, b: f64) -> f64 {
                a + b
            }
            #[inline(always)]
            fn acc_mul(a: f64, b: f64) -> f64 {
                a * b
            }
            #[inline(always)]
            fn narrow(a: f64) -> Self {
                a as $t
            }
            #[inline(always)]
            fn acc_to_f64(a: f64) -> f64 {
                a
            }
            fn sum_slice(s: &[$t]) -> f64 {
                pairwise_map_sum(s, |v| v as f64)
            }
            #[inline(always)]
            #[allow(clippy::eq_op)]
            fn is_nan(self) -> bool {
                self != self
            }
        }
    )*};
}

int_reduce!(u8: false, i8: false, i16: false, i32: false, i64: true);
float_reduce!(f32: u32, f64: u64);

const SUM_LANES: usize = 16;
/// Elements summed by one set of lane accumulators before blocks are combined pairwise.
const SUM_BLOCK: usize = 2048;

/// Sum of `map(v)` over a block: independent accumulators, so the loop vectorises.
#[inline(always)]
fn block_map_sum<T: Copy>(s: &[T], map: impl Fn(T) -> f64 + Copy) -> f64 {
    let mut acc = [0f64; SUM_LANES];
    let mut chunks = s.chunks_exact(SUM_LANES);
    for c in &mut chunks {
        for i in 0..SUM_LANES {
            acc[i] += map(c[i]);
        }
    }
    let mut tail = 0.0;
    for &v in chunks.remainder() {
        tail += map(v);
    }
    let mut w = SUM_LANES;
    while w > 1 {
        w /= 2;
        for i in 0..w {
            acc[i] += acc[i + w];
        }
    }
    acc[0] + tail
}

/// Pairwise sum of `map(v)`: block sums are combined like a binary counter (two partial sums of
/// the same size are added together), so the rounding error grows with log(n), not n. Iterative,
/// so that the whole kernel compiles inside one function (see `avx2`).
#[inline(always)]
fn pairwise_map_sum_impl<T: Copy>(s: &[T], map: impl Fn(T) -> f64 + Copy) -> f64 {
    let mut stack = [(0f64, 0u32); 64];
    let mut top = 0;
    for block in s.chunks(SUM_BLOCK) {
        let mut v = block_map_sum(block, map);
        let mut level = 0;
        while top > 0 && stack[top - 1].1 == level {
            top -= 1;
            v += stack[top].0;
            level += 1;
        }
        stack[top] = (v, level);
        top += 1;
    }
    stack[..top].iter().rev().fold(0.0, |acc, &(v, _)| acc + v)
}

fn pairwise_map_sum<T: Copy>(s: &[T], map: impl Fn(T) -> f64 + Copy) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if s.len() >= 64 && has_avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2::pairwise_map_sum(s, map) };
    }
    pairwise_map_sum_impl(s, map)
}

/// Whether the CPU has AVX2. The crate is built for baseline x86-64, whose SSE2 vectors are half
/// as wide, so the hot loops also exist compiled for AVX2 and are chosen at run time (the check
/// is a cached flag).
#[inline(always)]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// AVX2 builds of the hot loops: each wraps an `#[inline(always)]` kernel, which is compiled
/// inside it with AVX2 enabled. Callers check `has_avx2()` first.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;

    #[target_feature(enable = "avx2")]
    pub(super) fn pairwise_map_sum<T: Copy>(s: &[T], map: impl Fn(T) -> f64 + Copy) -> f64 {
        pairwise_map_sum_impl(s, map)
    }

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

    /// # Safety
    /// As for `Plan::slab_fold`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn slab_fold<T: Element, A: Copy>(
        plan: &Plan,
        r: &Runs,
        p: *const T,
        acc: &mut [A],
        step: impl Fn(&mut A, T, usize, usize),
    ) {
        unsafe { plan.slab_fold(r, p, acc, step) }
    }
}

/// Sum of `map(v)` over `n` elements from `q` with stride `st`.
///
/// # Safety
/// The elements must be readable.
#[inline]
unsafe fn map_sum<T: Copy>(q: *const T, n: usize, st: usize, map: impl Fn(T) -> f64 + Copy) -> f64 {
    if st == 1 {
        return pairwise_map_sum(unsafe { std::slice::from_raw_parts(q, n) }, map);
    }
    let mut acc = [0f64; 4];
    let mut i = 0;
    while i + 4 <= n {
        for (l, a) in acc.iter_mut().enumerate() {
            *a += map(unsafe { *q.add((i + l) * st) });
        }
        i += 4;
    }
    while i < n {
        acc[0] += map(unsafe { *q.add(i * st) });
        i += 1;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Sum (or product) of a lane in `accreal`.
///
/// # Safety
/// The elements must be readable.
unsafe fn acc_lane<T: Reduce>(q: *const T, n: usize, st: usize, prod: bool) -> T::Acc {
    if !prod && st == 1 {
        return T::sum_slice(unsafe { std::slice::from_raw_parts(q, n) });
    }
    let mut a = if prod { T::ACC_ONE } else { T::ACC_ZERO };
    for i in 0..n {
        let v = unsafe { *q.add(i * st) }.widen();
        a = if prod { T::acc_mul(a, v) } else { T::acc_add(a, v) };
    }
    a
}

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
unsafe fn extreme_lane<T: Reduce, const MAX: bool>(q: *const T, n: usize, st: usize) -> (T, bool) {
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

/// A lane element while sorting: its value's key and its position, ordered by key then
/// position, so that an unstable sort of items is a stable sort of values. Narrow keys pack with
/// the position into one u64, which sorts fastest.
trait LaneItem: Ord + Copy {
    fn new(key: u64, pos: usize) -> Self;
    fn key(self) -> u64;
    fn pos(self) -> usize;
}

impl LaneItem for u64 {
    #[inline(always)]
    fn new(key: u64, pos: usize) -> u64 {
        (key << 32) | pos as u64
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self >> 32
    }
    #[inline(always)]
    fn pos(self) -> usize {
        (self & 0xFFFF_FFFF) as usize
    }
}

impl LaneItem for (u64, usize) {
    #[inline(always)]
    fn new(key: u64, pos: usize) -> Self {
        (key, pos)
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn pos(self) -> usize {
        self.1
    }
}

/// What to take from each sorted lane.
#[derive(Clone, Copy)]
enum Pick {
    /// Every element in order.
    Sort,
    /// The k first in order.
    First(usize),
    /// The k-th (1-based) in order.
    Kth(usize),
    /// The most frequent value.
    Mode,
}

/// Lanes at least this long are sorted by radix rather than by comparisons (measured: shorter
/// ones sort as fast with pattern-defeating quicksort).
const RADIX_MIN: usize = 1 << 16;
const RADIX_BITS: u32 = 11;

/// Sorts items by key, stably (LSD radix: positions, already increasing, stay in order among
/// equal keys), ping-ponging with `scratch`. Digits on which every key agrees are skipped.
fn radix_sort<I: LaneItem>(data: &mut [I], scratch: &mut Vec<I>, key_bits: u32) {
    const BUCKETS: usize = 1 << RADIX_BITS;
    let n = data.len();
    scratch.clear();
    scratch.resize(n, I::new(0, 0));
    let mut in_scratch = false;
    let mut shift = 0;
    while shift < key_bits {
        let (src, dst): (&[I], &mut [I]) = if in_scratch {
            (&scratch[..], &mut *data)
        } else {
            (&*data, &mut scratch[..])
        };
        let sh = shift;
        let digit = move |it: I| ((it.key() >> sh) as usize) & (BUCKETS - 1);
        let mut count = [0usize; BUCKETS];
        for &it in src {
            count[digit(it)] += 1;
        }
        shift += RADIX_BITS;
        if count.contains(&n) {
            continue;
        }
        let mut next = 0;
        for c in count.iter_mut() {
            let here = *c;
            *c = next;
            next += here;
        }
        for &it in src {
            let d = digit(it);
            dst[count[d]] = it;
            count[d] += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        data.copy_from_slice(&scratch[..n]);
    }
}

/// Sorts items by (key, position).
fn sort_items<I: LaneItem>(data: &mut [I], scratch: &mut Vec<I>, key_bits: u32) {
    if data.len() >= RADIX_MIN {
        radix_sort(data, scratch, key_bits);
    } else {
        data.sort_unstable();
    }
}

impl Pick {
    /// Reorders a lane's items (using `scratch` as room) and returns the range to output.
    fn apply<I: LaneItem>(self, buf: &mut [I], scratch: &mut Vec<I>, key_bits: u32) -> Range<usize> {
        match self {
            Pick::Sort => {
                sort_items(buf, scratch, key_bits);
                0..buf.len()
            }
            Pick::First(k) => {
                if k < buf.len() {
                    buf.select_nth_unstable(k - 1);
                }
                sort_items(&mut buf[..k], scratch, key_bits);
                0..k
            }
            Pick::Kth(k) => {
                buf.select_nth_unstable(k - 1);
                k - 1..k
            }
            Pick::Mode => {
                sort_items(buf, scratch, key_bits);
                // The longest run of equal values, the smallest value on ties; its last element
                // (the value's last position: the order is stable) is the answer, as Torch
                // reports it.
                let (mut best_end, mut best_len, mut start) = (0, 0, 0);
                for i in 0..buf.len() {
                    if i + 1 == buf.len() || buf[i].key() != buf[i + 1].key() {
                        if i + 1 - start > best_len {
                            best_len = i + 1 - start;
                            best_end = i;
                        }
                        start = i + 1;
                    }
                }
                best_end..best_end + 1
            }
        }
    }
}

/// The p-norm family, with the exponents that have a cheaper exact form.
#[derive(Clone, Copy)]
enum Norm {
    /// p = 0: the number of non-zero elements.
    Count,
    Abs,
    Square,
    /// p = inf: the largest absolute value.
    Max,
    Pow(f64),
}

impl Norm {
    fn of(p: f64) -> Norm {
        if p == 0.0 {
            Norm::Count
        } else if p == 1.0 {
            Norm::Abs
        } else if p == 2.0 {
            Norm::Square
        } else if p == f64::INFINITY {
            Norm::Max
        } else {
            Norm::Pow(p)
        }
    }

    fn finish(self, acc: f64) -> f64 {
        match self {
            Norm::Square => acc.sqrt(),
            Norm::Pow(p) => acc.powf(1.0 / p),
            _ => acc,
        }
    }

    /// Accumulates a lane.
    ///
    /// # Safety
    /// The elements must be readable.
    unsafe fn lane<T: Element>(self, q: *const T, n: usize, st: usize) -> f64 {
        unsafe {
            match self {
                Norm::Count => map_sum(q, n, st, |v: T| (v.to_f64() != 0.0) as u8 as f64),
                Norm::Abs => map_sum(q, n, st, |v: T| v.to_f64().abs()),
                Norm::Square => map_sum(q, n, st, |v: T| {
                    let x = v.to_f64();
                    x * x
                }),
                Norm::Pow(p) => map_sum(q, n, st, move |v: T| v.to_f64().abs().powf(p)),
                Norm::Max => (0..n).fold(0.0, |m: f64, i| m.max((*q.add(i * st)).to_f64().abs())),
            }
        }
    }

    #[inline(always)]
    fn step(self, acc: f64, v: f64) -> f64 {
        match self {
            Norm::Count => acc + (v != 0.0) as u8 as f64,
            Norm::Abs => acc + v.abs(),
            Norm::Square => acc + v * v,
            Norm::Pow(p) => acc + v.abs().powf(p),
            Norm::Max => acc.max(v.abs()),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Walking tensors

/// `x` with its dimensions taken in the order `perm` (a subset: the others are dropped, which is
/// only meaningful for views at one position along them).
fn permuted(x: &Tensor, perm: &[usize]) -> Tensor {
    Tensor {
        dtype: x.dtype,
        storage: x.storage.clone(),
        offset: x.offset,
        size: perm.iter().map(|&d| x.size[d]).collect(),
        stride: perm.iter().map(|&d| x.stride[d]).collect(),
    }
}

/// Dimensions of `x` (except `skip`) by decreasing stride: walking them in this order reads
/// memory in order.
fn memory_order(x: &Tensor, skip: Option<usize>) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..x.dim()).filter(|&d| Some(d) != skip).collect();
    perm.sort_by(|&a, &b| x.stride[b].cmp(&x.stride[a]));
    perm
}

/// Element offsets of a view in logical order; a view with no dimension is one element (the
/// kept part of a 1-D tensor reduced along its only dimension).
fn offsets(t: &Tensor) -> impl Iterator<Item = usize> {
    let single = (t.dim() == 0).then_some(t.offset);
    Offsets::new(t).chain(single)
}

/// Start offsets of a view's innermost runs, in logical order.
struct Runs {
    starts: Vec<usize>,
    len: usize,
    stride: usize,
}

impl Runs {
    fn of(t: &Tensor) -> Runs {
        Runs::of_geometry(&Geometry::of(t), t.size.iter().product())
    }

    fn of_geometry(g: &Geometry, numel: usize) -> Runs {
        let (len, stride) = g.inner();
        let mut starts = Vec::with_capacity(numel / len.max(1));
        if numel > 0 {
            g.for_each_run(|s| starts.push(s));
        }
        Runs { starts, len, stride }
    }
}

/// Shortest innermost run for which walking slab by slab beats walking lane by lane.
const MIN_SLAB_RUN: usize = 8;

/// How a reduction along `dim` walks its input: the kept dimensions ("rest") in memory order,
/// and either lane by lane (a lane is the elements along `dim` at one position of the kept
/// dimensions) or slab by slab (slab k is every element at position k along `dim`), whichever
/// reads memory in order. Lanes are numbered `j` in the logical order of `rest`.
struct Plan {
    dim: usize,
    /// Size and stride of the reduced dimension.
    n: usize,
    st: usize,
    perm: Vec<usize>,
    rest: Tensor,
    /// Number of lanes.
    m: usize,
    /// The runs of slab 0, when walking slab by slab.
    slabs: Option<Runs>,
}

impl Plan {
    fn new(x: &Tensor, dim: usize, allow_slabs: bool) -> Plan {
        let perm = memory_order(x, Some(dim));
        let rest = permuted(x, &perm);
        let m = rest.size.iter().product();
        let (n, st) = (x.size[dim], x.stride[dim]);
        let mut slabs = None;
        if allow_slabs && n > 1 && m > 1 {
            let innermost = rest.size.iter().zip(&rest.stride).all(|(&s, &rs)| s <= 1 || st <= rs);
            let g = Geometry::of(&rest);
            if !innermost && g.inner().0 >= MIN_SLAB_RUN {
                slabs = Some(Runs::of_geometry(&g, m));
            }
        }
        Plan {
            dim,
            n,
            st,
            perm,
            rest,
            m,
            slabs,
        }
    }

    /// An output of the same rank arranged like `rest` (its kept dimensions in the same order),
    /// and its stride along the reduced dimension.
    fn arrange(&self, out: &Tensor) -> (Tensor, usize) {
        (permuted(out, &self.perm), out.stride[self.dim])
    }

    /// Folds every lane to one value, in lane order. `lane(j, start)` folds a whole lane; `init`
    /// and `step(acc, value, k, j)` fold slab by slab, k being the position along the dimension.
    ///
    /// # Safety
    /// `p` must be the data of the planned tensor, a valid view.
    unsafe fn fold<T: Element, A: Copy>(
        &self,
        p: *const T,
        lane: impl Fn(usize, *const T) -> A,
        init: A,
        step: impl Fn(&mut A, T, usize, usize),
    ) -> Vec<A> {
        let Some(r) = &self.slabs else {
            return offsets(&self.rest)
                .enumerate()
                .map(|(j, start)| lane(j, unsafe { p.add(start) }))
                .collect();
        };
        let mut acc = vec![init; self.m];
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has AVX2; the caller's guarantees carry over.
            unsafe { avx2::slab_fold(self, r, p, &mut acc, step) };
            return acc;
        }
        unsafe { self.slab_fold(r, p, &mut acc, step) };
        acc
    }

    /// The slab-by-slab walk of `fold`: `acc` holds one accumulator per lane.
    ///
    /// # Safety
    /// As for `fold`; `r` are the runs of slab 0 and `acc` has one element per lane.
    #[inline(always)]
    unsafe fn slab_fold<T: Element, A: Copy>(
        &self,
        r: &Runs,
        p: *const T,
        acc: &mut [A],
        step: impl Fn(&mut A, T, usize, usize),
    ) {
        for k in 0..self.n {
            for (ri, &s) in r.starts.iter().enumerate() {
                let j0 = ri * r.len;
                let chunk = &mut acc[j0..j0 + r.len];
                unsafe {
                    let q = p.add(s + k * self.st);
                    if r.stride == 1 {
                        let src = std::slice::from_raw_parts(q, r.len);
                        for (i, (a, &v)) in chunk.iter_mut().zip(src).enumerate() {
                            step(a, v, k, j0 + i);
                        }
                    } else {
                        for (i, a) in chunk.iter_mut().enumerate() {
                            step(a, *q.add(i * r.stride), k, j0 + i);
                        }
                    }
                }
            }
        }
    }
}

/// The data of a tensor with elements, checked to cover its view.
fn data<T: Element>(x: &Tensor, method: &str) -> Result<*mut T> {
    Ok(args::lift_in(method, x.storage_checked())?.ptr::<T>())
}

/// Calls `f(start, len, stride)` for each run of `x`'s elements in memory order (`x` must have
/// elements). Only for reductions that do not depend on the order.
///
/// # Safety
/// `p` must be the data of `x`, a valid view.
unsafe fn each_run<T: Element>(p: *const T, x: &Tensor, mut f: impl FnMut(*const T, usize, usize)) {
    let g = Geometry::of(&permuted(x, &memory_order(x, None)));
    let (n, st) = g.inner();
    g.for_each_run(|s| f(unsafe { p.add(s) }, n, st));
}

/// A new contiguous tensor of `x`'s sizes with `size` along `dim`.
fn result_like(dtype: DType, x: &Tensor, dim: usize, size: usize) -> Result<Tensor> {
    let mut sz = x.size.clone();
    sz[dim] = size;
    args::lift(Tensor::zeros(dtype, &sz))
}

/// Writes values given in lane order into `out` (size 1 along the plan's dimension).
///
/// # Safety
/// `out` must be a valid view of elements of type `U`, not otherwise accessed.
unsafe fn scatter<U: Element>(plan: &Plan, out: &Tensor, values: impl Iterator<Item = U>) {
    let (rest, _) = plan.arrange(out);
    let Some(s) = &out.storage else { return };
    let p = s.ptr::<U>();
    for (o, v) in offsets(&rest).zip(values) {
        unsafe { *p.add(o) = v };
    }
}

// ------------------------------------------------------------------------------------------------
// Whole-tensor reductions

fn sum_all<T: Reduce>(x: &Tensor, prod: bool, method: &str) -> Result<f64> {
    if x.numel() == 0 {
        return Ok(if prod { 1.0 } else { 0.0 });
    }
    let p = data::<T>(x, method)?;
    let mut acc = if prod { T::ACC_ONE } else { T::ACC_ZERO };
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run(p, x, |q, n, st| {
            let part = acc_lane::<T>(q, n, st, prod);
            acc = if prod {
                T::acc_mul(acc, part)
            } else {
                T::acc_add(acc, part)
            };
        })
    };
    Ok(T::acc_to_f64(acc))
}

fn extreme_all<T: Reduce, const MAX: bool>(x: &Tensor, method: &str) -> Result<f64> {
    if x.numel() == 0 {
        return Err(error(method, "empty tensor"));
    }
    let p = data::<T>(x, method)?;
    let mut best: Option<T> = None;
    let mut has_nan = false;
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run(p, x, |q, n, st| {
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

fn norm_all<T: Reduce>(x: &Tensor, p: f64, method: &str) -> Result<f64> {
    if x.numel() == 0 {
        return Ok(0.0);
    }
    let d = data::<T>(x, method)?;
    let norm = Norm::of(p);
    let mut acc = 0.0;
    // SAFETY: d is x's data, checked above.
    unsafe {
        each_run(d, x, |q, n, st| {
            let part = norm.lane(q, n, st);
            acc = if matches!(norm, Norm::Max) {
                f64::max(acc, part)
            } else {
                acc + part
            };
        })
    };
    Ok(norm.finish(acc))
}

fn var_all<T: Reduce>(x: &Tensor, biased: bool, method: &str) -> Result<f64> {
    let n = x.numel();
    if n == 0 {
        return Err(error(method, "empty tensor"));
    }
    let mean = sum_all::<T>(x, false, method)? / n as f64;
    let p = data::<T>(x, method)?;
    let mut acc = 0.0;
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run(p, x, |q, len, st| {
            acc += map_sum(q, len, st, |v: T| {
                let d = v.to_f64() - mean;
                d * d
            })
        })
    };
    Ok(acc / if biased { n as f64 } else { n as f64 - 1.0 })
}

fn logical_all(x: &Tensor, any: bool, method: &str) -> Result<bool> {
    if x.numel() == 0 {
        return Err(error(method, "empty tensor"));
    }
    let p = data::<u8>(x, method)?;
    let mut found = false;
    // SAFETY: p is x's data, checked above.
    unsafe {
        each_run(p, x, |q, n, st| {
            if found {
                return;
            }
            // `any` looks for a non-zero element, `all` for a zero one.
            found = (0..n).any(|i| (*q.add(i * st) != 0) == any);
        })
    };
    Ok(found == any)
}

fn dist<T: Reduce>(a: &Tensor, b: &Tensor, p: f64, method: &str) -> Result<f64> {
    if a.numel() != b.numel() {
        return Err(error(
            method,
            format!("inconsistent tensor size ({} elements vs {})", a.numel(), b.numel()),
        ));
    }
    if a.numel() == 0 {
        return Ok(0.0);
    }
    let (pa, pb) = (data::<T>(a, method)?, data::<T>(b, method)?);
    let norm = Norm::of(p);
    let mut acc = 0.0;
    for (oa, ob) in Offsets::new(a).zip(Offsets::new(b)) {
        // SAFETY: offsets of valid views.
        let d = unsafe { (*pa.add(oa)).to_f64() - (*pb.add(ob)).to_f64() };
        acc = norm.step(acc, d);
    }
    Ok(norm.finish(acc))
}

// ------------------------------------------------------------------------------------------------
// Reductions along a dimension

fn sum_dim<T: Reduce>(x: &Tensor, dim: usize, kind: SumKind, method: &str) -> Result<Tensor> {
    let out = result_like(T::DTYPE, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok(out);
    }
    let prod = kind == SumKind::Prod;
    let (n, st) = (plan.n, plan.st);
    let values: Vec<T::Acc> = if n == 0 {
        vec![if prod { T::ACC_ONE } else { T::ACC_ZERO }; plan.m]
    } else {
        let p = data::<T>(x, method)?;
        // SAFETY: p is x's data, checked above.
        unsafe {
            plan.fold(
                p,
                |_, q| acc_lane::<T>(q, n, st, prod),
                if prod { T::ACC_ONE } else { T::ACC_ZERO },
                |a, v, _, _| {
                    *a = if prod {
                        T::acc_mul(*a, v.widen())
                    } else {
                        T::acc_add(*a, v.widen())
                    }
                },
            )
        }
    };
    let mean = kind == SumKind::Mean;
    // SAFETY: out is fresh.
    unsafe {
        scatter(
            &plan,
            &out,
            values.into_iter().map(|a| {
                if mean {
                    T::from_f64(T::acc_to_f64(a) / n as f64)
                } else {
                    T::narrow(a)
                }
            }),
        )
    };
    Ok(out)
}

fn extreme_dim<T: Reduce, const MAX: bool>(x: &Tensor, dim: usize, method: &str) -> Result<(Tensor, Tensor)> {
    let vals = result_like(T::DTYPE, x, dim, 1)?;
    let idx = result_like(DType::Long, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok((vals, idx));
    }
    if plan.n == 0 {
        return Err(error(method, "cannot reduce a dimension of size 0"));
    }
    let p = data::<T>(x, method)?;
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
            None => offsets(&plan.rest)
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

fn norm_dim<T: Reduce>(x: &Tensor, p: f64, dim: usize, method: &str) -> Result<Tensor> {
    let out = result_like(T::DTYPE, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok(out);
    }
    let norm = Norm::of(p);
    let (n, st) = (plan.n, plan.st);
    let values = if n == 0 {
        vec![0.0; plan.m]
    } else {
        let d = data::<T>(x, method)?;
        // SAFETY: d is x's data, checked above.
        unsafe {
            plan.fold(
                d,
                |_, q| norm.lane(q, n, st),
                0.0,
                |a, v, _, _| *a = norm.step(*a, v.to_f64()),
            )
        }
    };
    // SAFETY: out is fresh.
    unsafe { scatter(&plan, &out, values.into_iter().map(|a| T::from_f64(norm.finish(a)))) };
    Ok(out)
}

fn var_dim<T: Reduce>(x: &Tensor, dim: usize, biased: bool, std: bool, method: &str) -> Result<Tensor> {
    let out = result_like(T::DTYPE, x, dim, 1)?;
    let plan = Plan::new(x, dim, true);
    if plan.m == 0 {
        return Ok(out);
    }
    let (n, st) = (plan.n, plan.st);
    let values = if n == 0 {
        vec![f64::NAN; plan.m]
    } else {
        let p = data::<T>(x, method)?;
        // SAFETY: p is x's data, checked above.
        unsafe {
            let means: Vec<f64> = plan
                .fold(
                    p,
                    |_, q| acc_lane::<T>(q, n, st, false),
                    T::ACC_ZERO,
                    |a, v, _, _| *a = T::acc_add(*a, v.widen()),
                )
                .into_iter()
                .map(|s| T::acc_to_f64(s) / n as f64)
                .collect();
            plan.fold(
                p,
                |j, q| {
                    let mean = means[j];
                    map_sum(q, n, st, |v: T| {
                        let d = v.to_f64() - mean;
                        d * d
                    })
                },
                0.0,
                |a, v, _, j| {
                    let d = v.to_f64() - means[j];
                    *a += d * d;
                },
            )
        }
    };
    let div = if biased { n as f64 } else { n as f64 - 1.0 };
    // SAFETY: out is fresh.
    unsafe {
        scatter(
            &plan,
            &out,
            values.into_iter().map(|s| {
                let v = s / div;
                T::from_f64(if std { v.sqrt() } else { v })
            }),
        )
    };
    Ok(out)
}

fn cumulate<T: Reduce>(x: &Tensor, dim: usize, prod: bool, method: &str) -> Result<Tensor> {
    let out = args::lift(Tensor::zeros(T::DTYPE, &x.size))?;
    if x.numel() == 0 {
        return Ok(out);
    }
    let plan = Plan::new(x, dim, true);
    let (orest, ost) = plan.arrange(&out);
    let (n, st) = (plan.n, plan.st);
    let p = data::<T>(x, method)?;
    let op = data::<T>(&out, method)?;
    let init = if prod { T::ACC_ONE } else { T::ACC_ZERO };
    let comb = |a: T::Acc, v: T| {
        if prod {
            T::acc_mul(a, v.widen())
        } else {
            T::acc_add(a, v.widen())
        }
    };
    // SAFETY: p is x's data and op out's (fresh), both checked above; offsets stay in the views.
    unsafe {
        match &plan.slabs {
            None => {
                for (xs, os) in offsets(&plan.rest).zip(offsets(&orest)) {
                    let mut a = init;
                    for i in 0..n {
                        a = comb(a, *p.add(xs + i * st));
                        *op.add(os + i * ost) = T::narrow(a);
                    }
                }
            }
            Some(r) => {
                let or = Runs::of(&orest);
                let mut acc = vec![init; plan.m];
                for k in 0..n {
                    for (ri, &s) in r.starts.iter().enumerate() {
                        let q = p.add(s + k * st);
                        for (i, a) in acc[ri * r.len..(ri + 1) * r.len].iter_mut().enumerate() {
                            *a = comb(*a, *q.add(i * r.stride));
                        }
                    }
                    for (ri, &s) in or.starts.iter().enumerate() {
                        let q = op.add(s + k * ost);
                        for (i, &a) in acc[ri * or.len..(ri + 1) * or.len].iter().enumerate() {
                            *q.add(i * or.stride) = T::narrow(a);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// For each lane along `dim`: sorts or selects the lane's elements as `pick` says (in decreasing
/// order when `desc`) and writes the chosen ones along `dim` of the results (values, and 1-based
/// positions in a LongTensor), which have `out_len` elements along `dim`.
fn per_lane<T: Reduce>(
    x: &Tensor,
    dim: usize,
    out_len: usize,
    desc: bool,
    pick: Pick,
    method: &str,
) -> Result<(Tensor, Tensor)> {
    if T::WIDE_KEY || x.size[dim] > u32::MAX as usize {
        per_lane_items::<T, (u64, usize)>(x, dim, out_len, desc, pick, method)
    } else {
        per_lane_items::<T, u64>(x, dim, out_len, desc, pick, method)
    }
}

fn per_lane_items<T: Reduce, I: LaneItem>(
    x: &Tensor,
    dim: usize,
    out_len: usize,
    desc: bool,
    pick: Pick,
    method: &str,
) -> Result<(Tensor, Tensor)> {
    let vals = result_like(T::DTYPE, x, dim, out_len)?;
    let idx = result_like(DType::Long, x, dim, out_len)?;
    if vals.numel() == 0 || x.numel() == 0 {
        return Ok((vals, idx));
    }
    let plan = Plan::new(x, dim, false);
    let (n, st) = (plan.n, plan.st);
    let (vrest, vst) = plan.arrange(&vals);
    let (irest, ist) = plan.arrange(&idx);
    let p = data::<T>(x, method)?;
    let vp = data::<T>(&vals, method)?;
    let ip = data::<i64>(&idx, method)?;
    // Decreasing order is increasing order of complemented keys (positions stay increasing).
    let flip = match (desc, T::WIDE_KEY) {
        (false, _) => 0,
        (true, false) => u32::MAX as u64,
        (true, true) => u64::MAX,
    };
    let key_bits = if T::WIDE_KEY { 64 } else { 32 };
    let mut buf: Vec<I> = Vec::with_capacity(n);
    let mut scratch: Vec<I> = Vec::new();
    for ((xs, vs), is) in offsets(&plan.rest).zip(offsets(&vrest)).zip(offsets(&irest)) {
        buf.clear();
        // SAFETY: offsets of valid views; the results are fresh.
        unsafe {
            buf.extend((0..n).map(|i| I::new((*p.add(xs + i * st)).key() ^ flip, i)));
            let range = pick.apply(&mut buf, &mut scratch, key_bits);
            for (o, item) in buf[range].iter().enumerate() {
                let i = item.pos();
                *vp.add(vs + o * vst) = *p.add(xs + i * st);
                *ip.add(is + o * ist) = i as i64 + 1;
            }
        }
    }
    Ok((vals, idx))
}

/// Scales each slice along `dim` of `x` whose p-norm exceeds `maxnorm` down to norm `maxnorm`,
/// in place.
fn renorm<T: Reduce>(x: &Tensor, p: f64, dim: usize, maxnorm: f64, method: &str) -> Result<()> {
    for i in 0..x.size[dim] {
        let sub = args::lift_in(method, x.select(dim, i))?;
        let norm = norm_all::<T>(&sub, p, method)?;
        if norm > maxnorm {
            // Torch's guard against dividing by a zero norm.
            let scale = maxnorm / (norm + 1e-7);
            let d = data::<T>(&sub, method)?;
            // SAFETY: sub is a valid view of x, which nothing else accesses during the call.
            unsafe { crate::torch::apply::for_each_mut(d, &sub, |v| *v = T::from_f64(v.to_f64() * scale)) };
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Arguments

/// A tensor argument: the Lua value and its view.
type Dest = (Value, Tensor);

/// The Lua arguments as cwrap classifies them: leading tensors (with their Lua values), then
/// numbers, then booleans. Trailing nils are ignored.
pub(crate) struct Classified<T> {
    pub tensors: Vec<(Value, T)>,
    pub nums: Vec<f64>,
    pub bools: Vec<bool>,
}

type Call = Classified<Tensor>;

impl Call {
    fn shape(&self) -> (usize, usize, usize) {
        (self.tensors.len(), self.nums.len(), self.bools.len())
    }

    /// The source tensor: the last tensor argument.
    fn x(&self) -> &Tensor {
        &self.tensors[self.tensors.len() - 1].1
    }

    fn dest(&self, i: usize) -> Option<&Dest> {
        (i + 1 < self.tensors.len()).then(|| &self.tensors[i])
    }
}

/// The error of a call whose arguments fit none of `forms`.
pub(crate) fn invalid(a: &[Value], method: &str, forms: &str) -> mlua::Error {
    let got: Vec<String> = a[..given(a)].iter().map(args::type_name).collect();
    error(
        method,
        format!("invalid arguments ({}); expected {forms}", got.join(", ")),
    )
}

/// How many arguments there are, trailing nils left out.
fn given(a: &[Value]) -> usize {
    let mut n = a.len();
    while n > 0 && matches!(a[n - 1], Value::Nil) {
        n -= 1;
    }
    n
}

/// `a` classified, the tensors being what `tensor_of` recognizes (a tensor family's own); an
/// invalid-arguments error naming `method` and its `forms` when they come out of that order.
pub(crate) fn classify<T>(
    a: &[Value],
    method: &str,
    forms: &str,
    tensor_of: impl Fn(&Value) -> Option<T>,
) -> Result<Classified<T>> {
    let mut c = Classified {
        tensors: Vec::new(),
        nums: Vec::new(),
        bools: Vec::new(),
    };
    for v in &a[..given(a)] {
        if let Some(t) = tensor_of(v) {
            if c.nums.is_empty() && c.bools.is_empty() {
                c.tensors.push((v.clone(), t));
                continue;
            }
        } else if let Some(x) = args::number(v) {
            if c.bools.is_empty() {
                c.nums.push(x);
                continue;
            }
        } else if let Value::Boolean(b) = v {
            c.bools.push(*b);
            continue;
        }
        return Err(invalid(a, method, forms));
    }
    Ok(c)
}

fn parse(a: &Args, method: &str, forms: &str) -> Result<Call> {
    let c = classify(a, method, forms, tensor_of)?;
    if c.tensors.is_empty() {
        return Err(invalid(a, method, forms));
    }
    Ok(c)
}

/// An integer argument (`what` of `method`).
pub(crate) fn integer(v: f64, method: &str, what: &str) -> Result<i64> {
    if v.fract() != 0.0 || !v.is_finite() {
        return Err(error(method, format!("{what} must be an integer, got {v}")));
    }
    Ok(v as i64)
}

fn dim_of(v: f64, x: &Tensor, method: &str) -> Result<usize> {
    args::check_dim(integer(v, method, "dimension")?, x.dim(), method)
}

/// The default dimension of sort, topk, kthvalue, median and mode: the last one.
fn last_dim(x: &Tensor, method: &str) -> Result<usize> {
    match x.dim() {
        0 => Err(error(method, "empty tensor")),
        d => Ok(d - 1),
    }
}

fn float_only(x: &Tensor, method: &str) -> Result<()> {
    if x.dtype.is_floating() {
        return Ok(());
    }
    Err(error(
        method,
        format!(
            "not implemented for {} (Torch defines it for FloatTensor and DoubleTensor only)",
            x.dtype.tensor_typename()
        ),
    ))
}

fn check_type(dest: Option<&Dest>, want: DType, method: &str, what: &str) -> Result<()> {
    match dest {
        Some((_, t)) if t.dtype != want => Err(error(
            method,
            format!(
                "{what} must be a {}, got a {}",
                want.tensor_typename(),
                t.dtype.tensor_typename()
            ),
        )),
        _ => Ok(()),
    }
}

/// Hands a computed result back: a new tensor, or copied into the caller's result tensor
/// (resized to it), which is returned.
fn deliver(lua: &Lua, dest: Option<&Dest>, fresh: Tensor, method: &str) -> Result<Value> {
    match dest {
        None => push_tensor(lua, fresh),
        Some((v, t)) => {
            let mut r = t.clone();
            args::lift_in(method, construct::resize(&mut r, &fresh.size))?;
            set_view(v, r.clone())?;
            copy_into(&r, &fresh, method)?;
            Ok(v.clone())
        }
    }
}

/// The result tensors of a values-and-indices method: `[resval,] [resind,] x`.
fn pair_dests<'a>(c: &'a Call, method: &str) -> Result<(Option<&'a Dest>, Option<&'a Dest>)> {
    let dtype = c.x().dtype;
    let (v, i) = match c.tensors.len() {
        1 => (None, None),
        2 => {
            let d = &c.tensors[0];
            // One result tensor: the values if it has x's type, else the indices.
            if d.1.dtype == dtype {
                (Some(d), None)
            } else {
                (None, Some(d))
            }
        }
        3 => (Some(&c.tensors[0]), Some(&c.tensors[1])),
        _ => return Err(error(method, "too many tensor arguments")),
    };
    check_type(v, dtype, method, "the values result")?;
    check_type(i, DType::Long, method, "the indices result")?;
    Ok((v, i))
}

fn two(lua: &Lua, c: &Call, (vals, idx): (Tensor, Tensor), method: &str) -> Result<MultiValue> {
    let (dv, di) = pair_dests(c, method)?;
    let v = deliver(lua, dv, vals, method)?;
    let i = deliver(lua, di, idx, method)?;
    Ok(MultiValue::from_vec(vec![v, i]))
}

fn number(v: f64) -> Result<MultiValue> {
    one(Value::Number(v))
}

// ------------------------------------------------------------------------------------------------
// Methods

#[derive(Clone, Copy, PartialEq, Eq)]
enum SumKind {
    Sum,
    Prod,
    Mean,
}

fn sum_like(lua: &Lua, a: Args, method: &str, kind: SumKind) -> Result<MultiValue> {
    const FORMS: &str = "(tensor) | ([result,] tensor, dim)";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    if kind == SumKind::Mean {
        float_only(x, method)?;
    }
    match c.shape() {
        (1, 0, 0) => {
            let v = dispatch!(x.dtype, T => match kind {
                SumKind::Prod => sum_all::<T>(x, true, method)?,
                SumKind::Sum => sum_all::<T>(x, false, method)?,
                SumKind::Mean => {
                    if x.numel() == 0 {
                        return Err(error(method, "empty tensor"));
                    }
                    sum_all::<T>(x, false, method)? / x.numel() as f64
                }
            });
            number(v)
        }
        (1 | 2, 1, 0) => {
            let dest = c.dest(0);
            check_type(dest, x.dtype, method, "the result")?;
            let dim = dim_of(c.nums[0], x, method)?;
            let r = dispatch!(x.dtype, T => sum_dim::<T>(x, dim, kind, method)?);
            one(deliver(lua, dest, r, method)?)
        }
        _ => Err(invalid(&a, method, FORMS)),
    }
}

fn extreme(lua: &Lua, a: Args, method: &str, max: bool) -> Result<MultiValue> {
    const FORMS: &str = "(tensor) | ([resval, resind,] tensor, dim)";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    match c.shape() {
        (1, 0, 0) => number(dispatch!(x.dtype, T => if max {
            extreme_all::<T, true>(x, method)?
        } else {
            extreme_all::<T, false>(x, method)?
        })),
        (1..=3, 1, 0) => {
            pair_dests(&c, method)?;
            let dim = dim_of(c.nums[0], x, method)?;
            let r = dispatch!(x.dtype, T => if max {
                extreme_dim::<T, true>(x, dim, method)?
            } else {
                extreme_dim::<T, false>(x, dim, method)?
            });
            two(lua, &c, r, method)
        }
        _ => Err(invalid(&a, method, FORMS)),
    }
}

fn var_like(lua: &Lua, a: Args, method: &str, std: bool) -> Result<MultiValue> {
    const FORMS: &str = "(tensor [, biased]) | ([result,] tensor, dim [, biased])";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    float_only(x, method)?;
    let biased = c.bools.first().copied().unwrap_or(false);
    match c.shape() {
        (1, 0, 0 | 1) => {
            let v = dispatch!(x.dtype, T => var_all::<T>(x, biased, method)?);
            number(if std { v.sqrt() } else { v })
        }
        (1 | 2, 1, 0 | 1) => {
            let dest = c.dest(0);
            check_type(dest, x.dtype, method, "the result")?;
            let dim = dim_of(c.nums[0], x, method)?;
            let r = dispatch!(x.dtype, T => var_dim::<T>(x, dim, biased, std, method)?);
            one(deliver(lua, dest, r, method)?)
        }
        _ => Err(invalid(&a, method, FORMS)),
    }
}

fn norm(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "norm";
    const FORMS: &str = "(tensor [, p]) | ([result,] tensor, p, dim)";
    let c = parse(&a, METHOD, FORMS)?;
    let x = c.x();
    float_only(x, METHOD)?;
    match c.shape() {
        (1, 0 | 1, 0) => {
            let p = c.nums.first().copied().unwrap_or(2.0);
            number(dispatch!(x.dtype, T => norm_all::<T>(x, p, METHOD)?))
        }
        (1 | 2, 2, 0) => {
            let dest = c.dest(0);
            check_type(dest, x.dtype, METHOD, "the result")?;
            let dim = dim_of(c.nums[1], x, METHOD)?;
            let r = dispatch!(x.dtype, T => norm_dim::<T>(x, c.nums[0], dim, METHOD)?);
            one(deliver(lua, dest, r, METHOD)?)
        }
        _ => Err(invalid(&a, METHOD, FORMS)),
    }
}

fn dist_method(_: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "dist";
    const FORMS: &str = "(tensor, tensor [, p])";
    let c = parse(&a, METHOD, FORMS)?;
    let (2, 0 | 1, 0) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let (x, y) = (&c.tensors[0].1, &c.tensors[1].1);
    float_only(x, METHOD)?;
    if y.dtype != x.dtype {
        return Err(error(
            METHOD,
            format!(
                "expected a {}, got a {}",
                x.dtype.tensor_typename(),
                y.dtype.tensor_typename()
            ),
        ));
    }
    let p = c.nums.first().copied().unwrap_or(2.0);
    number(dispatch!(x.dtype, T => dist::<T>(x, y, p, METHOD)?))
}

fn logical(a: Args, method: &str, any: bool) -> Result<MultiValue> {
    let c = parse(&a, method, "(ByteTensor)")?;
    if c.shape() != (1, 0, 0) {
        return Err(invalid(&a, method, "(ByteTensor)"));
    }
    let x = c.x();
    if x.dtype != DType::Byte {
        return Err(error(
            method,
            format!("only defined for torch.ByteTensor, got a {}", x.dtype.tensor_typename()),
        ));
    }
    one(Value::Boolean(logical_all(x, any, method)?))
}

fn cumulative(lua: &Lua, a: Args, method: &str, prod: bool) -> Result<MultiValue> {
    const FORMS: &str = "([result,] tensor [, dim])";
    let c = parse(&a, method, FORMS)?;
    let x = c.x();
    let (1 | 2, 0 | 1, 0) = c.shape() else {
        return Err(invalid(&a, method, FORMS));
    };
    let dest = c.dest(0);
    check_type(dest, x.dtype, method, "the result")?;
    let dim = dim_of(c.nums.first().copied().unwrap_or(1.0), x, method)?;
    let r = dispatch!(x.dtype, T => cumulate::<T>(x, dim, prod, method)?);
    one(deliver(lua, dest, r, method)?)
}

fn sort_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "sort";
    const FORMS: &str = "([resval, resind,] tensor [, dim] [, descending])";
    let c = parse(&a, METHOD, FORMS)?;
    let (1..=3, 0 | 1, 0 | 1) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let x = c.x();
    pair_dests(&c, METHOD)?;
    let dim = match c.nums.first() {
        Some(&d) => dim_of(d, x, METHOD)?,
        None => last_dim(x, METHOD)?,
    };
    let desc = c.bools.first().copied().unwrap_or(false);
    let r = dispatch!(x.dtype, T => per_lane::<T>(x, dim, x.size[dim], desc, Pick::Sort, METHOD)?);
    two(lua, &c, r, METHOD)
}

fn topk_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "topk";
    const FORMS: &str = "([resval, resind,] tensor [, k] [, dim] [, dir] [, sort])";
    let c = parse(&a, METHOD, FORMS)?;
    let (1..=3, 0..=2, 0..=2) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let x = c.x();
    pair_dests(&c, METHOD)?;
    let k = integer(c.nums.first().copied().unwrap_or(1.0), METHOD, "k")?;
    let dim = match c.nums.get(1) {
        Some(&d) => dim_of(d, x, METHOD)?,
        None => last_dim(x, METHOD)?,
    };
    if k < 1 || k as usize > x.size[dim] {
        return Err(error(
            METHOD,
            format!("k ({k}) out of range for a dimension of size {}", x.size[dim]),
        ));
    }
    let largest = c.bools.first().copied().unwrap_or(false);
    let k = k as usize;
    let r = dispatch!(x.dtype, T => per_lane::<T>(x, dim, k, largest, Pick::First(k), METHOD)?);
    two(lua, &c, r, METHOD)
}

fn kthvalue_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    const METHOD: &str = "kthvalue";
    const FORMS: &str = "([resval, resind,] tensor, k [, dim])";
    let c = parse(&a, METHOD, FORMS)?;
    let (1..=3, 1 | 2, 0) = c.shape() else {
        return Err(invalid(&a, METHOD, FORMS));
    };
    let x = c.x();
    pair_dests(&c, METHOD)?;
    let k = integer(c.nums[0], METHOD, "k")?;
    let dim = match c.nums.get(1) {
        Some(&d) => dim_of(d, x, METHOD)?,
        None => last_dim(x, METHOD)?,
    };
    if k < 1 || k as usize > x.size[dim] {
        return Err(error(
            METHOD,
            format!("k ({k}) out of range for a dimension of size {}", x.size[dim]),
        ));
    }
    let k = k as usize;
    let r = dispatch!(x.dtype, T => per_lane::<T>(x, dim, 1, false, Pick::Kth(k), METHOD)?);
    two(lua, &c, r, METHOD)
}

fn median_mode(lua: &Lua, a: Args, method: &str, is_mode: bool) -> Result<MultiValue> {
    const FORMS: &str = "([resval, resind,] tensor [, dim])";
    let c = parse(&a, method, FORMS)?;
    let (1..=3, 0 | 1, 0) = c.shape() else {
        return Err(invalid(&a, method, FORMS));
    };
    let x = c.x();
    pair_dests(&c, method)?;
    let dim = match c.nums.first() {
        Some(&d) => dim_of(d, x, method)?,
        None => last_dim(x, method)?,
    };
    if x.size[dim] == 0 {
        return Err(error(method, "cannot reduce a dimension of size 0"));
    }
    // The median is the lower one: element (n+1)/2 of the sorted lane.
    let pick = if is_mode {
        Pick::Mode
    } else {
        Pick::Kth(x.size[dim].div_ceil(2))
    };
    let r = dispatch!(x.dtype, T => per_lane::<T>(x, dim, 1, false, pick, method)?);
    two(lua, &c, r, method)
}

/// `renorm` arguments: `[result,] tensor, p, dim, maxnorm` -> (result, source, p, dim, maxnorm).
fn renorm_args<'a>(c: &'a Call, a: &Args) -> Result<(Option<&'a Dest>, usize, f64, f64)> {
    const METHOD: &str = "renorm";
    const FORMS: &str = "([result,] tensor, p, dim, maxnorm)";
    let (1 | 2, 3, 0) = c.shape() else {
        return Err(invalid(a, METHOD, FORMS));
    };
    let x = c.x();
    float_only(x, METHOD)?;
    let dest = c.dest(0);
    check_type(dest, x.dtype, METHOD, "the result")?;
    let p = c.nums[0];
    if p.is_nan() || p <= 0.0 {
        return Err(error(METHOD, format!("non-positive norm not supported (p = {p})")));
    }
    if x.dim() < 2 {
        return Err(error(
            METHOD,
            format!("need at least 2 dimensions, got {} dimensions", x.dim()),
        ));
    }
    let dim = dim_of(c.nums[1], x, METHOD)?;
    Ok((dest, dim, p, c.nums[2]))
}

/// `x:renorm(p, dim, maxnorm)` works on x; `res:renorm(x, p, dim, maxnorm)` writes into res.
fn renorm_method(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = parse(&a, "renorm", "([result,] tensor, p, dim, maxnorm)")?;
    let (dest, dim, p, maxnorm) = renorm_args(&c, &a)?;
    let x = c.x();
    if dest.is_none() {
        dispatch!(x.dtype, T => renorm::<T>(x, p, dim, maxnorm, "renorm")?);
        return receiver(&a);
    }
    let fresh = clone_tensor(x)?;
    dispatch!(x.dtype, T => renorm::<T>(&fresh, p, dim, maxnorm, "renorm")?);
    one(deliver(lua, dest, fresh, "renorm")?)
}

/// `torch.renorm([res,] x, p, dim, maxnorm)`: a new tensor unless res is given.
fn renorm_function(lua: &Lua, a: Args) -> Result<MultiValue> {
    let c = parse(&a, "renorm", "([result,] tensor, p, dim, maxnorm)")?;
    let (dest, dim, p, maxnorm) = renorm_args(&c, &a)?;
    let x = c.x();
    let fresh = clone_tensor(x)?;
    dispatch!(x.dtype, T => renorm::<T>(&fresh, p, dim, maxnorm, "renorm")?);
    one(deliver(lua, dest, fresh, "renorm")?)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    // The same argument forms serve `x:f(...)` and `torch.f(...)`: these methods never work in
    // place on their receiver.
    for t in [tensor, functions] {
        add(lua, t, "sum", |lua, a| sum_like(lua, a, "sum", SumKind::Sum))?;
        add(lua, t, "prod", |lua, a| sum_like(lua, a, "prod", SumKind::Prod))?;
        add(lua, t, "mean", |lua, a| sum_like(lua, a, "mean", SumKind::Mean))?;
        add(lua, t, "max", |lua, a| extreme(lua, a, "max", true))?;
        add(lua, t, "min", |lua, a| extreme(lua, a, "min", false))?;
        add(lua, t, "var", |lua, a| var_like(lua, a, "var", false))?;
        add(lua, t, "std", |lua, a| var_like(lua, a, "std", true))?;
        add(lua, t, "norm", norm)?;
        add(lua, t, "dist", dist_method)?;
        add(lua, t, "all", |_, a| logical(a, "all", false))?;
        add(lua, t, "any", |_, a| logical(a, "any", true))?;
        add(lua, t, "cumsum", |lua, a| cumulative(lua, a, "cumsum", false))?;
        add(lua, t, "cumprod", |lua, a| cumulative(lua, a, "cumprod", true))?;
        add(lua, t, "sort", sort_method)?;
        add(lua, t, "topk", topk_method)?;
        add(lua, t, "kthvalue", kthvalue_method)?;
        add(lua, t, "median", |lua, a| median_mode(lua, a, "median", false))?;
        add(lua, t, "mode", |lua, a| median_mode(lua, a, "mode", true))?;
    }
    add(lua, tensor, "renorm", renorm_method)?;
    add(lua, functions, "renorm", renorm_function)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_sums_are_pairwise_accurate() {
        // 0.1 in f32 summed 10M times: naive f32 accumulation is off by percents.
        let v = vec![0.1f32; 10_000_000];
        let exact = 0.1f32 as f64 * 1e7;
        let s = <f32 as Reduce>::sum_slice(&v);
        assert!((s - exact).abs() / exact < 1e-12, "{s} vs {exact}");
        let w: Vec<f64> = (0..100_003).map(|i| i as f64).collect();
        assert_eq!(<f64 as Reduce>::sum_slice(&w), 100_002.0 * 100_003.0 / 2.0);
    }

    #[test]
    fn integer_sums_widen_and_wrap() {
        let v = vec![200u8; 19];
        assert_eq!(<u8 as Reduce>::sum_slice(&v), 3800);
        assert_eq!(<u8 as Reduce>::narrow(3800), (3800 % 256) as u8);
        let big = [i64::MAX, 1];
        assert_eq!(<i64 as Reduce>::sum_slice(&big), i64::MIN);
    }

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

    #[test]
    fn plan_walks_slabs_when_the_dimension_is_outer() {
        let t = Tensor::zeros(DType::Float, &[50, 40]).unwrap();
        assert!(Plan::new(&t, 0, true).slabs.is_some());
        assert!(Plan::new(&t, 1, true).slabs.is_none());
        // A transposed view: the reduced dimension 1 is outer in memory.
        let tt = t.transpose(0, 1).unwrap();
        assert!(Plan::new(&tt, 1, true).slabs.is_some());
        assert!(Plan::new(&tt, 0, true).slabs.is_none());
    }

    #[test]
    fn keys_follow_the_value_order() {
        let f = [
            f32::NEG_INFINITY,
            -2.5,
            -1e-30,
            -0.0,
            0.0,
            1e-30,
            3.0,
            f32::INFINITY,
            f32::NAN,
        ];
        let k: Vec<u64> = f.iter().map(|v| v.key()).collect();
        assert!(k.windows(2).all(|w| w[0] <= w[1]), "{k:?}");
        assert_eq!(k[3], k[4]);
        assert!(k.iter().all(|&k| k <= u32::MAX as u64));
        assert_eq!(f64::NAN.key(), (-f64::NAN).key());
        let d = [f64::MIN, -1.0, 0.0, 2.0, f64::MAX, f64::NAN];
        assert!(d.windows(2).all(|w| w[0].key() < w[1].key()));
        let i = [i32::MIN, -1, 0, 7, i32::MAX];
        assert!(i.windows(2).all(|w| w[0].key() < w[1].key()));
        assert!(i32::MAX.key() <= u32::MAX as u64 && 255u8.key() < 0i8.key() + 256);
        let l = [i64::MIN, -1, 0, i64::MAX];
        assert!(l.windows(2).all(|w| w[0].key() < w[1].key()));
    }

    #[test]
    fn radix_sort_is_stable_and_matches_comparison_sort() {
        let mut seed = 12345u64;
        let mut keys: Vec<u64> = (0..5000)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 40) % 300
            })
            .collect();
        keys[17] = u32::MAX as u64;
        let items: Vec<u64> = keys.iter().enumerate().map(|(i, &k)| u64::new(k, i)).collect();
        let mut a = items.clone();
        radix_sort(&mut a, &mut Vec::new(), 32);
        let mut b = items.clone();
        b.sort_unstable();
        assert_eq!(a, b);
        let wide: Vec<(u64, usize)> = keys.iter().enumerate().map(|(i, &k)| (k << 40, i)).collect();
        let mut a = wide.clone();
        radix_sort(&mut a, &mut Vec::new(), 64);
        let mut b = wide;
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn picks_are_stable() {
        let items = |v: &[u64]| -> Vec<u64> { v.iter().enumerate().map(|(i, &k)| u64::new(k, i)).collect() };
        let mut b = items(&[5, 1, 5, 0, 1]);
        assert_eq!(Pick::Sort.apply(&mut b, &mut Vec::new(), 32), 0..5);
        assert_eq!(b.iter().map(|i| i.pos()).collect::<Vec<_>>(), vec![3, 1, 4, 0, 2]);
        let mut b = items(&[5, 1, 5, 0, 1]);
        let r = Pick::Mode.apply(&mut b, &mut Vec::new(), 32);
        // 1 and 5 both occur twice: the smaller wins, at its last position.
        assert_eq!((b[r.start].key(), b[r.start].pos()), (1, 4));
        let mut b = items(&[5, 1, 5, 0, 1]);
        let r = Pick::Kth(3).apply(&mut b, &mut Vec::new(), 32);
        assert_eq!(b[r.start].pos(), 4);
        let mut b = items(&[5, 1, 5, 0, 1]);
        assert_eq!(Pick::First(2).apply(&mut b, &mut Vec::new(), 32), 0..2);
        assert_eq!((b[0].pos(), b[1].pos()), (3, 1));
    }
}
