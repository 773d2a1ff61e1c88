//! The stream functions of `cutorch` (Lua glue; reserving streams, choosing one, waiting for them
//! and ordering them) and peer access between devices.

use mlua::{Lua, Result, Table, Value, Variadic};

use super::args::{device_arg, num, open_device, ret};
use crate::args::{Args, arg, error, int_arg, type_name};
use crate::calls;
use crate::cuda::device;
use crate::cuda::driver::{self, guard};
use crate::cuda::{events, peer};
use crate::error::{Error, Named};

/// Sets the stream and peer access functions in the `cutorch` table `m`.
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
    calls::add(lua, m, "getPeerToPeerAccess", get_peer_to_peer_access)?;
    calls::add(lua, m, "setPeerToPeerAccess", set_peer_to_peer_access)?;
    calls::add(lua, m, "getKernelPeerToPeerAccess", get_kernel_peer_to_peer_access)?;
    calls::add(lua, m, "setKernelPeerToPeerAccess", set_kernel_peer_to_peer_access)?;
    calls::add(lua, m, "reserveStreams", reserve_streams)?;
    calls::add(lua, m, "getNumStreams", get_num_streams)?;
    calls::add(lua, m, "setStream", set_stream)?;
    calls::add(lua, m, "setDefaultStream", set_default_stream)?;
    calls::add(lua, m, "getStream", get_stream)?;
    calls::add(lua, m, "streamSynchronize", stream_synchronize)?;
    calls::add(lua, m, "_streamWait", stream_wait)?;
    calls::add(lua, m, "_streamBarrier", stream_barrier)?;
    calls::add(lua, m, "_currentStreamAddress", current_stream_address)
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

/// The (0-based) devices of a peer-access call's first two arguments.
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

/// A boolean argument.
fn flag(a: &Args, pos: usize, method: &str) -> Result<bool> {
    match arg(a, pos) {
        Value::Boolean(b) => Ok(*b),
        v => Err(error(
            method,
            format!("bad argument #{pos} (boolean expected, got {})", type_name(v)),
        )),
    }
}

/// `cutorch.getPeerToPeerAccess(device, peer) -> bool`
fn get_peer_to_peer_access(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.getPeerToPeerAccess";
    let (d, p) = pair(&a, M)?;
    ret([Value::Boolean(peer::get(d, p).named(M)?)])
}

/// `cutorch.setPeerToPeerAccess(device, peer, on)`
fn set_peer_to_peer_access(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.setPeerToPeerAccess";
    let (d, p) = pair(&a, M)?;
    let on = flag(&a, 3, M)?;
    peer::set(d, p, on).named(M)?;
    device::current_device().named(M)?;
    ret([])
}

/// `cutorch.getKernelPeerToPeerAccess() -> bool`
fn get_kernel_peer_to_peer_access(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    device::usable().named("cutorch.getKernelPeerToPeerAccess")?;
    ret([Value::Boolean(peer::kernel_access())])
}

/// `cutorch.setKernelPeerToPeerAccess(on)`
fn set_kernel_peer_to_peer_access(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.setKernelPeerToPeerAccess";
    device::usable().named(M)?;
    peer::set_kernel_access(flag(&a, 1, M)?);
    ret([])
}

/// `cutorch.reserveStreams(n, [nonBlocking])`: on every device.
fn reserve_streams(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.reserveStreams";
    device::usable().named(M)?;
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
        device::get(d)
            .and_then(|dev| dev.reserve_streams(n as usize, non_blocking))
            .named(M)?;
    }
    device::get(device::current()).named(M)?;
    ret([])
}

/// `cutorch.getNumStreams() -> n`: reserved on the current device.
fn get_num_streams(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    let dev = open_device(&Args::new(), 1, "cutorch.getNumStreams")?;
    ret([num(dev.reserved_streams() as f64)])
}

/// `cutorch.setStream(stream)`: on the current device (0: the default stream).
fn set_stream(_: &Lua, a: Args) -> Result<Variadic<Value>> {
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
}

/// `cutorch.setDefaultStream()`
fn set_default_stream(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    let dev = open_device(&Args::new(), 1, "cutorch.setDefaultStream")?;
    device::set_current_stream_index(dev.ordinal, 0);
    ret([])
}

/// `cutorch.getStream() -> stream`
fn get_stream(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    let dev = open_device(&Args::new(), 1, "cutorch.getStream")?;
    ret([num(device::current_stream_index(dev.ordinal) as f64)])
}

/// `cutorch.streamSynchronize(stream)`
fn stream_synchronize(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    const M: &str = "cutorch.streamSynchronize";
    let dev = open_device(&Args::new(), 1, M)?;
    let i = int_arg(&a, 1, M)?;
    let stream = usize::try_from(i)
        .map_err(|_| Error::argument(format!("invalid stream {i}")))
        .and_then(|i| dev.stream(i))
        .named(M)?;
    guard("cuStreamSynchronize", || {
        // SAFETY: a stream of this device (or the default stream), context bound.
        unsafe { cudarc::driver::result::stream::synchronize(stream) }.map_err(driver::error)
    })
    .named(M)?;
    ret([])
}

/// `cutorch._streamWait(method, device, stream, places)`: the stream waits for the streams of
/// `places`, a list {device, stream, device, stream, ...} (devices 1-based), checked by
/// lua/cutorch.
fn stream_wait(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let method = place_method(&a)?;
    let waiting = place(&a, 2, &method)?;
    let on = places(&a, 4, &method)?;
    events::wait_for(waiting, &on).named(&method)?;
    device::current_device().named(&method)?;
    ret([])
}

/// `cutorch._streamBarrier(method, places)`: each stream of `places` (as `_streamWait`'s) waits
/// for all the others.
fn stream_barrier(_: &Lua, a: Args) -> Result<Variadic<Value>> {
    let method = place_method(&a)?;
    let all = places(&a, 2, &method)?;
    events::barrier(&all).named(&method)?;
    device::current_device().named(&method)?;
    ret([])
}

/// `cutorch._currentStreamAddress() -> address`: for tests and FFI users, the address of the
/// current stream (0 for the default stream).
fn current_stream_address(_: &Lua, _: Args) -> Result<Variadic<Value>> {
    let dev = open_device(&Args::new(), 1, "cutorch._currentStreamAddress")?;
    let s = dev.current_stream().named("cutorch._currentStreamAddress")?;
    ret([num(s as usize as f64)])
}
