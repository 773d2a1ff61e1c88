//! Colour spaces and the kernels that fill images with values: RGB to Y, HSV and HSL both ways
//! (values in [0, 1], or 0..255 in a byte image), sRGB to CIE Lab (D65) both ways (float types
//! only), saturation to [0, 1], 2-D gaussians and colour-mapped label images.

use super::{Layout, Real, Sample};
use crate::error::{Error, Result};

fn check3(l: &Layout, len: usize, what: &str) -> Result<()> {
    l.check(len)?;
    if l.channels() < 3 {
        return Err(Error::shape(format!(
            "{what} must have 3 channels, not {}",
            l.channels()
        )));
    }
    Ok(())
}

/// Y = 0.299 R + 0.587 G + 0.114 B into the single channel of `dst`.
pub fn rgb2y<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    check3(sl, src.len(), "src")?;
    dl.check(dst.len())?;
    if dl.height() != sl.height() || dl.width() != sl.width() {
        return Err(Error::shape("src and dst not of same size"));
    }
    for y in 0..sl.height() {
        for x in 0..sl.width() {
            let c = |k| src[sl.at(k, y, x)].acc().f64();
            let v = 0.299 * c(0) + 0.587 * c(1) + 0.114 * c(2);
            dst[dl.at(0, y, x)] = T::from_acc(T::Acc::of(v));
        }
    }
    Ok(())
}

/// Applies `f` to every pixel's three channels, in [0, 1] (a byte image is divided by 255 before
/// and multiplied after).
fn per_pixel<T: Sample>(
    src: &[T],
    sl: &Layout,
    dst: &mut [T],
    dl: &Layout,
    f: impl Fn([T::Acc; 3]) -> [T::Acc; 3],
) -> Result<()> {
    check3(sl, src.len(), "src")?;
    check3(dl, dst.len(), "dst")?;
    if dl.height() < sl.height() || dl.width() < sl.width() {
        return Err(Error::shape("dst is smaller than src"));
    }
    let scale = T::Acc::of(255.0);
    let (ss, ds) = (sl.stride[2], dl.stride[2]);
    for y in 0..sl.height() {
        let (s0, d0) = ([0, 1, 2].map(|k| sl.at(k, y, 0)), [0, 1, 2].map(|k| dl.at(k, y, 0)));
        for x in 0..sl.width() {
            let mut p = s0.map(|b| src[b + x * ss].acc());
            if T::BYTE {
                p = p.map(|v| v / scale);
            }
            let mut q = f(p);
            if T::BYTE {
                q = q.map(|v| v * scale);
            }
            for (k, v) in q.into_iter().enumerate() {
                dst[d0[k] + x * ds] = T::from_acc(v);
            }
        }
    }
    Ok(())
}

fn max3<R: Real>(a: R, b: R, c: R) -> R {
    let m = if a > b { a } else { b };
    if m > c { m } else { c }
}

fn min3<R: Real>(a: R, b: R, c: R) -> R {
    let m = if a < b { a } else { b };
    if m < c { m } else { c }
}

/// Hue in [0, 1) of a chromatic colour with largest channel `mx` and range `d`.
fn hue<R: Real>(r: R, g: R, b: R, mx: R, d: R) -> R {
    let h = if mx == r {
        (g - b) / d + if g < b { R::of(6.0) } else { R::of(0.0) }
    } else if mx == g {
        (b - r) / d + R::of(2.0)
    } else {
        (r - g) / d + R::of(4.0)
    };
    h / R::of(6.0)
}

pub fn rgb2hsl<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    per_pixel(src, sl, dst, dl, |[r, g, b]| {
        let (mx, mn) = (max3(r, g, b), min3(r, g, b));
        if mx == mn {
            return [T::Acc::of(0.0), T::Acc::of(0.0), mx];
        }
        let d = mx - mn;
        let l = (mx + mn) / T::Acc::of(2.0);
        let s = if l.f64() > 0.5 {
            d / (T::Acc::of(2.0) - mx - mn)
        } else {
            d / (mx + mn)
        };
        [hue(r, g, b, mx, d), s, l]
    })
}

pub fn rgb2hsv<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    per_pixel(src, sl, dst, dl, |[r, g, b]| {
        let (mx, mn) = (max3(r, g, b), min3(r, g, b));
        if mx == mn {
            return [T::Acc::of(0.0), T::Acc::of(0.0), mx];
        }
        let d = mx - mn;
        [hue(r, g, b, mx, d), d / mx, mx]
    })
}

fn hue2rgb<R: Real>(p: R, q: R, t: R) -> R {
    let mut t = t.f64();
    if t < 0.0 {
        t += 1.0;
    }
    if t > 1.0 {
        t -= 1.0;
    }
    let t = R::of(t).f64();
    let (p64, q64) = (p.f64(), q.f64());
    if t < 1.0 / 6.0 {
        R::of(p64 + (q64 - p64) * 6.0 * t)
    } else if t < 0.5 {
        q
    } else if t < 2.0 / 3.0 {
        R::of(p64 + (q64 - p64) * (2.0 / 3.0 - t) * 6.0)
    } else {
        p
    }
}

pub fn hsl2rgb<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    per_pixel(src, sl, dst, dl, |[h, s, l]| {
        if s.f64() == 0.0 {
            return [l, l, l];
        }
        let one = T::Acc::of(1.0);
        let q = if l.f64() < 0.5 { l * (one + s) } else { l + s - l * s };
        let p = T::Acc::of(2.0) * l - q;
        let third = 1.0 / 3.0;
        [
            hue2rgb(p, q, T::Acc::of(h.f64() + third)),
            hue2rgb(p, q, h),
            hue2rgb(p, q, T::Acc::of(h.f64() - third)),
        ]
    })
}

pub fn hsv2rgb<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    per_pixel(src, sl, dst, dl, |[h, s, v]| {
        let i = (h.f64() * 6.0).floor();
        let f = h * T::Acc::of(6.0) - T::Acc::of(i);
        let one = T::Acc::of(1.0);
        let p = v * (one - s);
        let q = v * (one - f * s);
        let t = v * (one - (one - f) * s);
        let zero = T::Acc::of(0.0);
        // C's remainder: a negative sector gives black.
        match (i as i64) % 6 {
            0 => [v, t, p],
            1 => [q, v, p],
            2 => [p, v, t],
            3 => [p, q, v],
            4 => [t, p, v],
            5 => [v, p, q],
            _ => [zero, zero, zero],
        }
    })
}

// CIE constants and the D65 white point.
const EPSILON: f64 = 216.0 / 24389.0;
const KAPPA: f64 = 24389.0 / 27.0;
const XN: f64 = 0.950456;
const ZN: f64 = 1.088754;

/// Lab from sRGB in [0, 1] (a float or double image; the result is not restricted to [0, 1]).
pub fn rgb2lab<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    if T::BYTE {
        return Err(Error::dtype("not supported for torch.ByteTensor"));
    }
    per_pixel(src, sl, dst, dl, |rgb| {
        let [r, g, b] = rgb.map(|c| {
            let c = c.f64();
            let lin = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            T::Acc::of(lin).f64()
        });
        let x = (0.412453 * r + 0.357580 * g + 0.180423 * b) / XN;
        let y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
        let z = (0.019334 * r + 0.119193 * g + 0.950227 * b) / ZN;
        let f = |t: f64| {
            if t > EPSILON {
                t.powf(1.0 / 3.0)
            } else {
                (KAPPA * t + 16.0) / 116.0
            }
        };
        let (fx, fy, fz) = (f(x), f(y), f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)].map(T::Acc::of)
    })
}

pub fn lab2rgb<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout) -> Result<()> {
    if T::BYTE {
        return Err(Error::dtype("not supported for torch.ByteTensor"));
    }
    per_pixel(src, sl, dst, dl, |lab| {
        let [l, a, b] = lab.map(|v| v.f64());
        let fy = (l + 16.0) / 116.0;
        let fz = fy - b / 200.0;
        let fx = a / 500.0 + fy;
        let mut x = fx.powi(3);
        if x <= EPSILON {
            x = (116.0 * fx - 16.0) / KAPPA;
        }
        let y = if l > KAPPA * EPSILON {
            ((l + 16.0) / 116.0).powi(3)
        } else {
            l / KAPPA
        };
        let mut z = fz.powi(3);
        if z <= EPSILON {
            z = (116.0 * fz - 16.0) / KAPPA;
        }
        let (x, z) = (x * XN, z * ZN);
        let r = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z;
        let g = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z;
        let b = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z;
        [r, g, b].map(|c| {
            let c = T::Acc::of(c).f64();
            let v = if c <= 0.0031308 {
                12.92 * c
            } else {
                1.055 * c.powf(1.0 / 2.4) - 0.055
            };
            T::Acc::of(v)
        })
    })
}

/// Clamps every element to [0, 1] (bytes are left as they are).
pub fn saturate<T: Sample>(data: &mut [T], l: &Layout) -> Result<()> {
    l.check(data.len())?;
    if T::BYTE {
        return Ok(());
    }
    let (zero, one) = (T::cast(0.0), T::cast(1.0));
    for k in 0..l.channels() {
        for y in 0..l.height() {
            for x in 0..l.width() {
                let v = &mut data[l.at(k, y, x)];
                if *v < zero {
                    *v = zero;
                } else if *v > one {
                    *v = one;
                }
            }
        }
    }
    Ok(())
}

pub struct Gaussian {
    pub amplitude: f64,
    pub normalize: bool,
    pub sigma: [f64; 2],
    pub mean: [f64; 2],
}

/// A gaussian over the height x width image (one channel): amplitude * exp(-(du^2 + dv^2)/2),
/// du = (u + 1 - mean_u*width - 0.5) / (sigma_u*width) for 0-based column u, and alike for rows.
pub fn gaussian<T: Sample>(data: &mut [T], l: &Layout, g: &Gaussian) -> Result<()> {
    l.check(data.len())?;
    let (h, w) = (l.height(), l.width());
    let a = |v: f64| T::Acc::of(v);
    let amplitude = a(g.amplitude);
    let mean_u = a(g.mean[0]) * a(w as f64) + a(0.5);
    let mean_v = a(g.mean[1]) * a(h as f64) + a(0.5);
    let over_u = a(1.0) / (a(g.sigma[0]) * a(w as f64));
    let over_v = a(1.0) / (a(g.sigma[1]) * a(h as f64));
    for v in 0..h {
        let dv = (a((v + 1) as f64) - mean_v) * over_v;
        for u in 0..w {
            let du = (a((u + 1) as f64) - mean_u) * over_u;
            let e = (-0.5 * (du * du + dv * dv).f64()).exp();
            data[l.at(0, v, u)] = T::from_acc(a(amplitude.f64() * e));
        }
    }
    if g.normalize {
        let mut sum = a(0.0);
        for v in 0..h {
            for u in 0..w {
                sum += data[l.at(0, v, u)].acc();
            }
        }
        let inv = a(1.0) / sum;
        for v in 0..h {
            for u in 0..w {
                let x = &mut data[l.at(0, v, u)];
                *x = T::cast((x.acc() * inv).f64());
            }
        }
    }
    Ok(())
}

/// `dst`'s channel k at (y, x) = `map[label(y, x)][k]`, where `labels` holds 0-based rows of the
/// n x channels colour map `map` (given as a 1 x n x channels layout).
pub fn colorize<T: Sample>(
    labels: &[T],
    ll: &Layout,
    map: &[T],
    ml: &Layout,
    dst: &mut [T],
    dl: &Layout,
) -> Result<()> {
    ll.check(labels.len())?;
    ml.check(map.len())?;
    dl.check(dst.len())?;
    let (n, c) = (ml.height(), ml.width());
    if dl.channels() != c || dl.height() != ll.height() || dl.width() != ll.width() {
        return Err(Error::shape("output and colour map sizes do not match"));
    }
    for y in 0..ll.height() {
        for x in 0..ll.width() {
            let id = labels[ll.at(0, y, x)].f64() as i64;
            if id < 0 || id as usize >= n {
                return Err(Error::shape(format!(
                    "label {} is outside the colour map (1..{n})",
                    id + 1
                )));
            }
            for k in 0..c {
                dst[dl.at(k, y, x)] = map[ml.at(0, id as usize, k)];
            }
        }
    }
    Ok(())
}

/// A 3x3 colour matrix applied as torch/image's YUV conversions apply it with tensor sums:
/// channel i starts at 0 (or at channel 0's value, `from_first`), then adds m[i][j] * channel j
/// for each non-zero m[i][j] in order, each step rounded to the element type. Float types only
/// (for bytes those tensor sums truncate each coefficient; the Lua side does that itself).
pub fn matrix3<T: Sample>(
    src: &[T],
    sl: &Layout,
    dst: &mut [T],
    dl: &Layout,
    m: &[[f64; 3]; 3],
    from_first: bool,
) -> Result<()> {
    if T::BYTE {
        return Err(Error::dtype("matrix3 takes float or double images"));
    }
    check3(sl, src.len(), "src")?;
    check3(dl, dst.len(), "dst")?;
    if dl.height() != sl.height() || dl.width() != sl.width() {
        return Err(Error::shape("src and dst not of same size"));
    }
    let coef = m.map(|row| row.map(T::Acc::of));
    let (ss, ds) = (sl.stride[2], dl.stride[2]);
    if ss == 1 && ds == 1 {
        let map = Map3 { m, coef, from_first };
        #[cfg(target_arch = "x86_64")]
        if crate::torch::kernels::reduce::accumulate::has_avx2() {
            // SAFETY: the CPU has AVX2.
            unsafe { matrix3_rows_avx2(src, sl, dst, dl, &map) };
            return Ok(());
        }
        matrix3_rows(src, sl, dst, dl, &map);
        return Ok(());
    }
    for y in 0..sl.height() {
        let (s0, d0) = ([0, 1, 2].map(|k| sl.at(k, y, 0)), [0, 1, 2].map(|k| dl.at(k, y, 0)));
        for x in 0..sl.width() {
            let p = s0.map(|b| src[b + x * ss].acc());
            for i in 0..3 {
                let mut v = if from_first { p[0] } else { T::Acc::of(0.0) };
                for j in 0..3 {
                    if m[i][j] != 0.0 {
                        v += coef[i][j] * p[j];
                    }
                }
                dst[d0[i] + x * ds] = T::from_acc(v);
            }
        }
    }
    Ok(())
}

/// `matrix3`'s matrix, as its coefficients and as the element type's.
struct Map3<'a, T: Sample> {
    m: &'a [[f64; 3]; 3],
    coef: [[T::Acc; 3]; 3],
    from_first: bool,
}

/// [`matrix3_rows`] compiled for AVX2 (separate multiplies and adds: the same results).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn matrix3_rows_avx2<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, map: &Map3<T>) {
    matrix3_rows(src, sl, dst, dl, map)
}

/// `matrix3` over rows of contiguous pixels.
#[inline(always)]
fn matrix3_rows<T: Sample>(src: &[T], sl: &Layout, dst: &mut [T], dl: &Layout, map: &Map3<T>) {
    let Map3 { m, coef, from_first } = map;
    // Rows of contiguous pixels: each output row is built in passes (its start, then one
    // term at a time), the same operations in the same order per pixel, in loops the
    // compiler vectorises.
    let w = sl.width();
    for y in 0..sl.height() {
        let rows = [0, 1, 2].map(|k| {
            let b = sl.at(k, y, 0);
            &src[b..b + w]
        });
        for i in 0..3 {
            let d = dl.at(i, y, 0);
            let out = &mut dst[d..d + w];
            if *from_first {
                out.copy_from_slice(rows[0]);
            } else {
                out.fill(T::from_acc(T::Acc::of(0.0)));
            }
            for j in 0..3 {
                if m[i][j] != 0.0 {
                    let c = coef[i][j];
                    for (o, &p) in out.iter_mut().zip(rows[j]) {
                        *o = T::from_acc(o.acc() + c * p.acc());
                    }
                }
            }
        }
    }
}
