//! Peer-to-peer access between devices (the devices layer), as cutorch exposed it: on by default
//! for every pair whose hardware supports it, switchable per pair, and enabled in the driver when a
//! pair is first used (cutorch enabled every pair at start, which opens a context on every GPU;
//! here only devices in use get one). Copies between devices go peer to peer where it is on, and
//! through the host otherwise (the driver decides). Kernels may read tensors of other devices only
//! after cutorch.setKernelPeerToPeerAccess(true), and then only across pairs where it is on.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::sys;

use super::device;
use super::driver::{self, guard};
use crate::error::{Error, Result};

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

fn check(d: usize, p: usize) -> Result<()> {
    device::usable()?;
    for x in [d, p] {
        if x >= device::count() {
            return Err(Error::argument(format!(
                "device {} does not exist (devices are numbered 1 to {})",
                x + 1,
                device::count()
            )));
        }
    }
    Ok(())
}

/// Whether the hardware lets device `d` access `p`'s memory (a device its own: yes).
pub fn supported(d: usize, p: usize) -> Result<bool> {
    check(d, p)?;
    if d == p {
        return Ok(true);
    }
    if let Some(s) = with_pair(d, p, |pair| pair.supported) {
        return Ok(s);
    }
    let can = guard("cuDeviceCanAccessPeer", || {
        let mut can = 0;
        let (mut dev, mut peer): (sys::CUdevice, sys::CUdevice) = (0, 0);
        // SAFETY: plain queries with out-pointers to locals.
        unsafe {
            sys::cuDeviceGet(&mut dev, d as std::ffi::c_int)
                .result()
                .map_err(driver::error)?;
            sys::cuDeviceGet(&mut peer, p as std::ffi::c_int)
                .result()
                .map_err(driver::error)?;
            sys::cuDeviceCanAccessPeer(&mut can, dev, peer)
                .result()
                .map_err(driver::error)?;
        }
        Ok(can != 0)
    })?;
    with_pair(d, p, |pair| pair.supported = Some(can));
    Ok(can)
}

/// cutorch.getPeerToPeerAccess: whether `d` may access `p`'s memory.
pub fn get(d: usize, p: usize) -> Result<bool> {
    let supported = supported(d, p)?;
    Ok(d == p || with_pair(d, p, |pair| pair.wanted).unwrap_or(supported))
}

/// cutorch.setPeerToPeerAccess: turns `d`'s access to `p`'s memory on or off.
pub fn set(d: usize, p: usize, on: bool) -> Result<()> {
    if d == p {
        return match on {
            true => Ok(()),
            false => Err(Error::argument("a device always accesses its own memory")),
        };
    }
    if on && !supported(d, p)? {
        return Err(Error::device(format!(
            "device {} cannot access device {} (the hardware does not support peer access between them)",
            d + 1,
            p + 1
        )));
    }
    with_pair(d, p, |pair| pair.wanted = Some(on));
    if on { ensure(d, p).map(|_| ()) } else { switch_off(d, p) }
}

/// Enables `d`'s access to `p` in the driver if it is wanted and not on yet; whether it is on.
pub fn ensure(d: usize, p: usize) -> Result<bool> {
    if d == p {
        return Ok(true);
    }
    if !get(d, p)? {
        return Ok(false);
    }
    if with_pair(d, p, |pair| pair.enabled) {
        return Ok(true);
    }
    let (dev, peer) = (device::get(d)?, device::get(p)?);
    dev.bind()?;
    guard("cuCtxEnablePeerAccess", || {
        // SAFETY: both contexts are alive; the peer's context is passed as the driver expects.
        match unsafe { sys::cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            rc => Err(driver::error(cudarc::driver::DriverError(rc))),
        }
    })
    .map_err(|e| {
        // Not tried again: the pair reads as off from now on.
        with_pair(d, p, |pair| pair.wanted = Some(false));
        e.context(format!("enabling peer access from device {} to {}", d + 1, p + 1))
    })?;
    with_pair(d, p, |pair| pair.enabled = true);
    Ok(true)
}

fn switch_off(d: usize, p: usize) -> Result<()> {
    if !with_pair(d, p, |pair| pair.enabled) {
        return Ok(());
    }
    let (dev, peer) = (device::get(d)?, device::get(p)?);
    dev.bind()?;
    guard("cuCtxDisablePeerAccess", || {
        // SAFETY: as in `ensure`.
        match unsafe { sys::cuCtxDisablePeerAccess(peer.ctx.cu_ctx()) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => Ok(()),
            rc => Err(driver::error(cudarc::driver::DriverError(rc))),
        }
    })?;
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
