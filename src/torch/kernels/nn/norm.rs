//! nn's normalising passes, fused: softmax and log-softmax along the feature dimension, and batch
//! normalisation (forward in training and evaluation, backward for the input and the affine
//! parameters). Each works on contiguous float or double tensors that the Lua modules
//! (lua/nn/SoftMax.lua, LogSoftMax.lua, BatchNormalization.lua) make contiguous; the outputs must
//! not share memory with the inputs.
//!
//! A softmax input is seen as `outer x C x inner` (C the feature dimension): rows of C when inner
//! is 1 (a vector, a batch), planes of C maps of `inner` pixels otherwise (the spatial forms).
//! Batch normalisation sees its input as `N x C x S` (S the pixels of a plane, 1 for N x C) and
//! normalises each of the C channels over N x S. Sums are accumulated in double, as Torch7's
//! reductions do for floats.
//!
//! Work is spread over `workers` (torch.setnumthreads): softmax by rows, or by (image, run of
//! pixels); batch normalisation by channels.

use super::{Real, float_type, slice};
use crate::error::{Error, Result};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::workers;

/// The float operations the fused passes need, on top of nn's `Real`.
pub(super) trait Float:
    Real + Element + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
    fn exp(self) -> Self;
    fn of(v: f64) -> Self;
    fn f(self) -> f64;
}

/// exp for floats in a form the compiler vectorises (libm's expf is one call per element, and
/// softmax is mostly exps): exp(x) = 2^k exp(r) with k = round(x / ln 2) and |r| <= ln 2 / 2,
/// exp(r) by its Taylor polynomial of degree 6 (error below 2e-7, about one float ulp). x is
/// clamped to where 2^k is a normal float, so results below 1.2e-38 read as that; NaN stays NaN.
#[inline(always)]
fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 in two parts, so that r = x - k ln 2 loses nothing.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding 1.5 * 2^23 rounds to an integer with plain float adds (no SSE4.1 round needed).
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.336_54, 88.722_83);
    let t = x * LOG2E + ROUND;
    let k = t - ROUND;
    let r = x - k * LN2_HI - k * LN2_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // k sits in the low mantissa bits of t: integer operations give 2^k's bits where a float to
    // int cast (saturating in Rust) would keep the loop scalar. A NaN x gives a NaN p.
    let k_bits = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    p * f32::from_bits((k_bits.wrapping_add(127) as u32) << 23)
}

/// Independent accumulators for a row's reductions: one dependency chain per lane, so the
/// compiler can keep them in vector registers.
const LANES: usize = 8;

/// The row's largest element; NaN if it holds one (as Torch's max).
fn row_max<T: Float>(x: &[T]) -> T {
    let mut lanes = [T::NEG_INF; LANES];
    let mut nan = false;
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            let v = c[i];
            nan |= v.is_nan();
            lanes[i] = if v > lanes[i] { v } else { lanes[i] };
        }
    }
    for &v in rest {
        nan |= v.is_nan();
        lanes[0] = if v > lanes[0] { v } else { lanes[0] };
    }
    if nan {
        return T::of(f64::NAN);
    }
    lanes.iter().fold(T::NEG_INF, |m, &v| if v > m { v } else { m })
}

/// The sum of the rows' products, accumulated in double.
fn row_dot<T: Float>(a: &[T], b: &[T]) -> f64 {
    let mut lanes = [0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let rest: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(&a, &b)| (a * b).f())
        .sum();
    for (a, b) in ca.zip(cb) {
        for i in 0..LANES {
            lanes[i] += (a[i] * b[i]).f();
        }
    }
    rest + lanes.iter().sum::<f64>()
}

/// The row's sum, accumulated in double.
fn row_sum<T: Float>(x: &[T]) -> f64 {
    let mut lanes = [0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            lanes[i] += c[i].f();
        }
    }
    rest.iter().map(|v| v.f()).sum::<f64>() + lanes.iter().sum::<f64>()
}

macro_rules! float {
    ($t:ty, $exp:expr) => {
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> $t {
                $exp(self)
            }
            #[inline(always)]
            fn of(v: f64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn f(self) -> f64 {
                self as f64
            }
        }
    };
}
float!(f32, exp_f32);
float!(f64, f64::exp);

/// A raw base pointer that the parts of a pass share; each part reads and writes only its own
/// elements (disjoint rows, pixels or channels), which is what makes sharing it sound.
pub(super) struct Base<T>(pub *mut T);
// By hand: derive would ask T to be Copy, and a pointer is copied whatever it points to.
impl<T> Clone for Base<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Base<T> {}
// SAFETY: parts touch disjoint elements (see above); the pass outlives them (workers::run joins).
unsafe impl<T> Send for Base<T> {}
unsafe impl<T> Sync for Base<T> {}

impl<T> Base<T> {
    /// `len` elements from `at`, for reading.
    ///
    /// # Safety
    /// In bounds, and not written by anyone while the slice lives.
    pub unsafe fn get<'a>(self, at: usize, len: usize) -> &'a [T] {
        unsafe { std::slice::from_raw_parts(self.0.add(at), len) }
    }

    /// `len` elements from `at`, for writing.
    ///
    /// # Safety
    /// In bounds, and touched by no one else while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get_mut<'a>(self, at: usize, len: usize) -> &'a mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.0.add(at), len) }
    }
}

/// `t`'s checked base pointer (see `nn::slice`).
pub(super) fn base<T: Element>(t: &Tensor, dtype: DType, len: usize, what: &str) -> Result<Base<T>> {
    // SAFETY: the slice only gives its pointer; no reference outlives this call.
    unsafe { slice::<T>(t, dtype, len, what).map(|s| Base(s.as_mut_ptr())) }
}

/// The bytes a tensor's view spans, as an address range (empty for no elements).
fn span(t: &Tensor) -> std::ops::Range<usize> {
    match &t.storage {
        Some(s) if t.numel() > 0 => {
            let size = t.dtype.size_of();
            let data = s.data_ptr() as usize;
            data + t.offset * size..data + t.extent() * size
        }
        _ => 0..0,
    }
}

/// An error unless no written tensor overlaps a read one or another written one. Views of one
/// storage that do not overlap are fine (getParameters puts gradWeight and gradBias in one).
pub(super) fn apart(written: &[(&Tensor, &str)], read: &[&Tensor]) -> Result<()> {
    let meet = |a: &Tensor, b: &Tensor| {
        let (a, b) = (span(a), span(b));
        !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end
    };
    for (i, (w, what)) in written.iter().enumerate() {
        let others = written
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, (o, _))| *o);
        if read.iter().copied().chain(others).any(|r| meet(w, r)) {
            return Err(Error::argument(format!(
                "{what} must not share memory with the other operands"
            )));
        }
    }
    Ok(())
}

/// `outer x C x inner` of a tensor whose feature dimension is `dim` (0-based).
fn features(x: &Tensor, dim: usize) -> Result<(usize, usize, usize)> {
    if dim >= x.dim() {
        return Err(Error::argument(format!(
            "feature dimension {} out of range for a {}-D input",
            dim + 1,
            x.dim()
        )));
    }
    let outer = x.size[..dim].iter().product();
    let inner = x.size[dim + 1..].iter().product();
    Ok((outer, x.size[dim], inner))
}

/// Which softmax pass.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Soft {
    /// exp(x - max) / sum
    Max,
    /// x - max - log(sum exp(x - max))
    LogMax,
}

/// Parts of `n` items for work of `work` elements in all.
fn parts(n: usize, work: usize) -> usize {
    if workers::worth_spreading(work) {
        workers::threads().min(n).max(1)
    } else {
        1
    }
}

/// The (log-)softmax of `input` along dimension `dim` (0-based) into `output` (same size).
pub fn softmax(kind: Soft, output: &Tensor, input: &Tensor, dim: usize) -> Result<()> {
    let dtype = float_type(input)?;
    let (outer, c, inner) = features(input, dim)?;
    apart(&[(output, "the output")], &[input])?;
    let n = input.numel();
    match dtype {
        DType::Float => softmax_typed::<f32>(
            kind,
            base(output, dtype, n, "the output")?,
            base(input, dtype, n, "the input")?,
            (outer, c, inner),
        ),
        _ => softmax_typed::<f64>(
            kind,
            base(output, dtype, n, "the output")?,
            base(input, dtype, n, "the input")?,
            (outer, c, inner),
        ),
    }
    Ok(())
}

/// The (log-)softmax's input gradient from `gradOutput` and the forward's `output`.
/// softmax: gi = y (g - sum g y); log-softmax: gi = g - exp(y) sum g.
pub fn softmax_backward(
    kind: Soft,
    grad_input: &Tensor,
    grad_output: &Tensor,
    output: &Tensor,
    dim: usize,
) -> Result<()> {
    let dtype = float_type(output)?;
    let (outer, c, inner) = features(output, dim)?;
    apart(&[(grad_input, "gradInput")], &[grad_output, output])?;
    let n = output.numel();
    match dtype {
        DType::Float => softmax_backward_typed::<f32>(
            kind,
            base(grad_input, dtype, n, "gradInput")?,
            base(grad_output, dtype, n, "gradOutput")?,
            base(output, dtype, n, "the output")?,
            (outer, c, inner),
        ),
        _ => softmax_backward_typed::<f64>(
            kind,
            base(grad_input, dtype, n, "gradInput")?,
            base(grad_output, dtype, n, "gradOutput")?,
            base(output, dtype, n, "the output")?,
            (outer, c, inner),
        ),
    }
    Ok(())
}

/// The parts of a softmax pass: runs of rows when inner is 1, else (image, run of pixels), so
/// that one image of many pixels is spread too.
fn softmax_parts((outer, c, inner): (usize, usize, usize)) -> Vec<(usize, std::ops::Range<usize>)> {
    let work = outer * c * inner;
    if inner == 1 {
        let p = parts(outer, work);
        return (0..p).map(|i| (0, workers::bounds(outer, p, i))).collect();
    }
    let per = parts(inner, work).div_ceil(outer.max(1)).max(1);
    let mut v = Vec::with_capacity(outer * per);
    for o in 0..outer {
        for i in 0..per {
            v.push((o, workers::bounds(inner, per, i)));
        }
    }
    v
}

fn softmax_typed<T: Float>(kind: Soft, y: Base<T>, x: Base<T>, (outer, c, inner): (usize, usize, usize)) {
    if outer * c * inner == 0 {
        return;
    }
    workers::run(softmax_parts((outer, c, inner)), |(o, r)| {
        if inner == 1 {
            for row in r {
                // SAFETY: row `row` of C elements, this part's own; input and output are apart.
                let (x, y) = unsafe { (x.get(row * c, c), y.get_mut(row * c, c)) };
                softmax_row(kind, y, x);
            }
            return;
        }
        let (at, len) = (o * c * inner + r.start, r.len());
        let mut max = vec![T::NEG_INF; len];
        for k in 0..c {
            // SAFETY: pixels r of plane k of image o (this part's own).
            let x = unsafe { x.get(at + k * inner, len) };
            for (m, &v) in max.iter_mut().zip(x) {
                // NaN sticks once seen (v > NaN is false); a plain select, so it vectorises.
                *m = if v.is_nan() || v > *m { v } else { *m };
            }
        }
        let mut sum = vec![0f64; len];
        for k in 0..c {
            // SAFETY: as above; the output's pixels are this part's own.
            let (x, y) = unsafe { (x.get(at + k * inner, len), y.get_mut(at + k * inner, len)) };
            for (((y, &v), &m), s) in y.iter_mut().zip(x).zip(&max).zip(sum.iter_mut()) {
                let e = (v - m).exp();
                *s += e.f();
                *y = e;
            }
        }
        // Per pixel, once: the factor (softmax) or the shift (log-softmax) every plane applies.
        let per: Vec<T> = match kind {
            Soft::Max => sum.iter().map(|&s| T::of(1.0 / s)).collect(),
            Soft::LogMax => sum.iter().zip(&max).map(|(&s, &m)| m + T::of(s.ln())).collect(),
        };
        for k in 0..c {
            // SAFETY: as above.
            let (x, y) = unsafe { (x.get(at + k * inner, len), y.get_mut(at + k * inner, len)) };
            match kind {
                Soft::Max => y.iter_mut().zip(&per).for_each(|(y, &f)| *y = *y * f),
                Soft::LogMax => y.iter_mut().zip(x).zip(&per).for_each(|((y, &v), &sh)| *y = v - sh),
            }
        }
    });
}

/// One row's (log-)softmax. A NaN anywhere makes the row's maximum NaN, so the row is NaN, as on
/// the Lua path.
fn softmax_row<T: Float>(kind: Soft, y: &mut [T], x: &[T]) {
    let m = row_max(x);
    // exp(x - max) into y first, then its sum: separate loops vectorise, one with a running
    // double sum does not.
    for (y, &v) in y.iter_mut().zip(x) {
        *y = (v - m).exp();
    }
    let sum = row_sum(y);
    match kind {
        Soft::Max => {
            let inv = 1.0 / sum;
            y.iter_mut().for_each(|y| *y = T::of(y.f() * inv));
        }
        Soft::LogMax => {
            let shift = m + T::of(sum.ln());
            for (y, &v) in y.iter_mut().zip(x) {
                *y = v - shift;
            }
        }
    }
}

fn softmax_backward_typed<T: Float>(
    kind: Soft,
    gi: Base<T>,
    g: Base<T>,
    y: Base<T>,
    (outer, c, inner): (usize, usize, usize),
) {
    if outer * c * inner == 0 {
        return;
    }
    // What each feature adds to the sum: g y (softmax) or g (log-softmax).
    let term = move |g: T, y: T| match kind {
        Soft::Max => (g * y).f(),
        Soft::LogMax => g.f(),
    };
    let grad = move |g: T, y: T, s: T| match kind {
        Soft::Max => y * (g - s),
        Soft::LogMax => g - y.exp() * s,
    };
    workers::run(softmax_parts((outer, c, inner)), |(o, r)| {
        if inner == 1 {
            for row in r {
                // SAFETY: row `row`, this part's own; gradInput is apart from the others.
                let (g, y, gi) = unsafe { (g.get(row * c, c), y.get(row * c, c), gi.get_mut(row * c, c)) };
                let s = T::of(match kind {
                    Soft::Max => row_dot(g, y),
                    Soft::LogMax => row_sum(g),
                });
                for ((gi, &g), &y) in gi.iter_mut().zip(g).zip(y) {
                    *gi = grad(g, y, s);
                }
            }
            return;
        }
        let (at, len) = (o * c * inner + r.start, r.len());
        let mut sum = vec![0f64; len];
        for k in 0..c {
            // SAFETY: pixels r of plane k of image o, this part's own.
            let (g, y) = unsafe { (g.get(at + k * inner, len), y.get(at + k * inner, len)) };
            for ((s, &g), &y) in sum.iter_mut().zip(g).zip(y) {
                *s += term(g, y);
            }
        }
        for k in 0..c {
            // SAFETY: as above; gradInput is apart from the others.
            let (g, y, gi) = unsafe {
                (
                    g.get(at + k * inner, len),
                    y.get(at + k * inner, len),
                    gi.get_mut(at + k * inner, len),
                )
            };
            for (((gi, &g), &y), &s) in gi.iter_mut().zip(g).zip(y).zip(&sum) {
                *gi = grad(g, y, T::of(s));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::kernels::nn::test_tensors::{tensor, values};

    /// The softmax of one column of `C` values, naively.
    fn naive(col: &[f64], log: bool) -> Vec<f64> {
        let s: f64 = col.iter().map(|v| v.exp()).sum();
        col.iter().map(|v| if log { v - s.ln() } else { v.exp() / s }).collect()
    }

    #[test]
    fn rows_and_planes_agree_with_the_formula() {
        // 2 images x 3 features x 2 pixels: feature dimension 1 (0-based).
        let v: Vec<f64> = (0..12).map(|i| (i as f64 * 0.7).sin() * 3.0).collect();
        for (kind, log) in [(Soft::Max, false), (Soft::LogMax, true)] {
            let x = tensor(&v, &[2, 3, 2]);
            let y = Tensor::zeros(DType::Double, &[2, 3, 2]).unwrap();
            softmax(kind, &y, &x, 1).unwrap();
            let got = values(&y);
            for o in 0..2 {
                for p in 0..2 {
                    let col: Vec<f64> = (0..3).map(|k| v[o * 6 + k * 2 + p]).collect();
                    for (k, want) in naive(&col, log).iter().enumerate() {
                        assert!((got[o * 6 + k * 2 + p] - want).abs() < 1e-12);
                    }
                }
            }
            // The same values as rows (the last dimension).
            let x = tensor(&v, &[4, 3]);
            let y = Tensor::zeros(DType::Double, &[4, 3]).unwrap();
            softmax(kind, &y, &x, 1).unwrap();
            let got = values(&y);
            for r in 0..4 {
                for (k, want) in naive(&v[r * 3..r * 3 + 3], log).iter().enumerate() {
                    assert!((got[r * 3 + k] - want).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn float_exp_is_within_an_ulp_or_two() {
        let mut x = -87.0f32;
        while x < 88.0 {
            let (got, want) = (exp_f32(x) as f64, (x as f64).exp());
            assert!(((got - want) / want).abs() < 3e-7, "exp({x}) = {got}, want {want}");
            x += 0.0137;
        }
        assert!(exp_f32(f32::NAN).is_nan());
        assert!(exp_f32(-1000.0) < 1.2e-38);
    }

    #[test]
    fn backward_of_a_row() {
        let y = tensor(&[0.2, 0.3, 0.5], &[3]);
        let g = tensor(&[1.0, 2.0, 3.0], &[3]);
        let gi = Tensor::zeros(DType::Double, &[3]).unwrap();
        softmax_backward(Soft::Max, &gi, &g, &y, 0).unwrap();
        // sum g y = 2.3
        let want = [0.2 * (1.0 - 2.3), 0.3 * (2.0 - 2.3), 0.5 * (3.0 - 2.3)];
        for (a, b) in values(&gi).iter().zip(want) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn aliases_and_bad_dimensions_are_errors() {
        let x = tensor(&[1.0, 2.0], &[2]);
        assert!(softmax(Soft::Max, &x, &x, 0).is_err());
        let y = Tensor::zeros(DType::Double, &[2]).unwrap();
        assert!(softmax(Soft::Max, &y, &x, 1).is_err());
        // Two views of one storage that do not overlap are apart.
        let both = tensor(&[1.0, 2.0, 0.0, 0.0], &[4]);
        let mut lo = both.clone();
        lo.size = vec![2];
        let mut hi = both.clone();
        hi.size = vec![2];
        hi.offset = 2;
        softmax(Soft::Max, &hi, &lo, 0).unwrap();
        assert!((values(&both)[3] - naive(&[1.0, 2.0], false)[1]).abs() < 1e-12);
    }
}
