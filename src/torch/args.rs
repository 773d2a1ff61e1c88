//! Reading Lua arguments for tensor methods, with Torch-style error messages that name the method
//! and the expected form.

use mlua::{Value, Variadic};

use super::base::dtype::DType;
use super::base::storage::Storage;
use super::base::tensor::Tensor;
use super::userdata::{Object, classify, storage_of, tensor_of};

pub type Args = Variadic<Value>;

/// A Lua error `"<method>: <message>"`.
pub fn error(method: &str, message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{method}: {message}"))
}

/// An error that no Lua function is named in (a storage's, which reports in words) as a Lua
/// error.
pub fn lift<T, E: std::fmt::Display>(r: Result<T, E>) -> mlua::Result<T> {
    r.map_err(|e| mlua::Error::RuntimeError(e.to_string()))
}

pub fn type_name(v: &Value) -> String {
    match classify(v) {
        Some(Object::Tensor(_, d)) => d.tensor_typename().into(),
        Some(Object::Storage(_, d)) => d.storage_typename().into(),
        // LuaJIT has only one number type: Lua code never sees "integer".
        None if matches!(v, Value::Integer(_)) => "number".into(),
        // Other torch userdata (device tensors) name their class in their metatable.
        None => match v {
            Value::UserData(ud) => ud
                .metatable()
                .and_then(|m| m.get::<String>("__typename"))
                .unwrap_or_else(|_| "userdata".into()),
            _ => v.type_name().into(),
        },
    }
}

pub fn is_number(v: &Value) -> bool {
    matches!(v, Value::Number(_) | Value::Integer(_))
}

pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => Some(*n),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// The argument at `pos` (1-based, as Lua counts, the receiver being 1).
pub fn arg(args: &Args, pos: usize) -> &Value {
    args.get(pos - 1).unwrap_or(&Value::Nil)
}

pub fn tensor_arg(args: &Args, pos: usize, method: &str) -> mlua::Result<Tensor> {
    let v = arg(args, pos);
    tensor_of(v).ok_or_else(|| {
        error(
            method,
            format!("bad argument #{pos} (tensor expected, got {})", type_name(v)),
        )
    })
}

pub fn number_arg(args: &Args, pos: usize, method: &str) -> mlua::Result<f64> {
    let v = arg(args, pos);
    number(v).ok_or_else(|| {
        error(
            method,
            format!("bad argument #{pos} (number expected, got {})", type_name(v)),
        )
    })
}

pub fn opt_number(args: &Args, pos: usize, method: &str, default: f64) -> mlua::Result<f64> {
    match arg(args, pos) {
        Value::Nil => Ok(default),
        _ => number_arg(args, pos, method),
    }
}

/// An integer argument (Lua numbers are doubles: a fractional value is an error).
pub fn int_arg(args: &Args, pos: usize, method: &str) -> mlua::Result<i64> {
    let n = number_arg(args, pos, method)?;
    if n.fract() != 0.0 || !n.is_finite() {
        return Err(error(
            method,
            format!("bad argument #{pos} (integer expected, got {n})"),
        ));
    }
    Ok(n as i64)
}

/// A number that must be an integer (`what` of `method`: "k", "dimension").
pub fn integer(v: f64, method: &str, what: &str) -> mlua::Result<i64> {
    if v.fract() != 0.0 || !v.is_finite() {
        return Err(error(method, format!("{what} must be an integer, got {v}")));
    }
    Ok(v as i64)
}

/// A 1-based dimension of `t` at `pos`, returned 0-based.
pub fn dim_arg(args: &Args, pos: usize, t: &Tensor, method: &str) -> mlua::Result<usize> {
    let d = int_arg(args, pos, method)?;
    check_dim(d, t.dim(), method)
}

pub fn check_dim(d: i64, ndim: usize, method: &str) -> mlua::Result<usize> {
    if d < 1 || d as usize > ndim {
        return Err(error(method, format!("dimension {d} out of range of {ndim}D tensor")));
    }
    Ok(d as usize - 1)
}

/// A 1-based index into a dimension of `size`; negative counts from the end (-1 is the last).
pub fn index_in(i: i64, size: usize, method: &str) -> mlua::Result<usize> {
    let idx = if i < 0 { size as i64 + i } else { i - 1 };
    if idx < 0 || idx as usize >= size {
        return Err(error(
            method,
            format!("index {i} out of range for dimension of size {size}"),
        ));
    }
    Ok(idx as usize)
}

pub fn is_long_storage(v: &Value) -> bool {
    matches!(classify(v), Some(Object::Storage(_, DType::Long)))
}

/// Values of a LongStorage.
pub fn long_storage_values(v: &Value) -> Option<Vec<i64>> {
    let s: Storage = storage_of(v)?;
    if s.dtype() != DType::Long {
        return None;
    }
    // SAFETY: read-only copy of a Long storage.
    Some(unsafe { s.as_slice::<i64>() }.to_vec())
}

/// Sizes given either as numbers from `pos` on, or as one LongStorage at `pos`; also accepts a
/// plain Lua table of numbers. Returns the raw values (-1 allowed for `view`).
pub fn sizes_arg(args: &Args, pos: usize, method: &str) -> mlua::Result<Vec<i64>> {
    let first = arg(args, pos);
    if let Some(v) = long_storage_values(first) {
        return Ok(v);
    }
    if let Value::Table(t) = first {
        let mut out = Vec::new();
        for v in t.sequence_values::<Value>() {
            let v = v?;
            let n = number(&v).ok_or_else(|| error(method, "size table must hold numbers"))?;
            out.push(n as i64);
        }
        return Ok(out);
    }
    // Torch7 reads sizes as C longs: a fractional size is cut toward zero (`torch.rand(3.5)` has
    // 3 elements, which nn's own tests rely on), as the table form above does.
    let mut out = Vec::new();
    let mut p = pos;
    while p <= args.len() && !matches!(arg(args, p), Value::Nil) {
        let n = number_arg(args, p, method)?;
        if !n.is_finite() {
            return Err(error(method, format!("bad argument #{p} (a size expected, got {n})")));
        }
        out.push(n.trunc() as i64);
        p += 1;
    }
    Ok(out)
}

/// Sizes that must all be non-negative.
pub fn usize_sizes(raw: &[i64], method: &str) -> mlua::Result<Vec<usize>> {
    raw.iter()
        .map(|&s| {
            if s < 0 {
                Err(error(method, format!("invalid size {s}")))
            } else {
                Ok(s as usize)
            }
        })
        .collect()
}
