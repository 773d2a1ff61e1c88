//! Reference-counted element buffers. One type for every backing: heap memory owned here, or memory
//! owned by something else (a shared-memory mapping, a received message, a device allocation) that
//! is released when the last reference goes. Tensors and Lua storages share a `Storage` by cloning it.
//!
//! Device memory (cutorch's storages) is a backing of its own: its address is not a host address,
//! so nothing here reads or writes through it. Only the module that made it (`crate::cuda`) touches
//! its data, and host tensor code never sees one: device tensors are other userdata types.

use std::alloc::Layout;
use std::any::Any;
use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::dtype::{DType, Element};
use crate::error::{Error, Result};

/// Alignment of heap buffers: enough for any element type and for SIMD loads.
const ALIGN: usize = 64;
/// Buffers this large are 2 MiB-aligned and advised into transparent huge pages (as NumPy does):
/// streaming kernels over them then take far fewer TLB misses (measured ~5-10% on a 10M-element
/// sum where THP is in `madvise` mode, the common default).
const HUGE_MIN: usize = 4 << 20;
const HUGE_ALIGN: usize = 2 << 20;
/// Buffers this large are recycled (`super::recycled`) when their storage goes: the next
/// storage of the same size (the next image of a loop, the next batch) reuses pages already
/// mapped instead of faulting fresh ones in (a 1024x768 RGB byte image is 2.25 MiB).
const RECYCLE_MIN: usize = 1 << 20;

/// Asks the kernel for transparent huge pages over `len` bytes at `ptr` (a hint: failure is
/// harmless).
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: the range is an allocation of ours; madvise only changes paging policy.
    unsafe {
        libc::madvise(ptr.cast(), len, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Bytes of heap buffers alive in this process. Lua's collector does not see this memory, so the
/// Lua side uses it to decide when to collect (see `userdata::note_allocation`).
static LIVE_HEAP_BYTES: AtomicUsize = AtomicUsize::new(0);

pub fn live_heap_bytes() -> usize {
    LIVE_HEAP_BYTES.load(Ordering::Relaxed)
}

/// Counts (or, negative, uncounts) memory that external storages hold (a mapped shared-memory
/// segment, say), so that the collector's pacing sees it as it sees heap buffers.
pub fn track_external_bytes(delta: isize) {
    if delta >= 0 {
        LIVE_HEAP_BYTES.fetch_add(delta as usize, Ordering::Relaxed);
    } else {
        LIVE_HEAP_BYTES.fetch_sub(delta.unsigned_abs(), Ordering::Relaxed);
    }
}

enum Backing {
    /// Owned here; freed with this layout.
    Heap(Layout),
    /// Owned by the boxed value, dropped with the storage.
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
    /// Device memory owned by the boxed value: the pointer is a device address.
    Device(Box<dyn Any + Send + Sync>),
    /// No memory (length 0).
    Empty,
}

struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    backing: Backing,
}

impl Buffer {
    fn empty() -> Buffer {
        Buffer {
            ptr: NonNull::<u64>::dangling().cast(),
            len: 0,
            backing: Backing::Empty,
        }
    }

    fn heap_zeroed(dtype: DType, len: usize) -> Result<Buffer> {
        let bytes = len
            .checked_mul(dtype.size_of())
            .ok_or_else(|| Error::memory(format!("storage of {len} elements is too large")))?;
        if bytes == 0 {
            return Ok(Buffer::empty());
        }
        let huge = bytes >= HUGE_MIN;
        // Huge buffers take whole huge pages, so that one freed can serve the next of its size.
        let size = if huge {
            bytes.div_ceil(HUGE_ALIGN) * HUGE_ALIGN
        } else {
            bytes
        };
        let layout = Layout::from_size_align(size, if huge { HUGE_ALIGN } else { ALIGN })
            .map_err(|_| Error::memory(format!("storage of {len} elements is too large")))?;
        let recycled = if bytes >= RECYCLE_MIN {
            super::recycled::take(layout)
        } else {
            None
        };
        // SAFETY: layout has a non-zero size; a recycled buffer has exactly this layout.
        let ptr = unsafe {
            match recycled {
                Some(p) => {
                    std::ptr::write_bytes(p.as_ptr(), 0, bytes);
                    p.as_ptr()
                }
                None if huge => {
                    // Advised before the first touch, so that zeroing faults in huge pages.
                    // That first touch is the dear part (in a VM whose host takes back free huge
                    // pages, measured 28 ms for 9 MiB against 4.5 ms in small pages, but kernels
                    // over small pages run up to 1.5x slower), hence the recycling.
                    let p = std::alloc::alloc(layout);
                    if !p.is_null() {
                        advise_huge_pages(p, size);
                        std::ptr::write_bytes(p, 0, bytes);
                    }
                    p
                }
                None => std::alloc::alloc_zeroed(layout),
            }
        };
        let ptr = NonNull::new(ptr).ok_or_else(|| Error::memory(format!("out of memory allocating {bytes} bytes")))?;
        Ok(Buffer {
            ptr,
            len,
            backing: {
                LIVE_HEAP_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
                Backing::Heap(layout)
            },
        })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Backing::Heap(layout) = self.backing {
            LIVE_HEAP_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
            // SAFETY: allocated in heap_zeroed with this layout, and this was its last user.
            unsafe {
                if layout.size() >= RECYCLE_MIN {
                    super::recycled::give(self.ptr, layout);
                } else {
                    std::alloc::dealloc(self.ptr.as_ptr(), layout);
                }
            }
        }
    }
}

struct StorageCell {
    dtype: DType,
    buffer: UnsafeCell<Buffer>,
}

// SAFETY: the buffer is plain memory. As in Torch, code that shares a storage between threads is
// responsible for not resizing it while another thread uses it; element access is unsynchronised.
unsafe impl Send for StorageCell {}
unsafe impl Sync for StorageCell {}

/// A shared handle on a typed buffer.
#[derive(Clone)]
pub struct Storage(Arc<StorageCell>);

impl Storage {
    /// A zero-filled storage of `len` elements.
    pub fn new(dtype: DType, len: usize) -> Result<Storage> {
        Ok(Storage(Arc::new(StorageCell {
            dtype,
            buffer: UnsafeCell::new(Buffer::heap_zeroed(dtype, len)?),
        })))
    }

    pub fn from_slice<T: Element>(data: &[T]) -> Result<Storage> {
        let s = Storage::new(T::DTYPE, data.len())?;
        // SAFETY: fresh storage of the same type and length.
        unsafe { s.as_mut_slice::<T>().copy_from_slice(data) };
        Ok(s)
    }

    /// A new heap storage holding a copy of this host storage's elements.
    pub fn duplicate(&self) -> Result<Storage> {
        let copy = Storage::new(self.dtype(), self.len())?;
        // SAFETY: a fresh storage of the same type and length; the source is read as any kernel
        // reads it (see the Send/Sync note).
        unsafe {
            let bytes = self.bytes();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), copy.data_ptr(), bytes.len());
        }
        Ok(copy)
    }

    /// Wraps memory owned by `owner`, which must keep `ptr..ptr+len*size_of(dtype)` valid and
    /// suitably aligned for as long as it lives.
    ///
    /// # Safety
    /// `ptr` must point to `len` initialised elements of `dtype` that stay valid while `owner` lives.
    pub unsafe fn from_external(dtype: DType, ptr: *mut u8, len: usize, owner: Box<dyn Any + Send + Sync>) -> Storage {
        let buffer = match NonNull::new(ptr) {
            Some(ptr) if len > 0 => Buffer {
                ptr,
                len,
                backing: Backing::External(owner),
            },
            _ => Buffer::empty(),
        };
        Storage(Arc::new(StorageCell {
            dtype,
            buffer: UnsafeCell::new(buffer),
        }))
    }

    /// Wraps device memory (`addr`, `len` elements of `dtype`) owned by `owner`, which frees it
    /// when dropped. The storage never dereferences `addr`; see the module note.
    pub fn from_device(dtype: DType, addr: u64, len: usize, owner: Box<dyn Any + Send + Sync>) -> Storage {
        let buffer = match NonNull::new(addr as usize as *mut u8) {
            Some(ptr) => Buffer {
                ptr,
                len,
                backing: Backing::Device(owner),
            },
            // Zero-length device storages have no allocation; still device storages (the owner
            // may carry the device they belong to).
            None => Buffer {
                ptr: NonNull::<u64>::dangling().cast(),
                len: 0,
                backing: Backing::Device(owner),
            },
        };
        Storage(Arc::new(StorageCell {
            dtype,
            buffer: UnsafeCell::new(buffer),
        }))
    }

    /// The owner of a device storage's memory; None for host storages.
    pub fn device_owner(&self) -> Option<&(dyn Any + Send + Sync)> {
        match &self.buffer().backing {
            Backing::Device(owner) => Some(owner.as_ref()),
            _ => None,
        }
    }

    pub fn is_device(&self) -> bool {
        self.device_owner().is_some()
    }

    /// The device address of a device storage's first element (0 when it has none).
    pub fn device_addr(&self) -> Option<u64> {
        match &self.buffer().backing {
            Backing::Device(_) if !self.is_empty() => Some(self.data_ptr() as usize as u64),
            Backing::Device(_) => Some(0),
            _ => None,
        }
    }

    /// Gives this storage the memory of `fresh` (a storage nothing else shares), so that every
    /// tensor and Lua storage sharing this one sees it: how device storages resize.
    pub fn take_memory_of(&self, fresh: Storage) -> Result<()> {
        if fresh.dtype() != self.dtype() {
            return Err(Error::dtype("internal error: storage memory of another type"));
        }
        let cell = Arc::try_unwrap(fresh.0).map_err(|_| Error::argument("internal error: storage memory is shared"))?;
        // SAFETY: as in `resize`, the buffer is only replaced here and there.
        unsafe { *self.0.buffer.get() = cell.buffer.into_inner() };
        Ok(())
    }

    fn buffer(&self) -> &Buffer {
        // SAFETY: see the Send/Sync note; the buffer is only replaced by `resize`.
        unsafe { &*self.0.buffer.get() }
    }

    pub fn dtype(&self) -> DType {
        self.0.dtype
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.buffer().len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Identity of the underlying storage (what `torch.pointer` returns, and the key for dedupe).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    pub fn same(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether the memory is owned by this storage (heap), as opposed to an external owner.
    pub fn is_heap(&self) -> bool {
        !matches!(self.buffer().backing, Backing::External(_) | Backing::Device(_))
    }

    /// Start of the data as bytes.
    pub fn data_ptr(&self) -> *mut u8 {
        self.buffer().ptr.as_ptr()
    }

    /// Start of the data.
    pub fn ptr<T: Element>(&self) -> *mut T {
        assert_eq!(T::DTYPE, self.0.dtype, "storage element type mismatch");
        self.buffer().ptr.as_ptr().cast()
    }

    /// # Safety
    /// No other live reference to the data may write while the slice is used.
    pub unsafe fn as_slice<T: Element>(&self) -> &[T] {
        unsafe { std::slice::from_raw_parts(self.ptr::<T>(), self.len()) }
    }

    /// # Safety
    /// The caller must be the only one accessing the data while the slice is used.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn as_mut_slice<T: Element>(&self) -> &mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr::<T>(), self.len()) }
    }

    /// The raw bytes of the data.
    ///
    /// # Safety
    /// As for `as_slice`.
    pub unsafe fn bytes(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.data_ptr(), self.len() * self.0.dtype.size_of()) }
    }

    /// Changes the number of elements, keeping the common prefix; new elements are zero. Every
    /// tensor and Lua storage sharing this storage sees the new buffer (Torch's semantics).
    pub fn resize(&self, len: usize) -> Result<()> {
        if len == self.len() {
            return Ok(());
        }
        if self.is_device() {
            return Err(Error::device("cannot resize a device storage in host memory"));
        }
        let fresh = Buffer::heap_zeroed(self.0.dtype, len)?;
        let keep = len.min(self.len()) * self.0.dtype.size_of();
        // SAFETY: distinct allocations; `keep` bytes are valid in both.
        unsafe {
            std::ptr::copy_nonoverlapping(self.data_ptr(), fresh.ptr.as_ptr(), keep);
            *self.0.buffer.get() = fresh;
        }
        Ok(())
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Storage({:?}, {})", self.dtype(), self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_is_zeroed_and_resize_keeps_prefix() {
        let s = Storage::from_slice(&[1.0f32, 2.0, 3.0]).unwrap();
        let view = s.clone();
        s.resize(5).unwrap();
        assert_eq!(unsafe { view.as_slice::<f32>() }, &[1.0, 2.0, 3.0, 0.0, 0.0]);
        s.resize(2).unwrap();
        assert_eq!(unsafe { view.as_slice::<f32>() }, &[1.0, 2.0]);
        assert!(view.same(&s));
    }

    #[test]
    fn device_storages_are_never_host_memory() {
        // A fake device address: nothing here may read through it.
        let owner = Box::new(7u32);
        let s = Storage::from_device(DType::Float, 0x1000, 4, owner);
        assert!(s.is_device() && !s.is_heap());
        assert_eq!(s.device_addr(), Some(0x1000));
        assert_eq!(s.device_owner().and_then(|o| o.downcast_ref::<u32>()), Some(&7));
        assert!(s.resize(8).unwrap_err().message().contains("device storage"));
        // Resizing swaps in fresh memory that every sharer sees.
        let view = s.clone();
        s.take_memory_of(Storage::from_device(DType::Float, 0x2000, 8, Box::new(8u32)))
            .unwrap();
        assert_eq!((view.len(), view.device_addr()), (8, Some(0x2000)));
        let shared = Storage::from_device(DType::Float, 0x3000, 2, Box::new(()));
        let _keep = shared.clone();
        assert!(s.take_memory_of(shared).is_err());
        assert!(s.take_memory_of(Storage::new(DType::Double, 1).unwrap()).is_err());
        let empty = Storage::from_device(DType::Long, 0, 0, Box::new(()));
        assert_eq!((empty.len(), empty.device_addr()), (0, Some(0)));
        assert_eq!(Storage::new(DType::Float, 1).unwrap().device_addr(), None);
    }

    #[test]
    fn absurd_sizes_are_errors() {
        assert!(Storage::new(DType::Double, usize::MAX / 2).is_err());
        assert!(Storage::new(DType::Double, 0).unwrap().is_empty());
    }
}
