//! Accumulation as Torch does it (`accreal`: double for Float and Double, a 64-bit integer for
//! the integer types), the p-norms, and the vectorised sums under every reduction.
//!
//! Sums of contiguous runs use 16 independent double accumulators (so the loop vectorises) over
//! blocks of 2048 elements whose sums are combined pairwise: float32 and float64 sums are
//! memory-bound and at least as accurate as NumPy's pairwise sum. float32 accumulates in double,
//! Torch's `accreal` (the conversion is free in a memory-bound loop, and the result needs no
//! compensation). The crate targets baseline x86-64, so the hot loops also exist compiled for AVX2
//! and are picked at run time, as NumPy does.

use crate::torch::base::dtype::Element;

/// Accumulation as Torch does it (`accreal`), plus the vectorised slice kernels.
pub trait Reduce: Element {
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
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// AVX2 builds of the sums: each wraps an `#[inline(always)]` kernel, which is compiled inside it
/// with AVX2 enabled. Callers check `has_avx2()` first.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2")]
    pub(super) fn pairwise_map_sum<T: Copy>(s: &[T], map: impl Fn(T) -> f64 + Copy) -> f64 {
        super::pairwise_map_sum_impl(s, map)
    }
}

/// Sum of `map(v)` over `n` elements from `q` with stride `st`.
///
/// # Safety
/// The elements must be readable.
#[inline]
pub unsafe fn map_sum<T: Copy>(q: *const T, n: usize, st: usize, map: impl Fn(T) -> f64 + Copy) -> f64 {
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
pub unsafe fn acc_lane<T: Reduce>(q: *const T, n: usize, st: usize, prod: bool) -> T::Acc {
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

/// The p-norm family, with the exponents that have a cheaper exact form.
#[derive(Clone, Copy)]
pub enum Norm {
    /// p = 0: the number of non-zero elements.
    Count,
    Abs,
    Square,
    /// p = inf: the largest absolute value.
    Max,
    Pow(f64),
}

impl Norm {
    pub fn of(p: f64) -> Norm {
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

    pub fn finish(self, acc: f64) -> f64 {
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
    pub unsafe fn lane<T: Element>(self, q: *const T, n: usize, st: usize) -> f64 {
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
    pub fn step(self, acc: f64, v: f64) -> f64 {
        match self {
            Norm::Count => acc + (v != 0.0) as u8 as f64,
            Norm::Abs => acc + v.abs(),
            Norm::Square => acc + v * v,
            Norm::Pow(p) => acc + v.abs().powf(p),
            Norm::Max => acc.max(v.abs()),
        }
    }
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
}
