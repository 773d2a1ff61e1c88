//! torch/image's work below the Lua layer: the codecs (PNG, JPEG, PPM/PGM) and the pixel kernels
//! (scaling, rotation, warps, flips, colour spaces, drawing). Nothing here knows Lua or torch's
//! tensors: a kernel reads and writes plain slices through a `Layout` (offset, sizes and strides
//! of a channels x height x width image), generic over the three element types torch/image
//! serves (`u8`, `f32`, `f64`). `src/image/lua/` turns Lua arguments into these calls.

pub mod codec;
pub mod colour;
pub mod draw;
pub mod flip;
mod font;
pub mod geometry;
pub mod polar;
pub mod scale;
pub mod warp;

use crate::error::{Error, Result};

/// Where the pixels of a channels x height x width image are in a slice: element (c, y, x) is at
/// `offset + c*stride[0] + y*stride[1] + x*stride[2]`. A 2-D (height x width) image is one
/// channel whose channel stride is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub offset: usize,
    pub size: [usize; 3],
    pub stride: [usize; 3],
}

impl Layout {
    /// A contiguous image of `size`.
    pub fn contiguous(size: [usize; 3]) -> Layout {
        Layout {
            offset: 0,
            size,
            stride: [size[1] * size[2], size[2], 1],
        }
    }

    pub fn channels(&self) -> usize {
        self.size[0]
    }

    pub fn height(&self) -> usize {
        self.size[1]
    }

    pub fn width(&self) -> usize {
        self.size[2]
    }

    pub fn numel(&self) -> usize {
        self.size.iter().product()
    }

    #[inline(always)]
    pub fn at(&self, c: usize, y: usize, x: usize) -> usize {
        self.offset + c * self.stride[0] + y * self.stride[1] + x * self.stride[2]
    }

    /// One past the largest index the layout reaches (its offset when it has no element).
    pub fn extent(&self) -> usize {
        if self.numel() == 0 {
            return self.offset;
        }
        self.at(self.size[0] - 1, self.size[1] - 1, self.size[2] - 1) + 1
    }

    /// Checks that a slice of `len` elements holds every element of the layout.
    pub fn check(&self, len: usize) -> Result<()> {
        if self.extent() > len {
            return Err(Error::shape("image view extends past the end of its storage"));
        }
        Ok(())
    }
}

/// The arithmetic type a kernel computes in: `f32` for byte and float images, `f64` for double
/// ones (as torch/image's C computes in `float` unless the image is of doubles).
pub trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::AddAssign
    + Send
    + Sync
    + 'static
{
    fn of(v: f64) -> Self;
    fn of_f32(v: f32) -> Self;
    fn f64(self) -> f64;
    fn floor(self) -> Self;
}

impl Real for f32 {
    #[inline(always)]
    fn of(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn of_f32(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn floor(self) -> f32 {
        f32::floor(self)
    }
}

impl Real for f64 {
    #[inline(always)]
    fn of(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn of_f32(v: f32) -> f64 {
        v as f64
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn floor(self) -> f64 {
        f64::floor(self)
    }
}

/// An element of an image: byte (0..255), float or double.
pub trait Sample: Copy + Default + PartialOrd + Send + Sync + 'static {
    type Acc: Real;
    /// Whether the type is a byte: colours are 0..255 in it, 0..1 otherwise.
    const BYTE: bool;
    /// Whether every value is a single-precision float exactly and `Acc` is f32, so that kernels
    /// summing in single precision may work on f32 copies of the samples.
    const F32_EXACT: bool = false;
    fn acc(self) -> Self::Acc;
    /// A computed value stored back: a byte rounds half up and saturates, floats are kept.
    fn from_acc(v: Self::Acc) -> Self;
    /// A value stored as a C cast would (no rounding).
    fn cast(v: f64) -> Self;
    fn f64(self) -> f64;
    /// The value as a C cast to a byte would give it (for a byte, itself: no round trip through
    /// f64, which the compiler does not see through).
    #[inline(always)]
    fn as_byte(self) -> u8 {
        self.f64() as u8
    }
}

impl Sample for u8 {
    type Acc = f32;
    const BYTE: bool = true;
    const F32_EXACT: bool = true;
    #[inline(always)]
    fn as_byte(self) -> u8 {
        self
    }
    #[inline(always)]
    fn acc(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn from_acc(v: f32) -> u8 {
        let v = v + 0.5;
        if v <= 0.0 {
            0
        } else if v >= 255.0 {
            255
        } else {
            v as u8
        }
    }
    #[inline(always)]
    fn cast(v: f64) -> u8 {
        v as i64 as u8
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self as f64
    }
}

impl Sample for f32 {
    type Acc = f32;
    const BYTE: bool = false;
    const F32_EXACT: bool = true;
    #[inline(always)]
    fn acc(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_acc(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn cast(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self as f64
    }
}

impl Sample for f64 {
    type Acc = f64;
    const BYTE: bool = false;
    #[inline(always)]
    fn acc(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_acc(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn cast(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self
    }
}

/// Checks that `src` and `dst` hold their layouts and have the same number of channels.
pub fn check_pair(src: &Layout, src_len: usize, dst: &Layout, dst_len: usize) -> Result<()> {
    src.check(src_len)?;
    dst.check(dst_len)?;
    if src.channels() != dst.channels() {
        return Err(Error::shape("src and dst depths do not match"));
    }
    Ok(())
}
