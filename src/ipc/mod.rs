//! `libipc`: torch-ipc's API (reference/parallel_ipc.md Part B). Threads with their own Lua
//! states (`map`), queues and channels between them, mutexes, shared tables, child programs
//! (`spawn`), and TCP client/server for the allreduce trees in lua/ipc/.
//!
//! Each file registers its functions on the module table; `require 'ipc'` is the same table
//! (lua/ipc/init.lua), and the Tree family lives in lua/ipc/. Values cross between states through
//! `message` (copies of Lua values, shared tensors and handles).

pub mod channel;
pub mod fast;
pub mod fifo;
pub mod handle;
pub mod map;
pub mod marshal;
pub mod message;
pub mod misc;
pub mod mutex;
pub mod net;
pub mod sharedtable;
pub mod spawn;
pub mod workqueue;

use mlua::{Lua, Result, Table};

pub fn open(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    misc::register(lua, &t)?;
    spawn::register(lua, &t)?;
    map::register(lua, &t)?;
    workqueue::register(lua, &t)?;
    channel::register(lua, &t)?;
    mutex::register(lua, &t)?;
    marshal::register(lua, &t)?;
    sharedtable::register(lua, &t)?;
    net::register(lua, &t)?;
    Ok(t)
}
