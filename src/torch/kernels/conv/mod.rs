//! Direct 2-D and 3-D convolution and cross-correlation (Torch7's `conv2`, `xcorr2`, `conv3`,
//! `xcorr3`), for every type with maths.
//!
//! Everything is a 3-D box (depth, rows, columns); a 2-D image is a box of depth 1. Two loops do
//! the work, both over whole rows so that the inner loops run over contiguous slices:
//! - [`correlate_valid`] gathers: each output row adds, for every kernel row, the input row times
//!   the kernel's taps, four taps per pass over the row;
//! - [`convolve_full`] scatters: each input row, times each tap, lands on the output row it
//!   reaches.
//!
//! A valid convolution is a valid correlation with the kernel flipped in every dimension, and a
//! full correlation a full convolution with the kernel flipped; the flip of a contiguous box is
//! the reversal of its elements. So `conv2(x, k)` and `xcorr2(x, flipped k)` run the same loop
//! over the same numbers and agree to the last bit, as Torch7's test suite requires.
//!
//! The operand forms (Torch7's `conv2Dmul`, `conv2Dcmul`, `conv2Dmv` and their 3-D twins):
//! - one image and one kernel give one image ([`Planes::Single`]);
//! - n planes and n kernels give n planes, plane i with kernel i ([`Planes::Pairwise`]);
//! - n input planes and an m x n set of kernels give m planes, plane j the sum over i of input
//!   plane i with kernel (j, i) ([`Planes::Summed`], a convolution layer).
//!
//! Each element's sum runs over the kernel in a fixed order, and a tap count of four per pass
//! keeps that order (`((r + a) + b) + c`), so results do not depend on the unrolling.
//!
//! The summed form in 'V' on floats with several output planes is a convolution layer's forward
//! pass: the input windows are unfolded into columns (a band of output rows at a time, to bound
//! the buffer) and one gemm (OpenBLAS) multiplies them by the kernels.

use super::arith::Arith;
use super::blas::gemm::{Mat, Scalar};
use super::strided::for_each_mut;
use crate::dispatch_math;
use crate::error::{Error, Result};
use crate::torch::base::tensor::Tensor;

mod dims;
mod loops;
pub use dims::{Dims, Extent, Orientation};
use dims::{shape, volume};
pub use loops::{accumulate, convolve_full, correlate_valid};

/// How the planes of the operands pair up (see the module comment).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Planes {
    Single,
    Pairwise,
    Summed,
}

/// The shapes of one call: the plane form, the plane counts, each plane's box, and the result's
/// size (what Torch7 resizes the result to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub planes: Planes,
    pub extent: Extent,
    pub in_planes: usize,
    pub out_planes: usize,
    pub input: Dims,
    pub kernel: Dims,
    pub out: Dims,
    pub size: Vec<usize>,
}

/// A box of `n` dimensions (2 or 3) as three, the depth 1 for an image.
fn boxed(d: &[usize]) -> Dims {
    match *d {
        [r, c] => [1, r, c],
        [z, r, c] => [z, r, c],
        _ => unreachable!("a box has 2 or 3 dimensions"),
    }
}

/// Checks the operands of an `n`-D convolution (`n` = 2 or 3) and works out its shapes: an
/// n-D input with an n-D kernel, an (n+1)-D input with an (n+1)-D kernel of as many planes, or
/// an (n+1)-D input with an (n+2)-D kernel (output planes x input planes x box).
pub fn plan(input: &Tensor, kernel: &Tensor, n: usize, extent: Extent) -> Result<Plan> {
    debug_assert!(n == 2 || n == 3);
    let (di, dk) = (input.dim(), kernel.dim());
    let (planes, in_planes, out_planes) = if di == n && dk == n {
        (Planes::Single, 1, 1)
    } else if di == n + 1 && dk == n + 1 {
        if input.size[0] != kernel.size[0] {
            return Err(Error::shape(format!(
                "invalid number of input/kernel planes (the input has {}, the kernel {})",
                input.size[0], kernel.size[0]
            )));
        }
        (Planes::Pairwise, input.size[0], input.size[0])
    } else if di == n + 1 && dk == n + 2 {
        if kernel.size[1] != input.size[0] {
            return Err(Error::shape(format!(
                "invalid number of input planes (the input has {}, the kernel expects {})",
                input.size[0], kernel.size[1]
            )));
        }
        (Planes::Summed, input.size[0], kernel.size[0])
    } else {
        return Err(Error::shape(format!(
            "expected a {n}D input with a {n}D kernel, a {m}D input with a {m}D kernel, or a {m}D input with a \
             {l}D kernel (got a {di}D input and a {dk}D kernel)",
            m = n + 1,
            l = n + 2
        )));
    };
    let ib = &input.size[di - n..];
    let kb = &kernel.size[dk - n..];
    if input.numel() == 0 || kernel.numel() == 0 {
        return Err(Error::shape(format!(
            "empty input ({}) or kernel ({})",
            shape(&input.size),
            shape(&kernel.size)
        )));
    }
    if extent == Extent::Valid && ib.iter().zip(kb).any(|(i, k)| i < k) {
        return Err(Error::shape(format!(
            "input image is smaller than kernel (input {}, kernel {}); 'F' gives the full convolution",
            shape(ib),
            shape(kb)
        )));
    }
    let (ib, kb) = (boxed(ib), boxed(kb));
    let out = extent.out_dims(ib, kb, [1, 1, 1]);
    let mut size = Vec::with_capacity(n + 1);
    if planes != Planes::Single {
        size.push(out_planes);
    }
    size.extend_from_slice(&out[3 - n..]);
    Ok(Plan {
        planes,
        extent,
        in_planes,
        out_planes,
        input: ib,
        kernel: kb,
        out,
        size,
    })
}

/// Writes the convolution (or correlation) of `input` with `kernel` that `plan` describes into
/// `out`, which has `plan.size` (any strides); what `out` held is overwritten. `out` may share
/// memory with the operands: they are read before it is written.
pub fn convolve(out: &Tensor, input: &Tensor, kernel: &Tensor, plan: &Plan, orientation: Orientation) -> Result<()> {
    if input.dtype != kernel.dtype || out.dtype != input.dtype {
        return Err(Error::dtype(format!(
            "the input ({}), kernel ({}) and result ({}) must have one type",
            input.dtype.tensor_typename(),
            kernel.dtype.tensor_typename(),
            out.dtype.tensor_typename()
        )));
    }
    if out.size != plan.size {
        return Err(Error::shape(format!(
            "the result has size {}, not {}",
            shape(&out.size),
            shape(&plan.size)
        )));
    }
    dispatch_math!(input.dtype, T => convolve_typed::<T>(out, input, kernel, plan, orientation),
        half => Err(crate::torch::base::dtype::no_half_math()))
}

fn convolve_typed<T: Scalar>(
    out: &Tensor,
    input: &Tensor,
    kernel: &Tensor,
    plan: &Plan,
    orientation: Orientation,
) -> Result<()> {
    // A contiguous input is read where it lies, unless the result is written into its storage.
    let shares = |t: &Tensor| match (out.storage_checked(), t.storage_checked()) {
        (Ok(a), Ok(b)) => a.same(b),
        _ => true,
    };
    let gathered: Vec<T>;
    let x: &[T] = if input.is_contiguous() && input.numel() > 0 && !shares(input) {
        let s = input.storage_checked()?;
        // SAFETY: a checked contiguous view of T; the result lies in another storage.
        unsafe { std::slice::from_raw_parts(s.ptr::<T>().add(input.offset), input.numel()) }
    } else {
        gathered = gather(input)?;
        &gathered
    };
    let mut w: Vec<T> = gather(kernel)?;
    let (ip, kp) = (volume(plan.input), volume(plan.kernel));
    let op = volume(plan.out);
    let step = [1, 1, 1];
    // The valid loop correlates and the full loop convolves: the other orientation flips each
    // kernel box, which for a contiguous box is the reversal of its elements.
    if orientation.flips_kernel(plan.extent) {
        w.chunks_mut(kp).for_each(<[T]>::reverse);
    }
    let run = |dst: &mut [T], src: &[T], k: &[T]| match plan.extent {
        Extent::Valid => correlate_valid(dst, src, plan.input, k, plan.kernel, step),
        Extent::Full => convolve_full(dst, src, plan.input, k, plan.kernel, step),
    };
    // A contiguous result (of the plan's size, checked above) is computed in place, zeroed
    // first, saving a buffer of its size and a copy: the operands are copies, or (the input) in
    // another storage. `scatter` is left for a strided result.
    let direct = out.is_contiguous();
    let mut buffer: Vec<T>;
    let y: &mut [T] = if direct {
        let s = out.storage_checked()?;
        // SAFETY: a checked contiguous view of T, in a storage neither operand reads.
        let y = unsafe { std::slice::from_raw_parts_mut(s.ptr::<T>().add(out.offset), out.numel()) };
        y.fill(T::zero());
        y
    } else {
        buffer = vec![T::zero(); op * plan.out_planes];
        &mut buffer
    };
    if plan.planes == Planes::Summed && plan.extent == Extent::Valid && T::DTYPE.is_floating() && plan.out_planes > 1 {
        summed_by_gemm(y, x, &mut w, plan, BAND_ELEMENTS);
        return if direct { Ok(()) } else { scatter(out, y) };
    }
    for (o, dst) in y.chunks_mut(op).enumerate() {
        match plan.planes {
            Planes::Single => run(dst, x, &w)?,
            Planes::Pairwise => run(dst, &x[o * ip..][..ip], &w[o * kp..][..kp])?,
            Planes::Summed => {
                for i in 0..plan.in_planes {
                    let k = &w[(o * plan.in_planes + i) * kp..][..kp];
                    run(dst, &x[i * ip..][..ip], k)?;
                }
            }
        }
    }
    if direct { Ok(()) } else { scatter(out, y) }
}

/// The most elements of the columns buffer of `summed_by_gemm` (16 Mi: 64 MiB of floats), short
/// of one output row.
const BAND_ELEMENTS: usize = 1 << 24;

/// The summed valid form as one product per band of output rows: `y` (out planes x positions) =
/// kernels (out planes x in planes * kernel box) * columns (in planes * kernel box x positions),
/// the columns holding the input under each kernel tap; `w` holds the kernels, already oriented
/// for correlation. At most `limit` elements of columns at a time (at least one output row).
fn summed_by_gemm<T: Scalar>(y: &mut [T], x: &[T], w: &mut [T], plan: &Plan, limit: usize) {
    let (i, k, o) = (plan.input, plan.kernel, plan.out);
    let (ip, kp, op) = (volume(i), volume(k), volume(o));
    let depth = plan.in_planes * kp;
    let rows = o[0] * o[1];
    let band = (limit / (depth * o[2])).clamp(1, rows);
    let mut cols = vec![T::zero(); depth * band * o[2]];
    for r0 in (0..rows).step_by(band) {
        let width = band.min(rows - r0) * o[2];
        let mut tap = 0;
        for p in 0..plan.in_planes {
            for a in 0..k[0] {
                for b in 0..k[1] {
                    for c in 0..k[2] {
                        let dst = &mut cols[tap * width..][..width];
                        for (j, seg) in dst.chunks_exact_mut(o[2]).enumerate() {
                            let (z, r) = ((r0 + j) / o[1], (r0 + j) % o[1]);
                            let start = p * ip + ((z + a) * i[1] + r + b) * i[2] + c;
                            seg.copy_from_slice(&x[start..start + o[2]]);
                        }
                        tap += 1;
                    }
                }
            }
        }
        let kernels = Mat {
            ptr: w.as_mut_ptr(),
            rows: plan.out_planes,
            cols: depth,
            rs: depth,
            cs: 1,
        };
        let columns = Mat {
            ptr: cols.as_mut_ptr(),
            rows: depth,
            cols: width,
            rs: width,
            cs: 1,
        };
        debug_assert!(y.len() >= (plan.out_planes - 1) * op + r0 * o[2] + width);
        // SAFETY: the three views lie inside their own buffers (kernels: out planes x depth of w;
        // columns: depth x width of cols; the result: out planes rows of op elements of y, from
        // column r0 * o[2], width wide), and the result overlaps neither operand.
        unsafe {
            let result = Mat {
                ptr: y.as_mut_ptr().add(r0 * o[2]),
                rows: plan.out_planes,
                cols: width,
                rs: op,
                cs: 1,
            };
            T::gemm(T::one(), kernels, columns, T::zero(), result);
        }
    }
}

/// The elements of `t` in logical order.
fn gather<T: Arith>(t: &Tensor) -> Result<Vec<T>> {
    let mut v = Vec::with_capacity(t.numel());
    if t.numel() > 0 {
        let s = t.storage_checked()?;
        if t.is_contiguous() {
            // SAFETY: a checked contiguous view of T: numel elements from its offset.
            v.extend_from_slice(unsafe { std::slice::from_raw_parts(s.ptr::<T>().add(t.offset), t.numel()) });
            return Ok(v);
        }
        // SAFETY: a checked view of T (the caller dispatched on its type), only read here.
        unsafe { for_each_mut(s.ptr::<T>(), t, |x| v.push(*x)) };
    }
    Ok(v)
}

/// Writes `v` into `t` in logical order (`v` has `t`'s element count).
fn scatter<T: Arith>(t: &Tensor, v: &[T]) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    debug_assert_eq!(t.numel(), v.len());
    let s = t.storage_checked()?;
    let mut it = v.iter();
    // SAFETY: a checked view of T, not accessed elsewhere during the call.
    unsafe {
        for_each_mut(s.ptr::<T>(), t, |x| {
            if let Some(&e) = it.next() {
                *x = e
            }
        })
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::base::dtype::DType;

    /// A reference: every product added at its place, one at a time (Torch7's definition).
    fn naive(x: &[f64], i: Dims, w: &[f64], k: Dims, extent: Extent, orientation: Orientation) -> Vec<f64> {
        let o = extent.out_dims(i, k, [1, 1, 1]);
        let mut out = vec![0.0; volume(o)];
        let at = |d: Dims, p: [usize; 3]| (p[0] * d[1] + p[1]) * d[2] + p[2];
        for oz in 0..o[0] {
            for oy in 0..o[1] {
                for ox in 0..o[2] {
                    let mut sum = 0.0;
                    for a in 0..k[0] {
                        for b in 0..k[1] {
                            for c in 0..k[2] {
                                // The kernel tap as correlation reads it.
                                let t = match orientation {
                                    Orientation::Correlation => [a, b, c],
                                    Orientation::Convolution => [k[0] - 1 - a, k[1] - 1 - b, k[2] - 1 - c],
                                };
                                // The input position: valid starts at the output position, full
                                // ends there.
                                let p = match extent {
                                    Extent::Valid => [oz + a, oy + b, ox + c],
                                    Extent::Full => {
                                        let p = [oz + a, oy + b, ox + c];
                                        if (0..3).any(|d| p[d] < k[d] - 1 || p[d] - (k[d] - 1) >= i[d]) {
                                            continue;
                                        }
                                        [p[0] + 1 - k[0], p[1] + 1 - k[1], p[2] + 1 - k[2]]
                                    }
                                };
                                sum += x[at(i, p)] * w[at(k, t)];
                            }
                        }
                    }
                    out[at(o, [oz, oy, ox])] = sum;
                }
            }
        }
        out
    }

    fn tensor(v: &[f64], sizes: &[usize]) -> Tensor {
        let t = Tensor::zeros(DType::Double, sizes).unwrap();
        let mut it = v.iter();
        let s = t.storage_checked().unwrap();
        unsafe { for_each_mut(s.ptr::<f64>(), &t, |x| *x = *it.next().unwrap()) };
        t
    }

    fn values(t: &Tensor) -> Vec<f64> {
        gather::<f64>(t).unwrap()
    }

    /// Small integers, so that every sum is exact whatever its order.
    fn ramp(n: usize, seed: usize) -> Vec<f64> {
        (0..n).map(|j| ((j * 7 + seed * 3) % 11) as f64 - 5.0).collect()
    }

    #[test]
    fn hand_computed_2d() {
        // [1 2 3; 4 5 6; 7 8 9] with [1 0; 0 -1].
        let x = [1., 2., 3., 4., 5., 6., 7., 8., 9.];
        let w = [1., 0., 0., -1.];
        let (i, k) = ([1, 3, 3], [1, 2, 2]);
        let mut out = vec![0.0; 4];
        accumulate(
            &mut out,
            &x,
            i,
            &w,
            k,
            [1, 1, 1],
            Extent::Valid,
            Orientation::Correlation,
        )
        .unwrap();
        assert_eq!(out, [-4., -4., -4., -4.]);
        let mut out = vec![0.0; 4];
        accumulate(
            &mut out,
            &x,
            i,
            &w,
            k,
            [1, 1, 1],
            Extent::Valid,
            Orientation::Convolution,
        )
        .unwrap();
        assert_eq!(out, [4., 4., 4., 4.]);
        let mut out = vec![0.0; 16];
        accumulate(
            &mut out,
            &x,
            i,
            &w,
            k,
            [1, 1, 1],
            Extent::Full,
            Orientation::Convolution,
        )
        .unwrap();
        #[rustfmt::skip]
        assert_eq!(out, [1., 2., 3., 0., 4., 4., 4., -3., 7., 4., 4., -6., 0., -7., -8., -9.]);
        let mut out = vec![0.0; 16];
        accumulate(
            &mut out,
            &x,
            i,
            &w,
            k,
            [1, 1, 1],
            Extent::Full,
            Orientation::Correlation,
        )
        .unwrap();
        #[rustfmt::skip]
        assert_eq!(out, [-1., -2., -3., 0., -4., -4., -4., 3., -7., -4., -4., 6., 0., 7., 8., 9.]);
    }

    #[test]
    fn every_shape_matches_the_definition() {
        // Kernels of 1 to 9 columns cover the four-tap passes and their remainders.
        for (i, k) in [
            ([1, 5, 7], [1, 2, 3]),
            ([1, 4, 12], [1, 3, 9]),
            ([1, 6, 6], [1, 6, 6]),
            ([1, 1, 1], [1, 1, 1]),
            ([4, 5, 6], [2, 3, 5]),
            ([3, 3, 9], [3, 1, 4]),
        ] {
            let x = ramp(volume(i), 1);
            let w = ramp(volume(k), 2);
            for extent in [Extent::Valid, Extent::Full] {
                for orientation in [Orientation::Convolution, Orientation::Correlation] {
                    let want = naive(&x, i, &w, k, extent, orientation);
                    let mut out = vec![0.0; want.len()];
                    accumulate(&mut out, &x, i, &w, k, [1, 1, 1], extent, orientation).unwrap();
                    assert_eq!(out, want, "{i:?} {k:?} {extent:?} {orientation:?}");
                }
            }
        }
    }

    #[test]
    fn steps_pick_every_nth_position() {
        let (i, k) = ([1, 7, 9], [1, 3, 2]);
        let x = ramp(volume(i), 3);
        let w = ramp(volume(k), 4);
        let full = naive(&x, i, &w, k, Extent::Valid, Orientation::Correlation);
        let mut out = vec![0.0; 3 * 4];
        correlate_valid(&mut out, &x, i, &w, k, [1, 2, 2]).unwrap();
        for y in 0..3 {
            for c in 0..4 {
                assert_eq!(out[y * 4 + c], full[(2 * y) * 8 + 2 * c]);
            }
        }
        // A full convolution with steps scatters each input element s apart.
        let (i, k) = ([1, 2, 2], [1, 2, 2]);
        let mut out = vec![0.0; 16];
        convolve_full(&mut out, &[1., 2., 3., 4.], i, &[1., 10., 100., 1000.], k, [1, 2, 2]).unwrap();
        #[rustfmt::skip]
        assert_eq!(out, [1., 10., 2., 20., 100., 1000., 200., 2000., 3., 30., 4., 40., 300., 3000., 400., 4000.]);
    }

    #[test]
    fn integers_wrap() {
        let mut out = vec![0u8; 1];
        correlate_valid(&mut out, &[200u8, 100], [1, 1, 2], &[2, 1], [1, 1, 2], [1, 1, 1]).unwrap();
        assert_eq!(out, [((400 + 100) % 256) as u8]);
    }

    #[test]
    fn tensors_in_every_plane_form() {
        let x = ramp(2 * 4 * 5, 5);
        let w = ramp(3 * 2 * 2 * 3, 6);
        let (i, k) = ([1, 4, 5], [1, 2, 3]);
        let input = tensor(&x, &[2, 4, 5]);
        // Two planes with two kernels: each with its own.
        let kernel = tensor(&w[..12], &[2, 2, 3]);
        let p = plan(&input, &kernel, 2, Extent::Valid).unwrap();
        assert_eq!((p.planes, p.size.clone()), (Planes::Pairwise, vec![2, 3, 3]));
        let out = Tensor::zeros(DType::Double, &p.size).unwrap();
        convolve(&out, &input, &kernel, &p, Orientation::Convolution).unwrap();
        let mut want = naive(&x[..20], i, &w[..6], k, Extent::Valid, Orientation::Convolution);
        want.extend(naive(
            &x[20..],
            i,
            &w[6..12],
            k,
            Extent::Valid,
            Orientation::Convolution,
        ));
        assert_eq!(values(&out), want);
        // Two input planes, a 3x2 set of kernels: three planes, each a sum over the inputs.
        let kernel = tensor(&w, &[3, 2, 2, 3]);
        let p = plan(&input, &kernel, 2, Extent::Full).unwrap();
        assert_eq!((p.planes, p.size.clone()), (Planes::Summed, vec![3, 5, 7]));
        // A transposed result: written in logical order.
        let mut out = Tensor::zeros(DType::Double, &[3, 7, 5]).unwrap();
        out.size.swap(1, 2);
        out.stride.swap(1, 2);
        convolve(&out, &input, &kernel, &p, Orientation::Correlation).unwrap();
        let mut want = Vec::new();
        for o in 0..3 {
            let mut sum = vec![0.0; 35];
            for j in 0..2 {
                let kk = &w[(o * 2 + j) * 6..][..6];
                let part = naive(&x[j * 20..][..20], i, kk, k, Extent::Full, Orientation::Correlation);
                sum.iter_mut().zip(part).for_each(|(s, v)| *s += v);
            }
            want.extend(sum);
        }
        assert_eq!(values(&out), want);
    }

    #[test]
    fn summed_planes_by_gemm_in_bands() {
        // Two 3-D input planes, a 3 x 2 set of kernels; a band of one output row and of all.
        let (i, k) = ([3, 4, 6], [2, 2, 3]);
        let x = ramp(2 * volume(i), 7);
        let w = ramp(3 * 2 * volume(k), 8);
        let input = tensor(&x, &[2, 3, 4, 6]);
        let kernel = tensor(&w, &[3, 2, 2, 2, 3]);
        let p = plan(&input, &kernel, 3, Extent::Valid).unwrap();
        assert_eq!(p.size, vec![3, 2, 3, 4]);
        let mut want = Vec::new();
        for o in 0..3 {
            let mut sum = vec![0.0; 24];
            for j in 0..2 {
                let kk = &w[(o * 2 + j) * 12..][..12];
                let part = naive(&x[j * 72..][..72], i, kk, k, Extent::Valid, Orientation::Correlation);
                sum.iter_mut().zip(part).for_each(|(s, v)| *s += v);
            }
            want.extend(sum);
        }
        for limit in [1, 100, BAND_ELEMENTS] {
            let mut y = vec![0.0; 72];
            summed_by_gemm(&mut y, &x, &mut w.clone(), &p, limit);
            assert_eq!(y, want, "limit {limit}");
        }
        let out = Tensor::zeros(DType::Double, &p.size).unwrap();
        convolve(&out, &input, &kernel, &p, Orientation::Correlation).unwrap();
        assert_eq!(values(&out), want);
    }

    #[test]
    fn bad_operands_are_errors() {
        let t = |s: &[usize]| Tensor::zeros(DType::Double, s).unwrap();
        let msg = |r: Result<Plan>| r.unwrap_err().to_string();
        assert!(msg(plan(&t(&[3, 3]), &t(&[4, 2]), 2, Extent::Valid)).contains("smaller than kernel"));
        assert!(plan(&t(&[3, 3]), &t(&[4, 2]), 2, Extent::Full).is_ok());
        assert!(msg(plan(&t(&[3, 3]), &t(&[2, 2, 2]), 2, Extent::Valid)).contains("got a 2D input and a 3D kernel"));
        assert!(msg(plan(&t(&[2, 3, 3]), &t(&[3, 2, 2]), 2, Extent::Valid)).contains("input/kernel planes"));
        assert!(msg(plan(&t(&[2, 3, 3]), &t(&[3, 1, 2, 2]), 2, Extent::Valid)).contains("input planes"));
        assert!(msg(plan(&t(&[3, 3]), &t(&[2, 2]), 3, Extent::Valid)).contains("3D input with a 3D kernel"));
        let mut out = vec![0.0; 3];
        assert!(correlate_valid(&mut out, &[1.0; 4], [1, 2, 2], &[1.0], [1, 1, 1], [1, 1, 1]).is_err());
        assert!(convolve_full(&mut out, &[1.0; 4], [1, 2, 2], &[1.0], [1, 1, 1], [0, 1, 1]).is_err());
    }
}
