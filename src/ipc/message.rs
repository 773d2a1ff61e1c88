//! Values between the Lua states of one process: the `.t7` walker, with every storage and every
//! ipc handle carried beside the bytes by reference. So Lua values are copied, tensors, storages,
//! queues, channels and mutexes are shared, torch classes keep their class by name, and closures
//! are refused unless their upvalues are asked for (`writeup`, `marshal(x, true)`).

use std::sync::Arc;

use mlua::{AnyUserData, Lua, Result, Value};

use crate::torch::storage::Storage;
use crate::torch::t7::{self, codec};

/// One packed value; any thread may unpack it, any number of times.
pub struct Message {
    t7: Vec<u8>,
    storages: Vec<Storage>,
    handles: Vec<Arc<dyn codec::Handle>>,
}

impl Message {
    pub fn pack(lua: &Lua, value: &Value, upvalues: bool) -> Result<Message> {
        let oob = codec::OutOfBand {
            min_bytes: 0,
            handles: Some(codec::Handles {
                of: handle_of,
                written: Vec::new(),
                to_read: Default::default(),
            }),
            refuse_upvalues: !upvalues,
            ..Default::default()
        };
        let (bytes, oob) = t7::serialize_with(lua, value, oob)?;
        Ok(Message {
            t7: bytes,
            storages: oob.written,
            handles: oob.handles.map(|h| h.written).unwrap_or_default(),
        })
    }

    pub fn unpack(&self, lua: &Lua) -> Result<Value> {
        // The bytes of nil are a single tag: skip the machinery.
        if self.t7 == [0, 0, 0, 0] {
            return Ok(Value::Nil);
        }
        let oob = codec::OutOfBand {
            min_bytes: 0,
            to_read: self.storages.iter().cloned().collect(),
            handles: Some(codec::Handles {
                of: handle_of,
                written: Vec::new(),
                to_read: self.handles.iter().cloned().collect(),
            }),
            ..Default::default()
        };
        t7::deserialize_with(lua, &self.t7, oob)
    }

    /// Bytes this message holds apart from shared storages.
    pub fn size(&self) -> usize {
        self.t7.len()
    }
}

/// The ipc handles that travel by reference.
fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn codec::Handle>> {
    super::workqueue::handle_of(ud)
        .or_else(|| super::channel::handle_of(ud))
        .or_else(|| super::mutex::handle_of(ud))
        .or_else(|| super::marshal::handle_of(ud))
        .or_else(|| super::sharedtable::handle_of(ud))
}

/// Packs several values (a call's arguments or results).
pub fn pack_all(lua: &Lua, values: impl IntoIterator<Item = Value>, upvalues: bool) -> Result<Vec<Message>> {
    values.into_iter().map(|v| Message::pack(lua, &v, upvalues)).collect()
}

pub fn unpack_all(lua: &Lua, messages: &[Message]) -> Result<mlua::MultiValue> {
    messages.iter().map(|m| m.unpack(lua)).collect()
}
