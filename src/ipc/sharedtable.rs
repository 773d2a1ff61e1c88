//! `ipc.sharedtable`: a table every thread reads and writes through its handle. Each get and set
//! is atomic and copies the value (so `st.k.sub = 2` does not persist); tensors and nested
//! sharedtables inside are shared by reference, as everywhere in ipc.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mlua::{AnyUserData, Lua, MetaMethod, MultiValue, Result, Table, UserData, UserDataMethods, Value};

use super::args::{fail, opt_bool, opt_number};
use super::handle::{HandleUd, Object, new_handle, share};
use super::packed::Packed;
use crate::args::error;
use crate::calls;
use crate::error::Named;
use crate::torch::t7::codec::Handle;

/// A key as Lua compares it (numbers by value, strings by bytes).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Bool(bool),
    Num(u64),
    Str(Vec<u8>),
}

impl Key {
    fn of(v: &Value, method: &str) -> Result<Key> {
        Ok(match v {
            Value::Boolean(b) => Key::Bool(*b),
            Value::Integer(i) => Key::Num((*i as f64).to_bits()),
            Value::Number(n) if n.is_nan() => return Err(error(method, "table index is NaN")),
            // +0 and -0 are one key.
            Value::Number(n) => Key::Num(if *n == 0.0 { 0f64.to_bits() } else { n.to_bits() }),
            Value::String(s) => Key::Str(s.as_bytes().to_vec()),
            other => {
                return Err(error(
                    method,
                    format!("keys must be numbers, strings or booleans, not {}", other.type_name()),
                ));
            }
        })
    }

    fn value(&self, lua: &Lua) -> Result<Value> {
        Ok(match self {
            Key::Bool(b) => Value::Boolean(*b),
            Key::Num(bits) => Value::Number(f64::from_bits(*bits)),
            Key::Str(s) => Value::String(lua.create_string(s)?),
        })
    }
}

#[derive(Default)]
pub struct SharedTable {
    entries: Mutex<HashMap<Key, Packed>>,
}

type Ud = HandleUd<SharedTable>;

impl Object for SharedTable {}
const WHAT: &str = "sharedtable";

impl SharedTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Packed>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, lua: &Lua, k: &Value, v: &Value, method: &str) -> Result<()> {
        let key = Key::of(k, method)?;
        if v.is_nil() {
            self.lock().remove(&key);
            return Ok(());
        }
        let msg = Packed::pack(lua, v, false).map_err(|e| fail(method, e))?;
        self.lock().insert(key, msg);
        Ok(())
    }
}

impl UserData for Ud {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_meta_method(MetaMethod::Index, |lua, ud, k: Value| {
            const M: &str = "ipc.sharedtable";
            let st = ud.get(WHAT).named(M)?;
            let key = Key::of(&k, M)?;
            // Unpacked outside the lock: unpacking may run Lua code.
            let found = st.lock().get(&key).map(|m| m.unpack(lua));
            found.unwrap_or(Ok(Value::Nil))
        });
        m.add_meta_method(MetaMethod::NewIndex, |lua, ud, (k, v): (Value, Value)| {
            const M: &str = "ipc.sharedtable";
            ud.get(WHAT).named(M)?.set(lua, &k, &v, M)
        });
        m.add_meta_method(MetaMethod::Len, |_, ud, ()| {
            Ok(ud.get(WHAT).named("ipc.sharedtable")?.lock().len())
        });
        m.add_meta_method("__pairs", |lua, ud, ()| {
            // A snapshot: each key and value copied as they were when the loop started.
            let st = ud.get(WHAT).named("ipc.sharedtable")?;
            let snapshot = lua.create_table()?;
            let keys: Vec<Key> = st.lock().keys().cloned().collect();
            for key in keys {
                let value = st.lock().get(&key).map(|m| m.unpack(lua)).transpose()?;
                if let Some(v) = value {
                    snapshot.raw_set(key.value(lua)?, v)?;
                }
            }
            let next: mlua::Function = lua.globals().get("next")?;
            Ok((next, snapshot, Value::Nil))
        });
        // In the metatable only: every index of the handle reaches the data (`st.retain` is a key).
        m.add_meta_method("retain", |_, _, ()| Ok(()));
        m.add_meta_method("metatablename", |_, _, ()| Ok("ipc.sharedtable"));
    }
}

pub fn handle_of(ud: &AnyUserData) -> Option<Arc<dyn Handle>> {
    share::<SharedTable>(ud)
}

pub fn register(lua: &Lua, ipc: &Table) -> Result<()> {
    calls::add(lua, ipc, "sharedtable", sharedtable)?;
    calls::add(lua, ipc, "sharedtable_size", sharedtable_size)
}

/// `ipc.sharedtable([init], [move], [requires], [size], [sizeIncrement]) -> sharedtable`
fn sharedtable(lua: &Lua, args: MultiValue) -> Result<AnyUserData> {
    const M: &str = "ipc.sharedtable";
    let init = args.front().cloned().unwrap_or(Value::Nil);
    let moved = opt_bool(&args, 1, M, false)?;
    // Values are unpacked in the state that reads them, so there is no private state to
    // prepare: `requires` is accepted for torch-ipc's signature (and checked), as are the sizes.
    if !matches!(args.get(2), None | Some(Value::Nil) | Some(Value::String(_))) {
        return Err(error(
            M,
            format!(
                "bad argument #3 (a string of code or nil expected, got {})",
                crate::args::type_name(&args[2])
            ),
        ));
    }
    for i in 3..5 {
        opt_number(&args, i, M)?;
    }
    let st = Arc::new(SharedTable::default());
    match init {
        Value::Nil => {}
        Value::Table(t) => {
            let pairs: Vec<(Value, Value)> = t.pairs::<Value, Value>().collect::<Result<_>>()?;
            for (k, v) in pairs {
                st.set(lua, &k, &v, M)?;
                if moved {
                    t.raw_set(k, Value::Nil)?;
                }
            }
        }
        _ => return Err(error(M, "sharedtable arg #1 expected to be a table or nil")),
    }
    new_handle(lua, st)
}

/// `ipc.sharedtable_size(st) -> kib`: about how much memory its entries take, in KiB.
fn sharedtable_size(_: &Lua, v: Value) -> Result<f64> {
    const M: &str = "ipc.sharedtable_size";
    let h = match &v {
        Value::UserData(ud) => ud.borrow::<Ud>().ok(),
        _ => None,
    };
    let h = h.ok_or_else(|| {
        error(
            M,
            format!(
                "bad argument #1 (ipc.sharedtable expected, got {})",
                crate::args::type_name(&v)
            ),
        )
    })?;
    let st = h.get(WHAT).named(M)?;
    let bytes: usize = st
        .lock()
        .iter()
        .map(|(k, m)| m.size() + 16 + matches!(k, Key::Str(_)) as usize * 16)
        .sum();
    Ok(bytes as f64 / 1024.0)
}
