//! Peer-to-peer access between devices, as cutorch exposed it: on by default for every pair
//! whose hardware supports it, switchable per pair, and enabled in the driver when a pair is
//! first used (cutorch enabled every pair at start, which opens a context on every GPU; here only
//! devices in use get one). Copies between devices go peer to peer where it is on, and through
//! the host otherwise (the driver decides). Kernels may read tensors of other devices only
//! after cutorch.setKernelPeerToPeerAccess(true), and then only across pairs where it is on.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::sys;

use super::device;
use super::libs;
use super::memory::drv;

/// What is known of a pair (device, peer it accesses).
#[derive(Clone, Copy, Default)]
struct Pair {
    /// Whether the hardware allows it (asked once).
    supported: Option<bool>,
    /// Set by setPeerToPeerAccess; by default, what the hardware allows.
    wanted: Option<bool>,
    /// Whether the driver has it on now.
    enabled: bool,
}

static PAIRS: Mutex<Option<HashMap<(usize, usize), Pair>>> = Mutex::new(None);
static KERNEL_ACCESS: AtomicBool = AtomicBool::new(false);

fn with_pair<R>(d: usize, p: usize, f: impl FnOnce(&mut Pair) -> R) -> R {
    let mut pairs = PAIRS.lock().unwrap_or_else(|e| e.into_inner());
    f(pairs.get_or_insert_with(HashMap::new).entry((d, p)).or_default())
}

fn check(d: usize, p: usize, method: &str) -> Result<(), String> {
    device::available(method)?;
    for x in [d, p] {
        if x >= device::count() {
            return Err(format!(
                "{method}: device {} does not exist (devices are numbered 1 to {})",
                x + 1,
                device::count()
            ));
        }
    }
    Ok(())
}

/// Whether the hardware lets device `d` access `p`'s memory (a device its own: yes).
pub fn supported(d: usize, p: usize, method: &str) -> Result<bool, String> {
    check(d, p, method)?;
    if d == p {
        return Ok(true);
    }
    if let Some(s) = with_pair(d, p, |pair| pair.supported) {
        return Ok(s);
    }
    let can = libs::guard(method, || {
        let mut can = 0;
        let (mut dev, mut peer): (sys::CUdevice, sys::CUdevice) = (0, 0);
        // SAFETY: plain queries with out-pointers to locals.
        unsafe {
            sys::cuDeviceGet(&mut dev, d as std::ffi::c_int).result().map_err(drv)?;
            sys::cuDeviceGet(&mut peer, p as std::ffi::c_int)
                .result()
                .map_err(drv)?;
            sys::cuDeviceCanAccessPeer(&mut can, dev, peer).result().map_err(drv)?;
        }
        Ok(can != 0)
    })
    .map_err(|e| format!("{method}: {e}"))?;
    with_pair(d, p, |pair| pair.supported = Some(can));
    Ok(can)
}

/// cutorch.getPeerToPeerAccess: whether `d` may access `p`'s memory.
pub fn get(d: usize, p: usize, method: &str) -> Result<bool, String> {
    let supported = supported(d, p, method)?;
    Ok(d == p || with_pair(d, p, |pair| pair.wanted).unwrap_or(supported))
}

/// cutorch.setPeerToPeerAccess: turns `d`'s access to `p`'s memory on or off.
pub fn set(d: usize, p: usize, on: bool, method: &str) -> Result<(), String> {
    if d == p {
        return match on {
            true => Ok(()),
            false => Err(format!("{method}: a device always accesses its own memory")),
        };
    }
    if on && !supported(d, p, method)? {
        return Err(format!(
            "{method}: device {} cannot access device {} (the hardware does not support peer access between them)",
            d + 1,
            p + 1
        ));
    }
    with_pair(d, p, |pair| pair.wanted = Some(on));
    if on {
        ensure(d, p, method).map(|_| ())
    } else {
        switch_off(d, p, method)
    }
}

/// Enables `d`'s access to `p` in the driver if it is wanted and not on yet; whether it is on.
pub fn ensure(d: usize, p: usize, method: &str) -> Result<bool, String> {
    if d == p {
        return Ok(true);
    }
    if !get(d, p, method)? {
        return Ok(false);
    }
    if with_pair(d, p, |pair| pair.enabled) {
        return Ok(true);
    }
    let (dev, peer) = (device::get(d, method)?, device::get(p, method)?);
    dev.bind()?;
    libs::guard(method, || {
        // SAFETY: both contexts are alive; the peer's context is passed as the driver expects.
        match unsafe { sys::cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            rc => Err(drv(cudarc::driver::DriverError(rc))),
        }
    })
    .map_err(|e| {
        // Not tried again: the pair reads as off from now on.
        with_pair(d, p, |pair| pair.wanted = Some(false));
        format!("{method}: enabling peer access from device {} to {}: {e}", d + 1, p + 1)
    })?;
    with_pair(d, p, |pair| pair.enabled = true);
    Ok(true)
}

fn switch_off(d: usize, p: usize, method: &str) -> Result<(), String> {
    if !with_pair(d, p, |pair| pair.enabled) {
        return Ok(());
    }
    let (dev, peer) = (device::get(d, method)?, device::get(p, method)?);
    dev.bind()?;
    libs::guard(method, || {
        // SAFETY: as in `ensure`.
        match unsafe { sys::cuCtxDisablePeerAccess(peer.ctx.cu_ctx()) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => Ok(()),
            rc => Err(drv(cudarc::driver::DriverError(rc))),
        }
    })
    .map_err(|e| format!("{method}: {e}"))?;
    with_pair(d, p, |pair| pair.enabled = false);
    Ok(())
}

/// cutorch.getKernelPeerToPeerAccess.
pub fn kernel_access() -> bool {
    KERNEL_ACCESS.load(Ordering::Relaxed)
}

/// cutorch.setKernelPeerToPeerAccess.
pub fn set_kernel_access(on: bool) {
    KERNEL_ACCESS.store(on, Ordering::Relaxed);
}
