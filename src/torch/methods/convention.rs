//! The calling convention of the Lua-facing methods: a method receives the Lua arguments as they
//! were passed, the receiver first (`x:narrow(1, 2, 3)` gives `[x, 1, 2, 3]`), and returns its Lua
//! results; `add` puts one in a method table.

use mlua::{Lua, MultiValue, Result, Table, Value};

use crate::args::Args;

pub type Method = fn(&Lua, Args) -> Result<MultiValue>;

/// `calls::add` for a method of this convention.
pub fn add(lua: &Lua, table: &Table, name: &str, f: Method) -> Result<()> {
    crate::calls::add(lua, table, name, f)
}

pub fn one(v: Value) -> Result<MultiValue> {
    Ok(MultiValue::from_vec(vec![v]))
}

pub fn none() -> Result<MultiValue> {
    Ok(MultiValue::new())
}

/// The receiver itself, as the result of an in-place method (`x:fill(1)` returns x).
pub fn receiver(args: &Args) -> Result<MultiValue> {
    one(args.first().cloned().unwrap_or(Value::Nil))
}
