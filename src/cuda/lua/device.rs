//! The device functions of `cutorch` (Lua glue): devices and their properties and memory, waiting
//! for them, the devices' random generators, and cutorch's state for FFI callers.

use mlua::{LightUserData, Lua, Result, Table, Value, Variadic};

use super::args::{device_arg, num, open_device, ret};
use crate::args::{Args, arg, error, int_arg};
use crate::calls;
use crate::cuda::device::{self, Device};
use crate::cuda::driver::{self, guard};
use crate::cuda::ffi;
use crate::cuda::generators::with_generator;
use crate::error::Named;
use crate::torch::methods::random;

fn seed_arg(a: &Args, method: &str) -> Result<u64> {
    let s = int_arg(a, 1, method)?;
    Ok(s as u64)
}

fn properties(lua: &Lua, dev: &Device) -> Result<Table> {
    use cudarc::driver::sys::CUdevice_attribute as A;
    let t = lua.create_table()?;
    let ctx = &dev.ctx;
    let attr = |a: A| guard("cuDeviceGetAttribute", || ctx.attribute(a).map_err(driver::error)).unwrap_or(0) as f64;
    let name = guard("cuDeviceGetName", || ctx.name().map_err(driver::error));
    t.set("name", name.named("cutorch.getDeviceProperties")?)?;
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

/// Sets the device functions in the `cutorch` table `m`.
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    calls::add(lua, m, "getDeviceCount", get_device_count)?;
    calls::add(lua, m, "setDevice", set_device)?;
    calls::add(lua, m, "getDevice", get_device)?;
    calls::add(lua, m, "getDeviceProperties", get_device_properties)?;
    calls::add(lua, m, "getMemoryUsage", get_memory_usage)?;
    calls::add(lua, m, "emptyCache", empty_cache)?;
    calls::add(lua, m, "synchronize", synchronize)?;
    calls::add(lua, m, "synchronizeAll", synchronize_all)?;
    calls::add(lua, m, "manualSeed", manual_seed)?;
    calls::add(lua, m, "manualSeedAll", manual_seed_all)?;
    calls::add(lua, m, "initialSeed", initial_seed)?;
    calls::add(lua, m, "seed", seed)?;
    calls::add(lua, m, "seedAll", seed_all)?;
    calls::add(lua, m, "getRNGState", get_rng_state)?;
    calls::add(lua, m, "setRNGState", set_rng_state)?;
    calls::add(lua, m, "getState", get_state)?;
    calls::add(lua, m, "requireDevice", require_device)
}

/// `cutorch.getDeviceCount() -> n`
fn get_device_count(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    ret([num(device::count() as f64)])
}

/// `cutorch.setDevice(device)`
fn set_device(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let d = device_arg(&a, 1, "cutorch.setDevice")?;
    if arg(&a, 1).is_nil() {
        return Err(error("cutorch.setDevice", "bad argument #1 (device number expected)"));
    }
    device::set_current(d).named("cutorch.setDevice")?;
    ret([])
}

/// `cutorch.getDevice() -> device`
fn get_device(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    device::usable().named("cutorch.getDevice")?;
    ret([num((device::current() + 1) as f64)])
}

/// `cutorch.getDeviceProperties(device) -> table`
fn get_device_properties(lua: &Lua, a: Args) -> Result<Variadic<Value>> {
    if arg(&a, 1).is_nil() {
        return Err(error(
            "cutorch.getDeviceProperties",
            "bad argument #1 (device number expected)",
        ));
    }
    let dev = open_device(&a, 1, "cutorch.getDeviceProperties")?;
    ret([Value::Table(properties(lua, &dev)?)])
}

/// `cutorch.getMemoryUsage([device]) -> free, total`
fn get_memory_usage(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let dev = open_device(&a, 1, "cutorch.getMemoryUsage")?;
    let (free, total) = dev.memory().named("cutorch.getMemoryUsage")?;
    ret([num(free as f64), num(total as f64)])
}

/// `cutorch.emptyCache([device])`: frees what the caching allocator keeps on that device, or on
/// every open device (for another process, or a library that allocates through the driver
/// itself); a luatorch addition, as PyTorch's torch.cuda.empty_cache.
fn empty_cache(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.emptyCache";
    if arg(&a, 1).is_nil() {
        device::usable().named(M)?;
        for d in (0..device::count()).filter_map(device::opened) {
            d.empty_cache().named(M)?;
        }
        device::current_device().named(M)?;
    } else {
        open_device(&a, 1, M)?.empty_cache().named(M)?;
    }
    ret([])
}

/// `cutorch.synchronize([device])`: with no device there is nothing to wait for, but a script that
/// synchronizes expects a GPU: like every call that needs one, it raises an error.
fn synchronize(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let dev = open_device(&a, 1, "cutorch.synchronize")?;
    dev.synchronize().named("cutorch.synchronize")?;
    ret([])
}

/// `cutorch.synchronizeAll()`
fn synchronize_all(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.synchronizeAll";
    device::usable().named(M)?;
    for d in 0..device::count() {
        device::get(d).and_then(|dev| dev.synchronize()).named(M)?;
    }
    device::get(device::current()).named(M)?;
    ret([])
}

/// `cutorch.manualSeed(seed, [device])`
fn manual_seed(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let d = device_arg(&a, 2, "cutorch.manualSeed")?;
    let seed = seed_arg(&a, "cutorch.manualSeed")?;
    with_generator(d, |g| g.manual_seed(seed)).named("cutorch.manualSeed")?;
    ret([])
}

/// `cutorch.manualSeedAll(seed)`
fn manual_seed_all(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.manualSeedAll";
    device::usable().named(M)?;
    let seed = seed_arg(&a, M)?;
    for d in 0..device::count() {
        with_generator(d, |g| g.manual_seed(seed)).named(M)?;
    }
    ret([])
}

/// `cutorch.initialSeed([device]) -> seed`
fn initial_seed(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let d = device_arg(&a, 1, "cutorch.initialSeed")?;
    ret([num(
        with_generator(d, |g| g.initial_seed()).named("cutorch.initialSeed")? as f64,
    )])
}

/// `cutorch.seed([device]) -> seed`: a random seed, set.
fn seed(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let d = device_arg(&a, 1, "cutorch.seed")?;
    let s = crate::torch::base::random::urandom_seed().map_err(|e| error("cutorch.seed", e))?;
    with_generator(d, |g| g.manual_seed(s)).named("cutorch.seed")?;
    ret([num(s as f64)])
}

/// `cutorch.seedAll() -> seed`: a random seed, set on every device.
fn seed_all(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.seedAll";
    device::usable().named(M)?;
    let s = crate::torch::base::random::urandom_seed().map_err(|e| error(M, e))?;
    for d in 0..device::count() {
        with_generator(d, |g| g.manual_seed(s)).named(M)?;
    }
    ret([num(s as f64)])
}

/// `cutorch.getRNGState([device]) -> state`: the device's generator state, in the host
/// generator's format (the device draws come from such a generator).
fn get_rng_state(lua: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.getRNGState";
    let d = device_arg(&a, 1, M)?;
    let t = with_generator(d, |g| random::state_tensor(g)).named(M)??;
    ret([crate::torch::userdata::push_tensor(lua, t)?])
}

/// `cutorch.setRNGState(state, [device])`: as `getRNGState` gave it.
fn set_rng_state(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.setRNGState";
    let d = device_arg(&a, 2, M)?;
    let state = random::state_at(&a, 1, M)?;
    with_generator(d, |g| *g = state).named(M)?;
    ret([])
}

/// `cutorch.getState() -> lightuserdata`: cutorch's state for FFI callers.
fn get_state(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    ret([Value::LightUserData(LightUserData(ffi::state()))])
}

/// `cutorch.requireDevice(name)`: raises the no-device error naming `name` (for calls made in
/// Lua).
fn require_device(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let name = match arg(&a, 1) {
        Value::String(s) => s.to_string_lossy(),
        _ => "cutorch".to_string(),
    };
    device::usable().named(&name)?;
    ret([])
}
