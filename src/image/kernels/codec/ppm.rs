//! PPM (P3, P6) and PGM (P2, P5), read as torch/image reads them: the header's numbers may be
//! separated by spaces, commas, tabs or line ends and followed by `#` comments; one character
//! after the largest value ends the header; ASCII samples are scaled to 0..255 by integer
//! division (255*v/max); binary samples above 255 take two bytes, low byte first, and are divided
//! by 255 for a float tensor (torch/image's reader; the format's own order is high byte first).
//! Writing gives P6 for 3 channels, P5 for 1, maximum 255.

use super::{Decoded, Samples, ToByte, check_dims};
use crate::error::{Error, Result};

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    /// The next byte, a comment read as the line end that closes it; None at the end.
    fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        if b == b'#' {
            loop {
                let c = *self.data.get(self.pos)?;
                self.pos += 1;
                if c == b'\n' || c == b'\r' {
                    return Some(c);
                }
            }
        }
        Some(b)
    }

    /// A header number; the character that ends it is consumed.
    fn number(&mut self) -> Result<u64> {
        let bad = || Error::corrupt("corrupted file or read error");
        let mut b = self.byte().ok_or_else(bad)?;
        while matches!(b, b' ' | b',' | b'\t' | b'\n' | b'\r') {
            b = self.byte().ok_or_else(bad)?;
        }
        if !b.is_ascii_digit() {
            return Err(bad());
        }
        let mut v: u64 = 0;
        while b.is_ascii_digit() {
            v = v.saturating_mul(10).saturating_add((b - b'0') as u64);
            match self.byte() {
                Some(c) => b = c,
                None => break,
            }
        }
        Ok(v)
    }

    /// An ASCII sample, as C's `%d` reads one: blanks, an optional sign, digits.
    fn ascii(&mut self) -> Option<i64> {
        while self.data.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        let start = self.pos;
        if matches!(self.data.get(self.pos), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.data.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        if self.pos == digits {
            return None;
        }
        std::str::from_utf8(&self.data[start..self.pos])
            .ok()?
            .parse::<i64>()
            .ok()
            .map(|v| v as i32 as i64)
    }
}

/// The magic number's digit, checked to be P2, P3, P5 or P6.
fn magic(data: &[u8]) -> Result<u8> {
    if data.first() != Some(&b'P') {
        return Err(Error::corrupt("corrupted file"));
    }
    match data.get(1) {
        Some(&n @ (b'2' | b'3' | b'5' | b'6')) => Ok(n),
        Some(&n) => Err(Error::corrupt(format!("unsupported magic number: P{}", n as char))),
        None => Err(Error::corrupt("corrupted file")),
    }
}

fn channels_of(n: u8) -> usize {
    if n == b'3' || n == b'6' { 3 } else { 1 }
}

/// (channels, height, width).
pub fn size(data: &[u8]) -> Result<(usize, usize, usize)> {
    let n = magic(data)?;
    let mut cur = Cursor { data, pos: 2 };
    let w = cur.number()?;
    let h = cur.number()?;
    Ok((channels_of(n), h as usize, w as usize))
}

pub fn decode(data: &[u8]) -> Result<Decoded> {
    let n = magic(data)?;
    let mut cur = Cursor { data, pos: 2 };
    let w = cur.number()?;
    let h = cur.number()?;
    let max = cur.number()?;
    check_dims(w, h)?;
    if max == 0 || max > 65535 {
        return Err(Error::corrupt(format!(
            "the largest sample value is {max}, not in 1..65535"
        )));
    }
    let c = channels_of(n);
    let count = (w * h) as usize * c;
    let short = || Error::corrupt("corrupted file or read error");
    let samples = match n {
        b'5' | b'6' if max > 255 => {
            let raw = data.get(cur.pos..cur.pos + 2 * count).ok_or_else(short)?;
            Samples::U16(raw.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect())
        }
        b'5' | b'6' => Samples::U8(data.get(cur.pos..cur.pos + count).ok_or_else(short)?.to_vec()),
        _ => {
            let mut out = Vec::with_capacity(count);
            for _ in 0..count {
                let v = cur.ascii().ok_or_else(short)?;
                out.push((255 * v / max as i64) as u8);
            }
            Samples::U8(out)
        }
    };
    Ok(Decoded {
        channels: c,
        height: h as usize,
        width: w as usize,
        samples,
        bits: 8,
        max: 255.0,
        to_byte: ToByte::Low,
    })
}

/// A binary PPM (3 channels) or PGM (1) from interleaved bytes.
pub fn encode(data: &[u8], channels: usize, height: usize, width: usize) -> Result<Vec<u8>> {
    let magic = match channels {
        3 => "P6",
        1 => "P5",
        _ => {
            return Err(Error::shape(
                "can only export tensor with geometry: HxW or 1xHxW or 3xHxW",
            ));
        }
    };
    let mut out = format!("{magic}\n{width} {height}\n255\n").into_bytes();
    out.extend_from_slice(data);
    Ok(out)
}
