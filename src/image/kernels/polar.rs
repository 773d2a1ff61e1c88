//! Polar and log-polar resampling: row j of the destination is the angle 2*pi*j/height, column
//! i the radius (m*i/width, or exp(i*log(m)/width) for log-polar), about the source's centre; m
//! is half the shorter side ('valid') or half the diagonal ('full'). Outside the source a pixel
//! is 0; bilinear interpolation falls back to the nearest pixel where a neighbour is missing.

use super::geometry::blend;
use super::{Layout, Real, Sample, check_pair};
use crate::error::Result;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Radius {
    Linear,
    Log,
}

pub fn polar<T: Sample>(
    src: &[T],
    sl: &Layout,
    dst: &mut [T],
    dl: &Layout,
    full: bool,
    bilinear: bool,
    radius: Radius,
) -> Result<()> {
    check_pair(sl, src.len(), dl, dst.len())?;
    let (sw, sh) = (sl.width() as i64, sl.height() as i64);
    let (dw, dh) = (dl.width(), dl.height());
    let mid_y = sh as f32 / 2.0;
    let mid_x = sw as f32 / 2.0;
    let m = if full {
        (((sw as f32) * (sw as f32) + (sh as f32) * (sh as f32)) as f64).sqrt() as f32 / 2.0
    } else if sw < sh {
        mid_x
    } else {
        mid_y
    };
    let fw = ((m as f64).ln() as f32) / dw as f32;
    // Positions are kept in the kernel's arithmetic type (single for log-polar, as torch/image).
    let keep = |v: f64| match radius {
        Radius::Linear => T::Acc::of(v).f64(),
        Radius::Log => v as f32 as f64,
    };
    for j in 0..dh {
        let a = (2.0 * std::f64::consts::PI * j as f32 as f64 / dh as f32 as f64) as f32 as f64;
        for i in 0..dw {
            let r = match radius {
                Radius::Linear => (m * i as f32) / dw as f32,
                Radius::Log => ((i as f32 * fw) as f64).exp() as f32,
            } as f64;
            let y = r * a.cos() + mid_y as f64;
            let x = -r * a.sin() + mid_x as f64;
            let (ry, rx) = if bilinear { (keep(y), keep(x)) } else { (y, x) };
            let (i0, j0) = (rx.floor() as i64, ry.floor() as i64);
            let (wi, wj) = (keep(rx - i0 as f64), keep(ry - j0 as f64));
            let inside = |x: i64, y: i64| x >= 0 && y >= 0 && x < sw && y < sh;
            let interpolate = bilinear && inside(i0, j0) && inside(i0 + 1, j0 + 1);
            for k in 0..dl.channels() {
                let at = |x: i64, y: i64| src[sl.at(k, y as usize, x as usize)];
                dst[dl.at(k, j, i)] = if interpolate {
                    let f = |x: i64, y: i64| at(x, y).f64();
                    let v = blend(f(i0, j0), f(i0 + 1, j0), f(i0, j0 + 1), f(i0 + 1, j0 + 1), wi, wj);
                    T::from_acc(T::Acc::of_f32(v))
                } else if inside(i0, j0) {
                    at(i0, j0)
                } else {
                    T::default()
                };
            }
        }
    }
    Ok(())
}
