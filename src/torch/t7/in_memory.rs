//! Lua values to and from `.t7` bytes in memory, for other Rust code (parallel's and ipc's
//! messages): one writeObject or readObject over a fresh MemoryFile, optionally with storages and
//! handles carried beside the bytes. Plain values (plain.rs) take a shorter way to the same bytes.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, Result, Value};

use super::codec::{FileCore, Kind};
use super::context::{Ctx, FileObject, helpers};
use super::refs::{OutOfBand, Refs};
use super::stream::MemoryStream;
use super::{plain, read, write};
use crate::torch::base::storage::Storage;

/// Serialization mode of the in-memory helpers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Binary,
    Ascii,
}

/// Runs `f` with a context over a fresh MemoryFile holding `bytes`.
fn with_memory_file<R>(lua: &Lua, bytes: Vec<u8>, mode: Mode, f: impl FnOnce(&Ctx) -> Result<R>) -> Result<R> {
    let mut core = FileCore::new(Box::new(MemoryStream::new(bytes)), Kind::Memory, true, true);
    core.binary = mode == Mode::Binary;
    let core = Rc::new(RefCell::new(core));
    let h = helpers(lua)?;
    let ctx = Ctx {
        lua,
        core: &core,
        file: FileObject::Memory(core.clone(), std::cell::OnceCell::new()),
        helpers: &h,
    };
    let result = f(&ctx);
    // The reference tables are registry references held from Rust: dropped now, what was read
    // becomes collectable in one cycle rather than after the File object's own collection.
    if let Ok(mut c) = core.try_borrow_mut() {
        c.refs = Refs::default();
    }
    result
}

/// `torch.serialize(value, mode)` without the Lua wrapper: the bytes of one writeObject.
pub fn serialize(lua: &Lua, value: &Value, mode: Mode) -> Result<Vec<u8>> {
    if mode == Mode::Binary
        && let Some(bytes) = plain::encode(lua, value)
    {
        return Ok(bytes);
    }
    general_serialize(lua, value, mode)
}

/// `serialize` through the general walker, whatever the value.
pub(crate) fn general_serialize(lua: &Lua, value: &Value, mode: Mode) -> Result<Vec<u8>> {
    with_memory_file(lua, Vec::new(), mode, |ctx| {
        write::write_object(ctx, value.clone(), None, None)?;
        Ok(ctx.core.borrow_mut().take_memory_data().unwrap_or_default())
    })
}

/// `torch.deserialize(bytes, mode)` without the Lua wrapper: one readObject.
pub fn deserialize(lua: &Lua, bytes: &[u8], mode: Mode) -> Result<Value> {
    if mode == Mode::Binary
        && let Some(v) = plain::decode(lua, bytes)
    {
        return Ok(v);
    }
    general_deserialize(lua, bytes, mode)
}

/// `deserialize` through the general walker, whatever the bytes.
pub(crate) fn general_deserialize(lua: &Lua, bytes: &[u8], mode: Mode) -> Result<Value> {
    with_memory_file(lua, bytes.to_vec(), mode, read::read_object)
}

/// One binary writeObject with what `oob` asks to carry beside the bytes; returns the bytes and
/// `oob` with what was put beside them.
pub fn serialize_with(lua: &Lua, value: &Value, oob: OutOfBand) -> Result<(Vec<u8>, OutOfBand)> {
    with_memory_file(lua, Vec::new(), Mode::Binary, |ctx| {
        ctx.core.borrow_mut().out_of_band = Some(oob);
        let written = write::write_object(ctx, value.clone(), None, None);
        let mut core = ctx.core.borrow_mut();
        let oob = core.out_of_band.take().unwrap_or_default();
        written?;
        Ok((core.take_memory_data().unwrap_or_default(), oob))
    })
}

/// Reads what [`serialize_with`] wrote, taking what went beside from `oob`.
pub fn deserialize_with(lua: &Lua, bytes: &[u8], oob: OutOfBand) -> Result<Value> {
    deserialize_owned(lua, bytes.to_vec(), oob)
}

/// [`deserialize_with`] over bytes the caller gives up: the memory file reads them where they
/// are.
fn deserialize_owned(lua: &Lua, bytes: Vec<u8>, oob: OutOfBand) -> Result<Value> {
    with_memory_file(lua, bytes, Mode::Binary, |ctx| {
        ctx.core.borrow_mut().out_of_band = Some(oob);
        read::read_object(ctx)
    })
}

/// One binary writeObject whose storages of at least `min_bytes` bytes, and device storages of any
/// size, are left out of the bytes and returned beside them, in the order [`deserialize_beside`]
/// wants them back.
pub fn serialize_beside(lua: &Lua, value: &Value, min_bytes: usize) -> Result<(Vec<u8>, Vec<Storage>)> {
    if let Some(bytes) = plain::encode(lua, value) {
        return Ok((bytes, Vec::new()));
    }
    let oob = OutOfBand {
        min_bytes,
        device_storages: true,
        ..Default::default()
    };
    serialize_with(lua, value, oob).map(|(bytes, oob)| (bytes, oob.written))
}

/// Reads what [`serialize_beside`] wrote, taking the large storages from `storages`.
pub fn deserialize_beside(lua: &Lua, bytes: &[u8], storages: Vec<Storage>, min_bytes: usize) -> Result<Value> {
    if storages.is_empty()
        && let Some(v) = plain::decode(lua, bytes)
    {
        return Ok(v);
    }
    deserialize_owned(lua, bytes.to_vec(), beside_oob(storages, min_bytes))
}

/// [`deserialize_beside`] of the bytes `message[start..]`, a received message the caller gives
/// up: read in place (the bytes before `start` are moved out of the way), not copied anew.
pub fn deserialize_beside_owned(
    lua: &Lua,
    mut message: Vec<u8>,
    start: usize,
    storages: Vec<Storage>,
    min_bytes: usize,
) -> Result<Value> {
    let start = start.min(message.len());
    if storages.is_empty()
        && let Some(v) = plain::decode(lua, &message[start..])
    {
        return Ok(v);
    }
    message.drain(..start);
    deserialize_owned(lua, message, beside_oob(storages, min_bytes))
}

fn beside_oob(storages: Vec<Storage>, min_bytes: usize) -> OutOfBand {
    OutOfBand {
        min_bytes,
        to_read: storages.into(),
        device_storages: true,
        ..Default::default()
    }
}
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A Lua state with torch loaded (the t7 tests' starting point).
    pub(crate) fn torch_state() -> Lua {
        let lua = crate::runtime::new_state().unwrap();
        lua.load("require 'torch'").exec().unwrap();
        lua
    }

    #[test]
    fn rust_api_round_trips_values() {
        let lua = torch_state();
        let v: Value = lua
            .load("local t = {x = torch.FloatTensor({1, 2}), s = 'str'}; t.me = t; return t")
            .eval()
            .unwrap();
        for mode in [Mode::Binary, Mode::Ascii] {
            let bytes = serialize(&lua, &v, mode).unwrap();
            let back = deserialize(&lua, &bytes, mode).unwrap();
            let check: mlua::Function = lua
                .load("return function(t) return t.me == t and t.s == 'str' and t.x[2] == 2 end")
                .eval()
                .unwrap();
            assert!(check.call::<bool>(back).unwrap(), "{mode:?}");
        }
        // The bytes are torch.serialize's.
        let lua_bytes: mlua::LuaString = lua.load("return torch.serialize({hello = 123})").eval().unwrap();
        let hello = lua.load("return {hello = 123}").eval::<Value>().unwrap();
        assert_eq!(
            serialize(&lua, &hello, Mode::Binary).unwrap(),
            lua_bytes.as_bytes().to_vec()
        );
    }

    #[test]
    fn rust_api_reports_errors() {
        let lua = torch_state();
        let err = deserialize(&lua, &[9, 0, 0, 0], Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("unknown object"), "{err}");
        let err = deserialize(&lua, &[3, 0, 0], Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("read error"), "{err}");
        let co = lua.load("return coroutine.create(print)").eval::<Value>().unwrap();
        let err = serialize(&lua, &co, Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("Unwritable object <thread>"), "{err}");
    }

    #[test]
    fn works_without_the_torch_package() {
        // A state with libtorch but no torch classes: plain values still go through.
        let lua = crate::runtime::new_state().unwrap();
        let v = lua.load("return {1, 'two', {three = true}}").eval::<Value>().unwrap();
        let bytes = serialize(&lua, &v, Mode::Binary).unwrap();
        let back = deserialize(&lua, &bytes, Mode::Binary).unwrap();
        let Value::Table(t) = back else { panic!("not a table") };
        assert_eq!(t.get::<String>(2).unwrap(), "two");
        // A torch object needs its class: without torch.factory it is unknown.
        let obj = [4u8, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, b'V', b' ', b'1', 1, 0, 0, 0, b'X'];
        let err = deserialize(&lua, &obj, Mode::Binary).unwrap_err().to_string();
        assert!(err.contains("unknown Torch class <X>"), "{err}");
    }
}
