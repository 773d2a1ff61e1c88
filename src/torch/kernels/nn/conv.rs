//! Convolutions with unit steps, computed on the images themselves rather than on unfolded
//! columns (the unfold + gemm of `kernels::nn`). Why: a small network's products are skinny (a
//! first layer has 6 filters of 75 taps), so BLAS runs them far below its peak, and the columns
//! (taps x positions x images) are tens of times the images' size: writing them and reading them
//! back cost more than the arithmetic.
//!
//! With unit steps, the element at kernel offset `k` of the window of output position `q` is the
//! input element `offs[k]` further on in the flattened (padded) plane, provided the output is laid
//! out "wide", on the input's row pitch: each row of out[2] positions is followed by the k[2]-1
//! positions whose windows would run off the row (computed, then dropped). Over the wide
//! positions the convolution is a product whose right operand's rows are stretches of the input
//! itself: y[m][q] = sum_t a[m][t] * x[off[t] + q], the tap t running over (channel, kernel
//! offset). Tiles of a few rows by two vector registers of positions keep their sums in registers
//! from the first tap to the last. The input's gradient is the same kind of product over the
//! output's gradient (a correlation with the flipped kernel), and the weight's gradient sums
//! gradOutput times the shifted input over the positions.
//!
//! Images are independent, so each pass runs on runs of images in parallel (`workers`).

use super::tiles::{Lanes, Packed, madd};
use super::{Windows, float_type, slice};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::workers;

/// A window geometry with unit steps, flattened (see the module comment).
struct Flat {
    size: [usize; 3],
    pad: [usize; 3],
    out: [usize; 3],
    /// Row-major strides of the padded plane.
    st: [usize; 3],
    /// Elements of an input plane and of a padded one.
    plane: usize,
    vol: usize,
    /// Whether planes are copied into padded ones (padding, or windows reaching past the input).
    copy: bool,
    /// Each kernel offset's distance from its window's first element, in the padded plane
    /// (increasing, the last dimension fastest, as the weights are laid out).
    offs: Vec<usize>,
    /// Wide positions, from the first window to the last one included.
    wide: usize,
}

impl Flat {
    fn new(w: &Windows) -> Result<Flat> {
        if w.d != [1, 1, 1] {
            return Err(Error::argument("direct convolutions need unit steps"));
        }
        if w.plane() == 0 || w.positions() == 0 {
            return Err(Error::shape("the convolution's input or output is empty"));
        }
        let p: [usize; 3] = std::array::from_fn(|j| (w.size[j] + 2 * w.pad[j]).max(w.out[j] + (w.k[j] - 1) * w.dil[j]));
        let st = [p[1] * p[2], p[2], 1];
        let mut offs = Vec::with_capacity(w.window());
        for k0 in 0..w.k[0] {
            for k1 in 0..w.k[1] {
                for k2 in 0..w.k[2] {
                    offs.push(k0 * w.dil[0] * st[0] + k1 * w.dil[1] * st[1] + k2 * w.dil[2]);
                }
            }
        }
        Ok(Flat {
            size: w.size,
            pad: w.pad,
            out: w.out,
            st,
            plane: w.plane(),
            vol: p.iter().product(),
            copy: p != w.size,
            offs,
            wide: (w.out[0] - 1) * st[0] + (w.out[1] - 1) * st[1] + w.out[2],
        })
    }

    /// Output positions per plane.
    fn positions(&self) -> usize {
        self.out.iter().product()
    }

    /// Calls f(index of the row's first output position, its wide position) for each row of
    /// out[2] output positions.
    fn out_rows(&self, mut f: impl FnMut(usize, usize)) {
        let mut at = 0;
        for o0 in 0..self.out[0] {
            for o1 in 0..self.out[1] {
                f(at, o0 * self.st[0] + o1 * self.st[1]);
                at += self.out[2];
            }
        }
    }

    /// Calls f(index of the row's first input element, where it lies in the padded plane) for
    /// each row of size[2] input elements.
    fn in_rows(&self, mut f: impl FnMut(usize, usize)) {
        let mut at = 0;
        for i0 in 0..self.size[0] {
            for i1 in 0..self.size[1] {
                f(
                    at,
                    (i0 + self.pad[0]) * self.st[0] + (i1 + self.pad[1]) * self.st[1] + self.pad[2],
                );
                at += self.size[2];
            }
        }
    }

    /// An image's planes (C x plane) into padded ones (C x vol) whose padding is already zero.
    fn pad_image<T: Copy>(&self, x: &[T], padded: &mut [T]) {
        let n = self.size[2];
        for (src, dst) in x.chunks_exact(self.plane).zip(padded.chunks_exact_mut(self.vol)) {
            self.in_rows(|a, b| dst[b..b + n].copy_from_slice(&src[a..a + n]));
        }
    }

    /// The input part of padded planes (C x vol) into an image's planes (C x plane).
    fn unpad_image<T: Copy>(&self, padded: &[T], x: &mut [T]) {
        let n = self.size[2];
        for (src, dst) in padded.chunks_exact(self.vol).zip(x.chunks_exact_mut(self.plane)) {
            self.in_rows(|a, b| dst[a..a + n].copy_from_slice(&src[b..b + n]));
        }
    }

    /// One image's output planes (M x positions) spread over wide rows (M x ld, starting `lead`
    /// elements in); the gaps are left as they are (zero).
    fn spread<T: Copy>(&self, planes: &[T], wide: &mut [T], ld: usize, lead: usize) {
        let (o, n) = (self.positions(), self.out[2]);
        for (m, src) in planes.chunks_exact(o).enumerate() {
            let dst = &mut wide[m * ld + lead..];
            self.out_rows(|a, q| dst[q..q + n].copy_from_slice(&src[a..a + n]));
        }
    }
}

/// The shapes of one pass: images, input planes, output planes, and the flat geometry.
struct Shape {
    n: usize,
    c: usize,
    m: usize,
    f: Flat,
}

impl Shape {
    /// From the input x (N x C x size...) and the weight (M x C*K).
    fn new(x: &Tensor, weight: &Tensor, w: &Windows) -> Result<Shape> {
        let f = Flat::new(w)?;
        if x.dim() < 2 || weight.dim() != 2 {
            return Err(Error::shape("a batch of images and a weight matrix expected"));
        }
        let (n, c, m) = (x.size[0], x.size[1], weight.size[0]);
        if x.numel() != n * c * f.plane || weight.size[1] != c * f.offs.len() {
            return Err(Error::shape(format!(
                "the input does not match the geometry, or the weight ({m} x {}) its {c} planes of {} taps",
                weight.size[1],
                f.offs.len()
            )));
        }
        Ok(Shape { n, c, m, f })
    }

    /// Each tap (channel, kernel offset) of the input as an offset into an image's padded planes.
    fn input_taps(&self) -> Vec<usize> {
        (0..self.c)
            .flat_map(|c| self.f.offs.iter().map(move |&o| c * self.f.vol + o))
            .collect()
    }

    /// Parts to cut the images into, for `work` multiply-adds per image: a fixed number, not one
    /// per thread, so that the weight gradient (summed by part, then over the parts in order) is
    /// the same whatever the thread count, and several per thread, so that a thread the system
    /// holds up leaves its share to the others.
    fn parts(&self, work: usize) -> usize {
        if workers::worth_spreading(self.n * work) {
            self.n.min(16)
        } else {
            1
        }
    }
}

/// Fails unless `a` and `b` have separate storages (one is written while the other is read).
fn apart(a: &Tensor, b: &Tensor, what: &str) -> Result<()> {
    if a.shares_storage(b) {
        return Err(Error::argument(format!(
            "{what} must not share memory with its operands"
        )));
    }
    Ok(())
}

/// output (N x M x out..., contiguous) = the convolution of x (N x C x size..., contiguous) by
/// weight (M x C*K, contiguous), plus bias (M) when given. Unit steps only.
pub fn conv_forward(output: &Tensor, x: &Tensor, weight: &Tensor, bias: Option<&Tensor>, w: &Windows) -> Result<()> {
    let dtype = float_type(x)?;
    let s = Shape::new(x, weight, w)?;
    apart(output, x, "the output")?;
    apart(output, weight, "the output")?;
    let (o, kc) = (s.f.positions(), s.c * s.f.offs.len());
    // SAFETY: checked contiguous tensors of `dtype`; the output is apart from the operands.
    unsafe {
        match dtype {
            DType::Float => forward::<f32>(
                slice(output, dtype, s.n * s.m * o, "the output")?,
                slice(x, dtype, s.n * s.c * s.f.plane, "the input")?,
                slice(weight, dtype, s.m * kc, "the weight")?,
                bias.map(|b| slice(b, dtype, s.m, "the bias")).transpose()?,
                &s,
            ),
            _ => forward::<f64>(
                slice(output, dtype, s.n * s.m * o, "the output")?,
                slice(x, dtype, s.n * s.c * s.f.plane, "the input")?,
                slice(weight, dtype, s.m * kc, "the weight")?,
                bias.map(|b| slice(b, dtype, s.m, "the bias")).transpose()?,
                &s,
            ),
        }
    }
    Ok(())
}

fn forward<T: Lanes>(out: &mut [T], x: &[T], weight: &[T], bias: Option<&mut [T]>, s: &Shape) {
    let f = &s.f;
    let taps = s.input_taps();
    let a = Packed::new(s.m, taps.len(), |m, t| weight[m * taps.len() + t]);
    let bias = bias.map(|b| &*b);
    let o = f.positions();
    let parts = s.parts(s.m * taps.len() * f.wide);
    let mut rest = out;
    let mut work = Vec::with_capacity(parts);
    for i in 0..parts {
        let r = workers::bounds(s.n, parts, i);
        let (mine, more) = rest.split_at_mut(r.len() * s.m * o);
        work.push((r, mine));
        rest = more;
    }
    workers::run(work, |(images, out)| {
        let mut padded = vec![T::zero(); if f.copy { s.c * f.vol } else { 0 }];
        let mut wide = vec![T::zero(); s.m * f.wide];
        for (i, img) in images.zip(out.chunks_exact_mut(s.m * o)) {
            let xi = &x[i * s.c * f.plane..][..s.c * f.plane];
            let src = if f.copy {
                f.pad_image(xi, &mut padded);
                &padded[..]
            } else {
                xi
            };
            T::products(&a, &taps, src, f.wide, &mut wide, f.wide);
            for (m, plane) in img.chunks_exact_mut(o).enumerate() {
                let row = &wide[m * f.wide..];
                let n = f.out[2];
                match bias {
                    Some(b) => f.out_rows(|at, q| {
                        for (d, v) in plane[at..at + n].iter_mut().zip(&row[q..q + n]) {
                            *d = *v + b[m];
                        }
                    }),
                    None => f.out_rows(|at, q| plane[at..at + n].copy_from_slice(&row[q..q + n])),
                }
            }
        }
    });
}

/// grad_x (N x C x size..., contiguous, overwritten) = the gradient of the convolution by weight
/// (M x C*K) with respect to its input, given grad_out (N x M x out..., contiguous).
pub fn conv_backward(grad_x: &Tensor, grad_out: &Tensor, weight: &Tensor, w: &Windows) -> Result<()> {
    let dtype = float_type(grad_x)?;
    let s = Shape::new(grad_x, weight, w)?;
    apart(grad_x, grad_out, "the input gradient")?;
    apart(grad_x, weight, "the input gradient")?;
    let (o, kc) = (s.f.positions(), s.c * s.f.offs.len());
    // SAFETY: checked contiguous tensors of `dtype`; the result is apart from the operands.
    unsafe {
        match dtype {
            DType::Float => backward::<f32>(
                slice(grad_x, dtype, s.n * s.c * s.f.plane, "the input gradient")?,
                slice(grad_out, dtype, s.n * s.m * o, "the output gradient")?,
                slice(weight, dtype, s.m * kc, "the weight")?,
                &s,
            ),
            _ => backward::<f64>(
                slice(grad_x, dtype, s.n * s.c * s.f.plane, "the input gradient")?,
                slice(grad_out, dtype, s.n * s.m * o, "the output gradient")?,
                slice(weight, dtype, s.m * kc, "the weight")?,
                &s,
            ),
        }
    }
    Ok(())
}

fn backward<T: Lanes>(gx: &mut [T], gy: &[T], weight: &[T], s: &Shape) {
    let f = &s.f;
    let k = f.offs.len();
    // Each output gradient plane is spread wide after `lead` zeros, in rows of `lg`: then the
    // input gradient at padded position p gathers row m's elements at p - offs[k] for every k,
    // which is element p of row m shifted by lead - offs[k]. Taps run over (m, k). (Scattering
    // instead, each (channel, offset) row's products added into the gradient at its offset,
    // skips the taps that read zeros but was slower: the rows' additions overlap in memory, a
    // store then a load one element over, which the processor cannot forward.)
    let lead = *f.offs.last().expect("a window has elements");
    let lg = lead + f.vol;
    let taps: Vec<usize> = (0..s.m)
        .flat_map(|m| f.offs.iter().map(move |&d| m * lg + lead - d))
        .collect();
    let a = Packed::new(s.c, s.m * k, |c, t| weight[(t / k) * s.c * k + c * k + t % k]);
    let o = f.positions();
    let parts = s.parts(s.c * taps.len() * f.vol);
    let mut rest = gx;
    let mut work = Vec::with_capacity(parts);
    for i in 0..parts {
        let r = workers::bounds(s.n, parts, i);
        let (mine, more) = rest.split_at_mut(r.len() * s.c * f.plane);
        work.push((r, mine));
        rest = more;
    }
    workers::run(work, |(images, gx)| {
        let mut spread = vec![T::zero(); s.m * lg];
        let mut padded = vec![T::zero(); if f.copy { s.c * f.vol } else { 0 }];
        for (i, img) in images.zip(gx.chunks_exact_mut(s.c * f.plane)) {
            f.spread(&gy[i * s.m * o..][..s.m * o], &mut spread, lg, lead);
            if f.copy {
                T::products(&a, &taps, &spread, f.vol, &mut padded, f.vol);
                f.unpad_image(&padded, img);
            } else {
                T::products(&a, &taps, &spread, f.vol, img, f.vol);
            }
        }
    });
}

/// grad_weight (M x C*K, contiguous) += scale * the gradient of the convolution with respect to
/// its weight, for input x (N x C x size...) and grad_out (N x M x out...), both contiguous.
pub fn conv_acc_grad(grad_weight: &Tensor, x: &Tensor, grad_out: &Tensor, w: &Windows, scale: f64) -> Result<()> {
    let dtype = float_type(x)?;
    let s = Shape::new(x, grad_weight, w)?;
    apart(grad_weight, x, "the weight gradient")?;
    apart(grad_weight, grad_out, "the weight gradient")?;
    let (o, kc) = (s.f.positions(), s.c * s.f.offs.len());
    // SAFETY: checked contiguous tensors of `dtype`; the result is apart from the operands.
    unsafe {
        match dtype {
            DType::Float => acc_grad::<f32>(
                slice(grad_weight, dtype, s.m * kc, "the weight gradient")?,
                slice(x, dtype, s.n * s.c * s.f.plane, "the input")?,
                slice(grad_out, dtype, s.n * s.m * o, "the output gradient")?,
                &s,
                scale as f32,
            ),
            _ => acc_grad::<f64>(
                slice(grad_weight, dtype, s.m * kc, "the weight gradient")?,
                slice(x, dtype, s.n * s.c * s.f.plane, "the input")?,
                slice(grad_out, dtype, s.n * s.m * o, "the output gradient")?,
                &s,
                scale,
            ),
        }
    }
    Ok(())
}

fn acc_grad<T: Lanes>(gw: &mut [T], x: &[T], gy: &[T], s: &Shape, scale: T) {
    let f = &s.f;
    let taps = s.input_taps();
    let o = f.positions();
    let parts = s.parts(s.m * taps.len() * f.wide);
    // Each part sums its images' gradients apart; the sums are added in part order, so the result
    // does not depend on which thread ran which part.
    let mut sums = vec![vec![T::zero(); gw.len()]; parts];
    let work: Vec<_> = sums
        .iter_mut()
        .enumerate()
        .map(|(i, g)| (workers::bounds(s.n, parts, i), g))
        .collect();
    workers::run(work, |(images, g)| {
        let mut padded = vec![T::zero(); if f.copy { s.c * f.vol } else { 0 }];
        let mut wide = vec![T::zero(); s.m * f.wide];
        for i in images {
            let xi = &x[i * s.c * f.plane..][..s.c * f.plane];
            let src = if f.copy {
                f.pad_image(xi, &mut padded);
                &padded[..]
            } else {
                xi
            };
            f.spread(&gy[i * s.m * o..][..s.m * o], &mut wide, f.wide, 0);
            T::grad_products(&wide, f.wide, s.m, &taps, src, f.wide, g);
        }
    });
    for g in &sums {
        for (d, v) in gw.iter_mut().zip(g) {
            *d = madd::<T, false>(scale, *v, *d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::kernels::nn::test_tensors::{tensor, values};

    /// A deterministic spread of values.
    fn ramp(n: usize, step: f64) -> Vec<f64> {
        (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) * step).collect()
    }

    /// The convolution by its definition, for checking: x (N x C x H x W), weight (M x C x kH x
    /// kW), padding, dilation and unit steps, output (N x M x oH x oW).
    #[allow(clippy::too_many_arguments)]
    fn naive(
        x: &[f64],
        wt: &[f64],
        n: usize,
        c: usize,
        m: usize,
        hw: [usize; 2],
        k: [usize; 2],
        pad: [usize; 2],
        dil: [usize; 2],
    ) -> (Vec<f64>, [usize; 2]) {
        let out = [0, 1].map(|j| hw[j] + 2 * pad[j] - dil[j] * (k[j] - 1));
        let mut y = vec![0.0; n * m * out[0] * out[1]];
        for b in 0..n {
            for mm in 0..m {
                for i in 0..out[0] {
                    for j in 0..out[1] {
                        let mut s = 0.0;
                        for cc in 0..c {
                            for a in 0..k[0] {
                                for e in 0..k[1] {
                                    let r = (i + a * dil[0]) as isize - pad[0] as isize;
                                    let q = (j + e * dil[1]) as isize - pad[1] as isize;
                                    if r < 0 || q < 0 || r >= hw[0] as isize || q >= hw[1] as isize {
                                        continue;
                                    }
                                    s += wt[((mm * c + cc) * k[0] + a) * k[1] + e]
                                        * x[((b * c + cc) * hw[0] + r as usize) * hw[1] + q as usize];
                                }
                            }
                        }
                        y[((b * m + mm) * out[0] + i) * out[1] + j] = s;
                    }
                }
            }
        }
        (y, out)
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-9, "{x} vs {y}");
        }
    }

    #[test]
    fn forward_and_gradients_match_the_definition() {
        // With and without padding and dilation; 1 and 7 planes of 3 rows exercise every tile
        // width.
        let cases = [([0, 0], [1, 1]), ([1, 2], [1, 1]), ([1, 0], [2, 1])];
        for (pad, dil, m) in cases.iter().flat_map(|&(p, d)| [(p, d, 1), (p, d, 7)]) {
            let (n, c, hw, k) = (3, 2, [6, 9], [3, 2]);
            let x = ramp(n * c * hw[0] * hw[1], 0.25);
            let wt = ramp(m * c * k[0] * k[1], 0.5);
            let (y, out) = naive(&x, &wt, n, c, m, hw, k, pad, dil);
            let w = Windows::new(&hw, &k, &[1, 1], &pad, &dil, &out).unwrap();
            let xt = tensor(&x, &[n, c, hw[0], hw[1]]);
            let wtt = tensor(&wt, &[m, c * k[0] * k[1]]);
            let bias = tensor(&ramp(m, 1.0), &[m]);
            let yt = Tensor::zeros(DType::Double, &[n, m, out[0], out[1]]).unwrap();
            conv_forward(&yt, &xt, &wtt, Some(&bias), &w).unwrap();
            let per = out[0] * out[1];
            let want: Vec<f64> = y
                .iter()
                .enumerate()
                .map(|(i, v)| v + values(&bias)[(i / per) % m])
                .collect();
            close(&values(&yt), &want);
            // The gradients are the adjoints: <conv(x), g> = <x, backward(g)> = <w, accGrad(x, g)>.
            let g = ramp(y.len(), 0.125);
            let gt = tensor(&g, &[n, m, out[0], out[1]]);
            let dot: f64 = y.iter().zip(&g).map(|(a, b)| a * b).sum();
            let gx = Tensor::zeros(DType::Double, &[n, c, hw[0], hw[1]]).unwrap();
            conv_backward(&gx, &gt, &wtt, &w).unwrap();
            let dx: f64 = values(&gx).iter().zip(&x).map(|(a, b)| a * b).sum();
            assert!((dot - dx).abs() < 1e-6, "{dot} vs {dx}");
            let gw = tensor(&vec![1.0; wt.len()], &[m, c * k[0] * k[1]]);
            conv_acc_grad(&gw, &xt, &gt, &w, 2.0).unwrap();
            let dw: f64 = values(&gw).iter().zip(&wt).map(|(a, b)| (a - 1.0) * b).sum();
            assert!((2.0 * dot - dw).abs() < 1e-6, "{dot} vs {dw}");
        }
    }

    #[test]
    fn steps_and_shared_memory_are_refused() {
        let w = Windows::new(&[4], &[2], &[2], &[0], &[1], &[2]).unwrap();
        let x = Tensor::zeros(DType::Double, &[1, 1, 4]).unwrap();
        let wt = Tensor::zeros(DType::Double, &[1, 2]).unwrap();
        let y = Tensor::zeros(DType::Double, &[1, 1, 2]).unwrap();
        assert!(conv_forward(&y, &x, &wt, None, &w).is_err());
        let w = Windows::new(&[4], &[2], &[1], &[0], &[1], &[3]).unwrap();
        assert!(conv_forward(&x, &x, &wt, None, &w).is_err());
    }
}
