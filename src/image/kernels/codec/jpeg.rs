//! JPEG through libjpeg-turbo's code (the `mozjpeg` crate builds it from source, with its SIMD
//! where nasm is installed): decoding gives libjpeg's own pixels (islow IDCT, fancy upsampling),
//! what torch/image gave; encoding uses libjpeg's defaults (mozjpeg's "fastest" profile: baseline,
//! the standard tables, 4:2:0), so files come out as libjpeg-turbo writes them. Grey images
//! decode to one channel, CMYK and YCCK ones to four (CMYK), others to RGB.

use std::panic::{AssertUnwindSafe, catch_unwind};

use mozjpeg::{ColorSpace, Compress, Decompress};

use super::{Decoded, Samples, ToByte, check_dims};
use crate::error::{Error, Result};

pub const MAGIC: &[u8] = &[0xff, 0xd8, 0xff];

fn corrupt(e: impl std::fmt::Display) -> Error {
    Error::corrupt(e.to_string())
}

/// Runs libjpeg, turning an error it raised past the crate's own handling into an error value.
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(Error::corrupt("libjpeg failed on this data")))
}

fn starts(data: &[u8]) -> Result<()> {
    if !data.starts_with(MAGIC) {
        return Err(Error::corrupt(
            "Not a JPEG file: starts with something else than 0xFF 0xD8 0xFF",
        ));
    }
    Ok(())
}

/// Channels libjpeg outputs for a colour space by default.
fn channels_of(space: ColorSpace) -> usize {
    match space {
        ColorSpace::JCS_GRAYSCALE => 1,
        ColorSpace::JCS_CMYK | ColorSpace::JCS_YCCK => 4,
        _ => 3,
    }
}

/// (channels, height, width) from the header.
pub fn size(data: &[u8]) -> Result<(usize, usize, usize)> {
    starts(data)?;
    guarded(|| {
        let d = Decompress::new_mem(data).map_err(corrupt)?;
        Ok((channels_of(d.color_space()), d.height(), d.width()))
    })
}

/// Whether the entropy-coded data ends: an end-of-image marker after the first scan's start.
/// (Inside a scan, 0xFF is followed only by 0x00 or a restart marker, so these two byte pairs
/// are markers wherever they appear after it.) libjpeg only warns about a truncated file and
/// fills the rest with grey; a truncated file is an error here.
fn complete(data: &[u8]) -> bool {
    let Some(sos) = data.windows(2).position(|p| p == [0xff, 0xda]) else {
        return false;
    };
    data[sos..].windows(2).any(|p| p == [0xff, 0xd9])
}

pub fn decode(data: &[u8]) -> Result<Decoded> {
    starts(data)?;
    guarded(|| {
        let d = Decompress::new_mem(data).map_err(corrupt)?;
        let (w, h) = d.size();
        check_dims(w as u64, h as u64)?;
        if !complete(data) {
            return Err(Error::corrupt("Premature end of JPEG data (the file is truncated)"));
        }
        let c = channels_of(d.color_space());
        let mut started = match c {
            1 => d.grayscale(),
            4 => d.to_colorspace(ColorSpace::JCS_CMYK),
            _ => d.rgb(),
        }
        .map_err(corrupt)?;
        let mut pixels = vec![0u8; c * w * h];
        let got = started.read_scanlines_into(&mut pixels).map_err(corrupt)?.len();
        if got != pixels.len() {
            return Err(Error::corrupt("the image data ends early"));
        }
        started.finish().map_err(corrupt)?;
        Ok(Decoded {
            channels: c,
            height: h,
            width: w,
            samples: Samples::U8(pixels),
            bits: 8,
            max: 255.0,
            to_byte: ToByte::High,
        })
    })
}

/// A JPEG of `channels` (1 or 3) from interleaved bytes, at `quality` (0..100; libjpeg takes 0
/// as 1).
pub fn encode(data: &[u8], channels: usize, height: usize, width: usize, quality: i64) -> Result<Vec<u8>> {
    if !(0..=100).contains(&quality) {
        return Err(Error::argument("quality should be between 0 and 100"));
    }
    let space = match channels {
        1 => ColorSpace::JCS_GRAYSCALE,
        3 => ColorSpace::JCS_RGB,
        _ => return Err(Error::shape("tensor should have 1 or 3 channels (gray or RGB)")),
    };
    if width == 0 || height == 0 {
        return Err(Error::shape(format!("cannot write an empty image ({width}x{height})")));
    }
    if width > 65500 || height > 65500 {
        return Err(Error::shape(format!(
            "a JPEG is at most 65500x65500 pixels, not {width}x{height}"
        )));
    }
    if data.len() != channels * width * height {
        return Err(Error::shape("pixel data and image size differ"));
    }
    guarded(|| {
        let mut c = Compress::new(space);
        c.set_fastest_defaults();
        c.set_size(width, height);
        c.set_quality(quality as f32);
        let mut started = c
            .start_compress(Vec::with_capacity(data.len() / 4 + 1024))
            .map_err(corrupt)?;
        started.write_scanlines(data).map_err(corrupt)?;
        started.finish().map_err(corrupt)
    })
}
