//! `libipc`: torch-ipc's API (torch/ipc's README). Threads with their own Lua
//! states (`map`), queues and channels between them, mutexes, shared tables, child programs
//! (`spawn`), and TCP client/server for the allreduce trees in lua/ipc/.
//!
//! Each file registers its functions on the module table; `require 'ipc'` is the same table
//! (lua/ipc/init.lua), and the Tree family lives in lua/ipc/. Values cross between the states of
//! this process `packed` (copies of Lua values, shared tensors and handles); between processes,
//! `net` sends them in the wire format (src/wire).

pub mod args;
pub mod channel;
pub mod fast;
pub mod fifo;
pub mod flock;
pub mod handle;
pub mod map;
pub mod marshal;
pub mod mutex;
pub mod net;
pub mod packed;
pub mod process;
pub mod sharedtable;
pub mod shmtree;
pub mod signal;
pub mod spawn;
pub mod treenet;
pub mod workqueue;

use mlua::{Lua, Result, Table};

/// The handles that travel by reference between the states of this process.
const BY_REFERENCE: &[crate::torch::t7::codec::HandleOf] = &[
    workqueue::handle_of,
    channel::handle_of,
    mutex::handle_of,
    marshal::handle_of,
    sharedtable::handle_of,
    net::client::handle_of,
    crate::tds::handle_of,
];

/// Makes the handles of BY_REFERENCE travel by reference between this process's states: the
/// runtime calls it for every state, since threads share tds containers without ipc loaded.
pub fn share_handles() {
    packed::share_by_reference(BY_REFERENCE);
}

/// The module table; `maker` is how `ipc.map` makes its threads' states.
pub fn open(lua: &Lua, maker: map::StateMaker) -> Result<Table> {
    // As torch-ipc's library does, loading ipc loads torch: a tensor taken out of a queue, channel
    // or shared table then has its class's methods even in a state that never required torch.
    lua.globals()
        .get::<mlua::Function>("require")?
        .call::<mlua::Value>("torch")?;
    share_handles();
    let t = lua.create_table()?;
    process::register(lua, &t)?;
    flock::register(lua, &t)?;
    spawn::register(lua, &t)?;
    map::register(lua, &t, maker)?;
    workqueue::register(lua, &t)?;
    channel::register(lua, &t)?;
    mutex::register(lua, &t)?;
    marshal::register(lua, &t)?;
    sharedtable::register(lua, &t)?;
    net::register(lua, &t)?;
    shmtree::register(lua, &t)?;
    treenet::register(lua, &t)?;
    Ok(t)
}
