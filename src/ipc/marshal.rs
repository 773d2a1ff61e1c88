//! `ipc.marshal(obj[, upvalues])`: a value packed once and unpacked any number of times, from any
//! thread.

use std::sync::Arc;

use mlua::{AnyUserData, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};

use super::args::{fail, opt_number};
use super::handle::{HandleUd, Object, close_handle, method, new_handle, share};
use super::packed::Packed;
use crate::args::error;
use crate::calls;
use crate::error::Named;
use crate::torch::t7::codec::Handle;

pub struct Marshal(Packed);

impl Object for Marshal {}

type Ud = HandleUd<Marshal>;
const WHAT: &str = "marshal";

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        method(m, "read", "ipc.marshal:read", |lua, _, ud, _| {
            const M: &str = "ipc.marshal:read";
            ud.get(WHAT).named(M)?.0.unpack(lua).map_err(|e| fail(M, e))
        });
        method(m, "close", "ipc.marshal:close", |_, any, _, _| {
            close_handle::<Marshal>(any, WHAT, "ipc.marshal:close")
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.marshal"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<Marshal>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    calls::add(lua, ipc, "marshal", marshal)
}

/// `ipc.marshal(obj, [upvalues], [size], [sizeIncrement]) -> marshal`: `obj` packed once, for
/// many readers.
fn marshal(lua: &Lua, args: MultiValue) -> Result<AnyUserData> {
    const M: &str = "ipc.marshal";
    let obj = args.front().cloned().unwrap_or(Value::Nil);
    let upvalues = args.get(1).cloned().unwrap_or(Value::Nil);
    // The sizes are accepted for torch-ipc's signature; the buffer grows as needed.
    for i in 2..4 {
        opt_number(&args, i, M)?;
    }
    if obj.is_nil() {
        return Err(error(M, "must provide object to serialize at arg 1"));
    }
    let upvalues = !matches!(upvalues, Value::Nil | Value::Boolean(false));
    let msg = Packed::pack(lua, &obj, upvalues).map_err(|e| fail(M, e))?;
    new_handle(lua, Arc::new(Marshal(msg)))
}
