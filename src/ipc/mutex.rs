//! `ipc.mutex`: a recursive lock that stays held between Lua calls, and a reusable barrier.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;

use mlua::{AnyUserData, Lua, Result, Table, UserData, UserDataMethods};

use super::handle::fail;
use super::handle::{HandleUd, interrupted, share, wait_slice};
use crate::torch::args::error;
use crate::torch::t7::codec::Handle;

#[derive(Default)]
struct State {
    owner: Option<ThreadId>,
    depth: usize,
    waiting: usize,
    /// Bumped each time a barrier opens, so that a waiter knows its own barrier opened.
    generation: u64,
}

#[derive(Default)]
pub struct IpcMutex {
    state: Mutex<State>,
    cond: Condvar,
}

type Ud = HandleUd<IpcMutex>;
const WHAT: &str = "mutex";

impl IpcMutex {
    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("lock", |_, ud, ()| {
            const M: &str = "ipc.mutex:lock";
            let mx = ud.get(WHAT).map_err(|e| fail(M, e))?;
            let me = std::thread::current().id();
            let mut s = mx.lock_state();
            while s.owner.is_some_and(|o| o != me) {
                if interrupted() {
                    return Err(error(M, "interrupted"));
                }
                s = wait_slice(&mx.cond, s);
            }
            s.owner = Some(me);
            s.depth += 1;
            Ok(())
        });
        m.add_method("unlock", |_, ud, ()| {
            const M: &str = "ipc.mutex:unlock";
            let mx = ud.get(WHAT).map_err(|e| fail(M, e))?;
            let mut s = mx.lock_state();
            if s.owner != Some(std::thread::current().id()) {
                return Err(error(M, "the mutex is not locked by this thread"));
            }
            s.depth -= 1;
            if s.depth == 0 {
                s.owner = None;
                drop(s);
                mx.cond.notify_all();
            }
            Ok(())
        });
        m.add_method("barrier", |_, ud, n: f64| {
            const M: &str = "ipc.mutex:barrier";
            let mx = ud.get(WHAT).map_err(|e| fail(M, e))?;
            if n < 1.0 {
                return Err(error(M, "the barrier needs at least 1 thread"));
            }
            let mut s = mx.lock_state();
            s.waiting += 1;
            if s.waiting >= n as usize {
                s.waiting = 0;
                s.generation += 1;
                drop(s);
                mx.cond.notify_all();
                return Ok(());
            }
            let generation = s.generation;
            while s.generation == generation {
                if interrupted() {
                    return Err(error(M, "interrupted"));
                }
                s = wait_slice(&mx.cond, s);
            }
            Ok(())
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.mutex"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<IpcMutex>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set(
        "mutex",
        lua.create_function(|lua, ()| lua.create_userdata(HandleUd::new(Arc::new(IpcMutex::default()))))?,
    )
}
