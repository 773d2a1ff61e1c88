//! The elementwise Lua callbacks: `x:apply(f)`, `x:map(y, f)`, `x:map2(y, z, f)` call a Lua
//! function for each element in logical order and write a number result back.

use mlua::{Function, Lua, MultiValue, Result, Table, Value};

use super::convention::{add, receiver};
use crate::args::{self, Args, arg, error};
use crate::dispatch;
use crate::error::Named;
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::kernels::strided::Offsets;
use crate::torch::tensor_args::tensor_arg;
use crate::torch::userdata::tensor_of;

/// Checks `f` at `pos` is a function.
fn function_arg(a: &Args, pos: usize, method: &str) -> Result<Function> {
    match arg(a, pos) {
        Value::Function(f) => Ok(f.clone()),
        v => Err(error(
            method,
            format!("bad argument #{pos} (function expected, got {})", args::type_name(v)),
        )),
    }
}

/// A tensor argument of the receiver's type (Torch's luaT_checkudata).
fn same_type_arg(a: &Args, pos: usize, dtype: DType, method: &str) -> Result<Tensor> {
    let v = arg(a, pos);
    match tensor_of(v) {
        Some(t) if t.dtype == dtype => Ok(t),
        _ => Err(error(
            method,
            format!(
                "bad argument #{pos} ({} expected, got {})",
                dtype.tensor_typename(),
                args::type_name(v)
            ),
        )),
    }
}

/// A Lua callback result as Torch reads it: a number (or a string convertible to one) replaces
/// the element; anything else leaves it.
fn callback_number(lua: &Lua, v: Value) -> Result<Option<f64>> {
    match v {
        Value::Number(n) => Ok(Some(n)),
        Value::Integer(i) => Ok(Some(i as f64)),
        Value::String(_) => lua.coerce_number(v),
        _ => Ok(None),
    }
}

/// An error raised by a callback, passed on as Torch's lua_call would: the message without the
/// traceback mlua appends (the top level adds its own), and a Rust error without its wrapping.
fn callback_error(e: mlua::Error) -> mlua::Error {
    match e {
        mlua::Error::RuntimeError(m) => match m.find("\nstack traceback:") {
            Some(i) => mlua::Error::RuntimeError(m[..i].to_string()),
            None => mlua::Error::RuntimeError(m),
        },
        mlua::Error::CallbackError { cause, .. } => callback_error((*cause).clone()),
        other => other,
    }
}

/// Element `o` of `s`, checked: the callback may have resized the storage.
fn read_at<T: Element>(s: &Storage, o: usize, method: &str) -> Result<T> {
    if o >= s.len() {
        return Err(error(method, "the tensor's storage shrank during the iteration"));
    }
    // SAFETY: bounds checked; the pointer is fetched after any resize.
    Ok(unsafe { *s.ptr::<T>().add(o) })
}

fn write_at<T: Element>(s: &Storage, o: usize, v: f64, method: &str) -> Result<()> {
    if o >= s.len() {
        return Err(error(method, "the tensor's storage shrank during the iteration"));
    }
    // SAFETY: as in read_at.
    unsafe { *s.ptr::<T>().add(o) = T::from_f64(v) };
    Ok(())
}

/// apply/map/map2: calls `f(x, ys...)` for each element of `t` and of `others` in logical order,
/// writing a number result back into `t`.
fn call_each<T: Element>(lua: &Lua, t: &Tensor, others: &[Tensor], f: &Function, method: &str) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let s = t.storage_checked().named(method)?.clone();
    let other_storages: Vec<Storage> = others
        .iter()
        .map(|o| o.storage_checked().named(method).cloned())
        .collect::<Result<_>>()?;
    let mut iters: Vec<Offsets> = others.iter().map(Offsets::new).collect();
    for o in Offsets::new(t) {
        let mut call_args = Vec::with_capacity(1 + others.len());
        call_args.push(Value::Number(read_at::<T>(&s, o, method)?.to_f64()));
        for (it, os) in iters.iter_mut().zip(&other_storages) {
            let oo = it.next().expect("same element count");
            call_args.push(Value::Number(read_at::<T>(os, oo, method)?.to_f64()));
        }
        let r: Value = f.call(MultiValue::from_vec(call_args)).map_err(callback_error)?;
        if let Some(v) = callback_number(lua, r)? {
            write_at::<T>(&s, o, v, method)?;
        }
    }
    Ok(())
}

fn check_count(t: &Tensor, o: &Tensor, pos: usize, method: &str) -> Result<()> {
    if t.numel() != o.numel() {
        return Err(error(
            method,
            format!(
                "inconsistent tensor size (the tensor has {} elements, argument #{pos} has {})",
                t.numel(),
                o.numel()
            ),
        ));
    }
    Ok(())
}

pub fn install(lua: &Lua, tensor: &Table) -> Result<()> {
    add(lua, tensor, "apply", |lua, a| {
        const M: &str = "apply";
        let t = tensor_arg(&a, 1, M)?;
        let f = function_arg(&a, 2, M)?;
        dispatch!(t.dtype, T => call_each::<T>(lua, &t, &[], &f, M))?;
        receiver(&a)
    })?;
    add(lua, tensor, "map", |lua, a| {
        const M: &str = "map";
        let t = tensor_arg(&a, 1, M)?;
        let x = same_type_arg(&a, 2, t.dtype, M)?;
        let f = function_arg(&a, 3, M)?;
        check_count(&t, &x, 2, M)?;
        dispatch!(t.dtype, T => call_each::<T>(lua, &t, &[x], &f, M))?;
        receiver(&a)
    })?;
    add(lua, tensor, "map2", |lua, a| {
        const M: &str = "map2";
        let t = tensor_arg(&a, 1, M)?;
        let x = same_type_arg(&a, 2, t.dtype, M)?;
        let y = same_type_arg(&a, 3, t.dtype, M)?;
        let f = function_arg(&a, 4, M)?;
        check_count(&t, &x, 2, M)?;
        check_count(&t, &y, 3, M)?;
        dispatch!(t.dtype, T => call_each::<T>(lua, &t, &[x, y], &f, M))?;
        receiver(&a)
    })?;
    Ok(())
}
