//! `libipc`: torch-ipc's API (reference/parallel_ipc.md Part B). Threads with their own Lua
//! states (`map`), queues and channels between them, mutexes, shared tables, child programs
//! (`spawn`), and TCP client/server for the allreduce trees in lua/ipc/.
//!
//! Each file registers its functions on the module table; `require 'ipc'` is the same table
//! (lua/ipc/init.lua), and the Tree family lives in lua/ipc/.

pub mod spawn;

use mlua::{Lua, Result, Table};

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    spawn::register(lua, &t)?;
    Ok(t)
}
