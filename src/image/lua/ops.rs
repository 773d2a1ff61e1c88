//! The pixel operations of libimage: scaling, rotation, polar maps, crops, translations, warps,
//! flips, colour spaces, gaussians, colour maps and drawing.

use mlua::{Lua, Result, Table, Value, Variadic};

use super::tensors::{Source, data, data_mut, layout, on_image_type, tensor};
use crate::args::number;
use crate::calls;
use crate::error::{Error, Named, Result as KResult};
use crate::image::kernels::{colour, draw, flip, geometry, polar, scale, warp};
use crate::torch::base::tensor::Tensor;

type Args = Variadic<Value>;

fn arg(a: &Args, i: usize) -> &Value {
    a.get(i).unwrap_or(&Value::Nil)
}

fn num(a: &Args, i: usize) -> KResult<f64> {
    number(arg(a, i)).ok_or_else(|| Error::argument(format!("bad argument #{} (number expected)", i + 1)))
}

/// An integer argument, truncated as C's conversion does; kept within +-2^40 so that the
/// kernels' position arithmetic cannot overflow (nothing that far off an image can land on it).
fn int(a: &Args, i: usize) -> KResult<i64> {
    let v = num(a, i)?;
    if !v.is_finite() {
        return Err(Error::argument(format!(
            "bad argument #{} (a finite number expected)",
            i + 1
        )));
    }
    const FAR: f64 = (1u64 << 40) as f64;
    Ok(v.clamp(-FAR, FAR) as i64)
}

fn flag(a: &Args, i: usize) -> bool {
    !matches!(arg(a, i), Value::Nil | Value::Boolean(false))
}

/// Runs a kernel over a source image and a destination of the same element type, the source
/// copied first when the two share memory.
macro_rules! pair {
    ($src:expr, $dst:expr, |$s:ident, $sl:ident, $d:ident, $dl:ident| $call:expr) => {{
        let (src, dst): (&Tensor, &Tensor) = ($src, $dst);
        if src.dtype != dst.dtype {
            return Err(Error::dtype(format!(
                "src is a {} and dst a {}",
                src.dtype.tensor_typename(),
                dst.dtype.tensor_typename()
            )));
        }
        on_image_type!(src.dtype, T => {
            // SAFETY: a source sharing dst's storage is copied by Source::of, so the only live
            // slice of dst's storage is the mutable one.
            let source = unsafe { Source::<T>::of(src, dst)? };
            let ($s, $sl) = source.get();
            let $dl = layout(dst)?;
            let $d = unsafe { data_mut::<T>(dst)? };
            $call
        })
    }};
}

fn src_dst(a: &Args) -> KResult<(Tensor, Tensor)> {
    Ok((tensor(arg(a, 0), 1)?, tensor(arg(a, 1), 2)?))
}

fn dst_src(a: &Args) -> KResult<(Tensor, Tensor)> {
    Ok((tensor(arg(a, 0), 1)?, tensor(arg(a, 1), 2)?))
}

/// Runs a pass over the arguments, its errors named after the image function that called it.
fn run(function: &str, a: &Args, pass: impl FnOnce(&Args) -> KResult<()>) -> Result<()> {
    pass(a).named(function)
}

/// `scaleSimple(src, dst)`: src scaled to dst's size, nearest pixels.
fn scale_simple(_: &Lua, a: Args) -> Result<()> {
    run("image.scale", &a, |a| {
        let (s, d) = src_dst(a)?;
        pair!(&s, &d, |src, sl, dst, dl| scale::simple(src, sl, dst, &dl))
    })
}

/// `scaleBilinear(src, dst)`: src scaled to dst's size, bilinear.
fn scale_bilinear(_: &Lua, a: Args) -> Result<()> {
    run("image.scale", &a, |a| {
        let (s, d) = src_dst(a)?;
        pair!(&s, &d, |src, sl, dst, dl| scale::bilinear(src, sl, dst, &dl))
    })
}

/// `scaleBicubic(src, dst)`: src scaled to dst's size, bicubic.
fn scale_bicubic(_: &Lua, a: Args) -> Result<()> {
    run("image.scale", &a, |a| {
        let (s, d) = src_dst(a)?;
        pair!(&s, &d, |src, sl, dst, dl| scale::bicubic(src, sl, dst, &dl))
    })
}

/// `rotate(src, dst, theta)`: nearest pixels.
fn rotate(_: &Lua, a: Args) -> Result<()> {
    run("image.rotate", &a, |a| {
        let (s, d) = src_dst(a)?;
        let theta = num(a, 2)?;
        pair!(&s, &d, |src, sl, dst, dl| geometry::rotate(src, sl, dst, &dl, theta))
    })
}

/// `rotateBilinear(src, dst, theta)`
fn rotate_bilinear(_: &Lua, a: Args) -> Result<()> {
    run("image.rotate", &a, |a| {
        let (s, d) = src_dst(a)?;
        let theta = num(a, 2)?;
        pair!(&s, &d, |src, sl, dst, dl| geometry::rotate_bilinear(
            src, sl, dst, &dl, theta
        ))
    })
}

/// `polar(src, dst, full)`: src in polar coordinates, nearest pixels.
fn polar(_: &Lua, a: Args) -> Result<()> {
    run("image.polar", &a, |a| polar_with(a, false, polar::Radius::Linear))
}

/// `polarBilinear(src, dst, full)`
fn polar_bilinear(_: &Lua, a: Args) -> Result<()> {
    run("image.polar", &a, |a| polar_with(a, true, polar::Radius::Linear))
}

/// `logPolar(src, dst, full)`: src in log-polar coordinates, nearest pixels.
fn log_polar(_: &Lua, a: Args) -> Result<()> {
    run("image.logpolar", &a, |a| polar_with(a, false, polar::Radius::Log))
}

/// `logPolarBilinear(src, dst, full)`
fn log_polar_bilinear(_: &Lua, a: Args) -> Result<()> {
    run("image.logpolar", &a, |a| polar_with(a, true, polar::Radius::Log))
}

fn polar_with(a: &Args, bilinear: bool, radius: polar::Radius) -> KResult<()> {
    let (s, d) = src_dst(a)?;
    let full = num(a, 2)? == 1.0;
    pair!(&s, &d, |src, sl, dst, dl| polar::polar(
        src, sl, dst, &dl, full, bilinear, radius
    ))
}

/// `cropNoScale(src, dst, x, y)`: dst's size of src from (x, y).
fn crop(_: &Lua, a: Args) -> Result<()> {
    run("image.crop", &a, |a| {
        let (s, d) = src_dst(a)?;
        let (x, y) = (int(a, 2)?, int(a, 3)?);
        pair!(&s, &d, |src, sl, dst, dl| geometry::crop(src, sl, dst, &dl, x, y))
    })
}

/// `translate(src, dst, x, y)`
fn translate(_: &Lua, a: Args) -> Result<()> {
    run("image.translate", &a, |a| {
        let (s, d) = src_dst(a)?;
        let (x, y) = (int(a, 2)?, int(a, 3)?);
        pair!(&s, &d, |src, sl, dst, dl| geometry::translate(src, sl, dst, &dl, x, y))
    })
}

/// `warp(dst, src, field, mode, offset, pad, padValue)`: src sampled at the flow field's
/// positions (mode 0 to 3: simple, bilinear, bicubic, lanczos).
fn warp_image(_: &Lua, a: Args) -> Result<()> {
    run("image.warp", &a, |a| {
        let (d, s) = dst_src(a)?;
        let field = tensor(arg(a, 2), 3)?;
        let mode = match int(a, 3)? {
            0 => warp::Mode::Simple,
            1 => warp::Mode::Bilinear,
            2 => warp::Mode::Bicubic,
            3 => warp::Mode::Lanczos,
            m => return Err(Error::argument(format!("unknown mode {m}"))),
        };
        let opts = warp::Warp {
            mode,
            offset: flag(a, 4),
            pad: int(a, 5)? == 1,
            pad_value: number(arg(a, 6)).unwrap_or(0.0),
        };
        if field.dim() != 3 {
            return Err(Error::shape("the flow field must be 2 x height x width"));
        }
        let fl = layout(&field)?;
        pair!(&s, &d, |src, sl, dst, dl| {
            on_image_type!(field.dtype, F => {
                // SAFETY: read only; copied when it shares dst's memory.
                let fdata = unsafe { data::<F>(&field)? };
                let fsrc = Source::of_layout(fdata, fl, field.shares_storage(&d))?;
                let (f, fl) = fsrc.get();
                warp::warp(src, sl, dst, &dl, f, fl, &opts)
            })
        })
    })
}

fn flip_with(d: &Tensor, s: &Tensor, dim: usize) -> KResult<()> {
    if s.dtype != d.dtype {
        return Err(Error::dtype("src and dst types differ"));
    }
    let strided = |t: &Tensor| flip::Strided {
        offset: t.offset,
        size: t.size.clone(),
        stride: t.stride.clone(),
    };
    on_image_type!(s.dtype, T => {
        let sd = unsafe { data::<T>(s)? };
        // A source sharing dst's memory is copied (contiguous) first.
        let (own, sview);
        let src: &[T] = if s.shares_storage(d) {
            let mut v = Vec::with_capacity(s.numel());
            let c = crate::torch::kernels::strided::Offsets::new(s);
            for o in c {
                v.push(sd[o]);
            }
            own = v;
            sview = flip::Strided {
                offset: 0,
                size: s.size.clone(),
                stride: crate::torch::base::tensor::contiguous_strides(&s.size),
            };
            &own
        } else {
            sview = strided(s);
            sd
        };
        // SAFETY: the only live slice of dst's storage (src was copied if it shares it).
        let dst = unsafe { data_mut::<T>(d)? };
        flip::flip(src, &sview, dst, &strided(d), dim)
    })
}

/// `hflip(dst, src)`
fn hflip(_: &Lua, a: Args) -> Result<()> {
    run("image.hflip", &a, |a| {
        let (d, s) = dst_src(a)?;
        flip_with(&d, &s, d.dim().saturating_sub(1))
    })
}

/// `vflip(dst, src)`
fn vflip(_: &Lua, a: Args) -> Result<()> {
    run("image.vflip", &a, |a| {
        let (d, s) = dst_src(a)?;
        flip_with(&d, &s, d.dim().saturating_sub(2))
    })
}

/// `flip(dst, src, dim)`
fn flip_dim(_: &Lua, a: Args) -> Result<()> {
    run("image.flip", &a, |a| {
        let (d, s) = dst_src(a)?;
        let dim = int(a, 2)?;
        if dim < 1 || dim as usize > d.dim() {
            return Err(Error::shape("flip_dim out of bounds"));
        }
        flip_with(&d, &s, dim as usize - 1)
    })
}

/// A colour-space conversion `name(src, dst)`, its errors named after `function`.
macro_rules! colour_op {
    ($name:ident, $kernel:path, $function:literal) => {
        #[doc = concat!("`", stringify!($name), "(src, dst)`: ", $function, "'s pass.")]
        fn $name(_: &Lua, a: Args) -> Result<()> {
            run($function, &a, |a| {
                let (s, d) = src_dst(a)?;
                pair!(&s, &d, |src, sl, dst, dl| $kernel(src, sl, dst, &dl))
            })
        }
    };
}

colour_op!(rgb2y, colour::rgb2y, "image.rgb2y");
colour_op!(rgb2hsv, colour::rgb2hsv, "image.rgb2hsv");
colour_op!(rgb2hsl, colour::rgb2hsl, "image.rgb2hsl");
colour_op!(hsv2rgb, colour::hsv2rgb, "image.hsv2rgb");
colour_op!(hsl2rgb, colour::hsl2rgb, "image.hsl2rgb");
colour_op!(rgb2lab, colour::rgb2lab, "image.rgb2lab");
colour_op!(lab2rgb, colour::lab2rgb, "image.lab2rgb");

/// `matrix3(src, dst, {m11, ..., m33}, from_first)`: see colour::matrix3.
fn matrix3(_: &Lua, a: Args) -> Result<()> {
    run("image.rgb2yuv", &a, |a| {
        let (s, d) = src_dst(a)?;
        let Value::Table(t) = arg(a, 2) else {
            return Err(Error::argument("bad argument #3 (a table of 9 numbers expected)"));
        };
        let mut m = [[0f64; 3]; 3];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = t
                    .raw_get::<f64>(i * 3 + j + 1)
                    .map_err(|_| Error::argument("bad argument #3 (a table of 9 numbers expected)"))?;
            }
        }
        let from_first = flag(a, 3);
        pair!(&s, &d, |src, sl, dst, dl| colour::matrix3(
            src, sl, dst, &dl, &m, from_first
        ))
    })
}

/// `saturate(t)`: clamped to the type's pixel range, in place.
fn saturate(_: &Lua, a: Args) -> Result<()> {
    run("image.saturate", &a, |a| {
        let t = tensor(arg(a, 0), 1)?;
        let l = flat(&t)?;
        on_image_type!(t.dtype, T => {
            // SAFETY: the only slice of this storage.
            let d = unsafe { data_mut::<T>(&t)? };
            colour::saturate(d, &l)
        })
    })
}

/// Any tensor as an image layout over its elements (saturate takes every shape): a contiguous
/// one as a single row, others by their last three dimensions.
fn flat(t: &Tensor) -> KResult<crate::image::kernels::Layout> {
    if t.is_contiguous() || t.dim() <= 1 {
        let n = t.numel();
        return Ok(crate::image::kernels::Layout {
            offset: t.offset,
            size: [1, 1, n],
            stride: [0, 0, 1],
        });
    }
    if t.dim() <= 3 {
        return layout(t);
    }
    Err(Error::shape(
        "saturate takes a contiguous tensor, or one of at most 3 dimensions",
    ))
}

/// `gaussian(t, amplitude, normalize, sigmaHoriz, sigmaVert, meanHoriz, meanVert)`: fills t.
fn gaussian(_: &Lua, a: Args) -> Result<()> {
    run("image.gaussian", &a, |a| {
        let t = tensor(arg(a, 0), 1)?;
        if t.dim() != 2 {
            return Err(Error::shape("expecting 2D tensor"));
        }
        let g = colour::Gaussian {
            amplitude: num(a, 1)?,
            normalize: flag(a, 2),
            sigma: [num(a, 3)?, num(a, 4)?],
            mean: [num(a, 5)?, num(a, 6)?],
        };
        let l = layout(&t)?;
        on_image_type!(t.dtype, T => {
            // SAFETY: the only slice of this storage.
            let d = unsafe { data_mut::<T>(&t)? };
            colour::gaussian(d, &l, &g)
        })
    })
}

/// `colorize(out, labels, colourMap)`
fn colorize(_: &Lua, a: Args) -> Result<()> {
    run("image.colorize", &a, |a| {
        let out = tensor(arg(a, 0), 1)?;
        let labels = tensor(arg(a, 1), 2)?;
        let map = tensor(arg(a, 2), 3)?;
        if labels.dim() != 2 || map.dim() != 2 {
            return Err(Error::shape("colorize takes a 2D label image and a 2D colour map"));
        }
        if labels.dtype != out.dtype || map.dtype != out.dtype {
            return Err(Error::dtype("output, labels and colour map must be of one type"));
        }
        let dl = layout(&out)?;
        on_image_type!(out.dtype, T => {
            // SAFETY: inputs sharing the output's memory are copied.
            let ls = unsafe { Source::<T>::of(&labels, &out)? };
            let ms = unsafe { Source::<T>::of(&map, &out)? };
            let ((l, ll), (m, ml)) = (ls.get(), ms.get());
            let d = unsafe { data_mut::<T>(&out)? };
            colour::colorize(l, ll, m, ml, d, &dl)
        })
    })
}

fn colour_at(a: &Args, i: usize) -> KResult<draw::Rgb> {
    Ok([int(a, i)?, int(a, i + 1)?, int(a, i + 2)?])
}

/// `text(out, text, x, y, size, r, g, b, bgR, bgG, bgB, wrap)`: image.drawText's pass.
fn text(_: &Lua, a: Args) -> Result<()> {
    run("image.drawText", &a, |a| {
        let out = tensor(arg(a, 0), 1)?;
        let Value::String(s) = arg(a, 1) else {
            return Err(Error::argument("bad argument #2 (string expected)"));
        };
        let bytes = s.as_bytes().to_vec();
        let bg = colour_at(a, 8)?;
        let t = draw::Text {
            text: &bytes,
            x: int(a, 2)?,
            y: int(a, 3)?,
            size: int(a, 4)?,
            color: colour_at(a, 5)?,
            background: if bg.contains(&-1) { None } else { Some(bg) },
            wrap: int(a, 11)? != 0,
        };
        let l = layout(&out)?;
        on_image_type!(out.dtype, T => {
            // SAFETY: the only slice of this storage.
            let d = unsafe { data_mut::<T>(&out)? };
            draw::text(d, &l, &t)
        })
    })
}

/// `drawRect(out, x1, y1, x2, y2, lineWidth, r, g, b)`
fn rect(_: &Lua, a: Args) -> Result<()> {
    run("image.drawRect", &a, |a| {
        let out = tensor(arg(a, 0), 1)?;
        let corners = [int(a, 1)?, int(a, 2)?, int(a, 3)?, int(a, 4)?];
        let width = int(a, 5)?;
        let colour = colour_at(a, 6)?;
        let l = layout(&out)?;
        on_image_type!(out.dtype, T => {
            // SAFETY: the only slice of this storage.
            let d = unsafe { data_mut::<T>(&out)? };
            draw::rect(d, &l, corners, width, colour)
        })
    })
}

pub fn register(lua: &Lua, t: &Table) -> Result<()> {
    calls::add(lua, t, "scaleSimple", scale_simple)?;
    calls::add(lua, t, "scaleBilinear", scale_bilinear)?;
    calls::add(lua, t, "scaleBicubic", scale_bicubic)?;
    calls::add(lua, t, "rotate", rotate)?;
    calls::add(lua, t, "rotateBilinear", rotate_bilinear)?;
    calls::add(lua, t, "polar", polar)?;
    calls::add(lua, t, "polarBilinear", polar_bilinear)?;
    calls::add(lua, t, "logPolar", log_polar)?;
    calls::add(lua, t, "logPolarBilinear", log_polar_bilinear)?;
    calls::add(lua, t, "cropNoScale", crop)?;
    calls::add(lua, t, "translate", translate)?;
    calls::add(lua, t, "warp", warp_image)?;
    calls::add(lua, t, "hflip", hflip)?;
    calls::add(lua, t, "vflip", vflip)?;
    calls::add(lua, t, "flip", flip_dim)?;
    calls::add(lua, t, "rgb2y", rgb2y)?;
    calls::add(lua, t, "rgb2hsv", rgb2hsv)?;
    calls::add(lua, t, "rgb2hsl", rgb2hsl)?;
    calls::add(lua, t, "hsv2rgb", hsv2rgb)?;
    calls::add(lua, t, "hsl2rgb", hsl2rgb)?;
    calls::add(lua, t, "rgb2lab", rgb2lab)?;
    calls::add(lua, t, "lab2rgb", lab2rgb)?;
    calls::add(lua, t, "matrix3", matrix3)?;
    calls::add(lua, t, "saturate", saturate)?;
    calls::add(lua, t, "gaussian", gaussian)?;
    calls::add(lua, t, "colorize", colorize)?;
    calls::add(lua, t, "text", text)?;
    calls::add(lua, t, "drawRect", rect)
}
