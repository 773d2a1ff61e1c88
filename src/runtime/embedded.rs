//! The project's own Lua files (`lua/`), compiled into the binary so `th` works from any directory.

use mlua::{Lua, Result, Table, Value};

include!(concat!(env!("OUT_DIR"), "/embedded_lua.rs"));

/// Bytecode of an embedded module (its chunk name, `@[luatorch]/<path>`, is inside it).
pub fn find(module: &str) -> Option<&'static [u8]> {
    EMBEDDED_LUA
        .iter()
        .find(|(name, _, _)| *name == module)
        .map(|(_, _, bytecode)| *bytecode)
}

/// Inserts a searcher for embedded modules right after `package.preload`'s.
pub fn install_searcher(lua: &Lua, package: &Table) -> Result<()> {
    let searcher = lua.create_function(|lua, name: String| match find(&name) {
        Some(bytecode) => {
            let loader = lua
                .load(bytecode)
                .set_mode(mlua::chunk::ChunkMode::Binary)
                .into_function()?;
            Ok(Value::Function(loader))
        }
        None => Ok(Value::String(
            lua.create_string(format!("\n\tno embedded module '{name}'"))?,
        )),
    })?;
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
pub fn load_file(lua: &Lua, rel: &str) -> Result<Option<mlua::Function>> {
    match EMBEDDED_LUA.iter().find(|(_, path, _)| *path == rel) {
        Some((_, _, bytecode)) => Ok(Some(
            lua.load(*bytecode)
                .set_mode(mlua::chunk::ChunkMode::Binary)
                .into_function()?,
        )),
        None => Ok(None),
    }
}
