//! Devices as cutorch has them: counted once per process, each with its primary context made on
//! first use; a current device and a current stream per thread (as the CUDA runtime keeps the
//! current device per thread); reserved streams per device, shared by every thread.
//!
//! Ordinals are 0-based here; the Lua side adds 1.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaContext;
use cudarc::driver::result as cu;
use cudarc::driver::sys;

use super::libs;

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
        if !libs::driver_present() {
            return Census {
                count: 0,
                why_none: "no CUDA driver (libcuda.so.1 was not found)".into(),
                pid,
            };
        }
        let counted = libs::guard("cuInit", || {
            cu::init().map_err(|e| format!("cuInit failed: {e:?}"))?;
            cu::device::get_count().map_err(|e| format!("cuDeviceGetCount failed: {e:?}"))
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
            Err(e) if e.contains("NO_DEVICE") => Census {
                count: 0,
                why_none: "no CUDA device was found".into(),
                pid,
            },
            Err(e) => Census {
                count: 0,
                why_none: e,
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
pub fn usable() -> Result<(), String> {
    let c = census();
    if c.count == 0 {
        return Err(format!("no CUDA device is available ({})", c.why_none));
    }
    if std::process::id() != c.pid {
        return Err(
            "CUDA was set up in the parent of this forked process and cannot be used here (start workers with fork+exec, as parallel does)"
                .into(),
        );
    }
    Ok(())
}

/// `usable`, with the error naming `method`.
pub fn available(method: &str) -> Result<(), String> {
    usable().map_err(|e| format!("{method}: {e}"))
}

/// A device in use: its primary context, its reserved streams, and what is compiled or created
/// for it on demand (kernels, the cuBLAS handle).
pub struct Device {
    pub ordinal: usize,
    pub ctx: Arc<CudaContext>,
    /// Reserved streams: stream i (1-based, as cutorch) is `streams[i - 1]`; stream 0 is the
    /// legacy default stream.
    streams: Mutex<Vec<Stream>>,
    /// Compute capability.
    pub arch: (i32, i32),
    pub(crate) kernels: OnceLock<Result<super::kernels::Module, String>>,
    pub(crate) blas: Mutex<Option<super::blas::Handle>>,
    /// Freed allocations kept for reuse.
    pub(crate) cache: super::cache::Cache,
    /// Set once work has gone to a reserved stream: a freed allocation may then still be in use
    /// on a stream other than the one it was made on, and is only cached after the device is idle.
    several_streams: AtomicBool,
    /// Set once kernels of another device have read this device's memory (kernel peer access):
    /// a freed block is then cached only after every device is idle.
    read_by_peers: AtomicBool,
}

impl Device {
    /// Makes this device's context current on the calling thread.
    pub fn bind(&self) -> Result<(), String> {
        libs::guard("cuCtxSetCurrent", || {
            self.ctx
                .bind_to_thread()
                .map_err(|e| format!("cannot use device {}: {e:?}", self.ordinal + 1))
        })
    }

    /// Free and total memory of the device, in bytes; free counts what this process's cache
    /// holds, as cutorch's did (it is there for the next allocation).
    pub fn memory(&self) -> Result<(usize, usize), String> {
        let (free, total) = libs::guard("cuMemGetInfo", || self.ctx.mem_get_info().map_err(super::memory::drv))?;
        Ok(((free + self.cache.bytes()).min(total), total))
    }

    /// The raw stream of cutorch stream `index` (0: the default stream).
    pub fn stream(&self, index: usize) -> Result<sys::CUstream, String> {
        if index == 0 {
            return Ok(std::ptr::null_mut());
        }
        self.several_streams.store(true, Ordering::Relaxed);
        let streams = self.streams.lock().map_err(|_| "stream list poisoned".to_string())?;
        streams
            .get(index - 1)
            .map(|s| s.0)
            .ok_or_else(|| format!("stream {index} is not reserved on device {}", self.ordinal + 1))
    }

    pub fn reserved_streams(&self) -> usize {
        self.streams.lock().map(|s| s.len()).unwrap_or(0)
    }

    /// Makes sure at least `n` streams are reserved (cutorch.reserveStreams never removes any).
    /// New ones are blocking streams, which the default stream waits for and which wait for it
    /// (cutorch's default), or non-blocking ones when asked.
    pub fn reserve_streams(&self, n: usize, non_blocking: bool) -> Result<(), String> {
        self.bind()?;
        let mut streams = self.streams.lock().map_err(|_| "stream list poisoned".to_string())?;
        let kind = || match non_blocking {
            true => cu::stream::StreamKind::NonBlocking,
            false => cu::stream::StreamKind::Default,
        };
        while streams.len() < n {
            let s = libs::guard("cuStreamCreate", || {
                cu::stream::create(kind())
                    .map_err(|e| format!("cannot create a stream on device {}: {e:?}", self.ordinal + 1))
            })?;
            streams.push(Stream(s, self.ctx.clone()));
        }
        Ok(())
    }

    /// The stream work on this device goes to now, from the calling thread, with the context bound.
    pub fn current_stream(&self) -> Result<sys::CUstream, String> {
        self.bind()?;
        self.stream(current_stream_index(self.ordinal))
    }

    /// Notes that a kernel of another device reads this device's memory.
    pub fn mark_read_by_peers(&self) {
        self.read_by_peers.store(true, Ordering::Relaxed);
    }

    /// Waits, before memory of this device is reused, for the work that may still use it: on
    /// its other streams, and on other devices when their kernels have read it.
    pub fn settle_before_reuse(&self) -> Result<(), String> {
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
    pub fn empty_cache(&self) -> Result<(), String> {
        self.bind()?;
        let mut first_error = Ok(());
        for addr in self.cache.drain() {
            // SAFETY: a cached block is an allocation of this context that nothing uses.
            let freed = libs::guard("cuMemFree", || {
                unsafe { cu::free_sync(addr) }.map_err(super::memory::drv)
            });
            if first_error.is_ok() {
                first_error = freed;
            }
        }
        first_error
    }

    /// Waits for everything queued on this device.
    pub fn synchronize(&self) -> Result<(), String> {
        self.bind()?;
        libs::guard("synchronize", || {
            cu::ctx::synchronize().map_err(|e| format!("device {} failed: {e:?}", self.ordinal + 1))
        })
    }
}

/// A reserved stream, destroyed with its device's context still alive.
struct Stream(sys::CUstream, Arc<CudaContext>);

// SAFETY: a CUstream is a handle that the driver lets any thread use.
unsafe impl Send for Stream {}

impl Drop for Stream {
    fn drop(&mut self) {
        // Errors cannot be reported from a drop; a stream left behind costs little.
        let _ = libs::guard("cuStreamDestroy", || {
            self.1.bind_to_thread().map_err(super::memory::drv)?;
            // SAFETY: created once by reserve_streams, destroyed once, here.
            unsafe { cu::stream::destroy(self.0) }.map_err(super::memory::drv)
        });
    }
}

/// A device slot: opened on first use (or why it could not be).
type Slot = OnceLock<Result<Arc<Device>, String>>;

fn devices() -> &'static [Slot] {
    static DEVICES: OnceLock<Vec<Slot>> = OnceLock::new();
    DEVICES.get_or_init(|| (0..count()).map(|_| OnceLock::new()).collect())
}

/// Device `ordinal` (0-based), its context made on first use; `method` names the caller in errors.
pub fn get(ordinal: usize, method: &str) -> Result<Arc<Device>, String> {
    available(method)?;
    let Some(cell) = devices().get(ordinal) else {
        return Err(format!(
            "{method}: device {} does not exist (there are {})",
            ordinal + 1,
            count()
        ));
    };
    let dev = cell
        .get_or_init(|| {
            libs::guard("cuDevicePrimaryCtxRetain", || {
                let ctx =
                    CudaContext::new(ordinal).map_err(|e| format!("cannot open device {}: {e:?}", ordinal + 1))?;
                let arch = ctx.compute_capability().map_err(|e| format!("{e:?}"))?;
                Ok(Arc::new(Device {
                    ordinal,
                    ctx,
                    streams: Mutex::new(Vec::new()),
                    arch,
                    kernels: OnceLock::new(),
                    blas: Mutex::new(None),
                    cache: Default::default(),
                    several_streams: AtomicBool::new(false),
                    read_by_peers: AtomicBool::new(false),
                }))
            })
        })
        .clone()
        .map_err(|e| format!("{method}: {e}"))?;
    dev.bind().map_err(|e| format!("{method}: {e}"))?;
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

pub fn set_current(ordinal: usize, method: &str) -> Result<(), String> {
    get(ordinal, method)?;
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
pub fn current_device(method: &str) -> Result<Arc<Device>, String> {
    get(current(), method)
}
