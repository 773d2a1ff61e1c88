//! `image.warp`: each destination pixel (x, y) samples the source at (x + fx, y + fy) (or at
//! (fx, fy) without the offset), where (fy, fx) is the flow field's value there. Samples off the
//! source are clamped to its border, or take a pad value; the sample is nearest, bilinear,
//! bicubic (Catmull-Rom, pad value beyond the border) or Lanczos (radius 3).

use super::scale::cubic;
use super::{Layout, Real, Sample};
use crate::error::{Error, Result};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Simple,
    Bilinear,
    Bicubic,
    Lanczos,
}

pub struct Warp {
    pub mode: Mode,
    /// Whether the flow is added to the pixel's own position.
    pub offset: bool,
    /// Samples off the source take `pad` (else they are clamped to the border).
    pub pad: bool,
    pub pad_value: f64,
}

const RAD: i64 = 3;

fn lanczos_weights(pos: f32, base: i64) -> [f32; 6] {
    let mut w = [0f32; 6];
    for (i, u) in (base - RAD + 1..=base + RAD).enumerate() {
        let d = (pos - u as f32).abs();
        w[i] = if d < 0.000001 {
            1.0
        } else if d > RAD as f32 {
            0.0
        } else {
            let pi = std::f32::consts::PI;
            let (a, b) = (
                ((pi * d) as f64).sin() as f32,
                ((pi * d / RAD as f32) as f64).sin() as f32,
            );
            (RAD as f32 * a * b) / ((std::f64::consts::PI * std::f64::consts::PI) as f32 * d * d)
        };
    }
    w
}

pub fn warp<T: Sample, F: Sample>(
    src: &[T],
    sl: &Layout,
    dst: &mut [T],
    dl: &Layout,
    field: &[F],
    fl: &Layout,
    opts: &Warp,
) -> Result<()> {
    sl.check(src.len())?;
    dl.check(dst.len())?;
    fl.check(field.len())?;
    if fl.channels() != 2 || fl.height() != dl.height() || fl.width() != dl.width() {
        return Err(Error::shape(
            "the flow field must be 2 x height x width of the destination",
        ));
    }
    if sl.channels() != dl.channels() {
        return Err(Error::shape("src and dst depths do not match"));
    }
    let (sw, sh) = (sl.width() as i64, sl.height() as i64);
    if sw == 0 || sh == 0 {
        return Err(Error::shape("cannot warp an empty image"));
    }
    let pad = T::cast(opts.pad_value);
    let channels = dl.channels();
    for y in 0..dl.height() {
        for x in 0..dl.width() {
            let fy = field[fl.at(0, y, x)].f64() as f32;
            let fx = field[fl.at(1, y, x)].f64() as f32;
            let (mut iy, mut ix) = if opts.offset {
                (y as f32 + fy, x as f32 + fx)
            } else {
                (fy, fx)
            };
            let off = !(iy >= 0.0 && iy <= (sh - 1) as f32 && ix >= 0.0 && ix <= (sw - 1) as f32);
            if off && opts.pad {
                for k in 0..channels {
                    dst[dl.at(k, y, x)] = pad;
                }
                continue;
            }
            // Clamped to the border (a NaN lands on 0).
            ix = if ix > 0.0 { ix.min((sw - 1) as f32) } else { 0.0 };
            iy = if iy > 0.0 { iy.min((sh - 1) as f32) } else { 0.0 };
            let at = |k: usize, yy: i64, xx: i64| src[sl.at(k, yy as usize, xx as usize)];
            match opts.mode {
                Mode::Simple => {
                    let (xn, yn) = ((ix + 0.5).floor() as i64, (iy + 0.5).floor() as i64);
                    let (xn, yn) = (xn.min(sw - 1), yn.min(sh - 1));
                    for k in 0..channels {
                        dst[dl.at(k, y, x)] = at(k, yn, xn);
                    }
                }
                Mode::Bilinear => {
                    let (x0, y0) = (ix.floor() as i64, iy.floor() as i64);
                    let (x1, y1) = (x0 + 1, y0 + 1);
                    let w = |v: f32| T::Acc::of_f32(v);
                    let nw = w((x1 as f32 - ix) * (y1 as f32 - iy));
                    let ne = w((ix - x0 as f32) * (y1 as f32 - iy));
                    let sw_ = w((x1 as f32 - ix) * (iy - y0 as f32));
                    let se = w((ix - x0 as f32) * (iy - y0 as f32));
                    let (xc, yc) = (x1.min(sw - 1), y1.min(sh - 1));
                    for k in 0..channels {
                        let v = at(k, y0, x0).acc() * nw
                            + at(k, y0, xc).acc() * ne
                            + at(k, yc, x0).acc() * sw_
                            + at(k, yc, xc).acc() * se;
                        dst[dl.at(k, y, x)] = T::from_acc(v);
                    }
                }
                Mode::Bicubic => {
                    let edge = !(iy >= 1.0 && iy < (sh - 2) as f32 && ix >= 1.0 && ix < (sw - 2) as f32);
                    let (xp, yp) = (ix.floor() as i64, iy.floor() as i64);
                    let (dx, dy) = (T::Acc::of_f32(ix - xp as f32), T::Acc::of_f32(iy - yp as f32));
                    for k in 0..channels {
                        let mut rows = [T::Acc::of(0.0); 4];
                        for (i, row) in rows.iter_mut().enumerate() {
                            let v = yp + i as i64 - 1;
                            let mut p = [T::Acc::of(0.0); 4];
                            for (j, pj) in p.iter_mut().enumerate() {
                                let u = xp + j as i64 - 1;
                                *pj = if edge && (v < 0 || v >= sh || u < 0 || u >= sw) {
                                    pad.acc()
                                } else {
                                    at(k, v.clamp(0, sh - 1), u.clamp(0, sw - 1)).acc()
                                };
                            }
                            *row = cubic(p[0], p[1], p[2], p[3], dx);
                        }
                        dst[dl.at(k, y, x)] = T::from_acc(cubic(rows[0], rows[1], rows[2], rows[3], dy));
                    }
                }
                Mode::Lanczos => {
                    let (xp, yp) = (ix.floor() as i64, iy.floor() as i64);
                    let lu = lanczos_weights(ix, xp);
                    let lv = lanczos_weights(iy, yp);
                    let mut total = 0f32;
                    for a in lu {
                        for b in lv {
                            total += a * b;
                        }
                    }
                    for k in 0..channels {
                        let mut sum = T::Acc::of(0.0);
                        for (i, u) in (xp - RAD + 1..=xp + RAD).enumerate() {
                            let u = u.clamp(0, sw - 1);
                            for (j, v) in (yp - RAD + 1..=yp + RAD).enumerate() {
                                let v = v.clamp(0, sh - 1);
                                sum += at(k, v, u).acc() * T::Acc::of_f32(lu[i] * lv[j]);
                            }
                        }
                        dst[dl.at(k, y, x)] = T::from_acc(sum / T::Acc::of_f32(total));
                    }
                }
            }
        }
    }
    Ok(())
}
