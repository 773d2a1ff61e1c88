//! LAPACK's Fortran entry points (`dgesv_`, `spotrf_`, ...) as the OpenBLAS loaded by
//! `blas::openblas` exports them, looked up by name once, at the first LAPACK call.
//!
//! Fortran passes every argument by reference. Character arguments are followed, after the last
//! declared argument, by their hidden lengths (gfortran's `size_t`); they are always passed
//! (1 each), since a LAPACK built by a recent gfortran may rely on them. Integers are 32-bit
//! (Debian's LP64 build).

use std::ffi::{c_char, c_int};
use std::sync::OnceLock;

use crate::torch::base::dtype::Element;
use crate::torch::kernels::blas::openblas;

type Ch = *const c_char;
type I = *const c_int;
type Info = *mut c_int;
/// A hidden Fortran string length.
type Len = usize;

pub type Gesv<T> = unsafe extern "C" fn(I, I, *mut T, I, *mut c_int, *mut T, I, Info);
pub type Trtrs<T> = unsafe extern "C" fn(Ch, Ch, Ch, I, I, *const T, I, *mut T, I, Info, Len, Len, Len);
pub type Gels<T> = unsafe extern "C" fn(Ch, I, I, I, *mut T, I, *mut T, I, *mut T, I, Info, Len);
pub type Syev<T> = unsafe extern "C" fn(Ch, Ch, I, *mut T, I, *mut T, *mut T, I, Info, Len, Len);
pub type Geev<T> =
    unsafe extern "C" fn(Ch, Ch, I, *mut T, I, *mut T, *mut T, *mut T, I, *mut T, I, *mut T, I, Info, Len, Len);
pub type Gesvd<T> =
    unsafe extern "C" fn(Ch, Ch, I, I, *mut T, I, *mut T, *mut T, I, *mut T, I, *mut T, I, Info, Len, Len);
pub type Getrf<T> = unsafe extern "C" fn(I, I, *mut T, I, *mut c_int, Info);
pub type Getri<T> = unsafe extern "C" fn(I, *mut T, I, *const c_int, *mut T, I, Info);
/// potrf and potri.
pub type Potrf<T> = unsafe extern "C" fn(Ch, I, *mut T, I, Info, Len);
pub type Potrs<T> = unsafe extern "C" fn(Ch, I, I, *const T, I, *mut T, I, Info, Len);
pub type Pstrf<T> = unsafe extern "C" fn(Ch, I, *mut T, I, *mut c_int, *mut c_int, *const T, *mut T, Info, Len);
pub type Geqrf<T> = unsafe extern "C" fn(I, I, *mut T, I, *mut T, *mut T, I, Info);
pub type Orgqr<T> = unsafe extern "C" fn(I, I, I, *mut T, I, *const T, *mut T, I, Info);
pub type Ormqr<T> = unsafe extern "C" fn(Ch, Ch, I, I, I, *const T, I, *const T, *mut T, I, *mut T, I, Info, Len, Len);

/// The routines of one real type.
pub struct Routines<T> {
    pub gesv: Gesv<T>,
    pub trtrs: Trtrs<T>,
    pub gels: Gels<T>,
    pub syev: Syev<T>,
    pub geev: Geev<T>,
    pub gesvd: Gesvd<T>,
    pub getrf: Getrf<T>,
    pub getri: Getri<T>,
    pub potrf: Potrf<T>,
    pub potri: Potrf<T>,
    pub potrs: Potrs<T>,
    pub pstrf: Pstrf<T>,
    pub geqrf: Geqrf<T>,
    pub orgqr: Orgqr<T>,
    pub ormqr: Ormqr<T>,
}

pub struct Lapack {
    pub s: Routines<f32>,
    pub d: Routines<f64>,
}

// SAFETY: plain function pointers into a library that is never unloaded.
unsafe impl Send for Lapack {}
unsafe impl Sync for Lapack {}

static LAPACK: OnceLock<Option<Lapack>> = OnceLock::new();

/// The routine `name` of precision `p` ("s" or "d"): `sym!("d", "gesv_")` is `dgesv_`.
macro_rules! sym {
    ($p:literal, $name:literal) => {
        openblas::lookup(std::ffi::CStr::from_bytes_with_nul(concat!($p, $name, "\0").as_bytes()).ok()?)?
    };
}

macro_rules! routines {
    ($p:literal) => {
        Routines {
            gesv: sym!($p, "gesv_"),
            trtrs: sym!($p, "trtrs_"),
            gels: sym!($p, "gels_"),
            syev: sym!($p, "syev_"),
            geev: sym!($p, "geev_"),
            gesvd: sym!($p, "gesvd_"),
            getrf: sym!($p, "getrf_"),
            getri: sym!($p, "getri_"),
            potrf: sym!($p, "potrf_"),
            potri: sym!($p, "potri_"),
            potrs: sym!($p, "potrs_"),
            pstrf: sym!($p, "pstrf_"),
            geqrf: sym!($p, "geqrf_"),
            orgqr: sym!($p, "orgqr_"),
            ormqr: sym!($p, "ormqr_"),
        }
    };
}

fn load() -> Option<Lapack> {
    // SAFETY: each symbol is looked up with the C type of its Fortran routine, declared above.
    unsafe {
        Some(Lapack {
            s: routines!("s"),
            d: routines!("d"),
        })
    }
}

/// LAPACK, or None when OpenBLAS (or its LAPACK part) could not be loaded.
pub fn lapack() -> Option<&'static Lapack> {
    LAPACK.get_or_init(load).as_ref()
}

/// Float and Double: the element types LAPACK works in.
pub trait Real: Element {
    fn routines(l: &Lapack) -> &Routines<Self>;
}

impl Real for f32 {
    fn routines(l: &Lapack) -> &Routines<f32> {
        &l.s
    }
}

impl Real for f64 {
    fn routines(l: &Lapack) -> &Routines<f64> {
        &l.d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_two_by_two_system() {
        let Some(l) = lapack() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "LAPACK could not be loaded (apt-get install libopenblas-dev)"
            );
            eprintln!("skipped: no LAPACK (apt-get install libopenblas-dev)");
            return;
        };
        // [2 1; 1 3] x = [3; 5] (column-major): x = [0.8; 1.4].
        let mut a = [2.0f64, 1.0, 1.0, 3.0];
        let mut b = [3.0f64, 5.0];
        let (n, nrhs) = (2, 1);
        let mut ipiv = [0; 2];
        let mut info = -1;
        unsafe {
            (l.d.gesv)(
                &n,
                &nrhs,
                a.as_mut_ptr(),
                &n,
                ipiv.as_mut_ptr(),
                b.as_mut_ptr(),
                &n,
                &mut info,
            )
        };
        assert_eq!(info, 0);
        assert!((b[0] - 0.8).abs() < 1e-12 && (b[1] - 1.4).abs() < 1e-12, "{b:?}");
    }
}
