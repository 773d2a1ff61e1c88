//! The Lua-facing tensor and storage methods, one module per family. Each module's `install`
//! adds its functions to the method tables that `lua/torch/init.lua` copies into every class.
//!
//! Calling convention: a method receives the Lua arguments as they were passed, the receiver
//! first (`x:narrow(1, 2, 3)` gives `[x, 1, 2, 3]`), and returns its Lua results.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::args::Args;

pub mod access;
pub mod copy;
pub mod index;
pub mod linalg;
pub mod math;
pub mod random;
pub mod reduce;
pub mod shape;

pub type Method = fn(&Lua, Args) -> Result<MultiValue>;

pub fn add(lua: &Lua, table: &Table, name: &str, f: Method) -> Result<()> {
    table.raw_set(name, lua.create_function(move |lua, args: Args| f(lua, args))?)
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

/// Fills the method tables: `tensor` for all tensor classes, `storage` for all storage classes,
/// `internal` for helpers that `lua/torch` uses (fields of `libtorch`), and `functions` for
/// functions that become fields of the `torch` table as they are (`torch.manualSeed`, ...).
pub fn install(lua: &Lua, tensor: &Table, storage: &Table, internal: &Table, functions: &Table) -> Result<()> {
    shape::install::<crate::torch::userdata::Host>(lua, tensor)?;
    copy::install(lua, tensor, storage)?;
    access::install(lua, tensor, storage, internal)?;
    math::install(lua, tensor, functions)?;
    linalg::install(lua, tensor, functions)?;
    reduce::install(lua, tensor, functions)?;
    index::install(lua, tensor, functions)?;
    random::install(lua, tensor, functions)?;
    Ok(())
}
