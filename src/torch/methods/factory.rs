//! Functions that make tensors: the factories (zeros, ones, eye, range, linspace, logspace),
//! which write into a leading tensor when there is one and otherwise make a tensor of the default
//! type (`torch.setdefaulttensortype`), and cat and reshape, which copy their inputs into a new
//! shape.

use mlua::{Function, Lua, MultiValue, Result, Table, Value};

use super::convention::{Method, add, one};
use super::copy::{copy_into, fill};
use super::output::{Output, source_and_output};
use crate::args::{self, Args, arg, error, int_arg, number_arg};
use crate::dispatch;
use crate::error::Named;
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::tensor::{Tensor, checked_numel};
use crate::torch::forms::bind::invalid;
use crate::torch::kernels::copy::copy_rows;
use crate::torch::kernels::element::write;
use crate::torch::kernels::fill::fill_indexed;
use crate::torch::kernels::index::{normalize, size_text};
use crate::torch::userdata::{Host, push_tensor, tensor_of};

/// The tensors of `torch.cat`'s table form.
fn tensor_list(t: &Table, method: &str) -> Result<Vec<Tensor>> {
    let mut out = Vec::new();
    for i in 1..=t.raw_len() {
        let v: Value = t.raw_get(i)?;
        out.push(tensor_of(&v).ok_or_else(|| {
            error(
                method,
                format!("table entry {i} is not a tensor (got {})", args::type_name(&v)),
            )
        })?);
    }
    Ok(out)
}

/// `torch.cat([res,] a, b [, dim])` and `torch.cat([res,] {a, b, ...} [, dim])`. The default
/// dimension (or -1) is the last one of the input with the most dimensions; a dimension past an
/// input's last counts as a dimension of size 1; empty inputs are skipped.
fn cat(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "cat";
    let (res, inputs, dim_pos) = match (arg(&a, 1), arg(&a, 2), arg(&a, 3)) {
        (Value::Table(t), _, _) => (None, tensor_list(t, M)?, 2),
        (r, Value::Table(t), _) if tensor_of(r).is_some() => (Some(r.clone()), tensor_list(t, M)?, 3),
        (r, x, y) => match (tensor_of(r), tensor_of(x), tensor_of(y)) {
            (Some(_), Some(x), Some(y)) => (Some(r.clone()), vec![x, y], 4),
            (Some(r), Some(x), None) => (None, vec![r, x], 3),
            _ => {
                let d = a.iter().find_map(tensor_of).map_or(DType::Double, |t| t.dtype);
                let t = &d.tensor_typename()["torch.".len()..];
                return Err(invalid::<Host>(
                    M,
                    &a,
                    &format!("[*{t}*] {t} {t} [index] | [*{t}*] table [index]"),
                ));
            }
        },
    };
    if inputs.is_empty() {
        return Err(error(M, "invalid number of inputs 0 (expected at least one tensor)"));
    }
    let dtype = match &res {
        Some(v) => tensor_of(v).expect("checked above").dtype,
        None => inputs[0].dtype,
    };
    if let Some((i, t)) = inputs.iter().enumerate().find(|(_, t)| t.dtype != dtype) {
        return Err(error(
            M,
            format!(
                "input {} is a {}, expected a {}",
                i + 1,
                t.dtype.tensor_typename(),
                dtype.tensor_typename()
            ),
        ));
    }
    let requested = match arg(&a, dim_pos) {
        Value::Nil => None,
        _ => match int_arg(&a, dim_pos, M)? {
            -1 => None,
            d if d >= 1 => Some(d as usize - 1),
            d => return Err(error(M, format!("invalid dimension {d}"))),
        },
    };
    let max_dim = inputs.iter().map(Tensor::dim).max().unwrap_or(0);
    let (cat_dim, ndim) = match requested {
        Some(d) => (d, max_dim.max(d + 1)),
        None => (max_dim.saturating_sub(1), max_dim),
    };
    let extent = |t: &Tensor, d: usize| if d < t.dim() { t.size[d] } else { t.dim().min(1) };
    let mut size = vec![0usize; ndim];
    for (d, sd) in size.iter_mut().enumerate() {
        if d == cat_dim {
            *sd = inputs.iter().map(|t| extent(t, d)).sum();
            continue;
        }
        for (j, t) in inputs.iter().enumerate() {
            let s = extent(t, d);
            if *sd == 0 {
                *sd = s;
            } else if s != 0 && s != *sd {
                return Err(error(
                    M,
                    format!(
                        "inconsistent tensor sizes: input {} is {}, but the inputs before it have size {} in dimension {} (concatenating along dimension {})",
                        j + 1,
                        size_text(&t.size),
                        *sd,
                        d + 1,
                        cat_dim + 1
                    ),
                ));
            }
        }
    }
    let mut out = match &res {
        Some(v) => Output::into(v, dtype, M)?,
        None => Output::new(dtype),
    };
    if size.iter().all(|&s| s == 0) {
        // Every input is empty: Torch leaves the result as it is.
        return match res {
            Some(v) => one(v),
            None => one(push_tensor(lua, Tensor::empty(dtype))?),
        };
    }
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let dst = out.target(&size, &refs, M)?;
    let mut offset = 0;
    for t in inputs.iter().filter(|t| t.dim() > 0) {
        let n = extent(t, cat_dim);
        let part = dst.narrow(cat_dim, offset, n).named(M)?;
        if part.size == t.size && part.dim() > 1 && !part.is_contiguous() {
            copy_rows(&part, t).named(M)?;
        } else {
            copy_into(&part, t, M)?;
        }
        offset += n;
    }
    out.finish(lua, dst, M)
}

/// `torch.reshape([res,] x, sizes)` and `x:reshape(sizes)`: always a contiguous copy.
fn reshape(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "reshape";
    let (mut out, src, p) = source_and_output(&a, M)?;
    let size = crate::torch::tensor_args::usize_sizes(&crate::torch::tensor_args::sizes_arg(&a, p, M)?, M)?;
    let n: usize = if size.is_empty() {
        0
    } else {
        checked_numel(&size).named(M)?
    };
    if n != src.numel() {
        return Err(error(
            M,
            format!(
                "cannot reshape a tensor of {} elements ({}) into size {} ({} elements)",
                src.numel(),
                size_text(&src.size),
                size_text(&size),
                n
            ),
        ));
    }
    let dst = out.target(&normalize(size), &[&src], M)?;
    copy_into(&dst, &src, M)?;
    out.finish(lua, dst, M)
}

/// The dtype of a factory's result: that of the leading result tensor, a trailing type name
/// (`torch.zeros(2, 'torch.FloatTensor')`, as Torch's dispatcher allows), or the default type.
/// Returns the output, the arguments without a trailing type name, and the position of the
/// first argument after the result tensor.
fn factory_output(lua: &Lua, a: &Args, method: &str) -> Result<(Output, Args, usize)> {
    if let Some(t) = tensor_of(arg(a, 1)) {
        return Ok((Output::into(arg(a, 1), t.dtype, method)?, a.clone(), 2));
    }
    if let Some(Value::String(s)) = a.last()
        && let Some((d, true)) = DType::from_typename(&s.to_string_lossy())
    {
        let rest: Args = a.iter().take(a.len() - 1).cloned().collect();
        return Ok((Output::new(d), rest, 1));
    }
    let torch: Table = lua.globals().get("torch")?;
    let name: String = torch.get::<Function>("getdefaulttensortype")?.call(())?;
    let d = DType::from_typename(&name)
        .filter(|&(_, tensor)| tensor)
        .map(|(d, _)| d)
        .ok_or_else(|| error(method, format!("the default tensor type {name} is not a tensor type")))?;
    Ok((Output::new(d), a.clone(), 1))
}

/// The result tensor of a factory, resized to `size` in place (Torch's factories write straight
/// into the result; nothing is read, so aliasing does not matter).
fn factory_target(out: &mut Output, size: &[usize], method: &str) -> Result<Tensor> {
    out.target(size, &[], method)
}

fn zeros_or_ones(lua: &Lua, a: Args, method: &str, value: f64) -> Result<MultiValue> {
    let (mut out, rest, p) = factory_output(lua, &a, method)?;
    let size = normalize(crate::torch::tensor_args::usize_sizes(
        &crate::torch::tensor_args::sizes_arg(&rest, p, method)?,
        method,
    )?);
    let dst = factory_target(&mut out, &size, method)?;
    fill(&dst, value, method)?;
    out.finish(lua, dst, method)
}

fn eye(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "eye";
    let (mut out, rest, p) = factory_output(lua, &a, M)?;
    let n = int_arg(&rest, p, M)?;
    if n <= 0 {
        return Err(error(M, format!("invalid argument: n must be positive (got {n})")));
    }
    let m = match arg(&rest, p + 1) {
        Value::Nil => n,
        _ => match int_arg(&rest, p + 1, M)? {
            m if m <= 0 => n,
            m => m,
        },
    };
    let dst = factory_target(&mut out, &[n as usize, m as usize], M)?;
    fill(&dst, 0.0, M)?;
    let s = dst.storage_checked().named(M)?;
    let step = dst.stride[0] + dst.stride[1];
    for i in 0..(n.min(m) as usize) {
        write(s, dst.offset + i * step, 1.0);
    }
    out.finish(lua, dst, M)
}

/// Factories that give a 1-D result of `n` elements: Torch resizes the result only when its
/// element count differs, so a result of the right count keeps its shape.
fn sequence_target(out: &mut Output, n: usize, method: &str) -> Result<Tensor> {
    match &out.into {
        Some((_, r)) if r.numel() == n && n > 0 => Ok(r.clone()),
        _ => factory_target(out, &normalize(vec![n]), method),
    }
}

/// `torch.range([res,] a, b [, step=1])`: inclusive; floor((b - a) / step) + 1 elements, computed
/// in double for Float/Double and in integers (arguments truncated) for the integer types.
fn range(lua: &Lua, a: Args) -> Result<MultiValue> {
    const M: &str = "range";
    let (mut out, rest, p) = factory_output(lua, &a, M)?;
    let xmin = number_arg(&rest, p, M)?;
    let xmax = number_arg(&rest, p + 1, M)?;
    let step = args::opt_number(&rest, p + 2, M, 1.0)?;
    let check = |xmin: f64, xmax: f64, step: f64| -> Result<()> {
        // Torch's test `step > 0 || step < 0`, which also refuses NaN.
        if step == 0.0 || step.is_nan() {
            return Err(error(M, "step must be nonzero"));
        }
        if !((step > 0.0 && xmax >= xmin) || (step < 0.0 && xmax <= xmin)) {
            return Err(error(
                M,
                format!("upper bound and larger bound inconsistent with step sign (from {xmin} to {xmax} by {step})"),
            ));
        }
        Ok(())
    };
    if out.dtype.is_floating() {
        check(xmin, xmax, step)?;
        let n = ((xmax - xmin) / step + 1.0) as usize;
        let dst = sequence_target(&mut out, n, M)?;
        dispatch!(out.dtype, T => fill_indexed::<T>(&dst, |i| T::from_f64(xmin + i as f64 * step))).named(M)?;
        out.finish(lua, dst, M)
    } else {
        // The integer types take their bounds as C longs.
        let (xmin, xmax, step) = (xmin as i64, xmax as i64, step as i64);
        check(xmin as f64, xmax as f64, step as f64)?;
        let n = (xmax.wrapping_sub(xmin) / step).wrapping_add(1) as usize;
        let dst = sequence_target(&mut out, n, M)?;
        dispatch!(out.dtype, T => fill_indexed::<T>(&dst, |i| T::from_i64(xmin.wrapping_add((i as i64).wrapping_mul(step))))).named(M)?;
        out.finish(lua, dst, M)
    }
}

/// Arithmetic of linspace/logspace in the element type, as Torch computes it.
trait Real: Element {
    fn from_lua(v: f64) -> Self;
    fn point(a: Self, b: Self, i: usize, n: usize) -> Self;
}

impl Real for f32 {
    fn from_lua(v: f64) -> Self {
        v as f32
    }
    fn point(a: Self, b: Self, i: usize, n: usize) -> Self {
        a + i as f32 * (b - a) / (n - 1) as f32
    }
}

impl Real for f64 {
    fn from_lua(v: f64) -> Self {
        v
    }
    fn point(a: Self, b: Self, i: usize, n: usize) -> Self {
        a + i as f64 * (b - a) / (n - 1) as f64
    }
}

fn spaced<T: Real>(dst: &Tensor, a: f64, b: f64, n: usize, log: bool, method: &str) -> Result<()> {
    let (a, b) = (T::from_lua(a), T::from_lua(b));
    fill_indexed::<T>(dst, |i| {
        let x = if n == 1 { a } else { T::point(a, b, i, n) };
        if log { T::from_f64(10f64.powf(x.to_f64())) } else { x }
    })
    .named(method)
}

/// `torch.linspace([res,] a, b [, n=100])` and logspace (10^x of the same points).
fn linspace_impl(lua: &Lua, a: Args, method: &str, log: bool) -> Result<MultiValue> {
    let (mut out, rest, p) = factory_output(lua, &a, method)?;
    if !out.dtype.is_floating() {
        return Err(error(
            method,
            format!(
                "{} does not implement the torch.{method}() function",
                out.dtype.tensor_typename()
            ),
        ));
    }
    let x1 = number_arg(&rest, p, method)?;
    let x2 = number_arg(&rest, p + 1, method)?;
    let n = match arg(&rest, p + 2) {
        Value::Nil => 100,
        _ => int_arg(&rest, p + 2, method)?,
    };
    // Torch compares the bounds after converting them to the element type.
    let equal = if out.dtype == DType::Float {
        x1 as f32 == x2 as f32
    } else {
        x1 == x2
    };
    if !(n > 1 || (n == 1 && equal)) {
        return Err(error(
            method,
            format!("invalid number of points ({n}; needs at least 2, or 1 when both bounds are equal)"),
        ));
    }
    let n = n as usize;
    let dst = sequence_target(&mut out, n, method)?;
    match out.dtype {
        DType::Float => spaced::<f32>(&dst, x1, x2, n, log, method)?,
        _ => spaced::<f64>(&dst, x1, x2, n, log, method)?,
    }
    out.finish(lua, dst, method)
}

pub fn install(lua: &Lua, tensor: &Table, functions: &Table) -> Result<()> {
    // Methods that also exist as torch.* functions with the same argument list.
    let both: [(&str, Method); 8] = [
        ("cat", cat),
        ("reshape", reshape),
        ("zeros", |lua, a| zeros_or_ones(lua, a, "zeros", 0.0)),
        ("ones", |lua, a| zeros_or_ones(lua, a, "ones", 1.0)),
        ("eye", eye),
        ("range", range),
        ("linspace", |lua, a| linspace_impl(lua, a, "linspace", false)),
        ("logspace", |lua, a| linspace_impl(lua, a, "logspace", true)),
    ];
    for (name, f) in both {
        add(lua, tensor, name, f)?;
        add(lua, functions, name, f)?;
    }
    Ok(())
}
