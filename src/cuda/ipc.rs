//! CUDA IPC memory handles (the devices layer, above `memory`): a device storage shared with
//! another process on the same machine without a trip through host memory. The exporter sends
//! the 64-byte handle of the allocation that holds the storage, the storage's byte offset in it,
//! its size, device and element type; the importer
//! opens the handle (mapping the same memory into its address space) and gets a storage over it
//! that closes the mapping when it goes.
//!
//! Only memory from cuMemAlloc can be exported this way (which is why `memory` allocates with it);
//! memory opened from a handle cannot be exported again. The exporter must keep the storage alive
//! until every importer has let go of it.

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use cudarc::driver::sys;

use super::device;
use super::driver::{self, guard};
use super::memory::{self, Then};
use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;
use crate::torch::base::storage::Storage;

/// Bytes in a CUDA IPC memory handle.
pub const HANDLE_BYTES: usize = 64;

/// What another process needs to open a storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    pub handle: [u8; HANDLE_BYTES],
    /// Where the storage starts in the allocation the handle names.
    pub offset: usize,
    pub bytes: usize,
    /// 0-based device ordinal in the exporting process.
    pub device: usize,
    /// The GPU's UUID, which names it in every process (ordinals depend on each process's
    /// CUDA_VISIBLE_DEVICES); all zeros when unknown, and then `device` is used.
    pub uuid: [u8; 16],
    pub dtype: DType,
}

/// The step errors of this file name: a storage is exported, and imported.
const EXPORT: &str = "ipc export";
const IMPORT: &str = "ipc import";

/// The handle and place of a device storage, for another process.
pub fn export(s: &Storage) -> Result<Exported> {
    export_here(s).map_err(|e| e.context(EXPORT))
}

fn export_here(s: &Storage) -> Result<Exported> {
    let ordinal = memory::device_of(s).ok_or_else(|| Error::dtype("not a device storage"))?;
    if let Some(owner) = s.device_owner().and_then(|o| o.downcast_ref::<memory::DeviceMemory>())
        && matches!(owner.release, memory::Release::Mapped(_))
    {
        return Err(Error::argument(
            "memory opened from another process cannot be exported again",
        ));
    }
    let bytes = s.len() * s.dtype().size_of();
    if bytes == 0 {
        return Err(Error::argument("an empty storage has no memory to share"));
    }
    let dev = device::get(ordinal)?;
    let addr = memory::address(s, 0)?;
    guard("cuIpcGetMemHandle", || {
        dev.bind()?;
        let mut base: sys::CUdeviceptr = 0;
        let mut size: usize = 0;
        // SAFETY: queries about an address of a live allocation of this context.
        unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, addr).result() }.map_err(driver::error)?;
        let mut handle = sys::CUipcMemHandle_st {
            reserved: [0; HANDLE_BYTES],
        };
        // SAFETY: `base` is the start of a cuMemAlloc allocation.
        unsafe { sys::cuIpcGetMemHandle(&mut handle, base).result() }.map_err(driver::error)?;
        Ok(Exported {
            handle: handle.reserved.map(|c| c as u8),
            offset: (addr - base) as usize,
            bytes,
            device: ordinal,
            uuid: uuid_of(ordinal).unwrap_or([0; 16]),
            dtype: s.dtype(),
        })
    })
}

/// The UUID of device `ordinal`.
pub fn uuid_of(ordinal: usize) -> Result<[u8; 16]> {
    guard("cuDeviceGetUuid", || {
        let mut dev: sys::CUdevice = 0;
        // SAFETY: plain queries with out-pointers to locals.
        unsafe { sys::cuDeviceGet(&mut dev, ordinal as std::ffi::c_int).result() }.map_err(driver::error)?;
        let mut uuid = sys::CUuuid_st { bytes: [0; 16] };
        unsafe { sys::cuDeviceGetUuid_v2(&mut uuid, dev).result() }.map_err(driver::error)?;
        Ok(uuid.bytes.map(|c| c as u8))
    })
}

/// The ordinal, in this process, of the device an export names.
fn local_device(e: &Exported) -> Result<usize> {
    if e.uuid == [0; 16] {
        return Ok(e.device);
    }
    (0..device::count())
        .find(|&i| uuid_of(i).is_ok_and(|u| u == e.uuid))
        .ok_or_else(|| {
            Error::device(format!(
                "the sender's GPU (its device {}) is not visible in this process (CUDA_VISIBLE_DEVICES)",
                e.device + 1
            ))
        })
}

/// An allocation of another process opened here, closed when the last storage over it (and the
/// cache of `import_cached`) lets go.
pub struct Mapping {
    pub base: u64,
    /// Bytes from `base` to the end of the allocation.
    size: usize,
    device: Arc<device::Device>,
    handle: [u8; HANDLE_BYTES],
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // Errors cannot be reported from a drop; a mapping left open costs address space only.
        let _ = guard("cuIpcCloseMemHandle", || {
            self.device.bind()?;
            // SAFETY: opened once by `open_new`, closed once, here; work reading it ends first.
            unsafe {
                cudarc::driver::result::ctx::synchronize().map_err(driver::error)?;
                sys::cuIpcCloseMemHandle(self.base).result().map_err(driver::error)
            }
        });
        // Closed: the handle may be opened again.
        lock_open().retain(|(h, w)| !(*h == self.handle && w.strong_count() == 0));
    }
}

/// The mappings open in this process, by handle. The driver opens a handle only once per process
/// until it is closed (a second open fails with CUDA_ERROR_ALREADY_MAPPED), and one allocation
/// comes again and again: the same tensor sent twice, or a block of the sender's cache that holds
/// one tensor after another. Every storage over an allocation therefore shares one mapping. An
/// entry whose mapping is gone but still listed is being closed.
static OPEN: Mutex<Vec<([u8; HANDLE_BYTES], Weak<Mapping>)>> = Mutex::new(Vec::new());

fn lock_open() -> std::sync::MutexGuard<'static, Vec<([u8; HANDLE_BYTES], Weak<Mapping>)>> {
    OPEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// The mapping of `e`'s allocation: the open one, or a new one.
fn open_mapping(e: &Exported) -> Result<Arc<Mapping>> {
    // A mapping being closed is waited for; closing takes no longer than the device's queued work.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        {
            let mut open = lock_open();
            match open.iter().find(|(h, _)| *h == e.handle) {
                Some((_, w)) => {
                    if let Some(m) = w.upgrade() {
                        return Ok(m);
                    }
                }
                None => {
                    let m = open_new(e)?;
                    open.push((e.handle, Arc::downgrade(&m)));
                    return Ok(m);
                }
            }
        }
        if Instant::now() > deadline {
            return Err(Error::device(
                "an earlier mapping of the same memory did not close in time",
            ));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn open_new(e: &Exported) -> Result<Arc<Mapping>> {
    let dev = device::get(local_device(e)?)?;
    guard("cuIpcOpenMemHandle", || {
        dev.bind()?;
        let handle = sys::CUipcMemHandle_st {
            reserved: e.handle.map(|b| b as std::ffi::c_char),
        };
        let mut base: sys::CUdeviceptr = 0;
        // SAFETY: opens a handle from another process; the Mapping closes it.
        unsafe {
            sys::cuIpcOpenMemHandle_v2(
                &mut base,
                handle,
                sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as std::ffi::c_uint,
            )
            .result()
        }
        .map_err(|err| driver::error(err).context("cannot open the handle"))?;
        let (mut start, mut size): (sys::CUdeviceptr, usize) = (0, 0);
        // SAFETY: a query about the mapping just opened.
        let size = match unsafe { sys::cuMemGetAddressRange_v2(&mut start, &mut size, base).result() } {
            Ok(()) => (start + size as u64).saturating_sub(base) as usize,
            Err(_) => 0,
        };
        Ok(Arc::new(Mapping {
            base,
            size,
            device: dev.clone(),
            handle: e.handle,
        }))
    })
}

/// A storage over `e`'s part of `mapping`, checked to lie inside it.
fn storage_in(mapping: Arc<Mapping>, e: &Exported, then: Option<Then>) -> Result<Storage> {
    let es = e.dtype.size_of();
    if e.bytes == 0 || !e.bytes.is_multiple_of(es) {
        return Err(Error::shape(format!(
            "{} bytes is not a whole number of {:?} elements",
            e.bytes, e.dtype
        )));
    }
    if e.offset.checked_add(e.bytes).is_none_or(|end| end > mapping.size) {
        return Err(Error::shape(format!(
            "{} bytes at offset {} lie outside the shared allocation",
            e.bytes, e.offset
        )));
    }
    let dev = mapping.device.clone();
    let addr = mapping.base + e.offset as u64;
    Ok(memory::imported(&dev, e.dtype, mapping, addr, e.bytes / es, then))
}

/// Opens what another process exported: a storage over the same device memory, which closes
/// the mapping when the last reference to it goes, and then runs `then`.
pub fn import(e: &Exported, then: Option<Then>) -> Result<Storage> {
    open_mapping(e)
        .and_then(|m| storage_in(m, e, then))
        .map_err(|err| err.context(IMPORT))
}

/// A storage over memory of this very process that it exported as `e` (at `addr`), for a
/// receiver in another thread while the sender waits: checked to be one live allocation of the
/// exported size, and not owned (the sender's storage keeps it).
pub fn own_memory(addr: u64, e: &Exported) -> Result<Storage> {
    own_memory_here(addr, e).map_err(|err| err.context(IMPORT))
}

fn own_memory_here(addr: u64, e: &Exported) -> Result<Storage> {
    let es = e.dtype.size_of();
    let dev = device::get(local_device(e)?)?;
    let (base, size) = guard("cuMemGetAddressRange", || {
        let (mut base, mut size): (sys::CUdeviceptr, usize) = (0, 0);
        // SAFETY: a query about an address; nothing is dereferenced.
        unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, addr).result() }
            .map_err(|err| driver::error(err).context("not memory of this process"))?;
        Ok((base, size))
    })?;
    if e.bytes == 0 || !e.bytes.is_multiple_of(es) || addr - base != e.offset as u64 || e.offset + e.bytes > size {
        return Err(Error::argument(
            "the described memory is not the allocation at that address",
        ));
    }
    Ok(memory::unowned(dev.ordinal, e.dtype, addr, e.bytes / es))
}

/// Mappings kept open for `import_named`, by the sender's name for the allocation, most
/// recently used last.
static CACHE: Mutex<Vec<CachedMapping>> = Mutex::new(Vec::new());
/// A cache entry: the sender's name, the handle, the mapping.
type CachedMapping = (String, [u8; HANDLE_BYTES], Arc<Mapping>);
const CACHE_MAX_ENTRIES: usize = 16;

/// `import` for allocations a sender names and sends again and again (parallel's staging
/// memory): opening a handle costs far more than a message, so the mapping stays open, up to
/// the most recently used few, for the next storage under the same name and handle.
pub fn import_named(name: &str, e: &Exported, then: Option<Then>) -> Result<Storage> {
    import_named_here(name, e, then).map_err(|err| err.context(IMPORT))
}

fn import_named_here(name: &str, e: &Exported, then: Option<Then>) -> Result<Storage> {
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let mapping = match cache.iter().position(|(n, h, _)| n == name && *h == e.handle) {
        Some(i) => {
            let entry = cache.remove(i);
            let m = entry.2.clone();
            cache.push(entry);
            m
        }
        None => {
            cache.retain(|(n, _, _)| n != name);
            let m = open_mapping(e)?;
            cache.push((name.to_string(), e.handle, m.clone()));
            if cache.len() > CACHE_MAX_ENTRIES {
                cache.remove(0);
            }
            m
        }
    };
    drop(cache);
    storage_in(mapping, e, then)
}

/// Closes (once nothing uses them) the kept mappings whose names start with `prefix`.
pub fn forget_named(prefix: &str) {
    CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|(n, _, _)| !n.starts_with(prefix));
}
