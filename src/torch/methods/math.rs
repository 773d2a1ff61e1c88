//! Elementwise maths, comparisons and the tensor operators.

use mlua::{Lua, Result, Table};

pub fn install(_lua: &Lua, _tensor: &Table, _functions: &Table) -> Result<()> {
    Ok(())
}
