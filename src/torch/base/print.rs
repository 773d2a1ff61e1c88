//! Torch7's text format for tensors and storages (`print(t)`, `tostring(t)`), reproduced exactly:
//! one number format chosen over all elements, a common scale factor when needed, matrices wrapped
//! at 80 columns, and one `(i,j,.,.) = ` block per 2-D slice above two dimensions.

use super::super::kernels::element::read;
use super::super::kernels::strided::Offsets;
use super::storage::Storage;
use super::tensor::Tensor;

/// A printf-style format applied with C's own `snprintf`, so output matches Torch's to the byte.
fn c_format(format: &str, value: f64) -> String {
    // Torch formats through LuaJIT's string.format, which writes every NaN as "nan"; C writes
    // "-nan" for one with its sign bit set (0/0 on x86).
    let value = if value.is_nan() { f64::NAN } else { value };
    let fmt = std::ffi::CString::new(format).expect("formats have no NUL");
    let mut buf = vec![0u8; 64];
    loop {
        // SAFETY: buf is writable for buf.len() bytes; the format takes exactly one argument,
        // a double, or an int for `%d` formats.
        let n = unsafe {
            if format.ends_with('d') {
                libc::snprintf(
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    fmt.as_ptr(),
                    value as libc::c_long as libc::c_int,
                )
            } else {
                libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr(), value)
            }
        };
        if n < 0 {
            return String::new();
        }
        if (n as usize) < buf.len() {
            buf.truncate(n as usize);
            return String::from_utf8_lossy(&buf).into_owned();
        }
        buf.resize(n as usize + 1, 0);
    }
}

/// Lua's `%g` as `string.format('%g', x)` gives it.
fn g_format(x: f64) -> String {
    c_format("%g", x)
}

struct Format {
    format: String,
    scale: Option<f64>,
    /// Characters per number; None when NaN made it meaningless (Torch then puts every column
    /// on one line).
    width: Option<usize>,
}

/// Torch's choice of format for a set of values. The exponents stay floating point as in
/// Torch's Lua, so infinities and NaN take the same branches there as here.
fn choose_format(values: &[f64]) -> Format {
    if values.is_empty() {
        return Format {
            format: String::new(),
            scale: None,
            width: Some(0),
        };
    }
    let int_mode = values.iter().all(|&v| v == v.ceil());
    // Torch's min and max propagate NaN.
    let (min, max) = if values.iter().any(|v| v.is_nan()) {
        (f64::NAN, f64::NAN)
    } else {
        let min = values.iter().map(|v| v.abs()).fold(f64::INFINITY, f64::min);
        let max = values.iter().map(|v| v.abs()).fold(f64::NEG_INFINITY, f64::max);
        (min, max)
    };
    let exponent = |x: f64| if x != 0.0 { x.log10().floor() + 1.0 } else { 1.0 };
    let (exp_min, exp_max) = (exponent(min), exponent(max));
    let (format, scale, width) = if int_mode {
        if exp_max > 9.0 {
            ("%11.4e".to_string(), None, Some(11))
        } else {
            let w = exp_max as usize + 1;
            (format!("%{w}d"), None, Some(w))
        }
    } else if exp_max - exp_min > 4.0 {
        let w = if exp_max.abs() > 99.0 || exp_min.abs() > 99.0 {
            12
        } else {
            11
        };
        (format!("%{w}.4e"), None, Some(w))
    } else if exp_max.is_nan() {
        // Torch's width comes out as "nan", and it falls back to %f.
        ("%f".to_string(), None, None)
    } else if !(0.0..=5.0).contains(&exp_max) {
        ("%7.4f".to_string(), Some(10f64.powi(exp_max as i32 - 1)), Some(7))
    } else {
        let w = if exp_max == 0.0 { 7 } else { exp_max as usize + 6 };
        (format!("%{w}.4f"), None, Some(w))
    };
    Format {
        format,
        scale: scale.filter(|&s| s != 1.0),
        width,
    }
}

fn values_of(t: &Tensor) -> Vec<f64> {
    match &t.storage {
        Some(s) if t.numel() > 0 => Offsets::new(t).map(|o| read(s, o)).collect(),
        _ => Vec::new(),
    }
}

fn print_matrix(out: &mut String, values: &[f64], rows: usize, cols: usize, f: &Format, indent: &str) {
    let scale = f.scale.unwrap_or(1.0);
    out.push_str(indent);
    let per_line = match f.width {
        Some(w) => ((80 - indent.len() as i64) / (w as i64 + 1)).max(1) as usize,
        None => cols.max(1),
    };
    let mut first = 0;
    while first < cols {
        let last = (first + per_line).min(cols);
        if per_line < cols {
            if first != 0 {
                out.push('\n');
            }
            out.push_str(&format!("Columns {} to {}\n{indent}", first + 1, last));
        }
        if scale != 1.0 {
            out.push_str(&format!("{} *\n {indent}", g_format(scale)));
        }
        for r in 0..rows {
            for c in first..last {
                out.push_str(&c_format(&f.format, values[r * cols + c] / scale));
                if c == last - 1 {
                    out.push('\n');
                    if r != rows - 1 {
                        out.push_str(indent);
                        if scale != 1.0 {
                            out.push(' ');
                        }
                    }
                } else {
                    out.push(' ');
                }
            }
        }
        first = last;
    }
}

fn size_text(size: &[usize]) -> String {
    size.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

pub fn tensor_to_string(t: &Tensor) -> String {
    tensor_to_string_named(t, t.dtype.tensor_typename())
}

/// Torch's text for a host tensor, with `name` as the class in the footer (cutorch prints its
/// tensors through a host copy, as `[torch.CudaTensor of size 2x3]`).
pub fn tensor_to_string_named(t: &Tensor, name: &str) -> String {
    if t.dim() == 0 {
        return format!("[{name} with no dimension]\n");
    }
    let values = values_of(t);
    let f = choose_format(&values);
    let mut out = String::new();
    match t.dim() {
        1 => {
            if let Some(scale) = f.scale {
                out.push_str(&format!("{} *\n", g_format(scale)));
            }
            let scale = f.scale.unwrap_or(1.0);
            for v in &values {
                out.push_str(&c_format(&f.format, v / scale));
                out.push('\n');
            }
        }
        2 => print_matrix(&mut out, &values, t.size[0], t.size[1], &f, ""),
        _ => {
            let (rows, cols) = (t.size[t.dim() - 2], t.size[t.dim() - 1]);
            let outer = &t.size[..t.dim() - 2];
            let block = rows * cols;
            let nblocks: usize = outer.iter().product();
            for b in 0..nblocks {
                if b > 0 {
                    out.push('\n');
                }
                // Torch's block counter advances the first dimension fastest.
                let mut idx = vec![0usize; outer.len()];
                let mut rem = b;
                for (d, &s) in outer.iter().enumerate() {
                    idx[d] = rem % s;
                    rem /= s;
                }
                let label: String = idx.iter().map(|i| format!("{},", i + 1)).collect();
                out.push_str(&format!("({label}.,.) = \n"));
                let flat: usize = (0..outer.len())
                    .rev()
                    .fold((0, 1), |(acc, mul), d| (acc + idx[d] * mul, mul * outer[d]))
                    .0;
                print_matrix(&mut out, &values[flat * block..(flat + 1) * block], rows, cols, &f, " ");
            }
        }
    }
    out.push_str(&format!("[{name} of size {}]\n", size_text(&t.size)));
    out
}

pub fn storage_to_string(s: &Storage) -> String {
    storage_to_string_named(s, s.dtype().storage_typename())
}

/// Torch's text for a host storage, with `name` as the class in the footer.
pub fn storage_to_string_named(s: &Storage, name: &str) -> String {
    let t = Tensor::of_storage(s.clone());
    let values = values_of(&t);
    let f = choose_format(&values);
    let mut out = String::new();
    let scale = f.scale.unwrap_or(1.0);
    if let Some(sc) = f.scale {
        out.push_str(&format!("{} *\n", g_format(sc)));
    }
    for v in &values {
        out.push_str(&c_format(&f.format, v / scale));
        out.push('\n');
    }
    out.push_str(&format!("[{name} of size {}]\n", s.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::base::dtype::DType;

    fn tensor(size: &[usize], values: &[f64]) -> Tensor {
        let t = Tensor::zeros(DType::Double, size).unwrap();
        unsafe {
            t.storage
                .as_ref()
                .unwrap()
                .as_mut_slice::<f64>()
                .copy_from_slice(values)
        };
        t
    }

    #[test]
    fn integers_and_matrices() {
        let t = tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            tensor_to_string(&t),
            " 1  2  3\n 4  5  6\n[torch.DoubleTensor of size 2x3]\n"
        );
        let z = tensor(&[2], &[0.0, 0.0]);
        assert_eq!(tensor_to_string(&z), " 0\n 0\n[torch.DoubleTensor of size 2]\n");
    }

    #[test]
    fn fractions_and_scale() {
        let t = tensor(&[2], &[0.5, 1.25]);
        assert_eq!(
            tensor_to_string(&t),
            " 0.5000\n 1.2500\n[torch.DoubleTensor of size 2]\n"
        );
        let big = tensor(&[2], &[123456.5, 1.5]);
        assert!(tensor_to_string(&big).contains("e+05"));
        let scaled = tensor(&[2], &[1234567.5, 2345678.5]);
        assert!(tensor_to_string(&scaled).starts_with("1e+06 *\n"));
    }

    #[test]
    fn empty_and_3d() {
        assert_eq!(
            tensor_to_string(&Tensor::empty(DType::Float)),
            "[torch.FloatTensor with no dimension]\n"
        );
        let t = tensor(&[2, 1, 2], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            tensor_to_string(&t),
            "(1,.,.) = \n  1  2\n\n(2,.,.) = \n  3  4\n[torch.DoubleTensor of size 2x1x2]\n"
        );
    }
}
