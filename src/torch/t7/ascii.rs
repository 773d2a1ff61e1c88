//! Elements as text, for ASCII Files: printf's and scanf's forms of numbers (through the C library
//! where the text must be byte-identical), Byte and Char as raw bytes.

use std::io;

use super::stream::Stream;
use crate::torch::base::dtype::Element;

/// An element type as the format handles it.
pub trait Scalar: Element {
    /// Written as raw bytes in ASCII mode too (Byte and Char).
    const RAW: bool = false;
    fn write_ascii(self, out: &mut Vec<u8>);
    /// Parses one element from ASCII text (None: no number there).
    fn read_ascii(text: &mut AsciiReader<'_>) -> io::Result<Option<Self>>;
}

macro_rules! int_scalar {
    ($t:ty, $raw:expr) => {
        impl Scalar for $t {
            const RAW: bool = $raw;
            fn write_ascii(self, out: &mut Vec<u8>) {
                use std::io::Write as _;
                let _ = write!(out, "{}", self);
            }
            fn read_ascii(text: &mut AsciiReader<'_>) -> io::Result<Option<Self>> {
                // scanf's %d/%ld/%hd: the C conversion wraps like a cast.
                Ok(text.integer()?.map(|v| v as $t))
            }
        }
    };
}

int_scalar!(u8, true);
int_scalar!(i8, true);
int_scalar!(i16, false);
int_scalar!(i32, false);
int_scalar!(i64, false);

impl Scalar for f32 {
    fn write_ascii(self, out: &mut Vec<u8>) {
        format_g(self as f64, 9, out);
    }
    fn read_ascii(text: &mut AsciiReader<'_>) -> io::Result<Option<Self>> {
        // Parse as f32 directly: strtof rounds once, going through f64 would round twice.
        Ok(text.float_token()?.and_then(|t| parse_float::<f32>(&t)))
    }
}

impl Scalar for f64 {
    fn write_ascii(self, out: &mut Vec<u8>) {
        format_g(self, 17, out);
    }
    fn read_ascii(text: &mut AsciiReader<'_>) -> io::Result<Option<Self>> {
        Ok(text.float_token()?.and_then(|t| parse_float::<f64>(&t)))
    }
}

/// Half is written and read as a float is (Torch7's text form of a half is its float value).
impl Scalar for half::f16 {
    fn write_ascii(self, out: &mut Vec<u8>) {
        self.to_f32().write_ascii(out);
    }
    fn read_ascii(text: &mut AsciiReader<'_>) -> io::Result<Option<Self>> {
        Ok(f32::read_ascii(text)?.map(half::f16::from_f32))
    }
}

/// printf's `%.<prec>g` (9, 14 or 17), through the C library so the text is byte-identical to
/// Torch's.
pub fn format_g(v: f64, prec: u32, out: &mut Vec<u8>) {
    let mut buf = [0u8; 64];
    let fmt = match prec {
        9 => c"%.9g",
        14 => c"%.14g",
        _ => c"%.17g",
    };
    // SAFETY: the buffer is large enough for any %.17g of a double (at most 24 bytes) and
    // snprintf never writes past the size it is given.
    let n = unsafe { libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr(), v) };
    if n > 0 {
        out.extend_from_slice(&buf[..(n as usize).min(buf.len() - 1)]);
    }
}

fn parse_float<F: std::str::FromStr + From<f32>>(token: &str) -> Option<F> {
    let (neg, body) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let lower = body.to_ascii_lowercase();
    let special = if lower == "inf" || lower == "infinity" {
        Some(f32::INFINITY)
    } else if lower.starts_with("nan") {
        Some(f32::NAN)
    } else {
        None
    };
    if let Some(s) = special {
        return Some(F::from(if neg { -s } else { s }));
    }
    token.parse::<F>().ok()
}

/// scanf-style tokenizing over a stream with one byte of lookahead.
pub struct AsciiReader<'a> {
    stream: &'a mut dyn Stream,
}

impl<'a> AsciiReader<'a> {
    pub fn new(stream: &'a mut dyn Stream) -> AsciiReader<'a> {
        AsciiReader { stream }
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        self.stream.peek()
    }

    fn bump(&mut self) -> io::Result<()> {
        let mut one = [0u8; 1];
        self.stream.read(&mut one).map(|_| ())
    }

    fn skip_space(&mut self) -> io::Result<()> {
        while let Some(c) = self.peek()? {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
                break;
            }
            self.bump()?;
        }
        Ok(())
    }

    fn take_digits(&mut self, token: &mut String) -> io::Result<usize> {
        let mut n = 0;
        while let Some(c) = self.peek()? {
            if !c.is_ascii_digit() {
                break;
            }
            // Bounded: a hostile run of digits must not grow memory without limit.
            if token.len() < 4096 {
                token.push(c as char);
            }
            self.bump()?;
            n += 1;
        }
        Ok(n)
    }

    fn take_sign(&mut self, token: &mut String) -> io::Result<()> {
        if let Some(c @ (b'+' | b'-')) = self.peek()? {
            token.push(c as char);
            self.bump()?;
        }
        Ok(())
    }

    /// `%d`: optional sign and at least one digit; out-of-range values saturate as strtol does.
    pub fn integer(&mut self) -> io::Result<Option<i64>> {
        self.skip_space()?;
        let mut token = String::new();
        self.take_sign(&mut token)?;
        if self.take_digits(&mut token)? == 0 {
            return Ok(None);
        }
        Ok(Some(token.parse::<i64>().unwrap_or(if token.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        })))
    }

    /// `%g`: sign, digits with an optional point and exponent, or inf/infinity/nan.
    pub fn float_token(&mut self) -> io::Result<Option<String>> {
        self.skip_space()?;
        let mut token = String::new();
        self.take_sign(&mut token)?;
        if let Some(c) = self.peek()?
            && matches!(c, b'i' | b'I' | b'n' | b'N')
        {
            while let Some(c) = self.peek()? {
                if !c.is_ascii_alphabetic() || token.len() > 12 {
                    break;
                }
                token.push(c as char);
                self.bump()?;
            }
            let word = token.trim_start_matches(['+', '-']).to_ascii_lowercase();
            return Ok(matches!(word.as_str(), "inf" | "infinity" | "nan").then_some(token));
        }
        let mut digits = self.take_digits(&mut token)?;
        if self.peek()? == Some(b'.') {
            token.push('.');
            self.bump()?;
            digits += self.take_digits(&mut token)?;
        }
        if digits == 0 {
            return Ok(None);
        }
        if let Some(b'e' | b'E') = self.peek()? {
            self.bump()?;
            let mut exp = String::from("e");
            self.take_sign(&mut exp)?;
            if self.take_digits(&mut exp)? > 0 {
                token.push_str(&exp);
            }
        }
        Ok(Some(token))
    }
}
