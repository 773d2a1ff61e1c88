//! The native half of `sys`: clocks, sleeping, terminals. `lua/sys/init.lua` builds the API.

use mlua::{Lua, Result, Table};

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "clock",
        lua.create_function(|_, ()| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            Ok(now.as_secs_f64())
        })?,
    )?;
    t.set(
        "isatty",
        lua.create_function(|_, fd: i32| Ok(unsafe { libc::isatty(fd) } == 1))?,
    )?;
    Ok(t)
}
