//! `ipc.channel`: one FIFO for any number of readers and writers, with the states OPEN, CLOSED
//! (no more writes) and DRAINED (closed and empty). `ipc.channel` is a callable table carrying
//! the state numbers.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use mlua::{AnyUserData, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value, Variadic};

use super::handle::fail;
use super::handle::{HandleUd, interrupted, share, wait_slice};
use super::message::Message;
use crate::torch::args::error;
use crate::torch::t7::codec::Handle;

const OPEN: i64 = 0;
const CLOSED: i64 = 1;
const DRAINED: i64 = 2;
const WHAT: &str = "channel";

#[derive(Default)]
struct State {
    items: VecDeque<Message>,
    closed: bool,
    drained: bool,
}

impl State {
    fn status(&self) -> i64 {
        if self.drained {
            DRAINED
        } else if self.closed {
            CLOSED
        } else {
            OPEN
        }
    }
}

#[derive(Default)]
pub struct Channel {
    state: Mutex<State>,
    cond: Condvar,
}

type Ud = HandleUd<Channel>;

impl Channel {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn close(&self) {
        let mut s = self.lock();
        s.closed = true;
        if s.items.is_empty() {
            s.drained = true;
        }
        drop(s);
        self.cond.notify_all();
    }
}

fn channel(ud: &Ud, method: &str) -> Result<Arc<Channel>> {
    ud.get(WHAT).map_err(|_| error(method, "invalid channel"))
}

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("write", |lua, ud, args: MultiValue| {
            const M: &str = "ipc.channel:write";
            let c = channel(ud, M)?;
            let items = super::message::pack_all(lua, args, false).map_err(|e| fail(M, e))?;
            let mut s = c.lock();
            if s.closed || s.drained {
                return Ok(s.status());
            }
            s.items.extend(items);
            drop(s);
            c.cond.notify_all();
            Ok(OPEN)
        });
        m.add_method("read", |lua, ud, noblock: Option<bool>| {
            const M: &str = "ipc.channel:read";
            let c = channel(ud, M)?;
            let noblock = noblock.unwrap_or(false);
            let mut s = c.lock();
            loop {
                if let Some(item) = s.items.pop_front() {
                    let status = if s.closed { CLOSED } else { OPEN };
                    if s.closed && s.items.is_empty() {
                        s.drained = true;
                        drop(s);
                        c.cond.notify_all();
                    } else {
                        drop(s);
                    }
                    return Ok(Variadic::from_iter([Value::Integer(status), item.unpack(lua)?]));
                }
                if s.drained || noblock {
                    return Ok(Variadic::from_iter([Value::Integer(s.status())]));
                }
                if Arc::strong_count(&c) <= 2 && !s.closed {
                    // This call's reference and this state's handle: no other thread can write.
                    return Err(error(M, "nothing can arrive: no other thread holds this channel"));
                }
                if interrupted() {
                    return Err(error(M, "interrupted"));
                }
                s = wait_slice(&c.cond, s);
            }
        });
        m.add_method("num_items", |_, ud, ()| {
            Ok(channel(ud, "ipc.channel:num_items")?.lock().items.len())
        });
        m.add_method("close", |_, ud, ()| {
            channel(ud, "ipc.channel:close")?.close();
            Ok(())
        });
        m.add_method("closed", |_, ud, ()| {
            Ok(channel(ud, "ipc.channel:closed")?.lock().closed)
        });
        m.add_method("drained", |_, ud, ()| {
            Ok(channel(ud, "ipc.channel:drained")?.lock().drained)
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.channel"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<Channel>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    let t = lua.create_table()?;
    t.set("OPEN", OPEN)?;
    t.set("CLOSED", CLOSED)?;
    t.set("DRAINED", DRAINED)?;
    let mt = lua.create_table()?;
    mt.set(
        "__call",
        lua.create_function(|lua, _: MultiValue| lua.create_userdata(HandleUd::new(Arc::new(Channel::default()))))?,
    )?;
    t.set_metatable(Some(mt))?;
    ipc.set("channel", t)
}
