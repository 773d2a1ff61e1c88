//! Device memory behind `Storage` (the devices layer, the top of it): allocations made with plain
//! cuMemAlloc (not cudarc's stream-ordered pool, whose allocations legacy CUDA IPC handles cannot
//! export) and reused through the device's cache (`block_cache`), memory opened from another
//! process's IPC handle (`ipc`, which builds on this), and views into either; and the copies
//! between host and device that everything else builds on.
//!
//! Copies and fills are queued on the calling thread's current stream; a copy to or from host
//! memory waits for that stream, so the host sees (or may reuse) the data when it returns.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::result as cu;
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, DriverError};

use super::block_cache;
use super::device::{self, Device};
use super::driver::{self, guard};
use super::{events, peer};
use crate::dispatch;
use crate::error::{Error, Result};
use crate::torch::base::dtype::{DType, Element};
use crate::torch::base::storage::{Storage, track_external_bytes};

/// How the memory of a device storage is released. Either way it may be released while kernels
/// still use it: a cached block is reused only by work queued after them (on its stream, or once
/// the device is idle), and cuMemFree waits for them.
pub enum Release {
    /// Ours, from cuMemAlloc at this address: cuMemFree.
    Free(u64),
    /// Ours, a block of the device's cache: given back to the cache.
    Cached(Block),
    /// Opened from an IPC handle: the mapping (an `ipc::Mapping`), closed when its last holder
    /// lets go.
    Mapped(#[allow(dead_code)] Arc<dyn Any + Send + Sync>),
    /// Part of another storage, kept alive by this reference.
    Within(#[allow(dead_code)] Storage),
    /// No memory (zero length).
    Nothing,
}

/// A block of a device's cache: where, how big, and the stream it was allocated on.
pub struct Block {
    device: usize,
    addr: u64,
    bytes: usize,
    stream: usize,
}

/// The owner of a device storage's memory (what `Storage::device_owner` holds).
pub struct DeviceMemory {
    /// 0-based device ordinal.
    pub device: usize,
    /// Size in bytes (what the collector's pacing counts for our own allocations).
    pub bytes: usize,
    pub release: Release,
    /// Keeps the context (and so the memory) alive until released.
    ctx: Option<Arc<CudaContext>>,
    /// Run once the memory is released (tells an exporting process that it may reuse its memory).
    then: Option<Then>,
}

/// What runs once imported memory is released.
pub type Then = Box<dyn FnOnce() + Send + Sync>;

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        let Some(ctx) = &self.ctx else { return };
        // Errors cannot be reported from a drop; a failed free leaks device memory at worst.
        let _ = guard("free", || {
            ctx.bind_to_thread().map_err(driver::error)?;
            // SAFETY: the memory was allocated (or opened) once by this owner and is released
            // once, here; cuMemFree waits for the work that uses it.
            unsafe {
                match &self.release {
                    Release::Free(addr) => {
                        track_external_bytes(-(self.bytes as isize));
                        cu::free_sync(*addr).map_err(driver::error)
                    }
                    Release::Cached(b) => {
                        track_external_bytes(-(self.bytes as isize));
                        // Allocated from an open device, which stays open for the process.
                        let dev = device::opened(b.device).ok_or_else(|| Error::device("device closed"))?;
                        // On one stream the next owner's work queues behind this one's; with
                        // several, or kernels of other devices, the block may still be in use
                        // elsewhere, so wait as cuMemFree would.
                        dev.settle_before_reuse()?;
                        dev.cache.give(b.stream, b.bytes, b.addr);
                        Ok(())
                    }
                    Release::Mapped(_) => {
                        track_external_bytes(-(self.bytes as isize));
                        // The exporter may reuse the memory once told: work reading it ends first.
                        match self.then {
                            Some(_) => cu::ctx::synchronize().map_err(driver::error),
                            None => Ok(()),
                        }
                    }
                    Release::Within(_) | Release::Nothing => Ok(()),
                }
            }
        });
        if let Some(then) = self.then.take() {
            then();
        }
    }
}

/// The device a storage's memory is on, if it is a device storage.
pub fn device_of(s: &Storage) -> Option<usize> {
    s.device_owner()?.downcast_ref::<DeviceMemory>().map(|m| m.device)
}

/// Address of element `offset` of a device storage.
pub fn address(s: &Storage, offset: usize) -> Result<u64> {
    let base = s
        .device_addr()
        .ok_or_else(|| Error::dtype("internal error: a host storage where device memory was expected"))?;
    Ok(base + (offset * s.dtype().size_of()) as u64)
}

/// A zero-filled device storage of `len` elements on `dev`, in a block from the device's cache
/// when one of its size class is free on the current stream.
pub fn alloc(dev: &Device, dtype: DType, len: usize) -> Result<Storage> {
    alloc_filled(dev, dtype, len, true)
}

/// `alloc` without the zero fill, for results that a kernel or a copy writes whole before
/// anything reads them (the fill would cost a write of every byte).
pub fn alloc_unset(dev: &Device, dtype: DType, len: usize) -> Result<Storage> {
    alloc_filled(dev, dtype, len, false)
}

fn alloc_filled(dev: &Device, dtype: DType, len: usize, zero: bool) -> Result<Storage> {
    let bytes = len
        .checked_mul(dtype.size_of())
        .ok_or_else(|| Error::shape(format!("a storage of {len} elements is too large")))?;
    if bytes == 0 {
        return Ok(empty(dev.ordinal, dtype));
    }
    let stream = dev.current_stream()?;
    let caching = block_cache::enabled();
    let block = if caching {
        block_cache::block_bytes(bytes)
    } else {
        bytes
    };
    let addr = match dev.cache.take(stream as usize, block) {
        Some(addr) => addr,
        None => allocate(dev, block)?,
    };
    if zero {
        guard("cuMemsetD8Async", || {
            // SAFETY: the block is ours and unused; the fill is ordered before later work on
            // `stream` (and, for a cached block, after earlier work on it, on the same stream).
            unsafe { cu::memset_d8_async(addr, 0, bytes, stream) }.map_err(driver::error)
        })
        .inspect_err(|_| dev.cache.give(stream as usize, block, addr))?;
    }
    track_external_bytes(bytes as isize);
    let release = if caching {
        Release::Cached(Block {
            device: dev.ordinal,
            addr,
            bytes: block,
            stream: stream as usize,
        })
    } else {
        Release::Free(addr)
    };
    Ok(Storage::from_device(
        dtype,
        addr,
        len,
        Box::new(DeviceMemory {
            device: dev.ordinal,
            bytes,
            release,
            ctx: Some(dev.ctx.clone()),
            then: None,
        }),
    ))
}

/// A new allocation of `bytes` on `dev`; when the device is full, its cache is freed first and
/// the allocation tried once more.
fn allocate(dev: &Device, bytes: usize) -> Result<u64> {
    let malloc = || {
        guard("cuMemAlloc", || {
            // SAFETY: plain allocation in the bound context.
            unsafe { cu::malloc_sync(bytes) }.map_err(driver::error)
        })
    };
    let first = match malloc() {
        Ok(addr) => return Ok(addr),
        Err(e) => e,
    };
    if dev.cache.bytes() > 0
        && dev.empty_cache().is_ok()
        && let Ok(addr) = malloc()
    {
        return Ok(addr);
    }
    Err(first.context(format!(
        "out of memory on device {} allocating {bytes} bytes",
        dev.ordinal + 1
    )))
}

/// A device storage with no memory, on device `ordinal`.
pub fn empty(ordinal: usize, dtype: DType) -> Storage {
    Storage::from_device(
        dtype,
        0,
        0,
        Box::new(DeviceMemory {
            device: ordinal,
            bytes: 0,
            release: Release::Nothing,
            ctx: None,
            then: None,
        }),
    )
}

/// A storage over device memory that something else owns and keeps alive while it is used.
pub fn unowned(ordinal: usize, dtype: DType, addr: u64, len: usize) -> Storage {
    Storage::from_device(
        dtype,
        addr,
        len,
        Box::new(DeviceMemory {
            device: ordinal,
            bytes: len * dtype.size_of(),
            release: Release::Nothing,
            ctx: None,
            then: None,
        }),
    )
}

/// A storage over `len` elements at `addr`, memory opened from an IPC handle and kept open by
/// `mapping` (which closes it when the last storage over it goes); `then` runs when the storage
/// goes.
pub fn imported(
    dev: &Device,
    dtype: DType,
    mapping: Arc<dyn Any + Send + Sync>,
    addr: u64,
    len: usize,
    then: Option<Then>,
) -> Storage {
    // Counted for the collector's pacing: a receiver must let go of senders' memory promptly.
    track_external_bytes((len * dtype.size_of()) as isize);
    Storage::from_device(
        dtype,
        addr,
        len,
        Box::new(DeviceMemory {
            device: dev.ordinal,
            bytes: len * dtype.size_of(),
            release: Release::Mapped(mapping),
            ctx: Some(dev.ctx.clone()),
            then,
        }),
    )
}

/// `len` elements of `parent` from element `offset`, sharing its memory (torch.CudaStorage(s, offset, size)).
pub fn view(parent: &Storage, offset: usize, len: usize) -> Result<Storage> {
    let device = device_of(parent).ok_or_else(not_on_a_device)?;
    if len == 0 {
        return Ok(empty(device, parent.dtype()));
    }
    let addr = address(parent, offset)?;
    Ok(Storage::from_device(
        parent.dtype(),
        addr,
        len,
        Box::new(DeviceMemory {
            device,
            bytes: len * parent.dtype().size_of(),
            release: Release::Within(parent.clone()),
            ctx: None,
            then: None,
        }),
    ))
}

fn not_on_a_device() -> Error {
    Error::dtype("internal error: not a device storage")
}

/// The device of a device storage, opened (bound on this thread).
pub fn open_device(s: &Storage) -> Result<Arc<Device>> {
    device::get(device_of(s).ok_or_else(not_on_a_device)?)
}

/// Runs a copy of `n` elements at element `offset` of the device storage `s` on the current
/// stream and waits for it: `f` gets the device address, the byte count and the stream.
fn transfer(
    s: &Storage,
    offset: usize,
    n: usize,
    f: impl FnOnce(u64, usize, sys::CUstream) -> std::result::Result<(), DriverError>,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    check_range(s, offset, n)?;
    let dev = open_device(s)?;
    let stream = dev.current_stream()?;
    let addr = address(s, offset)?;
    let bytes = n * s.dtype().size_of();
    guard("cuMemcpy", || {
        f(addr, bytes, stream).map_err(driver::error)?;
        // SAFETY: a stream of the bound context.
        unsafe { cu::stream::synchronize(stream) }.map_err(driver::error)
    })
}

/// Copies `n` elements of host memory at `src` to `dst` (a device storage) from element `offset`.
///
/// # Safety
/// `src` must hold `n` elements of `dst`'s type.
pub unsafe fn upload_raw(dst: &Storage, offset: usize, src: *const u8, n: usize) -> Result<()> {
    transfer(dst, offset, n, |addr, bytes, stream| {
        // SAFETY: the device range is checked; the host range is the caller's promise; the copy
        // is waited for before `src` may change.
        unsafe { cu::memcpy_htod_async(addr, std::slice::from_raw_parts(src, bytes), stream) }
    })
}

/// Copies `n` elements of `src` (a device storage) from element `offset` into host memory at `dst`.
///
/// # Safety
/// `dst` must have room for `n` elements of `src`'s type.
pub unsafe fn download_raw(src: &Storage, offset: usize, dst: *mut u8, n: usize) -> Result<()> {
    transfer(src, offset, n, |addr, bytes, stream| {
        // SAFETY: as in upload_raw; the copy is complete when the stream has been waited for.
        unsafe { cu::memcpy_dtoh_async(std::slice::from_raw_parts_mut(dst, bytes), addr, stream) }
    })
}

/// Copies `n` elements between device storages of the same type (on one device, or between
/// devices through the driver's unified addressing).
pub fn copy(dst: &Storage, doff: usize, src: &Storage, soff: usize, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    check_range(dst, doff, n)?;
    check_range(src, soff, n)?;
    let (dev, src_dev) = (open_device(dst)?, open_device(src)?);
    let src_stream = src_dev.current_stream()?;
    let stream = dev.current_stream()?;
    let across = src_dev.ordinal != dev.ordinal;
    if across {
        // Peer to peer where it is on, else (or if the driver will not enable it: too many
        // peers, say) through the host, which the driver does by itself. The copy runs on the
        // destination's stream: it starts after the work queued on the source's...
        let _ = peer::ensure(dev.ordinal, src_dev.ordinal);
        events::order(&dev, stream, &src_dev, src_stream)?;
        dev.bind()?;
    }
    let (d, s) = (address(dst, doff)?, address(src, soff)?);
    let bytes = n * dst.dtype().size_of();
    guard("cuMemcpyDtoD", || {
        // SAFETY: both ranges are checked to lie in their storages.
        unsafe { cu::memcpy_dtod_async(d, s, bytes, stream).map_err(driver::error) }
    })?;
    if across {
        // ... and later work on the source (overwriting it, reusing its memory) waits for it.
        events::order(&src_dev, src_stream, &dev, stream)?;
        dev.bind()?;
    }
    Ok(())
}

fn check_range(s: &Storage, offset: usize, n: usize) -> Result<()> {
    if offset.checked_add(n).is_none_or(|end| end > s.len()) {
        return Err(Error::shape(format!(
            "internal error: elements {offset}..{} outside a storage of {}",
            offset + n,
            s.len()
        )));
    }
    Ok(())
}

/// One element of a device storage as a number.
pub fn read(s: &Storage, offset: usize) -> Result<f64> {
    dispatch!(s.dtype(), T => {
        let mut v = T::zero();
        // SAFETY: room for one element of the storage's type.
        unsafe { download_raw(s, offset, (&mut v as *mut T).cast(), 1)? };
        Ok(v.to_f64())
    })
}

/// Writes one element of a device storage.
pub fn write(s: &Storage, offset: usize, v: f64) -> Result<()> {
    dispatch!(s.dtype(), T => {
        let x = T::from_f64(v);
        // SAFETY: one element of the storage's type.
        unsafe { upload_raw(s, offset, (&x as *const T).cast(), 1) }
    })
}

/// A host copy of a whole device storage.
pub fn download(s: &Storage) -> Result<Storage> {
    let host = Storage::new(s.dtype(), s.len())?;
    // SAFETY: `host` has room for every element.
    unsafe { download_raw(s, 0, host.data_ptr(), s.len())? };
    Ok(host)
}

/// A device storage on the current device with the data of a host storage.
pub fn upload(host: &Storage) -> Result<Storage> {
    let dev = device::current_device()?;
    let s = alloc(&dev, host.dtype(), host.len())?;
    // SAFETY: the host storage holds `len` elements of the type.
    unsafe { upload_raw(&s, 0, host.data_ptr(), host.len())? };
    Ok(s)
}
