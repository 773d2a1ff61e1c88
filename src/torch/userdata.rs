//! Tensors and storages as Lua userdata. Each element type is its own Rust type (`TensorUd<f32>`,
//! ...) so that it gets its own metatable, whose `__index` is a Lua function over that type's class
//! table: methods added from Lua (`torch.FloatTensor.foo = ...`) are seen by every instance.
//!
//! The second type parameter is the tensor family: `Host` here; cutorch's device tensors are the
//! same userdata with its own family, so they get their own metatables and classes, and the host
//! functions below (`classify`, `tensor_of`, ...) never see them.

use std::any::TypeId;
use std::cell::RefCell;
use std::marker::PhantomData;

use mlua::{AnyUserData, Lua, Result, Table, UserDataFields, Value};

use super::base::dtype::{DType, Element};
use super::base::storage::Storage;
use super::base::tensor::Tensor;
use crate::dispatch;

/// The family of the host tensors (`torch.FloatTensor`, ...).
pub struct Host;

/// A tensor handle: the view can change in place (`resize`, `set`, `transpose` on self, ...).
pub struct TensorUd<T: Element, F: 'static = Host> {
    pub view: RefCell<Tensor>,
    // fn() -> F: the family is a marker, it neither owns nor shares anything.
    _t: PhantomData<(T, fn() -> F)>,
}

pub struct StorageUd<T: Element, F: 'static = Host> {
    pub storage: Storage,
    _t: PhantomData<(T, fn() -> F)>,
}

/// Which of our userdata types a Lua value holds.
pub enum Object {
    Tensor(AnyUserData, DType),
    Storage(AnyUserData, DType),
}

fn tensor_dtype_of<F: 'static>(id: TypeId) -> Option<DType> {
    DType::ALL
        .into_iter()
        .find(|&d| dispatch!(d, T => id == TypeId::of::<TensorUd<T, F>>()))
}

fn storage_dtype_of<F: 'static>(id: TypeId) -> Option<DType> {
    DType::ALL
        .into_iter()
        .find(|&d| dispatch!(d, T => id == TypeId::of::<StorageUd<T, F>>()))
}

/// A host tensor or storage.
pub fn classify(value: &Value) -> Option<Object> {
    classify_in::<Host>(value)
}

/// A tensor or storage of family `F`.
pub fn classify_in<F: 'static>(value: &Value) -> Option<Object> {
    let Value::UserData(ud) = value else { return None };
    let id = ud.type_id()?;
    if let Some(d) = tensor_dtype_of::<F>(id) {
        return Some(Object::Tensor(ud.clone(), d));
    }
    storage_dtype_of::<F>(id).map(|d| Object::Storage(ud.clone(), d))
}

/// The view of a tensor userdata (a cheap copy: the storage is shared).
pub fn tensor_of(value: &Value) -> Option<Tensor> {
    tensor_of_in::<Host>(value)
}

pub fn tensor_of_in<F: 'static>(value: &Value) -> Option<Tensor> {
    match classify_in::<F>(value)? {
        Object::Tensor(ud, d) => Some(with_tensor_cell::<_, F>(&ud, d, |c| c.borrow().clone())),
        Object::Storage(..) => None,
    }
}

pub fn storage_of(value: &Value) -> Option<Storage> {
    storage_of_in::<Host>(value)
}

pub fn storage_of_in<F: 'static>(value: &Value) -> Option<Storage> {
    match classify_in::<F>(value)? {
        Object::Storage(ud, d) => Some(dispatch!(d, T => ud.borrow::<StorageUd<T, F>>().ok()?.storage.clone())),
        Object::Tensor(..) => None,
    }
}

/// `f` of the view of a host tensor userdata, without copying it (for calls made millions of
/// times); None for any other value.
pub fn with_tensor<R>(value: &Value, f: impl FnOnce(&Tensor) -> R) -> Option<R> {
    // Not through classify: it takes a new reference to the userdata, which costs more than
    // the small calls this serves.
    let Value::UserData(ud) = value else { return None };
    let d = tensor_dtype_of::<Host>(ud.type_id()?)?;
    Some(with_tensor_cell::<_, Host>(ud, d, |c| f(&c.borrow())))
}

fn with_tensor_cell<R, F: 'static>(ud: &AnyUserData, dtype: DType, f: impl FnOnce(&RefCell<Tensor>) -> R) -> R {
    dispatch!(dtype, T => {
        let r = ud.borrow::<TensorUd<T, F>>().expect("tensor userdata of the classified type");
        f(&r.view)
    })
}

/// Replaces the view held by a tensor userdata (in-place view operations).
pub fn set_view(value: &Value, tensor: Tensor) -> Result<()> {
    set_view_in::<Host>(value, tensor)
}

pub fn set_view_in<F: 'static>(value: &Value, tensor: Tensor) -> Result<()> {
    match classify_in::<F>(value) {
        Some(Object::Tensor(ud, d)) if d == tensor.dtype => {
            with_tensor_cell::<_, F>(&ud, d, |c| *c.borrow_mut() = tensor);
            Ok(())
        }
        _ => Err(mlua::Error::runtime(
            "internal error: set_view on a value that is not a tensor of that type",
        )),
    }
}

/// Lua's collector only sees the small userdata, not the buffers behind them, so a loop that makes
/// big temporary tensors would grow without bound. Like Torch's heap tracking, a full collection
/// runs when the buffers alive have doubled since the last one (and are past a floor).
/// `torch.setheaptracking(false)` turns this off for the Lua state; it starts on, as in Torch.
struct HeapTracking {
    threshold: std::cell::Cell<usize>,
    enabled: std::cell::Cell<bool>,
}

const HEAP_TRACKING_FLOOR: usize = 256 << 20;

fn heap_tracking(lua: &Lua) -> Option<mlua::AppDataRef<'_, HeapTracking>> {
    if lua.app_data_ref::<HeapTracking>().is_none() {
        lua.set_app_data(HeapTracking {
            threshold: std::cell::Cell::new(HEAP_TRACKING_FLOOR),
            enabled: std::cell::Cell::new(true),
        });
    }
    lua.app_data_ref::<HeapTracking>()
}

/// Turns the collections that follow the buffers' growth on or off for this Lua state.
pub fn set_heap_tracking(lua: &Lua, enabled: bool) {
    if let Some(tracking) = heap_tracking(lua) {
        tracking.enabled.set(enabled);
    }
}

fn note_allocation(lua: &Lua) {
    let live = super::base::storage::live_heap_bytes();
    if live < HEAP_TRACKING_FLOOR {
        return;
    }
    let Some(tracking) = heap_tracking(lua) else {
        return;
    };
    if !tracking.enabled.get() || live <= tracking.threshold.get() {
        return;
    }
    // A failed collection (an error in a finalizer) is reported by Lua elsewhere; tracking goes on.
    let _ = lua.gc_collect();
    let after = super::base::storage::live_heap_bytes();
    tracking.threshold.set((after * 2).max(HEAP_TRACKING_FLOOR));
}

pub fn push_tensor(lua: &Lua, tensor: Tensor) -> Result<Value> {
    push_tensor_in::<Host>(lua, tensor)
}

/// The error of a call that ran into the memory limit (`reserve.rs`), named after the function
/// the script called: the innermost one whose caller is not luatorch's own Lua.
fn shortage_error(lua: &Lua) -> mlua::Error {
    let ours = |level: usize| {
        lua.inspect_stack(level, |d| {
            let what = d.source().what;
            let ours = d.source().source.is_some_and(|s| s.starts_with("@[luatorch]/"));
            ours || what == "C"
        })
    };
    let name_at = |level: usize| {
        lua.inspect_stack(level, |d| d.names().name.map(|n| n.into_owned()))
            .flatten()
    };
    let mut level = 0;
    let name = loop {
        match ours(level + 1) {
            Some(true) => level += 1,
            Some(false) => break name_at(level),
            None => break name_at(0),
        }
    };
    let name = name.unwrap_or_else(|| "torch".into());
    mlua::Error::RuntimeError(format!("{name}: {}", crate::reserve::SHORTAGE))
}

pub fn push_tensor_in<F: 'static>(lua: &Lua, tensor: Tensor) -> Result<Value> {
    if crate::reserve::shortage() {
        return Err(shortage_error(lua));
    }
    note_allocation(lua);
    let ud = dispatch!(tensor.dtype, T => lua.create_any_userdata(TensorUd::<T, F> { view: RefCell::new(tensor), _t: PhantomData })?);
    Ok(Value::UserData(ud))
}

pub fn push_storage(lua: &Lua, storage: Storage) -> Result<Value> {
    push_storage_in::<Host>(lua, storage)
}

pub fn push_storage_in<F: 'static>(lua: &Lua, storage: Storage) -> Result<Value> {
    if crate::reserve::shortage() {
        return Err(shortage_error(lua));
    }
    note_allocation(lua);
    let ud = dispatch!(storage.dtype(), T => lua.create_any_userdata(StorageUd::<T, F> { storage, _t: PhantomData })?);
    Ok(Value::UserData(ud))
}

/// Installs the metatables of the tensor and storage userdata of `dtype`: every field of `meta`
/// (`__index`, `__newindex`, `__tostring`, operators, `__typename`, ...) becomes a metatable field.
pub fn register_types(lua: &Lua, dtype: DType, tensor_meta: &Table, storage_meta: &Table) -> Result<()> {
    register_types_in::<Host>(lua, dtype, tensor_meta, storage_meta)
}

pub fn register_types_in<F: 'static>(lua: &Lua, dtype: DType, tensor_meta: &Table, storage_meta: &Table) -> Result<()> {
    fn fields(meta: &Table) -> Result<Vec<(String, Value)>> {
        meta.pairs::<String, Value>().collect()
    }
    let tm = fields(tensor_meta)?;
    let sm = fields(storage_meta)?;
    dispatch!(dtype, T => {
        lua.register_userdata_type::<TensorUd<T, F>>(|reg| {
            for (k, v) in tm {
                reg.add_meta_field(k, v);
            }
        })?;
        lua.register_userdata_type::<StorageUd<T, F>>(|reg| {
            for (k, v) in sm {
                reg.add_meta_field(k, v);
            }
        })?;
    });
    Ok(())
}
