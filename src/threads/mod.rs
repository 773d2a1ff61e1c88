//! `libthreads`: torch/threads' native side. A pool of threads with Lua states of their own
//! (`pool`, under lua/threads/threads.lua's `threads.Threads`), the low-level `Thread` that runs a
//! string of code, and the `Mutex` and `Condition` any thread can find by number; and the
//! scheduler's blocks of tensors (`blocks`).

pub mod blocks;
pub mod pool;
pub mod reaped;
pub mod sync;
pub mod thread;

use mlua::{Lua, Result, Table};

use crate::calls;
use crate::ipc::map::StateMaker;

/// The module table; `maker` is how the threads' states are made.
pub fn open(lua: &Lua, maker: StateMaker) -> Result<Table> {
    lua.globals()
        .get::<mlua::Function>("require")?
        .call::<mlua::Value>("torch")?;
    let t = lua.create_table()?;
    sync::register(lua, &t)?;
    thread::register(lua, &t, maker)?;
    pool::register(lua, &t, maker)?;
    blocks::register(lua, &t)?;
    calls::add(lua, &t, "_ncores", ncores)?;
    Ok(t)
}

/// `_ncores() -> n`: the scheduler's default number of workers.
fn ncores(_: &Lua, (): ()) -> Result<usize> {
    Ok(std::thread::available_parallelism().map_or(1, |n| n.get()))
}
