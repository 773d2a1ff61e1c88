//! `libimage`: the native side of lua/image. Each function takes torch tensors as torch/image's C
//! functions did (source first, destination second, sized by the Lua side) and names itself in
//! its errors (`image.scale: ...`). Images are Byte, Float or Double tensors of 2 (height x
//! width) or 3 (channels x height x width) dimensions.

mod codecs;
mod ops;
mod tensors;

use mlua::{Lua, Result, Table, Value};

pub fn open(lua: &Lua) -> Result<Table> {
    lua.globals().get::<mlua::Function>("require")?.call::<Value>("torch")?;
    let t = lua.create_table()?;
    codecs::register(lua, &t)?;
    ops::register(lua, &t)?;
    Ok(t)
}
