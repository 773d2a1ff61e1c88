//! PNG through the `png` crate. What torch/image (libpng) gives is kept: grey, grey+alpha, RGB
//! and RGBA images have 1, 2, 3 and 4 channels; grey below 8 bits is widened to 8; palette
//! images become RGB; 16-bit images stay 16-bit (the Lua side divides by 65535, or a ByteTensor
//! takes each sample's high byte).

use std::io::Cursor;

use png::{BitDepth, ColorType, Decoder, Limits, Transformations};

use super::{Decoded, Samples, ToByte, check_dims};
use crate::error::{Error, Result};

pub const MAGIC: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// What the decoder may allocate besides the image itself (rows, chunks, inflate state).
const DECODER_BYTES: usize = 1 << 26;

fn header_error(e: impl std::fmt::Display) -> Error {
    // libpng's reader names this phase so; scripts (and torch/image's tests) match the words.
    Error::corrupt(format!("Error during init_io: {e}"))
}

fn read_error(e: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("Error during read_image: {e}"))
}

fn signature(data: &[u8]) -> Result<()> {
    if data.len() < MAGIC.len() || &data[..MAGIC.len()] != MAGIC {
        return Err(Error::corrupt("not recognized as a PNG file"));
    }
    Ok(())
}

/// Channels of a colour type as torch/image counts them (palette images are RGB).
fn channels_of(color: ColorType) -> usize {
    match color {
        ColorType::Grayscale => 1,
        ColorType::GrayscaleAlpha => 2,
        ColorType::Rgb | ColorType::Indexed => 3,
        ColorType::Rgba => 4,
    }
}

/// (channels, height, width) from the header alone.
pub fn size(data: &[u8]) -> Result<(usize, usize, usize)> {
    signature(data)?;
    let mut decoder = Decoder::new_with_limits(Cursor::new(data), Limits { bytes: DECODER_BYTES });
    let info = decoder.read_header_info().map_err(header_error)?;
    Ok((channels_of(info.color_type), info.height as usize, info.width as usize))
}

pub fn decode(data: &[u8]) -> Result<Decoded> {
    signature(data)?;
    let mut decoder = Decoder::new_with_limits(Cursor::new(data), Limits { bytes: DECODER_BYTES });
    let (width, height, color, depth) = {
        let info = decoder.read_header_info().map_err(header_error)?;
        (info.width, info.height, info.color_type, info.bit_depth)
    };
    check_dims(width as u64, height as u64)?;
    // Palettes and low bit depths are widened; 16-bit samples are kept.
    decoder.set_transformations(Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(header_error)?;
    let (out_color, out_depth) = reader.output_color_type();
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| Error::corrupt("the image is too large"))?;
    let mut buf = vec![0u8; size];
    let frame = reader.next_frame(&mut buf).map_err(read_error)?;
    buf.truncate(frame.buffer_size());
    let have = channels_of(out_color);
    // tRNS chunks become alpha under EXPAND; torch/image's libpng reader kept the channels of
    // the colour type, so that alpha is dropped again.
    let want = channels_of(color);
    let (w, h) = (width as usize, height as usize);
    let samples = if out_depth == BitDepth::Sixteen {
        let wide: Vec<u16> = buf.chunks_exact(2).map(|b| u16::from_be_bytes([b[0], b[1]])).collect();
        Samples::U16(keep_channels(wide, have, want))
    } else {
        Samples::U8(keep_channels(buf, have, want))
    };
    let expected = w * h * want;
    let got = match &samples {
        Samples::U8(v) => v.len(),
        Samples::U16(v) => v.len(),
    };
    if got != expected {
        return Err(read_error("the image data is shorter than its header says"));
    }
    Ok(Decoded {
        channels: want,
        height: h,
        width: w,
        samples,
        bits: if depth == BitDepth::Sixteen { 16 } else { 8 },
        max: if depth == BitDepth::Sixteen { 65535.0 } else { 255.0 },
        to_byte: ToByte::High,
    })
}

fn keep_channels<S: Copy>(v: Vec<S>, have: usize, want: usize) -> Vec<S> {
    if have == want {
        return v;
    }
    v.chunks_exact(have).flat_map(|px| px[..want].iter().copied()).collect()
}

/// An 8-bit PNG of `channels` (1, 3 or 4) from interleaved bytes.
pub fn encode(data: &[u8], channels: usize, height: usize, width: usize) -> Result<Vec<u8>> {
    let color = match channels {
        1 => ColorType::Grayscale,
        3 => ColorType::Rgb,
        4 => ColorType::Rgba,
        _ => return Err(Error::shape("Depth must be 1, 3 or 4")),
    };
    let (w, h) = (
        u32::try_from(width).map_err(|_| Error::shape("image too wide for PNG"))?,
        u32::try_from(height).map_err(|_| Error::shape("image too tall for PNG"))?,
    );
    if w == 0 || h == 0 {
        return Err(Error::shape(format!("cannot write an empty image ({width}x{height})")));
    }
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(color);
        encoder.set_depth(BitDepth::Eight);
        // fdeflate's fast mode: several times faster than zlib's level 6 (libpng's default) for
        // files a little larger.
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().map_err(|e| Error::io(e.to_string()))?;
        writer.write_image_data(data).map_err(|e| Error::io(e.to_string()))?;
        writer.finish().map_err(|e| Error::io(e.to_string()))?;
    }
    Ok(out)
}
