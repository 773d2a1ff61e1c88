//! OpenBLAS for the Float and Double matrix products, loaded on first use.
//!
//! Why `dlopen` rather than linking: libopenblas's constructor starts its thread pool and costs
//! about 1.7 ms at every process start, which would double `th -e ''` (the startup benchmark's goal
//! is at most 2x luajit). Scripts that never multiply matrices never pay for it. The library is
//! Debian's `libopenblas0-pthread` (`apt-get install libopenblas-dev`); its CBLAS symbols are looked
//! up by name once. Without it the products fall back to plain Rust loops (correct, slower).
//!
//! Everything here is column-major CBLAS with 32-bit integers (Debian's LP64 build).

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const COL_MAJOR: c_int = 102;
pub const NO_TRANS: c_int = 111;
pub const TRANS: c_int = 112;

type Gemm<T> = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    T,
    *const T,
    c_int,
    *const T,
    c_int,
    T,
    *mut T,
    c_int,
);
type Gemv<T> = unsafe extern "C" fn(c_int, c_int, c_int, c_int, T, *const T, c_int, *const T, c_int, T, *mut T, c_int);
type Dot<T> = unsafe extern "C" fn(c_int, *const T, c_int, *const T, c_int) -> T;
type Ger<T> = unsafe extern "C" fn(c_int, c_int, c_int, T, *const T, c_int, *const T, c_int, *mut T, c_int);

/// The entry points of one real type.
pub struct Routines<T> {
    pub gemm: Gemm<T>,
    pub gemv: Gemv<T>,
    pub dot: Dot<T>,
    pub ger: Ger<T>,
}

pub struct Api {
    pub s: Routines<f32>,
    pub d: Routines<f64>,
    set_threads: unsafe extern "C" fn(c_int),
    get_threads: unsafe extern "C" fn() -> c_int,
    /// The file that was loaded, for messages.
    pub library: &'static str,
    /// The dlopen handle, for the LAPACK symbols (`lookup`).
    handle: usize,
}

// SAFETY: plain function pointers into a library that is never unloaded.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

/// Sonames tried in order: the runtime package's, then the development symlink.
const LIBRARIES: [&str; 2] = ["libopenblas.so.0", "libopenblas.so"];

static API: OnceLock<Option<Api>> = OnceLock::new();

/// Thread count asked for before the library was loaded, applied when it is (0: its default).
static REQUESTED_THREADS: AtomicUsize = AtomicUsize::new(0);

unsafe fn symbol<F: Copy>(handle: *mut c_void, name: &CStr) -> Option<F> {
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: the caller names a symbol whose C type is F.
    let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if p.is_null() {
        None
    } else {
        Some(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }
}

fn load() -> Option<Api> {
    for library in LIBRARIES {
        let name = std::ffi::CString::new(library).ok()?;
        // SAFETY: dlopen of a shared library by name; RTLD_LOCAL keeps its symbols out of the
        // global namespace (Lua C modules loaded later cannot bind to them by accident).
        let handle = unsafe { libc::dlopen(name.as_ptr() as *const c_char, libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            continue;
        }
        // SAFETY: the CBLAS and OpenBLAS signatures declared above.
        let api = unsafe {
            (|| {
                Some(Api {
                    s: Routines {
                        gemm: symbol(handle, c"cblas_sgemm")?,
                        gemv: symbol(handle, c"cblas_sgemv")?,
                        dot: symbol(handle, c"cblas_sdot")?,
                        ger: symbol(handle, c"cblas_sger")?,
                    },
                    d: Routines {
                        gemm: symbol(handle, c"cblas_dgemm")?,
                        gemv: symbol(handle, c"cblas_dgemv")?,
                        dot: symbol(handle, c"cblas_ddot")?,
                        ger: symbol(handle, c"cblas_dger")?,
                    },
                    set_threads: symbol(handle, c"openblas_set_num_threads")?,
                    get_threads: symbol(handle, c"openblas_get_num_threads")?,
                    library,
                    handle: handle as usize,
                })
            })()
        };
        match api {
            Some(api) => {
                let n = REQUESTED_THREADS.load(Ordering::Relaxed);
                if n > 0 {
                    // SAFETY: valid entry point; n was checked positive when it was stored.
                    unsafe { (api.set_threads)(n.min(c_int::MAX as usize) as c_int) };
                }
                return Some(api);
            }
            None => {
                // Not an OpenBLAS with CBLAS: leave it and try the next name.
                // SAFETY: handle from dlopen above, nothing from it is kept.
                unsafe { libc::dlclose(handle) };
            }
        }
    }
    None
}

/// The loaded library, or None when no OpenBLAS could be loaded.
pub fn api() -> Option<&'static Api> {
    API.get_or_init(load).as_ref()
}

/// A further symbol of the loaded library (LAPACK's `dgesv_`, ...): None without OpenBLAS or
/// when this build of it lacks the symbol.
///
/// # Safety
/// `F` must be the C type of the symbol `name` (a function pointer).
pub unsafe fn lookup<F: Copy>(name: &CStr) -> Option<F> {
    let api = api()?;
    // SAFETY: a handle from dlopen that is never closed; the caller vouches for F.
    unsafe { symbol(api.handle as *mut c_void, name) }
}

/// Whether the Float/Double products run through OpenBLAS.
pub fn available() -> bool {
    api().is_some()
}

/// `torch.setnumthreads(n)`: OpenBLAS's thread count (n >= 1).
pub fn set_num_threads(n: usize) {
    REQUESTED_THREADS.store(n, Ordering::Relaxed);
    if let Some(api) = api() {
        // SAFETY: valid entry point.
        unsafe { (api.set_threads)(n.min(c_int::MAX as usize) as c_int) };
    }
}

/// `torch.getnumthreads()`: OpenBLAS's thread count, or the last count asked for (1 by default)
/// when there is no OpenBLAS.
pub fn num_threads() -> usize {
    match api() {
        // SAFETY: valid entry point.
        Some(api) => unsafe { (api.get_threads)() }.max(1) as usize,
        None => REQUESTED_THREADS.load(Ordering::Relaxed).max(1),
    }
}

/// The thread count last given to `torch.setnumthreads` (0: never set). Reading it does not load
/// OpenBLAS, so other kernels can follow the user's choice without paying for the library.
pub fn requested_threads() -> usize {
    REQUESTED_THREADS.load(Ordering::Relaxed)
}

/// A dimension or leading dimension as a BLAS int, None when it does not fit.
pub fn int(n: usize) -> Option<c_int> {
    c_int::try_from(n).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openblas_is_loaded_and_multiplies() {
        // CI installs libopenblas-dev and must exercise the BLAS path; elsewhere (a fresh machine
        // without it) the products use the fallback loops and this test says why it skips.
        let Some(api) = api() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "libopenblas.so.0 could not be loaded (apt-get install libopenblas-dev)"
            );
            eprintln!("skipped: libopenblas.so.0 is not installed (apt-get install libopenblas-dev)");
            return;
        };
        // [1 2; 3 4] * [5 6; 7 8] in column-major storage.
        let a = [1.0f64, 3.0, 2.0, 4.0];
        let b = [5.0f64, 7.0, 6.0, 8.0];
        let mut c = [0.0f64; 4];
        unsafe {
            (api.d.gemm)(
                COL_MAJOR,
                NO_TRANS,
                NO_TRANS,
                2,
                2,
                2,
                1.0,
                a.as_ptr(),
                2,
                b.as_ptr(),
                2,
                0.0,
                c.as_mut_ptr(),
                2,
            )
        };
        assert_eq!(c, [19.0, 43.0, 22.0, 50.0]);
        let x = [1.0f32, 2.0, 3.0];
        assert_eq!(unsafe { (api.s.dot)(3, x.as_ptr(), 1, x.as_ptr(), 1) }, 14.0);
    }

    #[test]
    fn thread_count_round_trips() {
        let before = num_threads();
        set_num_threads(1);
        assert_eq!(num_threads(), 1);
        assert_eq!(requested_threads(), 1);
        set_num_threads(before);
        assert_eq!(num_threads(), before);
    }
}
