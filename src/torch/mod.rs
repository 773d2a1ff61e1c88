//! The `torch` package's native side (`libtorch`): tensors and storages of the seven Torch types
//! as userdata, their methods, and Torch7's print format. `lua/torch/init.lua` builds the Lua API
//! (class tables, `torch.class`, the `torch.*` functions) on top.

pub mod base;
pub mod construct;
pub mod family;
pub mod file;
pub mod forms;
pub mod kernels;
pub mod lua_list;
pub mod methods;
pub mod t7;
pub mod tensor_args;
pub mod timer;
pub mod userdata;

use mlua::{Lua, Result, Table, Value};

use crate::args::{Args, arg, error};
use crate::calls;
use base::dtype::DType;
use userdata::{Object, classify, push_tensor, storage_of, tensor_of};

fn dtype_arg(a: &Args, pos: usize, method: &str) -> Result<DType> {
    let v = arg(a, pos);
    let name = match v {
        Value::String(s) => s.to_string_lossy(),
        _ => return Err(error(method, "expected a type name")),
    };
    DType::from_name(&name).ok_or_else(|| error(method, format!("unknown type {name}")))
}

/// The `libtorch` module table.
pub fn open(lua: &Lua) -> Result<Table> {
    let m = lua.create_table()?;
    let tensor_methods = lua.create_table()?;
    let storage_methods = lua.create_table()?;
    let internal = lua.create_table()?;
    let functions = lua.create_table()?;
    methods::install(lua, &tensor_methods, &storage_methods, &internal, &functions)?;
    for pair in internal.pairs::<String, Value>() {
        let (k, v) = pair?;
        m.set(k, v)?;
    }
    m.set("torchFunctions", functions)?;
    m.set("tensorMethods", tensor_methods)?;
    m.set("storageMethods", storage_methods)?;
    m.set("types", lua.create_sequence_from(DType::ALL.iter().map(|d| d.name()))?)?;
    m.set("file", file::open(lua)?)?;

    calls::add(lua, &m, "storageSame", storage_same)?;
    calls::add(lua, &m, "register", register)?;
    calls::add(lua, &m, "newTensor", new_tensor)?;
    calls::add(lua, &m, "newStorage", new_storage)?;
    calls::add(lua, &m, "tostring", tostring)?;
    calls::add(lua, &m, "classify", classify_value)?;
    calls::add(lua, &m, "pointer", pointer)?;
    calls::add(lua, &m, "dataAddress", data_address)?;
    calls::add(lua, &m, "userdataAddress", userdata_address)?;
    calls::add(lua, &m, "setHeapTracking", set_heap_tracking)?;
    timer::install(lua, &m)?;
    Ok(m)
}

/// `storageSame(s1, s2) -> bool`: `s1 == s2` of two storage userdata, the same memory (each
/// `t:storage()` is a new userdata over it, and Torch7 scripts compare them, as nn's
/// getParameters tests do).
fn storage_same(_: &Lua, (a, b): (Value, Value)) -> Result<bool> {
    Ok(matches!((storage_of(&a), storage_of(&b)), (Some(x), Some(y)) if x.same(&y)))
}

/// `register(name, tensorMeta, storageMeta)`: the metatables of one type's tensors and storages.
fn register(lua: &Lua, (name, tmeta, smeta): (String, Table, Table)) -> Result<()> {
    let d = DType::from_name(&name).ok_or_else(|| error("register", format!("unknown type {name}")))?;
    userdata::register_types(lua, d, &tmeta, &smeta)
}

/// `newTensor(typename, ...) -> tensor`: `torch.<Type>Tensor(...)`.
fn new_tensor(lua: &Lua, a: Args) -> Result<Value> {
    let d = dtype_arg(&a, 1, "torch.Tensor")?;
    let rest: Args = mlua::Variadic::from_iter(a.iter().skip(1).cloned());
    push_tensor(lua, construct::new_tensor(d, &rest)?)
}

/// `newStorage(typename, ...) -> storage`: `torch.<Type>Storage(...)`.
fn new_storage(lua: &Lua, a: Args) -> Result<Value> {
    let d = dtype_arg(&a, 1, "torch.Storage")?;
    let rest: Args = mlua::Variadic::from_iter(a.iter().skip(1).cloned());
    construct::new_storage(lua, d, &rest)
}

/// `tostring(x) -> text`: a tensor or storage in Torch7's print format.
fn tostring(_: &Lua, v: Value) -> Result<String> {
    if let Some(t) = tensor_of(&v) {
        return Ok(base::print::tensor_to_string(&t));
    }
    match storage_of(&v) {
        Some(s) => Ok(base::print::storage_to_string(&s)),
        None => Err(error("tostring", "expected a tensor or a storage")),
    }
}

/// `classify(x) -> kind, typename`: ('tensor'|'storage', 'Float') of a tensor or storage, nil
/// otherwise.
fn classify_value(_: &Lua, v: Value) -> Result<(Option<&'static str>, Option<&'static str>)> {
    Ok(match classify(&v) {
        Some(Object::Tensor(_, d)) => (Some("tensor"), Some(d.name())),
        Some(Object::Storage(_, d)) => (Some("storage"), Some(d.name())),
        None => (None, None),
    })
}

/// `pointer(x) -> number`: the identity used by torch.pointer and serialization: the storage for
/// storages (host ones, and device ones once cutorch has registered them: each access makes a new
/// userdata, so the userdata's address would differ every time), the userdata for tensors.
fn pointer(lua: &Lua, v: Value) -> Result<Option<f64>> {
    let device_storage = || t7::device_classes(lua).and_then(|c| (c.storage_of)(&v));
    Ok(match &v {
        _ if storage_of(&v).is_some() => storage_of(&v).map(|s| s.id() as f64),
        Value::UserData(_) if device_storage().is_some() => device_storage().map(|s| s.id() as f64),
        Value::UserData(ud) => Some(ud.to_pointer() as usize as f64),
        Value::Table(t) => Some(t.to_pointer() as usize as f64),
        Value::Function(f) => Some(f.to_pointer() as usize as f64),
        Value::Thread(t) => Some(t.to_pointer() as usize as f64),
        Value::Nil | Value::Boolean(_) | Value::Integer(_) | Value::Number(_) | Value::String(_) => {
            return Err(mlua::Error::runtime(format!(
                "torch.pointer: Torch object, table, thread, cdata or function expected, got {}",
                // Lua's name: mlua calls an integral number "integer".
                if matches!(v, Value::Integer(_)) {
                    "number"
                } else {
                    v.type_name()
                }
            )));
        }
        // cdata and light userdata: their address.
        other => Some(other.to_pointer() as usize as f64),
    })
}

/// `dataAddress(x) -> lightuserdata`: the address of a tensor's first element, or of a storage's
/// data (NULL without memory): `t:data()` casts it to an FFI pointer of the element type.
fn data_address(_: &Lua, v: Value) -> Result<mlua::LightUserData> {
    let addr = match (tensor_of(&v), storage_of(&v)) {
        (Some(t), _) => t.storage.as_ref().map_or(std::ptr::null_mut(), |s| {
            s.data_ptr().wrapping_add(t.offset * t.dtype.size_of())
        }),
        (None, Some(s)) => s.data_ptr(),
        _ => return Err(error("data", "expected a tensor or a storage")),
    };
    Ok(mlua::LightUserData(addr.cast()))
}

/// `userdataAddress(ud) -> lightuserdata`
fn userdata_address(_: &Lua, v: mlua::AnyUserData) -> Result<mlua::LightUserData> {
    Ok(mlua::LightUserData(v.to_pointer().cast_mut()))
}

/// `setHeapTracking(enabled)`: torch.setheaptracking's native half: whether growing buffers
/// trigger collections.
fn set_heap_tracking(lua: &Lua, enabled: bool) -> Result<()> {
    userdata::set_heap_tracking(lua, enabled);
    Ok(())
}
