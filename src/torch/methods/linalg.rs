//! Linear algebra through BLAS: mm, mv, bmm, addmm, addmv, addr, baddbmm, dot, ger, cross, trace, diag, tril, triu.

use mlua::{Lua, Result, Table};

pub fn install(_lua: &Lua, _tensor: &Table, _functions: &Table) -> Result<()> {
    Ok(())
}
