//! `image.scale`'s three modes. Bilinear and bicubic resample each row into a temporary image of
//! the source's height and the destination's width, then each column of that; the temporary has
//! the image's element type, so a byte image is rounded between the passes, as torch/image does.
//! Linear upsampling and cubic resampling place the first and last samples on the first and last
//! source samples; linear downsampling averages the source samples each destination sample
//! covers (with fractional weights at its ends), in single precision as torch/image does.

use super::{Layout, Real, Sample, check_pair};
use crate::error::{Error, Result};

/// A line of samples in a slice: `len` of them from `start`, `stride` apart.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    stride: usize,
    len: usize,
}

impl Line {
    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        self.start + i * self.stride
    }
}

/// Rounds to single precision: torch/image keeps these running values in C `float`s.
#[inline(always)]
fn f(v: f64) -> f32 {
    v as f32
}

fn linear_line<T: Sample>(src: &[T], s: Line, dst: &mut [T], d: Line) {
    let (sl, dl) = (s.len, d.len);
    if sl == 0 || dl == 0 {
        return;
    }
    if dl > sl {
        let scale = (sl - 1) as f32 / (dl - 1) as f32;
        for di in 0..dl - 1 {
            let value = if sl == 1 {
                src[s.at(0)]
            } else {
                let pos = di as f32 * scale;
                let i = (pos as usize).min(sl - 2);
                let w = pos - i as f32;
                let a = T::Acc::of_f32(1.0 - w) * src[s.at(i)].acc();
                let b = T::Acc::of_f32(w) * src[s.at(i + 1)].acc();
                T::from_acc(a + b)
            };
            dst[d.at(di)] = value;
        }
        dst[d.at(dl - 1)] = src[s.at(sl - 1)];
    } else if dl < sl {
        let scale = sl as f32 / dl as f32;
        let (mut i0, mut w0) = (0usize, 0f32);
        for di in 0..dl {
            let pos = (di + 1) as f32 * scale;
            let i1 = pos as usize;
            let w1 = pos - i1 as f32;
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
            dst[d.at(di)] = T::from_acc(T::Acc::of_f32(acc / n));
            i0 = i1;
            w0 = w1;
        }
    } else {
        for i in 0..dl {
            dst[d.at(i)] = src[s.at(i)];
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

fn cubic_line<T: Sample>(src: &[T], s: Line, dst: &mut [T], d: Line) {
    let (sl, dl) = (s.len, d.len);
    if sl == 0 || dl == 0 {
        return;
    }
    if sl == dl {
        for i in 0..dl {
            dst[d.at(i)] = src[s.at(i)];
        }
        return;
    }
    if sl == 1 {
        for i in 0..dl {
            dst[d.at(i)] = src[s.at(0)];
        }
        return;
    }
    let scale = if dl == 1 {
        (sl - 1) as f32
    } else {
        (sl - 1) as f32 / (dl - 1) as f32
    };
    let two = T::Acc::of(2.0);
    for di in 0..dl - 1 {
        let pos = di as f32 * scale;
        let i = (pos as usize).min(sl - 2);
        let x = T::Acc::of_f32(pos - i as f32);
        let p1 = src[s.at(i)].acc();
        let p2 = src[s.at(i + 1)].acc();
        let p0 = if i > 0 { src[s.at(i - 1)].acc() } else { two * p1 - p2 };
        let p3 = if i + 2 < sl {
            src[s.at(i + 2)].acc()
        } else {
            two * p2 - p1
        };
        dst[d.at(di)] = T::from_acc(cubic(p0, p1, p2, p3, x));
    }
    dst[d.at(dl - 1)] = src[s.at(sl - 1)];
}

fn separable<T: Sample>(
    src: &[T],
    sl: &Layout,
    dst: &mut [T],
    dl: &Layout,
    line: fn(&[T], Line, &mut [T], Line),
) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let (sh, sw) = (sl.height(), sl.width());
    let (dh, dw) = (dl.height(), dl.width());
    if sh == 0 || sw == 0 || dh == 0 || dw == 0 {
        return Ok(());
    }
    let mut tmp = vec![T::default(); sh * dw];
    for k in 0..sl.channels() {
        for y in 0..sh {
            let s = Line {
                start: sl.at(k, y, 0),
                stride: sl.stride[2],
                len: sw,
            };
            let t = Line {
                start: y * dw,
                stride: 1,
                len: dw,
            };
            line(src, s, &mut tmp, t);
        }
        for x in 0..dw {
            let t = Line {
                start: x,
                stride: dw,
                len: sh,
            };
            let d = Line {
                start: dl.at(k, 0, x),
                stride: dl.stride[1],
                len: dh,
            };
            line(&tmp, t, dst, d);
        }
    }
    Ok(())
}

pub fn bilinear<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    separable(src, sl, dst, dl, linear_line::<T>)
}

pub fn bicubic<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    separable(src, sl, dst, dl, cubic_line::<T>)
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
