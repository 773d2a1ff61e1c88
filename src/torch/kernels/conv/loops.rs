//! The slice loops of [`super`]: a valid correlation gathers, a full convolution scatters,
//! whole rows at a time (see the parent module for the order of each element's sum).

use super::dims::{Dims, Extent, Orientation, shape, volume};
use crate::error::{Error, Result};
use crate::torch::kernels::arith::Arith;

fn check_box(what: &str, len: usize, d: Dims) -> Result<()> {
    if d.contains(&0) || len != volume(d) {
        return Err(Error::shape(format!(
            "the {what} ({len} elements) is not a nonempty {} box",
            shape(&d)
        )));
    }
    Ok(())
}

/// Adds to `out` the valid cross-correlation of `input` (box `i`) with `kernel` (box `k`) at
/// steps `step`: `out[z][y][x] += sum over (a, b, c) of input[z*sz + a][y*sy + b][x*sx + c] *
/// kernel[a][b][c]`, summed in that order. `out` is the box `(i - k) / step + 1`, row-major.
pub fn correlate_valid<T: Arith>(out: &mut [T], input: &[T], i: Dims, kernel: &[T], k: Dims, step: Dims) -> Result<()> {
    check_box("input", input.len(), i)?;
    check_box("kernel", kernel.len(), k)?;
    if step.contains(&0) || (0..3).any(|d| k[d] > i[d]) {
        return Err(Error::argument(format!(
            "a valid correlation needs positive steps and a kernel ({}) within the input ({})",
            shape(&k),
            shape(&i)
        )));
    }
    let o = Extent::Valid.out_dims(i, k, step);
    check_box("output", out.len(), o)?;
    for (z, plane) in out.chunks_exact_mut(o[1] * o[2]).enumerate() {
        for (y, row) in plane.chunks_exact_mut(o[2]).enumerate() {
            for a in 0..k[0] {
                for b in 0..k[1] {
                    let start = ((z * step[0] + a) * i[1] + y * step[1] + b) * i[2];
                    let line = &input[start..start + i[2]];
                    let taps = &kernel[(a * k[1] + b) * k[2]..][..k[2]];
                    correlate_line(row, line, taps, step[2]);
                }
            }
        }
    }
    Ok(())
}

/// `row[x] += sum over c of taps[c] * line[x * step + c]`, in the order of c.
#[inline]
fn correlate_line<T: Arith>(row: &mut [T], line: &[T], taps: &[T], step: usize) {
    let n = row.len();
    if step != 1 {
        for (c, &w) in taps.iter().enumerate() {
            for (r, &v) in row.iter_mut().zip(line[c..].iter().step_by(step)) {
                *r = r.add(w.mul(v));
            }
        }
        return;
    }
    let mut quads = taps.chunks_exact(4);
    let mut c = 0;
    for q in &mut quads {
        let (w0, w1, w2, w3) = (q[0], q[1], q[2], q[3]);
        let l0 = &line[c..c + n];
        let l1 = &line[c + 1..c + 1 + n];
        let l2 = &line[c + 2..c + 2 + n];
        let l3 = &line[c + 3..c + 3 + n];
        for ((((r, &v0), &v1), &v2), &v3) in row.iter_mut().zip(l0).zip(l1).zip(l2).zip(l3) {
            *r = r.add(w0.mul(v0)).add(w1.mul(v1)).add(w2.mul(v2)).add(w3.mul(v3));
        }
        c += 4;
    }
    for &w in quads.remainder() {
        for (r, &v) in row.iter_mut().zip(&line[c..c + n]) {
            *r = r.add(w.mul(v));
        }
        c += 1;
    }
}

/// Adds to `out` the full convolution of `input` (box `i`) with `kernel` (box `k`) at steps
/// `step`: every `input[z][y][x] * kernel[a][b][c]` is added to `out[z*sz + a][y*sy + b][x*sx +
/// c]`. `out` is the box `(i - 1) * step + k`, row-major.
pub fn convolve_full<T: Arith>(out: &mut [T], input: &[T], i: Dims, kernel: &[T], k: Dims, step: Dims) -> Result<()> {
    check_box("input", input.len(), i)?;
    check_box("kernel", kernel.len(), k)?;
    if step.contains(&0) {
        return Err(Error::argument("a full convolution needs positive steps"));
    }
    let o = Extent::Full.out_dims(i, k, step);
    check_box("output", out.len(), o)?;
    #[cfg(target_arch = "x86_64")]
    if crate::torch::kernels::reduce::accumulate::has_avx2() {
        // SAFETY: the CPU has AVX2.
        unsafe { full_avx2(out, input, i, kernel, k, step, o) };
        return Ok(());
    }
    full_loops(out, input, i, kernel, k, step, o);
    Ok(())
}

/// [`full_loops`] compiled for AVX2: twice the SSE2 vector width, the same operations (separate
/// multiplies and adds, no fused ones), so the same results.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn full_avx2<T: Arith>(out: &mut [T], input: &[T], i: Dims, kernel: &[T], k: Dims, step: Dims, o: Dims) {
    full_loops(out, input, i, kernel, k, step, o)
}

#[inline(always)]
fn full_loops<T: Arith>(out: &mut [T], input: &[T], i: Dims, kernel: &[T], k: Dims, step: Dims, o: Dims) {
    for (z, plane) in input.chunks_exact(i[1] * i[2]).enumerate() {
        for a in 0..k[0] {
            let dst = &mut out[(z * step[0] + a) * o[1] * o[2]..][..o[1] * o[2]];
            for (y, line) in plane.chunks_exact(i[2]).enumerate() {
                for b in 0..k[1] {
                    let row = &mut dst[(y * step[1] + b) * o[2]..][..o[2]];
                    let taps = &kernel[(a * k[1] + b) * k[2]..][..k[2]];
                    scatter_line(row, line, taps, step[2]);
                }
            }
        }
    }
}

/// `row[x * step + c] += taps[c] * line[x]` for every x and c.
#[inline(always)]
fn scatter_line<T: Arith>(row: &mut [T], line: &[T], taps: &[T], step: usize) {
    let n = line.len();
    for (c, &w) in taps.iter().enumerate() {
        if step == 1 {
            for (r, &v) in row[c..c + n].iter_mut().zip(line) {
                *r = r.add(w.mul(v));
            }
        } else {
            for (r, &v) in row[c..].iter_mut().step_by(step).zip(line) {
                *r = r.add(w.mul(v));
            }
        }
    }
}

/// Adds the `extent` convolution or correlation of one `input` box with one `kernel` box to
/// `out` (the slice form of [`convolve`], for callers with their own buffers).
#[allow(clippy::too_many_arguments)]
pub fn accumulate<T: Arith>(
    out: &mut [T],
    input: &[T],
    i: Dims,
    kernel: &[T],
    k: Dims,
    step: Dims,
    extent: Extent,
    orientation: Orientation,
) -> Result<()> {
    let flipped: Vec<T>;
    let kernel = if orientation.flips_kernel(extent) {
        flipped = kernel.iter().rev().copied().collect();
        &flipped[..]
    } else {
        kernel
    };
    match extent {
        Extent::Valid => correlate_valid(out, input, i, kernel, k, step),
        Extent::Full => convolve_full(out, input, i, kernel, k, step),
    }
}
