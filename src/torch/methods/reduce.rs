//! Reductions (sum, mean, max, min, std, var, norm, ...), cumulative ops, sort, topk, kthvalue, median, mode.

use mlua::{Lua, Result, Table};

pub fn install(_lua: &Lua, _tensor: &Table, _functions: &Table) -> Result<()> {
    Ok(())
}
