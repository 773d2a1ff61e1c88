//! Rotation about the image centre (nearest or bilinear), crops and translations. Positions are
//! computed in single precision and angles taken as single-precision numbers, as torch/image
//! computes them, so that results land on the same pixels.

use super::{Layout, Real, Sample, check_pair};
use crate::error::{Error, Result};

/// Bilinear blend of four samples with weights (wi, wj), in double precision and rounded to
/// single, as torch/image stores it.
#[inline(always)]
pub fn blend(s00: f64, s10: f64, s01: f64, s11: f64, wi: f64, wj: f64) -> f32 {
    ((1.0 - wi) * (1.0 - wj) * s00 + wi * (1.0 - wj) * s10 + (1.0 - wi) * wj * s01 + wi * wj * s11) as f32
}

/// `v.floor() as i64` without a call into libm (x86-64's baseline has no rounding instruction):
/// exact for the coordinates here, far inside i64's range.
#[inline(always)]
fn floor(v: f64) -> i64 {
    let t = v as i64;
    if (t as f64) > v { t - 1 } else { t }
}

/// `dst` is `src` rotated by `theta` radians about its centre (nearest neighbour); pixels that
/// come from outside `src` are 0.
pub fn rotate<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, theta: f64) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let theta = theta as f32 as f64;
    let (sin, cos) = (theta.sin() as f32, theta.cos() as f32);
    let (sw, sh) = (sl.width() as i64, sl.height() as i64);
    let xc = (sw - 1) as f32 / 2.0;
    let yc = (sh - 1) as f32 / 2.0;
    for j in 0..dl.height() {
        let jd = j as f32;
        for i in 0..dl.width() {
            let id = i as f32;
            let ii = ((cos * (id - xc) - sin * (jd - yc) + xc) as f64).round() as i64;
            let jj = ((cos * (jd - yc) + sin * (id - xc) + yc) as f64).round() as i64;
            let inside = ii >= 0 && jj >= 0 && ii < sw && jj < sh;
            for k in 0..dl.channels() {
                dst[dl.at(k, j, i)] = if inside {
                    src[sl.at(k, jj as usize, ii as usize)]
                } else {
                    T::default()
                };
            }
        }
    }
    Ok(())
}

/// `rotate` with bilinear interpolation; at the last row or column a sample nearer the edge
/// than half a pixel takes the edge's value.
pub fn rotate_bilinear<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, theta: f64) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    // RGB images get a build with the channel loop unrolled.
    match dl.channels() {
        3 => rotate_bilinear_in::<T, 3>(src, sl, dst, dl, theta),
        _ => rotate_bilinear_in::<T, 0>(src, sl, dst, dl, theta),
    }
    Ok(())
}

/// The body of `rotate_bilinear` for `C` channels (0: as many as the layouts have).
fn rotate_bilinear_in<T: Sample, const C: usize>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, theta: f64) {
    let theta = theta as f32 as f64;
    let (sin, cos) = (theta.sin(), theta.cos());
    let (sw, sh) = (sl.width() as i64, sl.height() as i64);
    let xc = (sw - 1) as f32 / 2.0;
    let yc = (sh - 1) as f32 / 2.0;
    let acc = |v: f64| T::Acc::of(v).f64();
    let channels = if C == 0 { dl.channels() } else { C };
    // The column terms of the rotation, computed once: the same products as per pixel.
    let (cos_x, sin_x): (Vec<f64>, Vec<f64>) = (0..dl.width())
        .map(|i| {
            let dx = (i as f32 - xc) as f64;
            (cos * dx, sin * dx)
        })
        .unzip();
    for j in 0..dl.height() {
        let dy = (j as f32 - yc) as f64;
        let (sin_y, cos_y) = (sin * dy, cos * dy);
        for i in 0..dl.width() {
            let ri = acc(cos_x[i] - sin_y);
            let rj = acc(cos_y + sin_x[i]);
            let (x, y) = (acc(ri + xc as f64), acc(rj + yc as f64));
            let (mut i0, mut j0) = (floor(x), floor(y));
            let (mut i1, mut j1) = (i0 + 1, j0 + 1);
            let (wi, wj) = (acc(x - i0 as f64), acc(y - j0 as f64));
            let mut blank = false;
            if i1 == sw && wi < 0.5 {
                i1 = i0;
            } else if i1 >= sw {
                blank = true;
            }
            if j1 == sh && wj < 0.5 {
                j1 = j0;
            } else if j1 >= sh {
                blank = true;
            }
            if i0 == -1 && wi > 0.5 {
                i0 = i1;
            } else if i0 < 0 {
                blank = true;
            }
            if j0 == -1 && wj > 0.5 {
                j0 = j1;
            } else if j0 < 0 {
                blank = true;
            }
            blank = blank || i0 < 0 || j0 < 0 || i1 >= sw || j1 >= sh;
            let out = dl.at(0, j, i);
            if blank {
                for k in 0..channels {
                    dst[out + k * dl.stride[0]] = T::default();
                }
                continue;
            }
            let at = |x: i64, y: i64| sl.at(0, y as usize, x as usize);
            let (o00, o10, o01, o11) = (at(i0, j0), at(i1, j0), at(i0, j1), at(i1, j1));
            for k in 0..channels {
                let c = k * sl.stride[0];
                // SAFETY: (i0, i1) lie in [0, sw) and (j0, j1) in [0, sh) (else the pixel is
                // blank), k is a channel, and check_pair found every such index inside `src`.
                let f = |o: usize| unsafe { src.get_unchecked(o + c) }.f64();
                let v = blend(f(o00), f(o10), f(o01), f(o11), wi, wj);
                dst[out + k * dl.stride[0]] = T::from_acc(T::Acc::of_f32(v));
            }
        }
    }
}

/// The part of `src` at (x, y) of `dst`'s size.
pub fn crop<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, x: i64, y: i64) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let fits = x >= 0
        && y >= 0
        && x as u64 + dl.width() as u64 <= sl.width() as u64
        && y as u64 + dl.height() as u64 <= sl.height() as u64;
    if !fits {
        return Err(Error::shape("crop goes outside bounds of src"));
    }
    let (x, y) = (x as usize, y as usize);
    for k in 0..dl.channels() {
        for j in 0..dl.height() {
            for i in 0..dl.width() {
                dst[dl.at(k, j, i)] = src[sl.at(k, j + y, i + x)];
            }
        }
    }
    Ok(())
}

/// Copies each pixel of `src` to `dst` shifted by (dx, dy); what falls outside `dst` is dropped,
/// and the rest of `dst` is left as it is.
pub fn translate<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, dx: i64, dy: i64) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let (dw, dh) = (dl.width() as i64, dl.height() as i64);
    for j in 0..sl.height() {
        let jj = j as i64 + dy;
        if jj < 0 || jj >= dh {
            continue;
        }
        for i in 0..sl.width() {
            let ii = i as i64 + dx;
            if ii < 0 || ii >= dw {
                continue;
            }
            for k in 0..sl.channels() {
                dst[dl.at(k, jj as usize, ii as usize)] = src[sl.at(k, j, i)];
            }
        }
    }
    Ok(())
}
