//! The Lua File object around a File's state: a table of one of the torch.File classes holding a
//! `FileHandle` userdata under `__handle`. Class read/write methods receive one, and Rust code that
//! serializes without a File (ipc, parallel) makes one on demand.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, Result, Value};

use super::codec::FileCore;

/// The Rust half of a File object.
pub struct FileHandle(pub Rc<RefCell<FileCore>>);

impl mlua::UserData for FileHandle {}

/// The field of a File object that holds its `FileHandle`.
pub const HANDLE: &str = "__handle";

/// A File object of class `class` around `core`. Without the torch classes loaded it is a bare
/// table.
pub fn file_object(lua: &Lua, core: Rc<RefCell<FileCore>>, class: &str) -> Result<Value> {
    let t = lua.create_table()?;
    t.raw_set(HANDLE, lua.create_userdata(FileHandle(core))?)?;
    if let Ok(Value::Table(torch)) = lua.globals().get::<Value>("torch")
        && let Ok(Value::Function(getmt)) = torch.get::<Value>("getmetatable")
        && let Ok(Value::Table(class)) = getmt.call::<Value>(class)
    {
        t.set_metatable(Some(class))?;
    }
    Ok(Value::Table(t))
}

/// The state of the File object `v`, if it is one.
pub fn core_of(v: &Value) -> Option<Rc<RefCell<FileCore>>> {
    let Value::Table(t) = v else { return None };
    let Ok(Value::UserData(ud)) = t.raw_get::<Value>(HANDLE) else {
        return None;
    };
    ud.borrow::<FileHandle>().ok().map(|h| h.0.clone())
}
