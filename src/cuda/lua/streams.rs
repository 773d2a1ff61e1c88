//! The stream functions of `cutorch` (Lua glue; reserving streams, choosing one, waiting for them
//! and ordering them) and peer access between devices.

use mlua::{Lua, Result, Table, Value};

use super::args::{device_arg, num, open_device, ret, set_function};
use crate::cuda::device;
use crate::cuda::driver::{self, guard};
use crate::cuda::{events, peer};
use crate::error::{Error, Named};
use crate::torch::args::{Args, arg, error, int_arg, type_name};

/// Sets the stream and peer access functions in the `cutorch` table `m`.
pub fn install(lua: &Lua, m: &Table) -> Result<()> {
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

/// Sets the functions of peer access between devices in the `cutorch` table `m`.
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
    set_function(lua, m, "getPeerToPeerAccess", |_, a| {
        const M: &str = "cutorch.getPeerToPeerAccess";
        let (d, p) = pair(&a, M)?;
        ret([Value::Boolean(peer::get(d, p).named(M)?)])
    })?;
    set_function(lua, m, "setPeerToPeerAccess", |_, a| {
        const M: &str = "cutorch.setPeerToPeerAccess";
        let (d, p) = pair(&a, M)?;
        let on = flag(&a, 3, M)?;
        peer::set(d, p, on).named(M)?;
        device::current_device().named(M)?;
        ret([])
    })?;
    set_function(lua, m, "getKernelPeerToPeerAccess", |_, _| {
        device::usable().named("cutorch.getKernelPeerToPeerAccess")?;
        ret([Value::Boolean(peer::kernel_access())])
    })?;
    set_function(lua, m, "setKernelPeerToPeerAccess", |_, a| {
        const M: &str = "cutorch.setKernelPeerToPeerAccess";
        device::usable().named(M)?;
        peer::set_kernel_access(flag(&a, 1, M)?);
        ret([])
    })
}

/// Sets the stream functions in the `cutorch` table `m`.
fn install_stream_functions(lua: &Lua, m: &Table) -> Result<()> {
    set_function(lua, m, "reserveStreams", |_, a| {
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
    })?;
    set_function(lua, m, "getNumStreams", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch.getNumStreams")?;
        ret([num(dev.reserved_streams() as f64)])
    })?;
    set_function(lua, m, "setStream", |_, a| {
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
    set_function(lua, m, "setDefaultStream", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch.setDefaultStream")?;
        device::set_current_stream_index(dev.ordinal, 0);
        ret([])
    })?;
    set_function(lua, m, "getStream", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch.getStream")?;
        ret([num(device::current_stream_index(dev.ordinal) as f64)])
    })?;
    set_function(lua, m, "streamSynchronize", |_, a| {
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
    })?;
    // _streamWait(method, device, stream, places) and _streamBarrier(method, places), places a
    // list {device, stream, device, stream, ...} (devices 1-based), checked by lua/cutorch.
    set_function(lua, m, "_streamWait", |_, a| {
        let method = place_method(&a)?;
        let waiting = place(&a, 2, &method)?;
        let on = places(&a, 4, &method)?;
        events::wait_for(waiting, &on).named(&method)?;
        device::current_device().named(&method)?;
        ret([])
    })?;
    set_function(lua, m, "_streamBarrier", |_, a| {
        let method = place_method(&a)?;
        let all = places(&a, 2, &method)?;
        events::barrier(&all).named(&method)?;
        device::current_device().named(&method)?;
        ret([])
    })?;
    // For tests and FFI users: the address of the current stream (0 for the default stream).
    set_function(lua, m, "_currentStreamAddress", |_, _| {
        let dev = open_device(&Args::new(), 1, "cutorch._currentStreamAddress")?;
        let s = dev.current_stream().named("cutorch._currentStreamAddress")?;
        ret([num(s as usize as f64)])
    })
}
