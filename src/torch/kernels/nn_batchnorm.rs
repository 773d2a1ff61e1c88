//! Batch normalisation, fused (lua/nn/BatchNormalization.lua and its Spatial and Volumetric
//! forms): the input is a contiguous `N x C x S` float or double tensor (S the pixels of a plane,
//! 1 for an `N x C` batch), and each of the C channels is normalised over its `M = N x S` values.
//!
//! In training the forward pass takes the batch's mean and (biased) variance, keeps them as
//! `save_mean` and `save_std` (the inverse standard deviation) for the backward pass, and moves
//! the running estimates by `momentum` (the running variance takes the unbiased variance); in
//! evaluation both passes use the running estimates. Sums are accumulated in double. Channels are
//! spread over `workers` (torch.setnumthreads).

use super::nn_norm::{Base, Float, apart, base};
use super::workers;
use crate::error::{Error, Result};
use crate::torch::dtype::DType;
use crate::torch::tensor::Tensor;

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
    super::nn::float_type(x)
}

/// Runs `f(channel)` over every channel, spread over the workers when worth it.
fn each_channel(c: usize, work: usize, f: impl Fn(usize) + Sync) {
    let parts = if workers::worth_spreading(work) {
        workers::threads().min(c).max(1)
    } else {
        1
    };
    workers::run((0..parts).map(|i| workers::bounds(c, parts, i)).collect(), |r| {
        r.for_each(&f)
    });
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
    each_channel(c, n * c * s, |ch| {
        // SAFETY (every access below): channel ch's elements of each operand, which only this
        // part touches; reads and writes are of apart tensors.
        let plane = |i: usize| unsafe { t.x.get((i * c + ch) * s, s) };
        let (mean, invstd) = if train {
            let mean = (0..n).map(|i| plane(i).iter().map(|v| v.f()).sum::<f64>()).sum::<f64>() / m as f64;
            let var = (0..n)
                .map(|i| plane(i).iter().map(|v| (v.f() - mean) * (v.f() - mean)).sum::<f64>())
                .sum::<f64>()
                / m as f64;
            let unbiased = if m > 1 { var * m as f64 / (m - 1) as f64 } else { var };
            let invstd = 1.0 / (var + eps).sqrt();
            unsafe {
                let rm = &mut t.rm.get_mut(ch, 1)[0];
                *rm = T::of((1.0 - momentum) * rm.f() + momentum * mean);
                let rv = &mut t.rv.get_mut(ch, 1)[0];
                *rv = T::of((1.0 - momentum) * rv.f() + momentum * unbiased);
                t.sm.expect("checked in training").get_mut(ch, 1)[0] = T::of(mean);
                t.ss.expect("checked in training").get_mut(ch, 1)[0] = T::of(invstd);
            }
            (mean, invstd)
        } else {
            unsafe { (t.rm.get(ch, 1)[0].f(), 1.0 / (t.rv.get(ch, 1)[0].f() + eps).sqrt()) }
        };
        // y = (x - mean) invstd w + b = x a + (b - mean a)
        let a = invstd * unsafe { at(t.w, ch, 1.0) };
        let shift = unsafe { at(t.b, ch, 0.0) } - mean * a;
        let (a, shift) = (T::of(a), T::of(shift));
        for i in 0..n {
            let out = unsafe { y.get_mut((i * c + ch) * s, s) };
            for (y, &x) in out.iter_mut().zip(plane(i)) {
                *y = x * a + shift;
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
    each_channel(c, n * c * s, |ch| {
        // SAFETY (every access below): channel ch's elements, only this part's; the written
        // tensors are apart from the read ones.
        let (mean, invstd) = unsafe {
            if train {
                (at(t.sm, ch, 0.0), at(t.ss, ch, 0.0))
            } else {
                (t.rm.get(ch, 1)[0].f(), 1.0 / (t.rv.get(ch, 1)[0].f() + eps).sqrt())
            }
        };
        let plane = |p: Base<T>, i: usize| unsafe { p.get((i * c + ch) * s, s) };
        // sum g and sum g (x - mean)
        let (mut sum, mut dot) = (0f64, 0f64);
        for i in 0..n {
            for (&g, &x) in plane(g, i).iter().zip(plane(t.x, i)) {
                sum += g.f();
                dot += g.f() * (x.f() - mean);
            }
        }
        if let Some(gi) = gi {
            let w = unsafe { at(t.w, ch, 1.0) };
            // train: w invstd (g - sum/M - (x - mean) invstd^2 dot/M); eval: w invstd g
            let a = T::of(w * invstd);
            let (k, sub) = if train {
                (T::of(invstd * invstd * dot / m as f64), T::of(sum / m as f64))
            } else {
                (T::ZERO, T::ZERO)
            };
            let mean = T::of(mean);
            for i in 0..n {
                let out = unsafe { gi.get_mut((i * c + ch) * s, s) };
                for ((o, &g), &x) in out.iter_mut().zip(plane(g, i)).zip(plane(t.x, i)) {
                    *o = (g - sub - (x - mean) * k) * a;
                }
            }
        }
        unsafe {
            if let Some(gw) = gw {
                let w = &mut gw.get_mut(ch, 1)[0];
                *w = T::of(w.f() + scale * dot * invstd);
            }
            if let Some(gb) = gb {
                let b = &mut gb.get_mut(ch, 1)[0];
                *b = T::of(b.f() + scale * sum);
            }
        }
    });
}
