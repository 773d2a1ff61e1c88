//! NCCL 1.x's C interface, for Lua scripts written against it (nccl.torch's ffi.lua, copied into
//! many training scripts): they declare NCCL 1.x's header through LuaJIT's FFI and load
//! `libnccl.so.1`. Against NCCL 2.x that declaration is wrong (the soname, `int` counts, and
//! above all the type codes: 1.x float is 3, which 2.x reads as uint32), so a symlink would sum
//! bit patterns.
//!
//! `th` carries its own `libnccl.so.1` (native/nccl1.c: the 1.x ABI and nothing else), writes it
//! to its cache directory and loads it by absolute path (`provide`, at `require 'cutorch'`), so a
//! later bare `ffi.load('libnccl.so.1')` finds the loaded library by its soname. The library
//! calls back into the functions below, which translate the 1.x codes and run the collectives
//! through `shared::Group`: on NCCL 2 when each rank has a GPU of its own, with ranks of one GPU
//! summed through CUDA IPC (NCCL 2.5 and later refuse them).
//!
//! C callers get only a result code, so each failure is also printed on stderr, as NCCL does
//! with NCCL_DEBUG=WARN.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::comm::{Call, Communicator, Kind, run_group};
use super::loader::{self, UNIQUE_ID_BYTES};
use super::meeting;
use super::shared::{Failure, Group};
use crate::cuda::device;
use crate::error::{Error, Result};

/// NCCL 1.x result codes.
const SUCCESS: c_int = 0;
const SYSTEM_ERROR: c_int = 2;
const INTERNAL_ERROR: c_int = 3;
const INVALID_DEVICE_POINTER: c_int = 4;
const INVALID_RANK: c_int = 5;
const INVALID_DEVICE_INDEX: c_int = 8;
const RANK_MISMATCH: c_int = 11;
const INVALID_ARGUMENT: c_int = 12;
const INVALID_TYPE: c_int = 13;
const INVALID_OPERATION: c_int = 14;

/// What native/nccl1.c calls (`struct luatorch_nccl1_ops`, same layout).
#[repr(C)]
struct Ops {
    get_unique_id: extern "C" fn(*mut [u8; UNIQUE_ID_BYTES]) -> c_int,
    comm_init_rank: extern "C" fn(*mut *mut c_void, c_int, *const [u8; UNIQUE_ID_BYTES], c_int) -> c_int,
    comm_init_all: extern "C" fn(*mut *mut c_void, c_int, *const c_int) -> c_int,
    comm_destroy: extern "C" fn(*mut c_void),
    comm_query: extern "C" fn(*mut c_void, c_int, *mut c_int) -> c_int,
    #[allow(clippy::type_complexity)]
    collective:
        extern "C" fn(c_int, *const c_void, *mut c_void, c_int, c_int, c_int, c_int, *mut c_void, *mut c_void) -> c_int,
}

static OPS: Ops = Ops {
    get_unique_id,
    comm_init_rank,
    comm_init_all,
    comm_destroy,
    comm_query,
    collective,
};

/// The library, as built by build.rs.
static LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libnccl.so.1"));

/// Loads our libnccl.so.1 (once per process) and binds it to this process's functions; the
/// path it was loaded from.
pub fn provide() -> Result<String> {
    static DONE: OnceLock<Result<String>> = OnceLock::new();
    DONE.get_or_init(install).clone()
}

fn install() -> Result<String> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    LIBRARY.hash(&mut h);
    let base = crate::settings::cuda_cache_dir()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("luatorch-{}", nix::unistd::getuid())));
    let dir = base.join(format!("nccl1-{:016x}", h.finish()));
    let path = dir.join("libnccl.so.1");
    if std::fs::metadata(&path).ok().map(|m| m.len() as usize) != Some(LIBRARY.len()) {
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("{}: {e}", dir.display())))?;
        // Written whole and renamed into place: another th may be loading it right now.
        let tmp = dir.join(format!(".libnccl.so.1.{}", std::process::id()));
        std::fs::write(&tmp, LIBRARY)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                Error::io(format!("{}: {e}", path.display()))
            })?;
    }
    // SAFETY: our own library, whose initialisers do nothing.
    let lib = unsafe { libloading::Library::new(&path) }
        .map_err(|e| Error::io(format!("loading {}: {e}", path.display())))?;
    // SAFETY: the symbol is `void luatorch_nccl1_bind(const struct luatorch_nccl1_ops *)`.
    unsafe {
        let bind = lib
            .get::<unsafe extern "C" fn(*const Ops)>(b"luatorch_nccl1_bind")
            .map_err(|e| Error::io(format!("{}: {e}", path.display())))?;
        bind(&OPS);
    }
    // Kept loaded for the life of the process: scripts find it by its soname from now on.
    std::mem::forget(lib);
    Ok(path.display().to_string())
}

/// A 1.x communicator: one rank of a `Group`, or one device of an `ncclCommInitAll` clique.
enum V1Comm {
    Rank(Box<Group>),
    Clique(Arc<Mutex<Clique>>, usize),
}

// SAFETY: NCCL communicators may be used from any thread, one call at a time, which the mutex
// each one sits in ensures.
unsafe impl Send for V1Comm {}
unsafe impl Send for Clique {}

/// The communicators of one `ncclCommInitAll`. NCCL 1.x let one thread call each device's
/// collective in turn; NCCL 2 needs them in one group, so calls wait here until every device
/// has one, then run together.
struct Clique {
    comms: Vec<Communicator>,
    pending: Vec<Option<Call>>,
}

/// Live communicators by handle (the handles C code holds are keys, never dereferenced).
fn comms() -> &'static Mutex<HashMap<usize, Arc<Mutex<V1Comm>>>> {
    static COMMS: OnceLock<Mutex<HashMap<usize, Arc<Mutex<V1Comm>>>>> = OnceLock::new();
    COMMS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn register(c: V1Comm) -> *mut c_void {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
    let key = 0x1000_0000 + 16 * NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    comms()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, Arc::new(Mutex::new(c)));
    key as *mut c_void
}

fn lookup(handle: *mut c_void) -> Option<Arc<Mutex<V1Comm>>> {
    comms()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&(handle as usize))
        .cloned()
}

fn warn(call: &str, message: impl std::fmt::Display) {
    eprintln!("libnccl.so.1 (luatorch): {call}: {message}");
}

/// Runs `f`, turning a panic into an internal error: nothing may unwind into C.
fn guarded(call: &str, f: impl FnOnce() -> c_int) -> c_int {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(rc) => rc,
        Err(_) => {
            warn(call, "internal error");
            INTERNAL_ERROR
        }
    }
}

fn timeout() -> Duration {
    let secs = crate::settings::number::<f64>(crate::settings::NCCL_TIMEOUT)
        .filter(|s| *s > 0.0)
        .unwrap_or(300.0);
    Duration::from_secs_f64(secs)
}

/// NCCL 1.x's data types as NCCL 2's: char, int, half, float, double, int64, uint64.
fn type_code(v1: c_int) -> Option<c_int> {
    Some(match v1 {
        0 => 0,
        1 => 2,
        2 => 6,
        3 => 7,
        4 => 8,
        5 => 4,
        6 => 5,
        _ => return None,
    })
}

extern "C" fn get_unique_id(out: *mut [u8; UNIQUE_ID_BYTES]) -> c_int {
    guarded("ncclGetUniqueId", || {
        if out.is_null() {
            warn("ncclGetUniqueId", "the id pointer is NULL");
            return INVALID_ARGUMENT;
        }
        // NCCL's id when NCCL is there (needed once the ranks span several GPUs); zeros
        // otherwise, which is enough for ranks that all share one GPU.
        let mut id = loader::nccl()
            .and_then(|n| n.unique_id())
            .unwrap_or([0; UNIQUE_ID_BYTES]);
        if let Err(e) = meeting::mark_id(&mut id) {
            warn("ncclGetUniqueId", e);
            return SYSTEM_ERROR;
        }
        // SAFETY: the caller passes room for one ncclUniqueId.
        unsafe { *out = id };
        SUCCESS
    })
}

extern "C" fn comm_init_rank(
    comm: *mut *mut c_void,
    ndev: c_int,
    id: *const [u8; UNIQUE_ID_BYTES],
    rank: c_int,
) -> c_int {
    const F: &str = "ncclCommInitRank";
    guarded(F, || {
        if comm.is_null() || id.is_null() {
            warn(F, "a NULL pointer");
            return INVALID_ARGUMENT;
        }
        if ndev < 1 || ndev as usize > meeting::MAX_RANKS {
            warn(F, format!("{ndev} ranks"));
            return INVALID_ARGUMENT;
        }
        if rank < 0 || rank >= ndev {
            warn(F, format!("rank {rank} is out of range for {ndev} ranks"));
            return INVALID_RANK;
        }
        if device::count() == 0 {
            warn(F, "no CUDA device");
            return INVALID_DEVICE_INDEX;
        }
        // SAFETY: the shim passes the address of the by-value id it received.
        let id = unsafe { *id };
        match Group::join(ndev as usize, &id, rank as usize, device::current(), timeout()) {
            Ok(g) => {
                // SAFETY: the caller's ncclComm_t slot.
                unsafe { *comm = register(V1Comm::Rank(Box::new(g))) };
                SUCCESS
            }
            Err(e) => {
                warn(F, format!("rank {rank} of {ndev}: {}", e.message()));
                SYSTEM_ERROR
            }
        }
    })
}

extern "C" fn comm_init_all(comm: *mut *mut c_void, ndev: c_int, devlist: *const c_int) -> c_int {
    const F: &str = "ncclCommInitAll";
    guarded(F, || {
        if comm.is_null() || ndev < 1 {
            warn(F, "a NULL pointer or no devices");
            return INVALID_ARGUMENT;
        }
        let n = ndev as usize;
        let devices: Vec<usize> = if devlist.is_null() {
            (0..n).collect()
        } else {
            // SAFETY: the caller passes ndev device numbers.
            unsafe { std::slice::from_raw_parts(devlist, n) }
                .iter()
                .map(|&d| d as usize)
                .collect()
        };
        if devices.iter().any(|&d| d >= device::count()) {
            warn(F, format!("devices {devices:?}: only {} present", device::count()));
            return INVALID_DEVICE_INDEX;
        }
        match Communicator::init_all(&devices, timeout()) {
            Ok(list) => {
                let clique = Arc::new(Mutex::new(Clique {
                    pending: (0..list.len()).map(|_| None).collect(),
                    comms: list,
                }));
                for i in 0..n {
                    // SAFETY: the caller's array of ndev ncclComm_t.
                    unsafe { *comm.add(i) = register(V1Comm::Clique(clique.clone(), i)) };
                }
                SUCCESS
            }
            Err(e) => {
                warn(F, e.message());
                SYSTEM_ERROR
            }
        }
    })
}

extern "C" fn comm_destroy(comm: *mut c_void) {
    guarded("ncclCommDestroy", || {
        let c = comms()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(comm as usize));
        if let Some(c) = c
            && let Ok(m) = Arc::try_unwrap(c)
            && let V1Comm::Rank(mut g) = m.into_inner().unwrap_or_else(|p| p.into_inner())
        {
            g.destroy();
        }
        SUCCESS
    });
}

extern "C" fn comm_query(comm: *mut c_void, what: c_int, out: *mut c_int) -> c_int {
    guarded("ncclCommCount", || {
        let Some(c) = lookup(comm) else {
            return INVALID_ARGUMENT;
        };
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        let c = c.lock().unwrap_or_else(|p| p.into_inner());
        let (count, device, rank) = match &*c {
            V1Comm::Rank(g) => (g.nranks, g.device, g.rank),
            V1Comm::Clique(cl, i) => {
                let cl = cl.lock().unwrap_or_else(|p| p.into_inner());
                (cl.comms.len(), cl.comms[*i].device, *i)
            }
        };
        let v = match what {
            0 => count,
            1 => device,
            _ => rank,
        };
        // SAFETY: the caller's int.
        unsafe { *out = v as c_int };
        SUCCESS
    })
}

#[allow(clippy::too_many_arguments)]
extern "C" fn collective(
    kind: c_int,
    send: *const c_void,
    recv: *mut c_void,
    count: c_int,
    dtype: c_int,
    op: c_int,
    root: c_int,
    comm: *mut c_void,
    stream: *mut c_void,
) -> c_int {
    let (kind, name) = match kind {
        0 => (Kind::AllReduce, "ncclAllReduce"),
        1 => (Kind::Reduce, "ncclReduce"),
        2 => (Kind::Bcast, "ncclBcast"),
        3 => (Kind::AllGather, "ncclAllGather"),
        _ => (Kind::ReduceScatter, "ncclReduceScatter"),
    };
    guarded(name, || {
        let Some(c) = lookup(comm) else {
            warn(name, "not a live communicator");
            return INVALID_ARGUMENT;
        };
        if count < 0 {
            warn(name, format!("a negative count ({count})"));
            return INVALID_ARGUMENT;
        }
        let Some(dtype) = type_code(dtype) else {
            warn(name, format!("unknown data type {dtype}"));
            return INVALID_TYPE;
        };
        if kind.takes_op() && !(0..=3).contains(&op) {
            warn(name, format!("unknown reduction operation {op}"));
            return INVALID_OPERATION;
        }
        let mut c = c.lock().unwrap_or_else(|p| p.into_inner());
        let (nranks, my_rank) = match &*c {
            V1Comm::Rank(g) => (g.nranks, g.rank),
            V1Comm::Clique(cl, i) => (cl.lock().unwrap_or_else(|p| p.into_inner()).comms.len(), *i),
        };
        if kind.takes_root() && (root < 0 || root as usize >= nranks) {
            warn(name, format!("root {root} is out of range for {nranks} ranks"));
            return INVALID_RANK;
        }
        // Non-root ranks of a reduce may pass NULL for the output (1.x allowed it).
        let needs_recv = !(kind == Kind::Reduce && root as usize != my_rank);
        if count > 0 && (send.is_null() || (needs_recv && recv.is_null())) {
            warn(name, "a NULL buffer");
            return INVALID_DEVICE_POINTER;
        }
        let (send, recv, count, stream) = (send as u64, recv as u64, count as usize, stream as usize);
        match &mut *c {
            V1Comm::Rank(g) => match g.run(&Call::raw(kind, send, recv, count, dtype, op, root, stream)) {
                Ok(()) => SUCCESS,
                Err((f, e)) => {
                    warn(name, e.message());
                    match f {
                        Failure::Mismatch => RANK_MISMATCH,
                        Failure::Type => INVALID_TYPE,
                        Failure::Internal => SYSTEM_ERROR,
                    }
                }
            },
            V1Comm::Clique(cl, i) => {
                let mut cl = cl.lock().unwrap_or_else(|p| p.into_inner());
                cl.pending[*i] = Some(Call::raw(kind, send, recv, count, dtype, op, root, stream));
                if cl.pending.iter().all(Option::is_some) {
                    let calls: Vec<Call> = cl.pending.iter_mut().map(|p| p.take().unwrap()).collect();
                    let mut refs: Vec<&mut Communicator> = cl.comms.iter_mut().collect();
                    if let Err(e) = run_group(&mut refs, &calls) {
                        warn(name, e.message());
                        return SYSTEM_ERROR;
                    }
                }
                SUCCESS
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nccl1_types_map_to_their_nccl2_codes() {
        // char, int, half, float, double, int64, uint64
        let want = [0, 2, 6, 7, 8, 4, 5];
        for (v1, v2) in want.iter().enumerate() {
            assert_eq!(type_code(v1 as c_int), Some(*v2));
        }
        assert_eq!(type_code(7), None);
        assert_eq!(type_code(-1), None);
    }

    #[test]
    fn the_embedded_library_is_a_shared_object_named_libnccl_so_1() {
        assert_eq!(&LIBRARY[..4], b"\x7fELF");
        let soname = b"libnccl.so.1";
        assert!(LIBRARY.windows(soname.len()).any(|w| w == soname));
    }
}
