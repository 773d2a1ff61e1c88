//! Drawing on a 3 x height x width image: text in the 5x7 font (each character a 6x8 cell,
//! scaled by `size`) and rectangle outlines. Colours are 0..255 integers, stored as they are in
//! a byte image and divided by 255 in a float one; pixels outside the image are skipped.

use super::font::FONT;
use super::{Layout, Sample};
use crate::error::{Error, Result};

pub type Rgb = [i64; 3];

struct Canvas<'a, T> {
    data: &'a mut [T],
    l: Layout,
}

impl<T: Sample> Canvas<'_, T> {
    fn pixel(&mut self, y: i64, x: i64, c: Rgb) {
        if y < 0 || x < 0 || y >= self.l.height() as i64 || x >= self.l.width() as i64 {
            return;
        }
        for (k, &v) in c.iter().enumerate() {
            let value = if T::BYTE {
                T::cast(v as f64)
            } else {
                T::cast((v as f32 / 255.0) as f64)
            };
            self.data[self.l.at(k, y as usize, x as usize)] = value;
        }
    }

    fn block(&mut self, y: i64, x: i64, size: i64, c: Rgb) {
        let (w, h) = (self.l.width() as i64, self.l.height() as i64);
        for xx in x.max(0)..x.saturating_add(size).min(w) {
            for yy in y.max(0)..y.saturating_add(size).min(h) {
                self.pixel(yy, xx, c);
            }
        }
    }
}

fn canvas<'a, T: Sample>(data: &'a mut [T], l: &Layout) -> Result<Canvas<'a, T>> {
    l.check(data.len())?;
    if l.channels() != 3 {
        return Err(Error::shape("input image has to be a 3D tensor of shape 3 x H x W"));
    }
    Ok(Canvas { data, l: *l })
}

pub struct Text<'a> {
    pub text: &'a [u8],
    pub x: i64,
    pub y: i64,
    pub size: i64,
    pub color: Rgb,
    /// None: the cells' background is left as it is.
    pub background: Option<Rgb>,
    /// Whether a character that would reach the right edge starts a new line at x = 0.
    pub wrap: bool,
}

pub fn text<T: Sample>(data: &mut [T], l: &Layout, t: &Text) -> Result<()> {
    let mut c = canvas(data, l)?;
    let (w, h) = (l.width() as i64, l.height() as i64);
    let size = t.size;
    let (mut cx, mut cy) = (t.x, t.y);
    for &ch in t.text {
        match ch {
            b'\n' => {
                cy += size * 8;
                cx = t.x;
            }
            b'\r' => {}
            _ => {
                if t.wrap && cx + size * 6 >= w {
                    cx = 0;
                    cy += size * 8;
                }
                let visible = cx < w && cy < h && cx + 6 * size > 0 && cy + 8 * size > 0;
                if visible {
                    for i in 0..6i64 {
                        let mut column = if i < 5 { FONT[ch as usize * 5 + i as usize] } else { 0 };
                        for j in 0..8i64 {
                            let colour = if column & 1 == 1 { Some(t.color) } else { t.background };
                            if let Some(colour) = colour {
                                c.block(cy + j * size, cx + i * size, size, colour);
                            }
                            column >>= 1;
                        }
                    }
                }
                cx += size * 6;
            }
        }
    }
    Ok(())
}

/// The outline of the rectangle with corners (x1, y1) and (x2, y2) (1-based, inclusive),
/// `line_width` pixels wide.
pub fn rect<T: Sample>(data: &mut [T], l: &Layout, corners: [i64; 4], line_width: i64, color: Rgb) -> Result<()> {
    let mut c = canvas(data, l)?;
    let (w, h) = (l.width() as i64, l.height() as i64);
    let [x1, y1, x2, y2] = corners;
    let lo = line_width / 2 + 1;
    let hi = line_width - lo - 1;
    let (x1l, y1l) = ((x1 - lo).max(0), (y1 - lo).max(0));
    let (x1u, y1u) = ((x1 + hi + 1).min(w), (y1 + hi + 1).min(h));
    let (x2l, y2l) = ((x2 - lo).max(0), (y2 - lo).max(0));
    let (x2u, y2u) = ((x2 + hi + 1).min(w), (y2 + hi + 1).min(h));
    for y in y1l..y2u {
        for x in (x1l..x1u).chain(x2l..x2u) {
            c.pixel(y, x, color);
        }
    }
    for x in x1l..x2u {
        for y in (y1l..y1u).chain(y2l..y2u) {
            c.pixel(y, x, color);
        }
    }
    Ok(())
}
