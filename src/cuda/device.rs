//! Devices as cutorch has them (the devices layer, on top of `driver`): counted once per process,
//! each with its primary context made on first use; a current device and a current stream per
//! thread (as the CUDA runtime keeps the current device per thread); reserved streams per device,
//! shared by every thread; and a slot per type for what the layers above make once per device
//! (the compiled kernels, the cuBLAS handle), so that this file names none of them.
//!
//! Ordinals are 0-based here; the Lua side adds 1.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaContext;
use cudarc::driver::result as cu;
use cudarc::driver::sys;

use super::block_cache::Cache;
use super::driver::{self, guard};
use crate::error::{Error, Result};

/// Why there is no device, or how many there are.
struct Census {
    count: usize,
    /// Set when `count` is 0: what was missing.
    why_none: String,
    /// The process that counted: a forked child cannot use the parent's CUDA state.
    pid: u32,
}

fn census() -> &'static Census {
    static CENSUS: OnceLock<Census> = OnceLock::new();
    CENSUS.get_or_init(|| {
        let pid = std::process::id();
        if !super::libraries::driver_present() {
            return Census {
                count: 0,
                why_none: "no CUDA driver (libcuda.so.1 was not found)".into(),
                pid,
            };
        }
        let counted = guard("cuInit", || {
            cu::init().map_err(|e| Error::device(format!("cuInit failed: {e:?}")))?;
            cu::device::get_count().map_err(|e| Error::device(format!("cuDeviceGetCount failed: {e:?}")))
        });
        match counted {
            Ok(n) if n > 0 => Census {
                count: n as usize,
                why_none: String::new(),
                pid,
            },
            Ok(_) => Census {
                count: 0,
                why_none: "no CUDA device was found".into(),
                pid,
            },
            // No device at all reads as an init error from the driver.
            Err(e) if e.message().contains("NO_DEVICE") => Census {
                count: 0,
                why_none: "no CUDA device was found".into(),
                pid,
            },
            Err(e) => Census {
                count: 0,
                why_none: e.message().to_string(),
                pid,
            },
        }
    })
}

/// Number of devices (0 without a driver or a device).
pub fn count() -> usize {
    census().count
}

/// Ok when devices can be used from this process; otherwise why not.
pub fn usable() -> Result<()> {
    let c = census();
    if c.count == 0 {
        return Err(Error::device(format!("no CUDA device is available ({})", c.why_none)));
    }
    if std::process::id() != c.pid {
        return Err(Error::device(
            "CUDA was set up in the parent of this forked process and cannot be used here (start workers with fork+exec, as parallel does)",
        ));
    }
    Ok(())
}

/// A device in use: its primary context, its reserved streams, and what the layers above make
/// for it on demand.
pub struct Device {
    pub ordinal: usize,
    pub ctx: Arc<CudaContext>,
    /// Reserved streams: stream i (1-based, as cutorch) is `streams[i - 1]`; stream 0 is the
    /// legacy default stream.
    streams: Mutex<Vec<Stream>>,
    /// Compute capability.
    pub arch: (i32, i32),
    /// What the layers above keep for this device (see `slot`).
    slots: Slots,
    /// Freed allocations kept for reuse.
    pub(crate) cache: Cache,
    /// Set once work has gone to a reserved stream: a freed allocation may then still be in use
    /// on a stream other than the one it was made on, and is only cached after the device is idle.
    several_streams: AtomicBool,
    /// Set once kernels of another device have read this device's memory (kernel peer access):
    /// a freed block is then cached only after every device is idle.
    read_by_peers: AtomicBool,
}

impl Device {
    /// The value of type `T` kept for this device, made by `init` on first use (once, even when
    /// threads race). The layers above keep their per-device state here: the compiled kernels,
    /// the cuBLAS handle.
    pub fn slot<T: Send + Sync + 'static>(&self, init: impl FnOnce() -> T) -> &T {
        self.slots.get(init)
    }

    /// Makes this device's context current on the calling thread.
    pub fn bind(&self) -> Result<()> {
        guard("cuCtxSetCurrent", || {
            self.ctx
                .bind_to_thread()
                .map_err(|e| Error::device(format!("cannot use device {}: {e:?}", self.ordinal + 1)))
        })
    }

    /// Free and total memory of the device, in bytes; free counts what this process's cache
    /// holds, as cutorch's did (it is there for the next allocation).
    pub fn memory(&self) -> Result<(usize, usize)> {
        let (free, total) = guard("cuMemGetInfo", || self.ctx.mem_get_info().map_err(driver::error))?;
        Ok(((free + self.cache.bytes()).min(total), total))
    }

    /// The raw stream of cutorch stream `index` (0: the default stream).
    pub fn stream(&self, index: usize) -> Result<sys::CUstream> {
        if index == 0 {
            return Ok(std::ptr::null_mut());
        }
        self.several_streams.store(true, Ordering::Relaxed);
        let streams = self.streams.lock().map_err(|_| Error::device("stream list poisoned"))?;
        streams
            .get(index - 1)
            .map(|s| s.0)
            .ok_or_else(|| Error::argument(format!("stream {index} is not reserved on device {}", self.ordinal + 1)))
    }

    pub fn reserved_streams(&self) -> usize {
        self.streams.lock().map(|s| s.len()).unwrap_or(0)
    }

    /// Makes sure at least `n` streams are reserved (cutorch.reserveStreams never removes any).
    /// New ones are blocking streams, which the default stream waits for and which wait for it
    /// (cutorch's default), or non-blocking ones when asked.
    pub fn reserve_streams(&self, n: usize, non_blocking: bool) -> Result<()> {
        self.bind()?;
        let mut streams = self.streams.lock().map_err(|_| Error::device("stream list poisoned"))?;
        let kind = || match non_blocking {
            true => cu::stream::StreamKind::NonBlocking,
            false => cu::stream::StreamKind::Default,
        };
        while streams.len() < n {
            let s = guard("cuStreamCreate", || {
                cu::stream::create(kind())
                    .map_err(|e| Error::device(format!("cannot create a stream on device {}: {e:?}", self.ordinal + 1)))
            })?;
            streams.push(Stream(s, self.ctx.clone()));
        }
        Ok(())
    }

    /// The stream work on this device goes to now, from the calling thread, with the context bound.
    pub fn current_stream(&self) -> Result<sys::CUstream> {
        self.bind()?;
        self.stream(current_stream_index(self.ordinal))
    }

    /// Notes that a kernel of another device reads this device's memory.
    pub fn mark_read_by_peers(&self) {
        self.read_by_peers.store(true, Ordering::Relaxed);
    }

    /// Waits, before memory of this device is reused, for the work that may still use it: on
    /// its other streams, and on other devices when their kernels have read it.
    pub fn settle_before_reuse(&self) -> Result<()> {
        if self.read_by_peers.load(Ordering::Relaxed) {
            for d in (0..count()).filter_map(opened) {
                d.synchronize()?;
            }
            self.bind()?;
        } else if self.several_streams.load(Ordering::Relaxed) {
            self.synchronize()?;
        }
        Ok(())
    }

    /// Frees every cached allocation of this device (cuMemFree waits for the device first).
    pub fn empty_cache(&self) -> Result<()> {
        self.bind()?;
        let mut first_error = Ok(());
        for addr in self.cache.drain() {
            // SAFETY: a cached block is an allocation of this context that nothing uses.
            let freed = guard("cuMemFree", || unsafe { cu::free_sync(addr) }.map_err(driver::error));
            if first_error.is_ok() {
                first_error = freed;
            }
        }
        first_error
    }

    /// Waits for everything queued on this device.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        guard("synchronize", || {
            cu::ctx::synchronize().map_err(|e| Error::device(format!("device {} failed: {e:?}", self.ordinal + 1)))
        })
    }
}

/// Kinds of per-device state `Slots` holds at most (the compiled kernels and the cuBLAS handle
/// use two).
const SLOTS: usize = 8;

/// A cell of `Slots`: the type whose value it holds, and that value (a `OnceLock` of it).
type Slot = OnceLock<(TypeId, &'static (dyn Any + Send + Sync))>;

/// Values of any types, one per type, each made on first use. A type's value is in the first
/// cell that holds its `TypeId`; cells fill in order and are never emptied, so finding one takes
/// no lock (it is on the path of every kernel launch). The values are leaked: the slots of a
/// device live as long as the process, so a value can be lent for as long as its slots.
#[derive(Default)]
struct Slots([Slot; SLOTS]);

impl Slots {
    fn get<T: Send + Sync + 'static>(&self, init: impl FnOnce() -> T) -> &T {
        let id = TypeId::of::<T>();
        // The first cell that is empty or holds `T`'s: an empty one is claimed (by one thread of
        // any that race for it; the others see what it was claimed for and go on).
        let value = self
            .0
            .iter()
            .find_map(|cell| {
                let (held, value) = cell.get_or_init(|| (id, Box::leak(Box::new(OnceLock::<T>::new()))));
                (*held == id).then_some(*value)
            })
            .expect("more kinds of per-device state than Slots holds");
        // `init` runs outside the claiming: it may take long (compiling the kernels) and make
        // other slots of the same device.
        let cell = value.downcast_ref::<OnceLock<T>>().expect("a slot holds its own type");
        cell.get_or_init(init)
    }
}

/// A reserved stream, destroyed with its device's context still alive.
struct Stream(sys::CUstream, Arc<CudaContext>);

// SAFETY: a CUstream is a handle that the driver lets any thread use.
unsafe impl Send for Stream {}

impl Drop for Stream {
    fn drop(&mut self) {
        // Errors cannot be reported from a drop; a stream left behind costs little.
        let _ = guard("cuStreamDestroy", || {
            self.1.bind_to_thread().map_err(driver::error)?;
            // SAFETY: created once by reserve_streams, destroyed once, here.
            unsafe { cu::stream::destroy(self.0) }.map_err(driver::error)
        });
    }
}

/// A device of the process: opened on first use (or why it could not be).
type Opened = OnceLock<Result<Arc<Device>>>;

fn devices() -> &'static [Opened] {
    static DEVICES: OnceLock<Vec<Opened>> = OnceLock::new();
    DEVICES.get_or_init(|| (0..count()).map(|_| OnceLock::new()).collect())
}

/// Device `ordinal` (0-based), its context made on first use and bound on this thread.
pub fn get(ordinal: usize) -> Result<Arc<Device>> {
    usable()?;
    let Some(cell) = devices().get(ordinal) else {
        return Err(Error::argument(format!(
            "device {} does not exist (there are {})",
            ordinal + 1,
            count()
        )));
    };
    let dev = cell
        .get_or_init(|| {
            guard("cuDevicePrimaryCtxRetain", || {
                let ctx = CudaContext::new(ordinal)
                    .map_err(|e| Error::device(format!("cannot open device {}: {e:?}", ordinal + 1)))?;
                let arch = ctx.compute_capability().map_err(|e| Error::device(format!("{e:?}")))?;
                Ok(Arc::new(Device {
                    ordinal,
                    ctx,
                    streams: Mutex::new(Vec::new()),
                    arch,
                    slots: Slots::default(),
                    cache: Default::default(),
                    several_streams: AtomicBool::new(false),
                    read_by_peers: AtomicBool::new(false),
                }))
            })
        })
        .clone()?;
    dev.bind()?;
    Ok(dev)
}

/// Device `ordinal` if it has been opened (devices stay open for the life of the process).
pub fn opened(ordinal: usize) -> Option<&'static Device> {
    match devices().get(ordinal)?.get()? {
        Ok(dev) => Some(dev),
        Err(_) => None,
    }
}

thread_local! {
    /// The current device of this thread (cutorch.setDevice), 0-based.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    /// The current stream index of this thread, per device.
    static STREAMS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

pub fn current() -> usize {
    CURRENT.with(|c| c.get())
}

pub fn set_current(ordinal: usize) -> Result<()> {
    get(ordinal)?;
    CURRENT.with(|c| c.set(ordinal));
    Ok(())
}

pub fn current_stream_index(ordinal: usize) -> usize {
    STREAMS.with(|s| s.borrow().get(ordinal).copied().unwrap_or(0))
}

pub fn set_current_stream_index(ordinal: usize, index: usize) {
    STREAMS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() <= ordinal {
            s.resize(ordinal + 1, 0);
        }
        s[ordinal] = index;
    });
}

/// The current device, opened.
pub fn current_device() -> Result<Arc<Device>> {
    get(current())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_has_one_slot_made_once() {
        let slots = Slots::default();
        assert_eq!(*slots.get(|| 3u32), 3);
        assert_eq!(*slots.get(|| 4u32), 3, "made once");
        assert_eq!(slots.get(|| "text".to_string()), "text");
        assert_eq!(*slots.get(|| 5u64), 5);
        assert_eq!((*slots.get(|| 0u32), *slots.get(|| 0u64)), (3, 5));
        // Threads racing for the slots of new types all get the one value each type was given.
        let slots = Slots::default();
        let seen: Vec<(u8, u16)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8u8)
                .map(|i| {
                    let slots = &slots;
                    scope.spawn(move || (*slots.get(|| i), *slots.get(|| u16::from(i) + 100)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
        assert_eq!(slots.0.iter().filter(|c| c.get().is_some()).count(), 2);
    }
}
