//! `ipc.marshal(obj[, upvalues])`: a value packed once and unpacked any number of times, from any
//! thread.

use std::sync::Arc;

use mlua::{AnyUserData, Lua, Result, Table, UserData, UserDataMethods, Value};

use super::handle::fail;
use super::handle::{HandleUd, share};
use super::message::Message;
use crate::torch::args::error;
use crate::torch::t7::codec::Handle;

pub struct Marshal(Message);

type Ud = HandleUd<Marshal>;
const WHAT: &str = "marshal";

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("read", |lua, ud, ()| {
            const M: &str = "ipc.marshal:read";
            ud.get(WHAT).map_err(|e| fail(M, e))?.0.unpack(lua)
        });
        m.add_method("close", |_, ud, ()| {
            ud.close(WHAT).map_err(|e| error("ipc.marshal:close", e))
        });
        m.add_method("retain", |_, _, ()| Ok(()));
        m.add_method("metatablename", |_, _, ()| Ok("ipc.marshal"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<Marshal>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    ipc.set(
        "marshal",
        lua.create_function(|lua, (obj, upvalues): (Value, Value)| {
            const M: &str = "ipc.marshal";
            if obj.is_nil() {
                return Err(error(M, "must provide object to serialize at arg 1"));
            }
            let upvalues = !matches!(upvalues, Value::Nil | Value::Boolean(false));
            let msg = Message::pack(lua, &obj, upvalues).map_err(|e| fail(M, e))?;
            lua.create_userdata(HandleUd::new(Arc::new(Marshal(msg))))
        })?,
    )
}
