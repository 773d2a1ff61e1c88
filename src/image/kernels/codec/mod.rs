//! Decoding and encoding image files: PNG through the `png` crate, JPEG through `zune-jpeg`
//! (decoding) and `jpeg-encoder` (encoding), PPM/PGM by hand (torch/image's own reader has
//! quirks that files in the wild were written for). A decoded image is interleaved (height x
//! width x channels) as the codecs give it; `planar` turns it into a torch/image tensor's
//! channels x height x width layout, and `interleaved` takes a tensor's pixels back for saving.

pub mod jpeg;
pub mod png;
pub mod ppm;

use super::{Layout, Sample};
use crate::error::{Error, Result};

/// The most pixels one image may have (2^27, e.g. 11585 x 11585): a header that claims more is
/// refused before anything of that size is allocated.
pub const MAX_PIXELS: u64 = 1 << 27;

/// Refuses a header of `width` x `height` pixels that is empty or larger than MAX_PIXELS.
pub fn check_dims(width: u64, height: u64) -> Result<()> {
    if width == 0 || height == 0 {
        return Err(Error::corrupt(format!("the image is empty ({width}x{height})")));
    }
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(Error::corrupt(format!(
            "the image is {width}x{height} pixels, more than the {MAX_PIXELS} this reader accepts"
        )));
    }
    Ok(())
}

/// Samples as a codec gives them.
pub enum Samples {
    U8(Vec<u8>),
    /// 16-bit samples, already in native order.
    U16(Vec<u16>),
}

/// How a 16-bit sample becomes a byte in a ByteTensor.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ToByte {
    /// Its high byte (PNG).
    High,
    /// Its low byte, as a C cast of the value (PPM).
    Low,
}

/// A decoded image, interleaved.
pub struct Decoded {
    pub channels: usize,
    pub height: usize,
    pub width: usize,
    pub samples: Samples,
    /// The bit depth reported to Lua (8 or 16).
    pub bits: u32,
    /// What a sample is divided by for a float tensor: 255 or 65535.
    pub max: f64,
    pub to_byte: ToByte,
}

impl Decoded {
    /// The pixels into `dst`, a contiguous channels x height x width buffer of this image's size;
    /// float types get `value * (1/max)` with that factor rounded to the type first (as
    /// torch/image multiplies a loaded image by it), bytes the value itself.
    pub fn planar<T: Sample>(&self, dst: &mut [T]) -> Result<()> {
        let (c, plane) = (self.channels, self.height * self.width);
        if dst.len() != c * plane {
            return Err(Error::shape("decoded image and tensor sizes differ"));
        }
        let factor = T::cast(1.0 / self.max);
        let value = |v: f64| -> T {
            if T::BYTE {
                T::cast(v)
            } else {
                T::from_acc(T::cast(v).acc() * factor.acc())
            }
        };
        match &self.samples {
            Samples::U8(data) => {
                // Indexed by a byte: no bounds checks.
                let table: [T; 256] = std::array::from_fn(|v| value(v as f64));
                spread(data, c, plane, dst, |v| table[v as usize]);
            }
            Samples::U16(data) => {
                let to_byte = self.to_byte;
                spread(data, c, plane, dst, |v| {
                    if T::BYTE {
                        match to_byte {
                            ToByte::High => T::cast((v >> 8) as f64),
                            ToByte::Low => T::cast((v & 0xff) as f64),
                        }
                    } else {
                        value(v as f64)
                    }
                });
            }
        }
        Ok(())
    }
}

/// Interleaved `src` (c samples a pixel) into the planes of `dst`.
fn spread<S: Copy, T: Copy>(src: &[S], c: usize, plane: usize, dst: &mut [T], f: impl Fn(S) -> T) {
    if c == 1 {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = f(s);
        }
        return;
    }
    if c == 3 && plane > 0 {
        // RGB: one pass over the pixels, writing the three planes together.
        let (r, rest) = dst.split_at_mut(plane);
        let (g, b) = rest.split_at_mut(plane);
        for (((px, r), g), b) in src.chunks_exact(3).zip(r).zip(g).zip(b) {
            (*r, *g, *b) = (f(px[0]), f(px[1]), f(px[2]));
        }
        return;
    }
    for (k, out) in dst.chunks_exact_mut(plane).enumerate() {
        for (d, px) in out.iter_mut().zip(src.chunks_exact(c)) {
            *d = f(px[k]);
        }
    }
}

/// The bytes to save for an image: a byte image as it is; a float or double one clamped to
/// [0, 1], times 255 and truncated (torch/image computes that in the default tensor type:
/// `single` when it is torch.FloatTensor). Interleaved, height x width x channels.
pub fn interleaved<T: Sample>(src: &[T], l: &Layout, single: bool) -> Result<Vec<u8>> {
    l.check(src.len())?;
    let (c, h, w) = (l.channels(), l.height(), l.width());
    let mut out = vec![0u8; c * h * w];
    let byte = |v: T| -> u8 {
        if T::BYTE {
            v.as_byte()
        } else if single {
            ((v.f64() as f32).clamp(0.0, 1.0) * 255.0) as u8
        } else {
            (v.f64().clamp(0.0, 1.0) * 255.0) as u8
        }
    };
    if c == 3 && w > 0 && l.stride[2] == 1 {
        // RGB rows of contiguous pixels, the common case: one pass over each output row.
        for (y, line) in out.chunks_exact_mut(3 * w).enumerate() {
            let [r, g, b] = [0, 1, 2].map(|k| &src[l.at(k, y, 0)..][..w]);
            for (((px, &r), &g), &b) in line.chunks_exact_mut(3).zip(r).zip(g).zip(b) {
                px.copy_from_slice(&[byte(r), byte(g), byte(b)]);
            }
        }
        return Ok(out);
    }
    for k in 0..c {
        for y in 0..h {
            let row = l.at(k, y, 0);
            let line = &mut out[y * w * c..(y + 1) * w * c];
            for (x, px) in line.chunks_exact_mut(c).enumerate() {
                px[k] = byte(src[row + x * l.stride[2]]);
            }
        }
    }
    Ok(out)
}
