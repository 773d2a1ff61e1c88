//! `ipc.channel`: one FIFO for any number of readers and writers, with the states OPEN, CLOSED
//! (no more writes) and DRAINED (closed and empty). `ipc.channel` is a callable table carrying
//! the state numbers.

use std::ffi::{c_char, c_int};
use std::sync::Arc;

use mlua::{AnyUserData, Lua, MultiValue, Result, Table, UserData, UserDataFields, UserDataMethods, Value};

use super::args::{fail, opt_bool};
use super::fast;
use super::fifo::{CLOSED, DRAINED, Fifo, OPEN};
use super::handle::{HandleUd, Object, Wrapper, call, method, new_handle, share};
use super::packed::Packed;
use crate::args::error;
use crate::calls;
use crate::error::Named;
use crate::torch::t7::codec::Handle;

const WHAT: &str = "channel";

#[derive(Default)]
pub struct Channel {
    fifo: Fifo,
}

type Ud = HandleUd<Channel>;

impl Channel {
    fn write(&self, items: impl IntoIterator<Item = Packed>) -> i64 {
        self.fifo.push(items)
    }

    /// `own`: the references this state and this call hold (see fast::OWN_SLOW and fast::OWN_FAST).
    fn read(self: &Arc<Self>, noblock: bool, own: usize) -> crate::error::Result<(i64, Option<Packed>)> {
        self.fifo.pop(
            noblock,
            || Arc::strong_count(self) <= own,
            "nothing can arrive: no other thread holds this channel",
        )
    }
}

fn channel(ud: &Ud, method: &str) -> Result<Arc<Channel>> {
    ud.get(WHAT).map_err(|_| error(method, "invalid channel"))
}

const WRITE: &str = "ipc.channel:write";
const READ: &str = "ipc.channel:read";
const TABLE: &str = "luatorch.ipc.channel";

impl Object for Channel {
    const FAST: Option<&'static str> = Some(TABLE);

    fn install_fast(lua: &Lua) -> Result<()> {
        let spec = fast::Spec {
            table: TABLE,
            write: fast_write,
            read: fast_read,
            with_status: true,
        };
        let slow_write = calls::function(lua, write_fallback)?;
        let slow_read = calls::function(lua, read_fallback)?;
        fast::install(lua, &spec, slow_write, slow_read)
    }
}

/// `channel:write(...)` where the FFI wrapper's fast path does not take the items.
fn write_fallback(lua: &Lua, args: MultiValue) -> Result<i64> {
    call(WRITE, lua, args, slow_write)
}

/// `channel:read([noblock])` where the FFI wrapper's fast path does not give the item.
fn read_fallback(lua: &Lua, args: MultiValue) -> Result<MultiValue> {
    call(READ, lua, args, slow_read)
}

fn slow_write(lua: &Lua, _: &AnyUserData, ud: &Ud, args: MultiValue) -> Result<i64> {
    let c = channel(ud, WRITE)?;
    let items = super::packed::pack_all(lua, args, false).map_err(|e| fail(WRITE, e))?;
    Ok(c.write(items))
}

fn slow_read(lua: &Lua, _: &AnyUserData, ud: &Ud, args: MultiValue) -> Result<MultiValue> {
    let c = channel(ud, READ)?;
    let noblock = opt_bool(&args, 0, READ, false)?;
    let (status, item) = c.read(noblock, fast::OWN_SLOW).named(READ)?;
    let mut out = MultiValue::with_capacity(2);
    out.push_back(Value::Integer(status));
    if let Some(item) = item {
        out.push_back(item.unpack(lua)?);
    }
    Ok(out)
}

/// `c:write(v)` of a plain value, from the fast wrapper.
unsafe extern "C" fn fast_write(h: *mut fast::Holder, kind: c_int, num: f64, s: *const c_char, len: usize) -> c_int {
    fast::guard(|| {
        // SAFETY: the wrapper passes its handle's live holder and a valid item.
        let (Some(c), Some(item)) = (unsafe { fast::Holder::object::<Channel>(h) }, unsafe {
            fast::item(kind, num, s, len)
        }) else {
            return fast::SLOW;
        };
        c.write(std::iter::once(item)) as c_int
    })
}

/// `c:read([noblock])`, from the fast wrapper.
unsafe extern "C" fn fast_read(h: *mut fast::Holder, noblock: c_int, out: *mut fast::Out) -> c_int {
    fast::guard(|| {
        // SAFETY: the wrapper passes its handle's live holder.
        let Some(c) = (unsafe { fast::Holder::object::<Channel>(h) }) else {
            return fast::SLOW;
        };
        match c.read(noblock != 0, fast::OWN_FAST) {
            Err(e) => fast::failed(format!("{READ}: {e}")),
            // SAFETY: `out` is the wrapper's output struct.
            Ok((status, item)) => unsafe { fast::deliver(out, status, item) },
        }
    })
}

impl UserData for Ud {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field("write", Wrapper::<Channel>::write());
        f.add_field("read", Wrapper::<Channel>::read());
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        method(m, "num_items", "ipc.channel:num_items", |_, _, ud, _| {
            Ok(channel(ud, "ipc.channel:num_items")?.fifo.len())
        });
        method(m, "close", "ipc.channel:close", |_, _, ud, _| {
            channel(ud, "ipc.channel:close")?.fifo.close();
            Ok(())
        });
        method(m, "closed", "ipc.channel:closed", |_, _, ud, _| {
            Ok(channel(ud, "ipc.channel:closed")?.fifo.closed())
        });
        method(m, "drained", "ipc.channel:drained", |_, _, ud, _| {
            Ok(channel(ud, "ipc.channel:drained")?.fifo.drained())
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
    calls::add(lua, &mt, "__call", new_channel)?;
    t.set_metatable(Some(mt))?;
    ipc.set("channel", t)
}

/// `ipc.channel() -> channel`
fn new_channel(lua: &Lua, _: MultiValue) -> Result<AnyUserData> {
    new_handle(lua, Arc::new(Channel::default()))
}
