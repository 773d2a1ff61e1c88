//! Values packed for another Lua state of this process (a queue's items, a map's arguments and
//! results, a shared table's entries): the `.t7` walker, with every storage and every ipc handle
//! carried beside the bytes by reference. So Lua values are copied, tensors, storages,
//! queues, channels, mutexes and tds containers are shared (tds's copied under
//! threads.serialize), torch classes keep their class by name, and closures
//! are refused unless their upvalues are asked for (`writeup`, `marshal(x, true)`).
//!
//! nil, booleans, numbers and strings, the usual items of queues and channels, skip the walker:
//! they are kept as they are. So does a host tensor on its own (a scheduler's or a map's task
//! data): its view is kept and its storage shared, as the walker would, without the `.t7` bytes
//! and the size and stride storages that reading them back makes.

use std::sync::{Arc, OnceLock};

use mlua::{AnyUserData, Lua, Result, Table, Value, ffi};

use crate::torch::base::storage::Storage;
use crate::torch::base::tensor::Tensor;
use crate::torch::lua_list;
use crate::torch::t7::{self, codec};
use crate::torch::userdata::{push_tensor, tensor_of};

/// A value that needs no packing (the fast methods' items).
pub enum Plain<'a> {
    Nil,
    Boolean(bool),
    Number(f64),
    String(&'a [u8]),
}

/// One packed value; any thread may unpack it, any number of times.
pub struct Packed(Body);

const _: () = assert!(std::mem::size_of::<Packed>() == 16);

enum Body {
    Nil,
    Boolean(bool),
    Integer(i64),
    Number(f64),
    /// Boxed twice to keep a packed value at 16 bytes: queues hand items between cores a cache line
    /// at a time, so four per line rather than two or three.
    String(Box<Box<[u8]>>),
    /// A host tensor's view; its storage is shared.
    Tensor(Box<Tensor>),
    T7(Box<Walked>),
}

/// A value through the `.t7` walker: its bytes, and what travels beside them by reference.
struct Walked {
    t7: Vec<u8>,
    storages: Vec<Storage>,
    handles: Vec<Arc<dyn codec::Handle>>,
}

impl Packed {
    pub fn pack(lua: &Lua, value: &Value, upvalues: bool) -> Result<Packed> {
        let body = match value {
            Value::Nil => Body::Nil,
            Value::Boolean(b) => Body::Boolean(*b),
            Value::Integer(i) => Body::Integer(*i),
            Value::Number(n) => Body::Number(*n),
            Value::String(s) => Body::String(Box::new(s.as_bytes().as_ref().into())),
            Value::UserData(_) => match tensor_of(value) {
                Some(t) => Body::Tensor(Box::new(t)),
                None => Body::T7(Box::new(pack_t7(lua, value, upvalues)?)),
            },
            _ => Body::T7(Box::new(pack_t7(lua, value, upvalues)?)),
        };
        Ok(Packed(body))
    }

    /// As `pack`, but with copies of the host storages the value refers to: torch/threads' default
    /// serialization, under which a job's tensors are its own. Device storages are still shared.
    pub fn pack_copied(lua: &Lua, value: &Value, upvalues: bool) -> Result<Packed> {
        let mut packed = Packed::pack(lua, value, upvalues)?;
        match &mut packed.0 {
            Body::T7(walked) => {
                for s in walked.storages.iter_mut().filter(|s| !s.is_device()) {
                    *s = s.duplicate().map_err(mlua::Error::runtime)?;
                }
                for h in walked.handles.iter_mut() {
                    if let Some(copy) = h.duplicate() {
                        *h = copy.map_err(mlua::Error::runtime)?;
                    }
                }
            }
            Body::Tensor(t) => {
                if let Some(s) = t.storage.as_mut().filter(|s| !s.is_device()) {
                    *s = s.duplicate().map_err(mlua::Error::runtime)?;
                }
            }
            _ => {}
        }
        Ok(packed)
    }

    pub fn unpack(&self, lua: &Lua) -> Result<Value> {
        Ok(match &self.0 {
            Body::Nil => Value::Nil,
            Body::Boolean(b) => Value::Boolean(*b),
            Body::Integer(i) => Value::Integer(*i),
            Body::Number(n) => Value::Number(*n),
            Body::String(s) => Value::String(lua.create_string(&**s)?),
            Body::Tensor(t) => push_tensor(lua, (**t).clone())?,
            Body::T7(p) => unpack_t7(lua, p)?,
        })
    }

    /// A plain value, packed.
    pub fn plain(value: Plain<'_>) -> Packed {
        Packed(match value {
            Plain::Nil => Body::Nil,
            Plain::Boolean(b) => Body::Boolean(b),
            Plain::Number(n) => Body::Number(n),
            Plain::String(s) => Body::String(Box::new(s.into())),
        })
    }

    /// The value when it is a plain one.
    pub fn as_plain(&self) -> Option<Plain<'_>> {
        Some(match &self.0 {
            Body::Nil => Plain::Nil,
            Body::Boolean(b) => Plain::Boolean(*b),
            Body::Integer(i) => Plain::Number(*i as f64),
            Body::Number(n) => Plain::Number(*n),
            Body::String(s) => Plain::String(s),
            Body::Tensor(_) | Body::T7(_) => return None,
        })
    }

    /// Bytes this value holds apart from shared storages.
    pub fn size(&self) -> usize {
        match &self.0 {
            Body::Nil | Body::Boolean(_) => 1,
            Body::Integer(_) | Body::Number(_) => 8,
            Body::String(s) => s.len() + 8,
            Body::Tensor(t) => 16 * (t.dim() + 2),
            Body::T7(p) => p.t7.len(),
        }
    }
}

fn pack_t7(lua: &Lua, value: &Value, upvalues: bool) -> Result<Walked> {
    let oob = codec::OutOfBand {
        min_bytes: 0,
        handles: Some(codec::Handles {
            of: handle_of,
            written: Vec::new(),
            to_read: Default::default(),
        }),
        refuse_upvalues: !upvalues,
        device_storages: true,
        ..Default::default()
    };
    let (bytes, oob) = t7::serialize_with(lua, value, oob)?;
    Ok(Walked {
        t7: bytes,
        storages: oob.written,
        handles: oob.handles.map(|h| h.written).unwrap_or_default(),
    })
}

fn unpack_t7(lua: &Lua, p: &Walked) -> Result<Value> {
    let oob = codec::OutOfBand {
        min_bytes: 0,
        to_read: p.storages.iter().cloned().collect(),
        handles: Some(codec::Handles {
            of: handle_of,
            written: Vec::new(),
            to_read: p.handles.iter().cloned().collect(),
        }),
        device_storages: true,
        ..Default::default()
    };
    t7::deserialize_with(lua, &p.t7, oob)
}

/// The kinds of ipc handle that travel by reference, as `ipc::open` names them: the modules that
/// define them pack values themselves, so this one cannot name them.
static BY_REFERENCE: OnceLock<&'static [codec::HandleOf]> = OnceLock::new();

/// Makes the handles that `kinds` recognise travel by reference (every process has one list).
pub fn share_by_reference(kinds: &'static [codec::HandleOf]) {
    let _ = BY_REFERENCE.set(kinds);
}

fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn codec::Handle>> {
    BY_REFERENCE.get()?.iter().find_map(|of| of(ud))
}

/// Packs several values (a call's arguments or results).
pub fn pack_all(lua: &Lua, values: impl IntoIterator<Item = Value>, upvalues: bool) -> Result<Vec<Packed>> {
    values.into_iter().map(|v| Packed::pack(lua, &v, upvalues)).collect()
}

pub fn unpack_all(lua: &Lua, packed: &[Packed]) -> Result<mlua::MultiValue> {
    packed.iter().map(|m| m.unpack(lua)).collect()
}

/// Packs the list items `t[from] .. t[from + n - 1]` (a chunk of task data) onto the end of `out`:
/// plain values are read straight off the table, without a `Value` each; anything else goes
/// through `pack_other`.
pub fn pack_range(
    t: &Table,
    from: i64,
    n: usize,
    out: &mut Vec<Packed>,
    mut pack_other: impl FnMut(&Value) -> Result<Packed>,
) -> Result<()> {
    out.reserve(n);
    let base = out.len();
    let mut others: Vec<usize> = Vec::new();
    // SAFETY: the callback only reads the value it is given (a string's bytes are read, never
    // converted).
    unsafe {
        lua_list::each(t, from, n, |state, index, ty| {
            let body = match ty {
                ffi::LUA_TNIL => Body::Nil,
                ffi::LUA_TBOOLEAN => Body::Boolean(ffi::lua_toboolean(state, index) != 0),
                ffi::LUA_TNUMBER => Body::Number(ffi::lua_tonumber(state, index)),
                ffi::LUA_TSTRING => {
                    let mut len = 0usize;
                    let p = ffi::lua_tolstring(state, index, &mut len);
                    let bytes: Box<[u8]> = std::slice::from_raw_parts(p as *const u8, len).into();
                    Body::String(Box::new(bytes))
                }
                _ => {
                    others.push(out.len() - base);
                    Body::Nil
                }
            };
            out.push(Packed(body));
            true
        })?;
    }
    for i in others {
        out[base + i] = pack_other(&t.raw_get::<Value>(from + i as i64)?)?;
    }
    Ok(())
}

/// A new list of the values `packed` holds, in order (nils leave holes): plain values are pushed
/// straight into it, the others unpacked one by one.
pub fn unpack_to_table(lua: &Lua, packed: &[Packed]) -> Result<Table> {
    let n = packed.len();
    if n >= i32::MAX as usize {
        return Err(mlua::Error::runtime(format!(
            "a list of {n} values is too long for Lua"
        )));
    }
    // SAFETY: the only value left on the stack is the new table, the raw call's result; a memory
    // error while filling it is raised by Lua through the protected call, with nothing of Rust's
    // to drop in between.
    let t: Table = unsafe {
        lua.exec_raw((), |state| {
            ffi::lua_createtable(state, n as i32, 0);
            for (i, p) in packed.iter().enumerate() {
                match &p.0 {
                    Body::Nil | Body::Tensor(_) | Body::T7(_) => continue,
                    Body::Boolean(b) => ffi::lua_pushboolean(state, *b as i32),
                    Body::Integer(v) => ffi::lua_pushnumber(state, *v as f64),
                    Body::Number(v) => ffi::lua_pushnumber(state, *v),
                    Body::String(s) => {
                        ffi::lua_pushlstring(state, s.as_ptr() as *const _, s.len());
                    }
                }
                ffi::lua_rawseti_(state, -2, i as i32 + 1);
            }
        })?
    };
    for (i, p) in packed.iter().enumerate() {
        if matches!(p.0, Body::Tensor(_) | Body::T7(_)) {
            t.raw_set(i + 1, p.unpack(lua)?)?;
        }
    }
    Ok(t)
}
