//! `cutorch._ipcExport` and `cutorch._ipcImport` (Lua glue): the storage side of CUDA IPC
//! (`cuda::ipc`), for the Lua layers that pass tensors between processes.

use mlua::{Lua, Result, Table, Value, Variadic};

use super::args::{device_arg, num, ret};
use crate::args::{Args, arg, error, int_arg};
use crate::calls;
use crate::cuda::family::{Cuda, TYPES};
use crate::cuda::ipc;
use crate::error::Named;
use crate::torch::base::dtype::DType;
use crate::torch::family::Family;

/// Sets `_ipcExport` and `_ipcImport` in the `cutorch` table `m`: the storage side of CUDA IPC
/// (see `ipc`), for the Lua layers that pass tensors between processes.
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    calls::add(lua, m, "_ipcExport", ipc_export)?;
    calls::add(lua, m, "_ipcImport", ipc_import)
}

/// `cutorch._ipcExport(storage | tensor) -> handle, offset, bytes, device, type`
fn ipc_export(lua: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch._ipcExport";
    let s = match (Cuda::storage_of(arg(&a, 1)), Cuda::tensor_of(arg(&a, 1))) {
        (Some(s), _) => s,
        (None, Some(t)) => t.storage.ok_or_else(|| error(M, "the tensor has no storage"))?,
        _ => return Err(error(M, "bad argument #1 (a CUDA storage or tensor expected)")),
    };
    let e = ipc::export(&s).named(M)?;
    ret([
        Value::String(lua.create_string(e.handle)?),
        num(e.offset as f64),
        num(e.bytes as f64),
        num((e.device + 1) as f64),
        Value::String(lua.create_string(e.dtype.name())?),
    ])
}

/// `cutorch._ipcImport(handle, offset, bytes, device, type) -> storage`
fn ipc_import(lua: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch._ipcImport";
    let handle = match arg(&a, 1) {
        Value::String(s) if s.as_bytes().len() == ipc::HANDLE_BYTES => {
            let mut h = [0u8; ipc::HANDLE_BYTES];
            h.copy_from_slice(&s.as_bytes());
            h
        }
        _ => return Err(error(M, "bad argument #1 (a 64-byte IPC handle string expected)")),
    };
    let count = |pos: usize| -> Result<usize> {
        let v = int_arg(&a, pos, M)?;
        usize::try_from(v).map_err(|_| error(M, format!("bad argument #{pos} (non-negative number expected)")))
    };
    let (offset, bytes) = (count(2)?, count(3)?);
    let device = device_arg(&a, 4, M)?;
    let dtype = match arg(&a, 5) {
        Value::String(s) => DType::from_name(&s.to_string_lossy()).filter(|d| TYPES.contains(d)),
        _ => None,
    }
    .ok_or_else(|| error(M, "bad argument #5 (element type 'Float', 'Double' or 'Long' expected)"))?;
    let s = ipc::import(
        &ipc::Exported {
            handle,
            offset,
            bytes,
            device,
            uuid: [0; 16],
            dtype,
        },
        None,
    )
    .named(M)?;
    ret([Cuda::push_storage(lua, s)?])
}
