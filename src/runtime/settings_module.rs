//! `libsettings`: the `LUATORCH_*` settings for Lua code (cutorch, cudnn, ipc's trees), read from
//! the one list in `crate::settings`. `get(name)` is the value (nil when unset or empty), `off(name)`
//! whether it is `0`; a name not in the list is an error, so a misspelt setting cannot go unread.

use mlua::{Lua, Result, Table};

use crate::calls;
use crate::settings;

fn known(function: &str, name: &str) -> Result<()> {
    if settings::is_setting(name) {
        return Ok(());
    }
    let names: Vec<&str> = settings::SETTINGS.iter().map(|s| s.name).collect();
    Err(mlua::Error::runtime(format!(
        "{function}: '{name}' is not a luatorch setting (the settings are {})",
        names.join(", ")
    )))
}

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    calls::add(lua, &t, "get", get)?;
    calls::add(lua, &t, "off", off)?;
    Ok(t)
}

/// `settings.get(name) -> value | nil`
fn get(_: &Lua, name: String) -> Result<Option<String>> {
    known("settings.get", &name)?;
    Ok(settings::text(&name))
}

/// `settings.off(name) -> bool`: whether the setting is `0`.
fn off(_: &Lua, name: String) -> Result<bool> {
    known("settings.off", &name)?;
    Ok(settings::is_off(&name))
}
