//! Batch normalisation, fused (lua/nn/BatchNormalization.lua and its Spatial and Volumetric
//! forms): the input is a contiguous `N x C x S` float or double tensor (S the pixels of a plane,
//! 1 for an `N x C` batch), and each of the C channels is normalised over its `M = N x S` values.
//!
//! In training the forward pass takes the batch's mean and (biased) variance, keeps them as
//! `save_mean` and `save_std` (the inverse standard deviation) for the backward pass, and moves
//! the running estimates by `momentum` (the running variance takes the unbiased variance); in
//! evaluation both passes use the running estimates. Sums are accumulated in double. Channels are
//! spread over `workers` (torch.setnumthreads).

use super::norm::{Base, Float, apart, base};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::workers;

/// The operands both passes share.
pub struct BatchNorm<'a> {
    /// N x C x S, contiguous.
    pub input: &'a Tensor,
    /// C each (None: not affine).
    pub weight: Option<&'a Tensor>,
    pub bias: Option<&'a Tensor>,
    pub running_mean: &'a Tensor,
    pub running_var: &'a Tensor,
    /// C each, written by a training forward and read by a training backward.
    pub save_mean: Option<&'a Tensor>,
    pub save_std: Option<&'a Tensor>,
    pub train: bool,
    pub eps: f64,
}

/// The gradients a backward pass writes (None: not asked for).
pub struct Gradients<'a> {
    /// N x C x S, overwritten.
    pub input: Option<&'a Tensor>,
    /// C each, accumulated (`+= scale * ...`).
    pub weight: Option<&'a Tensor>,
    pub bias: Option<&'a Tensor>,
    pub scale: f64,
}

/// The typed pointers of a batch normalisation's operands.
struct Typed<T> {
    x: Base<T>,
    w: Option<Base<T>>,
    b: Option<Base<T>>,
    rm: Base<T>,
    rv: Base<T>,
    sm: Option<Base<T>>,
    ss: Option<Base<T>>,
    n: usize,
    c: usize,
    s: usize,
}

impl BatchNorm<'_> {
    fn typed<T: Float>(&self, dtype: DType) -> Result<Typed<T>> {
        let x = self.input;
        if x.dim() != 3 {
            return Err(Error::shape(format!(
                "the input must be N x C x S, got {} dimensions",
                x.dim()
            )));
        }
        let (n, c, s) = (x.size[0], x.size[1], x.size[2]);
        let opt = |t: Option<&Tensor>, what| t.map(|t| base::<T>(t, dtype, c, what)).transpose();
        let saved = |t: Option<&Tensor>, what| {
            if self.train && t.is_none() {
                return Err(Error::argument(format!("{what} is needed in training")));
            }
            opt(if self.train { t } else { None }, what)
        };
        Ok(Typed {
            x: base(x, dtype, n * c * s, "the input")?,
            w: opt(self.weight, "the weight")?,
            b: opt(self.bias, "the bias")?,
            rm: base(self.running_mean, dtype, c, "the running mean")?,
            rv: base(self.running_var, dtype, c, "the running variance")?,
            sm: saved(self.save_mean, "the saved mean")?,
            ss: saved(self.save_std, "the saved deviation")?,
            n,
            c,
            s,
        })
    }
}

/// The input's type, checked to be float or double.
fn dtype_of(x: &Tensor) -> Result<DType> {
    super::float_type(x)
}

/// Runs `f(channels)` over runs of channels, spread over the workers when worth it.
fn each_channels(c: usize, work: usize, f: impl Fn(std::ops::Range<usize>) + Sync) {
    let parts = if workers::worth_spreading(work) {
        workers::threads().min(c).max(1)
    } else {
        1
    };
    workers::run((0..parts).map(|i| workers::bounds(c, parts, i)).collect(), f);
}

/// For each image, the block of channels `r` (contiguous: `r.len() x S`): a channel's values are
/// S apart runs in N blocks. Walking image by image reads memory in order, which matters most
/// for an `N x C` batch (S = 1), where one channel's values are C apart.
///
/// # Safety
/// `p` covers the N x C x S elements, and the blocks are not written while read.
unsafe fn blocks<'a, T: 'a>(
    p: Base<T>,
    (n, c, s): (usize, usize, usize),
    r: &std::ops::Range<usize>,
) -> impl Iterator<Item = &'a [T]> {
    let (from, len) = (r.start * s, r.len() * s);
    (0..n).map(move |i| unsafe { p.get(i * c * s + from, len) })
}

/// Adds `f(channel in the run, value)` of every element of a block to `acc` (one per channel).
#[inline(always)]
fn accumulate<T: Float>(acc: &mut [f64], block: &[T], s: usize, f: impl Fn(usize, T) -> f64) {
    if s == 1 {
        for (k, (a, &v)) in acc.iter_mut().zip(block).enumerate() {
            *a += f(k, v);
        }
    } else {
        for (k, (a, plane)) in acc.iter_mut().zip(block.chunks_exact(s)).enumerate() {
            *a += plane.iter().map(|&v| f(k, v)).sum::<f64>();
        }
    }
}

/// Element `i` of an optional per-channel operand, or `default`.
///
/// # Safety
/// `i` within the operand's C elements, not being written.
unsafe fn at<T: Float>(p: Option<Base<T>>, i: usize, default: f64) -> f64 {
    p.map_or(default, |p| unsafe { p.get(i, 1)[0].f() })
}

/// The forward pass into `output` (N x C x S, apart from the operands).
pub fn batch_norm_forward(bn: &BatchNorm, output: &Tensor, momentum: f64) -> Result<()> {
    let dtype = dtype_of(bn.input)?;
    let read: Vec<&Tensor> = [
        Some(bn.input),
        bn.weight,
        bn.bias,
        Some(bn.running_mean),
        Some(bn.running_var),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut written = vec![(output, "the output")];
    if bn.train {
        written.extend([
            (bn.running_mean, "the running mean"),
            (bn.running_var, "the running variance"),
        ]);
        written.extend(bn.save_mean.map(|t| (t, "the saved mean")));
        written.extend(bn.save_std.map(|t| (t, "the saved deviation")));
    }
    // The running estimates are read and written by their own channel only.
    apart(&written, &read[..1])?;
    match dtype {
        DType::Float => forward_typed::<f32>(
            bn.typed(dtype)?,
            base(output, dtype, bn.input.numel(), "the output")?,
            bn,
            momentum,
        ),
        _ => forward_typed::<f64>(
            bn.typed(dtype)?,
            base(output, dtype, bn.input.numel(), "the output")?,
            bn,
            momentum,
        ),
    }
    Ok(())
}

fn forward_typed<T: Float>(t: Typed<T>, y: Base<T>, bn: &BatchNorm, momentum: f64) {
    let (n, c, s) = (t.n, t.c, t.s);
    let m = n * s;
    if m == 0 {
        return;
    }
    let (train, eps) = (bn.train, bn.eps);
    each_channels(c, n * c * s, |r| {
        let k = r.len();
        // SAFETY (every access below): channels r of each operand, which only this part
        // touches; the written tensors are apart from the read ones.
        let (mean, invstd): (Vec<f64>, Vec<f64>) = if train {
            let mut sum = vec![0f64; k];
            unsafe { blocks(t.x, (n, c, s), &r) }.for_each(|b| accumulate(&mut sum, b, s, |_, v| v.f()));
            let mean: Vec<f64> = sum.iter().map(|v| v / m as f64).collect();
            let mut sq = vec![0f64; k];
            unsafe { blocks(t.x, (n, c, s), &r) }.for_each(|b| {
                accumulate(&mut sq, b, s, |j, v| {
                    let d = v.f() - mean[j];
                    d * d
                })
            });
            let mut invstd = Vec::with_capacity(k);
            for (j, ch) in r.clone().enumerate() {
                let var = sq[j] / m as f64;
                let unbiased = if m > 1 { var * m as f64 / (m - 1) as f64 } else { var };
                invstd.push(1.0 / (var + eps).sqrt());
                unsafe {
                    let rm = &mut t.rm.get_mut(ch, 1)[0];
                    *rm = T::of((1.0 - momentum) * rm.f() + momentum * mean[j]);
                    let rv = &mut t.rv.get_mut(ch, 1)[0];
                    *rv = T::of((1.0 - momentum) * rv.f() + momentum * unbiased);
                    t.sm.expect("checked in training").get_mut(ch, 1)[0] = T::of(mean[j]);
                    t.ss.expect("checked in training").get_mut(ch, 1)[0] = T::of(invstd[j]);
                }
            }
            (mean, invstd)
        } else {
            r.clone()
                .map(|ch| unsafe { (t.rm.get(ch, 1)[0].f(), 1.0 / (t.rv.get(ch, 1)[0].f() + eps).sqrt()) })
                .unzip()
        };
        // y = (x - mean) invstd w + b = x a + (b - mean a)
        let mut a = Vec::with_capacity(k);
        let mut shift = Vec::with_capacity(k);
        for (j, ch) in r.clone().enumerate() {
            let aj = invstd[j] * unsafe { at(t.w, ch, 1.0) };
            a.push(T::of(aj));
            shift.push(T::of(unsafe { at(t.b, ch, 0.0) } - mean[j] * aj));
        }
        let (from, len) = (r.start * s, k * s);
        for (i, x) in unsafe { blocks(t.x, (n, c, s), &r) }.enumerate() {
            let out = unsafe { y.get_mut(i * c * s + from, len) };
            if s == 1 {
                for (((y, &x), &a), &b) in out.iter_mut().zip(x).zip(&a).zip(&shift) {
                    *y = x * a + b;
                }
            } else {
                for (((o, x), &a), &b) in out.chunks_exact_mut(s).zip(x.chunks_exact(s)).zip(&a).zip(&shift) {
                    o.iter_mut().zip(x).for_each(|(y, &x)| *y = x * a + b);
                }
            }
        }
    });
}

/// The backward pass from `grad_output` (N x C x S): the input gradient and/or the affine
/// parameters' (see `Gradients`), with the statistics the forward used.
pub fn batch_norm_backward(bn: &BatchNorm, grad_output: &Tensor, grads: &Gradients) -> Result<()> {
    let dtype = dtype_of(bn.input)?;
    if grad_output.size != bn.input.size {
        return Err(Error::shape("gradOutput must have the input's size"));
    }
    let mut written = Vec::new();
    written.extend(grads.input.map(|t| (t, "gradInput")));
    written.extend(grads.weight.map(|t| (t, "gradWeight")));
    written.extend(grads.bias.map(|t| (t, "gradBias")));
    let read: Vec<&Tensor> = [Some(bn.input), Some(grad_output), bn.weight, bn.save_mean, bn.save_std]
        .into_iter()
        .flatten()
        .chain([bn.running_mean, bn.running_var])
        .collect();
    apart(&written, &read)?;
    let numel = bn.input.numel();
    macro_rules! go {
        ($t:ty) => {{
            let t = bn.typed::<$t>(dtype)?;
            let c = t.c;
            let g = base::<$t>(grad_output, dtype, numel, "gradOutput")?;
            let gi = grads
                .input
                .map(|x| base::<$t>(x, dtype, numel, "gradInput"))
                .transpose()?;
            let gw = grads
                .weight
                .map(|x| base::<$t>(x, dtype, c, "gradWeight"))
                .transpose()?;
            let gb = grads.bias.map(|x| base::<$t>(x, dtype, c, "gradBias")).transpose()?;
            backward_typed::<$t>(t, g, gi, gw, gb, bn, grads.scale)
        }};
    }
    match dtype {
        DType::Float => go!(f32),
        _ => go!(f64),
    }
    Ok(())
}

fn backward_typed<T: Float>(
    t: Typed<T>,
    g: Base<T>,
    gi: Option<Base<T>>,
    gw: Option<Base<T>>,
    gb: Option<Base<T>>,
    bn: &BatchNorm,
    scale: f64,
) {
    let (n, c, s) = (t.n, t.c, t.s);
    let m = n * s;
    if m == 0 {
        return;
    }
    let (train, eps) = (bn.train, bn.eps);
    each_channels(c, n * c * s, |r| {
        let k = r.len();
        // SAFETY (every access below): channels r, only this part's; the written tensors are
        // apart from the read ones.
        let (mean, invstd): (Vec<f64>, Vec<f64>) = r
            .clone()
            .map(|ch| unsafe {
                if train {
                    (at(t.sm, ch, 0.0), at(t.ss, ch, 0.0))
                } else {
                    (t.rm.get(ch, 1)[0].f(), 1.0 / (t.rv.get(ch, 1)[0].f() + eps).sqrt())
                }
            })
            .unzip();
        // sum g and sum g (x - mean), per channel
        let (mut sum, mut dot) = (vec![0f64; k], vec![0f64; k]);
        let gs = unsafe { blocks(g, (n, c, s), &r) };
        for (gb, xb) in gs.zip(unsafe { blocks(t.x, (n, c, s), &r) }) {
            accumulate(&mut sum, gb, s, |_, v| v.f());
            if s == 1 {
                for (j, ((d, &g), &x)) in dot.iter_mut().zip(gb).zip(xb).enumerate() {
                    *d += g.f() * (x.f() - mean[j]);
                }
            } else {
                for (j, ((d, g), x)) in dot
                    .iter_mut()
                    .zip(gb.chunks_exact(s))
                    .zip(xb.chunks_exact(s))
                    .enumerate()
                {
                    *d += g.iter().zip(x).map(|(&g, &x)| g.f() * (x.f() - mean[j])).sum::<f64>();
                }
            }
        }
        if let Some(gi) = gi {
            // train: w invstd (g - sum/M - (x - mean) invstd^2 dot/M); eval: w invstd g
            let (mut a, mut kk, mut sub, mut mu) = (vec![], vec![], vec![], vec![]);
            for (j, ch) in r.clone().enumerate() {
                a.push(T::of(unsafe { at(t.w, ch, 1.0) } * invstd[j]));
                mu.push(T::of(mean[j]));
                if train {
                    kk.push(T::of(invstd[j] * invstd[j] * dot[j] / m as f64));
                    sub.push(T::of(sum[j] / m as f64));
                } else {
                    kk.push(T::ZERO);
                    sub.push(T::ZERO);
                }
            }
            let (from, len) = (r.start * s, k * s);
            let gs = unsafe { blocks(g, (n, c, s), &r) };
            for (i, (gb, xb)) in gs.zip(unsafe { blocks(t.x, (n, c, s), &r) }).enumerate() {
                let out = unsafe { gi.get_mut(i * c * s + from, len) };
                let one = |j: usize, g: T, x: T| (g - sub[j] - (x - mu[j]) * kk[j]) * a[j];
                if s == 1 {
                    for (j, ((o, &g), &x)) in out.iter_mut().zip(gb).zip(xb).enumerate() {
                        *o = one(j, g, x);
                    }
                } else {
                    for (j, ((o, g), x)) in out
                        .chunks_exact_mut(s)
                        .zip(gb.chunks_exact(s))
                        .zip(xb.chunks_exact(s))
                        .enumerate()
                    {
                        for ((o, &g), &x) in o.iter_mut().zip(g).zip(x) {
                            *o = one(j, g, x);
                        }
                    }
                }
            }
        }
        for (j, ch) in r.clone().enumerate() {
            unsafe {
                if let Some(gw) = gw {
                    let w = &mut gw.get_mut(ch, 1)[0];
                    *w = T::of(w.f() + scale * dot[j] * invstd[j]);
                }
                if let Some(gb) = gb {
                    let b = &mut gb.get_mut(ch, 1)[0];
                    *b = T::of(b.f() + scale * sum[j]);
                }
            }
        }
    });
}
