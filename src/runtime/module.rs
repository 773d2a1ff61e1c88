//! The library as a Lua C module for a stock LuaJIT (feature `module`; see rocks/README.md). A
//! stock `luajit` loads `luatorch/core.so` from a luarocks tree through `require 'luatorch.core'`,
//! which the small per-module Lua files luarocks installs next to it (`libtorch.lua`, ...) do.

use mlua::{Lua, Result, Table};

/// `luaopen_luatorch_core`: registers every native module in `package.preload` (so they all come
/// from this one copy of the library) and Rust errors as strings, as `th` has them; returns
/// `super::core_table`. The host's `package.path`/`cpath` stay as the host set them.
#[mlua::lua_module(name = "luatorch_core")]
fn luatorch_core(lua: &Lua) -> Result<Table> {
    super::install_modules(lua)?;
    super::core_table(lua)
}
