//! torch/tds, built in: `require 'tds'` (lua/tds/) over the native module `libtds`. `store.rs`
//! holds the containers (no Lua); `objects.rs` makes them Lua userdata and converts elements;
//! `fast.rs` is what the Lua wrappers call through the FFI for plain keys and values.

mod fast;
pub mod objects;
pub mod store;

use mlua::{Lua, Result, Table, Value};

pub use objects::handle_of;

pub fn open(lua: &Lua) -> Result<Table> {
    lua.globals().get::<mlua::Function>("require")?.call::<Value>("torch")?;
    let t = lua.create_table()?;
    objects::register(lua, &t)?;
    fast::register(lua, &t)?;
    Ok(t)
}
