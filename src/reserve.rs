//! The process's allocator: the system's, with an emergency reserve, so that running out of
//! memory is a Lua error rather than an abort.
//!
//! Rust aborts the process when an allocation fails, and most allocations cannot be made
//! fallible (a tensor's shape, an `Arc`, mlua's own). Where a script chooses the size (a
//! storage, a serialization buffer, a message), the code reserves fallibly and reports the size.
//! For everything else, `th` keeps `RESERVE_BYTES` of address space mapped and unused: when an
//! allocation fails, the reserve is given back and the allocation tried again, which lets the
//! call finish; then `shortage()`, asked where new userdata are made, turns the shortage into a
//! Lua error in the script, which frees what it holds, until the reserve can be taken again.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Enough for what a call does between the failed allocation and its return.
const RESERVE_BYTES: usize = 64 << 20;

static RESERVE: AtomicPtr<libc::c_void> = AtomicPtr::new(null_mut());
/// The reserve was spent on a failed allocation and has not been taken again.
static SHORT: AtomicBool = AtomicBool::new(false);
/// Whether this process's allocator is `Reserved` (a library loaded into another program's Lua
/// has none).
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system allocator, with the reserve behind it. `th`'s binaries install it.
pub struct Reserved;

fn give_back_reserve() -> bool {
    let r = RESERVE.swap(null_mut(), Ordering::AcqRel);
    if r.is_null() {
        return false;
    }
    // SAFETY: `r` is the mapping `arm` made, of RESERVE_BYTES, and nobody else holds it.
    unsafe { libc::munmap(r, RESERVE_BYTES) };
    SHORT.store(true, Ordering::Release);
    true
}

/// Requests this large do not spend the reserve: it would not make them fit, and the code that
/// asks for such sizes (storages, buffers a script sizes) reserves fallibly and reports them.
const SMALL: usize = RESERVE_BYTES / 4;

/// Tries `f` again after giving back the reserve, once, for a small request of `size` bytes.
fn retry(size: usize, f: impl FnOnce() -> *mut u8) -> *mut u8 {
    if size < SMALL && give_back_reserve() {
        f()
    } else {
        null_mut()
    }
}

// SAFETY: every call forwards to the system allocator with the caller's arguments; the reserve
// is a separate mapping that the system allocator never sees.
unsafe impl GlobalAlloc for Reserved {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as GlobalAlloc::alloc's contract, forwarded.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            return retry(layout.size(), || unsafe { System.alloc(layout) });
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as GlobalAlloc::alloc_zeroed's contract, forwarded.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            return retry(layout.size(), || unsafe { System.alloc_zeroed(layout) });
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from System, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as GlobalAlloc::realloc's contract, forwarded; a failed realloc leaves `ptr`
        // valid, so it may be tried again.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            return retry(new_size, || unsafe { System.realloc(ptr, layout, new_size) });
        }
        p
    }
}

/// Maps the reserve if it is not held; whether it is held now.
fn arm() -> bool {
    if !RESERVE.load(Ordering::Acquire).is_null() {
        return true;
    }
    // SAFETY: a fresh anonymous private mapping; it counts against the address-space limit,
    // which is what it stands in for, and is never touched.
    let p = unsafe {
        libc::mmap(
            null_mut(),
            RESERVE_BYTES,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return false;
    }
    if RESERVE
        .compare_exchange(null_mut(), p, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // SAFETY: our own mapping, which lost the race to another thread's.
        unsafe { libc::munmap(p, RESERVE_BYTES) };
    }
    true
}

/// Called once by a binary whose global allocator is `Reserved`: takes the reserve.
pub fn install() {
    INSTALLED.store(true, Ordering::Release);
    arm();
}

/// Whether memory is short: an allocation spent the reserve and it cannot be taken again. Once
/// what the script holds is freed the reserve is retaken and all is well again; a shortage that
/// passed by itself (the reserve can be retaken at once) is no error of anyone's. Cheap when all
/// is well: one atomic load.
pub fn shortage() -> bool {
    if !INSTALLED.load(Ordering::Relaxed) || !SHORT.load(Ordering::Acquire) {
        return false;
    }
    if arm() {
        SHORT.store(false, Ordering::Release);
        return false;
    }
    true
}

/// The message of a call that ran into the memory limit.
pub const SHORTAGE: &str =
    "not enough memory: the process reached its memory limit (the call was let finish; free what the script holds)";

/// Lua's own heap, on the system allocator with no abort: mlua's allocator ends the process when
/// an allocation fails, while LuaJIT, given NULL, raises "not enough memory", which a script's
/// pcall catches. `guard_lua` puts this one in place of mlua's for a state we made.
mod lua_heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::ffi::c_void;
    use std::ptr::null_mut;

    use mlua::ffi::{self, lua_Alloc, lua_State};

    /// mlua's allocator data, which this one inherits, and the state's main block, whose free is
    /// the last thing `lua_close` does.
    struct Heap {
        mlua_data: *mut c_void,
        main_block: *mut c_void,
    }

    const ALIGN: usize = ffi::SYS_MIN_ALIGN;

    unsafe extern "C" fn allocate(ud: *mut c_void, ptr: *mut c_void, osize: usize, nsize: usize) -> *mut c_void {
        if nsize == 0 {
            if !ptr.is_null() {
                // SAFETY: Lua frees a block it got from this allocator (or from mlua's, which
                // used the same system allocator with the same alignment), with its size.
                unsafe { System.dealloc(ptr.cast(), Layout::from_size_align_unchecked(osize, ALIGN)) };
                let heap = ud as *mut Heap;
                // SAFETY: `ud` is the Heap `install` leaked; this is the state's last free.
                if ptr == unsafe { (*heap).main_block } {
                    unsafe {
                        // mlua's data was a Box of plain fields from the same allocator.
                        libc::free((*heap).mlua_data);
                        drop(Box::from_raw(heap));
                    }
                }
            }
            return null_mut();
        }
        let Ok(layout) = Layout::from_size_align(nsize, ALIGN) else {
            return null_mut();
        };
        // SAFETY: fresh or resized blocks of Lua's, as the lua_Alloc contract has them; NULL on
        // failure, which LuaJIT turns into its memory error.
        unsafe {
            if ptr.is_null() {
                System.alloc(layout).cast()
            } else {
                System
                    .realloc(ptr.cast(), Layout::from_size_align_unchecked(osize, ALIGN), nsize)
                    .cast()
            }
        }
    }

    /// Puts `allocate` in place of mlua's allocator on the main state `state`.
    ///
    /// # Safety
    /// `state` is a main state made by mlua (GG_State starts with it), with mlua's allocator.
    pub unsafe fn install(state: *mut lua_State) {
        let mut mlua_data = null_mut();
        // SAFETY: as the caller promises.
        let _: lua_Alloc = unsafe { ffi::lua_getallocf(state, &mut mlua_data) };
        let heap = Box::into_raw(Box::new(Heap {
            mlua_data,
            main_block: state.cast(),
        }));
        unsafe { ffi::lua_setallocf(state, allocate, heap.cast()) };
    }
}

/// Makes `lua` (a fresh state of ours) raise Lua's memory error when its heap cannot grow,
/// rather than abort. mlua is told first that memory errors can happen (a limit it never
/// reaches), so that it protects the calls that allocate.
pub fn guard_lua(lua: &mlua::Lua) -> mlua::Result<()> {
    lua.set_memory_limit(isize::MAX as usize)?;
    // SAFETY: the state still has mlua's allocator (set_memory_limit just found it); the
    // allocator goes in only from the main state, which lua_pushthread tells (it pushes one
    // value, which exec_raw's stack guard takes off).
    unsafe {
        lua.exec_raw::<()>((), |state| {
            if mlua::ffi::lua_pushthread(state) == 1 {
                lua_heap::install(state);
            }
        })
    }
}
