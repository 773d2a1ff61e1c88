//! `ipc.mutex`: a recursive lock that stays held between Lua calls, and a reusable barrier.

use std::sync::{Arc, Mutex, Weak};
use std::thread::ThreadId;

use mlua::{AnyUserData, Lua, Result, Table, UserData, UserDataMethods};

use super::args::opt_number;
use super::handle::{HandleUd, Object, method, new_handle, share};
use super::signal::{Signal, interrupted};
use crate::args::error;
use crate::calls;
use crate::error::Named;
use crate::torch::t7::codec::Handle;

thread_local! {
    /// Lives as long as this thread: a mutex remembers its holder's, to notice a holder that ended.
    static ALIVE: Arc<()> = Arc::new(());
}

fn alive_mark() -> Weak<()> {
    ALIVE.with(Arc::downgrade)
}

#[derive(Default)]
struct State {
    owner: Option<ThreadId>,
    /// The holder's ALIVE: gone once the holder's thread ended.
    owner_alive: Weak<()>,
    depth: usize,
    waiting: usize,
    /// Bumped each time a barrier opens, so that a waiter knows its own barrier opened.
    generation: u64,
}

#[derive(Default)]
pub struct IpcMutex {
    state: Mutex<State>,
    signal: Signal,
}

type Ud = HandleUd<IpcMutex>;

impl Object for IpcMutex {}

/// References to the mutex that a thread waiting at the barrier holds: its userdata and the
/// call's own.
const OWN_WAITING: usize = 2;
const WHAT: &str = "mutex";

impl IpcMutex {
    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        method(m, "lock", "ipc.mutex:lock", |_, _, ud, _| {
            const M: &str = "ipc.mutex:lock";
            let mx = ud.get(WHAT).named(M)?;
            let me = std::thread::current().id();
            let mut s = mx.lock_state();
            while s.owner.is_some_and(|o| o != me) {
                if s.owner_alive.strong_count() == 0 {
                    return Err(error(M, "the thread holding the mutex ended without unlocking it"));
                }
                if interrupted() {
                    return Err(error(M, "interrupted"));
                }
                s = mx.signal.wait(s);
            }
            if s.owner.is_none() {
                s.owner = Some(me);
                s.owner_alive = alive_mark();
            }
            s.depth += 1;
            Ok(())
        });
        method(m, "unlock", "ipc.mutex:unlock", |_, _, ud, _| {
            const M: &str = "ipc.mutex:unlock";
            let mx = ud.get(WHAT).named(M)?;
            let mut s = mx.lock_state();
            if s.owner != Some(std::thread::current().id()) {
                return Err(error(M, "the mutex is not locked by this thread"));
            }
            s.depth -= 1;
            if s.depth == 0 {
                s.owner = None;
                mx.signal.changed();
                drop(s);
                mx.signal.wake();
            }
            Ok(())
        });
        method(m, "barrier", "ipc.mutex:barrier", |_, _, ud, args| {
            const M: &str = "ipc.mutex:barrier";
            let mx = ud.get(WHAT).named(M)?;
            let n = match opt_number(&args, 0, M)? {
                Some(n) if n >= 1.0 => n as usize,
                Some(n) => return Err(error(M, format!("the barrier needs at least 1 thread, got {n}"))),
                None => return Err(error(M, "bad argument #1 (number expected, got no value)")),
            };
            let mut s = mx.lock_state();
            s.waiting += 1;
            if s.waiting >= n {
                s.waiting = 0;
                s.generation += 1;
                mx.signal.changed();
                drop(s);
                mx.signal.wake();
                return Ok(());
            }
            let generation = s.generation;
            while s.generation == generation {
                // Every waiter holds OWN_WAITING references; when nothing else holds the mutex,
                // no other thread can ever arrive (the others ended, say, with an error).
                if Arc::strong_count(&mx) <= OWN_WAITING * s.waiting {
                    let waiting = s.waiting;
                    s.waiting -= 1;
                    return Err(error(
                        M,
                        format!(
                            "the barrier waits for {n} threads, {waiting} arrived and no other thread holds \
                             the mutex any more: it can never open"
                        ),
                    ));
                }
                if interrupted() {
                    s.waiting -= 1;
                    return Err(error(M, "interrupted"));
                }
                s = mx.signal.wait(s);
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
    calls::add(lua, ipc, "mutex", mutex)
}

/// `ipc.mutex() -> mutex`
fn mutex(lua: &Lua, (): ()) -> Result<AnyUserData> {
    new_handle(lua, Arc::new(IpcMutex::default()))
}
