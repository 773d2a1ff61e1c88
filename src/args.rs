//! Reading Lua arguments, with Torch-style error messages that name the function and the expected
//! form. The readers of tensor-typed arguments (tensors, sizes, LongStorages) are
//! `torch::tensor_args`.

use mlua::{Value, Variadic};

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

/// The type of `v` as Torch names it: a userdata by its metatable's `__typename` (every torch
/// tensor and storage class sets one, `torch.FloatTensor`), a number as "number".
pub fn type_name(v: &Value) -> String {
    match v {
        // LuaJIT has only one number type: Lua code never sees "integer".
        Value::Integer(_) => "number".into(),
        Value::UserData(ud) => ud
            .metatable()
            .and_then(|m| m.get::<String>("__typename"))
            .unwrap_or_else(|_| "userdata".into()),
        _ => v.type_name().into(),
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
