//! `image.scale`'s three modes. Bilinear and bicubic resample each row into a temporary image of
//! the source's height and the destination's width, then each column of that; the temporary has
//! the image's element type, so a byte image is rounded between the passes, as torch/image does.
//! Linear upsampling and cubic resampling place the first and last samples on the first and last
//! source samples; linear downsampling averages the source samples each destination sample
//! covers (with fractional weights at its ends), in single precision as torch/image does.

use super::{Layout, Real, Sample, check_pair};
use crate::error::{Error, Result};

/// A line of samples in a slice, from `start`, `stride` apart (its length is the plan's).
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    stride: usize,
}

impl Line {
    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        self.start + i * self.stride
    }
}

/// Lines resampled together in a first (along-the-row) pass: their samples stay in cache, and
/// their outputs are independent work (eight f32 lanes fill an AVX2 register).
const BAND: usize = 8;

/// Rounds to single precision: torch/image keeps these running values in C `float`s.
#[inline(always)]
fn f(v: f64) -> f32 {
    v as f32
}

/// How one line of `sl` samples resamples to `dl`, worked out once per call (the positions and
/// weights depend on the lengths only): then any number of lines, in any order.
trait Resample<T: Sample> {
    fn plan(sl: usize, dl: usize) -> Self;
    /// For a linear downsampling plan, its spans (see [`shrink_f32`]).
    fn spans(&self) -> Option<&[Span]> {
        None
    }
    /// Output sample `di` of the line `s` of `src`.
    fn at(&self, src: &[T], s: Line, di: usize) -> T;
}

/// Linear: upsampling interpolates between the two nearest samples (the last output is the last
/// sample); downsampling averages the samples an output covers, from index `i0` (weight 1 - w0)
/// to `i1` (weight w1), summed in single precision in order.
struct Linear {
    sl: usize,
    dl: usize,
    spans: Vec<Span>,
}

/// The samples one output of a linear plan reads: (i0, w0, i1, w1) for downsampling, (i, w, _, _)
/// for upsampling.
type Span = (usize, f32, usize, f32);

impl<T: Sample> Resample<T> for Linear {
    fn spans(&self) -> Option<&[Span]> {
        (self.dl < self.sl).then_some(&self.spans[..])
    }

    fn plan(sl: usize, dl: usize) -> Linear {
        let mut spans = Vec::with_capacity(dl);
        if sl > 0 && dl > sl {
            let scale = (sl - 1) as f32 / (dl - 1) as f32;
            for di in 0..dl {
                let pos = di as f32 * scale;
                let i = (pos as usize).min(sl.saturating_sub(2));
                spans.push((i, pos - i as f32, 0, 0.0));
            }
        } else if dl > 0 && dl < sl {
            let scale = sl as f32 / dl as f32;
            let (mut i0, mut w0) = (0usize, 0f32);
            for di in 0..dl {
                let pos = (di + 1) as f32 * scale;
                let i1 = pos as usize;
                let w1 = pos - i1 as f32;
                spans.push((i0, w0, i1, w1));
                i0 = i1;
                w0 = w1;
            }
        }
        Linear { sl, dl, spans }
    }

    #[inline(always)]
    fn at(&self, src: &[T], s: Line, di: usize) -> T {
        let (sl, dl) = (self.sl, self.dl);
        if dl > sl {
            if sl == 1 || di == dl - 1 {
                return src[s.at(if sl == 1 { 0 } else { sl - 1 })];
            }
            let (i, w, _, _) = self.spans[di];
            let a = T::Acc::of_f32(1.0 - w) * src[s.at(i)].acc();
            let b = T::Acc::of_f32(w) * src[s.at(i + 1)].acc();
            T::from_acc(a + b)
        } else if dl < sl {
            let (i0, w0, i1, w1) = self.spans[di];
            let first = src[s.at(i0.min(sl - 1))].f64();
            let mut acc = f(f64::from(1.0 - w0) * first);
            let mut n = 1.0 - w0;
            for si in i0 + 1..i1.min(sl) {
                acc = f(f64::from(acc) + src[s.at(si)].f64());
                n += 1.0;
            }
            if i1 < sl {
                // A float image rounds the product first; a double one adds it exactly.
                let part = T::Acc::of(f64::from(w1) * src[s.at(i1)].f64()).f64();
                acc = f(f64::from(acc) + part);
                n += w1;
            }
            T::from_acc(T::Acc::of_f32(acc / n))
        } else {
            src[s.at(di)]
        }
    }
}

/// `Linear::at`'s downsampling for samples that are f32s exactly (f32 and byte images), over
/// many lines at once: `line(si)` holds sample `si` of each line, `out` gets each line's output.
/// The same single-precision operations in the same order per line, in loops across the lines
/// that the compiler vectorises.
#[inline(always)]
fn shrink_lanes<'a>(span: Span, sl: usize, line: impl Fn(usize) -> &'a [f32], out: &mut [f32]) {
    let (i0, w0, i1, w1) = span;
    let a = 1.0 - w0;
    for (o, &v) in out.iter_mut().zip(line(i0.min(sl - 1))) {
        *o = a * v;
    }
    let mut n = 1.0 - w0;
    for si in i0 + 1..i1.min(sl) {
        for (o, &v) in out.iter_mut().zip(line(si)) {
            *o += v;
        }
        n += 1.0;
    }
    if i1 < sl {
        for (o, &v) in out.iter_mut().zip(line(i1)) {
            *o += w1 * v;
        }
        n += w1;
    }
    for o in out.iter_mut() {
        *o /= n;
    }
}

/// Bilinear downsampling in both directions for f32-exact samples: the rows of a band of
/// `BAND` lines are transposed so that the first pass, too, runs across lines; the temporary
/// keeps the image's element type (a byte image is rounded between the passes).
fn shrink_f32<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, across: &[Span], down: &[Span]) {
    #[cfg(target_arch = "x86_64")]
    if crate::torch::kernels::reduce::accumulate::has_avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { shrink_f32_avx2(src, sl, dst, dl, across, down) };
    }
    shrink_f32_loops(src, sl, dst, dl, across, down)
}

/// [`shrink_f32_loops`] compiled for AVX2 (separate multiplies and adds: the same results).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn shrink_f32_avx2<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, across: &[Span], down: &[Span]) {
    shrink_f32_loops(src, sl, dst, dl, across, down)
}

#[inline(always)]
fn shrink_f32_loops<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, across: &[Span], down: &[Span]) {
    let (sh, sw) = (sl.height(), sl.width());
    let dw = dl.width();
    let to_t = |v: f32| T::from_acc(T::Acc::of_f32(v));
    let mut band = vec![0f32; sw * BAND];
    let mut tmp = vec![0f32; sh * dw];
    let mut out = [0f32; BAND];
    let mut row = vec![0f32; dw];
    for k in 0..sl.channels() {
        for y0 in (0..sh).step_by(BAND) {
            let nb = BAND.min(sh - y0);
            // Sample by sample across the band's rows: the band is written in order.
            let starts: [usize; BAND] = std::array::from_fn(|l| sl.at(k, y0 + l.min(nb - 1), 0));
            let step = sl.stride[2];
            for (si, lanes) in band.chunks_exact_mut(BAND).enumerate() {
                for (lane, &start) in lanes[..nb].iter_mut().zip(&starts) {
                    *lane = src[start + si * step].f64() as f32;
                }
            }
            for (di, &span) in across.iter().enumerate() {
                shrink_lanes(span, sw, |si| &band[si * BAND..si * BAND + nb], &mut out[..nb]);
                for (l, &v) in out[..nb].iter().enumerate() {
                    tmp[(y0 + l) * dw + di] = to_t(v).f64() as f32;
                }
            }
        }
        for (dj, &span) in down.iter().enumerate() {
            shrink_lanes(span, sh, |si| &tmp[si * dw..(si + 1) * dw], &mut row);
            for (x, &v) in row.iter().enumerate() {
                dst[dl.at(k, dj, x)] = to_t(v);
            }
        }
    }
}

/// Catmull-Rom through p1 and p2 at `x` in [0, 1).
#[inline(always)]
pub fn cubic<R: Real>(p0: R, p1: R, p2: R, p3: R, x: R) -> R {
    let two = R::of(2.0);
    let a1 = p2 - p0;
    let a2 = two * p0 - R::of(5.0) * p1 + R::of(4.0) * p2 - p3;
    let a3 = R::of(3.0) * (p1 - p2) + p3 - p0;
    p1 + R::of(0.5) * x * (a1 + x * (a2 + x * a3))
}

/// Cubic (Catmull-Rom) through the four samples around each output position; the first and last
/// outputs are the first and last samples, and missing neighbours at the ends are extrapolated.
struct Cubic {
    sl: usize,
    dl: usize,
    /// The sample before which each output lies, and its offset from it.
    at: Vec<(usize, f32)>,
}

impl<T: Sample> Resample<T> for Cubic {
    fn plan(sl: usize, dl: usize) -> Cubic {
        let mut at = Vec::new();
        if sl > 1 && dl > 0 && sl != dl {
            let scale = if dl == 1 {
                (sl - 1) as f32
            } else {
                (sl - 1) as f32 / (dl - 1) as f32
            };
            for di in 0..dl {
                let pos = di as f32 * scale;
                let i = (pos as usize).min(sl - 2);
                at.push((i, pos - i as f32));
            }
        }
        Cubic { sl, dl, at }
    }

    #[inline(always)]
    fn at(&self, src: &[T], s: Line, di: usize) -> T {
        let (sl, dl) = (self.sl, self.dl);
        if sl == dl {
            return src[s.at(di)];
        }
        if sl == 1 {
            return src[s.at(0)];
        }
        if di == dl - 1 {
            return src[s.at(sl - 1)];
        }
        let two = T::Acc::of(2.0);
        let (i, x) = self.at[di];
        let x = T::Acc::of_f32(x);
        let p1 = src[s.at(i)].acc();
        let p2 = src[s.at(i + 1)].acc();
        let p0 = if i > 0 { src[s.at(i - 1)].acc() } else { two * p1 - p2 };
        let p3 = if i + 2 < sl {
            src[s.at(i + 2)].acc()
        } else {
            two * p2 - p1
        };
        T::from_acc(cubic(p0, p1, p2, p3, x))
    }
}

/// Rows of the source into a temporary of the source's height and the destination's width,
/// then its columns into the destination. Every output sample is `R::at` of its line; the loops
/// only choose the order: a band of rows at a time for each output column in the first pass (the
/// band's lines stay in cache, and its samples are independent work), and whole temporary rows,
/// read contiguously, in the second.
fn separable<T: Sample, R: Resample<T>>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let (sh, sw) = (sl.height(), sl.width());
    let (dh, dw) = (dl.height(), dl.width());
    if sh == 0 || sw == 0 || dh == 0 || dw == 0 {
        return Ok(());
    }
    let across = R::plan(sw, dw);
    let down = R::plan(sh, dh);
    if T::F32_EXACT
        && dw < sw
        && dh < sh
        && let (Some(a), Some(d)) = (across.spans(), down.spans())
    {
        shrink_f32(src, sl, dst, dl, a, d);
        return Ok(());
    }
    let mut tmp = vec![T::default(); sh * dw];
    for k in 0..sl.channels() {
        for y0 in (0..sh).step_by(BAND) {
            let band = y0..(y0 + BAND).min(sh);
            for di in 0..dw {
                for y in band.clone() {
                    let s = Line {
                        start: sl.at(k, y, 0),
                        stride: sl.stride[2],
                    };
                    tmp[y * dw + di] = across.at(src, s, di);
                }
            }
        }
        for dj in 0..dh {
            for x in 0..dw {
                let t = Line { start: x, stride: dw };
                dst[dl.at(k, dj, x)] = down.at(&tmp, t, dj);
            }
        }
    }
    Ok(())
}

pub fn bilinear<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    separable::<T, Linear>(src, sl, dst, dl)
}

pub fn bicubic<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    separable::<T, Cubic>(src, sl, dst, dl)
}

/// Nearest neighbour: destination pixel (x, y) takes source pixel (x*sw/dw, y*sh/dh), rounded down.
pub fn simple<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let (sh, sw) = (sl.height(), sl.width());
    let (dh, dw) = (dl.height(), dl.width());
    if dh == 0 || dw == 0 {
        return Ok(());
    }
    if sh == 0 || sw == 0 {
        return Err(Error::shape("cannot scale an empty image"));
    }
    let scx = sw as f32 / dw as f32;
    let scy = sh as f32 / dh as f32;
    let xs: Vec<usize> = (0..dw).map(|i| ((i as f32 * scx) as usize).min(sw - 1)).collect();
    for j in 0..dh {
        let jj = ((j as f32 * scy) as usize).min(sh - 1);
        for k in 0..sl.channels() {
            for (i, &ii) in xs.iter().enumerate() {
                dst[dl.at(k, j, i)] = src[sl.at(k, jj, ii)];
            }
        }
    }
    Ok(())
}
