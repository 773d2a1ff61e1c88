//! The native half of `paths`: file-system queries that need the OS. `lua/paths/init.lua` builds
//! the Torch API on top.

use mlua::{Lua, Result, Table};

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "cwd",
        lua.create_function(|_, ()| {
            std::env::current_dir()
                .map(|p| p.to_string_lossy().into_owned())
                .map_err(|e| mlua::Error::runtime(format!("paths.cwd: {e}")))
        })?,
    )?;
    Ok(t)
}
