//! The arguments and errors of ipc's Lua functions: optional booleans and numbers read with the
//! call's name in their errors, and Lua errors from packing values as `method: message`.

use mlua::{MultiValue, Result, Value};

/// A Lua error from packing or unpacking a value, as `method: message` (without mlua's
/// "runtime error: " wording).
pub fn fail(method: &str, e: mlua::Error) -> mlua::Error {
    crate::args::error(method, crate::error::message::message_of(&e))
}

/// An optional boolean argument (nil or absent: `default`).
pub fn opt_bool(args: &MultiValue, i: usize, full: &str, default: bool) -> Result<bool> {
    match args.get(i) {
        None | Some(Value::Nil) => Ok(default),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(other) => Err(crate::args::error(
            full,
            format!(
                "bad argument #{} (boolean or nil expected, got {})",
                i + 1,
                crate::args::type_name(other)
            ),
        )),
    }
}

/// An optional number argument.
pub fn opt_number(args: &MultiValue, i: usize, full: &str) -> Result<Option<f64>> {
    match args.get(i) {
        None | Some(Value::Nil) => Ok(None),
        Some(v) => crate::args::number(v).map(Some).ok_or_else(|| {
            crate::args::error(
                full,
                format!(
                    "bad argument #{} (number expected, got {})",
                    i + 1,
                    crate::args::type_name(v)
                ),
            )
        }),
    }
}
