//! The project's own Lua files (`lua/`), compiled into the binary so `th` works from any directory.
//! As Lua C modules (feature `module`) they are kept as source, for the few the library loads itself
//! (`luatorch.errors`); `require` there finds the files the luarocks tree holds.

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, Result, Table, Value};

include!(concat!(env!("OUT_DIR"), "/embedded_lua.rs"));

/// The embedded file at `rel` (its path under lua/) as a function.
fn load(lua: &Lua, rel: &str, code: &'static [u8]) -> Result<Function> {
    if EMBEDDED_BYTECODE {
        // The chunk name, `@[luatorch]/<path>`, is inside the bytecode.
        lua.load(code).set_mode(ChunkMode::Binary).into_function()
    } else {
        lua.load(code)
            .set_name(format!("@[luatorch]/{rel}"))
            .set_mode(ChunkMode::Text)
            .into_function()
    }
}

/// `search(name) -> loader | why`: the package searcher for embedded modules.
fn search(lua: &Lua, name: String) -> Result<Value> {
    match EMBEDDED_LUA.iter().find(|(module, _, _)| *module == name) {
        Some((_, rel, code)) => Ok(Value::Function(load(lua, rel, code)?)),
        None => Ok(Value::String(
            lua.create_string(format!("\n\tno embedded module '{name}'"))?,
        )),
    }
}

/// Inserts a searcher for embedded modules right after `package.preload`'s.
pub fn install_searcher(lua: &Lua, package: &Table) -> Result<()> {
    let searcher = crate::calls::function(lua, search)?;
    // LuaJIT names the searcher list `loaders` (5.1); 5.2+ calls it `searchers`.
    let loaders: Table = match package.get::<Option<Table>>("loaders")? {
        Some(t) => t,
        None => package.get("searchers")?,
    };
    let table: Table = lua.globals().get("table")?;
    let insert: mlua::Function = table.get("insert")?;
    insert.call::<()>((loaders, 2, searcher))
}

/// Loads the embedded file at `rel` (a path under lua/, such as `paths/init.lua`) as a function.
pub fn load_file(lua: &Lua, rel: &str) -> Result<Option<Function>> {
    match EMBEDDED_LUA.iter().find(|(_, path, _)| *path == rel) {
        Some((_, rel, code)) => Ok(Some(load(lua, rel, code)?)),
        None => Ok(None),
    }
}
