//! Max pooling over regular windows (`kernels::nn::Windows`), forward and backward, on contiguous
//! float or double planes.
//!
//! The forward pass scans each window's elements in order with a `max` and a select marked
//! unpredictable, so that neither becomes a branch on the data (random data mispredicts a branch
//! half the time); NaNs, rare, take a second, exact scan of their window. (Scanning a row of
//! windows at a time, offset by offset, was slower: the running maxima then live in memory.)
//! Planes are spread over `workers`.

use super::{Real, Windows, float_type, planes, slice};
use crate::error::{Error, Result};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::workers;

/// For dimension `j` and each window position along it: the input coordinate of the window's
/// first element inside the input, and how many of its elements (`dil` apart) are inside.
fn spans(w: &Windows, j: usize) -> Vec<(usize, usize)> {
    (0..w.out[j])
        .map(|o| {
            let inside: Vec<usize> = (0..w.k[j])
                .map(|kk| (o * w.d[j] + kk * w.dil[j]) as isize - w.pad[j] as isize)
                .filter(|&at| at >= 0 && (at as usize) < w.size[j])
                .map(|at| at as usize)
                .collect();
            (inside.first().copied().unwrap_or(0), inside.len())
        })
        .collect()
}

/// Calls f(index in the plane) for each element of the window whose inside part `win` gives
/// (per dimension: first coordinate, count), in order.
fn each_element(win: &[(usize, usize); 3], dil: &[usize; 3], s1: usize, s2: usize, mut f: impl FnMut(usize)) {
    let [(f0, n0), (f1, n1), (f2, n2)] = *win;
    for a in 0..n0 {
        for b in 0..n1 {
            let row = (f0 + a * dil[0]) * s1 + (f1 + b * dil[1]) * s2 + f2;
            (0..n2).for_each(|c| f(row + c * dil[2]));
        }
    }
}

/// The largest element of each window of each plane of `x` into `values` (L x O) and its 1-based
/// position in its plane into `positions` (a LongTensor, L x O). Padding counts as minus
/// infinity, ties go to the first element of the window, and a NaN wins (as in Torch7).
pub fn max_pool(values: &Tensor, positions: &Tensor, x: &Tensor, w: &Windows) -> Result<()> {
    let dtype = float_type(x)?;
    let l = planes(x, w)?;
    let (p, o) = (w.plane(), w.positions());
    if values.shares_storage(x) || positions.shares_storage(x) {
        return Err(Error::argument("the maxima must not share memory with the input"));
    }
    // SAFETY: checked contiguous tensors; the written ones are apart from the input.
    unsafe {
        let pos = slice::<i64>(positions, DType::Long, l * o, "the positions")?;
        match dtype {
            DType::Float => max_pool_typed::<f32>(
                slice(values, dtype, l * o, "the maxima")?,
                pos,
                slice(x, dtype, l * p, "the input")?,
                w,
            ),
            _ => max_pool_typed::<f64>(
                slice(values, dtype, l * o, "the maxima")?,
                pos,
                slice(x, dtype, l * p, "the input")?,
                w,
            ),
        }
    }
    Ok(())
}

fn max_pool_typed<T: Real + Element>(values: &mut [T], pos: &mut [i64], x: &[T], w: &Windows) {
    let (p, o) = (w.plane(), w.positions());
    if o == 0 || p == 0 {
        return;
    }
    let l = values.len() / o;
    let geometry = [spans(w, 0), spans(w, 1), spans(w, 2)];
    let parts = if workers::worth_spreading(l * o * w.window()) {
        l.min(16)
    } else {
        1
    };
    let mut work = Vec::with_capacity(parts);
    let (mut vals, mut at) = (values, pos);
    for i in 0..parts {
        let n = workers::bounds(l, parts, i).len();
        let (v, more_v) = vals.split_at_mut(n * o);
        let (a, more_a) = at.split_at_mut(n * o);
        work.push((workers::bounds(l, parts, i).start, v, a));
        (vals, at) = (more_v, more_a);
    }
    workers::run(work, |(first, vals, at)| {
        for (i, (vals, at)) in vals.chunks_exact_mut(o).zip(at.chunks_exact_mut(o)).enumerate() {
            pool_plane(&x[(first + i) * p..][..p], vals, at, w, &geometry);
        }
    });
}

/// One plane's windows (`sp`: each dimension's spans).
fn pool_plane<T: Real + Element>(
    src: &[T],
    vals: &mut [T],
    at: &mut [i64],
    w: &Windows,
    sp: &[Vec<(usize, usize)>; 3],
) {
    let (s1, s2) = (w.size[1] * w.size[2], w.size[2]);
    let mut q = 0;
    for &a in &sp[0] {
        for &b in &sp[1] {
            for &c in &sp[2] {
                (vals[q], at[q]) = window_max(src, [a, b, c], &w.dil, s1, s2);
                q += 1;
            }
        }
    }
}

/// The maximum of one window (its inside part `win`: per dimension, first coordinate and count)
/// and its 1-based position.
#[inline(always)]
fn window_max<T: Real + Element>(
    src: &[T],
    win: [(usize, usize); 3],
    dil: &[usize; 3],
    s1: usize,
    s2: usize,
) -> (T, i64) {
    let [(f0, n0), (f1, n1), (f2, n2)] = win;
    if n0 * n1 * n2 == 0 {
        // No element inside (only possible with odd geometries): as Torch7 leaves it.
        return (T::NEG_INF, 0);
    }
    let first = f0 * s1 + f1 * s2 + f2;
    let (mut m, mut g, mut nan) = (src[first], first, false);
    // Without NaNs the maximum is the first element larger than all before it.
    each_element(&win, dil, s1, s2, |i| {
        let e = src[i];
        g = std::hint::select_unpredictable(e > m, i, g);
        m = Real::max(m, e);
        nan |= e.is_nan();
    });
    if nan {
        // A NaN wins, the first one.
        each_element(&win, dil, s1, s2, |i| {
            if src[i].is_nan() && !m.is_nan() {
                (m, g) = (src[i], i);
            }
        });
    }
    (m, g as i64 + 1)
}

/// The gradient of `max_pool`: grad_x (L x S, contiguous, overwritten) holds each element of
/// grad_out (L x O) at the position (1-based, in its plane) `positions` (L x O, a LongTensor)
/// gives it, summed where windows share their maximum, and zero elsewhere.
pub fn max_pool_backward(grad_x: &Tensor, grad_out: &Tensor, positions: &Tensor) -> Result<()> {
    fn run<T: Real + Element>(gx: &mut [T], gy: &[T], pos: &[i64], s: usize, o: usize) -> Result<()> {
        gx.fill(T::ZERO);
        for ((gx, gy), pos) in gx.chunks_exact_mut(s).zip(gy.chunks_exact(o)).zip(pos.chunks_exact(o)) {
            for (&g, &at) in gy.iter().zip(pos) {
                let i = usize::try_from(at - 1)
                    .ok()
                    .filter(|&i| i < s)
                    .ok_or_else(|| Error::argument(format!("position {at} is outside a plane of {s}")))?;
                gx[i] += g;
            }
        }
        Ok(())
    }
    let dtype = float_type(grad_x)?;
    if grad_x.dim() != 2 || grad_out.dim() != 2 || grad_out.size[0] != grad_x.size[0] {
        return Err(Error::shape(
            "planes of the input gradient and of the output gradient expected",
        ));
    }
    let (l, s, o) = (grad_x.size[0], grad_x.size[1], grad_out.size[1]);
    if grad_x.shares_storage(grad_out) || grad_x.shares_storage(positions) {
        return Err(Error::argument(
            "the input gradient must not share memory with its operands",
        ));
    }
    if l * o == 0 {
        return Ok(());
    }
    // SAFETY: checked contiguous tensors; the written one is apart from the others.
    unsafe {
        let pos = slice::<i64>(positions, DType::Long, l * o, "the positions")?;
        match dtype {
            DType::Float => run::<f32>(
                slice(grad_x, dtype, l * s, "the input gradient")?,
                slice(grad_out, dtype, l * o, "the output gradient")?,
                pos,
                s,
                o,
            ),
            _ => run::<f64>(
                slice(grad_x, dtype, l * s, "the input gradient")?,
                slice(grad_out, dtype, l * o, "the output gradient")?,
                pos,
                s,
                o,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::kernels::nn::test_tensors::{tensor, values};

    fn longs(t: &Tensor) -> Vec<i64> {
        unsafe { slice::<i64>(t, DType::Long, t.numel(), "p").unwrap().to_vec() }
    }

    /// Every window's maximum and its position by the rule, one window at a time.
    fn naive(x: &[f64], w: &Windows) -> (Vec<f64>, Vec<i64>) {
        let (mut v, mut p) = (Vec::new(), Vec::new());
        let (s1, s2) = (w.size[1] * w.size[2], w.size[2]);
        let sp = [spans(w, 0), spans(w, 1), spans(w, 2)];
        for &a in &sp[0] {
            for &b in &sp[1] {
                for &c in &sp[2] {
                    let (mut m, mut g) = (f64::NEG_INFINITY, None);
                    each_element(&[a, b, c], &w.dil, s1, s2, |i| {
                        let e = x[i];
                        if g.is_none() || (!m.is_nan() && (e > m || e.is_nan())) {
                            (m, g) = (e, Some(i));
                        }
                    });
                    v.push(m);
                    p.push(g.map_or(0, |i| i as i64 + 1));
                }
            }
        }
        (v, p)
    }

    #[test]
    fn pooling_takes_the_first_maximum_or_the_first_nan_and_sends_gradients_back() {
        // A 2x3 plane, 2x2 windows, step 1: windows {1, 5, 5, 0} and {5, nan, 0, nan}.
        let w = Windows::new(&[2, 3], &[2, 2], &[1, 1], &[0, 0], &[1, 1], &[1, 2]).unwrap();
        let x = tensor(&[1., 5., f64::NAN, 5., 0., f64::NAN], &[1, 2, 3]);
        let v = Tensor::zeros(DType::Double, &[1, 2]).unwrap();
        let p = Tensor::zeros(DType::Long, &[1, 2]).unwrap();
        max_pool(&v, &p, &x, &w).unwrap();
        let got = values(&v);
        assert_eq!(got[0], 5.);
        assert!(got[1].is_nan());
        assert_eq!(longs(&p), vec![2, 3]);
        let g = Tensor::zeros(DType::Double, &[1, 6]).unwrap();
        max_pool_backward(&g, &tensor(&[10., 20.], &[1, 2]), &p).unwrap();
        assert_eq!(values(&g), vec![0., 10., 20., 0., 0., 0.]);
        // Both windows at one position add up; a position outside the plane is an error.
        let same = Tensor::zeros(DType::Long, &[1, 2]).unwrap();
        unsafe {
            slice::<i64>(&same, DType::Long, 2, "p")
                .unwrap()
                .copy_from_slice(&[4, 4])
        };
        max_pool_backward(&g, &tensor(&[1., 2.], &[1, 2]), &same).unwrap();
        assert_eq!(values(&g), vec![0., 0., 0., 3., 0., 0.]);
        unsafe {
            slice::<i64>(&same, DType::Long, 2, "p")
                .unwrap()
                .copy_from_slice(&[7, 0])
        };
        assert!(max_pool_backward(&g, &tensor(&[1., 2.], &[1, 2]), &same).is_err());
    }

    #[test]
    fn maxima_follow_the_rule_with_steps_padding_and_dilation() {
        // Steps, padding, dilation, overlapping windows, ties and minus infinities, two planes.
        let cases = [
            ([5, 7], [2, 3], [2, 2], [1, 1], [1, 1]),
            ([6, 6], [3, 3], [1, 2], [1, 0], [1, 2]),
            ([4, 9], [2, 2], [2, 3], [0, 1], [2, 1]),
        ];
        for (size, k, d, pad, dil) in cases {
            let out: Vec<usize> = (0..2)
                .map(|j| (size[j] + 2 * pad[j] - dil[j] * (k[j] - 1) - 1) / d[j] + 1)
                .collect();
            let w = Windows::new(&size, &k, &d, &pad, &dil, &out).unwrap();
            let n = size[0] * size[1];
            let mut x: Vec<f64> = (0..2 * n).map(|i| ((i * 5) % 7) as f64).collect();
            x[3] = f64::NEG_INFINITY;
            x[n + 4] = f64::NEG_INFINITY;
            x[n + 5] = f64::NEG_INFINITY;
            let o = out[0] * out[1];
            let v = Tensor::zeros(DType::Double, &[2, o]).unwrap();
            let p = Tensor::zeros(DType::Long, &[2, o]).unwrap();
            max_pool(&v, &p, &tensor(&x, &[2, size[0], size[1]]), &w).unwrap();
            for plane in 0..2 {
                let (nv, np) = naive(&x[plane * n..(plane + 1) * n], &w);
                assert_eq!(&values(&v)[plane * o..(plane + 1) * o], &nv[..]);
                assert_eq!(&longs(&p)[plane * o..(plane + 1) * o], &np[..]);
            }
        }
    }
}
