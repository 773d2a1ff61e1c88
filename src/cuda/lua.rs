//! `libcutorch`, the native side of `require 'cutorch'`: the device functions (`cutorch.*`), the
//! classes' registration and constructors, and the hooks that let `.t7` files carry device
//! tensors. `lua/cutorch/init.lua` builds the Lua API on it; the tensor methods are in `methods`.

use std::collections::HashMap;
use std::sync::Mutex;

use mlua::{LightUserData, Lua, Result, Table, Value, Variadic};

use super::device::{self, Device};
use super::family::{Cuda, TYPES};
use super::memory::{self, drv};
use super::{events, ffi, ipc, libs, methods, ops, peer};
use crate::torch::args::{Args, arg, error, int_arg, type_name};
use crate::torch::dtype::DType;
use crate::torch::family::Family;
use crate::torch::methods::random;
use crate::torch::random::Generator;
use crate::torch::t7::{self, DeviceClasses};
use crate::torch::{construct, userdata};

/// A String error as a Lua error.
pub fn lerr(e: String) -> mlua::Error {
    mlua::Error::RuntimeError(e)
}

/// A 1-based device argument at `pos` (the current device when absent), 0-based, checked.
fn device_arg(a: &Args, pos: usize, method: &str) -> Result<usize> {
    device::available(method).map_err(lerr)?;
    if arg(a, pos).is_nil() {
        return Ok(device::current());
    }
    let d = int_arg(a, pos, method)?;
    if d < 1 || d as usize > device::count() {
        return Err(error(
            method,
            format!(
                "device {d} does not exist (devices are numbered 1 to {})",
                device::count()
            ),
        ));
    }
    Ok(d as usize - 1)
}

fn open_device(a: &Args, pos: usize, method: &str) -> Result<std::sync::Arc<Device>> {
    let d = device_arg(a, pos, method)?;
    device::get(d, method).map_err(lerr)
}

/// The random generators of the devices (draws for device tensors are made on the host from the
/// generator of the tensor's device, then copied up).
static GENERATORS: Mutex<Option<HashMap<usize, Generator>>> = Mutex::new(None);

/// Runs `f` on the generator of device `ordinal` (seeded from the system on first use).
pub fn with_generator<R>(ordinal: usize, f: impl FnOnce(&mut Generator) -> R) -> std::result::Result<R, String> {
    let mut guard = GENERATORS
        .lock()
        .map_err(|_| "the device generators are poisoned".to_string())?;
    let map = guard.get_or_insert_with(HashMap::new);
    Ok(f(map.entry(ordinal).or_insert_with(Generator::from_entropy)))
}

fn seed_arg(a: &Args, method: &str) -> Result<u64> {
    let s = int_arg(a, 1, method)?;
    Ok(s as u64)
}

fn properties(lua: &Lua, dev: &Device) -> Result<Table> {
    use cudarc::driver::sys::CUdevice_attribute as A;
    let t = lua.create_table()?;
    let ctx = &dev.ctx;
    let attr = |a: A| libs::guard("cuDeviceGetAttribute", || ctx.attribute(a).map_err(drv)).unwrap_or(0) as f64;
    let name = libs::guard("cuDeviceGetName", || ctx.name().map_err(drv));
    t.set("name", name.map_err(|e| error("cutorch.getDeviceProperties", e))?)?;
    t.set("major", dev.arch.0)?;
    t.set("minor", dev.arch.1)?;
    let (free, total) = dev.memory().unwrap_or((0, 0));
    t.set("totalGlobalMem", total as f64)?;
    t.set("freeGlobalMem", free as f64)?;
    for (name, a) in [
        ("multiProcessorCount", A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        ("clockRate", A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
        ("memoryClockRate", A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
        ("memoryBusWidth", A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
        ("maxThreadsPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        (
            "maxThreadsPerMultiProcessor",
            A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
        ),
        ("warpSize", A::CU_DEVICE_ATTRIBUTE_WARP_SIZE),
        ("sharedMemPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        ("regsPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
        ("l2CacheSize", A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
        ("textureAlignment", A::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT),
        ("deviceOverlap", A::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP),
        ("kernelExecTimeoutEnabled", A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT),
        ("integrated", A::CU_DEVICE_ATTRIBUTE_INTEGRATED),
        ("canMapHostMemory", A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY),
        ("computeMode", A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE),
        ("concurrentKernels", A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS),
        ("ECCEnabled", A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED),
        ("pciBusID", A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
        ("pciDeviceID", A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
        ("unifiedAddressing", A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
    ] {
        t.set(name, attr(a))?;
    }
    Ok(t)
}

fn add(lua: &Lua, m: &Table, name: &str, f: fn(&Lua, Args) -> Result<Variadic<Value>>) -> Result<()> {
    m.set(name, lua.create_function(move |lua, a: Args| f(lua, a))?)
}

fn ret(v: impl IntoIterator<Item = Value>) -> Result<Variadic<Value>> {
    Ok(Variadic::from_iter(v))
}

fn num(v: f64) -> Value {
    Value::Number(v)
}

/// The device functions of the `cutorch` table.
fn install_device_functions(lua: &Lua, m: &Table) -> Result<()> {
    add(lua, m, "getDeviceCount", |_, _| ret([num(device::count() as f64)]))?;
    add(lua, m, "setDevice", |_, a| {
        let d = device_arg(&a, 1, "cutorch.setDevice")?;
        if arg(&a, 1).is_nil() {
            return Err(error("cutorch.setDevice", "bad argument #1 (device number expected)"));
        }
        device::set_current(d, "cutorch.setDevice").map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "getDevice", |_, _| {
        device::available("cutorch.getDevice").map_err(lerr)?;
        ret([num((device::current() + 1) as f64)])
    })?;
    add(lua, m, "getDeviceProperties", |lua, a| {
        if arg(&a, 1).is_nil() {
            return Err(error(
                "cutorch.getDeviceProperties",
                "bad argument #1 (device number expected)",
            ));
        }
        let dev = open_device(&a, 1, "cutorch.getDeviceProperties")?;
        ret([Value::Table(properties(lua, &dev)?)])
    })?;
    add(lua, m, "getMemoryUsage", |_, a| {
        let dev = open_device(&a, 1, "cutorch.getMemoryUsage")?;
        let (free, total) = dev.memory().map_err(|e| error("cutorch.getMemoryUsage", e))?;
        ret([num(free as f64), num(total as f64)])
    })?;
    // Frees what the caching allocator keeps (for another process, or a library that allocates
    // through the driver itself); a luatorch addition, as PyTorch's torch.cuda.empty_cache.
    // cutorch.emptyCache([device]): that device's cache, or every open device's.
    add(lua, m, "emptyCache", |_, a| {
        const M: &str = "cutorch.emptyCache";
        if arg(&a, 1).is_nil() {
            device::available(M).map_err(lerr)?;
            for d in (0..device::count()).filter_map(device::opened) {
                d.empty_cache().map_err(|e| error(M, e))?;
            }
            device::current_device(M).map_err(lerr)?;
        } else {
            open_device(&a, 1, M)?.empty_cache().map_err(|e| error(M, e))?;
        }
        ret([])
    })?;
    // With no device there is nothing to wait for, but a script that synchronizes expects a GPU:
    // like every call that needs one, it raises an error.
    add(lua, m, "synchronize", |_, a| {
        let dev = open_device(&a, 1, "cutorch.synchronize")?;
        dev.synchronize().map_err(|e| error("cutorch.synchronize", e))?;
        ret([])
    })?;
    add(lua, m, "synchronizeAll", |_, _| {
        device::available("cutorch.synchronizeAll").map_err(lerr)?;
        for d in 0..device::count() {
            let dev = device::get(d, "cutorch.synchronizeAll").map_err(lerr)?;
            dev.synchronize().map_err(|e| error("cutorch.synchronizeAll", e))?;
        }
        device::get(device::current(), "cutorch.synchronizeAll").map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "manualSeed", |_, a| {
        let d = device_arg(&a, 2, "cutorch.manualSeed")?;
        let seed = seed_arg(&a, "cutorch.manualSeed")?;
        with_generator(d, |g| g.manual_seed(seed)).map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "manualSeedAll", |_, a| {
        device::available("cutorch.manualSeedAll").map_err(lerr)?;
        let seed = seed_arg(&a, "cutorch.manualSeedAll")?;
        for d in 0..device::count() {
            with_generator(d, |g| g.manual_seed(seed)).map_err(lerr)?;
        }
        ret([])
    })?;
    add(lua, m, "initialSeed", |_, a| {
        let d = device_arg(&a, 1, "cutorch.initialSeed")?;
        ret([num(with_generator(d, |g| g.initial_seed()).map_err(lerr)? as f64)])
    })?;
    add(lua, m, "seed", |_, a| {
        let d = device_arg(&a, 1, "cutorch.seed")?;
        let s = crate::torch::random::urandom_seed().map_err(|e| error("cutorch.seed", e))?;
        with_generator(d, |g| g.manual_seed(s)).map_err(lerr)?;
        ret([num(s as f64)])
    })?;
    add(lua, m, "seedAll", |_, _| {
        device::available("cutorch.seedAll").map_err(lerr)?;
        let s = crate::torch::random::urandom_seed().map_err(|e| error("cutorch.seedAll", e))?;
        for d in 0..device::count() {
            with_generator(d, |g| g.manual_seed(s)).map_err(lerr)?;
        }
        ret([num(s as f64)])
    })?;
    // getRNGState([device]) / setRNGState(state [, device]): the device's generator state, in
    // the host generator's format (the device draws come from such a generator).
    add(lua, m, "getRNGState", |lua, a| {
        const M: &str = "cutorch.getRNGState";
        let d = device_arg(&a, 1, M)?;
        let t = with_generator(d, |g| random::state_tensor(g)).map_err(lerr)??;
        ret([crate::torch::userdata::push_tensor(lua, t)?])
    })?;
    add(lua, m, "setRNGState", |_, a| {
        const M: &str = "cutorch.setRNGState";
        let d = device_arg(&a, 2, M)?;
        let state = random::state_at(&a, 1, M)?;
        with_generator(d, |g| *g = state).map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "getState", |_, _| {
        ret([Value::LightUserData(LightUserData(ffi::state()))])
    })?;
    // requireDevice(name): raises the no-device error naming `name` (for calls made in Lua).
    add(lua, m, "requireDevice", |_, a| {
        let name = match arg(&a, 1) {
            Value::String(s) => s.to_string_lossy(),
            _ => "cutorch".to_string(),
        };
        device::available(&name).map_err(lerr)?;
        ret([])
    })?;
    install_peer_functions(lua, m)?;
    install_stream_functions(lua, m)
}

fn place_method(a: &Args) -> Result<String> {
    match arg(a, 1) {
        Value::String(s) => Ok(s.to_string_lossy()),
        _ => Err(error("cutorch", "internal error: no method name")),
    }
}

/// A (1-based device, stream) pair at `pos`, `pos + 1` as a 0-based `events::Place`.
fn place(a: &Args, pos: usize, method: &str) -> Result<events::Place> {
    let d = device_arg(a, pos, method)?;
    let s = int_arg(a, pos + 1, method)?;
    let s = usize::try_from(s).map_err(|_| error(method, format!("invalid stream {s}")))?;
    Ok((d, s))
}

/// The flat list {device, stream, ...} at `pos`.
fn places(a: &Args, pos: usize, method: &str) -> Result<Vec<events::Place>> {
    let Value::Table(t) = arg(a, pos) else {
        return Err(error(method, "internal error: no list of streams"));
    };
    let flat: Vec<Value> = t.sequence_values().collect::<Result<_>>()?;
    let flat = Args::from_iter(flat);
    (0..flat.len() / 2).map(|i| place(&flat, 2 * i + 1, method)).collect()
}

fn install_peer_functions(lua: &Lua, m: &Table) -> Result<()> {
    fn pair(a: &Args, method: &str) -> Result<(usize, usize)> {
        for pos in [1, 2] {
            if arg(a, pos).is_nil() {
                return Err(error(
                    method,
                    format!("bad argument #{pos} (device number expected, got nil)"),
                ));
            }
        }
        Ok((device_arg(a, 1, method)?, device_arg(a, 2, method)?))
    }
    fn flag(a: &Args, pos: usize, method: &str) -> Result<bool> {
        match arg(a, pos) {
            Value::Boolean(b) => Ok(*b),
            v => Err(error(
                method,
                format!("bad argument #{pos} (boolean expected, got {})", type_name(v)),
            )),
        }
    }
    add(lua, m, "getPeerToPeerAccess", |_, a| {
        const M: &str = "cutorch.getPeerToPeerAccess";
        let (d, p) = pair(&a, M)?;
        ret([Value::Boolean(peer::get(d, p, M).map_err(lerr)?)])
    })?;
    add(lua, m, "setPeerToPeerAccess", |_, a| {
        const M: &str = "cutorch.setPeerToPeerAccess";
        let (d, p) = pair(&a, M)?;
        let on = flag(&a, 3, M)?;
        peer::set(d, p, on, M).map_err(lerr)?;
        device::current_device(M).map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "getKernelPeerToPeerAccess", |_, _| {
        device::available("cutorch.getKernelPeerToPeerAccess").map_err(lerr)?;
        ret([Value::Boolean(peer::kernel_access())])
    })?;
    add(lua, m, "setKernelPeerToPeerAccess", |_, a| {
        const M: &str = "cutorch.setKernelPeerToPeerAccess";
        device::available(M).map_err(lerr)?;
        peer::set_kernel_access(flag(&a, 1, M)?);
        ret([])
    })
}

fn install_stream_functions(lua: &Lua, m: &Table) -> Result<()> {
    add(lua, m, "reserveStreams", |_, a| {
        const M: &str = "cutorch.reserveStreams";
        device::available(M).map_err(lerr)?;
        let n = int_arg(&a, 1, M)?;
        if n < 0 {
            return Err(error(M, format!("invalid number of streams {n}")));
        }
        let non_blocking = match arg(&a, 2) {
            Value::Nil => false,
            Value::Boolean(b) => *b,
            v => {
                return Err(error(
                    M,
                    format!("bad argument #2 (boolean expected, got {})", type_name(v)),
                ));
            }
        };
        for d in 0..device::count() {
            let dev = device::get(d, M).map_err(lerr)?;
            dev.reserve_streams(n as usize, non_blocking).map_err(|e| error(M, e))?;
        }
        device::get(device::current(), M).map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "getNumStreams", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch.getNumStreams")?;
        ret([num(dev.reserved_streams() as f64)])
    })?;
    add(lua, m, "setStream", |_, a| {
        const M: &str = "cutorch.setStream";
        let dev = open_device(&Args::new(), 1, M)?;
        let i = int_arg(&a, 1, M)?;
        if i < 0 || i as usize > dev.reserved_streams() {
            return Err(error(
                M,
                format!(
                    "stream {i} is not reserved on device {} (reserve streams with cutorch.reserveStreams; there are {})",
                    dev.ordinal + 1,
                    dev.reserved_streams()
                ),
            ));
        }
        device::set_current_stream_index(dev.ordinal, i as usize);
        ret([])
    })?;
    add(lua, m, "setDefaultStream", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch.setDefaultStream")?;
        device::set_current_stream_index(dev.ordinal, 0);
        ret([])
    })?;
    add(lua, m, "getStream", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch.getStream")?;
        ret([num(device::current_stream_index(dev.ordinal) as f64)])
    })?;
    add(lua, m, "streamSynchronize", |_, a| {
        const M: &str = "cutorch.streamSynchronize";
        let dev = open_device(&Args::new(), 1, M)?;
        let i = int_arg(&a, 1, M)?;
        let stream = usize::try_from(i)
            .map_err(|_| format!("invalid stream {i}"))
            .and_then(|i| dev.stream(i))
            .map_err(|e| error(M, e))?;
        libs::guard(M, || {
            // SAFETY: a stream of this device (or the default stream), context bound.
            unsafe { cudarc::driver::result::stream::synchronize(stream) }.map_err(drv)
        })
        .map_err(|e| error(M, e))?;
        ret([])
    })?;
    // _streamWait(method, device, stream, places) and _streamBarrier(method, places), places a
    // list {device, stream, device, stream, ...} (devices 1-based), checked by lua/cutorch.
    add(lua, m, "_streamWait", |_, a| {
        let method = place_method(&a)?;
        let waiting = place(&a, 2, &method)?;
        let on = places(&a, 4, &method)?;
        events::wait_for(waiting, &on, &method).map_err(lerr)?;
        device::current_device(&method).map_err(lerr)?;
        ret([])
    })?;
    add(lua, m, "_streamBarrier", |_, a| {
        let method = place_method(&a)?;
        let all = places(&a, 2, &method)?;
        events::barrier(&all, &method).map_err(lerr)?;
        device::current_device(&method).map_err(lerr)?;
        ret([])
    })?;
    // For tests and FFI users: the address of the current stream (0 for the default stream).
    add(lua, m, "_currentStreamAddress", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch._currentStreamAddress")?;
        let s = dev.current_stream().map_err(lerr)?;
        ret([num(s as usize as f64)])
    })
}

/// `cutorch._ipcExport(storage)` and `cutorch._ipcImport(handle, offset, bytes, device, type)`:
/// the storage side of CUDA IPC (see `ipc`), for the Lua layers that pass tensors between
/// processes.
fn install_ipc_functions(lua: &Lua, m: &Table) -> Result<()> {
    add(lua, m, "_ipcExport", |lua, a| {
        const M: &str = "cutorch._ipcExport";
        let s = match (Cuda::storage_of(arg(&a, 1)), Cuda::tensor_of(arg(&a, 1))) {
            (Some(s), _) => s,
            (None, Some(t)) => t.storage.ok_or_else(|| error(M, "the tensor has no storage"))?,
            _ => return Err(error(M, "bad argument #1 (a CUDA storage or tensor expected)")),
        };
        let e = ipc::export_ipc(&s).map_err(|e| error(M, e))?;
        ret([
            Value::String(lua.create_string(e.handle)?),
            num(e.offset as f64),
            num(e.bytes as f64),
            num((e.device + 1) as f64),
            Value::String(lua.create_string(e.dtype.name())?),
        ])
    })?;
    add(lua, m, "_ipcImport", |lua, a| {
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
        let s = ipc::import_ipc(
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
        .map_err(|e| error(M, e))?;
        ret([Cuda::push_storage(lua, s)?])
    })
}

fn type_of(name: &Value, method: &str) -> Result<DType> {
    match name {
        Value::String(s) => DType::from_name(&s.to_string_lossy()).filter(|d| TYPES.contains(d)),
        _ => None,
    }
    .ok_or_else(|| error(method, "unknown CUDA element type"))
}

/// The hooks through which `.t7` files carry device tensors.
fn device_classes() -> DeviceClasses {
    DeviceClasses {
        tensor_typename: |d| TYPES.contains(&d).then(|| ops::tensor_typename(d)),
        storage_typename: |d| TYPES.contains(&d).then(|| ops::storage_typename(d)),
        tensor_of: <Cuda as Family>::tensor_of,
        storage_of: <Cuda as Family>::storage_of,
        push_tensor: <Cuda as Family>::push_tensor,
        push_storage: <Cuda as Family>::push_storage,
        to_host: memory::to_host,
        from_host: |s| memory::from_host(&s),
        available: device::usable,
    }
}

/// The `libcutorch` module table.
pub fn open(lua: &Lua) -> Result<Table> {
    // Referenced so that the linker keeps the exported C functions.
    std::hint::black_box(ffi::exports());
    let m = lua.create_table()?;
    install_device_functions(lua, &m)?;
    install_ipc_functions(lua, &m)?;
    let tensor = lua.create_table()?;
    let storage = lua.create_table()?;
    crate::torch::methods::shape::install::<Cuda>(lua, &tensor)?;
    methods::install(lua, &tensor, &storage, &m)?;
    m.set("tensorMethods", tensor)?;
    m.set("storageMethods", storage)?;
    m.set("types", lua.create_sequence_from(TYPES.iter().map(|d| d.name()))?)?;
    m.set(
        "register",
        lua.create_function(|lua, (name, tmeta, smeta): (Value, Table, Table)| {
            let d = type_of(&name, "register")?;
            userdata::register_types_in::<Cuda>(lua, d, &tmeta, &smeta)
        })?,
    )?;
    m.set(
        "newTensor",
        lua.create_function(|lua, a: Args| {
            let d = type_of(arg(&a, 1), "newTensor")?;
            let method = ops::tensor_typename(d);
            device::available(method).map_err(lerr)?;
            let rest: Args = Variadic::from_iter(a.iter().skip(1).cloned());
            Cuda::push_tensor(lua, construct::new_tensor_in::<Cuda>(d, &rest)?)
        })?,
    )?;
    m.set(
        "newStorage",
        lua.create_function(|lua, a: Args| {
            let d = type_of(arg(&a, 1), "newStorage")?;
            let rest: Args = Variadic::from_iter(a.iter().skip(1).cloned());
            methods::new_storage(lua, d, &rest)
        })?,
    )?;
    // The kernels' CUDA source (for tests that build it for a host-side mock driver).
    m.set(
        "_kernelSource",
        lua.create_function(|_, ()| Ok(super::kernels::source::program()))?,
    )?;
    t7::set_device_classes(lua, device_classes());
    Ok(m)
}
