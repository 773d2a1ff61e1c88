//! Random numbers: the MT19937 generator and the distributions, stream-identical to Torch7.

use mlua::{Lua, Result, Table};

pub fn install(_lua: &Lua, _tensor: &Table, _functions: &Table) -> Result<()> {
    Ok(())
}
