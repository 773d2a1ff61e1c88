//! The project's own Lua files (`lua/`), compiled into the binary so `th` works from any directory.

use mlua::{Lua, Result, Table, Value};

include!(concat!(env!("OUT_DIR"), "/embedded_lua.rs"));

/// Source of an embedded module, with the chunk name used in error messages.
pub fn find(module: &str) -> Option<(String, &'static [u8])> {
    EMBEDDED_LUA
        .iter()
        .find(|(name, _, _)| *name == module)
        .map(|(_, rel, src)| (format!("@[luatorch]/{rel}"), *src))
}

/// Inserts a searcher for embedded modules right after `package.preload`'s.
pub fn install_searcher(lua: &Lua, package: &Table) -> Result<()> {
    let searcher = lua.create_function(|lua, name: String| match find(&name) {
        Some((chunk_name, src)) => {
            let loader = lua.load(src).set_name(chunk_name).into_function()?;
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
