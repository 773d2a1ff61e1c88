//! `libcutorch`, the native side of `require 'cutorch'` (the Lua glue, the top layer of `cuda`):
//! the classes' registration and constructors and the hooks that let `.t7` files carry device
//! tensors, here; the device functions (`cutorch.*`) in `device`, `streams` and `ipc`; the
//! tensors' and storages' methods in `methods`, `gather` and `sort`; the maths bound by the host's
//! table of argument forms in `math`; and the primitives that `lua/cutorch/Tensor.lua` builds the
//! rest on in `primitives`; nn's window passes for cunn (`_nn`) in `nn`. Every function here names
//! itself in its errors (`crate::error::Named`); the layers below do not know it.

mod args;
mod device;
mod gather;
mod ipc;
mod math;
mod methods;
mod nn;
mod primitives;
mod sort;
mod streams;

use mlua::{Lua, Result, Table, Value, Variadic};

use super::family::{Cuda, TYPES};
use super::ops;
use super::{ffi, kernels, memory};
use crate::args::{Args, arg, error};
use crate::calls;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::family::Family;
use crate::torch::t7::{self, DeviceClasses};
use crate::torch::{construct, userdata};

fn type_of(name: &Value, method: &str) -> Result<DType> {
    match name {
        Value::String(s) => DType::from_name(&s.to_string_lossy()).filter(|d| TYPES.contains(d)),
        _ => None,
    }
    .ok_or_else(|| error(method, "unknown CUDA element type"))
}

/// The hooks through which `.t7` files carry device tensors (each error named after its step).
fn device_classes() -> DeviceClasses {
    DeviceClasses {
        tensor_typename: |d| TYPES.contains(&d).then(|| ops::tensor_typename(d)),
        storage_typename: |d| TYPES.contains(&d).then(|| ops::storage_typename(d)),
        tensor_of: <Cuda as Family>::tensor_of,
        storage_of: <Cuda as Family>::storage_of,
        push_tensor: <Cuda as Family>::push_tensor,
        push_storage: <Cuda as Family>::push_storage,
        to_host: |s| memory::download(s).map_err(|e| e.context("download")),
        from_host: |s| memory::upload(&s).map_err(|e| e.context("upload")),
        available: super::device::usable,
    }
}

/// The `libcutorch` module table.
pub fn open(lua: &Lua) -> Result<Table> {
    // Referenced so that the linker keeps the exported C functions.
    std::hint::black_box(ffi::exports());
    let m = lua.create_table()?;
    device::install(lua, &m)?;
    streams::install(lua, &m)?;
    ipc::install(lua, &m)?;
    let tensor = lua.create_table()?;
    let storage = lua.create_table()?;
    crate::torch::methods::shape::install::<Cuda>(lua, &tensor)?;
    methods::install(lua, &tensor, &storage, &m)?;
    gather::install(lua, &tensor)?;
    primitives::install(lua, &m)?;
    math::install(lua, &m)?;
    nn::install(lua, &m)?;
    m.set("tensorMethods", tensor)?;
    m.set("storageMethods", storage)?;
    m.set("types", lua.create_sequence_from(TYPES.iter().map(|d| d.name()))?)?;
    calls::add(lua, &m, "register", register)?;
    calls::add(lua, &m, "newTensor", new_tensor)?;
    calls::add(lua, &m, "newStorage", new_storage)?;
    calls::add(lua, &m, "_kernelSource", kernel_source)?;
    calls::add(lua, &m, "_loadFilesOnDevice", load_files_on_device)?;
    Ok(m)
}

/// `register(typename, tensorMeta, storageMeta)`: the metatables of one CUDA type's tensors and
/// storages.
fn register(lua: &Lua, (name, tmeta, smeta): (Value, Table, Table)) -> Result<()> {
    let d = type_of(&name, "register")?;
    userdata::register_types_in::<Cuda>(lua, d, &tmeta, &smeta)
}

/// `newTensor(typename, ...) -> tensor`: `torch.Cuda<Type>Tensor(...)`.
fn new_tensor(lua: &Lua, a: Args) -> Result<Value> {
    let d = type_of(arg(&a, 1), "newTensor")?;
    let method = ops::tensor_typename(d);
    super::device::usable().named(method)?;
    let rest: Args = Variadic::from_iter(a.iter().skip(1).cloned());
    Cuda::push_tensor(lua, construct::new_tensor_in::<Cuda>(d, &rest)?)
}

/// `newStorage(typename, ...) -> storage`: `torch.Cuda<Type>Storage(...)`.
fn new_storage(lua: &Lua, a: Args) -> Result<Value> {
    let d = type_of(arg(&a, 1), "newStorage")?;
    let rest: Args = Variadic::from_iter(a.iter().skip(1).cloned());
    methods::new_storage(lua, d, &rest)
}

/// `_kernelSource() -> text`: the kernels' CUDA source (for tests that build it for a host-side
/// mock driver).
fn kernel_source(_: &Lua, (): ()) -> Result<String> {
    Ok(kernels::source::program())
}

/// `_loadFilesOnDevice()`: called by cutorch once it has loaded (there is a device): from then on
/// .t7 files load their CUDA tensors onto the device. Loading libcutorch alone does not change how
/// files load.
fn load_files_on_device(lua: &Lua, (): ()) -> Result<()> {
    t7::set_device_classes(lua, device_classes());
    Ok(())
}
