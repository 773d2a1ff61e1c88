//! Indexing by index tensors (index, indexCopy, indexFill, indexAdd, gather, scatter, nonzero), cat, apply/map/map2, factories.

use mlua::{Lua, Result, Table};

pub fn install(_lua: &Lua, _tensor: &Table, _functions: &Table) -> Result<()> {
    Ok(())
}
