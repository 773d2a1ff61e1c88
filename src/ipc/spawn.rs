//! `ipc.spawn`: a child program with pipes to its stdin and stdout.

use mlua::{Lua, Result, Table};

pub fn register(_lua: &Lua, _ipc: &Table) -> Result<()> {
    Ok(())
}
