//! nn's criterions, fused: each loss is one pass over contiguous float or double operands that
//! returns the sum over the elements (or samples) in double, and each gradient one pass that
//! writes `gradInput`. The Lua criterions (lua/nn/*Criterion.lua) keep the module logic: target
//! matching, averaging (`sizeAverage`), the result fields.
//!
//! Pointwise losses ([`Pointwise`]) pair input and target element by element; ClassNLL and
//! MultiMargin take `N x C` rows of scores and N class numbers (1-based, a LongTensor). Elements
//! or rows are spread over `workers` (torch.setnumthreads); a loss's partial sums are added in
//! the order of the parts, so that a result does not depend on which thread ran what.

use super::float_type;
use super::norm::{Base, Float, apart, base};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::workers;

/// The losses that pair input x and target t element by element (d = x - t).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pointwise {
    /// d^2
    Mse,
    /// |d|
    Abs,
    /// 0.5 d^2 where |d| < 1, |d| - 0.5 elsewhere
    SmoothL1,
    /// -w (t log(x + eps) + (1 - t) log(1 - x + eps)), x in [0, 1]
    Bce,
    /// t (log t - x) where t > 0
    KlDiv,
    /// max(0, margin - x t)
    Margin(f64),
}

/// BCE's guard against log(0), as the original's.
const BCE_EPS: f64 = 1e-12;

impl Pointwise {
    /// The loss called `name` (the names the Lua side passes), with its margin.
    pub fn named(name: &str, margin: f64) -> Option<Pointwise> {
        Some(match name {
            "mse" => Pointwise::Mse,
            "abs" => Pointwise::Abs,
            "smoothl1" => Pointwise::SmoothL1,
            "bce" => Pointwise::Bce,
            "kldiv" => Pointwise::KlDiv,
            "margin" => Pointwise::Margin(margin),
            _ => return None,
        })
    }

    #[inline(always)]
    fn loss(self, x: f64, t: f64) -> f64 {
        let d = x - t;
        match self {
            Pointwise::Mse => d * d,
            Pointwise::Abs => d.abs(),
            Pointwise::SmoothL1 if d.abs() < 1.0 => 0.5 * d * d,
            Pointwise::SmoothL1 => d.abs() - 0.5,
            Pointwise::Bce => -(t * (x + BCE_EPS).ln() + (1.0 - t) * (1.0 - x + BCE_EPS).ln()),
            Pointwise::KlDiv if t > 0.0 => t * (t.ln() - x),
            Pointwise::KlDiv => 0.0,
            Pointwise::Margin(m) => (m - x * t).max(0.0),
        }
    }

    /// d loss / dx.
    #[inline(always)]
    fn grad(self, x: f64, t: f64) -> f64 {
        let d = x - t;
        match self {
            Pointwise::Mse => 2.0 * d,
            // +1 at d == 0, as the original's kernel.
            Pointwise::Abs if d >= 0.0 => 1.0,
            Pointwise::Abs => -1.0,
            Pointwise::SmoothL1 => d.clamp(-1.0, 1.0),
            Pointwise::Bce => d / ((1.0 - x + BCE_EPS) * (x + BCE_EPS)),
            Pointwise::KlDiv if t > 0.0 => -t,
            Pointwise::KlDiv => 0.0,
            Pointwise::Margin(m) if x * t < m => -t,
            Pointwise::Margin(_) => 0.0,
        }
    }
}

/// Parts of `n` items, each with its range.
fn ranges(n: usize, work: usize) -> Vec<std::ops::Range<usize>> {
    let parts = if workers::worth_spreading(work) {
        workers::threads().min(n).max(1)
    } else {
        1
    };
    (0..parts).map(|i| workers::bounds(n, parts, i)).collect()
}

/// Sums `f(range)` over the parts of `0..n`, in the parts' order.
fn sum_parts(n: usize, work: usize, f: impl Fn(std::ops::Range<usize>) -> f64 + Sync) -> f64 {
    let parts = ranges(n, work);
    let mut sums = vec![0f64; parts.len()];
    workers::run(parts.into_iter().zip(sums.iter_mut()).collect(), |(r, s)| *s = f(r));
    sums.iter().sum()
}

/// The weights of a pointwise loss: none, or `len` of them repeated along the elements (one per
/// element, or one per column of a batch).
fn weights_len(weights: Option<&Tensor>, n: usize) -> Result<usize> {
    match weights {
        None => Ok(0),
        Some(w) if w.numel() > 0 && n.is_multiple_of(w.numel()) => Ok(w.numel()),
        Some(w) => Err(Error::shape(format!(
            "{} weights do not divide an input of {n} elements",
            w.numel()
        ))),
    }
}

/// The sum of `kind`'s loss over the elements of `input` and `target` (same count), times the
/// weights if any (BCE's).
pub fn pointwise_loss(kind: Pointwise, input: &Tensor, target: &Tensor, weights: Option<&Tensor>) -> Result<f64> {
    let dtype = float_type(input)?;
    let n = input.numel();
    let wn = weights_len(weights, n)?;
    macro_rules! go {
        ($t:ty) => {{
            let x = base::<$t>(input, dtype, n, "the input")?;
            let t = base::<$t>(target, dtype, n, "the target")?;
            let w = weights.map(|w| base::<$t>(w, dtype, wn, "the weights")).transpose()?;
            pointwise_loss_typed(kind, x, t, w, wn, n)
        }};
    }
    match dtype {
        DType::Float => go!(f32),
        _ => go!(f64),
    }
}

fn pointwise_loss_typed<T: Float>(
    kind: Pointwise,
    x: Base<T>,
    t: Base<T>,
    w: Option<Base<T>>,
    wn: usize,
    n: usize,
) -> Result<f64> {
    if kind == Pointwise::Bce {
        // SAFETY: n checked elements, only read.
        let xs = unsafe { x.get(0, n) };
        if xs.iter().any(|&v| !(v.f() >= 0.0 && v.f() <= 1.0)) {
            return Err(Error::argument("input values must be between 0 and 1 (probabilities)"));
        }
    }
    Ok(sum_parts(n, n * 4, |r| {
        // SAFETY: elements r of the checked operands, only read.
        let (xs, ts) = unsafe { (x.get(r.start, r.len()), t.get(r.start, r.len())) };
        match w {
            None => xs.iter().zip(ts).map(|(&x, &t)| kind.loss(x.f(), t.f())).sum(),
            Some(w) => {
                // SAFETY: wn checked elements, only read.
                let ws = unsafe { w.get(0, wn) };
                xs.iter()
                    .zip(ts)
                    .enumerate()
                    .map(|(i, (&x, &t))| kind.loss(x.f(), t.f()) * ws[(r.start + i) % wn].f())
                    .sum()
            }
        }
    }))
}

/// `gradInput = norm * d loss / d input` (times the weights if any), elementwise.
pub fn pointwise_grad(
    kind: Pointwise,
    grad_input: &Tensor,
    input: &Tensor,
    target: &Tensor,
    weights: Option<&Tensor>,
    norm: f64,
) -> Result<()> {
    let dtype = float_type(input)?;
    let n = input.numel();
    let wn = weights_len(weights, n)?;
    let read: Vec<&Tensor> = [Some(input), Some(target), weights].into_iter().flatten().collect();
    apart(&[(grad_input, "gradInput")], &read)?;
    macro_rules! go {
        ($t:ty) => {{
            let g = base::<$t>(grad_input, dtype, n, "gradInput")?;
            let x = base::<$t>(input, dtype, n, "the input")?;
            let t = base::<$t>(target, dtype, n, "the target")?;
            let w = weights.map(|w| base::<$t>(w, dtype, wn, "the weights")).transpose()?;
            workers::run(ranges(n, n * 4), |r| {
                // SAFETY: elements r, this part's own in gradInput, which is apart from the rest.
                let (gs, xs, ts) = unsafe {
                    (
                        g.get_mut(r.start, r.len()),
                        x.get(r.start, r.len()),
                        t.get(r.start, r.len()),
                    )
                };
                for (i, ((g, &x), &t)) in gs.iter_mut().zip(xs).zip(ts).enumerate() {
                    // SAFETY: wn checked elements, only read.
                    let wi = w.map_or(1.0, |w| unsafe { w.get((r.start + i) % wn, 1)[0].f() });
                    *g = <$t as Float>::of(kind.grad(x.f(), t.f()) * norm * wi);
                }
            });
        }};
    }
    match dtype {
        DType::Float => go!(f32),
        _ => go!(f64),
    }
    Ok(())
}

/// The rows (N x C) of a class criterion's input, its N targets (checked to be classes, or
/// `ignore`) and its optional C class weights.
struct Classes<T> {
    x: Base<T>,
    y: Vec<Option<usize>>,
    w: Option<Base<T>>,
    n: usize,
    c: usize,
}

fn classes<T: Float>(
    input: &Tensor,
    target: &Tensor,
    weights: Option<&Tensor>,
    ignore: Option<i64>,
) -> Result<Classes<T>> {
    let dtype = float_type(input)?;
    if input.dim() != 2 {
        return Err(Error::shape(format!(
            "the input must be N x C, got {} dimensions",
            input.dim()
        )));
    }
    let (n, c) = (input.size[0], input.size[1]);
    let t = base::<i64>(target, DType::Long, n, "the target")?;
    // SAFETY: n checked elements, only read here.
    let y = unsafe { t.get(0, n) }
        .iter()
        .map(|&k| {
            if Some(k) == ignore {
                Ok(None)
            } else if k >= 1 && k as usize <= c {
                Ok(Some(k as usize - 1))
            } else {
                Err(Error::argument(format!("target {k} out of range (1 to {c})")))
            }
        })
        .collect::<Result<_>>()?;
    Ok(Classes {
        x: base(input, dtype, n * c, "the input")?,
        y,
        w: weights.map(|w| base(w, dtype, c, "the weights")).transpose()?,
        n,
        c,
    })
}

impl<T: Float> Classes<T> {
    /// Class k's weight.
    fn weight(&self, k: usize) -> f64 {
        // SAFETY: k < c, the weights' checked length; only read.
        self.w.map_or(1.0, |w| unsafe { w.get(k, 1)[0].f() })
    }
}

/// ClassNLL: (the sum over the samples of -w[y] x[y], the total weight), samples whose target is
/// `ignore` left out.
pub fn class_nll(input: &Tensor, target: &Tensor, weights: Option<&Tensor>, ignore: Option<i64>) -> Result<(f64, f64)> {
    fn run<T: Float>(k: Classes<T>) -> (f64, f64) {
        let (mut loss, mut total) = (0.0, 0.0);
        for (i, y) in k.y.iter().enumerate() {
            if let Some(y) = *y {
                let w = k.weight(y);
                // SAFETY: element (i, y) of the checked N x C input.
                loss -= w * unsafe { k.x.get(i * k.c + y, 1)[0].f() };
                total += w;
            }
        }
        (loss, total)
    }
    match float_type(input)? {
        DType::Float => Ok(run(classes::<f32>(input, target, weights, ignore)?)),
        _ => Ok(run(classes::<f64>(input, target, weights, ignore)?)),
    }
}

/// ClassNLL's gradient: `gradInput` (N x C) zero but at each kept sample's target, -w[y] norm.
pub fn class_nll_backward(
    grad_input: &Tensor,
    input: &Tensor,
    target: &Tensor,
    weights: Option<&Tensor>,
    ignore: Option<i64>,
    norm: f64,
) -> Result<()> {
    fn run<T: Float>(k: Classes<T>, g: Base<T>, norm: f64) {
        // SAFETY: the checked N x C gradInput, apart from the other operands.
        let g = unsafe { g.get_mut(0, k.n * k.c) };
        g.fill(T::ZERO);
        for (i, y) in k.y.iter().enumerate() {
            if let Some(y) = *y {
                g[i * k.c + y] = T::of(-k.weight(y) * norm);
            }
        }
    }
    let dtype = float_type(input)?;
    let read: Vec<&Tensor> = [Some(input), Some(target), weights].into_iter().flatten().collect();
    apart(&[(grad_input, "gradInput")], &read)?;
    let numel = input.numel();
    match dtype {
        DType::Float => run(
            classes::<f32>(input, target, weights, ignore)?,
            base(grad_input, dtype, numel, "gradInput")?,
            norm,
        ),
        _ => run(
            classes::<f64>(input, target, weights, ignore)?,
            base(grad_input, dtype, numel, "gradInput")?,
            norm,
        ),
    }
    Ok(())
}

/// MultiMargin: the sum over the samples and the classes i other than the target y of
/// max(0, margin - x[y] + x[i])^p, times w[y] (not divided by C: the Lua side averages).
pub fn multi_margin(input: &Tensor, target: &Tensor, weights: Option<&Tensor>, p: u32, margin: f64) -> Result<f64> {
    fn run<T: Float>(k: Classes<T>, p: u32, margin: f64) -> f64 {
        let c = k.c;
        sum_parts(k.n, k.n * c, |r| {
            let mut s = 0.0;
            for i in r {
                let y = k.y[i].expect("no ignored class");
                // SAFETY: row i of the checked input, only read.
                let row = unsafe { k.x.get(i * c, c) };
                let (xy, w) = (row[y].f(), k.weight(y));
                for (j, &v) in row.iter().enumerate() {
                    let z = margin - xy + v.f();
                    if j != y && z > 0.0 {
                        s += w * if p == 2 { z * z } else { z };
                    }
                }
            }
            s
        })
    }
    match float_type(input)? {
        DType::Float => Ok(run(classes::<f32>(input, target, weights, None)?, p, margin)),
        _ => Ok(run(classes::<f64>(input, target, weights, None)?, p, margin)),
    }
}

/// MultiMargin's gradient into `gradInput` (N x C): each counted class gets g w[y] (p = 1) or
/// 2 g z w[y] (p = 2), the target class minus their sum.
pub fn multi_margin_backward(
    grad_input: &Tensor,
    input: &Tensor,
    target: &Tensor,
    weights: Option<&Tensor>,
    p: u32,
    margin: f64,
    g: f64,
) -> Result<()> {
    fn run<T: Float>(k: Classes<T>, gi: Base<T>, p: u32, margin: f64, g: f64) {
        let c = k.c;
        workers::run(ranges(k.n, k.n * c), |r| {
            for i in r {
                let y = k.y[i].expect("no ignored class");
                // SAFETY: row i, this part's own in gradInput, which is apart from the input.
                let (row, out) = unsafe { (k.x.get(i * c, c), gi.get_mut(i * c, c)) };
                let (xy, w) = (row[y].f(), k.weight(y));
                let mut sum = 0.0;
                for (j, (o, &v)) in out.iter_mut().zip(row).enumerate() {
                    let z = margin - xy + v.f();
                    let d = if j != y && z > 0.0 {
                        w * g * if p == 2 { 2.0 * z } else { 1.0 }
                    } else {
                        0.0
                    };
                    sum += d;
                    *o = T::of(d);
                }
                out[y] = T::of(-sum);
            }
        });
    }
    if p != 1 && p != 2 {
        return Err(Error::argument(format!("p must be 1 or 2, got {p}")));
    }
    let dtype = float_type(input)?;
    let read: Vec<&Tensor> = [Some(input), Some(target), weights].into_iter().flatten().collect();
    apart(&[(grad_input, "gradInput")], &read)?;
    let numel = input.numel();
    match dtype {
        DType::Float => run(
            classes::<f32>(input, target, weights, None)?,
            base(grad_input, dtype, numel, "gradInput")?,
            p,
            margin,
            g,
        ),
        _ => run(
            classes::<f64>(input, target, weights, None)?,
            base(grad_input, dtype, numel, "gradInput")?,
            p,
            margin,
            g,
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::kernels::nn::slice;
    use crate::torch::kernels::nn::test_tensors::tensor;

    fn longs(v: &[i64]) -> Tensor {
        let t = Tensor::zeros(DType::Long, &[v.len()]).unwrap();
        unsafe { slice::<i64>(&t, DType::Long, v.len(), "t").unwrap().copy_from_slice(v) };
        t
    }

    #[test]
    fn pointwise_sums() {
        let x = tensor(&[0.5, -1.0, 2.0], &[3]);
        let t = tensor(&[0.0, 1.0, 0.0], &[3]);
        assert_eq!(pointwise_loss(Pointwise::Mse, &x, &t, None).unwrap(), 0.25 + 4.0 + 4.0);
        assert_eq!(pointwise_loss(Pointwise::Abs, &x, &t, None).unwrap(), 0.5 + 2.0 + 2.0);
        assert_eq!(
            pointwise_loss(Pointwise::SmoothL1, &x, &t, None).unwrap(),
            0.125 + 1.5 + 1.5
        );
        let w = tensor(&[2.0], &[1]);
        assert_eq!(pointwise_loss(Pointwise::Mse, &x, &t, Some(&w)).unwrap(), 2.0 * 8.25);
        assert!(pointwise_loss(Pointwise::Bce, &x, &t, None).is_err());
    }

    #[test]
    fn class_nll_skips_the_ignored_class() {
        let x = tensor(&[-1.0, -2.0, -3.0, -4.0], &[2, 2]);
        let w = tensor(&[1.0, 3.0], &[2]);
        let (loss, total) = class_nll(&x, &longs(&[2, -100]), Some(&w), Some(-100)).unwrap();
        assert_eq!((loss, total), (6.0, 3.0));
        assert!(class_nll(&x, &longs(&[3, 1]), None, Some(-100)).is_err());
        let g = Tensor::zeros(DType::Double, &[2, 2]).unwrap();
        class_nll_backward(&g, &x, &longs(&[2, 1]), None, Some(-100), 0.5).unwrap();
        let got = unsafe { slice::<f64>(&g, DType::Double, 4, "g").unwrap().to_vec() };
        assert_eq!(got, vec![0.0, -0.5, -0.5, 0.0]);
    }
}
